"""articula.compile: kernels compiled on demand, checked against the runtime recursions, the cache,
errors, and a Simulator run on them against the runtime run (docs/codegen.md)."""
import numpy as np
import pytest

import articula
from conftest import MODELS


def random_state(model, seed):
    rng = np.random.default_rng(seed)
    q = articula.random_configuration(model, seed)
    return q, rng.uniform(-1.0, 1.0, model.nv), rng.uniform(-1.0, 1.0, model.nv)


def close(a, b, rel=1e-10):  # the kernels snap URDF decimal quarter turns (~1e-11, docs/codegen.md)
    return np.max(np.abs(a - b)) <= rel * (1.0 + np.max(np.abs(b)))


def test_kernels_match_the_recursions_then_load_from_the_cache(tmp_path):
    model = articula.load_urdf(str(MODELS / "ur5.urdf"))
    k = articula.compile(model, cache_dir=str(tmp_path))
    assert not k.from_cache and k.units > 0 and len(k.key) == 16 and k.seconds > 0
    data = articula.Data(model)
    for seed in range(5):
        q, v, a = random_state(model, seed)
        assert close(k.rnea(q, v, a), articula.rnea(model, data, q, v, a))
        assert close(k.crba(q), articula.crba(model, data, q))
        assert close(k.aba(q, v, a), articula.aba(model, data, q, v, a))
    again = articula.compile(model, cache_dir=str(tmp_path))
    assert again.from_cache and again.key == k.key and again.units == 0
    with pytest.raises(ValueError, match=r"argument 'q' has shape \(5,\), expected \(6,\)"):
        k.aba(np.zeros(5), np.zeros(6), np.zeros(6))


def test_engine_kernels_only_compiles_less_and_names_what_it_left_out(tmp_path):
    # Only what a Simulator calls (as `articula run --compiled`): aba here; rnea, crba and the jump
    # are left out and their calls raise an error naming them, never call a missing kernel.
    model = articula.load_urdf(str(MODELS / "ur5.urdf"))
    full = articula.compile(model, held_frames=["tool0"], max_statements=0, cache_dir=str(tmp_path))
    k = articula.compile(model, held_frames=["tool0"], max_statements=0, engine_kernels_only=True,
                         cache_dir=str(tmp_path))
    assert k.key != full.key and 0 < k.units < full.units
    data = articula.Data(model)
    q, v, a = random_state(model, 1)
    assert close(k.aba(q, v, a), articula.aba(model, data, q, v, a))
    ref, kp, kd = np.zeros(12), np.zeros(1), np.zeros(1)
    assert close(k.constrained_dynamics(q, v, a, ref, kp, kd)[0], full.constrained_dynamics(q, v, a, ref, kp, kd)[0])
    for call, name in ((lambda: k.rnea(q, v, a), "rnea"), (lambda: k.crba(q), "crba"),
                       (lambda: k.velocity_jump(q, v), "velocity_jump")):
        with pytest.raises(articula.ArgumentError, match=name + ".*engine_kernels_only"):
            call()


def test_errors_name_the_problem(tmp_path):
    model = articula.load_urdf(str(MODELS / "ur5.urdf"))
    with pytest.raises(articula.CompileError, match="no-such-compiler"):
        articula.compile(model, cache_dir=str(tmp_path), compiler="/nonexistent/no-such-compiler")
    with pytest.raises(articula.ArgumentError, match="unknown frame 'nowhere'"):
        articula.compile(model, held_frames=["nowhere"], cache_dir=str(tmp_path))
    with pytest.raises(articula.ArgumentError, match="'weld' or 'point'"):
        articula.compile(model, held_frames=[("tool0", "hinge")], cache_dir=str(tmp_path))
    assert issubclass(articula.CompileError, articula.Error)


def test_a_run_on_compiled_kernels_equals_the_runtime_run(tmp_path):
    finals = []
    for compiled in (False, True):
        robot = articula.Robot(articula.load_urdf(str(MODELS / "pendulum3r.urdf")))
        sim = articula.Simulator(robot, dt=1e-3)
        sim.set_state(np.array([0.3, -0.2, 0.1]), np.zeros(3))
        if compiled:
            assert articula.compilable_held_frames(robot) == []
            sim.use_compiled(articula.compile(robot.model, cache_dir=str(tmp_path)))
        r = sim.run(0.2)
        assert r.ok()
        assert (sim.generated_evaluations > 0) == compiled
        finals.append(np.concatenate([sim.q, sim.v]))
    assert close(finals[1], finals[0], 1e-9)


