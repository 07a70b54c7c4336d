#pragma once
/// Inverse dynamics by the recursive Newton–Euler algorithm (RBDA §5.3, Table 5.1).
#include <span>

#include "articula/model/data.hpp"

namespace articula {

/// τ = M(q) a + h(q, v) − Σ Jᵢᵀ f_ext,i, with armature: τ_k += armature_k a_k.
/// @param f_ext empty, or one spatial force per body (model.njoints), in the body frame.
/// @post data.tau (nv), data.liMi/oMi/v/a_gf/f up to date.
/// @throws std::invalid_argument on a size mismatch. Cost O(n), no allocation.
const VectorX& rnea(const Model& model, Data& data, VectorRef q, VectorRef v, VectorRef a,
                    std::span<const Force> f_ext = {});
/// h(q, v) = C(q, v) v + g(q) = rnea(q, v, 0) into data.h. Cost O(n).
const VectorX& nonlinear_effects(const Model& model, Data& data, VectorRef q, VectorRef v);
/// rnea(q, v, 0, f_ext) = h − Σ Jᵢᵀ f_ext,i into data.tau (as rnea()), from the kinematics already in data
/// (forward_kinematics_bias(q, v): liMi, oMi, v, a at q̈ = 0): skips rnea()'s first pass over
/// the joints. Cost O(n), no allocation.
const VectorX& bias_from_kinematics(const Model& model, Data& data, std::span<const Force> f_ext = {});
/// g(q) = rnea(q, 0, 0) into data.g. Cost O(n).
const VectorX& generalized_gravity(const Model& model, Data& data, VectorRef q);
/// Generalized momentum M(q) v (armature included) into data.momentum, in O(n) without forming M.
const VectorX& generalized_momentum(const Model& model, Data& data, VectorRef q, VectorRef v);

}  // namespace articula
