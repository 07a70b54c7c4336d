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

}  // namespace articula
