"""aba, crba and constrained dynamics from Python equal the C++ library's results bitwise.

The C++ side is a separate program (python/tests/reference.cpp) linked to the same library: it
reads the states as hex floats, computes with the C++ API directly and prints hex floats. The
Python side passes the same states through the bindings (NumPy → Eigen and back). Any
conversion that rounds, reorders or copies wrongly shows up as a differing bit."""
import subprocess

import numpy as np
import pytest

import articula
from conftest import BUNDLED, MODELS

STATES = 5


def states(model, rng):
    out = []
    for s in range(STATES):
        q = articula.random_configuration(model, seed=s)
        out.append((q, rng.standard_normal(model.nv), rng.standard_normal(model.nv) * 3))
    return out


def python_side(model, xs):
    data = articula.Data(model)
    ws = articula.ConstrainedWorkspace(model)
    lock_joint = next(n for n, k in zip(model.joint_names, model.nv_joint) if k == 1)
    both = articula.ConstraintSet(model)
    both.add(articula.JointLock(model, "lock", [lock_joint], [0.1]))
    both.add(articula.FrameConstraint("hold", model.frames[-1].name, "point",
                                      articula.Transform(p=[0.3, 0.1, 0.5])))
    locks = articula.ConstraintSet(model)
    locks.add(articula.JointLock(model, "lock", [lock_joint], [0.1]))
    lines = []
    for q, v, tau in xs:
        parts = [articula.aba(model, data, q, v, tau), articula.crba(model, data, q).ravel()]
        for method in ("kkt", "range", "null"):
            ddq, lam, report = articula.constrained_forward_dynamics(model, data, ws, both, q, v, tau, method=method)
            assert report.rows == 4  # a planar model makes the point rows dependent: compared all the same
            parts += [ddq, lam]
        ddq, lam, report = articula.constrained_forward_dynamics(model, data, ws, locks, q, v, tau, method="hybrid")
        assert report.method == articula.ConstrainedMethod.Hybrid
        parts += [ddq, lam]
        lines.append(np.concatenate(parts))
    return lines


@pytest.mark.parametrize("name,floating", BUNDLED)
def test_bitwise_equal_to_cpp(name, floating, reference):
    path = str(MODELS / f"{name}.urdf")
    model = articula.load_urdf(path, floating=floating)
    xs = states(model, np.random.default_rng(42))
    stdin = f"{len(xs)}\n" + "\n".join(" ".join(float(x).hex() for x in np.concatenate(s)) for s in xs) + "\n"
    out = subprocess.run([reference, "eval", path, "1" if floating else "0"], input=stdin, capture_output=True,
                         text=True, check=True).stdout.splitlines()
    ours = python_side(model, xs)
    assert len(out) == len(ours) == STATES
    n_expected = model.nv + model.nv ** 2 + 3 * (model.nv + 4) + model.nv + 1  # aba, M, 3 × (v̇, λ), hybrid
    for k, (line, mine) in enumerate(zip(out, ours)):
        theirs = np.array([float.fromhex(t) for t in line.split()])
        assert theirs.size == mine.size == n_expected
        same = theirs.view(np.uint64) == mine.view(np.uint64)
        assert same.all(), f"{name} state {k}: {np.count_nonzero(~same)} values differ, first at {np.argmin(same)}"
