"""Constraints, ConstraintSet, constrained dynamics by every method, velocity jumps."""
import numpy as np
import pytest

import articula
from conftest import MODELS


def rx130():
    return articula.load_urdf(str(MODELS / "rx130_standin.urdf"))


def lock_as_callback(model, joint):
    k = model.idx_v[model.joint_id(joint)]

    def jac(m, data, q):
        J = np.zeros((1, m.nv))
        J[0, k] = 1.0
        return J

    return articula.CallbackConstraint("py_lock", 1, jac, lambda m, data, q, v: [0.0])


def test_callback_lock_gives_the_cpp_lock_jump():
    m = rx130()
    d = articula.Data(m)
    q = articula.random_configuration(m, seed=5)
    v = np.linspace(-1, 1.5, m.nv)
    results = []
    for c in (articula.JointLock(m, "lock", ["joint_2"]), lock_as_callback(m, "joint_2")):
        s = articula.ConstraintSet(m)
        s.add(c, enabled=False)
        r = articula.activate_constraints(m, d, s, [c.name], q, v, form="full")
        assert r.ok() and r.names == [c.name]
        results.append(r)
    a, b = results
    assert np.allclose(a.v_plus, b.v_plus, rtol=0, atol=1e-12)
    assert np.allclose(a.Lambda, b.Lambda, rtol=0, atol=1e-10)
    assert abs(a.v_plus[m.idx_v[m.joint_id("joint_2")]]) < 1e-12
    assert a.kinetic_after < a.kinetic_before


def test_every_method_agrees():
    m = rx130()
    d = articula.Data(m)
    s = articula.ConstraintSet(m)
    s.add(articula.FrameConstraint("hold", "flange", articula.AxisMask("point")))
    s.add(articula.JointLock(m, "lock", ["joint_5"]))
    q = articula.random_configuration(m, seed=9)
    v, tau = np.full(m.nv, 0.2), np.zeros(m.nv)
    ddqs = []
    for method in ("kkt", "range", "null", articula.ConstrainedMethod.Auto):
        ddq, lam, rep = articula.constrained_forward_dynamics(m, d, None, s, q, v, tau, method=method)
        rep.raise_for_status()
        assert lam.shape == (4,) and rep.residual < 1e-8
        # one constraint's multipliers: the set keeps none, it picks them from the solve's
        assert np.array_equal(s.rows_of("lock", lam), lam[3:])
        assert np.array_equal(s.rows_of("hold", lam), lam[:3])
        ddqs.append(ddq)
    with pytest.raises(articula.ArgumentError, match="rows_of"):
        s.rows_of("lock", np.zeros(2))
    for x in ddqs[1:]:
        assert np.allclose(x, ddqs[0], atol=1e-8)
    J, gamma = s.J, s.gamma
    ddq, lam, rep = articula.solve_constrained(m, d, articula.ConstrainedWorkspace(m), J, gamma, q, v, tau)
    assert np.allclose(ddq, ddqs[0], atol=1e-8)


def test_jump_forms_and_explicit_rows():
    m = rx130()
    d = articula.Data(m)
    q = articula.random_configuration(m, seed=2)
    v = np.linspace(1, -1, m.nv)
    articula.crba(m, d, q)
    J2 = np.zeros((1, m.nv))
    J2[0, 1] = 1
    plus = {}
    for form in ("full", "range", "projector", "minimal"):
        r = articula.velocity_jump(m, d, None, J2, v, form=form)
        assert r.ok() and r.constraint_residual < 1e-12
        plus[form] = r.v_plus
    for x in plus.values():
        assert np.allclose(x, plus["full"], atol=1e-10)
    naive = articula.velocity_jump(m, d, None, J2, v, form="naive", locked=[1])
    assert naive.v_plus[1] == 0 and naive.momentum_residual > 1e-6
    bounce = articula.velocity_jump(m, d, None, J2, v, form="full", restitution=0.5)
    assert bounce.v_plus[1] == pytest.approx(-0.5 * v[1])


def test_frame_wheel_loop_rows_shapes():
    m = articula.load_urdf(str(MODELS / "segway.urdf"), floating=True)
    d = articula.Data(m)
    q, v = articula.neutral(m), np.zeros(m.nv)
    wheel_frame = [f.name for f in m.frames if "wheel" in f.name][0]
    w = articula.WheelConstraint("wheel", wheel_frame, 0.2, [0, 1, 0])
    J, gamma, e = w.rows(m, d, q, v)
    assert J.shape == (3, m.nv) and gamma.shape == (3,)
    loop = articula.LoopConstraint("loop", wheel_frame, [f.name for f in m.frames if f.name != wheel_frame][-1])
    J, gamma, e = loop.rows(m, d, q, v)
    assert J.shape == (3, m.nv) and np.allclose(e, 0)


def test_callback_errors_name_the_constraint():
    m = rx130()
    d = articula.Data(m)
    s = articula.ConstraintSet(m)
    s.add(articula.CallbackConstraint("bad", 2, lambda m_, d_, q: np.zeros((3, m_.nv)), lambda *a: np.zeros(2)))
    with pytest.raises(articula.Error, match="bad"):
        articula.constrained_forward_dynamics(m, d, None, s, articula.neutral(m), np.zeros(m.nv), np.zeros(m.nv))

    def boom(m_, d_, q):
        raise RuntimeError("kaboom")

    s2 = articula.ConstraintSet(m)
    s2.add(articula.CallbackConstraint("boom", 1, boom, lambda *a: [0.0]))
    with pytest.raises(articula.Error, match="kaboom"):
        articula.constrained_forward_dynamics(m, d, None, s2, articula.neutral(m), np.zeros(m.nv), np.zeros(m.nv))
