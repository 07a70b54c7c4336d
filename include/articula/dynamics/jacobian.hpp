#pragma once
/// Joint and frame Jacobians (RBDA §4.x; velocity = J v in the chosen reference).
#include "articula/dynamics/kinematics.hpp"

namespace articula {

/// Forward kinematics (placements) and data.J = the 6 × nv world Jacobian: column k is
/// the motion of dof k's joint axis, oX_i S_k, in world axes about the world origin. Cost O(n).
const MatrixX& compute_joint_jacobians(const Model& model, Data& data, VectorRef q);

/// The 6 × nv Jacobian of a frame in the given reference, so that frame_velocity(ref) = J v.
/// Precondition: compute_joint_jacobians() for the current q. Columns of joints that do not
/// support the frame are zero. J is overwritten. Cost O(depth).
void frame_jacobian(const Model& model, const Data& data, Index frame, ReferenceFrame ref, Eigen::Ref<MatrixX> J);

/// Same, computing the joint Jacobians first; returns a new matrix (allocates).
MatrixX frame_jacobian(const Model& model, Data& data, VectorRef q, Index frame, ReferenceFrame ref);

}  // namespace articula

namespace articula {
/// data.J from the placements already in data.oMi (after forward_kinematics), without
/// recomputing them. Cost O(n).
void update_joint_jacobians(const Model& model, Data& data);
}  // namespace articula
