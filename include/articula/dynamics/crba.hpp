#pragma once
/// Joint-space inertia matrix and its tree-sparse factorization.
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

/// Factorizes data.M = Lᵀ D L into data.Mfact, exploiting the branch-induced sparsity
/// (RBDA §6.5, Table 6.3 "LTDL"): only the ancestor entries are touched. Storage: D on the
/// diagonal, L_ij (j an ancestor of i) at Mfact(j, i), i.e. Lᵀ in the strict upper triangle.
/// Precondition: crba() was called. Throws std::runtime_error if a pivot is not positive.
/// Cost O(n d²) at worst, no allocation.
void factorize_mass_matrix(const Model& model, Data& data);
/// x ← M⁻¹ x with the factors of factorize_mass_matrix() (RBDA Table 6.4). Cost O(n d).
void solve_mass(const Model& model, const Data& data, Eigen::Ref<VectorX> x);
/// X ← M⁻¹ X column by column.
void solve_mass_columns(const Model& model, const Data& data, Eigen::Ref<MatrixX> X);
/// X ← L⁻ᵀ X (first half of the solve); with D⁻¹ and L⁻¹ it completes M⁻¹ = L⁻¹ D⁻¹ L⁻ᵀ.
/// Used for the Schur complement J M⁻¹ Jᵀ = (L⁻ᵀ Jᵀ)ᵀ D⁻¹ (L⁻ᵀ Jᵀ).
void solve_mass_lt(const Model& model, const Data& data, Eigen::Ref<MatrixX> X);
/// Xt ← Xt L⁻¹, i.e. X ← L⁻ᵀ X with X stored transposed (Xt = Xᵀ, m × nv): the layout in
/// which each update is a contiguous column operation. Skips dofs whose column is still zero.
void solve_mass_lt_transposed(const Model& model, const Data& data, Eigen::Ref<MatrixX> Xt);
/// vᵀ M v from the factors of factorize_mass_matrix() (Σ d_i (L v)_i²). Cost O(nnz L).
double mass_quadratic_form(const Model& model, const Data& data, VectorRef v);
/// X ← L⁻¹ X (second half of the solve).
void solve_mass_l(const Model& model, const Data& data, Eigen::Ref<MatrixX> X);

}  // namespace articula
