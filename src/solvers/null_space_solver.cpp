// Null-space (minimal-coordinate) method (Nocedal & Wright §16.2 "null-space method";
// Aghili, IEEE T-RO 21(5) 2005 for its use in robot dynamics): with the pivoted QR
// Jᵀ P = [Q₁ Q₂] [R₁; 0] (rank r), Z = Q₂ spans ker J and
//   v̇_p = −Q₁ R₁₁⁻ᵀ (Pᵀγ)₁..r          (a particular solution of J v̇ = −γ)
//   (Zᵀ M Z) z = Zᵀ (b − M v̇_p),  v̇ = v̇_p + Z z,
//   R₁ Pᵀ λ = Q₁ᵀ (M v̇ − b)              (multipliers).
// Dependent rows (r < m): γ projected on range J_r and λ minimum-norm (row_rank.cpp).
#include "methods.hpp"

namespace articula::detail {

SolveReport solve_null_space(const Model& model, Data& data, ConstrainedWorkspace& ws, RowsRef J, VectorRef gamma) {
  const int n = model.nv, m = static_cast<int>(J.rows());
  SolveReport report;
  const int r = row_rank(ws, J);  // the pivoted QR of Jᵀ (row_rank.cpp)
  report.rank = r;
  report.status = r < m ? SolveStatus::Redundant : SolveStatus::Ok;
  ws.qr.householderQ().evalTo(ws.Z, ws.householder_work);  // Z ← Q (full, n × n), no allocation
  const auto R11 = ws.qr.matrixR().topLeftCorner(r, r).template triangularView<Eigen::Upper>();
  // Particular solution v̇_p = Q₁ y, R₁₁ᵀ y = −(Pᵀ γ)₁..r.
  VectorX& y = ws.a_free;                                // reuse as scratch (size n ≥ r)
  const auto& perm = ws.qr.colsPermutation().indices();  // (Pᵀ x)_i = x_perm(i)
  if (r < m) {  // dependent rows: γ projected on range J_r (least squares if inconsistent)
    projected_basic(ws, r, gamma, y.head(r));
    y.head(r) *= -1.0;
  } else {
    for (int i = 0; i < r; ++i) y[i] = -gamma[perm[i]];
  }
  R11.transpose().solveInPlace(y.head(r));
  data.ddq.noalias() = ws.Z.leftCols(r) * y.head(r);
  const int k = n - r;
  if (k > 0) {
    const auto Z = ws.Z.middleCols(r, k);
    auto MZ = ws.MZ.leftCols(k);
    MZ.noalias() = data.M * Z;
    auto ZMZ = ws.ZMZ.topLeftCorner(k, k);
    ZMZ.noalias() = Z.transpose() * MZ;
    auto rhs = ws.rhs.head(k);
    rhs.noalias() = Z.transpose() * ws.b;
    rhs.noalias() -= MZ.transpose() * data.ddq;
    ws.llt.compute(ZMZ);
    if (ws.llt.info() != Eigen::Success) {
      report.status = SolveStatus::Singular;
      report.message = "reduced mass matrix Zᵀ M Z is not positive definite";
      return report;
    }
    auto z = ws.sol.head(k);
    z = ws.llt.solve(rhs);
    data.ddq.noalias() += Z * z;
  }
  // Multipliers: Jᵀ λ = M v̇ − b, projected on range(Jᵀ) = span Q₁.
  auto res = ws.rhs.head(n);
  res.noalias() = data.M * data.ddq;
  res -= ws.b;
  VectorX& w = ws.a_free;
  w.head(r).noalias() = ws.Z.leftCols(r).transpose() * res;
  R11.solveInPlace(w.head(r));
  if (r < m) {  // the minimum-norm λ with Jᵀ_r λ = Q₁ R₁₁ w
    min_norm_multipliers(ws, r, m, w.head(r), ws.lambda.head(m));
  } else {
    for (int i = 0; i < r; ++i) ws.lambda[perm[i]] = w[i];  // λ = P w
  }
  return report;
}

}  // namespace articula::detail