def test_locks_switched_during_a_run_stay_on_the_kernels(tmp_path):
    """Two joint locks declared (compilable_locked_joints): the run goes through no lock, one and
    both, all on the one constrained kernel, and ends as the runtime run."""
    finals = []
    for compiled in (False, True):
        robot = articula.Robot(articula.load_urdf(str(MODELS / "pendulum3r.urdf")))
        m = robot.model
        for j in (1, 2):
            robot.constraints.add(articula.JointLock(m, f"lock{j}", [m.joint_names[j]]), enabled=False)
        sim = articula.Simulator(robot, dt=1e-3)
        sim.set_state(np.array([0.3, -0.2, 0.1]), np.zeros(3))
        for j, t in ((1, 0.1), (2, 0.2)):
            sim.add_event(articula.Event(f"on{j}", time=t, actions=[articula.EventAction.enable(f"lock{j}")]))
        if compiled:
            locked = articula.compilable_locked_joints(robot)
            assert locked == [m.joint_names[1], m.joint_names[2]]
            # with the limit stops: every limited revolute joint of the pendulum
            assert articula.compilable_locked_joints(robot, joint_limits=True) == list(m.joint_names)
            k = articula.compile(m, locked_joints=locked, cache_dir=str(tmp_path))
            assert k.locked_joints == locked
            sim.use_compiled(k)
        r = sim.run(0.3)
        assert r.ok()
        assert sim.generated_evaluations == (sim.dynamics_evaluations if compiled else 0)
        finals.append(np.concatenate([sim.q, sim.v, sim.multipliers]))
    assert close(finals[1], finals[0], 1e-9)
    with pytest.raises(articula.ArgumentError, match="unknown joint 'elbow'"):
        articula.compile(m, locked_joints=["elbow"], cache_dir=str(tmp_path))


def test_a_loop_closure_compiles_and_matches_the_runtime_solver(tmp_path):
    """held_frames=(frame, kind, other): the frame held to another (LoopConstraint) in the kernels."""
    m = articula.load_urdf(str(MODELS / "ur5.urdf"))
    robot = articula.Robot(m)
    robot.constraints.add(articula.LoopConstraint("loop", "tool0", "upper_arm_link", articula.AxisMask("point")))
    held = articula.compilable_held_frames(robot)
    assert held == [("tool0", "point", "upper_arm_link")]
    k = articula.compile(m, held_frames=held, cache_dir=str(tmp_path))
    assert k.held_frames == held
    d = articula.Data(m)
    q, v, tau = random_state(m, 4)
    s = articula.ConstraintSet(m)
    c = articula.LoopConstraint("loop", "tool0", "upper_arm_link", articula.AxisMask("point"))
    c.baumgarte_frequency = 0.0
    s.add(c)
    ddq, lam, rep = articula.constrained_forward_dynamics(m, d, None, s, q, v, tau, method="range")
    rep.raise_for_status()
    ref = np.zeros(12)
    ref[3] = ref[7] = ref[11] = 1.0
    qdd, lam_k = k.constrained_dynamics(q, v, tau, ref, np.zeros(1), np.zeros(1))
    assert close(qdd, ddq, 1e-9)
    assert close(lam_k, lam, 1e-9)
    jump = articula.velocity_jump(m, d, None, s.J, v, form="full")
    v_plus, _ = k.velocity_jump(q, v)
    assert close(v_plus, jump.v_plus, 1e-9)
    with pytest.raises(articula.ArgumentError, match="unknown frame 'nowhere'"):
        articula.compile(m, held_frames=[("tool0", "point", "nowhere")], cache_dir=str(tmp_path))


