// Range-space method (Featherstone, RBDA §8.3 "Constraint forces", and Nocedal & Wright
// §16.2): with M = LᵀDL (tree-sparse, RBDA §6.5),
//   a_free = M⁻¹ b,  Y = L⁻ᵀ Jᵀ,  S = J M⁻¹ Jᵀ = Yᵀ D⁻¹ Y,
//   S λ = −(γ + J a_free),  v̇ = a_free + M⁻¹ Jᵀ λ.
#include "articula/dynamics/crba.hpp"
#include "methods.hpp"

namespace articula::detail {

SolveReport solve_range_space(const Model& model, Data& data, ConstrainedWorkspace& ws, RowsRef J, VectorRef gamma) {
  const int n = model.nv, m = static_cast<int>(J.rows());
  SolveReport report;
  try {
    factorize_mass_matrix(model, data);
  } catch (const std::exception& e) {
    report.status = SolveStatus::Singular;
    report.message = e.what();
    return report;
  }
  ws.a_free = ws.b;
  solve_mass(model, data, ws.a_free);
  auto Y = ws.Y.leftCols(m);
  Y = J.transpose();
  solve_mass_lt(model, data, Y);
  auto S = ws.S.topLeftCorner(m, m);
  S.noalias() = Y.transpose() * data.Dinv_fact.asDiagonal() * Y;
  auto r = ws.r.head(m);
  r = -(gamma + J * ws.a_free);
  auto lambda = ws.lambda.head(m);
  report.rank = solve_psd(S, r, lambda, ws.ldlt);
  report.status = report.rank < m ? SolveStatus::Redundant : SolveStatus::Ok;
  // v̇ = a_free + L⁻¹ D⁻¹ (Y λ).
  data.ddq.noalias() = Y * lambda;
  data.ddq.array() *= data.Dinv_fact.array();
  solve_mass_l(model, data, data.ddq);
  data.ddq += ws.a_free;
  (void)n;
  return report;
}

}  // namespace articula::detail
