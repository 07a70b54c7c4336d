#pragma once
/// The tree-sparse factorization M = Lᵀ D L of the joint-space inertia matrix and its solves
/// (RBDA §6.5). L is stored packed by rows along each dof's ancestor list (Data::Lfact).
#include "articula/model/data.hpp"

namespace articula {

/// Factorizes data.M = Lᵀ D L into data.Lfact / data.Dfact / data.Dinv_fact, exploiting the
/// branch-induced sparsity (RBDA §6.5, Table 6.3 "LTDL"): only the ancestor entries are
/// touched and there is no fill-in. Precondition: data.M holds M (crba()). Throws
/// std::runtime_error if a pivot is not positive. Cost O(n d²) at worst, no allocation.
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
/// X ← L⁻¹ X (second half of the solve).
void solve_mass_l(const Model& model, const Data& data, Eigen::Ref<MatrixX> X);
/// vᵀ M v from the factors of factorize_mass_matrix() (Σ d_i (L v)_i²). Cost O(nnz L).
double mass_quadratic_form(const Model& model, const Data& data, VectorRef v);
/// The unit lower-triangular L of the last factorization as a dense nv × nv matrix (for
/// inspection and tests; allocates).
MatrixX mass_factor_l(const Model& model, const Data& data);

}  // namespace articula