def test_a_wheel_and_a_planar_frame_run_on_the_kernels(tmp_path):
    """wheels=[(frame, radius, axis, normal, height)] and held axes ('rxrz'): the segway on compiled kernels."""
    finals = []
    for compiled in (False, True):
        robot = articula.Robot(articula.load_urdf(str(MODELS / "segway.urdf"), floating=True))
        robot.constraints.add(articula.WheelConstraint("rolling", "wheel", 0.2, [0, 1, 0]))
        robot.constraints.add(articula.FrameConstraint("planar", "wheel", articula.AxisMask("rxrz")))
        sim = articula.Simulator(robot, dt=1e-3)
        q = np.zeros(robot.model.nq)
        q[2], q[6], q[7] = 0.2, 1.0, 0.02  # wheel centre on the ground, upright, body tilted
        sim.set_state(q, np.zeros(robot.model.nv))
        if compiled:
            assert articula.compilable_held_frames(robot) == [("wheel", "rxrz")]
            wheels = articula.compilable_wheels(robot)
            assert len(wheels) == 1 and wheels[0][0] == "wheel" and wheels[0][1] == 0.2
            k = articula.compile(robot.model, held_frames=[("wheel", "rxrz")], wheels=wheels, cache_dir=str(tmp_path))
            assert k.wheels[0][0] == "wheel" and np.allclose(k.wheels[0][2], [0, 1, 0])
            sim.use_compiled(k)
        r = sim.run(0.3)
        assert r.ok(), r.message
        assert (sim.generated_evaluations >= sim.dynamics_evaluations - 1) == compiled
        finals.append(np.concatenate([sim.q, sim.v]))
    assert close(finals[1], finals[0], 1e-9)
    with pytest.raises(articula.ArgumentError, match="radius must be positive"):
        articula.compile(robot.model, wheels=[("wheel", -1.0, [0, 1, 0], [0, 0, 1], 0.0)], cache_dir=str(tmp_path))


def test_a_distance_compiles_and_matches_the_runtime_solver(tmp_path):
    """distances=[(frame_a, frame_b)]: the distance held in the kernels (DistanceConstraint), after the locks."""
    m = articula.load_urdf(str(MODELS / "ur5.urdf"))
    robot = articula.Robot(m)
    robot.constraints.add(articula.DistanceConstraint("rope", "tool0", "upper_arm_link"))
    assert articula.compilable_distances(robot) == [("tool0", "upper_arm_link")]
    k = articula.compile(m, locked_joints=["elbow_joint"], distances=articula.compilable_distances(robot),
                         cache_dir=str(tmp_path))
    assert k.distances == [("tool0", "upper_arm_link")]
    d = articula.Data(m)
    q, v, tau = random_state(m, 5)
    articula.forward_kinematics(m, d, q)
    now = np.linalg.norm(articula.frame_placement(m, d, "tool0").p - articula.frame_placement(m, d, "upper_arm_link").p)
    s = articula.ConstraintSet(m)
    c = articula.DistanceConstraint("rope", "tool0", "upper_arm_link", 0.9 * now)
    c.baumgarte_frequency = 5.0
    s.add(c)
    ddq, lam, rep = articula.constrained_forward_dynamics(m, d, None, s, q, v, tau, method="range")
    rep.raise_for_status()
    # The lock off, the distance on: ref = [the lock's q, d0], lambda = [the lock's row, the distance's].
    ref = np.array([q[m.idx_q[m.joint_names.index("elbow_joint")]], 0.9 * now])
    active = np.array([0.0, 1.0])
    qdd, lam_k = k.constrained_dynamics(q, v, tau, ref, np.array([0.0, c.kp]), np.array([0.0, c.kd]), active=active)
    assert close(qdd, ddq, 1e-9)
    assert lam_k[0] == 0.0 and close(lam_k[1:], lam, 1e-9)
    jump = articula.velocity_jump(m, d, None, s.J, v, form="full")
    v_plus, _ = k.velocity_jump(q, v, active=active)
    assert close(v_plus, jump.v_plus, 1e-9)
    with pytest.raises(articula.ArgumentError, match="to itself"):
        articula.compile(m, distances=[("tool0", "tool0")], cache_dir=str(tmp_path))


