#pragma once
/// Forward kinematics, written once, generic over the scalar S, the workspace W and the
/// configuration Q (ADR 0003): the runtime's forward_kinematics (kinematics.cpp, on Data) and the
/// generated kernels' constraint rows and body states (codegen/constrained.cpp, on Sym) run this
/// pass. W holds liMi, oMi, v and a (Data's members of those names).
#include "dynamics/joint_motion.hpp"

namespace articula {

/// One root-to-leaves pass (RBDA §4.1, eqs. 4.1–4.8): placements, and with Level ≥ 1 body
/// velocities v_i = ⁱX_λ v_λ + S q̇, with Level 2 accelerations a_i = ⁱX_λ a_λ + S q̈ + v_i × S q̇
/// (a = nullptr: q̈ = 0, the bias accelerations behind the drift J̇ v), in body coordinates.
/// Joint placements go through joint_placement() (the axis-aligned fast path). Not flattened
/// here: the runtime's entry points are (kinematics.cpp).
template <int Level, typename S, typename W, typename Q>
void kinematics_pass(const Model& model, W& data, Q q, const S* v, const S* a) {
  using Vec = Eigen::Matrix<S, Eigen::Dynamic, 1>;
  for (Index i = 0; i < model.njoints; ++i) {
    place_joint(model, data, q, i);
    const auto& X = data.liMi[i];
    const Index p = model.parents[i];
    if constexpr (Level >= 1) {
      MotionTpl<S>& vi = data.v[i];
      const int k = joint_axis_index(model, i);
      const int iv = model.idx_v[i];
      if (k >= 0) {
        // Axis ±e_k: S q̇ has one entry σ q̇ in the angular (revolute) or linear (prismatic)
        // half, and v_i × S q̇ is a swap of two components (add_axis_joint_motion).
        if (p == kWorld)
          vi = MotionTpl<S>::Zero();
        else
          vi = X.act_inv(data.v[p]);
        MotionTpl<S>* ai = nullptr;
        if constexpr (Level >= 2) {
          ai = &data.a[i];
          if (p == kWorld)
            *ai = MotionTpl<S>::Zero();
          else
            *ai = X.act_inv(data.a[p]);
        }
        add_axis_joint_motion<true>(model, i, k, v[iv], a != nullptr ? a + iv : nullptr, vi, ai);
        continue;
      }
      const Eigen::Map<const Vec> vv(v, model.nv);
      const MotionTpl<S> vJ = joint_motion(model, i, vv);
      vi = p == kWorld ? vJ : X.act_inv(data.v[p]) + vJ;
      if constexpr (Level >= 2) {
        MotionTpl<S>& ai = data.a[i];
        ai = vi.cross(vJ);
        if (p != kWorld) ai += X.act_inv(data.a[p]);
        if (a != nullptr) ai += joint_motion(model, i, Eigen::Map<const Vec>(a, model.nv));
      }
    }
  }
}

}  // namespace articula
