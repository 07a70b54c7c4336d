// Spatial algebra (include/articula/spatial/*, exp/log in model/joint.hpp): transforms acting
// on motions and forces against their 6 × 6 matrices, inertia transformation, cross products,
// and the SE(3)/SO(3) exponential and logarithm.
#include <gtest/gtest.h>

#include <unsupported/Eigen/MatrixFunctions>

#include "test_models.hpp"

namespace articula {
namespace {

using test::crm;
using test::random_force;
using test::random_motion;
using test::random_transform;
using test::random_vector;

constexpr double kTol = 1e-12;

/// 4 × 4 homogeneous matrix of a transform and of a twist.
Eigen::Matrix4d homogeneous(const Transform& X) {
  Eigen::Matrix4d T = Eigen::Matrix4d::Identity();
  T.topLeftCorner<3, 3>() = X.R;
  T.topRightCorner<3, 1>() = X.p;
  return T;
}
Eigen::Matrix4d hat(const Motion& m) {
  Eigen::Matrix4d T = Eigen::Matrix4d::Zero();
  T.topLeftCorner<3, 3>() = skew(m.w);
  T.topRightCorner<3, 1>() = m.v;
  return T;
}

TEST(Transform, ComposeInverseAndPoints) {
  std::mt19937 rng(1);
  for (int k = 0; k < 20; ++k) {
    const Transform A = random_transform(rng), B = random_transform(rng);
    EXPECT_TRUE((A * A.inverse()).isApprox(Transform::Identity(), kTol));
    EXPECT_TRUE(A.inv_times(B).isApprox(A.inverse() * B, kTol));
    EXPECT_LT((homogeneous(A * B) - homogeneous(A) * homogeneous(B)).norm(), kTol * 10);
    const Vector3 x = random_vector(3, rng);
    EXPECT_LT((A.act_point(x) - (A.R * x + A.p)).norm(), kTol * 10);
    EXPECT_LT((A.act_inv_point(A.act_point(x)) - x).norm(), kTol * 10);
    EXPECT_LT((A.R.transpose() * A.R - Matrix3::Identity()).norm(), kTol);
  }
}

TEST(Transform, ActAndActInvAreInverse) {
  std::mt19937 rng(2);
  for (int k = 0; k < 20; ++k) {
    const Transform X = random_transform(rng);
    const Motion m = random_motion(rng);
    const Force f = random_force(rng);
    EXPECT_LT((X.act_inv(X.act(m)).vector() - m.vector()).norm(), kTol * 10);
    EXPECT_LT((X.act(X.act_inv(m)).vector() - m.vector()).norm(), kTol * 10);
    EXPECT_LT((X.act_inv(X.act(f)).vector() - f.vector()).norm(), kTol * 10);
    EXPECT_LT((X.act(X.act_inv(f)).vector() - f.vector()).norm(), kTol * 10);
    // act_inv is the action of the inverse transform.
    EXPECT_LT((X.act_inv(m).vector() - X.inverse().act(m).vector()).norm(), kTol * 10);
    EXPECT_LT((X.act_inv(f).vector() - X.inverse().act(f).vector()).norm(), kTol * 10);
    // Composition: (A B) m = A (B m).
    const Transform Y = random_transform(rng);
    EXPECT_LT(((X * Y).act(m).vector() - X.act(Y.act(m)).vector()).norm(), kTol * 10);
    EXPECT_LT(((X * Y).act(f).vector() - X.act(Y.act(f)).vector()).norm(), kTol * 10);
    // Power is invariant: (X m)·(X f) = m·f.
    EXPECT_NEAR(X.act(m).dot(X.act(f)), m.dot(f), kTol * 10);
  }
}

TEST(Transform, ActMatchesMotionMatrix) {
  std::mt19937 rng(3);
  for (int k = 0; k < 20; ++k) {
    const Transform X = random_transform(rng);
    const Matrix6 Xm = X.motion_matrix();
    const Motion m = random_motion(rng);
    const Force f = random_force(rng);
    EXPECT_LT((X.act(m).vector() - Xm * m.vector()).norm(), kTol * 10);
    EXPECT_LT((X.act_inv(m).vector() - Xm.inverse() * m.vector()).norm(), 1e-11);
    // Forces transform by X* = X⁻ᵀ.
    EXPECT_LT((X.act(f).vector() - Xm.inverse().transpose() * f.vector()).norm(), 1e-11);
    EXPECT_LT((X.act_inv(f).vector() - Xm.transpose() * f.vector()).norm(), 1e-11);
    // act_motions on a block equals the matrix product.
    MatrixX in = MatrixX::Random(6, 4), out(6, 4);
    X.act_motions(in, out);
    EXPECT_LT((out - Xm * in).norm(), 1e-11);
  }
}

TEST(Transform, IsApprox) {
  const Transform A{test::rot(0.3, {1, 0, 0}), {1, 2, 3}};
  Transform B = A;
  EXPECT_TRUE(A.isApprox(B));
  B.p.x() += 1e-6;
  EXPECT_FALSE(A.isApprox(B));
  EXPECT_TRUE(A.isApprox(B, 1e-5));
}

TEST(Motion, CrossProductsMatchMatrixForms) {
  std::mt19937 rng(4);
  for (int k = 0; k < 20; ++k) {
    const Motion m = random_motion(rng), m2 = random_motion(rng);
    const Force f = random_force(rng);
    // m × m2 = crm(m) m2,  m ×* f = −crm(m)ᵀ f.
    EXPECT_LT((m.cross(m2).vector() - crm(m) * m2.vector()).norm(), kTol * 10);
    EXPECT_LT((m.cross(f).vector() + crm(m).transpose() * f.vector()).norm(), kTol * 10);
    // Antisymmetry, m × m = 0, and (m × m2)·f + m2·(m ×* f) = 0.
    EXPECT_LT((m.cross(m2).vector() + m2.cross(m).vector()).norm(), kTol * 10);
    EXPECT_LT(m.cross(m).vector().norm(), kTol * 10);
    EXPECT_NEAR(m.cross(m2).dot(f) + m2.dot(m.cross(f)), 0.0, kTol * 10);
    // crm is the matrix commutator of the 4 × 4 twist matrices: (m × m2)^ = m̂ m̂2 − m̂2 m̂.
    EXPECT_LT((hat(m.cross(m2)) - (hat(m) * hat(m2) - hat(m2) * hat(m))).norm(), kTol * 10);
    // Transforms commute with cross products: X(m × m2) = Xm × Xm2, X(m ×* f) = Xm ×* Xf.
    const Transform X = random_transform(rng);
    EXPECT_LT((X.act(m.cross(m2)).vector() - X.act(m).cross(X.act(m2)).vector()).norm(), 1e-11);
    EXPECT_LT((X.act(m.cross(f)).vector() - X.act(m).cross(X.act(f)).vector()).norm(), 1e-11);
  }
}

TEST(Motion, ArithmeticAndVectorRoundTrip) {
  std::mt19937 rng(5);
  const Motion a = random_motion(rng), b = random_motion(rng);
  EXPECT_EQ(Motion::from(a.vector()).vector(), a.vector());
  EXPECT_EQ((a + b).vector(), a.vector() + b.vector());
  EXPECT_EQ((a - b).vector(), a.vector() - b.vector());
  EXPECT_EQ((-a).vector(), -a.vector());
  EXPECT_EQ((a * 2.5).vector(), 2.5 * a.vector());
  Motion c = a;
  c += b;
  c -= a;
  EXPECT_LT((c.vector() - b.vector()).norm(), kTol);
  const Force f = random_force(rng), g = random_force(rng);
  EXPECT_EQ(Force::from(f.vector()).vector(), f.vector());
  EXPECT_EQ((f + g).vector(), f.vector() + g.vector());
  EXPECT_EQ((f - g).vector(), f.vector() - g.vector());
  EXPECT_EQ((f * 3.0).vector(), 3.0 * f.vector());
  EXPECT_NEAR(a.dot(f), a.vector().dot(f.vector()), kTol);
}

TEST(Inertia, MatrixAndProduct) {
  std::mt19937 rng(6);
  const Inertia I = test::asymmetric_inertia(2.0, {0.1, -0.2, 0.3});
  const Matrix6 Im = I.matrix();
  EXPECT_LT((Im - Im.transpose()).norm(), kTol);
  EXPECT_GT(Eigen::SelfAdjointEigenSolver<Matrix6>(Im).eigenvalues().minCoeff(), 0.0);
  for (int k = 0; k < 10; ++k) {
    const Motion m = random_motion(rng);
    EXPECT_LT(((I * m).vector() - Im * m.vector()).norm(), kTol * 10);
    EXPECT_NEAR(I.kinetic_energy(m), 0.5 * m.vector().dot(Im * m.vector()), kTol * 10);
  }
  // from_com / com / inertia_about_com round trip.
  const Matrix3 Ic =
      test::rot(0.4, {1, 1, 0}) * Vector3(0.1, 0.2, 0.25).asDiagonal() * test::rot(0.4, {1, 1, 0}).transpose();
  const Inertia J = Inertia::from_com(3.0, {0.5, 0.2, -0.1}, Ic);
  EXPECT_LT((J.com() - Vector3(0.5, 0.2, -0.1)).norm(), kTol);
  EXPECT_LT((J.inertia_about_com() - Ic).norm(), kTol);
  EXPECT_DOUBLE_EQ(J.m, 3.0);
  // Sums add the matrices.
  EXPECT_LT(((I + J).matrix() - (Im + J.matrix())).norm(), kTol);
  Inertia K = I;
  K += J;
  EXPECT_LT((K.matrix() - (Im + J.matrix())).norm(), kTol);
  EXPECT_EQ(Inertia::Zero().matrix(), Matrix6::Zero());
  EXPECT_EQ(Inertia::Zero().com(), Vector3::Zero());
}

TEST(Inertia, TransformedEqualsMatrixFormula) {
  std::mt19937 rng(7);
  for (int k = 0; k < 20; ++k) {
    const Inertia I =
        Inertia::from_com(0.5 + k, random_vector(3, rng), test::asymmetric_inertia(1.0, Vector3::Zero(), 1.0 + k).Io);
    const Transform X = random_transform(rng);
    const Matrix6 Xinv = X.motion_matrix().inverse();
    const Matrix6 expected = Xinv.transpose() * I.matrix() * Xinv;
    EXPECT_LT((I.transformed(X).matrix() - expected).norm(), 1e-10 * (1.0 + expected.norm()));
    // The kinetic energy of a motion is frame independent: ½ (Xm)ᵀ (X I) (Xm) = ½ mᵀ I m.
    const Motion m = random_motion(rng);
    EXPECT_NEAR(I.transformed(X).kinetic_energy(X.act(m)), I.kinetic_energy(m), 1e-10 * (1.0 + I.kinetic_energy(m)));
    // The centre of mass moves like a point; the mass is unchanged.
    EXPECT_LT((I.transformed(X).com() - X.act_point(I.com())).norm(), 1e-10);
    EXPECT_DOUBLE_EQ(I.transformed(X).m, I.m);
  }
}

TEST(Inertia, TransformInertiaMatrixEqualsMatrixFormula) {
  std::mt19937 rng(8);
  for (int k = 0; k < 20; ++k) {
    // A general symmetric 6 × 6 (articulated inertias are not rigid-body inertias).
    const MatrixX A = MatrixX::Random(6, 6);
    const Matrix6 I = A * A.transpose() + Matrix6::Identity();
    const Transform X = random_transform(rng);
    const Matrix6 Xinv = X.motion_matrix().inverse();
    const Matrix6 expected = Xinv.transpose() * I * Xinv;
    const Matrix6 got = transform_inertia_matrix(X, I);
    EXPECT_LT((got - expected).norm(), 1e-10 * (1.0 + expected.norm()));
    EXPECT_LT((got - got.transpose()).norm(), 1e-10 * (1.0 + expected.norm()));
    // On a rigid-body inertia it agrees with Inertia::transformed.
    const Inertia R = test::asymmetric_inertia(1.7, random_vector(3, rng));
    EXPECT_LT((transform_inertia_matrix(X, R.matrix()) - R.transformed(X).matrix()).norm(), 1e-10);
  }
}

TEST(Skew, IsCrossProduct) {
  std::mt19937 rng(9);
  const Vector3 a = random_vector(3, rng), b = random_vector(3, rng);
  EXPECT_LT((skew(a) * b - a.cross(b)).norm(), kTol);
  EXPECT_LT((skew(a) + skew(a).transpose()).norm(), kTol);
}

// ---- exp / log on SO(3) and SE(3) ----

TEST(ExpLog, Exp3MatchesAngleAxisAndMatrixExponential) {
  std::mt19937 rng(10);
  for (double angle : {0.0, 1e-12, 1e-8, 1e-5, 0.99e-4, 1.01e-4, 1e-3, 0.5, 2.0, 3.0, M_PI - 1e-6, M_PI}) {
    const Vector3 axis = random_vector(3, rng).normalized();
    const Vector3 w = angle * axis;
    const Matrix3 R = exp3(w);
    EXPECT_LT((R - Eigen::AngleAxisd(angle, axis).toRotationMatrix()).norm(), 1e-14) << angle;
    const Matrix3 E = skew(w).exp();
    EXPECT_LT((R - E).norm(), 1e-13) << angle;
    EXPECT_LT((R.transpose() * R - Matrix3::Identity()).norm(), 1e-14) << angle;
  }
}

TEST(ExpLog, Exp6MatchesMatrixExponential) {
  std::mt19937 rng(11);
  for (double angle : {0.0, 1e-10, 1e-6, 0.99e-4, 1.01e-4, 1e-2, 1.0, 3.0, M_PI - 1e-7}) {
    const Vector3 axis = random_vector(3, rng).normalized();
    const Motion xi{random_vector(3, rng), angle * axis};
    const Eigen::Matrix4d E = hat(xi).exp();
    EXPECT_LT((homogeneous(exp6(xi)) - E).norm(), 1e-12) << angle;
  }
  // A pure translation.
  const Motion t{Vector3(1, 2, 3), Vector3::Zero()};
  EXPECT_TRUE(exp6(t).isApprox(Transform{Matrix3::Identity(), Vector3(1, 2, 3)}, 1e-15));
}

TEST(ExpLog, Log3InvertsExp3IncludingSmallAndNearPi) {
  std::mt19937 rng(12);
  for (double angle : {0.0, 1e-12, 1e-8, 1e-5, 0.99e-4, 1.01e-4, 1e-3, 0.5, 2.0, 3.0, M_PI - 1e-3, M_PI - 1.01e-4,
                       M_PI - 0.99e-4, M_PI - 1e-5, M_PI - 1e-7}) {
    for (int k = 0; k < 5; ++k) {
      const Vector3 axis = random_vector(3, rng).normalized();
      const Vector3 w = angle * axis;
      const Vector3 w2 = log3(exp3(w));
      // Near π the angle from acos(trace) is ill-conditioned: δθ ~ ε / (π − θ).
      const double tol = 1e-12 + 1e-15 / std::max(1e-12, M_PI - angle);
      EXPECT_LT((w2 - w).norm(), tol) << "angle " << angle << " got " << w2.transpose();
      EXPECT_LT((exp3(w2) - exp3(w)).norm(), 5e-12) << angle;
    }
  }
  // Exactly π: the axis is defined up to sign; exp(log(R)) = R.
  for (const Vector3& axis : {Vector3(1, 0, 0), Vector3(0, 1, 0), Vector3(0, 0, 1), Vector3(1, 2, -3).normalized()}) {
    const Matrix3 R = Eigen::AngleAxisd(M_PI, axis).toRotationMatrix();
    const Vector3 w = log3(R);
    EXPECT_NEAR(w.norm(), M_PI, 1e-9);
    EXPECT_LT((exp3(w) - R).norm(), 1e-9) << axis.transpose();
  }
}

TEST(ExpLog, Log6InvertsExp6IncludingSmallAndNearPi) {
  std::mt19937 rng(13);
  for (double angle :
       {0.0, 1e-12, 1e-8, 1e-5, 0.99e-4, 1.01e-4, 1e-3, 0.5, 2.0, 3.0, M_PI - 1e-3, M_PI - 1e-5, M_PI - 1e-7}) {
    for (int k = 0; k < 5; ++k) {
      const Vector3 axis = random_vector(3, rng).normalized();
      const Motion xi{random_vector(3, rng), angle * axis};
      const Motion xi2 = log6(exp6(xi));
      const double tol = 1e-11 + 1e-14 / std::max(1e-12, M_PI - angle);
      EXPECT_LT((xi2.vector() - xi.vector()).norm(), tol) << "angle " << angle;
      EXPECT_TRUE(exp6(xi2).isApprox(exp6(xi), 1e-10)) << angle;
    }
  }
  // exp(log(X)) = X for random transforms.
  for (int k = 0; k < 20; ++k) {
    const Transform X = random_transform(rng);
    EXPECT_TRUE(exp6(log6(X)).isApprox(X, 1e-10));
  }
  // Exactly π.
  const Transform Xpi{Eigen::AngleAxisd(M_PI, Vector3(0, 0, 1)).toRotationMatrix(), Vector3(0.3, -0.2, 1.0)};
  EXPECT_TRUE(exp6(log6(Xpi)).isApprox(Xpi, 1e-9));
}

}  // namespace
}  // namespace articula
