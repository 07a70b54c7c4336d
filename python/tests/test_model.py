"""Model, ModelBuilder, Data, the configuration manifold, kinematics, Jacobians and energies."""
import numpy as np
import pytest

import articula
from conftest import MODELS


def test_sizes_names_frames_limits(ur5):
    assert (ur5.nq, ur5.nv, ur5.njoints) == (6, 6, 6)
    assert ur5.joint_names[0] == "shoulder_pan_joint"
    assert ur5.joint_id("elbow_joint") == 2
    assert "tool0" in ur5.frame_names
    assert ur5.frames[ur5.frame_id("tool0")].name == "tool0"
    assert ur5.lower.shape == (6,) and ur5.lower.dtype == np.float64
    assert np.all(ur5.lower < ur5.upper)
    assert ur5.total_mass() > 10


def test_floating_base():
    m = articula.load_urdf(str(MODELS / "solo12.urdf"), floating=True)
    assert (m.nq, m.nv) == (19, 18)
    assert m.joint_types[0] == articula.JointType.FreeFlyer
    q = articula.neutral(m)
    assert q[6] == 1.0  # qw


def test_model_builder_pendulum_matches_physics():
    # A point mass m at distance l on a revolute joint about y: M = m l², τ_g = m g l sin q.
    b = articula.ModelBuilder("pendulum")
    b.add_body("link", "", "hinge", articula.JointType.Revolute, articula.Transform(), [0, 1, 0],
               articula.Inertia(2.0, [0, 0, -0.5], np.zeros((3, 3))))
    m = b.build()
    d = articula.Data(m)
    assert articula.crba(m, d, [0.3])[0, 0] == pytest.approx(2.0 * 0.25)
    assert articula.generalized_gravity(m, d, [0.3])[0] == pytest.approx(2.0 * 9.81 * 0.5 * np.sin(0.3))
    qdd = articula.aba(m, d, [0.3], [0.0], [0.0])
    assert qdd[0] == pytest.approx(-9.81 / 0.5 * np.sin(0.3))


def test_builder_errors_are_model_errors():
    b = articula.ModelBuilder()
    with pytest.raises(articula.ModelError, match="unknown"):
        b.add_body("a", "nope", "j", articula.JointType.Revolute, articula.Transform(), [0, 0, 1], articula.Inertia(1.0))
    with pytest.raises(articula.ModelError):
        articula.load_urdf("/nonexistent.urdf")


def test_configuration_ops(ur5):
    q0 = articula.random_configuration(ur5, seed=3)
    v = np.linspace(-1, 1, 6)
    q1 = articula.integrate(ur5, q0, v, 0.1)
    assert np.allclose(articula.difference(ur5, q0, q1), 0.1 * v)
    m = articula.load_urdf(str(MODELS / "solo12.urdf"), floating=True)
    q = articula.neutral(m)
    q[3:7] = [1, 1, 0, 0]
    assert np.linalg.norm(articula.normalize(m, q)[3:7]) == pytest.approx(1.0)


def test_kinematics_jacobian_consistent(ur5):
    d = articula.Data(ur5)
    q = articula.random_configuration(ur5, seed=1)
    v = np.arange(6) * 0.1
    articula.forward_kinematics(ur5, d, q, v)
    J = articula.frame_jacobian(ur5, d, "tool0", articula.ReferenceFrame.LocalWorldAligned, q=q)
    assert np.allclose(J @ v, articula.frame_velocity(ur5, d, "tool0"))
    articula.forward_kinematics(ur5, d, q, v)
    T = articula.frame_placement(ur5, d, "tool0")
    assert T.matrix().shape == (4, 4) and np.allclose(T.R @ T.R.T, np.eye(3))


def test_dynamics_identities(ur5):
    d = articula.Data(ur5)
    q = articula.random_configuration(ur5, seed=2)
    v = np.linspace(0.1, 0.6, 6)
    tau = np.linspace(-3, 3, 6)
    M = articula.crba(ur5, d, q)
    h = articula.nonlinear_effects(ur5, d, q, v)
    qdd = articula.aba(ur5, d, q, v, tau)
    assert np.allclose(M @ qdd + h, tau)
    assert np.allclose(articula.rnea(ur5, d, q, v, qdd), tau)
    assert articula.kinetic_energy(ur5, d, q, v) == pytest.approx(0.5 * v @ M @ v)
    assert np.allclose(articula.generalized_momentum(ur5, d, q, v), M @ v)
    c = articula.center_of_mass(ur5, d, q)
    Jc = articula.center_of_mass_jacobian(ur5, d, q)
    eps = 1e-7
    c2 = articula.center_of_mass(ur5, d, articula.integrate(ur5, q, v, eps))
    assert np.allclose((c2 - c) / eps, Jc @ v, atol=1e-5)
    articula.crba(ur5, d, q)
    articula.factorize_mass_matrix(ur5, d)
    assert np.allclose(articula.solve_mass(ur5, d, tau), np.linalg.solve(M, tau))


def test_data_views_are_read_only(ur5):
    d = articula.Data(ur5)
    out = articula.aba(ur5, d, np.zeros(6), np.zeros(6), np.ones(6))
    view = d.ddq
    assert not view.flags.writeable
    assert np.array_equal(view, out)
    with pytest.raises(ValueError):
        view[0] = 1.0
    out[0] = 99.0  # the returned array is a copy
    assert d.ddq[0] != 99.0
    articula.aba(ur5, d, np.zeros(6), np.zeros(6), np.zeros(6))
    assert np.array_equal(view, d.ddq)  # the view follows Data


def test_external_forces(ur5):
    d = articula.Data(ur5)
    q, v, a = articula.neutral(ur5), np.zeros(6), np.zeros(6)
    f = np.zeros((ur5.njoints, 6))
    tau0 = articula.rnea(ur5, d, q, v, a)
    f[-1, 2] = 10.0
    tau1 = articula.rnea(ur5, d, q, v, a, f_ext=f)
    assert not np.allclose(tau0, tau1)
    assert np.allclose(articula.aba(ur5, d, q, v, tau1, f_ext=f), 0, atol=1e-9)


def test_any_float_layout_gives_the_same_result(ur5):
    """Inputs used as they are (C-contiguous native float64) and inputs converted first (byte-swapped,
    strided, float32, integer, lists, Fortran-order matrices) give identical results."""
    d = articula.Data(ur5)
    rng = np.random.default_rng(3)
    q, v, tau = rng.uniform(-1, 1, 6), rng.standard_normal(6), rng.standard_normal(6)
    ref = articula.aba(ur5, d, q, v, tau)
    for variant in (q.astype(">f8"), np.repeat(q, 2)[::2], q.tolist(), q.astype("<f8")):
        assert np.array_equal(articula.aba(ur5, d, variant, v, tau), ref)
    assert np.array_equal(articula.aba(ur5, d, q, v.astype(">f8"), tau.astype(">f8")), ref)
    qi = np.array([1, 0, -1, 0, 1, 0])
    assert np.array_equal(articula.aba(ur5, d, qi, v, tau), articula.aba(ur5, d, qi.astype(float), v, tau))
    assert np.array_equal(articula.aba(ur5, d, q.astype(np.float32), v, tau),
                          articula.aba(ur5, d, q.astype(np.float32).astype(float), v, tau))
    M = articula.crba(ur5, d, q)
    assert M.shape == (6, 6) and np.array_equal(M, M.T)
    assert np.array_equal(np.asfortranarray(M) @ v, M @ v)
