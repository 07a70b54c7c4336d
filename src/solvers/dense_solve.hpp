#pragma once
// Dense square solves shared by the KKT-type systems: LU first, then the rank-revealing
// complete orthogonal decomposition when the LU shows a tiny pivot or a bad residual.
#include <Eigen/LU>
#include <Eigen/QR>

#include "articula/common/types.hpp"

namespace articula::detail {

/// Relative tolerance below which a pivot / singular value counts as zero (rank decisions).
inline constexpr double kRankTolerance = 1e-10;

/// x = K⁻¹ b, or the minimum-norm least-squares solution if K is singular. Returns the
/// numerical rank of K.
inline int solve_square(const MatrixX& K, const VectorX& b, VectorX& x) {
  const Eigen::PartialPivLU<MatrixX> lu(K);
  x = lu.solve(b);
  const auto pivots = lu.matrixLU().diagonal().cwiseAbs();
  const bool tiny = K.rows() > 0 && pivots.minCoeff() <= kRankTolerance * pivots.maxCoeff();
  const double scale = 1.0 + b.cwiseAbs().maxCoeff();
  if (!tiny && all_finite(x) && (K * x - b).cwiseAbs().maxCoeff() <= 1e-9 * scale) return static_cast<int>(K.rows());
  Eigen::CompleteOrthogonalDecomposition<MatrixX> cod(K);
  cod.setThreshold(kRankTolerance);
  x = cod.solve(b);
  return static_cast<int>(cod.rank());
}

}  // namespace articula::detail
