#pragma once
/// Rigid-body spatial inertia about the frame origin (RBDA §2.13, eq. 2.63):
/// mass m, first moment h = m c, rotational inertia I_o about the origin. Generic over the
/// scalar as spatial/motion.hpp.
#include "articula/spatial/transform.hpp"

namespace articula {

template <typename S>
struct InertiaTpl {
  using Vec3 = Eigen::Matrix<S, 3, 1>;
  using Mat3 = Eigen::Matrix<S, 3, 3>;
  S m = S(0.0);
  Vec3 h = Vec3::Zero();
  Mat3 Io = Mat3::Zero();

  static InertiaTpl Zero() { return {}; }
  template <typename T>
  InertiaTpl<T> cast() const {
    return {T(m), h.template cast<T>(), Io.template cast<T>()};
  }
  /// From mass, centre of mass c and rotational inertia about the centre of mass.
  static InertiaTpl from_com(const S& mass, const Vec3& c, const Mat3& Ic) {
    return {mass, mass * c, Ic - mass * skew_matrix<S>(c) * skew_matrix<S>(c)};
  }
  Vec3 com() const { return m > 0.0 ? Vec3(h / m) : Vec3::Zero(); }
  Mat3 inertia_about_com() const { return m > 0.0 ? Mat3(Io + skew_matrix<S>(h) * skew_matrix<S>(h) / m) : Io; }

  /// f = I m: [m v − h×w; I_o w + h×v].
  ForceTpl<S> operator*(const MotionTpl<S>& x) const { return {m * x.v - h.cross(x.w), Io * x.w + h.cross(x.v)}; }
  InertiaTpl operator+(const InertiaTpl& o) const { return {m + o.m, h + o.h, Io + o.Io}; }
  InertiaTpl& operator+=(const InertiaTpl& o) {
    m += o.m;
    h += o.h;
    Io += o.Io;
    return *this;
  }

  /// The inertia expressed in A coordinates, given X_AB (this in B coordinates)
  /// (RBDA eq. 2.66 with the skew products expanded). With r = R h and h' = r + m p:
  /// I_o' = R I_o Rᵀ − p̂ r̂ − ĥ' p̂ = R I_o Rᵀ + 2 (p·g) 1 − (g pᵀ + p gᵀ), g = r + ½ m p,
  /// using â b̂ = b aᵀ − (a·b) 1; both terms are symmetric, so only six entries are computed.
  InertiaTpl transformed(const TransformTpl<S>& X) const {
    const Vec3 r = X.R * h;
    const Vec3 g = r + (0.5 * m) * X.p;
    const Mat3 T = X.R * Io;
    const S tr = 2.0 * X.p.dot(g);
    InertiaTpl out;
    out.m = m;
    out.h = r + m * X.p;
    for (int c = 0; c < 3; ++c)
      for (int r2 = c; r2 < 3; ++r2) {
        const S v = T.row(r2).dot(X.R.row(c)) - g[r2] * X.p[c] - X.p[r2] * g[c] + (r2 == c ? tr : S(0.0));
        out.Io(r2, c) = v;
        out.Io(c, r2) = v;
      }
    return out;
  }
  /// ½ vᵀ I v.
  S kinetic_energy(const MotionTpl<S>& x) const { return 0.5 * x.dot((*this) * x); }
  /// 6 × 6 matrix in [linear; angular] order: [[m 1, −ĥ]; [ĥ, I_o]].
  Eigen::Matrix<S, 6, 6> matrix() const {
    Eigen::Matrix<S, 6, 6> M;
    M.template topLeftCorner<3, 3>() = m * Mat3::Identity();
    M(0, 3) = S(0.0);
    M(0, 4) = h.z();
    M(0, 5) = -h.y();
    M(1, 3) = -h.z();
    M(1, 4) = S(0.0);
    M(1, 5) = h.x();
    M(2, 3) = h.y();
    M(2, 4) = -h.x();
    M(2, 5) = S(0.0);
    M.template bottomLeftCorner<3, 3>() = M.template topRightCorner<3, 3>().transpose();
    M.template bottomRightCorner<3, 3>() = Io;
    return M;
  }
};

using Inertia = InertiaTpl<double>;

}  // namespace articula
