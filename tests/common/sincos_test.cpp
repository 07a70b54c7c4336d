// fast_sincos (include/articula/common/sincos.hpp) against the C library: within a few ulp
// over the joint-angle range and across the quadrant boundaries, exact at 0, and the
// C library's answer for huge, infinite and NaN arguments.
#include "articula/common/sincos.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace articula {
namespace {

TEST(FastSinCos, MatchesTheCLibraryToAFewUlp) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> wide(-1e3, 1e3), joint(-7.0, 7.0);
  double worst = 0.0;
  auto check = [&](double x) {
    double s, c;
    fast_sincos(x, s, c);
    const double es = std::abs(s - std::sin(x)), ec = std::abs(c - std::cos(x));
    // Absolute error against values of magnitude ≤ 1: 4 ulp of 1.
    worst = std::max({worst, es, ec});
    EXPECT_LE(es, 4 * std::numeric_limits<double>::epsilon()) << "sin " << x;
    EXPECT_LE(ec, 4 * std::numeric_limits<double>::epsilon()) << "cos " << x;
  };
  for (int k = 0; k < 200000; ++k) check(joint(rng));
  for (int k = 0; k < 50000; ++k) check(wide(rng));
  // Around the quadrant boundaries k π/4, where the reduction switches kernels.
  for (int k = -40; k <= 40; ++k)
    for (double d : {-1e-9, -1e-15, 0.0, 1e-15, 1e-9}) check(k * M_PI / 4 + d);
  EXPECT_LT(worst, 4 * std::numeric_limits<double>::epsilon());
  double s, c;
  fast_sincos(0.0, s, c);
  EXPECT_EQ(s, 0.0);
  EXPECT_EQ(c, 1.0);
}

TEST(FastSinCos, HugeInfiniteAndNaNGoToTheCLibrary) {
  double s, c;
  fast_sincos(1e7 + 0.25, s, c);
  EXPECT_EQ(s, std::sin(1e7 + 0.25));
  EXPECT_EQ(c, std::cos(1e7 + 0.25));
  fast_sincos(std::numeric_limits<double>::infinity(), s, c);
  EXPECT_TRUE(std::isnan(s) && std::isnan(c));
  fast_sincos(std::numeric_limits<double>::quiet_NaN(), s, c);
  EXPECT_TRUE(std::isnan(s) && std::isnan(c));
}

}  // namespace
}  // namespace articula
