#!/usr/bin/python3
"""Compile on demand for TALOS with every constraint type declared (issue 17's compile-time
target): welds on both soles, the hands held to each other (a point loop), two locked joints, a
distance, a wheel, the kernels with external forces and body_states of a hand, and both soles
as elastic contacts on the ground (aba_contacts). articula.compile builds every kernel (rnea,
crba, aba, aba_fext, aba_contacts, energy, constrained_dynamics and its _fext form,
velocity_jump, body_states), more than `articula run --compiled` builds for a robot. Prints the
cold compile into an empty cache and the load of the same entry from it.

usage: /usr/bin/python3 benchmarks/compile_every_constraint.py BUILD_DIR [MAX_STATEMENTS ...]
"""
import pathlib
import sys
import tempfile
import time

build = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "build").resolve()
sys.path.insert(0, str(build / "python"))
import articula  # noqa: E402

root = pathlib.Path(__file__).resolve().parent.parent
model = articula.load_urdf(str(root / "models" / "talos_reduced.urdf"), floating=True)
declared = dict(
    held_frames=["left_sole_link", "right_sole_link", ("gripper_left_base_link", "point", "gripper_right_base_link")],
    locked_joints=["arm_left_4_joint", "head_1_joint"],
    distances=[("gripper_left_base_link", "head_2_link")],
    wheels=[("gripper_right_base_link", 0.05, (0, 0, 1), (0, 0, 1), 0.0)],
    external_forces=True,
    state_frames=["gripper_right_base_link"],
    contacts=["left_sole_link", "right_sole_link"])
for max_statements in [int(a) for a in sys.argv[2:]] or [800]:  # 800: the default
    with tempfile.TemporaryDirectory() as cache:
        t = time.perf_counter()
        k = articula.compile(model, cache_dir=cache, max_statements=max_statements, **declared)
        cold = time.perf_counter() - t
        t = time.perf_counter()
        again = articula.compile(model, cache_dir=cache, max_statements=max_statements, **declared)
        warm = time.perf_counter() - t
        print(f"talos, every constraint type, {f'parts of {max_statements}' if max_statements else 'whole kernels'}: compiled in {cold:.2f} s "
              f"({k.units} units), loaded from the cache in {1e3 * warm:.1f} ms (from_cache {again.from_cache})")
