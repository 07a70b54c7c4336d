#pragma once
/// Scalar, vector and index typedefs shared by every layer.
#include <Eigen/Core>
#include <Eigen/Geometry>
#include <cstdint>

namespace articula {

using Vector3 = Eigen::Vector3d;
using Matrix3 = Eigen::Matrix3d;
using Vector6 = Eigen::Matrix<double, 6, 1>;
using Matrix6 = Eigen::Matrix<double, 6, 6>;
using VectorX = Eigen::VectorXd;
using MatrixX = Eigen::MatrixXd;
/// A 6 × k block of motion-subspace columns, k ≤ 6, on the stack.
using Matrix6X = Eigen::Matrix<double, 6, Eigen::Dynamic, Eigen::ColMajor, 6, 6>;
/// Read-only view of any dense vector expression (no copy).
using VectorRef = Eigen::Ref<const Eigen::VectorXd>;
using Quaternion = Eigen::Quaterniond;

/// True when every entry of x is finite. 0·x is 0 for a finite entry and NaN for ±inf or NaN,
/// so the sum of 0·x is 0 exactly when all are finite: one vectorized pass, where Eigen's
/// allFinite() evaluates x − x and compares it with itself (measured: 30 % of a velocity jump
/// on talos, for the 38 × 38 M).
template <typename Derived>
bool all_finite(const Eigen::DenseBase<Derived>& x) {
  return (x.derived().array() * 0.0).sum() == 0.0;
}

/// Index of a joint / body (bodies are numbered like the joint that carries them).
using Index = int;
/// Parent of the root body.
inline constexpr Index kWorld = -1;

}  // namespace articula
