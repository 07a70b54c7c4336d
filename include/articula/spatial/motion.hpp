#pragma once
/// Spatial motion and force vectors, ordered [linear; angular] (Featherstone's
/// Plücker vectors with the two halves swapped; RBDA §2.2–2.9).
///
/// Generic over the scalar: `MotionTpl<double>` (= Motion) is the runtime's, and the code
/// generator instantiates the same algebra on its symbolic scalar (codegen/sym.hpp), so the
/// spatial algebra is written once (docs/decisions/0003-one-implementation.md).
#include "articula/common/types.hpp"

// The recursions call these small routines in their hot loops; g++ otherwise leaves some
// un-inlined in large functions. ARTICULA_FLATTEN inlines a whole function's call tree. Not in
// a sanitizer build: there it buys no speed worth having, and a flattened recursion took minutes
// and gigabytes to compile (aba.cpp: 5 min, 3.6 GB under ASan/UBSan at -O1 -g).
#if defined(__SANITIZE_ADDRESS__)
#define ARTICULA_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ARTICULA_SANITIZED 1
#endif
#endif
#if defined(__GNUC__)
#define ARTICULA_ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ARTICULA_ALWAYS_INLINE inline
#endif
#if defined(__GNUC__) && !defined(ARTICULA_SANITIZED)
#define ARTICULA_FLATTEN __attribute__((flatten))
#else
#define ARTICULA_FLATTEN
#endif

namespace articula {

/// x̂, the cross-product matrix: x̂ y = x × y.
template <typename S>
Eigen::Matrix<S, 3, 3> skew_matrix(const Eigen::Matrix<S, 3, 1>& x) {
  Eigen::Matrix<S, 3, 3> s;
  s << S(0.0), -x.z(), x.y(), x.z(), S(0.0), -x.x(), -x.y(), x.x(), S(0.0);
  return s;
}
inline Matrix3 skew(const Vector3& x) { return skew_matrix<double>(x); }

/// A spatial force f = [force; moment], moment taken about the frame origin.
template <typename S>
struct ForceTpl {
  using Vec3 = Eigen::Matrix<S, 3, 1>;
  using Vec6 = Eigen::Matrix<S, 6, 1>;
  Vec3 f = Vec3::Zero();  // linear part (force)
  Vec3 n = Vec3::Zero();  // angular part (moment about the origin)

  static ForceTpl Zero() { return {}; }
  Vec6 vector() const {
    Vec6 x;
    x << f, n;
    return x;
  }
  static ForceTpl from(const Vec6& x) { return {x.template head<3>(), x.template tail<3>()}; }
  template <typename T>
  ForceTpl<T> cast() const {
    return {f.template cast<T>(), n.template cast<T>()};
  }
  ForceTpl operator+(const ForceTpl& o) const { return {f + o.f, n + o.n}; }
  ForceTpl operator-(const ForceTpl& o) const { return {f - o.f, n - o.n}; }
  ForceTpl operator-() const { return {-f, -n}; }
  ForceTpl operator*(const S& s) const { return {f * s, n * s}; }
  ForceTpl& operator+=(const ForceTpl& o) {
    f += o.f;
    n += o.n;
    return *this;
  }
  ForceTpl& operator-=(const ForceTpl& o) {
    f -= o.f;
    n -= o.n;
    return *this;
  }
};

/// A spatial motion m = [linear velocity of the frame origin; angular velocity].
template <typename S>
struct MotionTpl {
  using Vec3 = Eigen::Matrix<S, 3, 1>;
  using Vec6 = Eigen::Matrix<S, 6, 1>;
  Vec3 v = Vec3::Zero();  // linear part
  Vec3 w = Vec3::Zero();  // angular part

  static MotionTpl Zero() { return {}; }
  Vec6 vector() const {
    Vec6 x;
    x << v, w;
    return x;
  }
  static MotionTpl from(const Vec6& x) { return {x.template head<3>(), x.template tail<3>()}; }
  template <typename T>
  MotionTpl<T> cast() const {
    return {v.template cast<T>(), w.template cast<T>()};
  }
  MotionTpl operator+(const MotionTpl& o) const { return {v + o.v, w + o.w}; }
  MotionTpl operator-(const MotionTpl& o) const { return {v - o.v, w - o.w}; }
  MotionTpl operator-() const { return {-v, -w}; }
  MotionTpl operator*(const S& s) const { return {v * s, w * s}; }
  MotionTpl& operator+=(const MotionTpl& o) {
    v += o.v;
    w += o.w;
    return *this;
  }
  MotionTpl& operator-=(const MotionTpl& o) {
    v -= o.v;
    w -= o.w;
    return *this;
  }

  /// Motion cross product m × m2 (RBDA eq. 2.31): [w×v2 + v×w2; w×w2].
  MotionTpl cross(const MotionTpl& m2) const { return {w.cross(m2.v) + v.cross(m2.w), w.cross(m2.w)}; }
  /// Force cross product m ×* f (RBDA eq. 2.32): [w×f; w×n + v×f].
  ForceTpl<S> cross(const ForceTpl<S>& f2) const { return {w.cross(f2.f), w.cross(f2.n) + v.cross(f2.f)}; }
  /// Power pairing mᵀ f.
  S dot(const ForceTpl<S>& f2) const { return v.dot(f2.f) + w.dot(f2.n); }
};

using Force = ForceTpl<double>;
using Motion = MotionTpl<double>;

}  // namespace articula
