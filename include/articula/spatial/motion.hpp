#pragma once
/// Spatial motion and force vectors, ordered [linear; angular] (Featherstone's
/// Plücker vectors with the two halves swapped; RBDA §2.2–2.9).
#include "articula/common/types.hpp"

// The recursions call these small routines in their hot loops; g++ otherwise leaves some
// un-inlined in large functions. ARTICULA_FLATTEN inlines a whole function's call tree.
#if defined(__GNUC__)
#define ARTICULA_ALWAYS_INLINE inline __attribute__((always_inline))
#define ARTICULA_FLATTEN __attribute__((flatten))
#else
#define ARTICULA_ALWAYS_INLINE inline
#define ARTICULA_FLATTEN
#endif

namespace articula {

inline Matrix3 skew(const Vector3& x) {
  Matrix3 s;
  s << 0, -x.z(), x.y(), x.z(), 0, -x.x(), -x.y(), x.x(), 0;
  return s;
}

/// A spatial force f = [force; moment], moment taken about the frame origin.
struct Force {
  Vector3 f = Vector3::Zero();  // linear part (force)
  Vector3 n = Vector3::Zero();  // angular part (moment about the origin)

  static Force Zero() { return {}; }
  Vector6 vector() const {
    Vector6 x;
    x << f, n;
    return x;
  }
  static Force from(const Vector6& x) { return {x.head<3>(), x.tail<3>()}; }
  Force operator+(const Force& o) const { return {f + o.f, n + o.n}; }
  Force operator-(const Force& o) const { return {f - o.f, n - o.n}; }
  Force operator-() const { return {-f, -n}; }
  Force operator*(double s) const { return {f * s, n * s}; }
  Force& operator+=(const Force& o) {
    f += o.f;
    n += o.n;
    return *this;
  }
  Force& operator-=(const Force& o) {
    f -= o.f;
    n -= o.n;
    return *this;
  }
};

/// A spatial motion m = [linear velocity of the frame origin; angular velocity].
struct Motion {
  Vector3 v = Vector3::Zero();  // linear part
  Vector3 w = Vector3::Zero();  // angular part

  static Motion Zero() { return {}; }
  Vector6 vector() const {
    Vector6 x;
    x << v, w;
    return x;
  }
  static Motion from(const Vector6& x) { return {x.head<3>(), x.tail<3>()}; }
  Motion operator+(const Motion& o) const { return {v + o.v, w + o.w}; }
  Motion operator-(const Motion& o) const { return {v - o.v, w - o.w}; }
  Motion operator-() const { return {-v, -w}; }
  Motion operator*(double s) const { return {v * s, w * s}; }
  Motion& operator+=(const Motion& o) {
    v += o.v;
    w += o.w;
    return *this;
  }
  Motion& operator-=(const Motion& o) {
    v -= o.v;
    w -= o.w;
    return *this;
  }

  /// Motion cross product m × m2 (RBDA eq. 2.31): [w×v2 + v×w2; w×w2].
  Motion cross(const Motion& m2) const { return {w.cross(m2.v) + v.cross(m2.w), w.cross(m2.w)}; }
  /// Force cross product m ×* f (RBDA eq. 2.32): [w×f; w×n + v×f].
  Force cross(const Force& f2) const { return {w.cross(f2.f), w.cross(f2.n) + v.cross(f2.f)}; }
  /// Power pairing mᵀ f.
  double dot(const Force& f2) const { return v.dot(f2.f) + w.dot(f2.n); }
};

}  // namespace articula
