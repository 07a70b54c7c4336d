#pragma once
/// Joint-space inertia matrix and its tree-sparse factorization.
#include "articula/dynamics/mass_factor.hpp"
#include "articula/model/data.hpp"

namespace articula {

/// M(q) by the composite-rigid-body algorithm (RBDA §6.2, Table 6.2), armature on
/// the diagonal; both triangles of data.M are filled. Also data.liMi, data.oMi, data.Ycrb
/// (composite inertias in world coordinates, about the world origin) and data.J (the joint
/// Jacobian columns ⁰X_i S_i, as compute_joint_jacobians(q)).
/// Cost O(n d), d the depth of the tree; no allocation.
const MatrixX& crba(const Model& model, Data& data, VectorRef q);
/// The same M from the placements data.oMi and joint columns data.J already computed for q
/// (forward_kinematics() + update_joint_jacobians(), as ConstraintSet::compute_rows() leaves
/// them): skips crba()'s first pass. Cost O(n d), no allocation.
const MatrixX& crba_from_kinematics(const Model& model, Data& data);

}  // namespace articula
