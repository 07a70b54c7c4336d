// The adaptive Dormand–Prince 5(4) step (src/integrators/dopri5.cpp): invariants of a tumbling
// free body, rejections on stiff and discontinuous right-hand sides, h_limit and min_step,
// failures of f, evaluation counts (first stage reused by every trial), options validation.
#include "articula/integrators/dopri5.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>

#include "test_models.hpp"

namespace articula {
namespace {

/// A 1-dof model (a hinge) for the scalar right-hand sides below: q and v are plain numbers.
Model scalar_model() {
  ModelBuilder b("scalar");
  b.add_body("body", "", "hinge", JointType::Revolute, Transform::Identity(), Vector3::UnitZ(),
             Inertia::from_com(1.0, Vector3::Zero(), 0.1 * Matrix3::Identity()));
  return b.build();
}

VectorX scalar(double x) { return VectorX::Constant(1, x); }

/// Integrates from 0 to T, landing on T, checking every step; returns the summed counters.
struct Counters {
  int steps = 0, rejected = 0, evaluations = 0, steps_after_rejection_growing = 0;
  bool ok = true;
};
Counters integrate_to(const Model& model, const AccelerationFn& f, double T, double h0, VectorX& q, VectorX& v,
                      const AdaptiveOptions& o) {
  Dopri5Workspace ws(model);
  Counters run;
  double t = 0.0, h = h0;
  while (t < T) {
    const double remaining = T - t;
    const AdaptiveStepResult r = dopri5_step(model, f, h, remaining, q, v, ws, o);
    if (!r.ok) {
      run.ok = false;
      return run;
    }
    EXPECT_LE(r.h, remaining);
    EXPECT_LE(r.error, 1.0);
    EXPECT_LE(r.h_next, o.max_step);
    EXPECT_EQ(r.evaluations, 7 + 6 * r.rejected);
    if (r.rejected > 0 && r.h_next > r.h) ++run.steps_after_rejection_growing;
    t = r.h == remaining ? T : t + r.h;
    h = r.h_next;
    ++run.steps;
    run.rejected += r.rejected;
    run.evaluations += r.evaluations;
  }
  return run;
}

// ---------------------------------------------------------------------------------------------

TEST(Dopri5, FreeBodyKeepsUnitQuaternionEnergyAndWorldMomentum) {
  // Torque-free rigid body, no gravity, rotated principal axes and offset centre of mass,
  // spinning about a non-principal axis (it tumbles); ABA gives v̇.
  ModelBuilder b("free_body");
  b.add_body("body", "", "root", JointType::FreeFlyer, Transform::Identity(), Vector3::Zero(),
             test::asymmetric_inertia(2.0, {0.05, -0.03, 0.02}, 4.0));
  b.set_gravity(Vector3::Zero());
  const Model model = b.build();
  Data data(model);
  const VectorX tau = VectorX::Zero(model.nv);
  const AccelerationFn f = [&](VectorRef q, VectorRef v, Eigen::Ref<VectorX> vdot) {
    vdot = aba(model, data, q, v, tau);
    return true;
  };
  // World spatial momentum (linear, and angular about the world origin).
  auto momentum = [&](const VectorX& q, const VectorX& v) {
    forward_kinematics(model, data, q);
    return data.oMi[0].act(model.inertias[0] * Motion{v.head<3>(), v.tail<3>()}).vector();
  };
  VectorX q = neutral(model), v(6);
  q.head<3>() << 0.1, -0.2, 0.3;
  v << 0.3, -0.2, 0.1, 2.0, -1.0, 3.0;
  const double E0 = kinetic_energy(model, data, q, v);
  const Vector6 L0 = momentum(q, v);

  AdaptiveOptions o;
  o.abs_tol = o.rel_tol = 1e-9;
  o.max_step = 0.1;
  Dopri5Workspace ws(model);
  const double T = 5.0;
  double t = 0.0, h = 1e-3, max_quat_dev = 0.0;
  int steps = 0, rejected = 0;
  while (t < T) {
    const AdaptiveStepResult r = dopri5_step(model, f, h, T - t, q, v, ws, o);
    ASSERT_TRUE(r.ok) << "t = " << t;
    t = r.h == T - t ? T : t + r.h;
    h = r.h_next;
    ++steps;
    rejected += r.rejected;
    max_quat_dev = std::max(max_quat_dev, std::abs(q.segment<4>(3).norm() - 1.0));
  }
  EXPECT_LT(max_quat_dev, 1e-12);
  const double E = kinetic_energy(model, data, q, v);
  EXPECT_NEAR(E, E0, 1e-7 * E0) << steps << " steps";
  EXPECT_LT((momentum(q, v) - L0).norm(), 1e-7 * L0.norm()) << steps << " steps";
  // The body did tumble: its angular velocity in the body frame changed.
  EXPECT_GT((v.tail<3>() - Vector3(2.0, -1.0, 3.0)).norm(), 0.5);
  char buf[160];
  std::snprintf(buf, sizeof buf, "%d steps, %d rejected, |dE|/E %.3g, |dL|/|L| %.3g, quaternion %.3g", steps, rejected,
                std::abs(E - E0) / E0, (momentum(q, v) - L0).norm() / L0.norm(), max_quat_dev);
  RecordProperty("result", buf);
}

TEST(Dopri5, RejectsOnAStiffOscillatorAndStaysAccurate) {
  // q̈ = −ω² q, ω = 100: the first trial at max_step is far too long.
  const Model model = scalar_model();
  const double w = 100.0, T = 0.2;
  const AccelerationFn f = [&](VectorRef q, VectorRef, Eigen::Ref<VectorX> vdot) {
    vdot[0] = -w * w * q[0];
    return true;
  };
  AdaptiveOptions o;
  o.abs_tol = o.rel_tol = 1e-9;
  o.max_step = 0.1;
  VectorX q = scalar(1.0), v = scalar(0.0);
  const Counters run = integrate_to(model, f, T, 0.1, q, v, o);
  ASSERT_TRUE(run.ok);
  EXPECT_GT(run.rejected, 0);
  EXPECT_EQ(run.steps_after_rejection_growing, 0);
  EXPECT_NEAR(q[0], std::cos(w * T), 1e-6) << run.steps << " steps, " << run.rejected << " rejected";
  EXPECT_NEAR(v[0] / w, -std::sin(w * T), 1e-6);
  RecordProperty("result", std::to_string(run.steps) + " steps, " + std::to_string(run.rejected) + " rejected");
}

TEST(Dopri5, RejectsAtADiscontinuityAndStaysAccurate) {
  // q̈ = 1 while q < q*, −1 afterwards, from rest at 0: exact piecewise-quadratic solution.
  const Model model = scalar_model();
  const double qs = 0.02, a1 = 1.0, a2 = -1.0, T = 0.5;
  const AccelerationFn f = [&](VectorRef q, VectorRef, Eigen::Ref<VectorX> vdot) {
    vdot[0] = q[0] < qs ? a1 : a2;
    return true;
  };
  const double ts = std::sqrt(2 * qs / a1), vs = a1 * ts, dt = T - ts;
  const double q_exact = qs + vs * dt + 0.5 * a2 * dt * dt, v_exact = vs + a2 * dt;
  ASSERT_GT(q_exact, qs);  // q rises past q*, turns back before T but stays above q*: one switch
  AdaptiveOptions o;
  o.abs_tol = o.rel_tol = 1e-8;
  o.max_step = 0.05;
  VectorX q = scalar(0.0), v = scalar(0.0);
  const Counters run = integrate_to(model, f, T, 0.05, q, v, o);
  ASSERT_TRUE(run.ok);
  EXPECT_GT(run.rejected, 0);
  EXPECT_EQ(run.steps_after_rejection_growing, 0);
  EXPECT_NEAR(q[0], q_exact, 1e-6) << run.steps << " steps, " << run.rejected << " rejected";
  EXPECT_NEAR(v[0], v_exact, 1e-5);
  RecordProperty("result", std::to_string(run.steps) + " steps, " + std::to_string(run.rejected) + " rejected");
}

TEST(Dopri5, HonoursHLimitAndTheStepBounds) {
  const Model model = scalar_model();
  const AccelerationFn f = [](VectorRef q, VectorRef, Eigen::Ref<VectorX> vdot) {
    vdot[0] = -q[0];
    return true;
  };
  Dopri5Workspace ws(model);
  AdaptiveOptions o;
  o.max_step = 0.05;
  {  // h_limit shortens the step; the proposal is not shrunk by it.
    VectorX q = scalar(1.0), v = scalar(0.0);
    const AdaptiveStepResult r = dopri5_step(model, f, 0.04, 0.003, q, v, ws, o);
    ASSERT_TRUE(r.ok);
    EXPECT_EQ(r.h, 0.003);
    EXPECT_GE(r.h_next, 0.04);
    EXPECT_LE(r.h_next, o.max_step);
    EXPECT_NEAR(q[0], std::cos(0.003), 1e-12);
  }
  {  // h above max_step is clamped to it.
    VectorX q = scalar(1.0), v = scalar(0.0);
    const AdaptiveStepResult r = dopri5_step(model, f, 10.0, std::numeric_limits<double>::infinity(), q, v, ws, o);
    ASSERT_TRUE(r.ok);
    EXPECT_LE(r.h, o.max_step);
    EXPECT_LE(r.h_next, o.max_step);
  }
  {  // h below min_step is raised to it.
    o.min_step = 1e-4;
    VectorX q = scalar(1.0), v = scalar(0.0);
    const AdaptiveStepResult r = dopri5_step(model, f, 1e-7, 1.0, q, v, ws, o);
    ASSERT_TRUE(r.ok);
    EXPECT_EQ(r.h, 1e-4);
    o.min_step = AdaptiveOptions{}.min_step;
  }
  {  // h_limit below min_step: that exact step, without error control, to land on an event.
    VectorX q = scalar(1.0), v = scalar(2.0);
    const AdaptiveStepResult r = dopri5_step(model, f, 0.01, 1e-12, q, v, ws, o);
    ASSERT_TRUE(r.ok);
    EXPECT_EQ(r.h, 1e-12);
    EXPECT_EQ(r.rejected, 0);
    EXPECT_EQ(r.evaluations, 7);
    EXPECT_EQ(r.h_next, 0.01);
    EXPECT_NEAR(q[0], 1.0 + 2e-12, 1e-15);
    EXPECT_NEAR(v[0], 2.0 - 1e-12, 1e-15);
  }
}

TEST(Dopri5, BelowMinStepFailsAndLeavesTheStateUnchanged) {
  const Model model = scalar_model();
  Dopri5Workspace ws(model);
  const VectorX q0 = scalar(0.7), v0 = scalar(-0.3);
  {  // a non-finite right-hand side: every trial is rejected down to min_step, then it fails.
    const AccelerationFn f = [](VectorRef, VectorRef, Eigen::Ref<VectorX> vdot) {
      vdot[0] = std::numeric_limits<double>::quiet_NaN();
      return true;
    };
    VectorX q = q0, v = v0;
    const AdaptiveStepResult r = dopri5_step(model, f, 0.01, 1.0, q, v, ws, AdaptiveOptions{});
    EXPECT_FALSE(r.ok);
    EXPECT_FALSE(r.f_failed);
    EXPECT_EQ(r.h, 0.0);
    EXPECT_EQ(r.h_next, AdaptiveOptions{}.min_step);  // the last trial was min_step itself
    EXPECT_GT(r.rejected, 5);
    EXPECT_EQ(r.evaluations, 1 + 6 * r.rejected);
    EXPECT_EQ(q, q0);
    EXPECT_EQ(v, v0);
  }
  {  // a tolerance the stiff oscillator cannot meet above min_step.
    const AccelerationFn f = [](VectorRef q, VectorRef, Eigen::Ref<VectorX> vdot) {
      vdot[0] = -1e8 * q[0];
      return true;
    };
    AdaptiveOptions o;
    o.min_step = 1e-3;
    o.max_step = 1e-2;
    VectorX q = q0, v = v0;
    const AdaptiveStepResult r = dopri5_step(model, f, 0.01, 1.0, q, v, ws, o);
    EXPECT_FALSE(r.ok);
    EXPECT_FALSE(r.f_failed);
    EXPECT_GT(r.rejected, 0);
    EXPECT_EQ(q, q0);
    EXPECT_EQ(v, v0);
  }
}

TEST(Dopri5, ReportsAFailingRightHandSide) {
  const Model model = scalar_model();
  Dopri5Workspace ws(model);
  for (int fail_at : {1, 3, 7}) {
    int calls = 0;
    const AccelerationFn f = [&](VectorRef q, VectorRef, Eigen::Ref<VectorX> vdot) {
      vdot[0] = -q[0];
      return ++calls != fail_at;
    };
    VectorX q = scalar(0.5), v = scalar(0.1);
    const AdaptiveStepResult r = dopri5_step(model, f, 0.01, 1.0, q, v, ws, AdaptiveOptions{});
    EXPECT_FALSE(r.ok) << fail_at;
    EXPECT_TRUE(r.f_failed);
    EXPECT_EQ(r.evaluations, fail_at);
    EXPECT_EQ(calls, fail_at);
    EXPECT_EQ(q, scalar(0.5));
    EXPECT_EQ(v, scalar(0.1));
  }
}

TEST(Dopri5, ReusesTheFirstStageAcrossRejectedTrials) {
  // Counts the calls at the initial state: exactly one however many trials are rejected.
  const Model model = scalar_model();
  Dopri5Workspace ws(model);
  const double w = 300.0;
  int calls = 0, calls_at_start = 0;
  const AccelerationFn f = [&](VectorRef q, VectorRef v, Eigen::Ref<VectorX> vdot) {
    ++calls;
    if (q[0] == 1.0 && v[0] == 0.0) ++calls_at_start;
    vdot[0] = -w * w * q[0];
    return true;
  };
  AdaptiveOptions o;
  o.max_step = 0.1;
  VectorX q = scalar(1.0), v = scalar(0.0);
  const AdaptiveStepResult r = dopri5_step(model, f, 0.1, 1.0, q, v, ws, o);
  ASSERT_TRUE(r.ok);
  EXPECT_GT(r.rejected, 1);
  EXPECT_EQ(calls_at_start, 1);
  EXPECT_EQ(calls, r.evaluations);
  EXPECT_EQ(r.evaluations, 7 + 6 * r.rejected);
  EXPECT_LE(r.h_next, r.h);  // no growth right after a rejection
  EXPECT_LE(r.error, 1.0);
}

TEST(Dopri5, ValidatesOptionsAndArguments) {
  auto throws_naming = [](const std::string& field, auto mutate) {
    AdaptiveOptions o;
    mutate(o);
    try {
      o.validate();
      ADD_FAILURE() << field << ": no exception";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
    }
  };
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  EXPECT_NO_THROW(AdaptiveOptions{}.validate());
  throws_naming("abs_tol", [](AdaptiveOptions& o) { o.abs_tol = 0.0; });
  throws_naming("abs_tol", [&](AdaptiveOptions& o) { o.abs_tol = nan; });
  throws_naming("rel_tol", [](AdaptiveOptions& o) { o.rel_tol = -1e-6; });
  throws_naming("rel_tol", [&](AdaptiveOptions& o) { o.rel_tol = inf; });
  throws_naming("min_step", [](AdaptiveOptions& o) { o.min_step = 0.0; });
  throws_naming("max_step", [](AdaptiveOptions& o) { o.max_step = 0.5 * o.min_step; });
  throws_naming("max_step", [&](AdaptiveOptions& o) { o.max_step = inf; });
  throws_naming("safety", [](AdaptiveOptions& o) { o.safety = 0.0; });
  throws_naming("safety", [](AdaptiveOptions& o) { o.safety = 1.5; });
  throws_naming("min_factor", [](AdaptiveOptions& o) { o.min_factor = 1.0; });
  throws_naming("min_factor", [](AdaptiveOptions& o) { o.min_factor = 0.0; });
  throws_naming("max_factor", [](AdaptiveOptions& o) { o.max_factor = 0.9; });
  throws_naming("max_factor", [&](AdaptiveOptions& o) { o.max_factor = nan; });

  const Model model = scalar_model();
  Dopri5Workspace ws(model);
  const AccelerationFn f = [](VectorRef, VectorRef, Eigen::Ref<VectorX> vdot) {
    vdot.setZero();
    return true;
  };
  VectorX q = scalar(0.0), v = scalar(0.0), wrong(2);
  AdaptiveOptions bad;
  bad.safety = -1.0;
  EXPECT_THROW(dopri5_step(model, f, 0.01, 1.0, q, v, ws, bad), std::invalid_argument);
  EXPECT_THROW(dopri5_step(model, f, 0.0, 1.0, q, v, ws, {}), std::invalid_argument);
  EXPECT_THROW(dopri5_step(model, f, nan, 1.0, q, v, ws, {}), std::invalid_argument);
  EXPECT_THROW(dopri5_step(model, f, 0.01, 0.0, q, v, ws, {}), std::invalid_argument);
  EXPECT_THROW(dopri5_step(model, f, 0.01, nan, q, v, ws, {}), std::invalid_argument);
  EXPECT_THROW(dopri5_step(model, f, 0.01, 1.0, wrong, v, ws, {}), std::invalid_argument);
  EXPECT_THROW(dopri5_step(model, f, 0.01, 1.0, q, wrong, ws, {}), std::invalid_argument);
  Dopri5Workspace other(test::mixed_model(false));
  EXPECT_THROW(dopri5_step(model, f, 0.01, 1.0, q, v, other, {}), std::invalid_argument);
}

}  // namespace
}  // namespace articula
