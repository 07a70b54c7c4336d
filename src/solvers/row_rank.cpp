// Rank-deficient rows, shared by the three methods so that they drop the same rows and give the
// same v̇ and λ (docs/solvers.md, "Redundant and bad rows").
//
// The numerical rank r of J comes from the column-pivoted Householder QR of Jᵀ (Golub & Van
// Loan, Matrix Computations, 4th ed., §5.4.2): Jᵀ P = Q R, r = #{k : |R_kk| > τ |R_11|},
// τ = kRowRankTolerance = 10⁻⁵. Dropping R₂₂ gives the rank-r rows J_r, Jᵀ_r P = Q₁ [R₁₁ R₁₂]
// = Q₁ R_t, with ‖J − J_r‖ ≤ ‖R₂₂‖; the first r pivoted ("basic") rows of J_r are those of J.
// Redundant constraints (Udwadia & Kalaba, "A new perspective on constrained motion", Proc. R.
// Soc. Lond. A 439, 1992, and their book Analytical Dynamics, 1996: with dependent rows the
// acceleration and the constraint force Jᵀλ stay unique, λ does not; Müller, arXiv:2604.19419,
// for dependent rows at activation) are then solved on the basic rows, with
//   • γ replaced by its orthogonal projection on range J_r (= P R_tᵀ G⁻¹ R_t Pᵀ γ, G = R_t R_tᵀ):
//     J v̇ + γ = 0 is met exactly when it is consistent, and in least squares otherwise (the part
//     of γ in the left null space of J_r cannot be met by any v̇);
//   • the multipliers of the basic rows turned into the minimum-norm λ with the same Jᵀ_r λ:
//     Pᵀ λ = R_tᵀ G⁻¹ R₁₁ λ_b.
// G (r × r) is positive definite with cond(G) ≤ cond(R₁₁)² ≲ τ⁻²; Cholesky.
#include "methods.hpp"

namespace articula::detail {

int row_rank(ConstrainedWorkspace& ws, RowsRef J) {
  const int m = static_cast<int>(J.rows());
  auto Jt = ws.Jt.topLeftCorner(ws.nv, m);
  Jt = J.transpose();
  ws.qr.setThreshold(kRowRankTolerance);
  ws.qr.compute(Jt);
  const int r = static_cast<int>(ws.qr.rank());
  if (r == m) return r;  // independent rows: the methods need nothing more
  auto Rt = ws.Rt.topLeftCorner(r, m);
  Rt = ws.qr.matrixR().topLeftCorner(r, m).template triangularView<Eigen::Upper>();
  auto G = ws.G.topLeftCorner(r, r);
  G.noalias() = Rt * Rt.transpose();
  if (r > 0) ws.Gllt.compute(G);
  return r;
}

int basic_row(const ConstrainedWorkspace& ws, int i) { return ws.qr.colsPermutation().indices()[i]; }

void projected_basic(ConstrainedWorkspace& ws, int r, VectorRef x, Eigen::Ref<VectorX> out) {
  const int m = static_cast<int>(x.size());
  if (r == 0) return;
  auto px = ws.row_a.head(m);
  for (int i = 0; i < m; ++i) px[i] = x[basic_row(ws, i)];
  auto t = ws.row_b.head(r);
  t.noalias() = ws.Rt.topLeftCorner(r, m) * px;
  ws.Gllt.solveInPlace(t);
  out.noalias() = ws.Rt.topLeftCorner(r, r).template triangularView<Eigen::Upper>().transpose() * t;
}

void min_norm_multipliers(ConstrainedWorkspace& ws, int r, int m, VectorRef lambda_basic, Eigen::Ref<VectorX> lambda) {
  if (r == 0) {
    lambda.head(m).setZero();
    return;
  }
  auto t = ws.row_b.head(r);
  t.noalias() = ws.Rt.topLeftCorner(r, r).template triangularView<Eigen::Upper>() * lambda_basic;
  ws.Gllt.solveInPlace(t);
  auto mu = ws.row_a.head(m);
  mu.noalias() = ws.Rt.topLeftCorner(r, m).transpose() * t;
  for (int i = 0; i < m; ++i) lambda[basic_row(ws, i)] = mu[i];
}

}  // namespace articula::detail
