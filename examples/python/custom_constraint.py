"""A constraint written in Python: the UR5's tool held on the plane z = 0.4 m (one row), with
its Jacobian and drift from the frame Jacobian and acceleration the library computed for the
callback; then constrained dynamics by every method and a velocity jump at activation.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/custom_constraint.py
"""
import numpy as np

import articula

R = articula.ReferenceFrame.LocalWorldAligned


def plane_constraint(height):
    def jacobian(model, data, q):  # J = e_zᵀ J_tool,v (1, nv)
        return articula.frame_jacobian(model, data, "tool0", R)[2:3, :]

    def drift(model, data, q, v):  # γ = z̈ at v̇ = 0 (the data holds the v̇ = 0 kinematics)
        return [articula.frame_classical_acceleration(model, data, "tool0")[2]]

    def error(model, data, q):  # e = z − height: holonomic, Baumgarte-stabilized
        return [articula.frame_placement(model, data, "tool0").p[2] - height]

    return articula.CallbackConstraint("tool_on_plane", 1, jacobian, drift, error)


def main():
    model = articula.load_urdf(articula.models_dir() + "/ur5.urdf")
    data = articula.Data(model)
    q = np.array([0.2, -1.0, 1.2, -0.5, 0.3, 0.1])
    articula.forward_kinematics(model, data, q)
    z0 = articula.frame_placement(model, data, "tool0").p[2]
    cs = articula.ConstraintSet(model)
    cs.add(plane_constraint(z0), enabled=False)
    v = np.array([0.5, 0.3, -0.2, 0.1, 0.0, 0.4])
    jump = articula.activate_constraints(model, data, cs, ["tool_on_plane"], q, v)
    J, _, _ = cs.get("tool_on_plane").rows(model, data, q, jump.v_plus)
    print(f"jump: kinetic {jump.kinetic_before:.4f} -> {jump.kinetic_after:.4f} J, "
          f"tool z-velocity after {float(J @ jump.v_plus):.2e} m/s")
    for method in ("kkt", "range", "null"):
        ddq, lam, rep = articula.constrained_forward_dynamics(model, data, None, cs, q, jump.v_plus,
                                                              np.zeros(6), method=method)
        rep.raise_for_status()
        print(f"{method:5s} lambda = {lam[0]:+.6f} N, residual {rep.residual:.1e}")
    return jump


if __name__ == "__main__":
    main()
