// Constrained dynamics (KKT, range space, null space, hybrid) and velocity jumps at activation.
#include "common.hpp"

namespace articula::python {
namespace {

JumpOptions jump_options(const py::object& form, double restitution, const py::object& impulse, bool diagnostics,
                         int nv) {
  JumpOptions o;
  o.form = py::isinstance<py::str>(form) ? parse_jump_form(form.cast<std::string>()) : form.cast<JumpForm>();
  o.restitution = restitution;
  if (!impulse.is_none()) {
    Array k = null_array();
    o.impulse = vector_arg(impulse, "impulse", nv, k);
  }
  o.diagnostics = diagnostics;
  return o;
}

ConstrainedMethod method_arg(const py::object& m) {
  return py::isinstance<py::str>(m) ? parse_method(m.cast<std::string>()) : m.cast<ConstrainedMethod>();
}

}  // namespace

void init_solvers(py::module_& m) {
  py::enum_<ConstrainedMethod>(m, "ConstrainedMethod",
                               "Constrained solvers (docs/solvers.md); strings accepted: "
                               "'auto', 'kkt', 'range', 'null', 'hybrid'.")
      .value("Auto", ConstrainedMethod::Auto)
      .value("Kkt", ConstrainedMethod::Kkt)
      .value("RangeSpace", ConstrainedMethod::RangeSpace)
      .value("NullSpace", ConstrainedMethod::NullSpace)
      .value("Hybrid", ConstrainedMethod::Hybrid)
      .def(
          "__str__", [](ConstrainedMethod x) { return to_string(x); }, py::prepend());
  py::enum_<SolveStatus>(m, "SolveStatus")
      .value("Ok", SolveStatus::Ok)
      .value("Redundant", SolveStatus::Redundant)
      .value("Inconsistent", SolveStatus::Inconsistent)
      .value("Singular", SolveStatus::Singular)
      .value("NonFinite", SolveStatus::NonFinite)
      .def(
          "__str__", [](SolveStatus x) { return to_string(x); }, py::prepend());
  py::enum_<JumpForm>(m, "JumpForm",
                      "Velocity-jump forms (docs/activation.md); strings accepted: 'auto', 'full', "
                      "'range', 'projector', 'minimal', 'locks', 'naive', 'none'.")
      .value("Auto", JumpForm::Auto)
      .value("Full", JumpForm::Full)
      .value("Range", JumpForm::Range)
      .value("Projector", JumpForm::Projector)
      .value("Minimal", JumpForm::Minimal)
      .value("Locks", JumpForm::Locks)
      .value("Naive", JumpForm::Naive)
      .value("None_", JumpForm::None)
      .def(
          "__str__", [](JumpForm x) { return to_string(x); }, py::prepend());

  py::class_<SolveReport>(m, "SolveReport", "What a constrained solve did.")
      .def_readonly("status", &SolveReport::status)
      .def_readonly("method", &SolveReport::method, "The method actually used.")
      .def_readonly("rows", &SolveReport::rows, "m")
      .def_readonly("rank", &SolveReport::rank, "Rank of J.")
      .def_readonly("residual", &SolveReport::residual, "‖J v̇ + γ‖∞")
      .def_readonly("message", &SolveReport::message)
      .def("ok", &SolveReport::ok, "Ok or Redundant.")
      .def(
          "raise_for_status",
          [](const SolveReport& r) {
            if (!r.ok()) raise(errors().solve, to_string(r.status) + ": " + r.message);
          },
          "Raises SolveError unless ok().")
      .def("__repr__", [](const SolveReport& r) {
        return "SolveReport(status=" + to_string(r.status) + ", method=" + to_string(r.method) +
               ", rows=" + std::to_string(r.rows) + ", rank=" + std::to_string(r.rank) + ")";
      });

  py::class_<ConstrainedWorkspace>(m, "ConstrainedWorkspace",
                                   "Preallocated workspace of the constrained solvers for one model.")
      .def(py::init([](std::shared_ptr<Model> model, int max_rows) {
             return std::make_unique<ConstrainedWorkspace>(*model, max_rows);
           }),
           py::arg("model"), py::arg("max_rows") = 24)
      .def_property_readonly(
          "lambda_", [](const ConstrainedWorkspace& w) { return to_array(w.lambda); },
          "(max_rows,) the multipliers of the last solve in its first m entries (m = its rows; copy).");

  m.def(
      "solve_constrained",
      [](const Model& model, PyData& pd, ConstrainedWorkspace& ws, const py::object& J, const py::object& gamma,
         const py::object& q, const py::object& v, const py::object& tau, const py::object& f_ext,
         const py::object& method) {
        Data& d = data_for(model, pd);
        const MatrixX Jm = matrix_arg(J, "J", -1, model.nv);
        Array kg = null_array(), kq = null_array(), kv = null_array(), kt = null_array();
        const auto g = vector_arg(gamma, "gamma", Jm.rows(), kg);
        const auto f = forces_arg(f_ext, model);
        const SolveReport r =
            solve_constrained(model, d, ws, Jm, g, vector_arg(q, "q", model.nq, kq), vector_arg(v, "v", model.nv, kv),
                              vector_arg(tau, "tau", model.nv, kt), f, method_arg(method));
        return py::make_tuple(to_array(d.ddq), to_array(VectorX(ws.lambda.head(Jm.rows()))), r);
      },
      py::arg("model"), py::arg("data"), py::arg("workspace"), py::arg("J"), py::arg("gamma"), py::arg("q"),
      py::arg("v"), py::arg("tau"), py::arg("f_ext") = py::none(), py::arg("method") = "auto",
      "Constrained forward dynamics with explicit rows: M v̇ + h = τ + Jᵀ λ, J v̇ + γ = 0.\n"
      "J (m, nv), gamma (m,), q (nq,), v (nv,), tau (nv,) [N·m]. Returns (v̇ (nv,) copy, λ (m,) copy, "
      "SolveReport). Never raises for numerical trouble (the report says; report.raise_for_status()).");
  m.def(
      "constrained_forward_dynamics",
      [](const Model& model, PyData& pd, ConstrainedWorkspace* ws, ConstraintSet& set, const py::object& q,
         const py::object& v, const py::object& tau, const py::object& f_ext, const py::object& method) {
        Data& d = data_for(model, pd);
        std::unique_ptr<ConstrainedWorkspace> own;
        if (!ws) ws = (own = std::make_unique<ConstrainedWorkspace>(model)).get();
        Array kq = null_array(), kv = null_array(), kt = null_array();
        const auto f = forces_arg(f_ext, model);
        const auto qm = vector_arg(q, "q", model.nq, kq);
        const auto vm = vector_arg(v, "v", model.nv, kv);
        const auto tm = vector_arg(tau, "tau", model.nv, kt);
        const SolveReport r = constrained_forward_dynamics(model, d, *ws, set, qm, vm, tm, f, method_arg(method));
        return py::make_tuple(to_array(d.ddq), to_array(VectorX(ws->lambda.head(set.dim()))), r);
      },
      py::arg("model"), py::arg("data"), py::arg("workspace"), py::arg("constraints"), py::arg("q"), py::arg("v"),
      py::arg("tau"), py::arg("f_ext") = py::none(), py::arg("method") = "auto",
      "The rows of the enabled constraints of `constraints` at (q, v), Baumgarte terms included, then "
      "solve_constrained(); the multipliers also in workspace.lambda_. workspace may be None (one is made).\n"
      "q (nq,), v (nv,) [rad/s], tau (nv,) [N·m], f_ext None or (njoints, 6). Method: 'auto', 'kkt', 'range', "
      "'null', 'hybrid' (joint locks only: ABA with prescribed accelerations). Returns (v̇ (nv,) [rad/s²], "
      "λ (m,) [N, N·m], SolveReport).");
  m.def("choose_method", &choose_method, py::arg("model"), py::arg("rows"), "The method Auto picks for m rows.");

  py::class_<JumpResult>(m, "JumpResult", "The result record of a velocity jump (all arrays are copies).")
      .def_readonly("status", &JumpResult::status)
      .def_readonly("form", &JumpResult::form, "The form actually used.")
      .def_property_readonly(
          "v_minus", [](const JumpResult& r) { return to_array(r.v_minus); }, "(nv,) [rad/s]")
      .def_property_readonly(
          "v_plus", [](const JumpResult& r) { return to_array(r.v_plus); }, "(nv,) [rad/s]")
      .def_property_readonly(
          "Lambda", [](const JumpResult& r) { return to_array(r.Lambda); },
          "(m,) impulses of all active rows [N·s, N·m·s], in row order.")
      .def_readonly("names", &JumpResult::names, "Active constraints, in row order.")
      .def_property_readonly(
          "Lambda_per",
          [](const JumpResult& r) {
            py::dict d;
            for (std::size_t i = 0; i < r.names.size() && i < r.Lambda_per.size(); ++i)
              d[py::str(r.names[i])] = to_array(r.Lambda_per[i]);
            return d;
          },
          "{name: Λ of that constraint}")
      .def(
          "Lambda_of", [](const JumpResult& r, const std::string& n) { return to_array(r.Lambda_of(n)); },
          py::arg("name"))
      .def_readonly("kinetic_before", &JumpResult::kinetic_before, "[J]")
      .def_readonly("kinetic_after", &JumpResult::kinetic_after, "[J]")
      .def_readonly("constraint_residual", &JumpResult::constraint_residual, "‖J v⁺ + e J v⁻‖∞")
      .def_readonly("momentum_residual", &JumpResult::momentum_residual, "‖P_ker J (M Δv − U)‖∞")
      .def_readonly("rank", &JumpResult::rank)
      .def_readonly("message", &JumpResult::message)
      .def("ok", &JumpResult::ok)
      .def(
          "raise_for_status",
          [](const JumpResult& r) {
            if (!r.ok()) raise(errors().solve, to_string(r.status) + ": " + r.message);
          },
          "Raises SolveError unless ok().")
      .def("__repr__", [](const JumpResult& r) {
        return "JumpResult(status=" + to_string(r.status) + ", form=" + to_string(r.form) + ")";
      });

  m.def(
      "velocity_jump",
      [](const Model& model, PyData& pd, const py::object& J1, const py::object& J2, const py::object& v_minus,
         const py::object& form, double restitution, const py::object& impulse, bool diagnostics,
         const std::vector<int>& locked) {
        Data& d = data_for(model, pd);
        const MatrixX j1 = J1.is_none() ? MatrixX(0, model.nv) : matrix_arg(J1, "J1", -1, model.nv);
        const MatrixX j2 = matrix_arg(J2, "J2", -1, model.nv);
        Array kv = null_array();
        const auto vm = vector_arg(v_minus, "v_minus", model.nv, kv);
        return velocity_jump(model, d, j1, j2, vm, jump_options(form, restitution, impulse, diagnostics, model.nv),
                             locked);
      },
      py::arg("model"), py::arg("data"), py::arg("J1"), py::arg("J2"), py::arg("v_minus"), py::arg("form") = "auto",
      py::arg("restitution") = 0.0, py::arg("impulse") = py::none(), py::arg("diagnostics") = true,
      py::arg("locked") = std::vector<int>{},
      "The momentum-consistent jump [M Jᵀ; J 0][Δv; Λ] = [U; −(1+e) J v⁻] with explicit rows: J1 (m1, nv) "
      "persistent rows (or None), J2 (m2, nv) rows being activated, v_minus (nv,). M is data.M: call crba(q) "
      "first. restitution e ∈ [0, 1]; impulse U (nv,) or None; locked: dofs of lock rows (forms 'locks' / "
      "'naive'). Returns a JumpResult (never raises for numerical trouble: see status).");
  m.def(
      "activate_constraints",
      [](const Model& model, PyData& pd, ConstraintSet& set, const std::vector<std::string>& names, const py::object& q,
         const py::object& v_minus, const py::object& form, double restitution, const py::object& impulse,
         bool diagnostics) {
        Data& d = data_for(model, pd);
        Array kq = null_array(), kv = null_array();
        return activate_constraints(model, d, set, names, vector_arg(q, "q", model.nq, kq),
                                    vector_arg(v_minus, "v_minus", model.nv, kv),
                                    jump_options(form, restitution, impulse, diagnostics, model.nv));
      },
      py::arg("model"), py::arg("data"), py::arg("constraints"), py::arg("names"), py::arg("q"), py::arg("v_minus"),
      py::arg("form") = "auto", py::arg("restitution") = 0.0, py::arg("impulse") = py::none(),
      py::arg("diagnostics") = true,
      "Enables the named constraints at q (references taken at q) and applies the jump from v⁻ (nv,) with "
      "every enabled constraint active. Returns a JumpResult (v_plus, Λ per constraint, energies, residuals). "
      "Unknown names: ArgumentError before anything changes; a failed jump changes nothing.");
  m.def("deactivate_constraints", &deactivate_constraints, py::arg("constraints"), py::arg("names"),
        "Disables the named constraints (no velocity change).");
}

}  // namespace articula::python
