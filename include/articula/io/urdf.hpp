#pragma once
/// Loading a Model from URDF (parsed by urdfdom).
#include <array>
#include <string>
#include <vector>

#include "articula/model/model.hpp"

namespace articula {

enum class BaseType { Fixed, Floating };

/// Loads a URDF file. The root link is welded to the world (BaseType::Fixed) or
/// carried by a free-flyer joint named "root_joint" (BaseType::Floating).
/// Revolute, continuous and prismatic joints become joints; fixed joints merge
/// the child link into its parent body and keep the link as a frame.
/// Every link is a frame. Limits, <dynamics> damping and friction are read;
/// armature is 0 (set it with Model::set_armature).
/// @throws std::runtime_error naming the file and the element for a missing
///   file, malformed XML, an unsupported joint type (floating, planar) or a
///   <mimic> tag, negative mass, a non-positive-definite inertia, a loop, a
///   duplicate name.
Model load_urdf(const std::string& path, BaseType base = BaseType::Fixed);
/// Same, from a URDF string; `source` names it in error messages.
Model load_urdf_string(const std::string& xml, BaseType base = BaseType::Fixed, const std::string& source = "<string>");

/// One <visual> of a URDF link, for drawing (the replay viewer): a primitive, or a mesh's file.
struct UrdfVisual {
  enum class Shape { Box, Cylinder, Sphere, Mesh };
  std::string link;
  Index joint = kWorld;  ///< the body that carries it (kWorld: a fixed root)
  Transform placement;   ///< its pose in that body's frame (the link's frame · the visual's <origin>)
  Shape shape = Shape::Box;
  Vector3 size = Vector3::Zero();  ///< box: x y z; cylinder: radius, length (axis z); sphere: radius; mesh: scale
  std::string mesh;                ///< a mesh's filename as written
  std::array<double, 4> rgba{-1.0, -1.0, -1.0, -1.0};  ///< its <material> colour, or negative when none
};

/// The visuals of the URDF that `model` was loaded from (load_urdf of the same file), in the
/// file's link order. @throws std::runtime_error as load_urdf does, or naming a link that is
/// not a body or fixed link of `model`.
std::vector<UrdfVisual> load_urdf_visuals(const std::string& path, const Model& model);
/// Same, from a URDF string.
std::vector<UrdfVisual> load_urdf_visuals_string(const std::string& xml, const Model& model,
                                                 const std::string& source = "<string>");

}  // namespace articula
