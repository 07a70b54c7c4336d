// Energies and the centre of mass (src/dynamics/energy.cpp): T = ½ vᵀ M v, ∇V = g(q) along
// manifold directions, the power identity vᵀ(h − g) = ½ vᵀ Ṁ v, and the centre-of-mass Jacobian
// against finite differences.
#include <gtest/gtest.h>

#include "test_models.hpp"

namespace articula {
namespace {

using test::random_state;
using test::random_vector;
using test::rel_err;
using test::test_models;
using test::test_models_with_armature;

TEST(Energy, KineticEnergyIsHalfVMv) {
  std::mt19937 rng(91);
  for (const auto& [name, model] : test_models_with_armature()) {
    Data data(model);
    for (int k = 0; k < 3; ++k) {
      const test::State s = random_state(model, rng);
      const MatrixX M = crba(model, data, s.q);
      const double T = kinetic_energy(model, data, s.q, s.v);
      EXPECT_NEAR(T, 0.5 * s.v.dot(M * s.v), 1e-10 * (1 + T)) << name;
      EXPECT_EQ(data.kinetic_energy, T);
      EXPECT_GE(T, 0.0);
      // vᵀ (M v) = 2 T with the O(n) momentum.
      EXPECT_NEAR(s.v.dot(generalized_momentum(model, data, s.q, s.v)), 2 * T, 1e-10 * (1 + T)) << name;
    }
  }
}

TEST(Energy, PotentialGradientIsGeneralizedGravity) {
  // ∂V/∂v_k = V(q ⊕ ε e_k) − V(q ⊕ −ε e_k) / 2ε = g_k(q).
  std::mt19937 rng(92);
  const double eps = 1e-5;
  for (const auto& [name, model] : test_models()) {
    Data data(model);
    for (int k = 0; k < 2; ++k) {
      const VectorX q = random_configuration(model, rng);
      const VectorX g = generalized_gravity(model, data, q);
      VectorX fd(model.nv);
      for (int c = 0; c < model.nv; ++c) {
        const VectorX e = VectorX::Unit(model.nv, c);
        fd[c] = (potential_energy(model, data, integrate(model, q, e, eps)) -
                 potential_energy(model, data, integrate(model, q, e, -eps))) /
                (2 * eps);
      }
      EXPECT_LT(rel_err(fd, g), 1e-7) << name;
      EXPECT_EQ(data.potential_energy, potential_energy(model, data, q));
    }
  }
}

TEST(Energy, PotentialEnergyIsMassTimesHeight) {
  std::mt19937 rng(93);
  for (const auto& [name, model] : test_models()) {
    Data data(model);
    const VectorX q = random_configuration(model, rng);
    const Vector3 c = center_of_mass(model, data, q);
    EXPECT_NEAR(potential_energy(model, data, q), -model.total_mass() * model.gravity.v.dot(c), 1e-10 * (1 + c.norm()))
        << name;
    EXPECT_NEAR(data.mass, model.total_mass(), 1e-12) << name;
  }
}

TEST(Energy, PowerIdentityForCoriolisTerms) {
  // vᵀ (h(q, v) − g(q)) = ½ vᵀ Ṁ v, Ṁ by central differences along q ⊕ t v (skew symmetry of Ṁ − 2C).
  std::mt19937 rng(94);
  const double eps = 1e-5;
  for (const auto& [name, model] : test_models_with_armature()) {
    Data data(model);
    for (int k = 0; k < 2; ++k) {
      const test::State s = random_state(model, rng);
      const double lhs = s.v.dot(nonlinear_effects(model, data, s.q, s.v) - generalized_gravity(model, data, s.q));
      const MatrixX Mp = crba(model, data, integrate(model, s.q, s.v, eps));
      const MatrixX Mm = crba(model, data, integrate(model, s.q, s.v, -eps));
      const double rhs = 0.5 * s.v.dot((Mp - Mm) * s.v) / (2 * eps);
      EXPECT_NEAR(lhs, rhs, 1e-6 * (1 + std::abs(lhs))) << name;
    }
  }
}

TEST(Energy, CentreOfMassIsTheMassWeightedMean) {
  std::mt19937 rng(95);
  for (const auto& [name, model] : test_models()) {
    Data data(model);
    const VectorX q = random_configuration(model, rng);
    forward_kinematics(model, data, q);
    Vector3 sum = Vector3::Zero();
    for (Index i = 0; i < model.njoints; ++i)
      sum += model.inertias[i].m * data.oMi[i].act_point(model.inertias[i].com());
    const Vector3 expected = sum / model.total_mass();
    EXPECT_LT((center_of_mass(model, data, q) - expected).norm(), 1e-12 * (1 + expected.norm())) << name;
    // center_of_mass_jacobian also sets com and mass.
    center_of_mass_jacobian(model, data, q);
    EXPECT_LT((data.com - expected).norm(), 1e-12 * (1 + expected.norm())) << name;
    EXPECT_NEAR(data.mass, model.total_mass(), 1e-12) << name;
  }
}

TEST(Energy, CentreOfMassJacobianIsDerivativeOfCentreOfMass) {
  std::mt19937 rng(96);
  const double eps = 1e-6;
  for (const auto& [name, model] : test_models()) {
    Data data(model);
    for (int k = 0; k < 2; ++k) {
      const VectorX q = random_configuration(model, rng);
      const MatrixX J = center_of_mass_jacobian(model, data, q);
      ASSERT_EQ(J.rows(), 3);
      ASSERT_EQ(J.cols(), model.nv);
      for (int c = 0; c < model.nv; ++c) {
        const VectorX e = VectorX::Unit(model.nv, c);
        const Vector3 cp = center_of_mass(model, data, integrate(model, q, e, eps));
        const Vector3 cm = center_of_mass(model, data, integrate(model, q, e, -eps));
        const Vector3 fd = (cp - cm) / (2 * eps);
        EXPECT_LT((J.col(c) - fd).norm(), 1e-8 * (1 + fd.norm())) << name << " column " << c;
      }
      // And along a random direction: J v = d/dt com.
      const VectorX v = random_vector(model.nv, rng);
      // center_of_mass() returns a reference to data.com: copy before the second call.
      const Vector3 cp = center_of_mass(model, data, integrate(model, q, v, eps));
      const Vector3 cm = center_of_mass(model, data, integrate(model, q, v, -eps));
      const Vector3 fd = (cp - cm) / (2 * eps);
      EXPECT_LT((J * v - fd).norm(), 1e-8 * (1 + fd.norm())) << name;
    }
  }
}

TEST(Energy, MasslessModelHasComAtOrigin) {
  ModelBuilder b("ghost");
  b.add_body("a", "", "ja", JointType::Revolute, {}, {0, 0, 1}, Inertia::Zero());
  const Model model = b.build();
  Data data(model);
  const VectorX q = VectorX::Constant(1, 0.5);
  EXPECT_EQ(center_of_mass(model, data, q), Vector3::Zero());
  EXPECT_EQ(center_of_mass_jacobian(model, data, q).norm(), 0.0);
  EXPECT_EQ(potential_energy(model, data, q), 0.0);
}

}  // namespace
}  // namespace articula
