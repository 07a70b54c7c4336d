#pragma once
/// The runtime's inputs to the shared row formulas (row_formulas.hpp): a frame's motion and
/// Jacobian columns read from Data (forward kinematics with the bias accelerations, and the
/// world joint columns Data::J), and the dofs that move a frame.
#include <vector>

#include "articula/model/data.hpp"
#include "articula/model/model.hpp"
#include "constraints/row_formulas.hpp"

namespace articula {

/// The motion of frame `id` (id < 0: the world) from data.oMi, data.v and data.a.
inline rows::FrameMotion<double> frame_motion(const Model& model, const Data& data, Index id) {
  rows::FrameMotion<double> m;
  if (id < 0) return m;
  const Frame& f = model.frames[id];
  if (f.parent == kWorld) {
    m.p = f.placement.p;
    m.R = f.placement.R;
    return m;
  }
  return rows::frame_motion<double>(data.oMi[f.parent], data.v[f.parent], data.a[f.parent], f.placement);
}

/// (nv) 1 for the dofs that move frame `id` (none for the world or a frame on it).
inline std::vector<char> frame_support(const Model& model, Index id) {
  std::vector<char> support(static_cast<std::size_t>(model.nv), 0);
  if (id < 0) return support;
  for (Index j = model.frames[id].parent; j != kWorld; j = model.parents[j])
    for (int c = model.idx_v[j]; c < model.idx_v[j] + model.nv_joint[j]; ++c) support[static_cast<std::size_t>(c)] = 1;
  return support;
}

/// Column c of the local-world-aligned Jacobian of a frame with origin p that dof c moves (zero
/// for the dofs off its support, frame_support()).
ARTICULA_ALWAYS_INLINE Vector6 frame_column(const Data& data, Index c, const Vector3& p) {
  const auto col = data.J.col(c);
  return rows::origin_column<double>(col.head<3>(), col.tail<3>(), p);
}

}  // namespace articula
