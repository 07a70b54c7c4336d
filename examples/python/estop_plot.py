"""The e-stop study (RX130 stand-in, brakes on joints 1-3) with consistent and naive jumps,
plotted to a PNG file with matplotlib (Agg backend, no display needed).

    PYTHONPATH=build/python /usr/bin/python3 examples/python/estop_plot.py [out.png]
"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import articula  # noqa: E402


def main(out="estop.png"):
    cfg = articula.default_estop_config()
    fig, (ax_e, ax_p) = plt.subplots(1, 2, figsize=(10, 4))
    for jump, style in (("auto", "-"), ("naive", "--")):
        cfg.jump = jump
        r = articula.run_brake_study(None, cfg)
        if not r.ok:
            raise SystemExit(f"study failed: {r.message}")
        label = "consistent" if jump == "auto" else "naive"
        ax_e.plot(r.t, r.energy[:, 0], style, label=f"{label}: kinetic")
        ax_p.plot(r.flange[:, 0], r.flange[:, 1], style, label=label)
        print(f"{label:10s} stop distance {r.stop_distance:.4f} m, momentum residual of the first jump "
              f"{r.events[0].momentum_residual:.1e}")
    ax_e.set(xlabel="t [s]", ylabel="energy [J]", title="kinetic energy")
    ax_p.set(xlabel="x [m]", ylabel="y [m]", title="flange path")
    for ax in (ax_e, ax_p):
        ax.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=80)
    print("wrote", out)


if __name__ == "__main__":
    main(*sys.argv[1:])
