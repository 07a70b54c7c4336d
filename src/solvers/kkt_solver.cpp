// Direct KKT method: the full saddle-point system (Nocedal & Wright, Numerical
// Optimization, §16.1): [M Jᵀ; J 0] [v̇; −λ] = [b; −γ].
#include <Eigen/QR>

#include "methods.hpp"

namespace articula::detail {

SolveReport solve_kkt(const Model& model, Data& data, ConstrainedWorkspace& ws, RowsRef J, VectorRef gamma) {
  const int n = model.nv, m = static_cast<int>(J.rows());
  SolveReport report;
  // The rank of the rows first (row_rank.cpp): the LU of K cannot tell a row that is nearly
  // dependent (a chain almost straight) from an independent one, and would give it a multiplier
  // ~ 1/σ² that the other methods drop. With r < m the system is solved on the r basic rows with
  // γ projected on range J_r (least squares if inconsistent) and λ made minimum-norm.
  const int r = row_rank(ws, J);
  const int k = r < m ? r : m;
  auto K = ws.K.topLeftCorner(n + k, n + k);
  auto rhs = ws.rhs.head(n + k);
  K.topLeftCorner(n, n) = data.M;
  K.bottomRightCorner(k, k).setZero();
  rhs.head(n) = ws.b;
  if (r < m) {
    for (int i = 0; i < r; ++i) K.row(n + i).head(n) = J.row(basic_row(ws, i));
    projected_basic(ws, r, gamma, rhs.tail(r));
    rhs.tail(r) *= -1.0;
  } else {
    K.bottomLeftCorner(m, n) = J;
    rhs.tail(m) = -gamma;
  }
  K.topRightCorner(n, k) = K.bottomLeftCorner(k, n).transpose();
  auto sol = ws.sol.head(n + k);
  ws.lu.compute(K);
  sol = ws.lu.solve(rhs);
  report.rank = r;
  report.status = r < m ? SolveStatus::Redundant : SolveStatus::Ok;
  // Independent rows and M positive definite make K nonsingular; a tiny LU pivot, a bad residual
  // or a non-finite solution means M is not (a massless branch): the rank-revealing complete
  // orthogonal decomposition then gives the minimum-norm least-squares solution.
  const auto pivots = ws.lu.matrixLU().diagonal().cwiseAbs();
  const bool tiny_pivot = pivots.minCoeff() <= kRankTolerance * pivots.maxCoeff();
  const double res = (K.lazyProduct(sol) - rhs).cwiseAbs().maxCoeff();  // lazy: no temporary
  const double scale = 1.0 + rhs.cwiseAbs().maxCoeff();
  if (tiny_pivot || !all_finite(sol) || res > 1e-9 * scale) {
    Eigen::CompleteOrthogonalDecomposition<MatrixX> cod(K);
    cod.setThreshold(kRankTolerance);
    sol = cod.solve(rhs);
  }
  data.ddq = sol.head(n);
  if (r < m) {
    auto lambda_b = ws.sol.segment(n, r);
    lambda_b *= -1.0;
    min_norm_multipliers(ws, r, m, lambda_b, ws.lambda.head(m));
  } else {
    ws.lambda.head(m) = -sol.tail(m);
  }
  return report;
}

}  // namespace articula::detail
