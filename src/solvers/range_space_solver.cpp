// Range-space method (Featherstone, RBDA §8.3 "Constraint forces", and Nocedal & Wright
// §16.2): with M = LᵀDL (tree-sparse, RBDA §6.5) and Y = L⁻ᵀ Jᵀ, z = L⁻ᵀ b,
//   S = J M⁻¹ Jᵀ = Yᵀ D⁻¹ Y,   J M⁻¹ b = Yᵀ D⁻¹ z,
//   S λ = −(γ + Yᵀ D⁻¹ z),     v̇ = M⁻¹ (b + Jᵀ λ) = L⁻¹ D⁻¹ (z + Y λ).
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
  report.rank = solve_psd(S, r, lambda, ws.Sfact.topLeftCorner(m, m), ws.ldlt);
  report.status = report.rank < m ? SolveStatus::Redundant : SolveStatus::Ok;
  data.ddq.noalias() = Yt.transpose() * lambda;
  data.ddq.array() *= Dinv.array();
  data.ddq += w;
  solve_mass_l(model, data, data.ddq);
  return report;
}

}  // namespace articula::detail
