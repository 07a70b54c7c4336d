// Model, ModelBuilder, Data, spatial types, URDF loading and the configuration manifold.
#include <random>

#include "common.hpp"

namespace articula::python {
namespace {

py::array_t<double> motions(const std::vector<Motion>& x) {
  MatrixX out(static_cast<Eigen::Index>(x.size()), 6);
  for (std::size_t i = 0; i < x.size(); ++i) out.row(static_cast<Eigen::Index>(i)) = x[i].vector().transpose();
  return to_array(out);
}
py::array_t<double> forces(const std::vector<Force>& x) {
  MatrixX out(static_cast<Eigen::Index>(x.size()), 6);
  for (std::size_t i = 0; i < x.size(); ++i) out.row(static_cast<Eigen::Index>(i)) = x[i].vector().transpose();
  return to_array(out);
}

template <typename F>
Model model_or_error(F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    raise(errors().model, e.what());
  }
}

void def_spatial(py::module_& m) {
  py::class_<Transform>(m, "Transform", "Pose of frame B in frame A: x_A = R x_B + p (R 3×3 rotation, p [m] 3).")
      .def(py::init([](const py::object& R, const py::object& p) {
             Transform T;
             if (!R.is_none()) T.R = mat3_arg(R, "R");
             if (!p.is_none()) T.p = vec3_arg(p, "p");
             return T;
           }),
           py::arg("R") = py::none(), py::arg("p") = py::none(),
           "Transform(R=None, p=None): R (3, 3) rotation (identity if None), p (3,) translation [m] (0 if None).")
      .def_static("identity", &Transform::Identity, "The identity pose.")
      .def_static(
          "from_matrix",
          [](const py::object& H) {
            const MatrixX h = matrix_arg(H, "H", 4, 4);
            return Transform{h.topLeftCorner<3, 3>(), h.topRightCorner<3, 1>()};
          },
          py::arg("H"), "From a (4, 4) homogeneous matrix.")
      .def_property(
          "R", [](const Transform& T) { return to_array(MatrixX(T.R)); },
          [](Transform& T, const py::object& R) { T.R = mat3_arg(R, "R"); }, "Rotation (3, 3), a copy.")
      .def_property(
          "p", [](const Transform& T) { return to_array(T.p); },
          [](Transform& T, const py::object& p) { T.p = vec3_arg(p, "p"); }, "Translation [m] (3,), a copy.")
      .def(
          "matrix",
          [](const Transform& T) {
            MatrixX H = MatrixX::Identity(4, 4);
            H.topLeftCorner<3, 3>() = T.R;
            H.topRightCorner<3, 1>() = T.p;
            return to_array(H);
          },
          "The (4, 4) homogeneous matrix.")
      .def("inverse", &Transform::inverse, "The inverse pose (A in B).")
      .def("__mul__", &Transform::operator*, "Composition: (A_B * B_C) = A_C.")
      .def(
          "act_point", [](const Transform& T, const py::object& x) { return to_array(T.act_point(vec3_arg(x, "x"))); },
          py::arg("x"), "R x + p: a point (3,) [m] of B in A coordinates.")
      .def(
          "motion_matrix", [](const Transform& T) { return to_array(MatrixX(T.motion_matrix())); },
          "The (6, 6) matrix acting on [linear; angular] motion vectors.")
      .def("__repr__", [](const Transform& T) {
        return "Transform(p=[" + std::to_string(T.p.x()) + ", " + std::to_string(T.p.y()) + ", " +
               std::to_string(T.p.z()) + "])";
      });

  py::class_<Inertia>(m, "Inertia",
                      "Spatial inertia of a body about its frame origin: mass m [kg], first moment h = m c [kg·m], "
                      "rotational inertia Io about the origin [kg·m²].")
      .def(py::init([](double mass, const py::object& com, const py::object& I_com) {
             return Inertia::from_com(mass, com.is_none() ? Vector3::Zero() : vec3_arg(com, "com"),
                                      I_com.is_none() ? Matrix3::Zero() : mat3_arg(I_com, "I_com"));
           }),
           py::arg("mass") = 0.0, py::arg("com") = py::none(), py::arg("I_com") = py::none(),
           "Inertia(mass [kg], com (3,) [m] in the body frame, I_com (3, 3) [kg·m²] about the centre of mass).")
      .def_readwrite("mass", &Inertia::m, "Mass [kg].")
      .def_property_readonly(
          "com", [](const Inertia& I) { return to_array(I.com()); }, "Centre of mass (3,) [m].")
      .def_property_readonly(
          "I_com", [](const Inertia& I) { return to_array(MatrixX(I.inertia_about_com())); },
          "Rotational inertia about the centre of mass (3, 3) [kg·m²].")
      .def_property_readonly(
          "h", [](const Inertia& I) { return to_array(I.h); }, "First moment m c (3,) [kg·m].")
      .def_property_readonly(
          "Io", [](const Inertia& I) { return to_array(MatrixX(I.Io)); },
          "Rotational inertia about the frame origin (3, 3) [kg·m²].")
      .def("problem", &inertia_problem, "What is physically wrong with it ('' when valid).");
}

void def_model(py::module_& m) {
  py::enum_<JointType>(m, "JointType", "Joint types (docs/notation.md for q and v of each).")
      .value("Revolute", JointType::Revolute)
      .value("Continuous", JointType::Continuous)
      .value("Prismatic", JointType::Prismatic)
      .value("Spherical", JointType::Spherical)
      .value("FreeFlyer", JointType::FreeFlyer);
  py::enum_<FrameType>(m, "FrameType")
      .value("Body", FrameType::Body)
      .value("FixedLink", FrameType::FixedLink)
      .value("Joint", FrameType::Joint)
      .value("User", FrameType::User);
  py::enum_<BaseType>(m, "BaseType", "Root of a URDF: welded to the world, or on a free-flyer 'root_joint'.")
      .value("Fixed", BaseType::Fixed)
      .value("Floating", BaseType::Floating);

  py::class_<Frame>(m, "Frame", "A named frame rigidly attached to a body (parent = -1: the world).")
      .def_readonly("name", &Frame::name)
      .def_readonly("parent", &Frame::parent, "Body index, or -1 for the world.")
      .def_readonly("placement", &Frame::placement, "Pose in the parent body's frame.")
      .def_readonly("type", &Frame::type)
      .def("__repr__",
           [](const Frame& f) { return "Frame('" + f.name + "', parent=" + std::to_string(f.parent) + ")"; });

  auto vec = [](VectorX Model::*field) { return [field](const Model& model) { return to_array(model.*field); }; };
  py::class_<Model, std::shared_ptr<Model>>(
      m, "Model",
      "The immutable description of a robot: a tree of bodies in depth-first order, body i carried by joint i.\n"
      "Made by load_urdf() or ModelBuilder.build(). Per-dof arrays have nv entries, per-coordinate nq.")
      .def_readonly("name", &Model::name)
      .def_readonly("nq", &Model::nq, "Number of configuration coordinates.")
      .def_readonly("nv", &Model::nv, "Number of velocity coordinates (dofs).")
      .def_readonly("njoints", &Model::njoints, "Number of joints = number of bodies.")
      .def_readonly("joint_names", &Model::joint_names)
      .def_readonly("body_names", &Model::body_names)
      .def_readonly("joint_types", &Model::joint_types)
      .def_readonly("parents", &Model::parents, "Parent body of each body (-1: the world).")
      .def_readonly("joint_placements", &Model::joint_placements, "Joint frame in the parent body frame.")
      .def_property_readonly(
          "axes",
          [](const Model& mo) {
            MatrixX a(mo.njoints, 3);
            for (int i = 0; i < mo.njoints; ++i) a.row(i) = mo.axes[i].transpose();
            return to_array(a);
          },
          "Joint axes (njoints, 3), unit, in the joint frames (1-dof joints).")
      .def_readonly("inertias", &Model::inertias, "Body inertias in their own frames (fixed children merged).")
      .def_readonly("idx_q", &Model::idx_q, "First q index of each joint.")
      .def_readonly("idx_v", &Model::idx_v, "First v index of each joint.")
      .def_readonly("nq_joint", &Model::nq_joint)
      .def_readonly("nv_joint", &Model::nv_joint)
      .def_readonly("frames", &Model::frames)
      .def_property_readonly("frame_names",
                             [](const Model& mo) {
                               std::vector<std::string> n;
                               for (const Frame& f : mo.frames) n.push_back(f.name);
                               return n;
                             })
      .def_property_readonly("lower", vec(&Model::lower), "Position limits (nq,) [rad or m], -inf if none.")
      .def_property_readonly("upper", vec(&Model::upper), "Position limits (nq,) [rad or m], +inf if none.")
      .def_property_readonly("velocity_limit", vec(&Model::velocity_limit), "(nv,) [rad/s or m/s], inf if none.")
      .def_property_readonly("effort_limit", vec(&Model::effort_limit), "(nv,) [N·m or N], inf if none.")
      .def_property_readonly("damping", vec(&Model::damping), "(nv,) viscous damping [N·m·s/rad] from URDF.")
      .def_property_readonly("friction", vec(&Model::friction), "(nv,) friction [N·m] from URDF.")
      .def_property_readonly("armature", vec(&Model::armature), "(nv,) rotor inertia on M's diagonal [kg·m²].")
      .def_property_readonly(
          "gravity", [](const Model& mo) { return to_array(mo.gravity.v); }, "Gravity (3,) [m/s²] in the world.")
      .def("joint_id", &Model::joint_id, py::arg("name"), "Index of a joint; ArgumentError listing the valid names.")
      .def("frame_id", &Model::frame_id, py::arg("name"), "Index of a frame; ArgumentError listing the valid names.")
      .def("body_id", &Model::body_id, py::arg("name"), "Index of a body; ArgumentError listing the valid names.")
      .def("has_joint", &Model::has_joint, py::arg("name"))
      .def("has_frame", &Model::has_frame, py::arg("name"))
      .def("total_mass", &Model::total_mass, "Sum of the body masses [kg].")
      .def("set_armature", &Model::set_armature, py::arg("joint"), py::arg("value"),
           "Sets the armature [kg·m²] of every dof of a joint (Data stays valid).")
      .def("add_frame", &Model::add_frame, py::arg("name"), py::arg("parent_body"), py::arg("placement"),
           "Adds a user frame to a body (-1: the world); returns its id. Data made before must be remade.")
      .def(
          "copy", [](const Model& mo) { return std::make_shared<Model>(mo); }, "An independent copy.")
      .def("__repr__", [](const Model& mo) {
        return "Model('" + mo.name + "', nq=" + std::to_string(mo.nq) + ", nv=" + std::to_string(mo.nv) +
               ", njoints=" + std::to_string(mo.njoints) + ")";
      });

  py::class_<JointLimits>(m, "JointLimits", "Limits and drive parameters of a joint (ModelBuilder.add_body).")
      .def(py::init([](double lower, double upper, double velocity, double effort, double damping, double friction,
                       double armature) {
             return JointLimits{lower, upper, velocity, effort, damping, friction, armature};
           }),
           py::arg("lower") = -INFINITY, py::arg("upper") = INFINITY, py::arg("velocity") = INFINITY,
           py::arg("effort") = INFINITY, py::arg("damping") = 0.0, py::arg("friction") = 0.0, py::arg("armature") = 0.0,
           "lower/upper [rad or m], velocity [rad/s], effort [N·m], damping [N·m·s/rad], friction [N·m], "
           "armature [kg·m²].")
      .def_readwrite("lower", &JointLimits::lower)
      .def_readwrite("upper", &JointLimits::upper)
      .def_readwrite("velocity", &JointLimits::velocity)
      .def_readwrite("effort", &JointLimits::effort)
      .def_readwrite("damping", &JointLimits::damping)
      .def_readwrite("friction", &JointLimits::friction)
      .def_readwrite("armature", &JointLimits::armature);

  py::class_<ModelBuilder>(m, "ModelBuilder",
                           "Builds a Model in code, one body at a time (any tree order; build() renumbers).")
      .def(py::init<std::string>(), py::arg("name") = "model")
      .def(
          "add_body",
          [](ModelBuilder& b, const std::string& body, const std::string& parent, const std::string& joint,
             JointType type, const Transform& placement, const py::object& axis, const Inertia& inertia,
             const JointLimits& limits) -> ModelBuilder& {
            const Vector3 a = vec3_arg(axis, "axis");
            try {
              return b.add_body(body, parent, joint, type, placement, a, inertia, limits);
            } catch (const std::exception& e) {
              raise(errors().model, e.what());
            }
          },
          py::arg("body"), py::arg("parent"), py::arg("joint"), py::arg("type"), py::arg("placement"), py::arg("axis"),
          py::arg("inertia"), py::arg("limits") = JointLimits{}, py::return_value_policy::reference,
          "Adds a body carried by a joint to `parent` ('' = the world). placement: joint frame in the parent "
          "body frame; axis (3,) in the joint frame. ModelError for a duplicate name, unknown parent, zero axis "
          "or invalid inertia. Returns the builder.")
      .def(
          "add_fixed_link",
          [](ModelBuilder& b, const std::string& link, const std::string& parent, const std::string& joint,
             const Transform& placement, const Inertia& inertia) -> ModelBuilder& {
            try {
              return b.add_fixed_link(link, parent, joint, placement, inertia);
            } catch (const std::exception& e) {
              raise(errors().model, e.what());
            }
          },
          py::arg("link"), py::arg("parent"), py::arg("joint"), py::arg("placement"), py::arg("inertia") = Inertia{},
          py::return_value_policy::reference, "Rigidly attaches a link (inertia merged, frame kept).")
      .def(
          "add_frame",
          [](ModelBuilder& b, const std::string& name, const std::string& parent,
             const Transform& placement) -> ModelBuilder& {
            try {
              return b.add_frame(name, parent, placement);
            } catch (const std::exception& e) {
              raise(errors().model, e.what());
            }
          },
          py::arg("name"), py::arg("parent"), py::arg("placement") = Transform{}, py::return_value_policy::reference,
          "Adds a frame to a body or fixed link ('' = the world).")
      .def(
          "set_gravity",
          [](ModelBuilder& b, const py::object& g) -> ModelBuilder& { return b.set_gravity(vec3_arg(g, "g")); },
          py::arg("g"), py::return_value_policy::reference, "Gravity (3,) [m/s²].")
      .def(
          "build",
          [](const ModelBuilder& b) { return std::make_shared<Model>(model_or_error([&] { return b.build(); })); },
          "The Model (ModelError if it cannot be built).");

  m.def(
      "load_urdf",
      [](const std::string& path, bool floating) {
        return std::make_shared<Model>(
            model_or_error([&] { return load_urdf(path, floating ? BaseType::Floating : BaseType::Fixed); }));
      },
      py::arg("path"), py::arg("floating") = false,
      "Loads a URDF file (urdfdom). floating=True puts a free-flyer 'root_joint' at the root (q: x y z qx qy qz "
      "qw). Fixed joints merge the child into its parent and keep the link as a frame.\n"
      "Raises ModelError naming the file and the element for a missing file, bad XML, unsupported joints, "
      "invalid inertias, loops or duplicate names.");
  m.def(
      "load_urdf_string",
      [](const std::string& xml, bool floating, const std::string& source) {
        return std::make_shared<Model>(model_or_error(
            [&] { return load_urdf_string(xml, floating ? BaseType::Floating : BaseType::Fixed, source); }));
      },
      py::arg("xml"), py::arg("floating") = false, py::arg("source") = "<string>", "load_urdf() from a string.");
}

void def_data(py::module_& m) {
  using Vec = VectorX Data::*;
  using Mat = MatrixX Data::*;
  py::class_<PyData> cls(m, "Data",
                         "The workspace of one model: every algorithm writes its results here.\n"
                         "Array attributes are read-only views into it (they change with the next call); "
                         "per-body lists are copies.");
  cls.def(py::init([](std::shared_ptr<Model> model) {
            auto pd = std::make_unique<PyData>();
            pd->model = model;
            pd->owned = std::make_unique<Data>(*model);
            pd->view = pd->owned.get();
            return pd;
          }),
          py::arg("model"), "Data(model): sized for `model`; use it only with that model.");
  cls.def_property_readonly("model", [](const PyData& pd) { return std::const_pointer_cast<Model>(pd.model); });
  auto view_vec = [&](const char* name, Vec f, const char* doc) {
    cls.def_property_readonly(
        name, [f](py::object self) { return readonly_view(self.cast<PyData&>().get().*f, self); }, doc);
  };
  auto view_mat = [&](const char* name, Mat f, const char* doc) {
    cls.def_property_readonly(
        name, [f](py::object self) { return readonly_view(self.cast<PyData&>().get().*f, self); }, doc);
  };
  view_vec("tau", &Data::tau, "(nv,) joint forces of rnea() [N·m or N] (read-only view).");
  view_vec("h", &Data::h, "(nv,) nonlinear_effects() h = C v + g (read-only view).");
  view_vec("g", &Data::g, "(nv,) generalized_gravity() (read-only view).");
  view_mat("M", &Data::M, "(nv, nv) joint-space inertia of crba() [kg·m² …] (read-only view).");
  view_vec("ddq", &Data::ddq, "(nv,) accelerations of aba() / constrained dynamics (read-only view).");
  view_mat("J", &Data::J, "(6, nv) joint Jacobian columns, world frame (read-only view).");
  view_mat("Jcom", &Data::Jcom, "(3, nv) centre-of-mass Jacobian (read-only view).");
  view_vec("momentum", &Data::momentum, "(nv,) generalized momentum M v (read-only view).");
  view_vec("Lfact", &Data::Lfact, "Packed L of M = Lᵀ D L (read-only view).");
  view_vec("Dfact", &Data::Dfact, "(nv,) D of M = Lᵀ D L (read-only view).");
  view_vec("u", &Data::u, "(nv,) ABA workspace u (read-only view).");
  cls.def_property_readonly(
      "com", [](const PyData& pd) { return to_array(pd.get().com); }, "(3,) centre of mass [m] (copy).");
  cls.def_property_readonly(
      "mass", [](const PyData& pd) { return pd.get().mass; }, "Total mass [kg].");
  cls.def_property_readonly(
      "kinetic_energy", [](const PyData& pd) { return pd.get().kinetic_energy; }, "[J]");
  cls.def_property_readonly(
      "potential_energy", [](const PyData& pd) { return pd.get().potential_energy; }, "[J]");
  cls.def_property_readonly(
      "oMi", [](const PyData& pd) { return pd.get().oMi; }, "Body poses in the world (copies).");
  cls.def_property_readonly(
      "liMi", [](const PyData& pd) { return pd.get().liMi; }, "Body poses in their parents.");
  cls.def_property_readonly(
      "oMf", [](const PyData& pd) { return pd.get().oMf; }, "Frame poses (update_frame_placements).");
  cls.def_property_readonly(
      "v", [](const PyData& pd) { return motions(pd.get().v); },
      "(njoints, 6) body velocities [linear; angular], body frames (copy).");
  cls.def_property_readonly(
      "a", [](const PyData& pd) { return motions(pd.get().a); },
      "(njoints, 6) body accelerations, body frames, gravity excluded (copy).");
  cls.def_property_readonly(
      "a_gf", [](const PyData& pd) { return motions(pd.get().a_gf); },
      "(njoints, 6) a − g in body frames, by rnea()/aba() (copy).");
  cls.def_property_readonly(
      "f", [](const PyData& pd) { return forces(pd.get().f); },
      "(njoints, 6) joint forces [force; moment] of rnea(), body frames (copy).");
  cls.def_property_readonly(
      "Ycrb", [](const PyData& pd) { return pd.get().Ycrb; }, "Composite inertias (crba).");
}

void def_configuration(py::module_& m) {
  m.def(
      "neutral", [](const Model& model) { return to_array(neutral(model)); }, py::arg("model"),
      "q (nq,) with every joint at its neutral value (angles 0, identity quaternions [qx qy qz qw]).");
  m.def(
      "integrate",
      [](const Model& model, const py::object& q, const py::object& v, double dt) {
        Array kq = null_array(), kv = null_array();
        return to_array(integrate(model, vector_arg(q, "q", model.nq, kq), vector_arg(v, "v", model.nv, kv), dt));
      },
      py::arg("model"), py::arg("q"), py::arg("v"), py::arg("dt") = 1.0,
      "q ⊕ v·dt on the manifold: q (nq,), v (nv,) [rad/s, m/s], dt [s] → (nq,).");
  m.def(
      "difference",
      [](const Model& model, const py::object& q0, const py::object& q1) {
        Array k0 = null_array(), k1 = null_array();
        return to_array(difference(model, vector_arg(q0, "q0", model.nq, k0), vector_arg(q1, "q1", model.nq, k1)));
      },
      py::arg("model"), py::arg("q0"), py::arg("q1"), "v (nv,) with integrate(q0, v, 1) = q1 (logarithm map).");
  m.def(
      "normalize",
      [](const Model& model, const py::object& q) {
        Array k = null_array();
        VectorX x = vector_arg(q, "q", model.nq, k);
        normalize(model, x);
        return to_array(x);
      },
      py::arg("model"), py::arg("q"),
      "A copy of q (nq,) with unit quaternions; ArgumentError for a zero or non-finite quaternion.");
  m.def(
      "random_configuration",
      [](const Model& model, unsigned seed) {
        std::mt19937 rng(seed);
        return to_array(random_configuration(model, rng));
      },
      py::arg("model"), py::arg("seed") = 0,
      "Random q (nq,) within the limits (±π / ±1 where infinite), uniform rotations; std::mt19937(seed).");
}

}  // namespace

void init_model(py::module_& m) {
  def_spatial(m);
  def_model(m);
  def_data(m);
  def_configuration(m);
}

}  // namespace articula::python
