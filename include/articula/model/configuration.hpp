#pragma once
/// The configuration manifold: q ∈ ℝ^nq with unit quaternions for spherical and
/// free-flyer joints, tangent vectors v ∈ ℝ^nv (body-frame rates).
#include <random>

#include "articula/model/model.hpp"

namespace articula {

/// q with every joint at its neutral value (angles 0, identity quaternions).
VectorX neutral(const Model& model);
/// q ⊕ v·dt, joint by joint on the manifold (SE(3)/SO(3) exponentials). Cost O(n).
VectorX integrate(const Model& model, VectorRef q, VectorRef v, double dt);
/// In-place-safe variant writing into q_out (size nq); no allocation.
void integrate(const Model& model, VectorRef q, VectorRef v, double dt, Eigen::Ref<VectorX> q_out);
/// v such that integrate(q0, v, 1) = q1 (logarithm map).
VectorX difference(const Model& model, VectorRef q0, VectorRef q1);
/// Joint-wise dexp⁻¹ correction (see joint_dexp_inv): the rate of the local coordinate θ
/// (q(t) = q₀ ⊕ θ(t)) for a body velocity ξ. No allocation.
void dexp_inv(const Model& model, VectorRef theta, VectorRef xi, Eigen::Ref<VectorX> out);
/// Rescales quaternions to unit norm. Throws std::invalid_argument for a zero or non-finite quaternion.
void normalize(const Model& model, Eigen::Ref<VectorX> q);
/// Random q within the position limits (±π / ±1 where a limit is infinite), uniform rotations.
VectorX random_configuration(const Model& model, std::mt19937& rng);

}  // namespace articula
