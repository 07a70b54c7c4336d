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
  Inertia& operator+=(const Inertia& o) { m += o.m; h += o.h; Io += o.Io; return *this; }

  /// The inertia expressed in A coordinates, given X_AB (this in B coordinates).
  Inertia transformed(const Transform& X) const {
    const Vector3 Rh = X.R * h;
    const Vector3 h2 = Rh + m * X.p;
    const Matrix3 P = skew(X.p);
    return {m, h2, X.R * Io * X.R.transpose() - P * skew(Rh) - skew(h2) * P};
  }
  /// ½ vᵀ I v.
  double kinetic_energy(const Motion& x) const { return 0.5 * x.dot((*this) * x); }
  /// 6 × 6 matrix in [linear; angular] order: [[m 1, −ĥ]; [ĥ, I_o]].
  Matrix6 matrix() const {
    Matrix6 M;
    const Matrix3 H = skew(h);
    M << m * Matrix3::Identity(), -H, H, Io;
    return M;
  }
};

}  // namespace articula
