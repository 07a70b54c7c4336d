#pragma once
/// Joint types and every per-joint-type function, in one place (the only
/// switch on JointType in the library). The recursions call these.
///
/// Conventions (docs/notation.md):
/// - revolute / continuous: q = angle, v = rate about `axis` (unit, joint frame);
/// - prismatic: q = displacement, v = rate along `axis`;
/// - spherical: q = [qx qy qz qw] (unit quaternion of the child in the joint
///   frame, scalar last), v = angular velocity in the child frame;
/// - free-flyer: q = [x y z qx qy qz qw], v = [linear; angular] velocity of the
///   child frame expressed in the child frame.
/// With these conventions every motion subspace S is constant in the child
/// frame and the joint bias velocity product c_J is zero.
#include <random>
#include <string_view>

#include "articula/spatial/transform.hpp"

namespace articula {

enum class JointType { Revolute, Continuous, Prismatic, Spherical, FreeFlyer };

std::string_view to_string(JointType type);
int joint_nq(JointType type);
int joint_nv(JointType type);

/// Pose of the child frame in the joint frame, X_J(q).
Transform joint_transform(JointType type, const Vector3& axis, const double* q);
/// Motion subspace (6 × nv) in the child frame, [linear; angular] rows.
Matrix6X joint_subspace(JointType type, const Vector3& axis);
/// q_out = q ⊕ v·dt on the joint's manifold (exponential map, body-frame velocity).
void joint_integrate(JointType type, const double* q, const double* v, double dt, double* q_out);
/// v_out such that q1 = q0 ⊕ v_out (logarithm map).
void joint_difference(JointType type, const double* q0, const double* q1, double* v_out);
void joint_neutral(JointType type, double* q);
/// out = dexp⁻¹ correction of a body velocity ξ at the local coordinate θ (q ⊕ θ), to third
/// order: θ̇ = ξ + ½[θ, ξ] + 1/12 [θ, [θ, ξ]] (Iserles, Munthe-Kaas, Nørsett & Zanna,
/// "Lie-group methods", Acta Numerica 2000, §3.1). The bracket is the motion cross product on
/// se(3), the cross product on so(3), zero for scalar joints (out = ξ).
void joint_dexp_inv(JointType type, const double* theta, const double* xi, double* out);
/// Rescales quaternion parts to unit norm; throws if a quaternion is zero or not finite.
void joint_normalize(JointType type, double* q);
/// Uniform sample within [lower, upper] per coordinate for scalar joints and
/// positions; uniformly distributed rotations for quaternions.
void joint_random(JointType type, const double* lower, const double* upper, std::mt19937& rng, double* q);

/// SO(3) exponential and logarithm (Rodrigues), SE(3) exponential and logarithm
/// of a twist [v; w] (Murray, Li & Sastry, A Mathematical Introduction to Robotic
/// Manipulation, §2.3–2.4). Small angles use Taylor series.
Matrix3 exp3(const Vector3& w);
Vector3 log3(const Matrix3& R);
Transform exp6(const Motion& twist);
Motion log6(const Transform& X);

}  // namespace articula
