#include <gtest/gtest.h>

#include <limits>

#include "articula/common/types.hpp"

namespace articula {
namespace {

TEST(AllFinite, AgreesWithEigenOnEveryKindOfEntry) {
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double big = std::numeric_limits<double>::max();
  EXPECT_TRUE(all_finite(VectorX()));
  EXPECT_TRUE(all_finite(MatrixX::Zero(0, 3)));
  for (const double bad : {inf, -inf, nan}) {
    for (int pos = 0; pos < 37; ++pos) {
      MatrixX A = MatrixX::Random(6, 37 / 6 + 1);
      A(pos % 6, pos / 6) = bad;
      EXPECT_FALSE(all_finite(A)) << bad << " at " << pos;
      EXPECT_EQ(all_finite(A), A.allFinite());
      EXPECT_FALSE(all_finite(A.col(pos / 6)));
      EXPECT_TRUE(all_finite(A.col((pos / 6 + 1) % A.cols())));
    }
  }
  // Huge finite entries whose sum would overflow are still finite.
  VectorX v = VectorX::Constant(8, big);
  EXPECT_TRUE(all_finite(v));
  v[3] = -big;
  EXPECT_TRUE(all_finite(v));
  v[5] = std::numeric_limits<double>::denorm_min();
  EXPECT_TRUE(all_finite(v));
}

}  // namespace
}  // namespace articula
