// Inverse dynamics (src/dynamics/rnea.cpp): rnea against nonlinear_effects, generalized_gravity,
// generalized_momentum and CRBA, external forces against body Jacobians, analytic cases.
#include <gtest/gtest.h>

#include "test_models.hpp"

namespace articula {
namespace {

using test::random_force;
using test::random_state;
using test::random_vector;
using test::rel_err;
using test::test_models_with_armature;

constexpr double kTol = 1e-10;

TEST(Rnea, ZeroAccelerationGivesNonlinearEffects) {
  std::mt19937 rng(61);
  for (const auto& [name, model] : test_models_with_armature()) {
    Data data(model);
    for (int k = 0; k < 4; ++k) {
      const test::State s = random_state(model, rng);
      const VectorX tau = rnea(model, data, s.q, s.v, VectorX::Zero(model.nv));
      const VectorX h = nonlinear_effects(model, data, s.q, s.v);
      EXPECT_LT(rel_err(h, tau), kTol) << name;
      EXPECT_EQ(data.h, h);
      const VectorX g = generalized_gravity(model, data, s.q);
      EXPECT_LT(rel_err(g, rnea(model, data, s.q, VectorX::Zero(model.nv), VectorX::Zero(model.nv))), kTol) << name;
      EXPECT_EQ(data.g, g);
    }
  }
}

TEST(Rnea, EqualsMassMatrixTimesAPlusH) {
  std::mt19937 rng(62);
  for (const auto& [name, model] : test_models_with_armature()) {
    Data data(model);
    for (int k = 0; k < 4; ++k) {
      const test::State s = random_state(model, rng);
      const MatrixX M = crba(model, data, s.q);
      const VectorX h = nonlinear_effects(model, data, s.q, s.v);
      const VectorX tau = rnea(model, data, s.q, s.v, s.a);
      EXPECT_LT(rel_err(M * s.a + h, tau), kTol) << name;
      EXPECT_EQ(data.tau, tau);
    }
  }
}

TEST(Rnea, GeneralizedMomentumIsMv) {
  std::mt19937 rng(63);
  for (const auto& [name, model] : test_models_with_armature()) {
    Data data(model);
    for (int k = 0; k < 3; ++k) {
      const test::State s = random_state(model, rng);
      const MatrixX M = crba(model, data, s.q);
      EXPECT_LT(rel_err(generalized_momentum(model, data, s.q, s.v), M * s.v), kTol) << name;
    }
  }
}

TEST(Rnea, ExternalForcesEnterThroughBodyJacobians) {
  // rnea(q, v, a, f) = rnea(q, v, a) − Σ_i J_iᵀ f_i, J_i the Local Jacobian of body i's frame.
  std::mt19937 rng(64);
  for (const auto& [name, model] : test_models_with_armature()) {
    Data data(model);
    MatrixX J(6, model.nv);
    for (int k = 0; k < 3; ++k) {
      const test::State s = random_state(model, rng);
      std::vector<Force> f_ext;
      for (Index i = 0; i < model.njoints; ++i) f_ext.push_back(random_force(rng));
      const VectorX tau0 = rnea(model, data, s.q, s.v, s.a);
      const VectorX tau_f = rnea(model, data, s.q, s.v, s.a, f_ext);
      compute_joint_jacobians(model, data, s.q);
      VectorX expected = tau0;
      for (Index i = 0; i < model.njoints; ++i) {
        frame_jacobian(model, data, model.frame_id(model.body_names[i]), ReferenceFrame::Local, J);
        expected -= J.transpose() * f_ext[i].vector();
      }
      EXPECT_LT(rel_err(tau_f, expected), kTol) << name;
      // Passing zero forces changes nothing.
      const std::vector<Force> zeros(model.njoints, Force::Zero());
      EXPECT_LT(rel_err(rnea(model, data, s.q, s.v, s.a, zeros), tau0), 1e-15) << name;
    }
  }
}

TEST(Rnea, IsDeterministic) {
  const Model& model = test::test_models().back().model;
  Data d1(model), d2(model);
  std::mt19937 rng(65);
  const test::State s = random_state(model, rng);
  EXPECT_EQ(rnea(model, d1, s.q, s.v, s.a), rnea(model, d2, s.q, s.v, s.a));
  // A second call on the same Data gives the same bits.
  const VectorX first = rnea(model, d1, s.q, s.v, s.a);
  EXPECT_EQ(rnea(model, d1, s.q, s.v, s.a), first);
}

TEST(Rnea, SizeMismatchThrows) {
  const Model model = test::mixed_model(true);
  Data data(model);
  const VectorX q = neutral(model), v = VectorX::Zero(model.nv);
  EXPECT_THROW(rnea(model, data, VectorX(q.head(3)), v, v), std::invalid_argument);
  EXPECT_THROW(rnea(model, data, q, VectorX(v.head(3)), v), std::invalid_argument);
  EXPECT_THROW(rnea(model, data, q, v, VectorX(v.head(3))), std::invalid_argument);
  const std::vector<Force> f(model.njoints - 1);
  EXPECT_THROW(rnea(model, data, q, v, v, f), std::invalid_argument);
  EXPECT_THROW(nonlinear_effects(model, data, q, VectorX(v.head(3))), std::invalid_argument);
  EXPECT_THROW(generalized_gravity(model, data, VectorX(q.head(3))), std::invalid_argument);
}

// ---- analytic cases ----

/// A point-ish mass m at distance l along x from a revolute joint about y (gravity −z).
Model pendulum(double m, double l, double Ic) {
  ModelBuilder b("pendulum");
  b.add_body("bob", "", "hinge", JointType::Revolute, {}, {0, 1, 0},
             Inertia::from_com(m, {l, 0, 0}, Ic * Matrix3::Identity()), JointLimits{-M_PI, M_PI});
  return b.build();
}

TEST(RneaAnalytic, PendulumTorques) {
  // Rotation about y by θ takes x to (cos θ, 0, −sin θ): the bob's height is −l sin θ,
  // V = −m g l sin θ, and τ = (m l² + I) θ̈ − m g l cos θ (no velocity term for one dof).
  const double m = 2.0, l = 0.75, Ic = 1e-3, g = 9.81;
  const Model model = pendulum(m, l, Ic);
  Data data(model);
  for (double th : {-2.0, -0.5, 0.0, 0.3, 1.2, 3.0}) {
    for (double thd : {0.0, 1.5}) {
      const double thdd = -0.7;
      const VectorX q = VectorX::Constant(1, th), v = VectorX::Constant(1, thd), a = VectorX::Constant(1, thdd);
      const double expected = (m * l * l + Ic) * thdd - m * g * l * std::cos(th);
      EXPECT_NEAR(rnea(model, data, q, v, a)[0], expected, 1e-12) << th;
      EXPECT_NEAR(generalized_gravity(model, data, q)[0], -m * g * l * std::cos(th), 1e-12);
    }
  }
}

TEST(RneaAnalytic, PrismaticMassHoldsItsWeight) {
  const double m = 3.0;
  ModelBuilder b("lift");
  b.add_body("slider", "", "lift", JointType::Prismatic, {}, {0, 0, 1}, test::asymmetric_inertia(m, {0.1, 0.2, 0.0}));
  const Model model = b.build();
  Data data(model);
  const VectorX q = VectorX::Constant(1, 0.4), v = VectorX::Constant(1, -0.8);
  EXPECT_NEAR(rnea(model, data, q, v, VectorX::Zero(1))[0], m * 9.81, 1e-12);
  EXPECT_NEAR(rnea(model, data, q, v, VectorX::Constant(1, 2.0))[0], m * (9.81 + 2.0), 1e-12);
}

TEST(RneaAnalytic, FreeBodyNewtonEuler) {
  // A free body: τ = I a + v ×* I v − I (body-frame gravity), the Newton–Euler equations in the body frame.
  std::mt19937 rng(66);
  const Inertia I = test::asymmetric_inertia(2.5, {0.1, -0.05, 0.2});
  ModelBuilder b("free");
  b.add_body("body", "", "root", JointType::FreeFlyer, {}, Vector3::Zero(), I);
  const Model model = b.build();
  Data data(model);
  for (int k = 0; k < 5; ++k) {
    const test::State s = random_state(model, rng);
    const Matrix3 R = joint_transform(JointType::FreeFlyer, Vector3::Zero(), s.q.data()).R;
    const Motion vb = Motion::from(s.v), ab = Motion::from(s.a);
    const Motion g_body{R.transpose() * model.gravity.v, Vector3::Zero()};
    const Force expected = I * (ab - g_body) + vb.cross(I * vb);
    EXPECT_LT((rnea(model, data, s.q, s.v, s.a) - expected.vector()).norm(), 1e-12);
  }
}

}  // namespace
}  // namespace articula
