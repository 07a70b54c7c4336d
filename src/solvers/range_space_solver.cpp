// Range-space method (Featherstone, RBDA §8.3 "Constraint forces", and Nocedal & Wright
// §16.2): with M = LᵀDL (tree-sparse, RBDA §6.5) and Y = L⁻ᵀ Jᵀ, z = L⁻ᵀ b,
//   S = J M⁻¹ Jᵀ = Yᵀ D⁻¹ Y,   J M⁻¹ b = Yᵀ D⁻¹ z,
//   S λ = −(γ + Yᵀ D⁻¹ z),     v̇ = M⁻¹ (b + Jᵀ λ) = L⁻¹ D⁻¹ (z + Y λ).
// Dependent rows: on the basic rows of the pivoted QR of Jᵀ (row_rank.cpp).
// Y is kept transposed (m × nv) so that the L⁻ᵀ sweep updates contiguous columns, and
// the sweep skips the dofs no row reaches; b goes through L⁻ᵀ once, L⁻¹ once.
#include "articula/dynamics/crba.hpp"
#include "methods.hpp"

namespace articula::detail {

SolveReport solve_range_space(const Model& model, Data& data, ConstrainedWorkspace& ws, RowsRef J, VectorRef gamma) {
  const int m = static_cast<int>(J.rows());
  SolveReport report;
  try {
    factorize_mass_matrix(model, data);
  } catch (const std::exception& e) {
    report.status = SolveStatus::Singular;
    report.message = e.what();
    return report;
  }
  const auto& Dinv = data.Dinv_fact;
  VectorX& w = ws.a_free;  // z = L⁻ᵀ b, then D⁻¹ z
  w = ws.b;
  solve_mass_lt(model, data, w);
  w.array() *= Dinv.array();
  auto Yt = ws.Yt.topRows(m);
  Yt = J;
  solve_mass_lt_transposed(model, data, Yt);
  // S = Yᵀ D⁻¹ Y.
  auto S = ws.S.topLeftCorner(m, m);
  auto DY = ws.Jt.topLeftCorner(m, model.nv);  // scratch (m × nv): Yᵀ D⁻¹
  DY.noalias() = Yt * Dinv.asDiagonal();
  S.noalias() = DY * Yt.transpose();
  auto r = ws.r.head(m);
  r = -gamma;
  r.noalias() -= Yt * w;
  auto lambda = ws.lambda.head(m);
  int rank = m;
  bool basic = false;  // λ holds the basic multipliers (zeros on the dependent rows)
  double ratio = 0.0;
  const bool factored = ldlt_solve(S, r, lambda, ws.Sfact.topLeftCorner(m, m), &ratio);
  // A well-conditioned S settles it (the common case, no QR); an ill-conditioned or singular
  // one is checked against the rank of the rows, so that range space drops what KKT and null
  // space drop.
  if (!factored || (ratio < kRangeRankCheck && row_rank(ws, J) < m)) {
    // S is singular or ill-conditioned: the rank of the rows decides (row_rank.cpp; ws.Jt, the
    // Yᵀ D⁻¹ scratch above, is free again). Independent rows (M badly conditioned): pivoted
    // LDLᵀ / pseudo-inverse of S. Dependent rows: S restricted to the r basic rows (a principal
    // submatrix, positive definite) with γ projected on range J_r.
    rank = factored ? static_cast<int>(ws.qr.rank()) : row_rank(ws, J);
    if (rank == m) {
      solve_psd(S, r, lambda, ws.Sfact.topLeftCorner(m, m), ws.ldlt);
    } else {
      auto Sb = ws.K.topLeftCorner(rank, rank);
      for (int j = 0; j < rank; ++j)
        for (int i = 0; i < rank; ++i) Sb(i, j) = S(basic_row(ws, i), basic_row(ws, j));
      auto rb = ws.sol.head(rank);
      projected_basic(ws, rank, gamma, rb);
      for (int i = 0; i < rank; ++i) {  // −(P̂γ)_b − (Yᵀw)_b, with Yᵀw = −γ − r
        const int k = basic_row(ws, i);
        rb[i] = r[k] + gamma[k] - rb[i];
      }
      auto lb = ws.rhs.head(rank);
      solve_psd(Sb, rb, lb, ws.Sfact.topLeftCorner(rank, rank), ws.ldlt);
      lambda.setZero();
      for (int i = 0; i < rank; ++i) lambda[basic_row(ws, i)] = lb[i];
      basic = true;
    }
  }
  report.rank = rank;
  report.status = rank < m ? SolveStatus::Redundant : SolveStatus::Ok;
  data.ddq.noalias() = Yt.transpose() * lambda;
  data.ddq.array() *= Dinv.array();
  data.ddq += w;
  solve_mass_l(model, data, data.ddq);
  if (basic) min_norm_multipliers(ws, rank, m, ws.rhs.head(rank), lambda);
  return report;
}

}  // namespace articula::detail
