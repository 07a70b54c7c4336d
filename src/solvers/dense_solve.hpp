#pragma once
// Dense square solves shared by the KKT-type systems: LU first, then the rank-revealing
// complete orthogonal decomposition when the LU shows a tiny pivot or a bad residual.
#include <Eigen/LU>
#include <Eigen/QR>

#include "articula/common/types.hpp"

namespace articula::detail {

/// Relative tolerance below which a pivot / eigenvalue counts as zero (rank decisions) in the
/// quantities that are quadratic in the rows: the eigenvalues and LDLᵀ pivots of
/// S = J M⁻¹ Jᵀ, the pivots and singular values of the KKT matrix [M Jᵀ; J 0] (whose small
/// singular values are those of −J M⁻¹ Jᵀ). A singular value σ of J M^-1/2 below 10⁻⁵ σ_max
/// is thus treated as zero: the multiplier along it would be ~ 1/σ², dominated by round-off.
inline constexpr double kRankTolerance = 1e-10;
/// The same decision on quantities linear in the rows (the diagonal of the pivoted QR of
/// Jᵀ, whose |R_kk| estimate the singular values of J; Golub & Van Loan, 4th ed., §5.4.2):
/// √kRankTolerance, so that every method drops the same near-dependent rows.
inline constexpr double kRowRankTolerance = 1e-5;

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
