"""Brakes from Python (docs/brakes.md): the closed-form friction stop, a pin brake's jump,
errors naming the brake, and the bundled real-brakes scenario."""
import numpy as np
import pytest

import articula
from conftest import ROOT


def flywheel(inertia):
    """One revolute joint about y with its centre of mass on the axis, no gravity."""
    b = articula.ModelBuilder("flywheel")
    b.add_body("wheel", "", "hinge", articula.JointType.Revolute, articula.Transform.identity(), [0, 1, 0],
               articula.Inertia(1.0, [0, 0, 0], inertia * np.eye(3)))
    robot = articula.Robot(b.build())
    robot.set_gravity([0, 0, 0])
    return robot


def events_named(result, name):
    return [e for e in result.events if name in e.names]


def test_friction_stop_matches_the_closed_form():
    # After the signal at t_s and the delay t_d the joint decelerates at tau / I:
    # it sticks at t_s + t_d + I w0 / tau, at the angle w0 (t_s + t_d) + I w0^2 / (2 tau).
    inertia, w0, tau, td, ts = 0.5, 2.0, 4.0, 0.05, 0.02
    robot = flywheel(inertia)
    b = robot.add_brake(articula.Brake("b", "hinge", "friction", delay=td, torque=tau))
    assert b.dof == 0 and b.static_torque == tau and b.kind == articula.BrakeKind.Friction
    assert [x.name for x in robot.brakes] == ["b"]
    sim = articula.Simulator(robot, dt=1e-3, record_samples=True)
    sim.set_state(np.zeros(1), np.array([w0]))
    sim.add_event(articula.Event("estop", time=ts, actions=[articula.EventAction.stop_signal()]))
    r = sim.run(0.5)
    assert r.ok(), r.message
    assert events_named(r, "b.engage")[0].time == pytest.approx(ts + td, abs=1e-12)
    assert events_named(r, "b.stick")[0].time == pytest.approx(ts + td + inertia * w0 / tau, abs=1e-8)
    assert sim.q[0] == pytest.approx(w0 * (ts + td) + inertia * w0 ** 2 / (2 * tau), abs=1e-9)
    assert sim.v[0] == pytest.approx(0.0, abs=1e-12)
    assert sim.brake_states == [articula.BrakeState.Stuck] and str(sim.brake_states[0]) == "stuck"
    assert sim.brake_energy[0] == pytest.approx(0.5 * inertia * w0 ** 2, abs=1e-9)
    # The log carries the brake's columns; while slipping it applies -tau.
    cols = r.columns
    t, torque = r.samples[:, cols.index("t")], r.samples[:, cols.index("brake.b.torque")]
    slipping = (t > ts + td + 1e-6) & (t < ts + td + inertia * w0 / tau - 1e-6)
    assert slipping.sum() > 100 and np.all(torque[slipping] == -tau)


def test_pin_brake_locks_with_the_jump():
    robot = flywheel(0.5)
    robot.add_brake(articula.Brake("pin", "hinge", articula.BrakeKind.Pin, delay=0.01, torque=float("inf")))
    sim = articula.Simulator(robot, dt=1e-3)
    sim.set_state(np.zeros(1), np.array([3.0]))
    sim.add_event(articula.Event("estop", time=0.0, actions=[articula.EventAction.stop_signal(0)]))
    r = sim.run(0.1)
    assert r.ok(), r.message
    lock = [e for e in r.events if e.jumped]
    assert len(lock) == 1 and lock[0].time == pytest.approx(0.01, abs=1e-12)
    assert lock[0].kinetic_before == pytest.approx(0.5 * 0.5 * 9.0) and lock[0].kinetic_after == pytest.approx(0.0)
    assert sim.brake_states == [articula.BrakeState.Locked]
    assert sim.q[0] == pytest.approx(0.03, abs=1e-12) and sim.v[0] == 0.0


def test_bad_brakes_name_the_brake():
    robot = flywheel(0.5)
    with pytest.raises(ValueError, match="b1"):
        robot.add_brake(articula.Brake("b1", "hinge", torque=-1.0))
    with pytest.raises(ValueError, match="b2"):
        robot.add_brake(articula.Brake("b2", "no_such_joint", torque=1.0))
    with pytest.raises(ValueError, match="b3"):
        robot.add_brake(articula.Brake("b3", "hinge", torque=2.0, static_torque=1.0))
    with pytest.raises(ValueError, match="drum"):
        articula.Brake("b4", "hinge", "drum", torque=1.0)
    robot.add_brake(articula.Brake("ok", "hinge", torque=1.0))
    with pytest.raises(ValueError, match="ok2|hinge"):
        robot.add_brake(articula.Brake("ok2", "hinge", torque=1.0))
    robot.remove_brake("ok")
    assert robot.brakes == []


def test_real_brakes_scenario(tmp_path):
    s = articula.load_scenario(str(ROOT / "scenarios" / "estop_real_brakes.yaml"), out_dir=str(tmp_path))
    r = articula.run_scenario(s)
    assert r.ok(), r.message
    log = articula.read_log(str(tmp_path / "run.csv"))
    energy = [c for c in log.columns if c.startswith("brake.") and c.endswith(".energy")]
    assert energy and all(log[c][-1] > 0 for c in energy)
    assert np.all(np.diff(log[energy[0]]) >= -1e-12)  # dissipated energy never decreases
