#pragma once
/// Rigid transforms acting on spatial vectors (RBDA §2.8, eqs. 2.24–2.26), generic over the
/// scalar as spatial/motion.hpp.
#include "articula/spatial/motion.hpp"

namespace articula {

/// Pose of a frame B in a frame A: x_A = R x_B + p (so X_AB maps B coordinates to A).
/// `act` carries vectors from B to A coordinates, `act_inv` from A to B.
template <typename S>
struct TransformTpl {
  using Vec3 = Eigen::Matrix<S, 3, 1>;
  using Mat3 = Eigen::Matrix<S, 3, 3>;
  Mat3 R = Mat3::Identity();
  Vec3 p = Vec3::Zero();

  static TransformTpl Identity() { return {}; }
  template <typename T>
  TransformTpl<T> cast() const {
    return {R.template cast<T>(), p.template cast<T>()};
  }
  TransformTpl operator*(const TransformTpl& o) const { return {R * o.R, R * o.p + p}; }
  TransformTpl inverse() const { return {R.transpose(), -(R.transpose() * p)}; }
  Vec3 act_point(const Vec3& x) const { return R * x + p; }
  Vec3 act_inv_point(const Vec3& x) const { return R.transpose() * (x - p); }
  /// Transform composed with the inverse of o, this⁻¹ * o, without forming the inverse.
  TransformTpl inv_times(const TransformTpl& o) const { return {R.transpose() * o.R, R.transpose() * (o.p - p)}; }

  MotionTpl<S> act(const MotionTpl<S>& m) const {
    const Vec3 w = R * m.w;
    return {R * m.v + p.cross(w), w};
  }
  MotionTpl<S> act_inv(const MotionTpl<S>& m) const {
    return {R.transpose() * (m.v - p.cross(m.w)), R.transpose() * m.w};
  }
  ForceTpl<S> act(const ForceTpl<S>& f) const {
    const Vec3 ff = R * f.f;
    return {ff, R * f.n + p.cross(ff)};
  }
  ForceTpl<S> act_inv(const ForceTpl<S>& f) const {
    return {R.transpose() * f.f, R.transpose() * (f.n - p.cross(f.f))};
  }
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
  Eigen::Matrix<S, 6, 6> motion_matrix() const {
    Eigen::Matrix<S, 6, 6> X;
    X << R, skew_matrix<S>(p) * R, Mat3::Zero(), R;
    return X;
  }
  bool isApprox(const TransformTpl& o, double tol = 1e-12) const {
    return R.isApprox(o.R, tol) && (p - o.p).norm() <= tol * (1.0 + p.norm());
  }
};

using Transform = TransformTpl<double>;

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
