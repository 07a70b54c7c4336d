#pragma once
/// Forward dynamics by the articulated-body algorithm.
#include <span>

#include "articula/model/data.hpp"

namespace articula {

/// Forward dynamics by the articulated-body algorithm (RBDA §7.3, Table 7.1),
/// with joint armature added to the articulated inertia's diagonal term D.
///
/// Computes v̇ = M(q)⁻¹ (τ − h(q, v) + Σ Jᵢᵀ fᵢ) without forming M.
/// @param q     configuration (model.nq); quaternions must be unit.
/// @param v     velocity (model.nv).
/// @param tau   joint forces (model.nv).
/// @param f_ext empty, or one spatial force per body, expressed in each body frame.
/// @post data.ddq (nv); data.liMi, oMi, v, a_gf (acceleration minus gravity, body frame);
///       data.J (6 × nv) holds the joint Jacobian columns ⁰X_i S_i, as compute_joint_jacobians(q).
/// Computed in world coordinates (Carpentier & Mansard, RSS 2018): the workspace fields
/// data.IA, pA, U, Dinv, u are in world coordinates (at the world origin).
/// @throws std::invalid_argument if a size differs from the model's.
/// Cost: O(n), no allocation.
const VectorX& aba(const Model& model, Data& data, VectorRef q, VectorRef v, VectorRef tau,
                   std::span<const Force> f_ext = {});

/// Hybrid dynamics (RBDA §9.2): ABA in which the joints with prescribed[i] ≠ 0 (per joint,
/// model.njoints entries) move with the given accelerations qdd (their dofs' entries; the
/// others are ignored) and the rest follow from τ. Writes data.ddq (the prescribed entries
/// copied) and, for the prescribed dofs only, tau_required = the joint forces that produce
/// those accelerations (armature included): τ_required − τ is the constraint force of a
/// lock. A joint lock with Baumgarte terms is q̈_l = −γ_l. Cost O(n), no allocation.
const VectorX& aba_prescribed(const Model& model, Data& data, VectorRef q, VectorRef v, VectorRef tau,
                              std::span<const char> prescribed, VectorRef qdd, Eigen::Ref<VectorX> tau_required,
                              std::span<const Force> f_ext = {});

}  // namespace articula
