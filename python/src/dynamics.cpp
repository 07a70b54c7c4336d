// Kinematics, Jacobians, RNEA / CRBA / ABA, the mass-matrix factorization, energies and the
// centre of mass. Results are returned as new arrays (copies); Data keeps its own (views).
#include "common.hpp"

namespace articula::python {
namespace {

Index frame_index(const Model& model, const py::handle& frame) {
  if (py::isinstance<py::str>(frame)) return model.frame_id(frame.cast<std::string>());
  const Index id = frame.cast<Index>();
  if (id < 0 || id >= static_cast<Index>(model.frames.size()))
    raise(errors().argument, "frame index " + std::to_string(id) + " out of range [0, " +
                                 std::to_string(model.frames.size()) + ") of model '" + model.name + "'");
  return id;
}

struct Args {  // keeps converted inputs alive for the call
  Array q = null_array(), v = null_array(), a = null_array();
};

}  // namespace

void init_dynamics(py::module_& m) {
  py::enum_<ReferenceFrame>(m, "ReferenceFrame",
                            "Where a 6D frame quantity is expressed: World (world axes about the world origin), "
                            "Local (frame axes about its origin), LocalWorldAligned (world axes about its origin).")
      .value("World", ReferenceFrame::World)
      .value("Local", ReferenceFrame::Local)
      .value("LocalWorldAligned", ReferenceFrame::LocalWorldAligned);

  m.def(
      "forward_kinematics",
      [](const Model& model, PyData& pd, const py::object& q, const py::object& v, const py::object& a) {
        Data& d = data_for(model, pd);
        Args k;
        const auto qm = vector_arg(q, "q", model.nq, k.q);
        if (v.is_none()) return forward_kinematics(model, d, qm);
        const auto vm = vector_arg(v, "v", model.nv, k.v);
        if (a.is_none()) return forward_kinematics(model, d, qm, vm);
        forward_kinematics(model, d, qm, vm, vector_arg(a, "a", model.nv, k.a));
      },
      py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v") = py::none(), py::arg("a") = py::none(),
      "Body placements data.oMi / liMi for q (nq,); with v (nv,) also body velocities data.v; with a (nv,) "
      "also body accelerations data.a (body frames, gravity excluded). Cost O(n).");
  m.def(
      "forward_kinematics_bias",
      [](const Model& model, PyData& pd, const py::object& q, const py::object& v) {
        Args k;
        forward_kinematics_bias(model, data_for(model, pd), vector_arg(q, "q", model.nq, k.q),
                                vector_arg(v, "v", model.nv, k.v));
      },
      py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"),
      "forward_kinematics(q, v, 0): data.a holds the bias accelerations (frame drifts J̇ v).");
  m.def(
      "update_frame_placements",
      [](const Model& model, PyData& pd) { update_frame_placements(model, data_for(model, pd)); }, py::arg("model"),
      py::arg("data"), "data.oMf for every frame (needs forward_kinematics).");
  m.def(
      "frame_placement",
      [](const Model& model, const PyData& pd, const py::object& frame) {
        return frame_placement(model, cdata_for(model, pd), frame_index(model, frame));
      },
      py::arg("model"), py::arg("data"), py::arg("frame"),
      "Pose (Transform) of a frame (name or index) in the world, from data.oMi (needs forward_kinematics).");
  m.def(
      "frame_velocity",
      [](const Model& model, const PyData& pd, const py::object& frame, ReferenceFrame ref) {
        return to_array6(frame_velocity(model, cdata_for(model, pd), frame_index(model, frame), ref));
      },
      py::arg("model"), py::arg("data"), py::arg("frame"), py::arg("reference") = ReferenceFrame::LocalWorldAligned,
      "Spatial velocity (6,) [linear m/s; angular rad/s] of a frame (needs forward_kinematics with v).");
  m.def(
      "frame_acceleration",
      [](const Model& model, const PyData& pd, const py::object& frame, ReferenceFrame ref) {
        return to_array6(frame_acceleration(model, cdata_for(model, pd), frame_index(model, frame), ref));
      },
      py::arg("model"), py::arg("data"), py::arg("frame"), py::arg("reference") = ReferenceFrame::LocalWorldAligned,
      "d/dt of frame_velocity() (6,) [m/s², rad/s²] (needs forward_kinematics with v and a; a = 0: J̇ v).");
  m.def(
      "frame_classical_acceleration",
      [](const Model& model, const PyData& pd, const py::object& frame) {
        return to_array(frame_classical_acceleration(model, cdata_for(model, pd), frame_index(model, frame)));
      },
      py::arg("model"), py::arg("data"), py::arg("frame"),
      "Classical linear acceleration (3,) [m/s²] of the frame origin, world axes.");
  m.def(
      "compute_joint_jacobians",
      [](const Model& model, PyData& pd, const py::object& q) {
        Array k = null_array();
        return to_array(compute_joint_jacobians(model, data_for(model, pd), vector_arg(q, "q", model.nq, k)));
      },
      py::arg("model"), py::arg("data"), py::arg("q"),
      "Forward kinematics and the (6, nv) world Jacobian data.J (column k: dof k's axis motion); returns a copy.");
  m.def(
      "update_joint_jacobians",
      [](const Model& model, PyData& pd) { update_joint_jacobians(model, data_for(model, pd)); }, py::arg("model"),
      py::arg("data"), "data.J from the placements already in data.oMi.");
  m.def(
      "frame_jacobian",
      [](const Model& model, PyData& pd, const py::object& frame, ReferenceFrame ref, const py::object& q) {
        const Index id = frame_index(model, frame);
        MatrixX J(6, model.nv);
        if (!q.is_none()) {
          Array k = null_array();
          J = frame_jacobian(model, data_for(model, pd), vector_arg(q, "q", model.nq, k), id, ref);
        } else {
          frame_jacobian(model, cdata_for(model, pd), id, ref, J);
        }
        return to_array(J);
      },
      py::arg("model"), py::arg("data"), py::arg("frame"), py::arg("reference") = ReferenceFrame::LocalWorldAligned,
      py::arg("q") = py::none(),
      "(6, nv) Jacobian of a frame in `reference` (frame_velocity = J v). With q, the joint Jacobians are "
      "computed first; without, data.J must hold them (compute_joint_jacobians, or inside a constraint "
      "callback). Cost O(depth).");

  m.def(
      "rnea",
      [](const Model& model, PyData& pd, const py::object& q, const py::object& v, const py::object& a,
         const py::object& f_ext) {
        Data& d = data_for(model, pd);
        Args k;
        const auto f = forces_arg(f_ext, model);
        return to_array(rnea(model, d, vector_arg(q, "q", model.nq, k.q), vector_arg(v, "v", model.nv, k.v),
                             vector_arg(a, "a", model.nv, k.a), f));
      },
      py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"), py::arg("a"), py::arg("f_ext") = py::none(),
      "Inverse dynamics by the recursive Newton–Euler algorithm (RBDA §5.3, Table 5.1):\n"
      "τ = M(q) a + h(q, v) − Σ Jᵢᵀ f_ext,i, armature included (τ_k += armature_k a_k).\n"
      "q (nq,), v (nv,) [rad/s, m/s], a (nv,) [rad/s², m/s²]; f_ext None or (njoints, 6) [force N; moment N·m] "
      "per body, body frames. Returns τ (nv,) [N·m or N] (a copy; also data.tau). Cost O(n).");
  m.def(
      "nonlinear_effects",
      [](const Model& model, PyData& pd, const py::object& q, const py::object& v) {
        Args k;
        return to_array(nonlinear_effects(model, data_for(model, pd), vector_arg(q, "q", model.nq, k.q),
                                          vector_arg(v, "v", model.nv, k.v)));
      },
      py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"),
      "h(q, v) = C(q, v) v + g(q) (nv,) [N·m] = rnea(q, v, 0); also data.h. Cost O(n).");
  m.def(
      "generalized_gravity",
      [](const Model& model, PyData& pd, const py::object& q) {
        Array k = null_array();
        return to_array(generalized_gravity(model, data_for(model, pd), vector_arg(q, "q", model.nq, k)));
      },
      py::arg("model"), py::arg("data"), py::arg("q"), "g(q) (nv,) [N·m] = rnea(q, 0, 0); also data.g. Cost O(n).");
  m.def(
      "generalized_momentum",
      [](const Model& model, PyData& pd, const py::object& q, const py::object& v) {
        Args k;
        return to_array(generalized_momentum(model, data_for(model, pd), vector_arg(q, "q", model.nq, k.q),
                                             vector_arg(v, "v", model.nv, k.v)));
      },
      py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"),
      "M(q) v (nv,) [kg·m²/s …], armature included, without forming M; also data.momentum. Cost O(n).");
  m.def(
      "crba",
      [](const Model& model, PyData& pd, const py::object& q) {
        Array k = null_array();
        return to_array(crba(model, data_for(model, pd), vector_arg(q, "q", model.nq, k)));
      },
      py::arg("model"), py::arg("data"), py::arg("q"),
      "Joint-space inertia matrix M(q) (nv, nv) by the composite-rigid-body algorithm (RBDA §6.2, Table 6.2), "
      "armature on the diagonal, both triangles filled. Returns a copy (also data.M). Cost O(n d).");
  m.def(
      "factorize_mass_matrix",
      [](const Model& model, PyData& pd) {
        try {
          factorize_mass_matrix(model, data_for(model, pd));
        } catch (const std::runtime_error& e) {
          raise(errors().solve, e.what());
        }
      },
      py::arg("model"), py::arg("data"),
      "M = Lᵀ D L into data.Lfact / Dfact (RBDA §6.5, Table 6.3), from data.M (crba first). SolveError if a "
      "pivot is not positive.");
  m.def(
      "solve_mass",
      [](const Model& model, const PyData& pd, const py::object& x) {
        const Data& d = cdata_for(model, pd);
        if (d.Dfact.size() && d.Dinv_fact.isZero())
          raise(errors().solve, "solve_mass: call factorize_mass_matrix first");
        Array k = null_array();
        VectorX y = vector_arg(x, "x", model.nv, k);
        solve_mass(model, d, y);
        return to_array(y);
      },
      py::arg("model"), py::arg("data"), py::arg("x"), "M⁻¹ x (nv,) with the factors of factorize_mass_matrix().");
  m.def(
      "mass_factor_l",
      [](const Model& model, const PyData& pd) { return to_array(mass_factor_l(model, cdata_for(model, pd))); },
      py::arg("model"), py::arg("data"),
      "The unit lower-triangular L (nv, nv) of the last factorization (dense copy).");
  m.def(
      "aba",
      [](const Model& model, PyData& pd, const py::object& q, const py::object& v, const py::object& tau,
         const py::object& f_ext) {
        Data& d = data_for(model, pd);
        Args k;
        const auto f = forces_arg(f_ext, model);
        return to_array(aba(model, d, vector_arg(q, "q", model.nq, k.q), vector_arg(v, "v", model.nv, k.v),
                            vector_arg(tau, "tau", model.nv, k.a), f));
      },
      py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"), py::arg("tau"), py::arg("f_ext") = py::none(),
      "Forward dynamics by the articulated-body algorithm (RBDA §7.3, Table 7.1), armature added to D.\n"
      "Computes v̇ = M(q)⁻¹ (τ − h(q, v) + Σ Jᵢᵀ fᵢ) without forming M.\n"
      "q (nq,) configuration, unit quaternions; v (nv,) velocity [rad/s, m/s]; tau (nv,) joint forces [N·m or N];\n"
      "f_ext None or (njoints, 6) spatial forces [force N; moment N·m], one per body, in each body frame.\n"
      "Returns v̇ (nv,) [rad/s², m/s²], a copy (also data.ddq); data.oMi, v, a_gf and J are updated.\n"
      "ArgumentError if a size differs from the model's. Cost O(n), no allocation in C++.");
  m.def(
      "aba_prescribed",
      [](const Model& model, PyData& pd, const py::object& q, const py::object& v, const py::object& tau,
         const std::vector<std::string>& joints, const py::object& qdd, const py::object& f_ext) {
        Data& d = data_for(model, pd);
        Args k;
        Array kq = null_array();
        std::vector<char> prescribed(static_cast<std::size_t>(model.njoints), 0);
        for (const auto& j : joints) prescribed[static_cast<std::size_t>(model.joint_id(j))] = 1;
        const auto f = forces_arg(f_ext, model);
        VectorX tau_req = VectorX::Zero(model.nv);
        aba_prescribed(model, d, vector_arg(q, "q", model.nq, k.q), vector_arg(v, "v", model.nv, k.v),
                       vector_arg(tau, "tau", model.nv, k.a), prescribed, vector_arg(qdd, "qdd", model.nv, kq), tau_req,
                       f);
        return py::make_tuple(to_array(d.ddq), to_array(tau_req));
      },
      py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"), py::arg("tau"), py::arg("prescribed"),
      py::arg("qdd"), py::arg("f_ext") = py::none(),
      "Hybrid dynamics (RBDA §9.2): the joints named in `prescribed` move with the accelerations qdd (nv,) "
      "(their entries), the others follow from tau. Returns (v̇ (nv,), tau_required (nv,): the joint forces "
      "producing the prescribed accelerations, 0 elsewhere). Cost O(n).");

  m.def(
      "kinetic_energy",
      [](const Model& model, PyData& pd, const py::object& q, const py::object& v) {
        Args k;
        return kinetic_energy(model, data_for(model, pd), vector_arg(q, "q", model.nq, k.q),
                              vector_arg(v, "v", model.nv, k.v));
      },
      py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"), "T = ½ vᵀ M v [J], armature included. O(n).");
  m.def(
      "potential_energy",
      [](const Model& model, PyData& pd, const py::object& q) {
        Array k = null_array();
        return potential_energy(model, data_for(model, pd), vector_arg(q, "q", model.nq, k));
      },
      py::arg("model"), py::arg("data"), py::arg("q"), "V = −Σ mᵢ gᵀ cᵢ [J] (zero at the world origin). O(n).");
  m.def(
      "mechanical_energy",
      [](const Model& model, PyData& pd, const py::object& q, const py::object& v) {
        Args k;
        return mechanical_energy(model, data_for(model, pd), vector_arg(q, "q", model.nq, k.q),
                                 vector_arg(v, "v", model.nv, k.v));
      },
      py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"),
      "T + V [J] from one kinematics pass (also data.kinetic_energy, data.potential_energy).");
  m.def(
      "center_of_mass",
      [](const Model& model, PyData& pd, const py::object& q) {
        Array k = null_array();
        return to_array(center_of_mass(model, data_for(model, pd), vector_arg(q, "q", model.nq, k)));
      },
      py::arg("model"), py::arg("data"), py::arg("q"),
      "Centre of mass (3,) [m] in the world (also data.com, data.mass).");
  m.def(
      "center_of_mass_jacobian",
      [](const Model& model, PyData& pd, const py::object& q) {
        Array k = null_array();
        return to_array(center_of_mass_jacobian(model, data_for(model, pd), vector_arg(q, "q", model.nq, k)));
      },
      py::arg("model"), py::arg("data"), py::arg("q"), "(3, nv) Jacobian of the centre of mass, world axes. O(n).");
}

}  // namespace articula::python
