#pragma once
/// sin and cos of one angle, for the joint placements of the recursions (a joint angle is a
/// few radians): Cody–Waite reduction by π/2 (three-part π/2 of fdlibm's __ieee754_rem_pio2)
/// and the minimax kernels of fdlibm's k_sin.c / k_cos.c (Sun Microsystems, 1993) on
/// [−π/4, π/4], evaluated with the reduction's tail; about 1 ulp. |x| ≥ 1e5, inf and NaN go
/// to the C library. The coefficients are the published ones; the code is this project's.
#include <cmath>

namespace articula {

namespace sincos_detail {
inline constexpr double kInvPio2 = 6.36619772367581382433e-01;
inline constexpr double kPio2_1 = 1.57079632673412561417e+00;   // first 33 bits of π/2
inline constexpr double kPio2_1t = 6.07710050650619224932e-11;  // π/2 − kPio2_1
inline constexpr double S1 = -1.66666666666666324348e-01, S2 = 8.33333333332248946124e-03,
                        S3 = -1.98412698298579493134e-04, S4 = 2.75573137070700676789e-06,
                        S5 = -2.50507602534068634195e-08, S6 = 1.58969099521155010221e-10;
inline constexpr double C1 = 4.16666666666666019037e-02, C2 = -1.38888888888741095749e-03,
                        C3 = 2.48015872894767294178e-05, C4 = -2.75573143513906633035e-07,
                        C5 = 2.08757232129817482790e-09, C6 = -1.13596475577881948265e-11;

// sin(x + y), |x + y| ≤ π/4, y the tail of x (k_sin.c).
inline double kernel_sin(double x, double y) {
  const double z = x * x, w = z * z, v = z * x;
  const double r = S2 + z * (S3 + z * S4) + z * w * (S5 + z * S6);
  return x - ((z * (0.5 * y - v * r) - y) - v * S1);
}
// cos(x + y), |x + y| ≤ π/4 (k_cos.c, the form with w = 1 − z/2 and its rounding error).
inline double kernel_cos(double x, double y) {
  const double z = x * x, w2 = z * z;
  const double r = z * (C1 + z * (C2 + z * C3)) + w2 * w2 * (C4 + z * (C5 + z * C6));
  const double hz = 0.5 * z, w = 1.0 - hz;
  return w + (((1.0 - w) - hz) + (z * r - x * y));
}
}  // namespace sincos_detail

/// s = sin x, c = cos x.
inline void fast_sincos(double x, double& s, double& c) {
  using namespace sincos_detail;
  if (!(std::abs(x) < 1e5)) {
    s = std::sin(x);
    c = std::cos(x);
    return;
  }
  const double n = std::nearbyint(x * kInvPio2);
  const double r1 = x - n * kPio2_1;  // exact: n·kPio2_1 has ≤ 53 bits for |n| < 2²⁰
  const double w = n * kPio2_1t;
  const double r = r1 - w;
  const double tail = (r1 - r) - w;
  const double sr = kernel_sin(r, tail), cr = kernel_cos(r, tail);
  switch (static_cast<long>(n) & 3) {
    case 0:
      s = sr, c = cr;
      break;
    case 1:
      s = cr, c = -sr;
      break;
    case 2:
      s = -sr, c = -cr;
      break;
    default:
      s = -cr, c = sr;
      break;
  }
}

}  // namespace articula
