"""Per-call cost of aba / rnea / crba from Python next to the C++ call (articula_py_reference
bench, same library, same process family), the same calls through DART's Python bindings
(dartpy), and the real-time factor of a Solo-12 run with a Python PD at 1 kHz against the C++
PD. Prints a Markdown table (benchmarks/README.md).

    PYTHONPATH=build/python /usr/bin/python3 python/bench/bench_python.py build/python/articula_py_reference
"""
import subprocess
import sys
import time

import numpy as np

import articula

N = 20000
ROUNDS = 5


def per_call(f, n=N, repeats=7):
    """The best of `repeats` loops of n / repeats calls [ns] (the machine is shared: the minimum is
    the least disturbed)."""
    f()
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for _ in range(n // repeats):
            f()
        best = min(best, (time.perf_counter() - t0) / (n // repeats) * 1e9)
    return best


def articula_rows(path, floating, ref):
    m = articula.load_urdf(path, floating=floating)
    d = articula.Data(m)
    q = articula.random_configuration(m, seed=1)
    rng = np.random.default_rng(0)
    v, x = rng.standard_normal(m.nv), rng.standard_normal(m.nv)
    aba, rnea, crba = articula.aba, articula.rnea, articula.crba  # the loop times the call, not the lookup
    calls = {"aba": lambda: aba(m, d, q, v, x), "rnea": lambda: rnea(m, d, q, v, x), "crba": lambda: crba(m, d, q),
             "loop": lambda: None}  # "loop": the timing loop's own cost (a Python lambda call), not the binding's
    state = " ".join(float(s).hex() for s in np.concatenate([q, v, x]))  # the same state on both sides
    py, cpp = {k: float("inf") for k in calls}, {k: float("inf") for k in ("aba", "rnea", "crba")}
    for _ in range(ROUNDS):  # Python and C++ alternate, so a slow spell of the machine hits both; minimum of each
        for k, f in calls.items():
            py[k] = min(py[k], per_call(f))
        out = subprocess.run([ref, "bench", path, "1" if floating else "0", str(N)], input=state,
                             capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            k, t = line.split()
            cpp[k] = min(cpp[k], float(t))
    return m, py, cpp


def dart_rows(path, floating):
    try:
        import dartpy as dart
    except ImportError:
        return None
    skel = dart.utils.DartLoader().parseSkeleton(path)
    if not floating:
        skel.getRootJoint()  # fixed base as loaded by DartLoader (the URDF's root is welded)
    n = skel.getNumDofs()
    rng = np.random.default_rng(0)
    skel.setPositions(rng.uniform(-1, 1, n) * 0.5 if not floating else skel.getPositions())
    skel.setVelocities(rng.standard_normal(n))
    skel.setForces(rng.standard_normal(n))

    def fd():
        skel.computeForwardDynamics()
        return skel.getAccelerations()

    def idyn():
        skel.computeInverseDynamics()
        return skel.getForces()

    return {"aba": per_call(fd), "rnea": per_call(idyn), "crba": per_call(lambda: skel.getMassMatrix())}


def solo_rtf(python):
    model = articula.load_urdf(articula.models_dir() + "/solo12.urdf", floating=True)
    robot = articula.Robot(model)
    joints = [j for j in model.joint_names if j != "root_joint"]
    for j in joints:
        robot.add_motor(articula.Motor(j, j, gear_ratio=9, rotor_inertia=6e-6, effort_limit=2.7))
    for foot in ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"):
        robot.add_contact(articula.ElasticContact(foot, foot, stiffness=1e4, damping=60, slip_velocity=0.05))
    m = robot.model
    stand = {"FL_HFE": 0.8, "FL_KFE": -1.6, "FR_HFE": 0.8, "FR_KFE": -1.6,
             "HL_HFE": -0.8, "HL_KFE": 1.6, "HR_HFE": -0.8, "HR_KFE": 1.6}
    q = articula.neutral(m)
    q[2] = 0.2223
    for j, x in stand.items():
        q[m.idx_q[m.joint_id(j)]] = x
    qi = np.array([m.idx_q[m.joint_id(j)] for j in joints])
    vi = np.array([m.idx_v[m.joint_id(j)] for j in joints])
    target = q[qi].copy()
    sim = articula.Simulator(robot, integrator="rk4", dt=2e-4)
    sim.set_state(q, np.zeros(m.nv))
    if python:
        sim.set_controller(lambda t, q, v, s: 30.0 * (target - q[qi]) - 0.5 * v[vi], period=1e-3)
    else:
        sim.set_controller(articula.pd_controller(robot, {j: target[k] for k, j in enumerate(joints)}, 30.0, 0.5),
                           period=1e-3)
    r = sim.run(2.0)
    assert r.ok(), r.message
    return r.real_time_factor()


def main(ref):
    root = articula.models_dir()
    print("| model | call | Python articula [ns] | C++ articula [ns] | overhead [ns] | dartpy [ns] |")
    print("|---|---|---:|---:|---:|---:|")
    loop = []
    for name, floating in (("ur5", False), ("talos_reduced", True)):
        path = f"{root}/{name}.urdf"
        m, py, cpp = articula_rows(path, floating, ref)
        dart = dart_rows(path, floating)
        for call in ("aba", "rnea", "crba"):
            d = f"{dart[call]:.0f}" if dart else "n/a"
            over = py[call] - py["loop"] - cpp[call]
            print(f"| {name} (nv {m.nv}) | {call} | {py[call]:.0f} | {cpp[call]:.0f} | {over:.0f} | {d} |")
        loop.append(py["loop"])
    print()
    print(f"Overhead = Python − C++ − the timing loop's own cost per call ({min(loop):.0f}–{max(loop):.0f} ns: "
          "a `for` step and a Python lambda call, paid by any Python caller of any library); same state both sides.")
    print()
    cpp_rtf, py_rtf = solo_rtf(False), solo_rtf(True)
    print("| Solo-12, 2 s, RK4 dt 0.2 ms, PD at 1 kHz | real-time factor |")
    print("|---|---:|")
    print(f"| C++ PD (pd_controller) | {cpp_rtf:.1f} |")
    print(f"| Python PD (lambda) | {py_rtf:.1f} |")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "build/python/articula_py_reference")
