#pragma once
/// The RNEA passes (RBDA §5.3, Table 5.1), written once, generic over the scalar S and the
/// workspace W (Data for the runtime, rnea.cpp; the code generator's workspace of symbols,
/// codegen/recursions.cpp, which traces these same lines into the generated kernels).
/// W holds liMi, v, a_gf and f (and oMi, kept current when W has it) as spatial types of S.
/// The vectors are views (Eigen::Ref) taken by value, as the runtime's signatures take them.
#include <span>

#include "articula/common/check.hpp"
#include "dynamics/joint_motion.hpp"

namespace articula {

// RNEA pass 2 (leaves to root): τ_i = S_iᵀ f_i, f_λ += λX_i* f_i (data.f is consumed).
template <typename S, typename W, typename Tau>
ARTICULA_ALWAYS_INLINE void rnea_backward_pass(const Model& model, W& data, Tau tau) {
  for (Index i = model.njoints - 1; i >= 0; --i) {
    const ForceTpl<S>& fi = data.f[i];
    const int k = joint_axis_index(model, i);
    if (k >= 0) {
      const int iv = model.idx_v[i];
      tau[iv] = model.axes[i][k] * (is_revolute(model.joint_types[i]) ? fi.n[k] : fi.f[k]);
    } else {
      joint_project(model, i, fi, tau);
    }
    const Index p = model.parents[i];
    if (p != kWorld) data.f[p] += data.liMi[i].act(fi);
  }
}

// RNEA with gravity as a fictitious base acceleration a_0 = −g (RBDA §5.3, Table 5.1), in
// body coordinates. with_velocity = false drops every velocity product (for M v and g).
// Joints about ±e_k (model.axis_index) take a sparse path: S q̇ has one non-zero entry σ q̇
// in row k of the angular (revolute) or linear (prismatic) half, v × S q̇ is a swap of two
// components (RBDA eq. 2.31), and S_iᵀ f picks one component of f. Every branch depends on
// the model's structure only, never on the values.
// Internal linkage (static): each including file gets its own copy, which g++ may specialize for
// its call sites (constant with_gravity, empty f_ext), as it did when this lived in rnea.cpp.
// Not flattened here: the runtime's entry point is (rnea.cpp); flattened on the generator's
// scalar it took minutes to compile under the sanitizers.
template <typename S, bool with_velocity, typename W, typename Q, typename V, typename A, typename Tau>
static void rnea_passes(const Model& model, W& data, Q q, V v, A a, bool with_gravity,
                        std::span<const ForceTpl<S>> f_ext, Tau tau) {
  ARTICULA_CHECK_SIZE(q, model.nq);
  ARTICULA_CHECK_SIZE(v, model.nv);
  ARTICULA_CHECK_SIZE(a, model.nv);
  ARTICULA_CHECK(f_ext.empty() || f_ext.size() == static_cast<std::size_t>(model.njoints),
                 "f_ext has " << f_ext.size() << " forces, expected 0 or " << model.njoints);
  const MotionTpl<S> a0 = with_gravity ? MotionTpl<S>(as_scalar<S>(-model.gravity)) : MotionTpl<S>::Zero();
  const int nb = model.njoints;
  // Pass 1 (root to leaves): v_i = ⁱX_λ v_λ + S q̇, a_i = ⁱX_λ a_λ + S q̈ + v_i × S q̇,
  // f_i = I_i a_i + v_i ×* I_i v_i − f_ext,i.
  for (Index i = 0; i < nb; ++i) {
    place_joint(model, data, q, i);
    const TransformTpl<S>& X = data.liMi[i];
    const Index p = model.parents[i];
    const auto& I = as_scalar<S>(model.inertias[i]);
    MotionTpl<S>& vi = data.v[i];
    MotionTpl<S>& ai = data.a_gf[i];
    if (with_velocity) {
      if (p == kWorld)
        vi = MotionTpl<S>::Zero();
      else
        vi = X.act_inv(data.v[p]);
    }
    ai = X.act_inv(p == kWorld ? a0 : data.a_gf[p]);
    const int k = joint_axis_index(model, i);
    const int iv = model.idx_v[i];
    if (k >= 0) {
      const S qdd = a[iv];
      add_axis_joint_motion<with_velocity, S>(model, i, k, v[iv], &qdd, vi, &ai);
    } else {
      ai += joint_motion(model, i, a);
      if (with_velocity) {
        const MotionTpl<S> vJ = joint_motion(model, i, v);
        vi += vJ;
        ai += vi.cross(vJ);
      }
    }
    ForceTpl<S>& fi = data.f[i];
    fi = I * ai;
    if (with_velocity) fi += vi.cross(I * vi);
    if (!f_ext.empty()) fi -= f_ext[i];
  }
  rnea_backward_pass<S>(model, data, tau);
  tau += model.armature.template cast<S>().cwiseProduct(a);
}

}  // namespace articula
