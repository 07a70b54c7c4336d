// Scenario sections about the robot: model, gravity, motors, contacts, constraints, sensors and
// the initial state (docs/scenarios.md).
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>

#include "articula/constraints/frame_constraint.hpp"
#include "articula/constraints/joint_lock.hpp"
#include "articula/constraints/wheel_constraint.hpp"
#include "articula/io/urdf.hpp"
#include "articula/model/configuration.hpp"
#include "scenario/sections.hpp"

namespace articula::scenario_detail {
namespace fs = std::filesystem;
namespace {

bool one_dof(JointType t) {
  return t == JointType::Revolute || t == JointType::Continuous || t == JointType::Prismatic;
}

std::vector<std::string> frame_names(const Model& model) {
  std::vector<std::string> names;
  for (const Frame& f : model.frames) names.push_back(f.name);
  return names;
}

// A rotation from `orientation: [qx, qy, qz, qw]` or `rpy: [roll, pitch, yaw]` (URDF convention,
// R = Rz(yaw) Ry(pitch) Rx(roll)) in map `n`; identity when neither is given.
Matrix3 read_rotation(const Node& n) {
  const Node quat = n.get("orientation"), rpy = n.get("rpy");
  if (quat.defined() && rpy.defined()) rpy.fail("give either orientation (a quaternion) or rpy, not both");
  if (quat.defined()) {
    if (!quat.is_list() || quat.items().size() != 4) quat.expected("a unit quaternion [qx, qy, qz, qw]");
    const VectorX x = quat.numbers();
    const double norm = x.norm();
    if (!(norm > 1e-9)) quat.fail("the quaternion is zero");
    if (std::abs(norm - 1.0) > 1e-6)
      quat.fail("the quaternion [qx, qy, qz, qw] must have norm 1, has " + std::to_string(norm));
    return Quaternion(x[3], x[0], x[1], x[2]).normalized().toRotationMatrix();
  }
  if (rpy.defined()) {
    const Vector3 a = rpy.vec3();
    return (Eigen::AngleAxisd(a.z(), Vector3::UnitZ()) * Eigen::AngleAxisd(a.y(), Vector3::UnitY()) *
            Eigen::AngleAxisd(a.x(), Vector3::UnitX()))
        .toRotationMatrix();
  }
  return Matrix3::Identity();
}

// An axis mask from "xyz rxryrz"-style text (spaces ignored), or weld / point.
AxisMask read_axes(const Node& n, const AxisMask& fallback) {
  if (!n.defined()) return fallback;
  std::string text = n.text();
  text.erase(std::remove_if(text.begin(), text.end(), [](char c) { return c == ' ' || c == ','; }), text.end());
  return n.rethrow([&] { return AxisMask::parse(text); });
}

void read_motors(Build& b) {
  Robot& robot = *b.scenario.robot;
  const Model& model = robot.base_model();
  const std::vector<Node> items = b.root.get("motors").items();
  // Joints named by explicit items: `all_joints` skips them, wherever it stands in the list.
  std::vector<std::string> explicit_joints;
  for (const Node& item : items)
    if (item.is_map() && item.has("joint") && item.get("joint").is_scalar())
      explicit_joints.push_back(item.get("joint").text());
  for (const Node& item : items) {
    item.check_map({"name", "joint", "all_joints", "gear_ratio", "rotor_inertia", "effort_limit", "viscous", "coulomb",
                    "coulomb_velocity"});
    Motor m;
    m.gear_ratio = item.get("gear_ratio").positive_or(1.0);
    m.rotor_inertia = item.get("rotor_inertia").non_negative_or(0.0);
    if (const Node limit = item.get("effort_limit"); limit.defined()) {
      m.effort_limit = limit.number_or_inf();
      if (!(m.effort_limit > 0)) limit.expected("a number > 0 (or .inf for none)");
    }
    m.viscous = item.get("viscous").non_negative_or(0.0);
    m.coulomb = item.get("coulomb").non_negative_or(0.0);
    m.coulomb_velocity = item.get("coulomb_velocity").positive_or(m.coulomb_velocity);
    if (const Node all = item.get("all_joints"); all.defined()) {
      if (item.has("joint") || item.has("name"))
        all.fail("all_joints names the motors itself: drop 'joint' and 'name'");
      if (!all.boolean()) continue;
      for (Index j = 0; j < model.njoints; ++j) {
        const std::string& joint = model.joint_names[j];
        if (!one_dof(model.joint_types[j]) ||
            std::find(explicit_joints.begin(), explicit_joints.end(), joint) != explicit_joints.end())
          continue;
        Motor mj = m;
        mj.name = mj.joint = joint;
        all.rethrow([&] { return robot.add_motor(mj); });
      }
      continue;
    }
    const Node joint = item.need("joint", "the joint the motor drives");
    m.joint = joint.text();
    joint_named(model, joint, m.joint);
    m.name = item.has("name") ? item.get("name").text() : m.joint;
    (item.has("name") ? item.get("name") : joint).rethrow([&] { return robot.add_motor(m); });
  }
}

Surface read_surface(const Node& n) {
  if (!n.defined()) return Surface::ground();
  if (n.is_scalar()) {
    n.one_of({"ground"});
    return Surface::ground();
  }
  const std::string type = n.need("type", "ground or plane").one_of({"ground", "plane"});
  if (type == "ground") {
    n.check_map({"type", "height"});
    return Surface::ground(n.get("height").number_or(0.0));
  }
  n.check_map({"type", "point", "normal"});
  const Node normal = n.need("normal", "the outward normal [x, y, z]");
  const Vector3 nv = normal.vec3();
  if (!(nv.norm() > 1e-12)) normal.fail("the normal must not be zero");
  return Surface::plane(n.need("point", "a point of the plane [x, y, z]").vec3(), nv);
}

void read_contacts(Build& b) {
  Robot& robot = *b.scenario.robot;
  for (const Node& item : b.root.get("contacts").items()) {
    item.check_map({"name", "frame", "offset", "surface", "stiffness", "damping", "friction", "slip_velocity"});
    ElasticContact c;
    const Node frame = item.need("frame", "the frame carrying the contact point");
    c.frame = frame.text();
    frame_named(robot.model(), frame, c.frame);
    c.name = item.has("name") ? item.get("name").text() : c.frame;
    c.offset = item.get("offset").vec3_or(Vector3::Zero());
    c.surface = read_surface(item.get("surface"));
    c.stiffness = item.get("stiffness").positive_or(c.stiffness);
    c.damping = item.get("damping").non_negative_or(c.damping);
    c.friction = item.get("friction").non_negative_or(c.friction);
    c.slip_velocity = item.get("slip_velocity").positive_or(c.slip_velocity);
    item.rethrow([&] { return robot.add_contact(c); });
  }
}

std::shared_ptr<Constraint> make_constraint(const Model& model, const Node& item, const std::string& type,
                                            const std::string& name) {
  // Each type checks its keys: the common ones (name, type, enabled, stabilization) and its own.
  auto frame_of = [&](const char* key, const char* what) {
    const Node n = item.need(key, what);
    const std::string f = n.text();
    frame_named(model, n, f);
    return f;
  };
  if (type == "frame") {
    item.check_map({"name", "type", "enabled", "stabilization", "frame", "axes", "reference"});
    const std::string frame = frame_of("frame", "the frame held in the world");
    const AxisMask mask = read_axes(item.get("axes"), AxisMask::weld());
    std::optional<Transform> reference;
    if (const Node r = item.get("reference"); r.defined()) {
      r.check_map({"position", "orientation", "rpy"});
      reference = Transform{read_rotation(r), r.get("position").vec3_or(Vector3::Zero())};
    }
    return std::make_shared<FrameConstraint>(name, frame, mask, reference);
  }
  if (type == "loop") {
    item.check_map({"name", "type", "enabled", "stabilization", "frame_a", "frame_b", "axes"});
    const std::string a = frame_of("frame_a", "the first frame");
    const std::string fb = frame_of("frame_b", "the second frame");
    return std::make_shared<LoopConstraint>(name, a, fb, read_axes(item.get("axes"), AxisMask::point()));
  }
  if (type == "distance") {
    item.check_map({"name", "type", "enabled", "stabilization", "frame_a", "frame_b", "distance"});
    const std::string a = frame_of("frame_a", "the first frame");
    const std::string fb = frame_of("frame_b", "the second frame");
    std::optional<double> d;
    if (item.has("distance")) d = item.get("distance").positive();
    return std::make_shared<DistanceConstraint>(name, a, fb, d);
  }
  if (type == "joint_lock") {
    item.check_map({"name", "type", "enabled", "stabilization", "joints", "positions"});
    const Node joints = item.need("joints", "a list of joint names");
    std::vector<std::string> names;
    if (joints.is_scalar()) {
      names.push_back(joints.text());
      joint_named(model, joints, names.back());
    }
    for (const Node& j : joints.is_scalar() ? std::vector<Node>{} : joints.items()) {
      names.push_back(j.text());
      joint_named(model, j, names.back());
    }
    if (names.empty()) joints.expected("at least one joint");
    std::optional<VectorX> positions;
    if (const Node p = item.get("positions"); p.defined()) {
      positions = p.numbers();
      int nq = 0;
      for (const auto& j : names) nq += model.nq_joint[model.joint_id(j)];
      if (positions->size() != nq)
        p.fail("expected " + std::to_string(nq) + " positions (the q of the locked joints), got " +
               std::to_string(positions->size()));
    }
    return std::make_shared<JointLock>(model, name, names, positions);
  }
  // wheel
  item.check_map({"name", "type", "enabled", "stabilization", "frame", "radius", "axis", "normal", "height"});
  const std::string frame = frame_of("frame", "the frame at the wheel's centre");
  const double radius = item.need("radius", "the wheel radius [m]").positive();
  const Node axis_node = item.need("axis", "the spin axis in the wheel frame [x, y, z]");
  const Vector3 axis = axis_node.vec3();
  if (!(axis.norm() > 1e-12)) axis_node.fail("the axis must not be zero");
  const Node normal_node = item.get("normal");
  const Vector3 normal = normal_node.vec3_or(Vector3::UnitZ());
  if (!(normal.norm() > 1e-12)) normal_node.fail("the normal must not be zero");
  return std::make_shared<WheelConstraint>(name, frame, radius, axis.normalized(), normal.normalized(),
                                           item.get("height").number_or(0.0));
}

void read_constraints(Build& b) {
  Robot& robot = *b.scenario.robot;
  for (const Node& item : b.root.get("constraints").items()) {
    if (!item.is_map()) item.expected("a map");
    const Node name_node = item.need("name", "the constraint's name");
    const std::string name = name_node.text();
    if (robot.constraints().contains(name)) name_node.fail("a constraint named '" + name + "' is defined twice");
    const std::string type = item.need("type", "frame, loop, distance, joint_lock or wheel")
                                 .one_of({"frame", "loop", "distance", "joint_lock", "wheel"});
    // The constructors' own checks (e.g. a loop from a frame to itself) located at the item.
    std::shared_ptr<Constraint> c = item.rethrow([&] { return make_constraint(robot.model(), item, type, name); });
    if (const Node hz = item.get("stabilization"); hz.defined()) {
      const double f = hz.non_negative();
      hz.rethrow([&] { c->set_baumgarte_frequency(f); });
    }
    const bool enabled = item.get("enabled").boolean_or(true);
    item.rethrow([&] { robot.constraints().add(c, enabled); });
  }
}

void read_sensors(Build& b) {
  Robot& robot = *b.scenario.robot;
  for (const Node& item : b.root.get("sensors").items()) {
    item.check_map({"name", "type", "target"});
    Sensor s;
    s.name = item.need("name", "the sensor's name").text();
    const Node type = item.need("type", "encoder, effort, imu, force_torque or position");
    s.type = parse_sensor_type(type.one_of({"encoder", "effort", "imu", "force_torque", "position"}));
    const Node target = item.need("target", "the joint, motor, frame, contact or frame constraint it reads");
    s.target = target.text();
    target.rethrow([&] { return robot.add_sensor(s); });
  }
}

}  // namespace

Index joint_named(const Model& model, const Node& at, const std::string& name) {
  if (!model.has_joint(name))
    at.fail("unknown joint '" + name + "' in model '" + model.name + "'; valid joints: " + join(model.joint_names));
  return model.joint_id(name);
}

Index frame_named(const Model& model, const Node& at, const std::string& name) {
  if (!model.has_frame(name))
    at.fail("unknown frame '" + name + "' in model '" + model.name + "'; valid frames: " + join(frame_names(model)));
  return model.frame_id(name);
}

void read_model(Build& b) {
  const Node model = b.root.need("model", "the robot: {urdf: PATH, base: fixed|floating}");
  Node urdf = model;
  bool floating = false;
  if (!model.is_scalar()) {
    model.check_map({"urdf", "base"});
    urdf = model.need("urdf", "the URDF path (relative to the scenario file)");
    floating = model.get("base").defined() && model.get("base").one_of({"fixed", "floating"}) == "floating";
  }
  fs::path path = urdf.text();
  if (path.is_relative() && !b.base_dir.empty()) path = fs::path(b.base_dir) / path;
  path = path.lexically_normal();
  if (const std::string problem = input_file_problem(path.string()); problem == "not found")
    urdf.fail("model file not found: " + path.string());
  else if (!problem.empty())
    urdf.fail("cannot read the model file " + path.string() + " (" + problem + ")");
  b.scenario.model_file = path.string();
  b.scenario.robot = urdf.rethrow([&] {
    return std::make_unique<Robot>(load_urdf(path.string(), floating ? BaseType::Floating : BaseType::Fixed));
  });
  if (const Node g = b.root.get("gravity"); g.defined()) {
    const Vector3 gravity = g.vec3();
    b.scenario.robot->set_gravity(gravity);
  }
}

void read_hardware(Build& b) {
  read_motors(b);
  read_contacts(b);
  read_constraints(b);
  read_sensors(b);
}

void read_initial(Build& b) {
  const Model& model = b.scenario.robot->model();
  VectorX q = neutral(model), v = VectorX::Zero(model.nv);
  const Node initial = b.root.get("initial");
  if (initial.defined()) initial.check_map({"q", "v", "base"});
  // q and v by joint name: a number for a 1-dof joint, a list for the others.
  for (const bool velocity : {false, true}) {
    for (const Node::Entry& e : initial.get(velocity ? "v" : "q").entries()) {
      const Index j = joint_named(model, e.key_node, e.key);
      const int n = velocity ? model.nv_joint[j] : model.nq_joint[j];
      const int start = velocity ? model.idx_v[j] : model.idx_q[j];
      if (n == 1) {
        (velocity ? v : q)[start] = e.value.number();
        continue;
      }
      if (!e.value.is_list() || e.value.items().size() != static_cast<std::size_t>(n))
        e.value.expected("a list of " + std::to_string(n) + " numbers (joint '" + e.key + "' has " + std::to_string(n) +
                         (velocity ? " velocities)" : " coordinates)"));
      (velocity ? v : q).segment(start, n) = e.value.numbers();
    }
  }
  if (const Node base = initial.get("base"); base.defined()) {
    base.check_map({"position", "orientation", "rpy", "linear_velocity", "angular_velocity"});
    if (model.njoints == 0 || model.joint_types[0] != JointType::FreeFlyer)
      base.fail("the model has a fixed base (set model.base: floating for a free-flying base)");
    const int iq = model.idx_q[0], iv = model.idx_v[0];
    // The base given twice (q.<root> and base) would drop one of them silently.
    for (const bool velocity : {false, true})
      if (initial.get(velocity ? "v" : "q").has(model.joint_names[0]))
        base.fail("the base state is given twice: in initial." + std::string(velocity ? "v." : "q.") +
                  model.joint_names[0] + " and here; keep one");
    if (base.has("position")) q.segment<3>(iq) = base.get("position").vec3();
    if (base.has("orientation") || base.has("rpy")) {
      const Quaternion quat(read_rotation(base));
      q.segment<4>(iq + 3) << quat.x(), quat.y(), quat.z(), quat.w();
    }
    if (base.has("linear_velocity")) v.segment<3>(iv) = base.get("linear_velocity").vec3();
    if (base.has("angular_velocity")) v.segment<3>(iv + 3) = base.get("angular_velocity").vec3();
  }
  initial.rethrow([&] { normalize(model, q); });
  b.scenario.q0 = q;
  b.scenario.v0 = v;
}

}  // namespace articula::scenario_detail
