#!/usr/bin/env python3
"""Stopping-distance and stopping-time charts in the robot makers' style (ISO 10218-1 Annex B).

Reads the stopping.csv written by `articula stopping` and draws, per stop category, one PNG
(stopping_cat<C>.png) with one panel per tested joint (rows) and extension (columns): the
stopping distance [deg] (solid, left axis) and the stopping time [s] (dashed, right axis)
against the speed [% of maximum], one curve per payload [% of rated].

    /usr/bin/python3 tools/plot_stopping.py articula_out/stopping/stopping.csv -o articula_out/stopping
"""
import argparse
import csv
import os
import sys
from collections import defaultdict


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("csv", help="stopping.csv from articula stopping")
    ap.add_argument("-o", "--output", default=".", help="folder for stopping_cat<C>.png")
    ap.add_argument("--title", default="", help="title prefix (the robot)")
    ap.add_argument("--ideal", action="store_true", help="also draw the ideal-lock distances (dotted)")
    a = ap.parse_args(argv)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_stopping.py: needs matplotlib (Debian: python3-matplotlib, /usr/bin/python3)")
    with open(a.csv, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows:
        sys.exit("plot_stopping.py: %s has no case" % a.csv)
    need = {"joint", "category", "speed_fraction", "payload_fraction", "extension_fraction", "ok", "distance_deg",
            "stop_time_s", "ideal_distance_deg"}
    missing = need - set(rows[0])
    if missing:
        sys.exit("plot_stopping.py: %s lacks the columns %s" % (a.csv, ", ".join(sorted(missing))))
    os.makedirs(a.output, exist_ok=True)
    joints = list(dict.fromkeys(r["joint"] for r in rows))
    exts = sorted({float(r["extension_fraction"]) for r in rows})
    payloads = sorted({float(r["payload_fraction"]) for r in rows})
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for cat in sorted({r["category"] for r in rows}):
        fig, axes = plt.subplots(len(joints), len(exts), figsize=(4.2 * len(exts), 3.1 * len(joints)), squeeze=False,
                                 sharex=True)
        for i, joint in enumerate(joints):
            for k, ext in enumerate(exts):
                ax = axes[i][k]
                tx = ax.twinx()
                series = defaultdict(list)
                for r in rows:
                    if r["joint"] == joint and r["category"] == cat and float(r["extension_fraction"]) == ext \
                            and r["ok"] == "1":
                        series[float(r["payload_fraction"])].append(
                            (100 * float(r["speed_fraction"]), float(r["distance_deg"]), float(r["stop_time_s"]),
                             float(r["ideal_distance_deg"])))
                for n, p in enumerate(payloads):
                    pts = sorted(series.get(p, []))
                    if not pts:
                        continue
                    c = colors[n % len(colors)]
                    ax.plot([x[0] for x in pts], [x[1] for x in pts], "o-", color=c, label="%.0f %% payload" % (100 * p))
                    tx.plot([x[0] for x in pts], [x[2] for x in pts], "s--", color=c, alpha=0.7)
                    if a.ideal:
                        ax.plot([x[0] for x in pts], [x[3] for x in pts], ":", color=c, alpha=0.6)
                ax.set_title("%s, %.0f %% extension" % (joint, 100 * ext), fontsize=10)
                ax.grid(True, alpha=0.3)
                ax.set_ylim(bottom=0)
                tx.set_ylim(bottom=0)
                if k == 0:
                    ax.set_ylabel("stopping distance [deg] (—)")
                if k == len(exts) - 1:
                    tx.set_ylabel("stopping time [s] (- -)")
                if i == len(joints) - 1:
                    ax.set_xlabel("speed [% of maximum]")
                if i == 0 and k == 0:
                    ax.legend(fontsize=8, loc="upper left")
        fig.suptitle("%sstop category %s: stopping distance and time (ISO 10218-1 Annex B)"
                     % (a.title + ", " if a.title else "", cat))
        fig.tight_layout()
        out = os.path.join(a.output, "stopping_cat%s.png" % cat)
        fig.savefig(out, dpi=90)
        plt.close(fig)
        print("Wrote %s" % out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
