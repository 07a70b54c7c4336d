#pragma once
/// Loading a Model from URDF (parsed by urdfdom).
#include <string>

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

}  // namespace articula
