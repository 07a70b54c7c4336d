#pragma once
/// Products with a joint's motion subspace S_i (model.S columns), shared by the recursions.
#include "articula/model/model.hpp"

namespace articula {

/// S_i x_i: the joint's spatial motion for the joint's slice of a velocity-like vector x (size nv).

template <typename Vec>
inline Motion joint_motion(const Model& model, Index i, const Vec& x) {
  const int iv = model.idx_v[i];
  const int n = model.nv_joint[i];
  if (n == 1) return Motion::from(model.S.col(iv) * x[iv]);
  return Motion::from(model.S.middleCols(iv, n) * x.segment(iv, n));
}

/// S_iᵀ f written into out[idx_v(i) ...].
template <typename Vec>
inline void joint_project(const Model& model, Index i, const Force& f, Vec&& out) {
  const int iv = model.idx_v[i];
  const int n = model.nv_joint[i];
  const Vector6 fv = f.vector();
  if (n == 1)
    out[iv] = model.S.col(iv).dot(fv);
  else
    out.segment(iv, n) = model.S.middleCols(iv, n).transpose() * fv;
}

}  // namespace articula
