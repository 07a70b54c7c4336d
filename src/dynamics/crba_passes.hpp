#pragma once
/// The composite-rigid-body algorithm (RBDA §6.2, Table 6.2), written once, generic over the
/// scalar S, the coordinates C and the workspace W (ADR 0003): Data in world coordinates for the
/// runtime (crba.cpp), the code generator's workspace of symbols in body coordinates
/// (codegen/recursions.cpp). W holds liMi, J, Ycrb and M (and oMi in world coordinates).
#include <cassert>

#include "dynamics/joint_motion.hpp"

namespace articula {

/// Pass 2 (leaves to root), given body i's own inertia in data.Ycrb[i] and its columns in data.J
/// (both in coordinates C): when i is reached, Iᶜ_i holds its whole subtree. F = Iᶜ_i J_i,k;
/// H_kk = J_kᵀ F + armature_k; H_jk = H_kj = J_jᵀ F for the ancestor dofs j of k (which include
/// the earlier dofs of a multi-dof joint). In world coordinates (as Pinocchio; Carpentier &
/// Mansard, RSS 2018; RBDA §6.2 notes any coordinates may be used) F needs no transform along
/// the path, and Iᶜ_λ += Iᶜ_i; in body coordinates F is carried to each ancestor's frame by
/// ʲX_i* and Iᶜ_λ += λX_i* Iᶜ_i ⁱX_λ. M's entries outside the tree's pattern are not written.
template <typename S, Coordinates C, typename W>
static void crba_composite_pass(const Model& model, W& data) {
  const auto& J = data.J;
  auto& M = data.M;
  for (Index i = model.njoints - 1; i >= 0; --i) {
    const int iv = model.idx_v[i], ni = model.nv_joint[i];
    const InertiaTpl<S>& Ic = data.Ycrb[i];
    for (int k = iv; k < iv + ni; ++k) {
      const auto s = J.col(k);
      const MotionTpl<S> sk{s.template head<3>(), s.template tail<3>()};
      ForceTpl<S> F = Ic * sk;
      M(k, k) = sk.dot(F) + model.armature[k];
      // The ancestors of dof k, nearest first, as one contiguous list (model.ancestors_of(k)): the
      // loop reads the next index from memory, not through a chain of λ loads, so the dot
      // products overlap.
      const int* anc = model.ancestors_of(k);
      const int* anc_end = anc + model.ancestor_count(k);
      [[maybe_unused]] Index frame = i;  // the joint whose coordinates F is in (body coordinates)
      for (; anc != anc_end; ++anc) {
        const int j = *anc;
        if constexpr (C == Coordinates::Body)
          for (; frame != model.dof_joint[j]; frame = model.parents[frame]) {
            assert(frame != kWorld && "ancestors_of(k) lists k's ancestors along the tree");
            F = data.liMi[frame].act(F);
          }
        const auto sj = J.col(j);
        const S Hjk = sj.template head<3>().dot(F.f) + sj.template tail<3>().dot(F.n);
        M(j, k) = Hjk;
        M(k, j) = Hjk;
      }
    }
    const Index p = model.parents[i];
    if (p == kWorld) continue;
    if constexpr (C == Coordinates::World)
      data.Ycrb[p] += Ic;
    else
      data.Ycrb[p] += Ic.transformed(data.liMi[i]);
  }
}

/// CRBA: pass 1 (root to leaves) places the joints and writes each body's columns and inertia in
/// coordinates C, then crba_composite_pass. Neither is flattened here: the runtime's entry points
/// are (crba.cpp).
template <typename S, Coordinates C, typename W, typename Q>
static void crba_passes(const Model& model, W& data, Q q) {
  for (Index i = 0; i < model.njoints; ++i) {
    const auto& X = place_joint(model, data, q, i);
    joint_columns<C>(model, i, X, data.J);
    if constexpr (C == Coordinates::World)
      data.Ycrb[i] = model.inertias[i].transformed(X);
    else
      data.Ycrb[i] = model.inertias[i].template cast<S>();
  }
  crba_composite_pass<S, C>(model, data);
}

}  // namespace articula