def test_constrained_kernels_take_any_subset_of_frames_and_locks(tmp_path):
    """compile(held_frames, locked_joints): constrained_dynamics and velocity_jump for each subset
    of a held point and a locked joint, against the runtime solver and jump."""
    m = articula.load_urdf(str(MODELS / "ur5.urdf"))
    k = articula.compile(m, held_frames=[("tool0", "point")], locked_joints=["elbow_joint"], cache_dir=str(tmp_path))
    d = articula.Data(m)
    q, v, tau = random_state(m, 3)
    j = m.joint_names.index("elbow_joint")
    ref = np.zeros(13)
    ref[3] = ref[7] = ref[11] = 1.0
    ref[12] = q[m.idx_q[j]] + 0.01  # the lock's reference, off the state: its Baumgarte term acts
    kp, kd = np.array([0.0, 50.0]), np.array([0.0, 10.0])
    for active in ([1, 0], [0, 1], [1, 1]):
        s = articula.ConstraintSet(m)
        rows = []
        if active[0]:
            c = articula.FrameConstraint("point", "tool0", articula.AxisMask("point"))
            c.baumgarte_frequency = 0.0
            s.add(c)
            rows += [0, 1, 2]
        if active[1]:
            lock = articula.JointLock(m, "lock", ["elbow_joint"], [ref[12]])
            lock.baumgarte_frequency = 50.0 ** 0.5 / (2 * np.pi)  # kp = 50, kd = 2 sqrt(50)
            kd[1] = lock.kd
            s.add(lock)
            rows += [3]
        ddq, lam, rep = articula.constrained_forward_dynamics(m, d, None, s, q, v, tau, method="range")
        rep.raise_for_status()
        qdd, lam_k = k.constrained_dynamics(q, v, tau, ref, kp, kd, active=np.array(active, float))
        assert close(qdd, ddq, 1e-9)
        assert close(lam_k[rows], lam, 1e-9)
        assert np.all(lam_k[[r for r in range(4) if r not in rows]] == 0.0)
        jump = articula.velocity_jump(m, d, None, s.J, v, form="full")
        v_plus, Lam = k.velocity_jump(q, v, active=np.array(active, float))
        assert close(v_plus, jump.v_plus, 1e-9)
    with pytest.raises(articula.ArgumentError, match="'active'"):
        k.constrained_dynamics(q, v, tau, ref, kp, kd, active=np.ones(3))
    plain = articula.compile(m, cache_dir=str(tmp_path))
    with pytest.raises(articula.ArgumentError, match="no held frame, locked joint or distance"):
        plain.constrained_dynamics(q, v, tau, ref, kp, kd)


def test_a_run_compiled_in_background_ends_as_the_runtime_run(tmp_path):
    """compile_in_background + use_compiled_when_ready: the run starts on the runtime algorithms,
    switches between two steps once the kernels are ready (compiled_from), and ends as the
    runtime run; a failed compile leaves it on the runtime path, and .result() raises."""
    def run(setup):
        robot = articula.Robot(articula.load_urdf(str(MODELS / "pendulum3r.urdf")))
        sim = articula.Simulator(robot, dt=1e-3)
        sim.set_state(np.array([0.3, -0.2, 0.1]), np.zeros(3))
        setup(robot, sim)
        r = sim.run(0.5)
        assert r.ok(), r.message
        return r, sim, np.concatenate([sim.q, sim.v])

    _, _, runtime = run(lambda robot, sim: None)
    flight = {}

    def background(robot, sim):
        flight["k"] = articula.compile_in_background(robot.model, cache_dir=str(tmp_path))
        flight["k"].result()  # wait, so that the switch happens at the first step: a deterministic test
        sim.use_compiled_when_ready(flight["k"])

    r, sim, final = run(background)
    assert flight["k"].ready()
    assert r.compiled_from == 0.0
    assert sim.generated_evaluations > 0
    assert close(final, runtime, 1e-9)

    def failing(robot, sim):
        flight["bad"] = articula.compile_in_background(robot.model, cache_dir=str(tmp_path / "other"),
                                                       compiler="/nonexistent/no-such-compiler")
        sim.use_compiled_when_ready(flight["bad"])

    r, sim, final = run(failing)
    assert np.isnan(r.compiled_from)
    assert sim.generated_evaluations == 0
    assert np.array_equal(final, runtime)
    with pytest.raises(articula.CompileError, match="no-such-compiler"):
        flight["bad"].result()


def test_contacts_run_on_the_kernels_with_external_forces(tmp_path):
    """A robot with elastic contacts: compile(..., external_forces=True) gives aba with f_ext (as
    articula.aba), and a Simulator runs every evaluation on it, ending as the runtime run."""
    finals = []
    for compiled in (False, True):
        robot = articula.Robot.from_urdf(str(MODELS / "solo12.urdf"), True)
        for foot in ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"):
            robot.add_contact(articula.ElasticContact(foot, foot, surface=articula.Surface.ground(0.0),
                                                      stiffness=1e4, damping=60))
        sim = articula.Simulator(robot, dt=5e-4)
        q = articula.neutral(robot.model)
        q[2] = 0.3
        sim.set_state(q, np.zeros(robot.model.nv))
        if compiled:
            k = articula.compile(robot.model, external_forces=True, cache_dir=str(tmp_path),
                                 state_frames=["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"])
            assert k.external_forces
            data = articula.Data(robot.model)
            for seed in range(3):
                q_r, v_r, tau_r = random_state(robot.model, seed)
                f = np.random.default_rng(seed).uniform(-5.0, 5.0, (robot.model.njoints, 6))
                expected = articula.aba(robot.model, data, q_r, v_r, tau_r, f)
                assert close(k.aba(q_r, v_r, tau_r, f), expected, 1e-9)
                assert not close(k.aba(q_r, v_r, tau_r), expected, 1e-3)
            sim.use_compiled(k)
        r = sim.run(0.3)
        assert r.ok()
        assert sim.generated_evaluations == (r.evaluations if compiled else 0)
        finals.append(np.concatenate([sim.q, sim.v]))
    assert abs(finals[0][2] - 0.3) > 1e-2  # it fell onto its feet: the contacts acted
    assert close(finals[1], finals[0], 1e-9)
    plain = articula.compile(articula.load_urdf(str(MODELS / "ur5.urdf")), cache_dir=str(tmp_path))
    assert not plain.external_forces
    with pytest.raises(articula.ArgumentError, match="compiled without external forces"):
        plain.aba(np.zeros(6), np.zeros(6), np.zeros(6), np.zeros((7, 6)))


