"""A gym-style environment around the Simulator: reset() / step(action) on Solo-12 standing on
four elastic feet, driven by a PD controller written in Python at 1 kHz.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/solo12_gym.py
"""
import numpy as np

import articula

STAND = {"FL_HFE": 0.8, "FL_KFE": -1.6, "FR_HFE": 0.8, "FR_KFE": -1.6,
         "HL_HFE": -0.8, "HL_KFE": 1.6, "HR_HFE": -0.8, "HR_KFE": 1.6}


class Solo12Env:
    """action: joint position targets (12,) [rad] for the PD; observation: (q (19,), v (18,))."""

    def __init__(self, kp=30.0, kd=0.5, control_dt=0.001, frame_skip=10):
        model = articula.load_urdf(articula.models_dir() + "/solo12.urdf", floating=True)
        self.robot = articula.Robot(model)
        self.joints = [j for j in model.joint_names if j != "root_joint"]
        for j in self.joints:
            self.robot.add_motor(articula.Motor(j, j, gear_ratio=9, rotor_inertia=6e-6, effort_limit=2.7))
        for foot in ("FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"):
            self.robot.add_contact(articula.ElasticContact(foot, foot, stiffness=1e4, damping=60, slip_velocity=0.05))
        self.model = self.robot.model
        self.qidx = np.array([self.model.idx_q[self.model.joint_id(j)] for j in self.joints])
        self.vidx = np.array([self.model.idx_v[self.model.joint_id(j)] for j in self.joints])
        self.kp, self.kd, self.frame_skip = kp, kd, frame_skip
        self.control_dt = control_dt
        self.target = np.zeros(12)

    def _pd(self, t, q, v, sensors):  # the Python controller, called by the simulator every 1 ms
        return self.kp * (self.target - q[self.qidx]) - self.kd * v[self.vidx]

    def reset(self):
        self.sim = articula.Simulator(self.robot, integrator="rk4", dt=2e-4)
        q = articula.neutral(self.model)
        q[2] = 0.2223
        for j, x in STAND.items():
            q[self.model.idx_q[self.model.joint_id(j)]] = x
        self.target = q[self.qidx].copy()
        self.sim.set_state(q, np.zeros(self.model.nv))
        self.sim.set_controller(self._pd, period=self.control_dt)
        return self.sim.q, self.sim.v

    def step(self, action):
        self.target = np.asarray(action, dtype=float)
        r = self.sim.run(self.frame_skip * self.control_dt)
        q, v = self.sim.q, self.sim.v
        reward = -abs(q[2] - 0.22)  # keep the base height
        done = not r.ok() or q[2] < 0.1
        return (q, v), reward, done, {"status": str(r.status), "t": self.sim.time}


def main(steps=50):
    env = Solo12Env()
    (q, v) = env.reset()
    stand = env.target.copy()
    total = 0.0
    for k in range(steps):
        action = stand + 0.1 * np.sin(2 * np.pi * k / steps) * np.tile([0, 1, -1], 4)[:12]
        (q, v), reward, done, info = env.step(action)
        total += reward
        if done:
            break
    print(f"t = {info['t']:.3f} s, base height {q[2]:.4f} m, return {total:.4f}, status {info['status']}")
    return q


if __name__ == "__main__":
    main()
