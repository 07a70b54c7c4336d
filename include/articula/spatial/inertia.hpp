#pragma once
/// Rigid-body spatial inertia about the frame origin (RBDA §2.13, eq. 2.63):
/// mass m, first moment h = m c, rotational inertia I_o about the origin.
#include "articula/spatial/transform.hpp"

namespace articula {

struct Inertia {
  double m = 0.0;
  Vector3 h = Vector3::Zero();
  Matrix3 Io = Matrix3::Zero();

  static Inertia Zero() { return {}; }
  /// From mass, centre of mass c and rotational inertia about the centre of mass.
  static Inertia from_com(double mass, const Vector3& c, const Matrix3& Ic) {
    return {mass, mass * c, Ic - mass * skew(c) * skew(c)};
  }
  Vector3 com() const { return m > 0.0 ? Vector3(h / m) : Vector3::Zero(); }
  Matrix3 inertia_about_com() const { return m > 0.0 ? Matrix3(Io + skew(h) * skew(h) / m) : Io; }

  /// f = I m: [m v − h×w; I_o w + h×v].
  Force operator*(const Motion& x) const { return {m * x.v - h.cross(x.w), Io * x.w + h.cross(x.v)}; }
  Inertia operator+(const Inertia& o) const { return {m + o.m, h + o.h, Io + o.Io}; }
  Inertia& operator+=(const Inertia& o) {
    m += o.m;
    h += o.h;
    Io += o.Io;
    return *this;
  }

  /// The inertia expressed in A coordinates, given X_AB (this in B coordinates)
  /// (RBDA eq. 2.66 with the skew products expanded). With r = R h and h' = r + m p:
  /// I_o' = R I_o Rᵀ − p̂ r̂ − ĥ' p̂ = R I_o Rᵀ + 2 (p·g) 1 − (g pᵀ + p gᵀ), g = r + ½ m p,
  /// using â b̂ = b aᵀ − (a·b) 1; both terms are symmetric, so only six entries are computed.
  Inertia transformed(const Transform& X) const {
    const Vector3 r = X.R * h;
    const Vector3 g = r + (0.5 * m) * X.p;
    const Matrix3 T = X.R * Io;
    const double tr = 2.0 * X.p.dot(g);
    Inertia out;
    out.m = m;
    out.h = r + m * X.p;
    for (int c = 0; c < 3; ++c)
      for (int r2 = c; r2 < 3; ++r2) {
        const double v = T.row(r2).dot(X.R.row(c)) - g[r2] * X.p[c] - X.p[r2] * g[c] + (r2 == c ? tr : 0.0);
        out.Io(r2, c) = v;
        out.Io(c, r2) = v;
      }
    return out;
  }
  /// ½ vᵀ I v.
  double kinetic_energy(const Motion& x) const { return 0.5 * x.dot((*this) * x); }
  /// 6 × 6 matrix in [linear; angular] order: [[m 1, −ĥ]; [ĥ, I_o]].
  Matrix6 matrix() const {
    Matrix6 M;
    M.topLeftCorner<3, 3>() = m * Matrix3::Identity();
    M(0, 3) = 0.0;
    M(0, 4) = h.z();
    M(0, 5) = -h.y();
    M(1, 3) = -h.z();
    M(1, 4) = 0.0;
    M(1, 5) = h.x();
    M(2, 3) = h.y();
    M(2, 4) = -h.x();
    M(2, 5) = 0.0;
    M.bottomLeftCorner<3, 3>() = M.topRightCorner<3, 3>().transpose();
    M.bottomRightCorner<3, 3>() = Io;
    return M;
  }
};

}  // namespace articula
