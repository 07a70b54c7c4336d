#pragma once
/// Builds a Model in code: add bodies one at a time, each on a joint to an
/// existing parent (or the world). Bodies may be added in any tree order; build()
/// renumbers them depth-first.
#include <limits>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "articula/model/model.hpp"

namespace articula {

struct JointLimits {
  double lower = -std::numeric_limits<double>::infinity();
  double upper = std::numeric_limits<double>::infinity();
  double velocity = std::numeric_limits<double>::infinity();
  double effort = std::numeric_limits<double>::infinity();
  double damping = 0.0;
  double friction = 0.0;
  double armature = 0.0;
};

class ModelBuilder {
 public:
  explicit ModelBuilder(std::string model_name = "model");
  /// Adds a body carried by a joint. parent is a body name added before, or "" for the world.
  /// joint_placement is the joint frame in the parent body frame; axis is normalized.
  /// Throws std::invalid_argument on a duplicate name, unknown parent, zero axis,
  /// or an invalid inertia (negative mass, inertia not positive semi-definite).
  ModelBuilder& add_body(const std::string& body_name, const std::string& parent, const std::string& joint_name,
                         JointType type, const Transform& joint_placement, const Vector3& axis, const Inertia& inertia,
                         const JointLimits& limits = {});
  /// Rigidly attaches a link to a body (a fixed joint): its inertia is merged into
  /// the parent body, its frame is kept (FrameType::FixedLink), and a joint frame too.
  ModelBuilder& add_fixed_link(const std::string& link_name, const std::string& parent, const std::string& joint_name,
                               const Transform& placement, const Inertia& inertia);
  /// Adds an extra frame to a body or to a fixed link, or to the world ("").
  ModelBuilder& add_frame(const std::string& frame_name, const std::string& parent, const Transform& placement);
  ModelBuilder& set_gravity(const Vector3& g);
  Model build() const;

 private:
  struct PendingBody {
    std::string name, parent, joint;
    JointType type;
    Transform placement;
    Vector3 axis;
    Inertia inertia;
    JointLimits limits;
  };
  struct PendingFrame {
    std::string name, parent, joint;  // joint non-empty for fixed links
    Transform placement;
    Inertia inertia;
    FrameType type;
  };
  struct NameRef {
    bool body;  // a body (index into bodies_) or a frame / fixed link (index into frames_)
    int index;
  };
  bool name_taken(const std::string& n) const;
  bool joint_taken(const std::string& j) const;
  std::string name_;
  std::unordered_map<std::string, NameRef> names_;  // every body, fixed link and frame
  std::unordered_set<std::string> body_joints_;     // joints of the bodies
  std::unordered_set<std::string> fixed_joints_;    // the non-empty joints of fixed links
  std::vector<PendingBody> bodies_;
  std::vector<PendingFrame> frames_;
  Vector3 gravity_{0, 0, -9.81};
};

/// Checks a rigid-body inertia: mass ≥ 0, finite, rotational inertia about the
/// centre of mass symmetric positive semi-definite and satisfying the triangle
/// inequality. Returns an empty string when valid, otherwise what is wrong.
std::string inertia_problem(const Inertia& inertia);

}  // namespace articula
