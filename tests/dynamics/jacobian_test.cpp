// Joint and frame Jacobians (src/dynamics/jacobian.cpp) in the three references, against
// frame_velocity and finite differences of frame poses on the manifold, and the drift
// J̇ v = frame_acceleration(q, v, 0) against finite differences of J(q(t)) v.
#include <gtest/gtest.h>

#include "test_models.hpp"

namespace articula {
namespace {

using test::random_state;
using test::random_vector;
using test::sample_frames;
using test::test_models;

constexpr ReferenceFrame kRefs[] = {ReferenceFrame::World, ReferenceFrame::Local, ReferenceFrame::LocalWorldAligned};

const char* ref_name(ReferenceFrame r) {
  return r == ReferenceFrame::World ? "World" : r == ReferenceFrame::Local ? "Local" : "LocalWorldAligned";
}

TEST(Jacobian, FrameVelocityEqualsJv) {
  std::mt19937 rng(51);
  for (const auto& [name, model] : test_models()) {
    Data data(model);
    MatrixX J(6, model.nv);
    for (int k = 0; k < 3; ++k) {
      const test::State s = random_state(model, rng);
      compute_joint_jacobians(model, data, s.q);
      Data dv(model);
      forward_kinematics(model, dv, s.q, s.v);
      for (Index f : sample_frames(model, 20)) {
        for (ReferenceFrame ref : kRefs) {
          frame_jacobian(model, data, f, ref, J);
          const Vector6 V = frame_velocity(model, dv, f, ref).vector();
          EXPECT_LT((J * s.v - V).norm(), 1e-12 * (1 + V.norm()))
              << name << " " << model.frames[f].name << " " << ref_name(ref);
          // The allocating overload agrees.
          EXPECT_EQ(frame_jacobian(model, dv, s.q, f, ref), J);
        }
      }
    }
  }
}

TEST(Jacobian, JvIsDerivativeOfFramePose) {
  std::mt19937 rng(52);
  const double eps = 1e-5;
  for (const auto& [name, model] : test_models()) {
    Data data(model), dp(model), dm(model);
    MatrixX J(6, model.nv);
    for (int k = 0; k < 3; ++k) {
      const test::State s = random_state(model, rng);
      compute_joint_jacobians(model, data, s.q);
      forward_kinematics(model, dp, integrate(model, s.q, s.v, eps));
      forward_kinematics(model, dm, integrate(model, s.q, s.v, -eps));
      for (Index f : sample_frames(model, 20)) {
        const Transform Xp = frame_placement(model, dp, f), Xm = frame_placement(model, dm, f);
        // World: log(X(ε) X(−ε)⁻¹) / 2ε (spatial velocity about the world origin).
        const Vector6 fd_world = log6(Xp * Xm.inverse()).vector() / (2 * eps);
        // Local: log(X(−ε)⁻¹ X(ε)) / 2ε (body velocity).
        const Vector6 fd_local = log6(Xm.inv_times(Xp)).vector() / (2 * eps);
        // LocalWorldAligned: origin velocity and angular velocity, both in world axes.
        Vector6 fd_lwa;
        fd_lwa << (Xp.p - Xm.p) / (2 * eps), log3(Xp.R * Xm.R.transpose()) / (2 * eps);
        const Vector6 fds[] = {fd_world, fd_local, fd_lwa};
        for (int r = 0; r < 3; ++r) {
          frame_jacobian(model, data, f, kRefs[r], J);
          const Vector6 Jv = J * s.v;
          EXPECT_LT((Jv - fds[r]).norm(), 1e-7 * (1 + Jv.norm()))
              << name << " " << model.frames[f].name << " " << ref_name(kRefs[r]);
        }
      }
    }
  }
}

TEST(Jacobian, JointJacobianColumnsAreWorldAxes) {
  std::mt19937 rng(53);
  for (const auto& [name, model] : test_models()) {
    Data data(model);
    const VectorX q = random_configuration(model, rng);
    const MatrixX& J = compute_joint_jacobians(model, data, q);
    ASSERT_EQ(J.rows(), 6);
    ASSERT_EQ(J.cols(), model.nv);
    for (Index i = 0; i < model.njoints; ++i)
      for (int c = model.idx_v[i]; c < model.idx_v[i] + model.nv_joint[i]; ++c) {
        const Motion expected = data.oMi[i].act(Motion::from(model.S.col(c)));
        EXPECT_LT((J.col(c) - expected.vector()).norm(), 1e-14) << name;
      }
  }
}

TEST(Jacobian, ColumnsOfNonSupportingJointsAreZero) {
  std::mt19937 rng(54);
  for (const auto& [name, model] : test_models()) {
    Data data(model);
    compute_joint_jacobians(model, data, random_configuration(model, rng));
    MatrixX J(6, model.nv);
    for (Index f : sample_frames(model)) {
      frame_jacobian(model, data, f, ReferenceFrame::Local, J);
      std::vector<bool> support(model.njoints, false);
      for (Index j = model.frames[f].parent; j != kWorld; j = model.parents[j]) support[j] = true;
      for (Index j = 0; j < model.njoints; ++j)
        if (!support[j]) {
          EXPECT_EQ(J.middleCols(model.idx_v[j], model.nv_joint[j]).norm(), 0.0) << name << " " << model.frames[f].name;
        }
    }
  }
}

TEST(Jacobian, DriftEqualsDerivativeOfJv) {
  // frame_acceleration(ref) after forward_kinematics(q, v, 0) = d/dt [J(q(t)) v], q(t) = q ⊕ t v.
  std::mt19937 rng(55);
  const double eps = 1e-5;
  for (const auto& [name, model] : test_models()) {
    Data data(model), dp(model), dm(model);
    MatrixX Jp(6, model.nv), Jm(6, model.nv);
    for (int k = 0; k < 3; ++k) {
      const test::State s = random_state(model, rng);
      forward_kinematics(model, data, s.q, s.v, VectorX::Zero(model.nv));
      compute_joint_jacobians(model, dp, integrate(model, s.q, s.v, eps));
      compute_joint_jacobians(model, dm, integrate(model, s.q, s.v, -eps));
      for (Index f : sample_frames(model, 20)) {
        for (ReferenceFrame ref : kRefs) {
          frame_jacobian(model, dp, f, ref, Jp);
          frame_jacobian(model, dm, f, ref, Jm);
          const Vector6 fd = (Jp - Jm) * s.v / (2 * eps);
          const Vector6 drift = frame_acceleration(model, data, f, ref).vector();
          EXPECT_LT((fd - drift).norm(), 1e-6 * (1 + fd.norm()))
              << name << " " << model.frames[f].name << " " << ref_name(ref);
        }
      }
    }
  }
}

TEST(Jacobian, FrameAccelerationIsJaPlusDrift) {
  std::mt19937 rng(56);
  for (const auto& [name, model] : test_models()) {
    Data data(model), drift(model);
    MatrixX J(6, model.nv);
    const test::State s = random_state(model, rng);
    compute_joint_jacobians(model, data, s.q);
    forward_kinematics(model, drift, s.q, s.v, VectorX::Zero(model.nv));
    Data full(model);
    forward_kinematics(model, full, s.q, s.v, s.a);
    for (Index f : sample_frames(model)) {
      for (ReferenceFrame ref : kRefs) {
        frame_jacobian(model, data, f, ref, J);
        const Vector6 expected = J * s.a + frame_acceleration(model, drift, f, ref).vector();
        const Vector6 got = frame_acceleration(model, full, f, ref).vector();
        EXPECT_LT((got - expected).norm(), 1e-12 * (1 + got.norm())) << name << " " << ref_name(ref);
      }
    }
  }
}

TEST(Jacobian, WorldFrameAndErrors) {
  const Model model = test::mixed_model(true);
  Data data(model);
  compute_joint_jacobians(model, data, neutral(model));
  MatrixX J = MatrixX::Ones(6, model.nv);
  frame_jacobian(model, data, model.frame_id("world_mark"), ReferenceFrame::World, J);
  EXPECT_EQ(J.norm(), 0.0);
  MatrixX bad(6, model.nv + 1);
  EXPECT_THROW(frame_jacobian(model, data, 0, ReferenceFrame::World, bad), std::invalid_argument);
  EXPECT_THROW(frame_jacobian(model, data, static_cast<Index>(model.frames.size()), ReferenceFrame::World, J),
               std::invalid_argument);
  EXPECT_THROW(frame_jacobian(model, data, -1, ReferenceFrame::World, J), std::invalid_argument);
  EXPECT_THROW(compute_joint_jacobians(model, data, VectorX::Zero(3)), std::invalid_argument);
}

}  // namespace
}  // namespace articula
