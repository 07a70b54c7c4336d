// The configuration manifold (src/model/configuration.cpp): neutral, integrate, difference,
// normalize, random_configuration, on every test model.
#include <gtest/gtest.h>

#include "test_models.hpp"

namespace articula {
namespace {

using test::random_vector;
using test::test_models;

/// q1 and q2 describe the same configuration: equal coordinates, quaternions up to sign.
::testing::AssertionResult same_configuration(const Model& model, const VectorX& q1, const VectorX& q2, double tol) {
  for (Index i = 0; i < model.njoints; ++i) {
    const int iq = model.idx_q[i];
    const JointType t = model.joint_types[i];
    const int nquat = t == JointType::Spherical || t == JointType::FreeFlyer ? 4 : 0;
    const int npos = model.nq_joint[i] - nquat;
    for (int k = 0; k < npos; ++k)
      if (std::abs(q1[iq + k] - q2[iq + k]) > tol)
        return ::testing::AssertionFailure()
               << "joint " << model.joint_names[i] << " coordinate " << k << ": " << q1[iq + k] << " vs " << q2[iq + k];
    if (nquat) {
      const Eigen::Vector4d a = q1.segment<4>(iq + npos), b = q2.segment<4>(iq + npos);
      if (std::min((a - b).norm(), (a + b).norm()) > tol)
        return ::testing::AssertionFailure()
               << "joint " << model.joint_names[i] << " quaternion " << a.transpose() << " vs " << b.transpose();
    }
  }
  return ::testing::AssertionSuccess();
}

/// Every quaternion of q has unit norm within tol.
::testing::AssertionResult unit_quaternions(const Model& model, const VectorX& q, double tol) {
  for (Index i = 0; i < model.njoints; ++i) {
    const JointType t = model.joint_types[i];
    if (t != JointType::Spherical && t != JointType::FreeFlyer) continue;
    const int iq = model.idx_q[i] + (t == JointType::FreeFlyer ? 3 : 0);
    const double n = q.segment<4>(iq).norm();
    if (std::abs(n - 1.0) > tol)
      return ::testing::AssertionFailure() << "joint " << model.joint_names[i] << ": |quaternion| = " << n;
  }
  return ::testing::AssertionSuccess();
}

TEST(Configuration, NeutralIsTheIdentityPlacement) {
  for (const auto& [name, model] : test_models()) {
    const VectorX q = neutral(model);
    ASSERT_EQ(q.size(), model.nq);
    Data data(model);
    forward_kinematics(model, data, q);
    for (Index i = 0; i < model.njoints; ++i)
      EXPECT_TRUE(data.liMi[i].isApprox(model.joint_placements[i], 1e-15)) << name << " joint " << i;
    EXPECT_TRUE(unit_quaternions(model, q, 0.0)) << name;
  }
}

TEST(Configuration, DifferenceInvertsIntegrate) {
  std::mt19937 rng(31);
  for (const auto& [name, model] : test_models()) {
    for (int k = 0; k < 5; ++k) {
      const VectorX q = random_configuration(model, rng);
      const VectorX v = random_vector(model.nv, rng, 0.7);  // moderate: rotation angles below π
      const VectorX q1 = integrate(model, q, v, 1.0);
      EXPECT_LT((difference(model, q, q1) - v).norm(), 1e-11) << name;
      // With a time step: integrate(q, v, dt) = integrate(q, v dt, 1).
      EXPECT_TRUE(
          same_configuration(model, integrate(model, q, v, 0.3), integrate(model, q, VectorX(0.3 * v), 1.0), 1e-14))
          << name;
      EXPECT_LT(difference(model, q, q).norm(), 1e-12) << name;
      EXPECT_TRUE(same_configuration(model, integrate(model, q, VectorX::Zero(model.nv), 1.0), q, 1e-15)) << name;
    }
  }
}

TEST(Configuration, IntegrateInvertsDifference) {
  std::mt19937 rng(32);
  for (const auto& [name, model] : test_models()) {
    for (int k = 0; k < 5; ++k) {
      const VectorX q0 = random_configuration(model, rng);
      const VectorX q1 = random_configuration(model, rng);
      const VectorX d = difference(model, q0, q1);
      EXPECT_TRUE(same_configuration(model, integrate(model, q0, d, 1.0), q1, 1e-10)) << name;
      // A quaternion and its negative are the same rotation: the difference is unchanged.
      VectorX q1neg = q1;
      for (Index i = 0; i < model.njoints; ++i) {
        const JointType t = model.joint_types[i];
        if (t == JointType::Spherical) q1neg.segment<4>(model.idx_q[i]) *= -1.0;
        if (t == JointType::FreeFlyer) q1neg.segment<4>(model.idx_q[i] + 3) *= -1.0;
      }
      EXPECT_LT((difference(model, q0, q1neg) - d).norm(), 1e-10) << name;
    }
  }
}

TEST(Configuration, IntegrateIsAOneParameterGroup) {
  // exp(t1 v) exp(t2 v) = exp((t1 + t2) v) on every joint's group.
  std::mt19937 rng(33);
  for (const auto& [name, model] : test_models()) {
    const VectorX q = random_configuration(model, rng);
    const VectorX v = random_vector(model.nv, rng);
    EXPECT_TRUE(same_configuration(model, integrate(model, integrate(model, q, v, 0.4), v, 0.7),
                                   integrate(model, q, v, 1.1), 1e-12))
        << name;
    // Going back along −v returns to q.
    EXPECT_TRUE(same_configuration(model, integrate(model, integrate(model, q, v, 0.8), v, -0.8), q, 1e-12)) << name;
  }
}

TEST(Configuration, IntegrateInPlace) {
  std::mt19937 rng(34);
  for (const auto& [name, model] : test_models()) {
    const VectorX q0 = random_configuration(model, rng);
    const VectorX v = random_vector(model.nv, rng);
    VectorX q = q0;
    integrate(model, q, v, 0.1, q);
    EXPECT_EQ(q, integrate(model, q0, v, 0.1)) << name;
  }
}

TEST(Configuration, QuaternionsStayUnitOverManySteps) {
  std::mt19937 rng(35);
  for (const auto& [name, model] : test_models()) {
    VectorX q = random_configuration(model, rng);
    const VectorX v = random_vector(model.nv, rng, 3.0);
    for (int k = 0; k < 5000; ++k) integrate(model, q, v, 1e-3, q);
    EXPECT_TRUE(unit_quaternions(model, q, 1e-14)) << name;
  }
}

TEST(Configuration, NormalizeRescalesAndThrowsOnZeroQuaternion) {
  const Model model = test::mixed_model(true);
  std::mt19937 rng(36);
  VectorX q = random_configuration(model, rng);
  const VectorX q_unit = q;
  q.segment<4>(3) *= 3.0;               // free-flyer quaternion
  q.segment<4>(model.idx_q[1]) *= 0.5;  // spherical quaternion
  normalize(model, q);
  EXPECT_LT((q - q_unit).norm(), 1e-15);
  VectorX zero = q_unit;
  zero.segment<4>(model.idx_q[1]).setZero();
  EXPECT_THROW(normalize(model, zero), std::invalid_argument);
  VectorX zero_ff = q_unit;
  zero_ff.segment<4>(3).setZero();
  EXPECT_THROW(normalize(model, zero_ff), std::invalid_argument);
  VectorX nan = q_unit;
  nan[4] = std::nan("");
  EXPECT_THROW(normalize(model, nan), std::invalid_argument);
  VectorX short_q(model.nq - 1);
  EXPECT_THROW(normalize(model, short_q), std::invalid_argument);
}

TEST(Configuration, RandomConfigurationStaysWithinLimits) {
  std::mt19937 rng(37);
  for (const auto& [name, model] : test_models()) {
    for (int k = 0; k < 50; ++k) {
      const VectorX q = random_configuration(model, rng);
      ASSERT_EQ(q.size(), model.nq);
      EXPECT_TRUE(q.allFinite()) << name;
      for (int i = 0; i < model.nq; ++i) {
        EXPECT_GE(q[i], model.lower[i]) << name << " coordinate " << i;  // vacuous where the limit is −∞
        EXPECT_LE(q[i], model.upper[i]) << name << " coordinate " << i;
      }
      EXPECT_TRUE(unit_quaternions(model, q, 1e-14)) << name;
    }
  }
  // Seeded: the same generator state gives the same configuration.
  const Model& model = test_models().back().model;
  std::mt19937 a(99), b(99);
  EXPECT_EQ(random_configuration(model, a), random_configuration(model, b));
}

TEST(Configuration, SizeMismatchThrows) {
  const Model model = test::mixed_model(false);
  const VectorX q = neutral(model);
  const VectorX v = VectorX::Zero(model.nv);
  EXPECT_THROW(integrate(model, VectorX(q.head(model.nq - 1)), v, 1.0), std::invalid_argument);
  EXPECT_THROW(integrate(model, q, VectorX(v.head(model.nv - 1)), 1.0), std::invalid_argument);
  EXPECT_THROW(difference(model, q, VectorX(q.head(model.nq - 1))), std::invalid_argument);
  VectorX out(model.nq + 1);
  EXPECT_THROW(integrate(model, q, v, 1.0, out), std::invalid_argument);
}

}  // namespace
}  // namespace articula
