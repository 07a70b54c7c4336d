// Forward kinematics and frame quantities (src/dynamics/kinematics.cpp): placements,
// body velocities and accelerations against finite differences on the manifold, and the
// three references of frame_velocity / frame_acceleration / frame_classical_acceleration.
#include <gtest/gtest.h>

#include "test_models.hpp"

namespace articula {
namespace {

using test::random_state;
using test::random_vector;
using test::sample_frames;
using test::test_models;

/// q(t) = q ⊕ (t v + t²/2 a): a curve with q̇(0) = v and v̇(0) = a (generalized velocity v + t a + O(t²)).
VectorX curve(const Model& model, const test::State& s, double t) {
  return integrate(model, s.q, VectorX(t * s.v + 0.5 * t * t * s.a), 1.0);
}

TEST(Kinematics, PlacementsComposeAlongTheTree) {
  std::mt19937 rng(41);
  for (const auto& [name, model] : test_models()) {
    Data data(model);
    const VectorX q = random_configuration(model, rng);
    forward_kinematics(model, data, q);
    for (Index i = 0; i < model.njoints; ++i) {
      const Transform XJ = joint_transform(model.joint_types[i], model.axes[i], q.data() + model.idx_q[i]);
      EXPECT_TRUE(data.liMi[i].isApprox(model.joint_placements[i] * XJ, 1e-14)) << name;
      const Index p = model.parents[i];
      const Transform expected = p == kWorld ? data.liMi[i] : data.oMi[p] * data.liMi[i];
      EXPECT_TRUE(data.oMi[i].isApprox(expected, 1e-14)) << name;
    }
    update_frame_placements(model, data);
    for (std::size_t k = 0; k < model.frames.size(); ++k) {
      const Frame& f = model.frames[k];
      const Transform expected = f.parent == kWorld ? f.placement : data.oMi[f.parent] * f.placement;
      EXPECT_TRUE(data.oMf[k].isApprox(expected, 1e-14)) << name << " frame " << f.name;
      EXPECT_TRUE(frame_placement(model, data, static_cast<Index>(k)).isApprox(expected, 1e-14)) << name;
    }
  }
}

TEST(Kinematics, PendulumTipByHand) {
  // pendulum3r: links of 1 m along local x, joints about local z, joint1 rotated +90° about world x.
  const Model model = load_urdf(test::model_path("pendulum3r"));
  Data data(model);
  const Eigen::Vector3d q(0.3, -0.5, 0.9);
  forward_kinematics(model, data, q);
  const double a1 = q[0], a2 = q[0] + q[1], a3 = q[0] + q[1] + q[2];
  // In the swing plane (world x, z): x = Σ cos, z = Σ sin (q > 0 lifts the link towards +z).
  const Vector3 p3(std::cos(a1) + std::cos(a2), 0.0, std::sin(a1) + std::sin(a2));
  EXPECT_LT((data.oMi[2].p - p3).norm(), 1e-14);
  const Vector3 tip = p3 + Vector3(std::cos(a3), 0.0, std::sin(a3));
  ASSERT_TRUE(model.has_frame("tip"));
  EXPECT_LT((frame_placement(model, data, model.frame_id("tip")).p - tip).norm(), 1e-14);
}

TEST(Kinematics, BodyVelocitiesAreDerivativesOfPlacements) {
  std::mt19937 rng(42);
  const double eps = 1e-5;
  for (const auto& [name, model] : test_models()) {
    Data data(model), dp(model), dm(model);
    for (int k = 0; k < 3; ++k) {
      const test::State s = random_state(model, rng);
      forward_kinematics(model, data, s.q, s.v);
      forward_kinematics(model, dp, integrate(model, s.q, s.v, eps));
      forward_kinematics(model, dm, integrate(model, s.q, s.v, -eps));
      for (Index i = 0; i < model.njoints; ++i) {
        // Body velocity: log(X(−ε)⁻¹ X(ε)) / 2ε.
        const Vector6 fd = log6(dm.oMi[i].inv_times(dp.oMi[i])).vector() / (2 * eps);
        EXPECT_LT((fd - data.v[i].vector()).norm(), 1e-7 * (1 + fd.norm())) << name << " body " << model.body_names[i];
      }
    }
  }
}

TEST(Kinematics, BodyAccelerationsAreDerivativesOfVelocities) {
  std::mt19937 rng(43);
  const double eps = 1e-5;
  for (const auto& [name, model] : test_models()) {
    Data data(model), dp(model), dm(model);
    for (int k = 0; k < 3; ++k) {
      const test::State s = random_state(model, rng);
      forward_kinematics(model, data, s.q, s.v, s.a);
      forward_kinematics(model, dp, curve(model, s, eps), VectorX(s.v + eps * s.a));
      forward_kinematics(model, dm, curve(model, s, -eps), VectorX(s.v - eps * s.a));
      for (Index i = 0; i < model.njoints; ++i) {
        // a_i = d/dt of the body-frame velocity components.
        const Vector6 fd = (dp.v[i].vector() - dm.v[i].vector()) / (2 * eps);
        EXPECT_LT((fd - data.a[i].vector()).norm(), 1e-6 * (1 + fd.norm())) << name << " body " << model.body_names[i];
      }
    }
  }
}

TEST(Kinematics, FrameVelocityReferencesAreConsistent) {
  std::mt19937 rng(44);
  for (const auto& [name, model] : test_models()) {
    Data data(model);
    const test::State s = random_state(model, rng);
    forward_kinematics(model, data, s.q, s.v, s.a);
    for (Index f : sample_frames(model)) {
      const Transform X = frame_placement(model, data, f);
      const Motion local = frame_velocity(model, data, f, ReferenceFrame::Local);
      const Motion world = frame_velocity(model, data, f, ReferenceFrame::World);
      const Motion lwa = frame_velocity(model, data, f, ReferenceFrame::LocalWorldAligned);
      EXPECT_LT((world.vector() - X.act(local).vector()).norm(), 1e-12 * (1 + world.vector().norm())) << name;
      EXPECT_LT((lwa.v - X.R * local.v).norm(), 1e-12 * (1 + lwa.v.norm())) << name;
      EXPECT_LT((lwa.w - X.R * local.w).norm(), 1e-12 * (1 + lwa.w.norm())) << name;
      // LWA linear part is the velocity of the origin: v_O + ω × p from the world velocity.
      EXPECT_LT((lwa.v - (world.v + world.w.cross(X.p))).norm(), 1e-12 * (1 + lwa.v.norm())) << name;
      // A body frame has the body's velocity.
      if (model.frames[f].type == FrameType::Body) {
        EXPECT_LT((local.vector() - data.v[model.frames[f].parent].vector()).norm(), 1e-14) << name;
      }
    }
  }
}

TEST(Kinematics, FrameAccelerationIsDerivativeOfFrameVelocity) {
  std::mt19937 rng(45);
  const double eps = 1e-5;
  for (const auto& [name, model] : test_models()) {
    Data data(model), dp(model), dm(model);
    for (int k = 0; k < 2; ++k) {
      const test::State s = random_state(model, rng);
      forward_kinematics(model, data, s.q, s.v, s.a);
      forward_kinematics(model, dp, curve(model, s, eps), VectorX(s.v + eps * s.a));
      forward_kinematics(model, dm, curve(model, s, -eps), VectorX(s.v - eps * s.a));
      for (Index f : sample_frames(model)) {
        for (ReferenceFrame ref : {ReferenceFrame::Local, ReferenceFrame::World, ReferenceFrame::LocalWorldAligned}) {
          const Vector6 fd =
              (frame_velocity(model, dp, f, ref).vector() - frame_velocity(model, dm, f, ref).vector()) / (2 * eps);
          const Vector6 acc = frame_acceleration(model, data, f, ref).vector();
          EXPECT_LT((fd - acc).norm(), 1e-6 * (1 + fd.norm()))
              << name << " frame " << model.frames[f].name << " ref " << static_cast<int>(ref);
        }
      }
    }
  }
}

TEST(Kinematics, ClassicalAccelerationIsSecondDerivativeOfOrigin) {
  std::mt19937 rng(46);
  const double eps = 1e-3;
  for (const auto& [name, model] : test_models()) {
    Data data(model), d0(model), dp(model), dm(model);
    for (int k = 0; k < 2; ++k) {
      const test::State s = random_state(model, rng);
      forward_kinematics(model, data, s.q, s.v, s.a);
      forward_kinematics(model, d0, s.q);
      forward_kinematics(model, dp, curve(model, s, eps));
      forward_kinematics(model, dm, curve(model, s, -eps));
      for (Index f : sample_frames(model)) {
        const Vector3 p0 = frame_placement(model, d0, f).p, pp = frame_placement(model, dp, f).p,
                      pm = frame_placement(model, dm, f).p;
        const Vector3 fd = (pp - 2 * p0 + pm) / (eps * eps);
        const Vector3 acc = frame_classical_acceleration(model, data, f);
        EXPECT_LT((fd - acc).norm(), 1e-4 * (1 + acc.norm())) << name << " frame " << model.frames[f].name;
        EXPECT_LT((acc - frame_acceleration(model, data, f, ReferenceFrame::LocalWorldAligned).v).norm(), 1e-14);
      }
    }
  }
}

TEST(Kinematics, WorldFramesAreStill) {
  const Model model = test::mixed_model(true);
  Data data(model);
  std::mt19937 rng(47);
  const test::State s = random_state(model, rng);
  forward_kinematics(model, data, s.q, s.v, s.a);
  const Index f = model.frame_id("world_mark");
  EXPECT_TRUE(frame_placement(model, data, f).isApprox(model.frames[f].placement, 0.0));
  for (ReferenceFrame ref : {ReferenceFrame::Local, ReferenceFrame::World, ReferenceFrame::LocalWorldAligned}) {
    EXPECT_EQ(frame_velocity(model, data, f, ref).vector(), Vector6::Zero());
    EXPECT_EQ(frame_acceleration(model, data, f, ref).vector(), Vector6::Zero());
  }
}

TEST(Kinematics, SizeMismatchThrows) {
  const Model model = test::mixed_model(true);
  Data data(model);
  const VectorX q = neutral(model), v = VectorX::Zero(model.nv);
  EXPECT_THROW(forward_kinematics(model, data, VectorX(q.head(model.nq - 1))), std::invalid_argument);
  EXPECT_THROW(forward_kinematics(model, data, q, VectorX(v.head(model.nv - 1))), std::invalid_argument);
  EXPECT_THROW(forward_kinematics(model, data, q, v, VectorX(v.head(2))), std::invalid_argument);
}

}  // namespace
}  // namespace articula
