// Constraint types (frame, loop, distance, joint lock, wheel, Python callbacks) and ConstraintSet.
#include <optional>

#include "common.hpp"

namespace articula::python {
namespace {

// Calls a constraint callback with (model, data view, q[, v]) and converts its result to the
// expected shape; every failure (a Python exception, a wrong shape) is std::runtime_error naming
// the constraint, as the library reports its own callback errors.
struct CallbackCaller {
  PyCallable f;
  std::string what;
  py::object call(const Model& model, const Data& data, VectorRef q, const VectorX* v) const {
    py::gil_scoped_acquire gil;
    auto pd = std::make_unique<PyData>();
    pd->model = borrow(model);
    pd->view = &data;
    pd->readonly = true;
    PyData* raw = pd.get();
    py::object pyd = py::cast(std::move(pd));
    py::object model_obj = py::cast(std::const_pointer_cast<Model>(borrow(model)));
    struct Expire {
      PyData* p;
      ~Expire() { p->view = nullptr; }
    } expire{raw};
    return v ? f.call(what, model_obj, pyd, to_array(q), to_array(*v)) : f.call(what, model_obj, pyd, to_array(q));
  }
  template <typename Convert>
  auto convert(const py::object& r, Convert&& c) const {
    py::gil_scoped_acquire gil;
    try {
      return c(r);
    } catch (py::error_already_set& e) {
      throw std::runtime_error(what + ": " + e.what());
    }
  }
};

std::shared_ptr<CallbackConstraint> make_callback(const std::string& name, int dim, py::object jacobian,
                                                  py::object drift, py::object error) {
  auto jc = std::make_shared<CallbackCaller>(
      CallbackCaller{PyCallable(std::move(jacobian)), "constraint '" + name + "' jacobian callback"});
  auto dc = std::make_shared<CallbackCaller>(
      CallbackCaller{PyCallable(std::move(drift)), "constraint '" + name + "' drift callback"});
  auto vec = [dim](const py::object& r, const char* arg) -> VectorX {
    if (dim == 1 && (py::isinstance<py::float_>(r) || py::isinstance<py::int_>(r)))
      return VectorX::Constant(1, r.cast<double>());
    Array k = null_array();
    return vector_arg(r, arg, dim, k);
  };
  CallbackConstraint::JacobianFn J = [jc, dim](const Model& model, const Data& data, VectorRef q) {
    py::gil_scoped_acquire gil;  // r and its conversion need the GIL
    const py::object r = jc->call(model, data, q, nullptr);
    return jc->convert(r, [&](const py::object& x) -> MatrixX {
      Array a = as_array(x, "J");
      if (dim == 1 && a.ndim() == 1) return matrix_arg(a.reshape({1, static_cast<int>(a.shape(0))}), "J", 1, model.nv);
      return matrix_arg(a, "J", dim, model.nv);
    });
  };
  CallbackConstraint::DriftFn G = [dc, vec](const Model& model, const Data& data, VectorRef q, VectorRef v) {
    const VectorX vv = v;
    py::gil_scoped_acquire gil;  // r and its conversion need the GIL
    const py::object r = dc->call(model, data, q, &vv);
    return dc->convert(r, [&](const py::object& x) { return vec(x, "gamma"); });
  };
  CallbackConstraint::ErrorFn E = nullptr;
  if (!error.is_none()) {
    auto ec = std::make_shared<CallbackCaller>(
        CallbackCaller{PyCallable(std::move(error)), "constraint '" + name + "' error callback"});
    E = [ec, vec](const Model& model, const Data& data, VectorRef q) {
      py::gil_scoped_acquire gil;  // r and its conversion need the GIL
      const py::object r = ec->call(model, data, q, nullptr);
      return ec->convert(r, [&](const py::object& x) { return vec(x, "error"); });
    };
  }
  return std::make_shared<CallbackConstraint>(name, dim, std::move(J), std::move(G), std::move(E));
}

std::optional<VectorX> opt_vector(const py::object& x, const char* name) {
  if (x.is_none()) return std::nullopt;
  Array k = null_array();
  return VectorX(vector_arg(x, name, -1, k));
}

}  // namespace

void init_constraints(py::module_& m) {
  py::class_<AxisMask>(m, "AxisMask", "Which of the six axes [x y z | rx ry rz] a frame constraint holds.")
      .def(py::init([](const std::string& text) { return AxisMask::parse(text); }), py::arg("text"),
           "From axis names: 'xyz', 'z', 'xyzrxryrz', or 'weld'/'6d', 'point'/'3d', 'orientation'.")
      .def(py::init([](const std::vector<bool>& axes) {
             if (axes.size() != 6) raise(errors().argument, "argument 'axes' must have 6 entries [x y z rx ry rz]");
             AxisMask mask;
             for (int i = 0; i < 6; ++i) mask.axis[i] = axes[static_cast<std::size_t>(i)];
             return mask;
           }),
           py::arg("axes"))
      .def_static("weld", &AxisMask::weld)
      .def_static("point", &AxisMask::point)
      .def_static("orientation", &AxisMask::orientation)
      .def_property_readonly("axes", [](const AxisMask& a) { return std::vector<bool>(a.axis, a.axis + 6); })
      .def("count", &AxisMask::count)
      .def("__str__", &AxisMask::to_string)
      .def("__repr__", [](const AxisMask& a) { return "AxisMask('" + a.to_string() + "')"; });
  py::implicitly_convertible<py::str, AxisMask>();

  py::class_<Constraint, std::shared_ptr<Constraint>>(
      m, "Constraint",
      "Something that produces rows: J (m, nv), γ (m,) with J v̇ + γ = 0, and position errors e (m,).\n"
      "Baumgarte stabilization (Baumgarte 1972) at frequency f [Hz]: kp = (2πf)², kd = 4πf.")
      .def_property_readonly("name", &Constraint::name)
      .def_property_readonly("dim", &Constraint::dim, "Number of rows m.")
      .def_property_readonly("holonomic", &Constraint::holonomic)
      .def_property("baumgarte_frequency", &Constraint::baumgarte_frequency, &Constraint::set_baumgarte_frequency,
                    "Stabilization frequency [Hz] ≥ 0 (0: off).")
      .def_property_readonly("kp", &Constraint::kp, "[1/s²]")
      .def_property_readonly("kd", &Constraint::kd, "[1/s]")
      .def_property_readonly("has_reference", &Constraint::has_reference)
      .def(
          "rows",
          [](Constraint& c, const Model& model, PyData& pd, const py::object& q, const py::object& v) {
            Data& d = data_for(model, pd);
            Array kq = null_array(), kv = null_array();
            const auto qm = vector_arg(q, "q", model.nq, kq);
            const auto vm = vector_arg(v, "v", model.nv, kv);
            c.bind(model);
            forward_kinematics_bias(model, d, qm, vm);
            update_joint_jacobians(model, d);
            if (!c.has_reference()) c.capture_reference(model, d, qm);
            MatrixX J(c.dim(), model.nv);
            VectorX gamma(c.dim()), e(c.dim());
            c.compute(model, d, qm, vm, J, gamma, e);
            return py::make_tuple(to_array(J), to_array(gamma), to_array(e));
          },
          py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"),
          "(J (m, nv), γ (m,), e (m,)) at (q, v), after the kinematics it needs; takes the reference at q if none.")
      .def("__repr__",
           [](const Constraint& c) { return "<Constraint '" + c.name() + "' dim " + std::to_string(c.dim()) + ">"; });

  py::class_<FramePairConstraint, Constraint, std::shared_ptr<FramePairConstraint>>(
      m, "FramePairConstraint", "Frame A held relative to frame B (the world when B is '') on the axes of a mask.")
      .def_property_readonly("frame_a", &FramePairConstraint::frame_a)
      .def_property_readonly("frame_b", &FramePairConstraint::frame_b)
      .def_property_readonly("mask", &FramePairConstraint::mask)
      .def_property("reference", &FramePairConstraint::reference, &FramePairConstraint::set_reference,
                    "Pose of A in B (Transform); set it to keep it across enables.")
      .def(
          "wrench",
          [](const FramePairConstraint& c, const py::object& lambda) {
            Array k = null_array();
            return to_array(VectorX(c.wrench(vector_arg(lambda, "lambda", c.dim(), k))));
          },
          py::arg("lambda"), "The wrench (6,) [force N; moment N·m] (world axes, about A) of multipliers λ (m,).");
  py::class_<FrameConstraint, FramePairConstraint, std::shared_ptr<FrameConstraint>>(
      m, "FrameConstraint", "A frame held in the world: 'weld' (6 rows), 'point' (3) or any subset of axes.")
      .def(py::init<std::string, std::string, AxisMask, std::optional<Transform>>(), py::arg("name"), py::arg("frame"),
           py::arg("mask") = AxisMask::weld(), py::arg("reference") = py::none(),
           "reference: the pose held (Transform); None takes it when enabled.");
  py::class_<LoopConstraint, FramePairConstraint, std::shared_ptr<LoopConstraint>>(
      m, "LoopConstraint", "A loop closure: frame A held to frame B (mask axes in B's axes).")
      .def(py::init<std::string, std::string, std::string, AxisMask, std::optional<Transform>>(), py::arg("name"),
           py::arg("frame_a"), py::arg("frame_b"), py::arg("mask") = AxisMask::point(),
           py::arg("relative") = py::none());
  py::class_<DistanceConstraint, Constraint, std::shared_ptr<DistanceConstraint>>(
      m, "DistanceConstraint", "The distance [m] between two frames' origins held (one row).")
      .def(py::init<std::string, std::string, std::string, std::optional<double>>(), py::arg("name"),
           py::arg("frame_a"), py::arg("frame_b"), py::arg("distance") = py::none())
      .def_property_readonly("distance", &DistanceConstraint::distance, "[m]");
  py::class_<JointLock, Constraint, std::shared_ptr<JointLock>>(
      m, "JointLock", "Joints held at a position (a brake): unit rows on the locked dofs, γ = 0, e = q ⊖ q_ref.")
      .def(py::init([](std::shared_ptr<Model> model, const std::string& name, const std::vector<std::string>& joints,
                       const py::object& positions) {
             return std::make_shared<JointLock>(*model, name, joints, opt_vector(positions, "positions"));
           }),
           py::arg("model"), py::arg("name"), py::arg("joints"), py::arg("positions") = py::none(),
           "JointLock(model, name, joints, positions=None): positions (Σ nq of the joints,) [rad or m] or None "
           "(taken when enabled).")
      .def_property_readonly("dofs", &JointLock::dofs, "The locked v indices, in row order.")
      .def_property_readonly("joints", &JointLock::joints);
  py::class_<WheelConstraint, Constraint, std::shared_ptr<WheelConstraint>>(
      m, "WheelConstraint",
      "A disk of radius r [m] (centre: frame origin, spin axis in the frame) rolling without "
      "slipping on the plane nᵀx = h (3 rows, world axes).")
      .def(py::init([](const std::string& name, const std::string& frame, double radius, const py::object& axis,
                       const py::object& normal, double height) {
             return std::make_shared<WheelConstraint>(name, frame, radius, vec3_arg(axis, "axis"),
                                                      vec3_arg(normal, "plane_normal"), height);
           }),
           py::arg("name"), py::arg("frame"), py::arg("radius"), py::arg("axis"),
           py::arg("plane_normal") = std::vector<double>{0, 0, 1}, py::arg("plane_height") = 0.0)
      .def_property_readonly(
          "contact_point", [](const WheelConstraint& w) { return to_array(w.contact_point()); },
          "(3,) [m] of the last compute.")
      .def_property_readonly("radius", &WheelConstraint::radius);
  py::class_<CallbackConstraint, Constraint, std::shared_ptr<CallbackConstraint>>(
      m, "CallbackConstraint",
      "A constraint written in Python: jacobian(model, data, q) → J (dim, nv); drift(model, data, q, v) → γ "
      "(dim,) with J v̇ + γ = 0; optionally error(model, data, q) → e (dim,) (makes it holonomic and turns "
      "Baumgarte stabilization on). When they run, data holds forward_kinematics(q, v, 0) and the joint "
      "Jacobians (frame_jacobian(model, data, frame, ref) and frame_acceleration work directly); that data is "
      "read-only and valid only during the call. A wrong shape, a non-finite value or a Python exception is "
      "an articula.Error naming the constraint (with the traceback).")
      .def(py::init(&make_callback), py::arg("name"), py::arg("dim"), py::arg("jacobian"), py::arg("drift"),
           py::arg("error") = py::none());

  py::class_<ConstraintSet>(m, "ConstraintSet",
                            "The constraints of a robot by name; stacks the rows of the enabled ones (registration "
                            "order) and keeps their multipliers.")
      .def(py::init([](std::shared_ptr<Model> model) { return std::make_unique<ConstraintSet>(*model); }),
           py::arg("model"), py::keep_alive<1, 2>())
      .def(
          "add",
          [](ConstraintSet& s, std::shared_ptr<Constraint> c, bool enabled) -> Constraint& {
            return s.add(std::move(c), enabled);
          },
          py::arg("constraint"), py::arg("enabled") = true, py::return_value_policy::reference_internal,
          "Registers a constraint (its frames / joints checked now); ArgumentError for a duplicate name.")
      .def("remove", &ConstraintSet::remove, py::arg("name"))
      .def("enable", &ConstraintSet::enable, py::arg("name"), "Takes its reference at the next compute_rows().")
      .def("disable", &ConstraintSet::disable, py::arg("name"))
      .def("is_enabled", &ConstraintSet::is_enabled, py::arg("name"))
      .def("__contains__", &ConstraintSet::contains)
      .def("get", py::overload_cast<const std::string&>(&ConstraintSet::get), py::arg("name"),
           py::return_value_policy::reference_internal)
      .def("__getitem__", py::overload_cast<const std::string&>(&ConstraintSet::get),
           py::return_value_policy::reference_internal)
      .def("names", &ConstraintSet::names)
      .def("enabled_names", &ConstraintSet::enabled_names)
      .def_property_readonly("dim", &ConstraintSet::dim, "Rows m of the enabled constraints.")
      .def("row_offset", &ConstraintSet::row_offset, py::arg("name"))
      .def(
          "compute_rows",
          [](ConstraintSet& s, const Model& model, PyData& pd, const py::object& q, const py::object& v) {
            Array kq = null_array(), kv = null_array();
            return s.compute_rows(model, data_for(model, pd), vector_arg(q, "q", model.nq, kq),
                                  vector_arg(v, "v", model.nv, kv));
          },
          py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"),
          "Stacks the rows at (q, v) (Baumgarte terms in gamma); True when a kinematics pass ran.")
      .def(
          "compute_jacobian",
          [](ConstraintSet& s, const Model& model, PyData& pd, const py::object& q, const py::object& v) {
            Array kq = null_array(), kv = null_array();
            return s.compute_jacobian(model, data_for(model, pd), vector_arg(q, "q", model.nq, kq),
                                      vector_arg(v, "v", model.nv, kv));
          },
          py::arg("model"), py::arg("data"), py::arg("q"), py::arg("v"), "J only (for a velocity jump).")
      .def_property_readonly(
          "J", [](const ConstraintSet& s) { return to_array(MatrixX(s.J())); }, "(m, nv) copy.")
      .def_property_readonly(
          "gamma", [](const ConstraintSet& s) { return to_array(VectorX(s.gamma())); }, "(m,) γ + kd J v + kp e, copy.")
      .def_property_readonly(
          "drift", [](const ConstraintSet& s) { return to_array(VectorX(s.drift())); }, "(m,) raw γ.")
      .def_property_readonly(
          "error", [](const ConstraintSet& s) { return to_array(VectorX(s.error())); }, "(m,) e.")
      .def(
          "rows_of",
          [](const ConstraintSet& s, const std::string& n, const py::object& stacked) {
            Array keep = null_array();
            const auto x = vector_arg(stacked, "stacked", -1, keep);  // at least dim(): rows_of checks
            return to_array(s.rows_of(n, x));
          },
          py::arg("name"), py::arg("stacked"),
          "One enabled constraint's entries of a vector stacked in row order (m,): the multipliers λ a "
          "solve returns, Simulator.multipliers, gamma, error (copy).")
      .def_property_readonly("lock_dofs", &ConstraintSet::lock_dofs);
}

}  // namespace articula::python
