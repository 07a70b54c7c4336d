"""Robot, Simulator with Python controllers / guards / events, the GIL and Ctrl-C, scenarios, logs."""
import filecmp
import os
import signal
import subprocess
import threading

import numpy as np
import pytest

import articula
from conftest import MODELS, ROOT


def pendulum_robot():
    robot = articula.Robot(articula.load_urdf(str(MODELS / "pendulum3r.urdf")))
    for j in robot.model.joint_names:
        robot.add_motor(articula.Motor("m_" + j, j))
    robot.add_sensor(articula.Sensor("enc", "encoder", robot.model.joint_names[0]))
    return robot


def test_python_controller_at_its_period_and_sensors():
    robot = pendulum_robot()
    sim = articula.Simulator(robot, dt=1e-3)
    sim.set_state(np.zeros(3), np.zeros(3))
    calls = []

    def pd(t, q, v, sensors):
        calls.append((t, sensors[0], q[0]))
        return -20.0 * (q - 0.2) - 2.0 * v

    sim.set_controller(pd, period=0.01)
    r = sim.run(0.5)
    assert r.ok() and r.status == articula.RunStatus.Completed
    assert len(calls) == 51 and calls[1][0] == pytest.approx(0.01)
    assert all(s == q for _, s, q in calls)  # the encoder reads the joint
    assert sim.sensor_values()["enc.pos"] == pytest.approx(sim.q[0])


def test_same_run_as_cpp_pd():
    results = []
    for python in (False, True):
        robot = pendulum_robot()
        sim = articula.Simulator(robot, dt=1e-3)
        sim.set_state(np.zeros(3), np.zeros(3))
        targets = {j: 0.3 for j in robot.model.joint_names}
        if python:
            sim.set_controller(lambda t, q, v, s: 5.0 * (0.3 - q) - 0.5 * v, period=0.002)
        else:
            sim.set_controller(articula.pd_controller(robot, targets, 5.0, 0.5), period=0.002)
        sim.run(0.2)
        results.append(sim.q)
    assert np.array_equal(results[0], results[1])


def test_a_controller_of_q_and_v_costs_no_sensor_evaluation():
    # With an IMU (a sensor that needs the dynamics), a controller that reads sensors gets an
    # evaluation for them at each tick; a CppController (pd) or reads_sensors=False does not.
    runs = {}
    for kind in ("python", "python_no_sensors", "cpp", "cpp_reads"):
        robot = pendulum_robot()
        robot.add_sensor(articula.Sensor("imu", "imu", "tip"))
        sim = articula.Simulator(robot, dt=1e-3)
        sim.set_state(np.zeros(3), np.zeros(3))
        targets = {j: 0.3 for j in robot.model.joint_names}
        pd = articula.pd_controller(robot, targets, 5.0, 0.5)
        if kind == "python":
            sim.set_controller(lambda t, q, v, s: 5.0 * (0.3 - q) - 0.5 * v, period=0.01)
        elif kind == "python_no_sensors":
            sim.set_controller(lambda t, q, v, s: 5.0 * (0.3 - q) - 0.5 * v, period=0.01, reads_sensors=False)
        elif kind == "cpp":
            sim.set_controller(pd, period=0.01)
        else:
            sim.set_controller(pd, period=0.01, reads_sensors=True)
        r = sim.run(0.2)
        assert r.ok(), r.message
        runs[kind] = (r.evaluations, sim.q.copy())
    ticks = 21  # t = 0, 0.01, ..., 0.2
    assert runs["python"][0] - runs["python_no_sensors"][0] == ticks
    assert runs["cpp_reads"][0] - runs["cpp"][0] == ticks
    assert np.array_equal(runs["python"][1], runs["python_no_sensors"][1])
    assert np.array_equal(runs["cpp"][1], runs["cpp_reads"][1])


def test_guard_event_locks_joint():
    robot = pendulum_robot()
    m = robot.model
    robot.constraints.add(articula.JointLock(m, "brake", [m.joint_names[1]]), enabled=False)
    sim = articula.Simulator(robot, dt=1e-3)
    sim.set_state(np.zeros(3), np.zeros(3))
    k = m.idx_q[1]
    sim.add_event(articula.Event("brake_on", guard=lambda t, q, v: q[k] ** 2 - 0.04, direction=1,
                                 actions=[articula.EventAction.enable("brake")]))
    sim.add_event(articula.Event("end", time=0.8, actions=[articula.EventAction.stop()]))
    r = sim.run(2.0)
    assert r.status == articula.RunStatus.Stopped and r.t == pytest.approx(0.8)
    assert r.events[0].names == ["brake_on"] and r.events[0].jumped
    assert abs(sim.q[k]) == pytest.approx(0.2, abs=1e-6)


def test_controller_that_raises(tmp_path):
    robot = pendulum_robot()
    sim = articula.Simulator(robot, dt=1e-3)
    sim.set_state(np.zeros(3), np.zeros(3))

    def bad(t, q, v, s):
        if t >= 0.05:
            raise ZeroDivisionError("no torque today")
        return np.zeros(3)

    sim.set_controller(bad, period=0.01)
    log = str(tmp_path / "run.csv")
    sim.add_log(log)
    r = sim.run(1.0)
    assert r.status == articula.RunStatus.ControllerFailed
    assert "ZeroDivisionError: no torque today" in r.message and "Traceback" in r.message
    assert "in bad" in r.message
    data = articula.read_log(log)
    assert data.status == "controller_failed" and "no torque today" in data.message
    # every state before the failing tick: t = 0, dt, …, t_fail − dt (the engine logs an instant after its tick)
    assert len(data) == r.steps and data["t"][-1] == pytest.approx(r.t - 1e-3)


