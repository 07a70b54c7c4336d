// Joint position limits as exact one-sided stops (SimulationOptions::joint_limits,
// docs/engine.md "Joint limits"): impacts with the consistent jump, resting on a stop with the
// static reaction as multiplier, letting go when the stop would pull, bouncing with restitution.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "articula/articula.hpp"
#include "test_support.hpp"

namespace articula {
namespace {

constexpr double kMass = 2.0, kLength = 0.5, kG = 9.81, kUpper = 0.3;

// A rod of mass m, centre of mass l from a hinge about y: z_com = −l sin θ, so gravity turns it
// towards θ = π/2 with the torque m g l cos θ. Upper limit 0.3 rad.
Robot rod(double upper = kUpper) {
  ModelBuilder b("rod");
  JointLimits limits;
  limits.lower = -1.5;
  limits.upper = upper;
  b.add_body("rod", "", "hinge", JointType::Revolute, Transform(), Vector3::UnitY(),
             Inertia::from_com(kMass, Vector3(kLength, 0, 0), 0.01 * Matrix3::Identity()), limits);
  Robot robot(b.build());
  robot.add_motor({.name = "hinge", .joint = "hinge"});
  return robot;
}

RunResult run_rod(Robot& robot, SimulationOptions o, double q0, double duration, double* q_max = nullptr,
                  VectorX* multipliers = nullptr) {
  o.record_samples = true;
  Simulator sim(robot, o);
  sim.set_state(VectorX::Constant(1, q0), VectorX::Zero(1));
  RunResult r = sim.run(duration);
  if (q_max != nullptr) {
    *q_max = -1e300;
    const auto& cols = r.columns;
    const auto it = std::find(cols.begin(), cols.end(), "q.hinge");
    EXPECT_NE(it, cols.end());
    for (const VectorX& s : r.samples) *q_max = std::max(*q_max, s[it - cols.begin()]);
  }
  if (multipliers != nullptr) *multipliers = sim.multipliers();
  return r;
}

TEST(JointLimits, OffByDefaultTheRodSwingsThroughTheLimit) {
  Robot robot = rod();
  double q_max = 0;
  const RunResult r = run_rod(robot, {}, -0.5, 0.6, &q_max);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_GT(q_max, kUpper + 0.3);
  EXPECT_FALSE(robot.constraints().contains("limit.hinge.upper"));
}

TEST(JointLimits, PlasticImpactThenRestsOnTheStopWithTheStaticReaction) {
  Robot robot = rod();
  SimulationOptions o;
  o.joint_limits = true;
  double q_max = 0;
  VectorX sim_multipliers;
  const RunResult r = run_rod(robot, o, -0.5, 0.6, &q_max, &sim_multipliers);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_LT(q_max, kUpper + 1e-6);
  ASSERT_EQ(r.events.size(), 1u);
  const EventRecord& hit = r.events[0];
  EXPECT_EQ(hit.names, std::vector<std::string>{"limit.hinge.upper"});
  EXPECT_TRUE(hit.jumped);
  EXPECT_GT(hit.v_minus[0], 1.0);          // it arrives fast …
  EXPECT_NEAR(hit.v_plus[0], 0.0, 1e-12);  // … and stops dead (one dof, e = 0)
  EXPECT_GT(hit.kinetic_before, 0.1);
  EXPECT_NEAR(hit.kinetic_after, 0.0, 1e-12);
  // Resting on the stop: λ is the reaction that cancels gravity's torque (M v̇ = τ_g + λ = 0).
  ConstraintSet& set = robot.constraints();
  ASSERT_TRUE(set.is_enabled("limit.hinge.upper"));
  EXPECT_NEAR(set.rows_of("limit.hinge.upper", sim_multipliers)[0], -kMass * kG * kLength * std::cos(kUpper), 1e-6);
  EXPECT_FALSE(set.is_enabled("limit.hinge.lower"));
}

TEST(JointLimits, TheStopLetsGoWhenTheMotorPullsAway) {
  Robot robot = rod();
  SimulationOptions o;
  o.joint_limits = true;
  o.record_samples = true;
  Simulator sim(robot, o);
  sim.set_state(VectorX::Constant(1, kUpper), VectorX::Zero(1));  // on the stop from the start
  const double pull = -2.0 * kMass * kG * kLength;                // twice gravity's torque, away
  Event e;
  e.name = "pull";
  e.time = 0.2;
  e.actions = {EventAction::set_command("hinge", pull)};
  sim.add_event(std::move(e));
  const RunResult r = sim.run(0.4);
  ASSERT_TRUE(r.ok()) << r.message;
  ASSERT_EQ(r.events.size(), 3u);  // engaged at t = 0, the pull, the release
  EXPECT_EQ(r.events[0].names, std::vector<std::string>{"limit.hinge.upper"});
  EXPECT_DOUBLE_EQ(r.events[0].time, 0.0);
  EXPECT_EQ(r.events[2].names, std::vector<std::string>{"limit.hinge.upper"});
  EXPECT_NE(r.events[2].actions.find("release"), std::string::npos);
  EXPECT_NEAR(r.events[2].time, 0.2, 1e-12);  // the multiplier changes sign with the command
  EXPECT_FALSE(robot.constraints().is_enabled("limit.hinge.upper"));
  EXPECT_LT(sim.q()[0], kUpper - 0.05);  // it has moved off the stop
}

TEST(JointLimits, RestitutionBouncesAtMinusETimesTheImpactSpeedThenComesToRest) {
  Robot robot = rod();
  SimulationOptions o;
  o.joint_limits = true;
  o.limit_restitution = 0.5;
  double q_max = 0;
  const RunResult r = run_rod(robot, o, -0.5, 1.5, &q_max);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_LT(q_max, kUpper + 1e-6);
  ASSERT_GE(r.events.size(), 3u);
  const EventRecord& first = r.events[0];
  EXPECT_NEAR(first.v_plus[0], -0.5 * first.v_minus[0], 1e-12);
  EXPECT_NEAR(first.kinetic_after, 0.25 * first.kinetic_before, 1e-12);
  // Every bounce is slower; the last impact is plastic (below limit_bounce_velocity) and the
  // rod rests on the stop.
  for (std::size_t k = 1; k < r.events.size(); ++k) EXPECT_LT(r.events[k].v_minus[0], r.events[k - 1].v_minus[0]);
  EXPECT_LT(r.events.back().v_minus[0], o.limit_bounce_velocity);
  EXPECT_TRUE(robot.constraints().is_enabled("limit.hinge.upper"));
}

TEST(JointLimits, ElbowHittingItsStopKeepsTheShoulderMomentum) {
  // The 3R pendulum with a stop on joint 2: the impact changes (M v)_i only for the stopped
  // joint (Müller's momentum balance: wᵀ M Δv = 0 for every w with J w = 0).
  Model model = load_urdf(test::model_path("pendulum3r"));
  const Index elbow = model.joint_id(model.joint_names[1]);
  model.upper[model.idx_q[elbow]] = 0.2;
  Robot robot(std::move(model));
  SimulationOptions o;
  o.joint_limits = true;
  o.dt = 5e-4;
  o.record_samples = true;
  Simulator sim(robot, o);
  const Model& m = robot.model();
  VectorX q0 = VectorX::Zero(m.nq), v0 = VectorX::Zero(m.nv);
  v0[m.idx_v[elbow]] = 3.0;
  sim.set_state(q0, v0);
  const RunResult r = sim.run(0.3);
  ASSERT_TRUE(r.ok()) << r.message;
  ASSERT_FALSE(r.events.empty());
  const EventRecord& hit = r.events[0];
  EXPECT_EQ(hit.names[0], "limit." + m.joint_names[1] + ".upper");
  // M at the impact configuration, from the sample logged at the event instant.
  const auto t_col = std::find(r.columns.begin(), r.columns.end(), "t") - r.columns.begin();
  VectorX q_hit = VectorX::Constant(m.nq, NAN);
  for (const VectorX& row : r.samples)
    if (row[t_col] == hit.time)
      for (Index j = 0; j < m.njoints; ++j)
        q_hit[m.idx_q[j]] =
            row[std::find(r.columns.begin(), r.columns.end(), "q." + m.joint_names[j]) - r.columns.begin()];
  ASSERT_TRUE(all_finite(q_hit));
  Data data(m);
  const MatrixX M = crba(m, data, q_hit);
  const VectorX p_minus = M * hit.v_minus, p_plus = M * hit.v_plus;
  for (int i = 0; i < m.nv; ++i)
    if (i != m.idx_v[elbow]) {
      EXPECT_NEAR(p_plus[i], p_minus[i], 1e-9) << "generalized momentum of dof " << i;
    }
  EXPECT_NEAR(hit.v_plus[m.idx_v[elbow]], 0.0, 1e-12);
  EXPECT_LT(hit.momentum_residual, 1e-9);
  EXPECT_LT(hit.constraint_residual, 1e-12);
  EXPECT_LT(hit.kinetic_after, hit.kinetic_before);
  EXPECT_NE(hit.v_plus[0], hit.v_minus[0]);  // the other joints jump too (not the naive answer)
}

TEST(JointLimits, AStartPastALimitIsAnErrorNamingTheJoint) {
  Robot robot = rod();
  SimulationOptions o;
  o.joint_limits = true;
  const RunResult r = run_rod(robot, o, kUpper + 0.1, 0.1);
  EXPECT_EQ(r.status, RunStatus::Error);
  EXPECT_NE(r.message.find("joint 'hinge'"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("upper limit"), std::string::npos) << r.message;
}

TEST(JointLimits, OptionsAreValidated) {
  SimulationOptions o;
  o.limit_restitution = 1.5;
  EXPECT_THROW(o.validate(), std::invalid_argument);
  o.limit_restitution = 0.5;
  o.limit_bounce_velocity = -1;
  EXPECT_THROW(o.validate(), std::invalid_argument);
}

}  // namespace
}  // namespace articula
