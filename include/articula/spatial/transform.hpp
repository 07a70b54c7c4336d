#pragma once
/// Rigid transforms acting on spatial vectors (RBDA §2.8, eqs. 2.24–2.26).
#include "articula/spatial/motion.hpp"

namespace articula {

/// Pose of a frame B in a frame A: x_A = R x_B + p (so X_AB maps B coordinates to A).
/// `act` carries vectors from B to A coordinates, `act_inv` from A to B.
struct Transform {
  Matrix3 R = Matrix3::Identity();
  Vector3 p = Vector3::Zero();

  static Transform Identity() { return {}; }
  Transform operator*(const Transform& o) const { return {R * o.R, R * o.p + p}; }
  Transform inverse() const { return {R.transpose(), -(R.transpose() * p)}; }
  Vector3 act_point(const Vector3& x) const { return R * x + p; }
  Vector3 act_inv_point(const Vector3& x) const { return R.transpose() * (x - p); }
  /// Transform composed with the inverse of o, this⁻¹ * o, without forming the inverse.
  Transform inv_times(const Transform& o) const { return {R.transpose() * o.R, R.transpose() * (o.p - p)}; }

  Motion act(const Motion& m) const {
    const Vector3 w = R * m.w;
    return {R * m.v + p.cross(w), w};
  }
  Motion act_inv(const Motion& m) const { return {R.transpose() * (m.v - p.cross(m.w)), R.transpose() * m.w}; }
  Force act(const Force& f) const {
    const Vector3 ff = R * f.f;
    return {ff, R * f.n + p.cross(ff)};
  }
  Force act_inv(const Force& f) const { return {R.transpose() * f.f, R.transpose() * (f.n - p.cross(f.f))}; }
  /// Column-wise action on a 6 × k block of motion vectors.
  template <typename Derived>
  void act_motions(const Eigen::MatrixBase<Derived>& in, Eigen::Ref<MatrixX> out) const {
    for (Eigen::Index c = 0; c < in.cols(); ++c) {
      const Vector3 w = R * in.col(c).template tail<3>();
      out.col(c).template head<3>() = R * in.col(c).template head<3>() + p.cross(w);
      out.col(c).template tail<3>() = w;
    }
  }
  /// The 6 × 6 matrix of act on motion vectors, [[R, p̂R]; [0, R]].
  Matrix6 motion_matrix() const {
    Matrix6 X;
    X << R, skew(p) * R, Matrix3::Zero(), R;
    return X;
  }
  bool isApprox(const Transform& o, double tol = 1e-12) const {
    return R.isApprox(o.R, tol) && (p - o.p).norm() <= tol * (1.0 + p.norm());
  }
};

/// A symmetric 6 × 6 articulated inertia in body coordinates expressed in the
/// parent's coordinates: X⁻ᵀ I X⁻¹ with X = T.motion_matrix(), done blockwise:
/// rotate the three blocks, then shift by p (RBDA eq. 2.66).
inline Matrix6 transform_inertia_matrix(const Transform& T, const Matrix6& I) {
  const Matrix3 A = T.R * I.topLeftCorner<3, 3>() * T.R.transpose();
  const Matrix3 B = T.R * I.topRightCorner<3, 3>() * T.R.transpose();
  const Matrix3 C = T.R * I.bottomRightCorner<3, 3>() * T.R.transpose();
  const Matrix3 P = skew(T.p);
  const Matrix3 AP = A * P;
  const Matrix3 PB = P * B;
  Matrix6 out;
  out.topLeftCorner<3, 3>() = A;
  out.topRightCorner<3, 3>() = B - AP;
  out.bottomLeftCorner<3, 3>() = (B - AP).transpose();
  out.bottomRightCorner<3, 3>() = C + PB + PB.transpose() - P * AP;
  return out;
}

}  // namespace articula