def test_gil_released_and_request_stop_from_thread():
    robot = articula.Robot.from_urdf(str(MODELS / "ur5.urdf"))
    sim = articula.Simulator(robot, dt=1e-4)
    sim.set_state(np.zeros(6), np.zeros(6))
    timer = threading.Timer(0.2, sim.request_stop)  # runs only if run() released the GIL
    timer.start()
    r = sim.run(1e4)
    timer.join()
    assert r.status == articula.RunStatus.Interrupted and r.t < 1e4


def test_ctrl_c_raises_after_closing_logs(tmp_path):
    robot = pendulum_robot()
    sim = articula.Simulator(robot, dt=1e-3)
    sim.set_state(np.zeros(3), np.zeros(3))

    def ctl(t, q, v, s):
        if t >= 0.1:
            os.kill(os.getpid(), signal.SIGINT)
        return np.zeros(3)

    sim.set_controller(ctl, period=0.01)
    log = str(tmp_path / "run.h5")
    sim.add_log(log)
    with pytest.raises(KeyboardInterrupt) as e:
        sim.run(5.0)
    assert e.value.result.status == articula.RunStatus.Interrupted
    data = articula.read_log(log)
    assert data.status == "interrupted" and data["t"][-1] == pytest.approx(e.value.result.t)


def test_scenario_log_byte_identical_to_cli(tmp_path, cli):
    path = str(ROOT / "scenarios" / "estop_consistent.yaml")
    subprocess.run([cli, "run", path, "-q", "-o", str(tmp_path / "cli")], check=True, capture_output=True)
    s = articula.load_scenario(path, out_dir=str(tmp_path / "py"))
    r = articula.run_scenario(s)
    assert r.ok() and len(r.events) == 3
    for name in ("run.csv", "run.events.csv"):
        assert filecmp.cmp(tmp_path / "cli" / name, tmp_path / "py" / name, shallow=False), name
    log = articula.read_log(str(tmp_path / "py" / "run.csv"))
    assert log.status == "completed" and list(log.events["name"]) == ["brake_1", "brake_2", "brake_3"]
    h5 = articula.load_scenario(path, out_dir=str(tmp_path / "h5"), format="hdf5")
    articula.run_scenario(h5)
    log5 = articula.read_log(str(tmp_path / "h5" / "run.h5"))
    assert log5.status == "completed"
    for c in log.columns:
        assert np.array_equal(log[c], log5[c], equal_nan=True), c


def test_estop_study():
    cfg = articula.default_estop_config()
    res = {}
    for jump in ("auto", "naive"):
        cfg.jump = jump
        res[jump] = articula.run_brake_study(None, cfg)
        assert res[jump].ok and len(res[jump].events) == 3
    assert res["auto"].events[0].momentum_residual < 1e-9 < res["naive"].events[0].momentum_residual
    assert res["auto"].q.shape[1] == 6


def test_python_constraint_in_a_run_matches_the_cpp_lock():
    finals = []
    for python in (False, True):
        robot = pendulum_robot()
        m = robot.model
        k = m.idx_v[1]
        if python:
            def jac(m_, d_, q):
                J = np.zeros((1, m_.nv))
                J[0, k] = 1.0
                return J
            c = articula.CallbackConstraint("brake", 1, jac, lambda m_, d_, q, v: [0.0])
        else:
            c = articula.JointLock(m, "brake", [m.joint_names[1]])
            c.baumgarte_frequency = 0.0  # the callback has no position error: no stabilization either
        robot.constraints.add(c, enabled=False)
        sim = articula.Simulator(robot, dt=1e-3, method="kkt")
        sim.set_state(np.zeros(3), np.zeros(3))
        sim.add_event(articula.Event("on", time=0.1, actions=[articula.EventAction.enable("brake", "full")]))
        r = sim.run(0.3)
        assert r.ok() and r.events[0].jumped
        finals.append((r.events[0].v_plus, sim.q))
    assert np.allclose(finals[0][0], finals[1][0], rtol=0, atol=1e-12)
    assert np.allclose(finals[0][1], finals[1][1], rtol=0, atol=1e-9)


def test_progress_and_height_field_callbacks():
    robot = articula.Robot(articula.load_urdf(str(MODELS / "solo12.urdf"), floating=True))
    hf = articula.Surface.height_field(lambda x, y: 0.01 * x)
    for foot in ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"):
        robot.add_contact(articula.ElasticContact(foot, foot, surface=hf, stiffness=1e4, damping=60))
    sim = articula.Simulator(robot, dt=5e-4)
    q = articula.neutral(robot.model)
    q[2] = 0.3
    sim.set_state(q, np.zeros(robot.model.nv))
    seen = []
    sim.set_progress(lambda t, d: seen.append(t))
    r = sim.run(0.3)
    assert r.ok() and abs(sim.q[2] - 0.3) > 1e-3  # the height field pushed the feet (callback ran)
