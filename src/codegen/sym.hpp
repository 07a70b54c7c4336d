#pragma once
/// Sym as a scalar type: arithmetic operators that fold numbers and otherwise emit into the
/// active Emitter (Emitter::Active), and Eigen's traits for it, so that Eigen matrices of Sym
/// and the generic spatial algebra (spatial/*.hpp) and recursions run on generator scalars
/// (Eigen's "custom scalar types": NumTraits, ScalarBinaryOpTraits for mixing with double).
#include <Eigen/Core>
#include <cmath>
#include <limits>

#include "codegen/emitter.hpp"

namespace articula::codegen {

inline Sym operator+(const Sym& a, const Sym& b) {
  if (a.is_number() && b.is_number()) return Sym(a.value + b.value);
  return Emitter::active().add(a, b);
}
inline Sym operator-(const Sym& a, const Sym& b) {
  if (a.is_number() && b.is_number()) return Sym(a.value - b.value);
  return Emitter::active().sub(a, b);
}
inline Sym operator*(const Sym& a, const Sym& b) {
  if (a.is_number() && b.is_number()) return Sym(a.value * b.value);
  return Emitter::active().mul(a, b);
}
inline Sym operator/(const Sym& a, const Sym& b) {
  if (a.is_number() && b.is_number()) return Sym(a.value / b.value);
  return Emitter::active().div(a, b);
}
inline Sym operator-(const Sym& a) { return a.is_number() ? Sym(-a.value) : Emitter::active().neg(a); }
inline Sym operator+(const Sym& a) { return a; }
inline Sym& operator+=(Sym& a, const Sym& b) { return a = a + b; }
inline Sym& operator-=(Sym& a, const Sym& b) { return a = a - b; }
inline Sym& operator*=(Sym& a, const Sym& b) { return a = a * b; }
inline Sym& operator/=(Sym& a, const Sym& b) { return a = a / b; }

/// sin and cos as the runtime's sin_cos (fast_sincos in the generated code).
inline void sin_cos(const Sym& x, Sym& s, Sym& c) {
  if (x.is_number()) {
    s = Sym(std::sin(x.value));
    c = Sym(std::cos(x.value));
    return;
  }
  Emitter::active().sincos(x, s, c);
}

/// √x, min(a, b) and `c > 0 ? a : 0` in the generated code (found by argument-dependent lookup
/// from code generic over the scalar, beside std::sqrt and std::fmin for double).
inline Sym sqrt(const Sym& x) { return Emitter::active().sqrt(x); }
inline Sym fmin(const Sym& a, const Sym& b) { return Emitter::active().fmin(a, b); }
inline Sym if_positive(const Sym& c, const Sym& a) { return Emitter::active().if_positive(c, a); }

/// Eigen matrices of generator scalars.
using SVector3 = Eigen::Matrix<Sym, 3, 1>;
using SMatrix3 = Eigen::Matrix<Sym, 3, 3>;
using SVector6 = Eigen::Matrix<Sym, 6, 1>;
using SMatrix6 = Eigen::Matrix<Sym, 6, 6>;

}  // namespace articula::codegen

namespace Eigen {

template <>
struct NumTraits<articula::codegen::Sym> : GenericNumTraits<articula::codegen::Sym> {
  using Sym = articula::codegen::Sym;
  using Real = Sym;
  using NonInteger = Sym;
  using Nested = Sym;
  using Literal = Sym;
  enum {
    IsComplex = 0,
    IsInteger = 0,
    IsSigned = 1,
    RequireInitialization = 1,
    ReadCost = 1,
    AddCost = 1,
    MulCost = 1
  };
  static Sym epsilon() { return Sym(std::numeric_limits<double>::epsilon()); }
  static Sym dummy_precision() { return Sym(1e-12); }
  static Sym highest() { return Sym(std::numeric_limits<double>::max()); }
  static Sym lowest() { return Sym(std::numeric_limits<double>::lowest()); }
  static int digits10() { return std::numeric_limits<double>::digits10; }
};

template <typename Op>
struct ScalarBinaryOpTraits<articula::codegen::Sym, double, Op> {
  using ReturnType = articula::codegen::Sym;
};
template <typename Op>
struct ScalarBinaryOpTraits<double, articula::codegen::Sym, Op> {
  using ReturnType = articula::codegen::Sym;
};

}  // namespace Eigen
