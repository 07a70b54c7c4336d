#pragma once
// Checks a URDF text before urdfdom parses it (docs/urdf.md, "Input checks"). urdfdom turns
// malformed numbers into 0 without a word, recurses once per XML level, and hands some
// attribute text to its logger as a printf format; these checks reject all of that first.
#include <string>

namespace articula::detail {

/// The deepest element nesting accepted (a URDF needs about 6 levels).
inline constexpr int kMaxUrdfDepth = 100;

/// Throws std::runtime_error("load_urdf: <source>: …") naming the line, the element, the
/// attribute and the bad text for: a NUL byte, invalid UTF-8, nesting deeper than
/// kMaxUrdfDepth, malformed XML, a '%' in any attribute value or text, a link or joint with
/// no name or an empty one, and any number urdfdom reads (origins, mass, inertia, axis,
/// limits, dynamics, geometry, colours) that is not a finite decimal number.
void check_urdf_text(const std::string& xml, const std::string& source);

}  // namespace articula::detail
