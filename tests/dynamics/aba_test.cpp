// Forward dynamics (src/dynamics/aba.cpp): ABA against M⁻¹(τ − h) and RNEA (with and without
// external forces and armature), and analytic cases: pendulum, prismatic mass, free fall,
// and a torque-free asymmetric body integrated with a Lie-group RK4 (momentum and energy conserved).
#include <gtest/gtest.h>

#include <Eigen/Cholesky>

#include "test_models.hpp"

namespace articula {
namespace {

using test::random_force;
using test::random_state;
using test::random_vector;
using test::rel_err;
using test::test_models_with_armature;

constexpr double kTol = 1e-10;

std::vector<Force> random_forces(const Model& model, std::mt19937& rng) {
  std::vector<Force> f;
  for (Index i = 0; i < model.njoints; ++i) f.push_back(random_force(rng));
  return f;
}

TEST(Aba, EqualsInverseMassMatrixTimesTauMinusH) {
  std::mt19937 rng(81);
  for (const auto& [name, model] : test_models_with_armature()) {
    Data data(model);
    for (int k = 0; k < 4; ++k) {
      const test::State s = random_state(model, rng);
      const VectorX tau = random_vector(model.nv, rng, 10.0);
      const MatrixX M = crba(model, data, s.q);
      const VectorX h = nonlinear_effects(model, data, s.q, s.v);
      const VectorX expected = M.ldlt().solve(tau - h);
      const VectorX ddq = aba(model, data, s.q, s.v, tau);
      EXPECT_LT(rel_err(ddq, expected), kTol) << name;
      EXPECT_EQ(data.ddq, ddq);
    }
  }
}

TEST(Aba, InvertsRnea) {
  std::mt19937 rng(82);
  for (const auto& [name, model] : test_models_with_armature()) {
    Data data(model);
    for (int k = 0; k < 4; ++k) {
      const test::State s = random_state(model, rng);
      const VectorX tau = rnea(model, data, s.q, s.v, s.a);
      EXPECT_LT(rel_err(aba(model, data, s.q, s.v, tau), s.a), kTol) << name;
    }
  }
}

TEST(Aba, ExternalForcesConsistentWithRnea) {
  std::mt19937 rng(83);
  for (const auto& [name, model] : test_models_with_armature()) {
    Data data(model);
    MatrixX J(6, model.nv);
    for (int k = 0; k < 3; ++k) {
      const test::State s = random_state(model, rng);
      const std::vector<Force> f = random_forces(model, rng);
      // aba(q, v, rnea(q, v, a, f), f) = a.
      const VectorX tau = rnea(model, data, s.q, s.v, s.a, f);
      EXPECT_LT(rel_err(aba(model, data, s.q, s.v, tau, f), s.a), kTol) << name;
      // aba(q, v, τ, f) = M⁻¹ (τ − h + Σ J_iᵀ f_i).
      const VectorX tau2 = random_vector(model.nv, rng);
      const MatrixX M = crba(model, data, s.q);
      VectorX rhs = tau2 - nonlinear_effects(model, data, s.q, s.v);
      compute_joint_jacobians(model, data, s.q);
      for (Index i = 0; i < model.njoints; ++i) {
        frame_jacobian(model, data, model.frame_id(model.body_names[i]), ReferenceFrame::Local, J);
        rhs += J.transpose() * f[i].vector();
      }
      EXPECT_LT(rel_err(aba(model, data, s.q, s.v, tau2, f), M.ldlt().solve(rhs)), kTol) << name;
    }
  }
}

TEST(Aba, BodyAccelerationsMatchRnea) {
  // After aba, data.a_gf is the body acceleration minus gravity, as rnea computes it for a = ddq.
  std::mt19937 rng(84);
  for (const auto& [name, model] : test_models_with_armature()) {
    Data da(model), dr(model);
    const test::State s = random_state(model, rng);
    const VectorX ddq = aba(model, da, s.q, s.v, random_vector(model.nv, rng));
    rnea(model, dr, s.q, s.v, ddq);
    for (Index i = 0; i < model.njoints; ++i) {
      EXPECT_LT((da.a_gf[i].vector() - dr.a_gf[i].vector()).norm(), 1e-10 * (1 + dr.a_gf[i].vector().norm())) << name;
      EXPECT_TRUE(da.oMi[i].isApprox(dr.oMi[i], 1e-14)) << name;
      EXPECT_LT((da.v[i].vector() - dr.v[i].vector()).norm(), 1e-13 * (1 + dr.v[i].vector().norm())) << name;
    }
  }
}

TEST(Aba, IsDeterministic) {
  const Model& model = test::test_models().back().model;
  Data d1(model), d2(model);
  std::mt19937 rng(85);
  const test::State s = random_state(model, rng);
  const VectorX first = aba(model, d1, s.q, s.v, s.a);
  EXPECT_EQ(aba(model, d2, s.q, s.v, s.a), first);
  EXPECT_EQ(aba(model, d1, s.q, s.v, s.a), first);
}

TEST(Aba, SizeMismatchThrows) {
  const Model model = test::mixed_model(true);
  Data data(model);
  const VectorX q = neutral(model), v = VectorX::Zero(model.nv);
  EXPECT_THROW(aba(model, data, VectorX(q.head(3)), v, v), std::invalid_argument);
  EXPECT_THROW(aba(model, data, q, VectorX(v.head(3)), v), std::invalid_argument);
  EXPECT_THROW(aba(model, data, q, v, VectorX(v.head(3))), std::invalid_argument);
  const std::vector<Force> f(model.njoints + 1);
  EXPECT_THROW(aba(model, data, q, v, v, f), std::invalid_argument);
}

TEST(Aba, FloatingRobotsFallWithTheirCentreOfMass) {
  // Zero joint torques and no contact: the whole robot's centre of mass accelerates at g.
  // c̈ = Jcom v̇ + d/dt(Jcom(q(t))) v, the second term by central differences along q ⊕ t v.
  std::mt19937 rng(86);
  const double eps = 1e-6;
  for (const auto& [name, model_in] : test_models_with_armature()) {
    if (model_in.joint_types[0] != JointType::FreeFlyer) continue;
    // Armature on the joints (a rotor reacting on the body it is mounted on) keeps the base
    // rows of M v̇ + h = τ, Newton–Euler for the whole robot, unchanged; the base has none.
    Model model = model_in;
    model.armature.head(6).setZero();
    Data data(model);
    const test::State s = random_state(model, rng);
    const VectorX ddq = aba(model, data, s.q, s.v, VectorX::Zero(model.nv));
    const MatrixX Jc = center_of_mass_jacobian(model, data, s.q);
    const MatrixX Jp = center_of_mass_jacobian(model, data, integrate(model, s.q, s.v, eps));
    const MatrixX Jm = center_of_mass_jacobian(model, data, integrate(model, s.q, s.v, -eps));
    const Vector3 cdd = Jc * ddq + (Jp - Jm) * s.v / (2 * eps);
    EXPECT_LT((cdd - model.gravity.v).norm(), 1e-6) << name << " c̈ = " << cdd.transpose();
  }
}

// ---- analytic cases ----

TEST(AbaAnalytic, PendulumAcceleration) {
  // Bob of mass m at distance l along x, hinge about y, gravity −z: height −l sin θ, so
  // (m l² + I_c + armature) θ̈ = m g l cos θ (point mass: θ̈ = (g / l) cos θ).
  const double m = 2.0, l = 0.75, g = 9.81;
  for (double Ic : {0.0, 1e-3}) {
    for (double arm : {0.0, 0.05}) {
      ModelBuilder b("pendulum");
      b.add_body("bob", "", "hinge", JointType::Revolute, {}, {0, 1, 0},
                 Inertia::from_com(m, {l, 0, 0}, Ic * Matrix3::Identity()),
                 JointLimits{-M_PI, M_PI, 10, 10, 0, 0, arm});
      const Model model = b.build();
      Data data(model);
      for (double th : {-2.0, -0.5, 0.0, 0.3, 1.2, 3.0}) {
        for (double thd : {0.0, 2.0}) {
          const VectorX q = VectorX::Constant(1, th), v = VectorX::Constant(1, thd);
          const double expected = m * g * l * std::cos(th) / (m * l * l + Ic + arm);
          EXPECT_NEAR(aba(model, data, q, v, VectorX::Zero(1))[0], expected, 1e-12) << th;
          if (Ic == 0.0 && arm == 0.0) {
            EXPECT_NEAR(aba(model, data, q, v, VectorX::Zero(1))[0], g / l * std::cos(th), 1e-12);
          }
          EXPECT_NEAR(crba(model, data, q)(0, 0), m * l * l + Ic + arm, 1e-14);
        }
      }
    }
  }
}

TEST(AbaAnalytic, PrismaticMassFallsAtG) {
  const double m = 3.0;
  for (double arm : {0.0, 0.5}) {
    ModelBuilder b("lift");
    b.add_body("slider", "", "lift", JointType::Prismatic, {}, {0, 0, 1}, test::asymmetric_inertia(m, {0.1, 0.2, 0.0}),
               JointLimits{-1, 1, 1, 100, 0, 0, arm});
    const Model model = b.build();
    Data data(model);
    const VectorX q = VectorX::Constant(1, 0.4), v = VectorX::Constant(1, -0.8);
    EXPECT_NEAR(aba(model, data, q, v, VectorX::Zero(1))[0], -m * 9.81 / (m + arm), 1e-12);
    // The static torque m g holds it.
    EXPECT_NEAR(aba(model, data, q, v, VectorX::Constant(1, m * 9.81))[0], 0.0, 1e-12);
  }
}

Model free_body(const Inertia& I, const Vector3& gravity) {
  ModelBuilder b("free_body");
  b.add_body("body", "", "root", JointType::FreeFlyer, {}, Vector3::Zero(), I);
  b.add_frame("com", "body", {Matrix3::Identity(), I.com()});
  b.set_gravity(gravity);
  return b.build();
}

TEST(AbaAnalytic, FreeFallAtTheCentreOfMass) {
  const Inertia I = test::asymmetric_inertia(2.0, {0.2, -0.1, 0.3});
  const Model model = free_body(I, {0.5, -0.2, -9.81});
  Data data(model);
  std::mt19937 rng(87);
  for (int k = 0; k < 5; ++k) {
    const test::State s = random_state(model, rng, 2.0);  // spinning and moving
    const VectorX ddq = aba(model, data, s.q, s.v, VectorX::Zero(6));
    forward_kinematics(model, data, s.q, s.v, ddq);
    EXPECT_LT((frame_classical_acceleration(model, data, model.frame_id("com")) - model.gravity.v).norm(), 1e-12);
  }
}

/// One step of Runge–Kutta–Munthe-Kaas 4 on SE(3) for a single free-flyer: the configuration is
/// q ⊕ Θ, Θ̇ = dexp⁻¹_{−Θ}(v) ≈ v + ½ Θ × v + (1/12) Θ × (Θ × v) (enough for order 4), and the
/// body velocity obeys v̇ = aba(q, v, 0).
void rkmk4_step(const Model& model, Data& data, VectorX& q, VectorX& v, double dt) {
  auto dexpinv = [](const VectorX& theta, const VectorX& xi) {
    const Motion t = Motion::from(theta), x = Motion::from(xi);
    return VectorX((x + t.cross(x) * 0.5 + t.cross(t.cross(x)) * (1.0 / 12.0)).vector());
  };
  const VectorX zero = VectorX::Zero(model.nv);
  const VectorX a1 = aba(model, data, q, v, zero);
  const VectorX k1 = v;
  const VectorX v2 = v + 0.5 * dt * a1, th2 = 0.5 * dt * k1;
  const VectorX a2 = aba(model, data, integrate(model, q, th2, 1.0), v2, zero);
  const VectorX k2 = dexpinv(th2, v2);
  const VectorX v3 = v + 0.5 * dt * a2, th3 = 0.5 * dt * k2;
  const VectorX a3 = aba(model, data, integrate(model, q, th3, 1.0), v3, zero);
  const VectorX k3 = dexpinv(th3, v3);
  const VectorX v4 = v + dt * a3, th4 = dt * k3;
  const VectorX a4 = aba(model, data, integrate(model, q, th4, 1.0), v4, zero);
  const VectorX k4 = dexpinv(th4, v4);
  q = integrate(model, q, VectorX(dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)), 1.0);
  v += dt / 6.0 * (a1 + 2 * a2 + 2 * a3 + a4);
}

TEST(AbaAnalytic, TorqueFreeAsymmetricBodyConservesMomentumAndEnergy) {
  // No gravity; principal moments 1 : 2 : 3 (rotated axes) and the com off the body origin,
  // spinning near the unstable middle axis so that ω changes a lot over 1 s.
  const Matrix3 Rp = test::rot(0.6, {1, -1, 2});
  const Matrix3 Ic = Rp * Vector3(1.0, 2.0, 3.0).asDiagonal() * Rp.transpose();
  const Vector3 c(0.1, -0.2, 0.05);
  const double m = 4.0;
  const Inertia I = Inertia::from_com(m, c, Ic);
  const Model model = free_body(I, Vector3::Zero());
  Data data(model);
  VectorX q(7), v(6);
  q << 0.1, 0.2, 0.3, 0.0, 0.0, 0.0, 1.0;
  const Vector3 w0 = Rp * Vector3(0.2, 2.0, 0.3);
  v << 0.3, -0.1, 0.2, w0;

  // World-frame angular momentum about the com, linear momentum, energy, com position.
  auto invariants = [&](const VectorX& qq, const VectorX& vv, Vector3& L, Vector3& P, double& T, Vector3& pc) {
    const Transform X = joint_transform(JointType::FreeFlyer, Vector3::Zero(), qq.data());
    const Vector3 w = vv.tail<3>(), vo = vv.head<3>();
    L = X.R * (Ic * w);
    P = m * X.R * (vo + w.cross(c));
    T = I.kinetic_energy(Motion::from(vv));
    pc = X.act_point(c);
  };
  Vector3 L0, P0, pc0;
  double T0;
  invariants(q, v, L0, P0, T0, pc0);
  const double dt = 2.5e-3;
  const int steps = 400;
  Vector3 w_min = v.tail<3>(), w_max = v.tail<3>();
  for (int k = 0; k < steps; ++k) {
    rkmk4_step(model, data, q, v, dt);
    w_min = w_min.cwiseMin(v.tail<3>());
    w_max = w_max.cwiseMax(v.tail<3>());
  }
  Vector3 L, P, pc;
  double T;
  invariants(q, v, L, P, T, pc);
  EXPECT_GT((w_max - w_min).norm(), 0.5) << "the body-frame angular velocity should vary";
  EXPECT_LT((L - L0).norm(), 1e-8 * L0.norm()) << (L - L0).transpose();
  EXPECT_LT((P - P0).norm(), 1e-8 * P0.norm()) << (P - P0).transpose();
  EXPECT_NEAR(T, T0, 1e-8 * T0);
  EXPECT_NEAR(T, kinetic_energy(model, data, q, v), 1e-12 * T0);
  // The centre of mass moves in a straight line at constant speed.
  EXPECT_LT((pc - (pc0 + P0 / m * dt * steps)).norm(), 1e-8);
  // The quaternion stayed unit.
  EXPECT_NEAR(q.tail<4>().norm(), 1.0, 1e-14);
}

}  // namespace
}  // namespace articula
