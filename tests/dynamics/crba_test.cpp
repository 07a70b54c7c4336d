// Joint-space inertia (src/dynamics/crba.cpp): M symmetric positive definite and equal to
// RNEA columns, armature on the diagonal, the sparse LᵀDL factorization and its solves.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>

#include "test_models.hpp"

namespace articula {
namespace {

using test::random_state;
using test::random_vector;
using test::rel_err;
using test::test_models_with_armature;

TEST(Crba, SymmetricPositiveDefinite) {
  std::mt19937 rng(71);
  for (const auto& [name, model] : test_models_with_armature()) {
    Data data(model);
    for (int k = 0; k < 4; ++k) {
      const MatrixX M = crba(model, data, random_configuration(model, rng));
      ASSERT_EQ(M.rows(), model.nv);
      ASSERT_EQ(M.cols(), model.nv);
      EXPECT_LT((M - M.transpose()).norm(), 1e-14 * (1 + M.norm())) << name;
      EXPECT_GT(Eigen::SelfAdjointEigenSolver<MatrixX>(M).eigenvalues().minCoeff(), 0.0) << name;
      EXPECT_EQ(M.llt().info(), Eigen::Success) << name;
    }
  }
}

TEST(Crba, ColumnsAreRneaWithoutGravityAndVelocity) {
  std::mt19937 rng(72);
  for (const auto& [name, model] : test_models_with_armature()) {
    Data data(model);
    const VectorX q = random_configuration(model, rng);
    const MatrixX M = crba(model, data, q);
    const VectorX g = generalized_gravity(model, data, q);
    const VectorX zero = VectorX::Zero(model.nv);
    MatrixX Mr(model.nv, model.nv);
    for (int c = 0; c < model.nv; ++c) Mr.col(c) = rnea(model, data, q, zero, VectorX::Unit(model.nv, c)) - g;
    EXPECT_LT(rel_err(M, Mr), 1e-10) << name;
  }
}

TEST(Crba, ArmatureIsOnTheDiagonal) {
  std::mt19937 rng(73);
  for (const auto& nm : test::test_models()) {
    Model with = nm.model;
    test::add_armature(with);
    Data d0(nm.model), d1(with);
    const VectorX q = random_configuration(nm.model, rng);
    const MatrixX diff = crba(with, d1, q) - crba(nm.model, d0, q);
    EXPECT_LT((diff - MatrixX(with.armature.asDiagonal())).norm(), 1e-12) << nm.name;
  }
}

TEST(Crba, MassMatrixGivesKineticEnergy) {
  std::mt19937 rng(74);
  for (const auto& [name, model] : test_models_with_armature()) {
    Data data(model);
    const test::State s = random_state(model, rng);
    const MatrixX M = crba(model, data, s.q);
    const double T = kinetic_energy(model, data, s.q, s.v);
    EXPECT_NEAR(0.5 * s.v.dot(M * s.v), T, 1e-10 * (1 + T)) << name;
  }
}

TEST(Crba, FactorizationSolvesLikeLdlt) {
  std::mt19937 rng(75);
  for (const auto& [name, model] : test_models_with_armature()) {
    Data data(model);
    for (int k = 0; k < 3; ++k) {
      const MatrixX M = crba(model, data, random_configuration(model, rng));
      factorize_mass_matrix(model, data);
      const auto ldlt = M.ldlt();
      // Vector solve.
      const VectorX b = random_vector(model.nv, rng);
      VectorX x = b;
      solve_mass(model, data, x);
      EXPECT_LT(rel_err(x, ldlt.solve(b)), 1e-10) << name;
      EXPECT_LT(rel_err(M * x, b), 1e-10) << name;
      // Matrix solve, column by column.
      const MatrixX B = MatrixX::Random(model.nv, 4);
      MatrixX X = B;
      solve_mass_columns(model, data, X);
      EXPECT_LT(rel_err(X, ldlt.solve(B)), 1e-10) << name;
      // The factors rebuild M: M = Lᵀ D L (L unit lower triangular by construction of
      // mass_factor_l(), nonzero only at ancestor positions since it is stored that way).
      const MatrixX L = mass_factor_l(model, data);
      const VectorX D = data.Dfact;
      EXPECT_LT(rel_err(L.transpose() * D.asDiagonal() * L, M), 1e-12) << name;
      EXPECT_LT((data.Dinv_fact.cwiseProduct(D).array() - 1.0).abs().maxCoeff(), 1e-14) << name;
      EXPECT_NEAR(mass_quadratic_form(model, data, b), b.dot(M * b), 1e-10 * std::abs(b.dot(M * b))) << name;
      // The packed storage relies on the ancestor lists: k's list is the λ chain, nearest first,
      // and the list of k's t-th ancestor is the rest of k's list after t.
      for (int k = 0; k < model.nv; ++k) {
        std::vector<int> chain;
        for (int j = model.dof_parent[k]; j >= 0; j = model.dof_parent[j]) chain.push_back(j);
        const std::vector<int> list(model.ancestors_of(k), model.ancestors_of(k) + model.ancestor_count(k));
        EXPECT_EQ(list, chain) << name << " dof " << k;
        for (std::size_t t = 0; t < list.size(); ++t) {
          const int i = list[t];
          const std::vector<int> tail(list.begin() + static_cast<std::ptrdiff_t>(t) + 1, list.end());
          const std::vector<int> of_i(model.ancestors_of(i), model.ancestors_of(i) + model.ancestor_count(i));
          EXPECT_EQ(of_i, tail) << name << " dof " << k << ", ancestor " << i;
        }
      }
    }
  }
}

TEST(Crba, HalfSolvesComposeToTheInverse) {
  std::mt19937 rng(76);
  for (const auto& [name, model] : test_models_with_armature()) {
    Data data(model);
    const MatrixX M = crba(model, data, random_configuration(model, rng));
    factorize_mass_matrix(model, data);
    // M⁻¹ = L⁻¹ D⁻¹ L⁻ᵀ.
    MatrixX X = MatrixX::Identity(model.nv, model.nv);
    solve_mass_lt(model, data, X);
    X = data.Dinv_fact.asDiagonal() * X;
    solve_mass_l(model, data, X);
    EXPECT_LT(rel_err(M * X, MatrixX::Identity(model.nv, model.nv)), 1e-10) << name;
    // Schur complement: J M⁻¹ Jᵀ = (L⁻ᵀ Jᵀ)ᵀ D⁻¹ (L⁻ᵀ Jᵀ).
    const MatrixX Jt = MatrixX::Random(model.nv, 3);
    MatrixX Y = Jt;
    solve_mass_lt(model, data, Y);
    const MatrixX schur = Y.transpose() * data.Dinv_fact.asDiagonal() * Y;
    const MatrixX expected = Jt.transpose() * M.ldlt().solve(Jt);
    EXPECT_LT(rel_err(schur, expected), 1e-10) << name;
  }
}

TEST(Crba, FactorizeThrowsOnSingularMassMatrix) {
  // A massless leaf body on a prismatic joint (no armature) gives a zero row in M.
  ModelBuilder b("singular");
  b.add_body("a", "", "ja", JointType::Revolute, {}, {0, 0, 1}, test::asymmetric_inertia(1.0, {0.3, 0, 0}));
  b.add_body("ghost", "a", "jg", JointType::Prismatic, {}, {1, 0, 0}, Inertia::Zero());
  const Model model = b.build();
  Data data(model);
  crba(model, data, neutral(model));
  EXPECT_THROW(factorize_mass_matrix(model, data), std::runtime_error);
  // With armature the same model is fine.
  Model with = model;
  with.set_armature("jg", 0.1);
  Data d2(with);
  crba(with, d2, neutral(with));
  EXPECT_NO_THROW(factorize_mass_matrix(with, d2));
}

TEST(Crba, SolveSizeMismatchThrows) {
  const Model model = test::mixed_model(false);
  Data data(model);
  crba(model, data, neutral(model));
  factorize_mass_matrix(model, data);
  VectorX x(model.nv + 1);
  EXPECT_THROW(solve_mass(model, data, x), std::invalid_argument);
  MatrixX X(model.nv - 1, 2);
  EXPECT_THROW(solve_mass_columns(model, data, X), std::invalid_argument);
  EXPECT_THROW(crba(model, data, VectorX::Zero(2)), std::invalid_argument);
}

TEST(CrbaAnalytic, PendulumInertia) {
  const double m = 2.0, l = 0.75, Ic = 1e-3;
  ModelBuilder b("pendulum");
  b.add_body("bob", "", "hinge", JointType::Revolute, {}, {0, 1, 0},
             Inertia::from_com(m, {l, 0, 0}, Ic * Matrix3::Identity()),
             JointLimits{-M_PI, M_PI, 10.0, 10.0, 0.0, 0.0, 0.05});
  const Model model = b.build();
  Data data(model);
  for (double th : {-1.0, 0.0, 2.0})
    EXPECT_NEAR(crba(model, data, VectorX::Constant(1, th))(0, 0), m * l * l + Ic + 0.05, 1e-14);
}

TEST(CrbaAnalytic, FreeBodyMassMatrixIsTheSpatialInertia) {
  const Inertia I = test::asymmetric_inertia(2.5, {0.1, -0.05, 0.2});
  ModelBuilder b("free");
  b.add_body("body", "", "root", JointType::FreeFlyer, {}, Vector3::Zero(), I);
  const Model model = b.build();
  Data data(model);
  std::mt19937 rng(77);
  EXPECT_LT((crba(model, data, random_configuration(model, rng)) - I.matrix()).norm(), 1e-14);
}

}  // namespace
}  // namespace articula
