// Direct KKT method: the full saddle-point system (Nocedal & Wright, Numerical
// Optimization, §16.1): [M Jᵀ; J 0] [v̇; −λ] = [b; −γ].
#include <Eigen/QR>

#include "methods.hpp"

namespace articula::detail {

SolveReport solve_kkt(const Model& model, Data& data, ConstrainedWorkspace& ws, RowsRef J, VectorRef gamma) {
  const int n = model.nv, m = static_cast<int>(J.rows());
  SolveReport report;
  auto K = ws.K.topLeftCorner(n + m, n + m);
  K.topLeftCorner(n, n) = data.M;
  K.topRightCorner(n, m) = J.transpose();
  K.bottomLeftCorner(m, n) = J;
  K.bottomRightCorner(m, m).setZero();
  auto rhs = ws.rhs.head(n + m);
  rhs.head(n) = ws.b;
  rhs.tail(m) = -gamma;
  auto sol = ws.sol.head(n + m);
  ws.lu.compute(K);
  sol = ws.lu.solve(rhs);
  // Dependent rows make the KKT matrix singular: the LU then shows a tiny pivot (or a bad
  // residual, or huge multipliers along the null space of Jᵀ). Fall back to the rank-revealing
  // complete orthogonal decomposition, which gives the minimum-norm λ.
  const auto pivots = ws.lu.matrixLU().diagonal().cwiseAbs();
  const bool tiny_pivot = pivots.minCoeff() <= kRankTolerance * pivots.maxCoeff();
  const double res = (K.lazyProduct(sol) - rhs).cwiseAbs().maxCoeff();  // lazy: no temporary
  const double scale = 1.0 + rhs.cwiseAbs().maxCoeff();
  report.rank = m;
  if (tiny_pivot || !all_finite(sol) || res > 1e-9 * scale) {
    Eigen::CompleteOrthogonalDecomposition<MatrixX> cod(K);
    cod.setThreshold(kRankTolerance);
    sol = cod.solve(rhs);
    report.rank = static_cast<int>(cod.rank()) - n;
    report.status = report.rank < m ? SolveStatus::Redundant : SolveStatus::Ok;
  }
  data.ddq = sol.head(n);
  ws.lambda.head(m) = -sol.tail(m);
  return report;
}

}  // namespace articula::detail
