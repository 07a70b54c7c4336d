#pragma once
// The three constrained-dynamics methods, called by solve_constrained() after it has
// computed M (crba) and ws.b = τ − h + Σ Jᵀ f_ext. Each writes data.ddq and ws.lambda.
#include "articula/solvers/constrained_dynamics.hpp"
#include "dense_solve.hpp"

namespace articula::detail {

using RowsRef = const Eigen::Ref<const MatrixX>&;

SolveReport solve_kkt(const Model& model, Data& data, ConstrainedWorkspace& ws, RowsRef J, VectorRef gamma);
SolveReport solve_range_space(const Model& model, Data& data, ConstrainedWorkspace& ws, RowsRef J, VectorRef gamma);
SolveReport solve_null_space(const Model& model, Data& data, ConstrainedWorkspace& ws, RowsRef J, VectorRef gamma);

/// Rank-deficient rows (row_rank.cpp): the pivoted QR of Jᵀ into ws.qr with threshold
/// kRowRankTolerance, and when r < m also R_t, G = R_t R_tᵀ with its Cholesky; returns r.
int row_rank(ConstrainedWorkspace& ws, RowsRef J);
/// The i-th basic (pivoted) row of the last row_rank().
int basic_row(const ConstrainedWorkspace& ws, int i);
/// out (r) = the basic rows, in pivoted order, of the orthogonal projection of x (m) on range J_r.
void projected_basic(ConstrainedWorkspace& ws, int r, VectorRef x, Eigen::Ref<VectorX> out);
/// The minimum-norm λ (m, row order) with the same Jᵀ_r λ as the basic multipliers
/// lambda_basic (r, pivoted order; not ws.row_a / ws.row_b).
void min_norm_multipliers(ConstrainedWorkspace& ws, int r, int m, VectorRef lambda_basic, Eigen::Ref<VectorX> lambda);

/// Unpivoted LDLᵀ solve of S x = r (L: m × m scratch); false, with x unspecified, if a pivot
/// is ≤ kRankTolerance × the largest (S singular or ill-conditioned). pivot_ratio, if given,
/// receives the smallest pivot over the largest (when the factorization got that far).
bool ldlt_solve(const Eigen::Ref<const MatrixX>& S, VectorRef r, Eigen::Ref<VectorX> x, Eigen::Ref<MatrixX> L,
                double* pivot_ratio = nullptr);
/// Above this ratio of LDLᵀ pivots of S the range-space method takes the rows as independent
/// without asking the pivoted QR of Jᵀ: a pivot ratio d_min/d_max of S = J M⁻¹ Jᵀ is about
/// (σ_min/σ_max)² of J M^-1/2, so rows that row_rank() would drop (σ ratio < 10⁻⁵ of J) give
/// d_min/d_max < 10⁻⁸ unless M's metric changes the ratio by more than 10×.
inline constexpr double kRangeRankCheck = 1e-8;

/// Solves the symmetric positive semi-definite system S x = r (m × m) into x: unpivoted LDLᵀ
/// (into L, m × m scratch) when S is well conditioned, else LDLᵀ with pivoting, else the
/// eigen-decomposition pseudo-inverse (minimum-norm x). Returns the numerical rank.
int solve_psd(Eigen::Ref<MatrixX> S, VectorRef r, Eigen::Ref<VectorX> x, Eigen::Ref<MatrixX> L,
              Eigen::LDLT<MatrixX>& ldlt);

}  // namespace articula::detail