def test_contacts_inside_the_kernel_run_as_the_runtime_law(tmp_path):
    """compile(..., contacts=compilable_contacts(robot)): aba_contacts computes the elastic contacts'
    forces and ABA in one call; a Simulator runs every evaluation on it, ending as the runtime run
    with the same contact forces."""
    finals = []
    for compiled in (False, True):
        robot = articula.Robot.from_urdf(str(MODELS / "solo12.urdf"), True)
        for foot in ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"):
            surface = articula.Surface.plane([0, 0, 0.02], [0.1, 0, 1]) if foot == "FR_FOOT" else articula.Surface.ground(0.0)
            robot.add_contact(articula.ElasticContact(foot, foot, offset=[0.005, 0, 0], surface=surface,
                                                      stiffness=1e4, damping=60))
        sim = articula.Simulator(robot, dt=5e-4)
        m = robot.model
        q = articula.neutral(m)
        for leg, sign in (("FL", 1), ("FR", 1), ("HL", -1), ("HR", -1)):  # standing, the feet 0.2229 m down
            q[m.idx_q[m.joint_id(leg + "_HFE")]] = 0.8 * sign
            q[m.idx_q[m.joint_id(leg + "_KFE")]] = -1.6 * sign
        q[2] = 0.2223  # and the springs compressed by m g / (4 k)
        v = np.zeros(m.nv)
        v[0], v[4] = 0.2, 0.5  # sliding and pitching: friction acts
        sim.set_state(q, v)
        if compiled:
            declared = articula.compilable_contacts(robot)
            assert [c[0] for c in declared] == ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"]
            options = articula.compile_options_for(robot)
            assert [c[0] for c in options["contacts"]] == [c[0] for c in declared]
            assert not options["external_forces"] and options["engine_kernels_only"]
            assert articula.compile_options_for(robot, joint_limits=True)["external_forces"]  # limit stops
            engine = articula.compile(robot.model, cache_dir=str(tmp_path), **options)
            with pytest.raises(articula.ArgumentError, match="rnea"):
                engine.rnea(np.zeros(m.nq), np.zeros(m.nv), np.zeros(m.nv))
            k = articula.compile(robot.model, contacts=declared, cache_dir=str(tmp_path))
            assert [c[0] for c in k.contacts] == ["FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"]
            law = np.tile([1e4, 60.0, 1.0, 1e-3], (4, 1))
            q_r, v_r, tau_r = random_state(robot.model, 3)
            q_r[2] = 5.0  # every foot in the air: no force, plain ABA
            qdd, f = k.aba_contacts(q_r, v_r, tau_r, law)
            assert f.shape == (4, 3) and not f.any()
            assert close(qdd, k.aba(q_r, v_r, tau_r), 1e-12)
            with pytest.raises(articula.ArgumentError, match="law"):
                k.aba_contacts(q_r, v_r, tau_r, law[:3])
            sim.use_compiled(k)
        r = sim.run(0.1)  # no motors: the legs fold under the body
        assert r.ok()
        assert sim.generated_evaluations == (r.evaluations if compiled else 0)
        finals.append(np.concatenate([sim.q, sim.v, sim.contact_forces]))
    assert np.abs(finals[0][-12:]).max() > 0.1  # feet pushing at the end
    assert close(finals[1], finals[0], 1e-9)
    plain = articula.compile(articula.load_urdf(str(MODELS / "ur5.urdf")), cache_dir=str(tmp_path))
    with pytest.raises(articula.ArgumentError, match="declare no contact"):
        plain.aba_contacts(np.zeros(6), np.zeros(6), np.zeros(6), np.zeros((0, 4)))
