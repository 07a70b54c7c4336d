#include "articula/io/urdf.hpp"

#include <console_bridge/console.h>
#include <urdf_parser/urdf_parser.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "articula/model/model_builder.hpp"
#include "io/urdf_check.hpp"

namespace articula {
namespace {

// Collects urdfdom's console_bridge messages during one parse, so that they can
// be put into the exception instead of being printed.
class CaptureHandler : public console_bridge::OutputHandler {
 public:
  void log(const std::string& text, console_bridge::LogLevel level, const char*, int) override {
    if (level >= console_bridge::CONSOLE_BRIDGE_LOG_WARN) messages += (messages.empty() ? "" : "; ") + text;
  }
  std::string messages;
};

class ScopedCapture {
 public:
  ScopedCapture() { console_bridge::useOutputHandler(&handler); }
  ~ScopedCapture() { console_bridge::restorePreviousOutputHandler(); }
  CaptureHandler handler;
};

[[noreturn]] void fail(const std::string& source, const std::string& what) {
  throw std::runtime_error("load_urdf: " + source + ": " + what);
}

Transform to_transform(const urdf::Pose& pose) {
  double x, y, z, w;
  pose.rotation.getQuaternion(x, y, z, w);
  return {Quaternion(w, x, y, z).normalized().toRotationMatrix(),
          Vector3(pose.position.x, pose.position.y, pose.position.z)};
}

Inertia to_inertia(const urdf::Link& link, const std::string& source) {
  if (!link.inertial) return Inertia::Zero();
  const urdf::Inertial& in = *link.inertial;
  Matrix3 I;
  I << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz, in.izz;
  const Transform X = to_transform(in.origin);
  const Inertia inertia = Inertia::from_com(in.mass, X.p, X.R * I * X.R.transpose());
  const std::string problem = inertia_problem(inertia);
  if (!problem.empty()) fail(source, "link '" + link.name + "' <inertial>: " + problem);
  return inertia;
}

// The checked text parsed by urdfdom, its warnings in the exception.
urdf::ModelInterfaceSharedPtr parse(const std::string& xml, const std::string& source) {
  // Before urdfdom sees the text: bytes, depth, names, '%' and numbers (urdf_check.hpp).
  detail::check_urdf_text(xml, source);
  urdf::ModelInterfaceSharedPtr robot;
  std::string messages;
  {
    ScopedCapture capture;
    try {
      robot = urdf::parseURDF(xml);
    } catch (const std::exception& e) {
      fail(source, std::string("urdfdom: ") + e.what());
    }
    messages = capture.handler.messages;
  }
  if (!robot) fail(source, messages.empty() ? "not a valid URDF" : messages);
  if (!robot->getRoot()) fail(source, "no root link");
  return robot;
}

std::string read_file(const std::string& path) {
  if (!std::filesystem::exists(path)) fail(path, "file not found");
  if (std::filesystem::is_directory(path)) fail(path, "a directory, not a URDF file");
  std::ifstream in(path);
  if (!in) fail(path, "cannot open file");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

Model load_urdf_string(const std::string& xml, BaseType base, const std::string& source) {
  const urdf::ModelInterfaceSharedPtr robot = parse(xml, source);

  ModelBuilder builder(robot->getName().empty() ? source : robot->getName());
  const urdf::LinkConstSharedPtr root = robot->getRoot();
  const Inertia root_inertia = to_inertia(*root, source);
  if (base == BaseType::Floating) {
    builder.add_body(root->name, "", "root_joint", JointType::FreeFlyer, Transform::Identity(), Vector3::Zero(),
                     root_inertia);
  } else {
    builder.add_fixed_link(root->name, "", "", Transform::Identity(), root_inertia);
  }

  // Walk the tree from the root, in the file's child order.
  std::vector<urdf::LinkConstSharedPtr> stack{root};
  std::set<std::string> seen{root->name};
  while (!stack.empty()) {
    const urdf::LinkConstSharedPtr link = stack.back();
    stack.pop_back();
    // Push in reverse so that children are visited in file order.
    for (auto it = link->child_joints.rbegin(); it != link->child_joints.rend(); ++it) {
      const urdf::Joint& j = **it;
      const urdf::LinkConstSharedPtr child = robot->getLink(j.child_link_name);
      if (!child) fail(source, "joint '" + j.name + "': child link '" + j.child_link_name + "' not found");
      if (!seen.insert(child->name).second)
        fail(source, "joint '" + j.name + "': link '" + child->name + "' is reached twice (a kinematic loop)");
      if (j.mimic) fail(source, "joint '" + j.name + "': <mimic> is not supported");
      const Transform X = to_transform(j.parent_to_joint_origin_transform);
      const Inertia inertia = to_inertia(*child, source);
      const Vector3 axis(j.axis.x, j.axis.y, j.axis.z);
      JointLimits lim;
      if (j.limits) {
        lim.lower = j.limits->lower;
        lim.upper = j.limits->upper;
        lim.velocity = j.limits->velocity > 0 ? j.limits->velocity : lim.velocity;
        lim.effort = j.limits->effort > 0 ? j.limits->effort : lim.effort;
      }
      if (j.dynamics) {
        lim.damping = j.dynamics->damping;
        lim.friction = j.dynamics->friction;
      }
      try {
        switch (j.type) {
          case urdf::Joint::REVOLUTE:
          case urdf::Joint::CONTINUOUS:
          case urdf::Joint::PRISMATIC: {
            const JointType type = j.type == urdf::Joint::REVOLUTE     ? JointType::Revolute
                                   : j.type == urdf::Joint::CONTINUOUS ? JointType::Continuous
                                                                       : JointType::Prismatic;
            if (type == JointType::Continuous) {
              lim.lower = -std::numeric_limits<double>::infinity();
              lim.upper = std::numeric_limits<double>::infinity();
            }
            if (type != JointType::Continuous && !j.limits)
              fail(source, "joint '" + j.name + "': a " + std::string(to_string(type)) + " joint needs <limit>");
            builder.add_body(child->name, link->name, j.name, type, X, axis, inertia, lim);
            break;
          }
          case urdf::Joint::FIXED:
            builder.add_fixed_link(child->name, link->name, j.name, X, inertia);
            break;
          case urdf::Joint::FLOATING:
            fail(source,
                 "joint '" + j.name + "': type 'floating' is only supported at the root (load with a floating base)");
          case urdf::Joint::PLANAR:
            fail(source, "joint '" + j.name + "': type 'planar' is not supported");
          default:
            fail(source, "joint '" + j.name + "': unknown joint type");
        }
      } catch (const std::invalid_argument& e) {
        fail(source, std::string("joint '") + j.name + "': " + e.what());
      }
      stack.push_back(child);
    }
  }
  if (seen.size() != robot->links_.size()) {
    for (const auto& [name, l] : robot->links_)
      if (!seen.count(name)) fail(source, "link '" + name + "' is not connected to the root '" + root->name + "'");
  }
  return builder.build();
}

Model load_urdf(const std::string& path, BaseType base) { return load_urdf_string(read_file(path), base, path); }

std::vector<UrdfVisual> load_urdf_visuals_string(const std::string& xml, const Model& model,
                                                 const std::string& source) {
  const urdf::ModelInterfaceSharedPtr robot = parse(xml, source);
  std::vector<UrdfVisual> out;
  std::vector<urdf::LinkSharedPtr> links;
  robot->getLinks(links);
  for (const urdf::LinkSharedPtr& link : links) {
    if (link->visual_array.empty()) continue;
    // Every link is a frame of the model (load_urdf): its body and its pose there.
    const auto it = std::find_if(model.frames.begin(), model.frames.end(), [&](const Frame& f) {
      return f.name == link->name && (f.type == FrameType::Body || f.type == FrameType::FixedLink);
    });
    if (it == model.frames.end())
      fail(source, "link '" + link->name + "' is not a body or fixed link of model '" + model.name + "'");
    for (const urdf::VisualSharedPtr& v : link->visual_array) {
      if (!v || !v->geometry) continue;
      UrdfVisual u;
      u.link = link->name;
      u.joint = it->parent;
      u.placement = it->placement * to_transform(v->origin);
      switch (v->geometry->type) {
        case urdf::Geometry::BOX: {
          const auto& b = static_cast<const urdf::Box&>(*v->geometry);
          u.shape = UrdfVisual::Shape::Box;
          u.size = Vector3(b.dim.x, b.dim.y, b.dim.z);
          break;
        }
        case urdf::Geometry::CYLINDER: {
          const auto& c = static_cast<const urdf::Cylinder&>(*v->geometry);
          u.shape = UrdfVisual::Shape::Cylinder;
          u.size = Vector3(c.radius, c.length, 0.0);
          break;
        }
        case urdf::Geometry::SPHERE:
          u.shape = UrdfVisual::Shape::Sphere;
          u.size = Vector3(static_cast<const urdf::Sphere&>(*v->geometry).radius, 0.0, 0.0);
          break;
        case urdf::Geometry::MESH: {
          const auto& m = static_cast<const urdf::Mesh&>(*v->geometry);
          u.shape = UrdfVisual::Shape::Mesh;
          u.size = Vector3(m.scale.x, m.scale.y, m.scale.z);
          u.mesh = m.filename;
          break;
        }
      }
      if (v->material) {
        const urdf::Color& c = v->material->color;
        u.rgba = {c.r, c.g, c.b, c.a};
      }
      out.push_back(std::move(u));
    }
  }
  return out;
}

std::vector<UrdfVisual> load_urdf_visuals(const std::string& path, const Model& model) {
  return load_urdf_visuals_string(read_file(path), model, path);
}

}  // namespace articula
