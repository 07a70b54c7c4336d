// Per-joint-type functions (src/model/joint.cpp): sizes, transforms, motion subspaces
// against finite differences, integrate/difference, neutral, normalize, random.
#include <gtest/gtest.h>

#include <array>

#include "test_models.hpp"

namespace articula {
namespace {

using test::random_vector;

constexpr std::array kAllTypes = {JointType::Revolute, JointType::Continuous, JointType::Prismatic,
                                  JointType::Spherical, JointType::FreeFlyer};

/// A random valid configuration of one joint.
std::vector<double> random_q(JointType type, std::mt19937& rng) {
  std::vector<double> lo(7, -2.0), hi(7, 2.0), q(7, 0.0);
  joint_random(type, lo.data(), hi.data(), rng, q.data());
  q.resize(joint_nq(type));
  return q;
}

TEST(Joint, SizesAndNames) {
  EXPECT_EQ(joint_nq(JointType::Revolute), 1);
  EXPECT_EQ(joint_nv(JointType::Revolute), 1);
  EXPECT_EQ(joint_nq(JointType::Continuous), 1);
  EXPECT_EQ(joint_nv(JointType::Continuous), 1);
  EXPECT_EQ(joint_nq(JointType::Prismatic), 1);
  EXPECT_EQ(joint_nv(JointType::Prismatic), 1);
  EXPECT_EQ(joint_nq(JointType::Spherical), 4);
  EXPECT_EQ(joint_nv(JointType::Spherical), 3);
  EXPECT_EQ(joint_nq(JointType::FreeFlyer), 7);
  EXPECT_EQ(joint_nv(JointType::FreeFlyer), 6);
  EXPECT_EQ(to_string(JointType::Revolute), "revolute");
  EXPECT_EQ(to_string(JointType::Continuous), "continuous");
  EXPECT_EQ(to_string(JointType::Prismatic), "prismatic");
  EXPECT_EQ(to_string(JointType::Spherical), "spherical");
  EXPECT_EQ(to_string(JointType::FreeFlyer), "floating");
}

TEST(Joint, TransformsHaveTheDocumentedMeaning) {
  const Vector3 axis = Vector3(1, -2, 0.5).normalized();
  const double angle = 0.7;
  for (JointType t : {JointType::Revolute, JointType::Continuous}) {
    const Transform X = joint_transform(t, axis, &angle);
    EXPECT_LT((X.R - Eigen::AngleAxisd(angle, axis).toRotationMatrix()).norm(), 1e-14);
    EXPECT_EQ(X.p, Vector3::Zero());
  }
  const Transform P = joint_transform(JointType::Prismatic, axis, &angle);
  EXPECT_EQ(P.R, Matrix3::Identity());
  EXPECT_LT((P.p - angle * axis).norm(), 1e-15);

  // Spherical: q = [x y z w] of the child's orientation.
  const Quaternion r = Quaternion(Eigen::AngleAxisd(1.1, Vector3(0.3, 0.4, 0.5).normalized()));
  const double qs[4] = {r.x(), r.y(), r.z(), r.w()};
  EXPECT_LT((joint_transform(JointType::Spherical, Vector3::Zero(), qs).R - r.toRotationMatrix()).norm(), 1e-14);
  // Free-flyer: q = [x y z, qx qy qz qw].
  const double qf[7] = {1.0, -2.0, 3.0, r.x(), r.y(), r.z(), r.w()};
  const Transform F = joint_transform(JointType::FreeFlyer, Vector3::Zero(), qf);
  EXPECT_LT((F.R - r.toRotationMatrix()).norm(), 1e-14);
  EXPECT_EQ(F.p, Vector3(1.0, -2.0, 3.0));
}

TEST(Joint, SubspaceShapes) {
  const Vector3 axis = Vector3(0, 0.6, 0.8);
  const Matrix6X Sr = joint_subspace(JointType::Revolute, axis);
  ASSERT_EQ(Sr.cols(), 1);
  EXPECT_EQ(Sr.col(0).head<3>(), Vector3::Zero());
  EXPECT_EQ(Sr.col(0).tail<3>(), axis);
  const Matrix6X Sp = joint_subspace(JointType::Prismatic, axis);
  ASSERT_EQ(Sp.cols(), 1);
  EXPECT_EQ(Sp.col(0).head<3>(), axis);
  EXPECT_EQ(Sp.col(0).tail<3>(), Vector3::Zero());
  const Matrix6X Ss = joint_subspace(JointType::Spherical, axis);
  ASSERT_EQ(Ss.cols(), 3);
  EXPECT_EQ(Ss.topRows<3>(), Eigen::Matrix3d::Zero());
  EXPECT_EQ(Ss.bottomRows<3>(), Eigen::Matrix3d::Identity());
  const Matrix6X Sf = joint_subspace(JointType::FreeFlyer, axis);
  EXPECT_EQ(Sf, Matrix6::Identity());
}

// S v = the child's velocity in the child frame: log6(X(q)⁻¹ X(q ⊕ εv)) / ε (central).
TEST(Joint, SubspaceIsDerivativeOfTransformAlongIntegrate) {
  std::mt19937 rng(21);
  const Vector3 axis = Vector3(0.2, -0.5, 1.0).normalized();
  const double eps = 1e-6;
  for (JointType t : kAllTypes) {
    for (int k = 0; k < 5; ++k) {
      const std::vector<double> q = random_q(t, rng);
      const VectorX v = random_vector(joint_nv(t), rng);
      std::vector<double> qp(q.size()), qm(q.size());
      joint_integrate(t, q.data(), v.data(), eps, qp.data());
      joint_integrate(t, q.data(), v.data(), -eps, qm.data());
      const Transform Xp = joint_transform(t, axis, qp.data()), Xm = joint_transform(t, axis, qm.data());
      const Vector6 fd = log6(Xm.inv_times(Xp)).vector() / (2 * eps);
      const Vector6 Sv = joint_subspace(t, axis) * v;
      EXPECT_LT((fd - Sv).norm(), 1e-8 * (1 + Sv.norm())) << to_string(t);
    }
  }
}

TEST(Joint, IntegrateDifferenceAreInverse) {
  std::mt19937 rng(22);
  for (JointType t : kAllTypes) {
    const int nq = joint_nq(t), nv = joint_nv(t);
    for (int k = 0; k < 10; ++k) {
      const std::vector<double> q0 = random_q(t, rng);
      const VectorX v = random_vector(nv, rng, 0.8);  // rotation angle well below π
      std::vector<double> q1(nq);
      joint_integrate(t, q0.data(), v.data(), 1.0, q1.data());
      VectorX d(nv);
      joint_difference(t, q0.data(), q1.data(), d.data());
      EXPECT_LT((d - v).norm(), 1e-12) << to_string(t);
      // difference(q, q) = 0, integrate(q, 0) = q.
      joint_difference(t, q0.data(), q0.data(), d.data());
      EXPECT_LT(d.norm(), 1e-12) << to_string(t);
      const VectorX zero = VectorX::Zero(nv);
      std::vector<double> q2(nq);
      joint_integrate(t, q0.data(), zero.data(), 1.0, q2.data());
      for (int i = 0; i < nq; ++i) EXPECT_NEAR(q2[i], q0[i], 1e-15) << to_string(t);
    }
  }
}

TEST(Joint, NeutralIsIdentity) {
  for (JointType t : kAllTypes) {
    std::vector<double> q(joint_nq(t), 5.0);
    joint_neutral(t, q.data());
    EXPECT_TRUE(joint_transform(t, Vector3(0, 0, 1), q.data()).isApprox(Transform::Identity(), 1e-15)) << to_string(t);
  }
}

TEST(Joint, NormalizeRescalesAndThrowsOnZeroOrNaN) {
  double qs[4] = {0.0, 0.0, 0.0, 2.0};
  joint_normalize(JointType::Spherical, qs);
  EXPECT_DOUBLE_EQ(qs[3], 1.0);
  double qf[7] = {1, 2, 3, 1, 1, 1, 1};
  joint_normalize(JointType::FreeFlyer, qf);
  EXPECT_DOUBLE_EQ(qf[0], 1.0);  // position untouched
  EXPECT_DOUBLE_EQ(qf[3], 0.5);
  double zero[4] = {0, 0, 0, 0};
  EXPECT_THROW(joint_normalize(JointType::Spherical, zero), std::invalid_argument);
  double fzero[7] = {1, 2, 3, 0, 0, 0, 0};
  EXPECT_THROW(joint_normalize(JointType::FreeFlyer, fzero), std::invalid_argument);
  double nan[4] = {0, std::nan(""), 0, 1};
  EXPECT_THROW(joint_normalize(JointType::Spherical, nan), std::invalid_argument);
  double angle = 123.0;  // scalar joints are untouched
  joint_normalize(JointType::Revolute, &angle);
  EXPECT_EQ(angle, 123.0);
}

TEST(Joint, RandomWithinBoundsAndUnitQuaternions) {
  std::mt19937 rng(23);
  const double inf = std::numeric_limits<double>::infinity();
  for (int k = 0; k < 200; ++k) {
    double lo = -0.3, hi = 0.7, q = 0;
    joint_random(JointType::Revolute, &lo, &hi, rng, &q);
    EXPECT_GE(q, lo);
    EXPECT_LE(q, hi);
    joint_random(JointType::Prismatic, &lo, &hi, rng, &q);
    EXPECT_GE(q, lo);
    EXPECT_LE(q, hi);
    double ilo = -inf, ihi = inf;
    joint_random(JointType::Continuous, &ilo, &ihi, rng, &q);
    EXPECT_TRUE(std::isfinite(q));
    EXPECT_LE(std::abs(q), M_PI);
    double qs[4];
    joint_random(JointType::Spherical, &ilo, &ihi, rng, qs);
    EXPECT_NEAR(Eigen::Vector4d(qs[0], qs[1], qs[2], qs[3]).norm(), 1.0, 1e-14);
    std::vector<double> flo(7, -inf), fhi(7, inf), qf(7);
    joint_random(JointType::FreeFlyer, flo.data(), fhi.data(), rng, qf.data());
    for (int i = 0; i < 3; ++i) EXPECT_LE(std::abs(qf[i]), 1.0);
    EXPECT_NEAR(Eigen::Vector4d(qf[3], qf[4], qf[5], qf[6]).norm(), 1.0, 1e-14);
  }
}

}  // namespace
}  // namespace articula
