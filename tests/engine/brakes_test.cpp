// Brakes (issue 18, docs/brakes.md): friction brakes that slip with −τ·sign(q̇), stick at a
// located standstill, hold while |λ| ≤ static_torque and release at the located instant it
// would exceed it; pin brakes that lock with the consistent jump; the stop signal.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "articula/articula.hpp"
#include "test_models.hpp"
#include "test_support.hpp"

namespace articula {
namespace {

// A flywheel: one revolute joint about y, inertia I, no gravity torque (com on the axis).
Robot flywheel(double inertia) {
  ModelBuilder b("flywheel");
  b.add_body("wheel", "", "hinge", JointType::Revolute, Transform(), Vector3::UnitY(),
             Inertia::from_com(1.0, Vector3::Zero(), inertia * Matrix3::Identity()));
  Robot robot(b.build());
  robot.set_gravity(Vector3::Zero());
  return robot;
}

const EventRecord* find_event(const RunResult& r, const std::string& name) {
  for (const EventRecord& e : r.events)
    if (std::find(e.names.begin(), e.names.end(), name) != e.names.end()) return &e;
  return nullptr;
}

Eigen::Index column(const RunResult& r, const std::string& name) {
  const auto it = std::find(r.columns.begin(), r.columns.end(), name);
  EXPECT_NE(it, r.columns.end()) << name;
  return it - r.columns.begin();
}

// Stop time t_d + Iω₀/τ and angle ω₀t_d + Iω₀²/(2τ) (constant deceleration τ/I after the delay).
TEST(Brakes, FrictionStopMatchesTheClosedFormAtTwoStepSizes) {
  const double I = 0.5, w0 = 2.0, tau = 4.0, td = 0.05, t_signal = 0.02;
  const double t_stop = t_signal + td + I * w0 / tau;
  const double angle = w0 * (t_signal + td) + I * w0 * w0 / (2 * tau);
  // RK4 at two step sizes, and Dormand–Prince (its steps cut to land on the engagement too).
  for (const double dt : {1e-3, 7.3e-4, 0.0}) {
    SCOPED_TRACE(dt);
    Robot robot = flywheel(I);
    robot.add_brake({.name = "b", .joint = "hinge", .delay = td, .torque = tau});
    SimulationOptions o;
    o.dt = dt > 0 ? dt : 1e-3;
    if (dt == 0.0) o.integrator = Integrator::DormandPrince;
    o.record_samples = true;
    Simulator sim(robot, o);
    sim.set_state(VectorX::Zero(1), VectorX::Constant(1, w0));
    sim.add_event({"estop", t_signal, {}, 0, false, {EventAction::stop_signal()}});
    const RunResult r = sim.run(0.5);
    ASSERT_TRUE(r.ok()) << r.message;
    const EventRecord* engage = find_event(r, "b.engage");
    const EventRecord* stick = find_event(r, "b.stick");
    ASSERT_NE(engage, nullptr);
    ASSERT_NE(stick, nullptr);
    EXPECT_NEAR(engage->time, t_signal + td, 1e-12);  // the steps land on the engagement
    EXPECT_NEAR(stick->time, t_stop, 1e-8);
    EXPECT_NEAR(sim.q()[0], angle, 1e-9);
    EXPECT_NEAR(sim.v()[0], 0.0, 1e-12);
    EXPECT_EQ(sim.brake_states()[0], BrakeState::Stuck);
    // Stuck with nothing pushing: the hold is 0; the work of the slip torque is ½Iω₀².
    EXPECT_NEAR(sim.brake_torques()[0], 0.0, 1e-9);
    EXPECT_NEAR(sim.brake_energy()[0], 0.5 * I * w0 * w0, 1e-9);
    // Telemetry: while slipping the brake applies −τ sign(q̇) and the joint decelerates at τ/I.
    const auto ct = column(r, "t"), cs = column(r, "brake.b.state"), cq = column(r, "brake.b.torque");
    const auto ca = column(r, "a.hinge");
    int slipping = 0;
    for (const VectorX& s : r.samples)
      if (s[ct] > t_signal + td + 1e-6 && s[ct] < t_stop - 1e-6) {
        ++slipping;
        EXPECT_EQ(s[cs], state_code(BrakeState::Slipping));
        EXPECT_DOUBLE_EQ(s[cq], -tau);
        EXPECT_NEAR(s[ca], -tau / I, 1e-9);
      }
    EXPECT_GT(slipping, dt > 0 ? 100 : 3);
  }
}

// A rod held by its stuck brake; a payload slides out along the rod (a frictionless slider on
// the rod's axis, which runs through the hinge), so the gravity torque on the hinge grows as
// g cos θ (m l + m_p s(t)) with s(t) = s₀ + ½ g sin θ t². The brake holds while that is
// below static_torque and lets go at the instant it reaches it; then it slips at `torque`.
TEST(Brakes, GravityHoldThenLocatedReleaseWithAPayload) {
  constexpr double m = 2.0, l = 0.5, mp = 1.0, s0 = 0.2, g = 9.81, theta = 0.3;
  constexpr double hold = 14.0, slip = 10.0;
  ModelBuilder b("rod_with_payload");
  b.add_body("rod", "", "hinge", JointType::Revolute, Transform(), Vector3::UnitY(),
             Inertia::from_com(m, Vector3(l, 0, 0), 0.01 * Matrix3::Identity()));
  b.add_body("payload", "rod", "slider", JointType::Prismatic, Transform(), Vector3::UnitX(),
             Inertia::from_com(mp, Vector3::Zero(), 1e-4 * Matrix3::Identity()));
  Robot robot(b.build());
  robot.add_brake({.name = "hinge_brake", .joint = "hinge", .torque = slip, .static_torque = hold});
  SimulationOptions o;
  o.record_samples = true;
  o.log_period = 0.01;
  Simulator sim(robot, o);
  VectorX q(2);
  q << theta, s0;
  sim.set_state(q, VectorX::Zero(2));
  sim.add_event({"estop", 0.0, {}, 0, false, {EventAction::stop_signal()}});
  const RunResult r = sim.run(0.6);
  ASSERT_TRUE(r.ok()) << r.message;
  const double s_release = hold / (g * std::cos(theta)) - m * l / mp;
  const double t_release = std::sqrt(2 * (s_release - s0) / (g * std::sin(theta)));
  ASSERT_LT(t_release, 0.55);
  const EventRecord* release = find_event(r, "hinge_brake.release");
  ASSERT_NE(release, nullptr);
  EXPECT_NEAR(release->time, t_release, 1e-7);
  // Held until then: the hinge has not moved, and the hold is the gravity torque.
  const auto ct = column(r, "t"), cq = column(r, "q.hinge"), cs = column(r, "q.slider");
  const auto cb = column(r, "brake.hinge_brake.torque"), cst = column(r, "brake.hinge_brake.state");
  int held = 0, slipped = 0;
  for (const VectorX& s : r.samples) {
    if (s[ct] > 0.0 && s[ct] < t_release - 1e-6) {  // after the signal at t = 0
      ++held;
      EXPECT_NEAR(s[cq], theta, 1e-9);
      EXPECT_NEAR(std::abs(s[cb]), g * std::cos(theta) * (m * l + mp * s[cs]), 1e-6);
      EXPECT_EQ(s[cst], state_code(BrakeState::Stuck));
    } else if (s[ct] > t_release + 1e-6) {
      ++slipped;
      EXPECT_EQ(s[cst], state_code(BrakeState::Slipping));
      EXPECT_DOUBLE_EQ(s[cb], -slip);  // opposing the motion that starts (θ grows)
    }
  }
  EXPECT_GT(held, 10);
  EXPECT_GT(slipped, 3);
  EXPECT_GT(sim.q()[0], theta + 1e-4);
  EXPECT_GT(sim.v()[0], 0.0);
  EXPECT_GT(sim.brake_energy()[0], 0.0);
  EXPECT_NEAR(sim.brake_energy()[0], slip * (sim.q()[0] - theta), 1e-12);
}

TEST(Brakes, AHoldBeyondStaticTorqueAtTheStickSlipsAtOnceTheOtherWay) {
  // A rod at rest, horizontal, under gravity m g l = 9.81 N m; the brake engages at rest but
  // holds only 5 N m: it lets go at the same instant and slips at 4 N m, the rod falling with
  // θ̈ = (m g l − 4) / (m l² + 0.01).
  ModelBuilder b("rod");
  b.add_body("rod", "", "hinge", JointType::Revolute, Transform(), Vector3::UnitY(),
             Inertia::from_com(2.0, Vector3(0.5, 0, 0), 0.01 * Matrix3::Identity()));
  Robot robot(b.build());
  robot.add_brake({.name = "b", .joint = "hinge", .torque = 4.0, .static_torque = 5.0});
  SimulationOptions o;
  o.record_samples = true;
  Simulator sim(robot, o);
  sim.add_event({"estop", 0.0, {}, 0, false, {EventAction::stop_signal()}});
  const RunResult r = sim.run(0.01);
  ASSERT_TRUE(r.ok()) << r.message;
  const EventRecord* release = find_event(r, "b.release");
  ASSERT_NE(release, nullptr);
  EXPECT_EQ(release->time, 0.0);
  EXPECT_EQ(sim.brake_states()[0], BrakeState::Slipping);
  EXPECT_DOUBLE_EQ(sim.brake_torques()[0], -4.0);
  const VectorX& last = r.samples.back();
  const double theta = last[column(r, "q.hinge")];
  EXPECT_NEAR(last[column(r, "a.hinge")], (2.0 * 9.81 * 0.5 * std::cos(theta) - 4.0) / 0.51, 1e-9);
}

TEST(Brakes, PinBrakeLocksWithTheConsistentJumpAndDissipatesTheCarnotLoss) {
  const double I = 0.5, w0 = 3.0;
  Robot robot = flywheel(I);
  robot.add_brake({.name = "pin",
                   .joint = "hinge",
                   .kind = BrakeKind::Pin,
                   .delay = 0.1,
                   .torque = std::numeric_limits<double>::infinity()});
  Simulator sim(robot);
  sim.set_state(VectorX::Zero(1), VectorX::Constant(1, w0));
  sim.add_event({"estop", 0.0, {}, 0, false, {EventAction::stop_signal()}});
  const RunResult r = sim.run(0.3);
  ASSERT_TRUE(r.ok()) << r.message;
  const EventRecord* engage = find_event(r, "pin.engage");
  ASSERT_NE(engage, nullptr);
  EXPECT_NEAR(engage->time, 0.1, 1e-12);
  EXPECT_TRUE(engage->jumped);
  EXPECT_NEAR(sim.q()[0], w0 * 0.1, 1e-12);
  EXPECT_EQ(sim.v()[0], 0.0);
  EXPECT_EQ(sim.brake_states()[0], BrakeState::Locked);
  EXPECT_NEAR(sim.brake_energy()[0], 0.5 * I * w0 * w0, 1e-12);
}

TEST(Brakes, PinOverloadIsReportedAndThePinStaysLocked) {
  // A rod under gravity, pin-locked at rest with a holding torque below m g l.
  ModelBuilder b("rod");
  b.add_body("rod", "", "hinge", JointType::Revolute, Transform(), Vector3::UnitY(),
             Inertia::from_com(2.0, Vector3(0.5, 0, 0), 0.01 * Matrix3::Identity()));
  Robot robot(b.build());
  robot.add_brake({.name = "pin", .joint = "hinge", .kind = BrakeKind::Pin, .torque = 5.0});
  Simulator sim(robot);
  sim.add_event({"estop", 0.0, {}, 0, false, {EventAction::stop_signal()}});
  const RunResult r = sim.run(0.1);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_NE(find_event(r, "pin.overload"), nullptr);
  EXPECT_EQ(sim.brake_states()[0], BrakeState::Locked);
  EXPECT_NEAR(sim.q()[0], 0.0, 1e-9);
  EXPECT_NEAR(std::abs(sim.brake_torques()[0]), 2.0 * 0.5 * 9.81, 1e-6);
}

TEST(Brakes, StopSignalCategory0CutsTheDrives) {
  // A motor pushing the flywheel at 1 N m; the signal cuts it, the brake engages 0.05 s later.
  Robot robot = flywheel(1.0);
  robot.add_motor({.name = "m", .joint = "hinge"});
  robot.add_brake({.name = "b", .joint = "hinge", .delay = 0.05, .torque = 2.0});
  Simulator sim(robot);
  sim.set_commands(VectorX::Constant(1, 1.0));
  sim.add_event({"estop", 0.1, {}, 0, false, {EventAction::stop_signal(0)}});
  const RunResult r = sim.run(1.0);
  ASSERT_TRUE(r.ok()) << r.message;
  // 0.1 s at 1 rad/s²: ω = 0.1; coasting 0.05 s; then 2 rad/s² deceleration: stops 0.05 s later.
  const EventRecord* stick = find_event(r, "b.stick");
  ASSERT_NE(stick, nullptr);
  EXPECT_NEAR(stick->time, 0.2, 1e-8);
  EXPECT_NEAR(sim.q()[0], 0.5 * 0.1 * 0.1 + 0.1 * 0.05 + 0.1 * 0.1 / 4, 1e-9);
  EXPECT_EQ(sim.efforts()[0], 0.0);
}

TEST(Brakes, BadInputIsAnErrorNamingTheBrake) {
  auto expect_error = [](const std::function<void()>& f, const std::string& part) {
    try {
      f();
      ADD_FAILURE() << "no error for " << part;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("brake '"), std::string::npos) << e.what();
    }
  };
  Robot robot = Robot::from_urdf(test::model_path("rx130_standin"));
  expect_error([&] { robot.add_brake({.name = "neg", .joint = "joint_1", .torque = -1.0}); }, "neg");
  expect_error([&] { robot.add_brake({.name = "late", .joint = "joint_1", .delay = -0.1, .torque = 1.0}); }, "delay");
  expect_error([&] { robot.add_brake({.name = "ghost", .joint = "joint_9", .torque = 1.0}); }, "joint_9");
  expect_error([&] { robot.add_brake({.name = "weak", .joint = "joint_1", .torque = 5, .static_torque = 4}); },
               "static_torque");
  robot.add_brake({.name = "b1", .joint = "joint_1", .torque = 1.0});
  expect_error([&] { robot.add_brake({.name = "b2", .joint = "joint_1", .torque = 1.0}); }, "already has brake 'b1'");
  expect_error([&] { robot.add_brake({.name = "b1", .joint = "joint_2", .torque = 1.0}); }, "duplicate");
  expect_error([&] { robot.add_brake({.name = "nomotor", .joint = "joint_2", .motor_torque = 1.0}); }, "motor");
  Robot mixed(test::mixed_model(false));
  expect_error([&] { mixed.add_brake({.name = "ball", .joint = "j_sph", .torque = 1.0}); }, "not a 1-dof joint");
  {
    Simulator sim(robot);  // the brake's lock is the brake's to switch
    expect_error([&] { sim.add_event({"grab", 0.1, {}, 0, false, {EventAction::disable("b1")}}); }, "brake 'b1'");
    Event user;
    user.name = "fake";
    user.time = 0.1;
    user.actions = {EventAction::stop_signal(3)};
    EXPECT_THROW(sim.add_event(user), std::invalid_argument);
  }
  EXPECT_THROW(parse_brake_kind("disc"), std::invalid_argument);
  EXPECT_EQ(parse_brake_kind("pin"), BrakeKind::Pin);
  // motor_torque · gear_ratio, static default = torque.
  Robot geared = Robot::from_urdf(test::model_path("rx130_standin"));
  geared.add_motor({.name = "m2", .joint = "joint_2", .gear_ratio = 100.0});
  const Brake& b = geared.add_brake({.name = "b", .joint = "joint_2", .motor_torque = 2.5});
  EXPECT_DOUBLE_EQ(b.torque, 250.0);
  EXPECT_DOUBLE_EQ(b.static_torque, 250.0);
}

}  // namespace
}  // namespace articula

namespace articula {
namespace {

// q at time t from a run's recorded samples (positions are continuous at a jump).
VectorX q_at(const RunResult& r, double t) {
  for (const VectorX& s : r.samples)
    if (s[0] == t) return s.segment(1, 6);
  ADD_FAILURE() << "no sample at t = " << t;
  return VectorX::Zero(6);
}

BrakeStudyConfig rx130_config() {
  const std::string path = test::model_path("rx130_standin");
  return default_estop_config(path.substr(0, path.rfind('/')));
}

// RX130 stand-in: joint_3 at rest, its friction brake stuck from t = 0; joint_2's pin brake
// engages at 0.05 s with a velocity jump. The friction brake carries no impulse: joint_3 slips
// through, and the jump conserves the momentum of every joint but joint_2.
RunResult run_rx130(Robot& robot, bool friction3, VectorX* q_end = nullptr) {
  const BrakeStudyConfig c = rx130_config();
  robot.add_brake({.name = "b2",
                   .joint = "joint_2",
                   .kind = BrakeKind::Pin,
                   .delay = 0.05,
                   .torque = std::numeric_limits<double>::infinity()});
  if (friction3)
    robot.add_brake({.name = "b3", .joint = "joint_3", .torque = 40.0, .static_torque = 1e4});
  else
    robot.add_brake(
        {.name = "b3", .joint = "joint_3", .kind = BrakeKind::Pin, .torque = std::numeric_limits<double>::infinity()});
  SimulationOptions o;
  o.record_samples = true;
  o.log_period = 0.01;
  Simulator sim(robot, o);
  VectorX v = c.v0;
  v[2] = 0.0;
  sim.set_state(c.q0, v);
  sim.add_event({"estop", 0.0, {}, 0, false, {EventAction::stop_signal()}});
  RunResult r = sim.run(0.3);
  if (q_end) *q_end = sim.q();
  return r;
}

TEST(Brakes, StuckFrictionBrakeSlipsThroughAPinImpactOnTheRx130) {
  Robot robot = Robot::from_urdf(test::model_path("rx130_standin"));
  VectorX q_friction;
  const RunResult r = run_rx130(robot, true, &q_friction);
  ASSERT_TRUE(r.ok()) << r.message;
  const EventRecord* jump = find_event(r, "b2.engage");
  ASSERT_NE(jump, nullptr);
  EXPECT_NEAR(jump->time, 0.05, 1e-12);
  ASSERT_TRUE(jump->jumped);
  // joint_3 was held (at rest) until then, and slips through the impact.
  EXPECT_EQ(std::abs(jump->v_minus[2]), 0.0);
  EXPECT_NE(std::find(jump->names.begin(), jump->names.end(), "b3.slip_through"), jump->names.end());
  EXPECT_GT(std::abs(jump->v_plus[2]), 1e-3);
  EXPECT_EQ(jump->v_plus[1], 0.0);
  // M Δv = −Jᵀ Λ with only joint_2's row: zero on every other joint.
  Data data(robot.model());
  const VectorX q_jump = q_at(r, jump->time);
  const MatrixX M = crba(robot.model(), data, q_jump);
  const VectorX p = M * (jump->v_plus - jump->v_minus);
  for (int i = 0; i < 6; ++i) {
    if (i == 1) continue;
    EXPECT_LT(std::abs(p[i]), 1e-10) << "joint_" << i + 1;
  }
  EXPECT_GT(std::abs(p[1]), 1e-3);
  // The ideal model (joint_3 held rigidly through the impact) stops elsewhere.
  Robot ideal = Robot::from_urdf(test::model_path("rx130_standin"));
  VectorX q_ideal;
  ASSERT_TRUE(run_rx130(ideal, false, &q_ideal).ok());
  EXPECT_GT(std::abs(q_friction[2] - q_ideal[2]), 1e-3);
}

TEST(Brakes, BrakeEnergyEqualsTheMechanicalEnergyDrop) {
  const BrakeStudyConfig c = rx130_config();
  Robot robot = Robot::from_urdf(c.urdf);
  robot.add_brake({.name = "b1", .joint = "joint_1", .delay = 0.02, .torque = 300.0});
  robot.add_brake({.name = "b2",
                   .joint = "joint_2",
                   .kind = BrakeKind::Pin,
                   .delay = 0.04,
                   .torque = std::numeric_limits<double>::infinity()});
  robot.add_brake({.name = "b3", .joint = "joint_3", .delay = 0.01, .torque = 150.0, .static_torque = 200.0});
  Simulator sim(robot);
  sim.set_state(c.q0, c.v0);
  sim.add_event({"estop", 0.0, {}, 0, false, {EventAction::stop_signal()}});
  const double e0 = sim.kinetic_energy() + sim.potential_energy();
  const RunResult r = sim.run(0.4);
  ASSERT_TRUE(r.ok()) << r.message;
  ASSERT_NE(find_event(r, "b3.stick"), nullptr);
  const double e1 = sim.kinetic_energy() + sim.potential_energy();
  const double dissipated = sim.brake_energy().sum();
  EXPECT_GT(dissipated, 1.0);
  EXPECT_NEAR(e0 - e1, dissipated, 1e-6 * e0);
  EXPECT_GT(sim.brake_energy()[1], 0.0);  // the pin's Carnot loss
}

// Zero-delay, infinite-torque pin brakes are today's ideal locks: the same run, bit for bit.
TEST(Brakes, IdealPinBrakesReproduceTheEstopRun) {
  const BrakeStudyConfig c = rx130_config();
  auto ideal = [&](const std::vector<BrakeEvent>& events) {
    Robot robot = Robot::from_urdf(c.urdf);
    Simulator sim(robot);
    for (const BrakeEvent& e : events) {
      const std::string name = "brake_" + e.joints.front();
      robot.constraints().add(std::make_shared<JointLock>(robot.model(), name, e.joints), false);
      sim.add_event({name, e.time, {}, 0, false, {EventAction::enable(name)}});
    }
    sim.set_state(c.q0, c.v0);
    EXPECT_TRUE(sim.run(c.duration).ok());
    return std::pair<VectorX, VectorX>{sim.q(), sim.v()};
  };
  // One stop signal at 0.05 s, every brake at once (zero delay).
  {
    Robot robot = Robot::from_urdf(c.urdf);
    for (const char* j : {"joint_1", "joint_2", "joint_3"})
      robot.add_brake({.name = std::string("brake.") + j,
                       .joint = j,
                       .kind = BrakeKind::Pin,
                       .torque = std::numeric_limits<double>::infinity()});
    Simulator sim(robot);
    sim.set_state(c.q0, c.v0);
    sim.add_event({"estop", 0.05, {}, 0, false, {EventAction::stop_signal()}});
    ASSERT_TRUE(sim.run(c.duration).ok());
    const auto [q, v] = ideal({{0.05, {"joint_1", "joint_2", "joint_3"}}});
    EXPECT_EQ(sim.q(), q);
    EXPECT_EQ(sim.v(), v);
  }
  // The bundled schedule (0.05, 0.10, 0.15 s) as delays after a signal at 0; against the study.
  {
    Robot robot = Robot::from_urdf(c.urdf);
    for (const BrakeEvent& e : c.events)
      robot.add_brake({.name = "brake." + e.joints.front(),
                       .joint = e.joints.front(),
                       .kind = BrakeKind::Pin,
                       .delay = e.time,
                       .torque = std::numeric_limits<double>::infinity()});
    Simulator sim(robot);
    sim.set_state(c.q0, c.v0);
    sim.add_event({"estop", 0.0, {}, 0, false, {EventAction::stop_signal()}});
    ASSERT_TRUE(sim.run(c.duration).ok());
    const auto [q, v] = ideal(c.events);
    EXPECT_EQ(sim.q(), q);
    EXPECT_EQ(sim.v(), v);
    const BrakeStudyResult study = run_brake_study(c);
    EXPECT_LT((sim.q() - study.q_final).norm(), 1e-8);
  }
}

TEST(Brakes, StopSignalCategory1DeceleratesAtTheEffortLimitThenBrakes) {
  // ω₀ = 2, I = 1, effort limit 4: standstill at 0.5 s (drive cut there), the brake engages
  // 0.1 s later at rest and sticks.
  Robot robot = flywheel(1.0);
  robot.add_motor({.name = "m", .joint = "hinge", .effort_limit = 4.0});
  robot.add_brake({.name = "b", .joint = "hinge", .delay = 0.1, .torque = 1.0});
  Simulator sim(robot);
  sim.set_state(VectorX::Zero(1), VectorX::Constant(1, 2.0));
  sim.add_event({"stop1", 0.0, {}, 0, false, {EventAction::stop_signal(1)}});
  const RunResult r = sim.run(1.0);
  ASSERT_TRUE(r.ok()) << r.message;
  const EventRecord* standstill = find_event(r, "drive.m.standstill");
  ASSERT_NE(standstill, nullptr);
  EXPECT_NEAR(standstill->time, 0.5, 1e-8);
  const EventRecord* engage = find_event(r, "b.engage");
  ASSERT_NE(engage, nullptr);
  EXPECT_NEAR(engage->time, 0.6, 1e-8);
  EXPECT_EQ(sim.brake_states()[0], BrakeState::Stuck);
  EXPECT_NEAR(sim.q()[0], 0.5, 1e-8);
  // With max_time 0.2 s the drive is cut at 0.2 s (ω = 1.2), the brake engages at 0.3 s.
  Robot robot2 = flywheel(1.0);
  robot2.add_motor({.name = "m", .joint = "hinge", .effort_limit = 4.0});
  robot2.add_brake({.name = "b", .joint = "hinge", .delay = 0.1, .torque = 1.0});
  Simulator sim2(robot2);
  sim2.set_state(VectorX::Zero(1), VectorX::Constant(1, 2.0));
  sim2.add_event({"stop1", 0.0, {}, 0, false, {EventAction::stop_signal(1, 0.2)}});
  const RunResult r2 = sim2.run(2.0);
  ASSERT_TRUE(r2.ok()) << r2.message;
  const EventRecord* stick = find_event(r2, "b.stick");
  ASSERT_NE(stick, nullptr);
  EXPECT_NEAR(stick->time, 0.3 + 1.2 / 1.0, 1e-8);
}

// A two-link arm in a vertical plane (joints about y; positive rates lower the links): the
// upper arm (10 kg, com 0.25 m) on the shoulder, the forearm (5 kg, com 0.25 m) on the elbow
// 0.5 m out, both horizontal at q = 0. Motors and friction brakes on both joints.
Robot two_link_arm(double shoulder_effort_limit) {
  ModelBuilder b("two_link_arm");
  b.add_body("upper", "", "shoulder", JointType::Revolute, Transform(), Vector3::UnitY(),
             Inertia::from_com(10.0, Vector3(0.25, 0, 0), 0.05 * Matrix3::Identity()));
  b.add_body("fore", "upper", "elbow", JointType::Revolute, Transform(Matrix3::Identity(), Vector3(0.5, 0, 0)),
             Vector3::UnitY(), Inertia::from_com(5.0, Vector3(0.25, 0, 0), 0.02 * Matrix3::Identity()));
  Robot robot(b.build());
  robot.add_motor({.name = "ms", .joint = "shoulder", .effort_limit = shoulder_effort_limit});
  robot.add_motor({.name = "me", .joint = "elbow", .effort_limit = 30.0});
  robot.add_brake({.name = "bs", .joint = "shoulder", .delay = 0.04, .torque = 150.0, .static_torque = 180.0});
  robot.add_brake({.name = "be", .joint = "elbow", .delay = 0.03, .torque = 40.0, .static_torque = 50.0});
  return robot;
}

SimulationOptions recording() {
  SimulationOptions o;
  o.record_samples = true;
  return o;
}

// The two-link arm with the elbow moving down at 3 rad/s and the shoulder at rest, a category-1
// stop signal at t = 0 (deadline max_time), run for `duration`.
RunResult run_cat1_stop(Simulator& sim, double max_time, double duration) {
  sim.set_state(VectorX::Zero(2), Eigen::Vector2d(0.0, 3.0));
  sim.add_event({"stop1", 0.0, {}, 0, false, {EventAction::stop_signal(1, max_time)}});
  return sim.run(duration);
}

// Category 1 with the elbow moving down at 3 rad/s and the shoulder at rest: the shoulder's
// drive holds it (IEC 60204-1 §9.2.2: power available until the stop is achieved) while the
// elbow's decelerates the elbow; at the elbow's standstill both drives are cut and both brakes
// armed. The elbow then moves exactly as on a fixed shoulder (the same forearm on a hinge 0.5 m
// out from the world), and the shoulder does not move before the standstill.
TEST(Brakes, StopSignalCategory1HoldsTheJointsAtRestUntilTheStop) {
  Robot robot = two_link_arm(200.0);
  Simulator sim(robot, recording());
  const RunResult r = run_cat1_stop(sim, std::numeric_limits<double>::infinity(), 0.5);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(find_event(r, "drive.ms.saturate"), nullptr);
  const EventRecord* standstill = find_event(r, "drive.me.standstill");
  ASSERT_NE(standstill, nullptr);
  const double ts = standstill->time;
  EXPECT_GT(ts, 0.03);
  const EventRecord* engage_s = find_event(r, "bs.engage");
  const EventRecord* engage_e = find_event(r, "be.engage");
  ASSERT_NE(engage_s, nullptr);
  ASSERT_NE(engage_e, nullptr);
  EXPECT_NEAR(engage_s->time, ts + 0.04, 1e-12);  // the shoulder's brake is armed at the stop
  EXPECT_NEAR(engage_e->time, ts + 0.03, 1e-12);

  // The same forearm on a hinge fixed 0.5 m out: its category-1 stop.
  ModelBuilder b("forearm");
  b.add_body("fore", "", "elbow", JointType::Revolute, Transform(Matrix3::Identity(), Vector3(0.5, 0, 0)),
             Vector3::UnitY(), Inertia::from_com(5.0, Vector3(0.25, 0, 0), 0.02 * Matrix3::Identity()));
  Robot one(b.build());
  one.add_motor({.name = "me", .joint = "elbow", .effort_limit = 30.0});
  one.add_brake({.name = "be", .joint = "elbow", .delay = 0.03, .torque = 40.0, .static_torque = 50.0});
  Simulator ref(one, recording());
  ref.set_state(VectorX::Zero(1), VectorX::Constant(1, 3.0));
  ref.add_event({"stop1", 0.0, {}, 0, false, {EventAction::stop_signal(1)}});
  const RunResult rr = ref.run(ts);
  ASSERT_TRUE(rr.ok()) << rr.message;
  const EventRecord* ref_standstill = find_event(rr, "drive.me.standstill");
  ASSERT_NE(ref_standstill, nullptr);
  EXPECT_NEAR(ref_standstill->time, ts, 1e-9);

  // Before the standstill: the shoulder does not move, its drive's torque is the lock's
  // multiplier (within the effort limit), the brake (released) applies nothing.
  const auto ct = column(r, "t"), cq = column(r, "q.shoulder"), cv = column(r, "v.shoulder");
  const auto cqe = column(r, "q.elbow"), ctau = column(r, "tau.ms"), cl = column(r, "lambda.bs.0");
  const auto cbs = column(r, "brake.bs.state"), cbt = column(r, "brake.bs.torque");
  int held = 0;
  double peak = 0.0;
  for (const VectorX& s : r.samples)
    if (s[ct] > 1e-9 && s[ct] < ts - 1e-9) {
      ++held;
      EXPECT_NEAR(s[cq], 0.0, 1e-12) << "t = " << s[ct];
      EXPECT_NEAR(s[cv], 0.0, 1e-12) << "t = " << s[ct];
      EXPECT_DOUBLE_EQ(s[ctau], s[cl]);
      EXPECT_LE(std::abs(s[ctau]), 200.0);
      EXPECT_EQ(s[cbs], state_code(BrakeState::Released));
      EXPECT_EQ(s[cbt], 0.0);
      peak = std::max(peak, std::abs(s[ctau]));
    }
  EXPECT_GT(held, 20);
  // It holds the arm against gravity: at least the static torque 10·g·0.25 + 5·g·0.75 at t = 0.
  EXPECT_GT(peak, 9.81 * (10 * 0.25 + 5 * 0.75) - 1.0);
  // The elbow follows the fixed-shoulder stop: the same angle at the standstill.
  double elbow_at_stop = -1.0;
  for (const VectorX& s : r.samples)
    if (s[ct] == ts) elbow_at_stop = s[cqe];
  EXPECT_NEAR(elbow_at_stop, ref.q()[0], 1e-9);
  // After the stop the power is removed: the shoulder sags during its brake's delay.
  EXPECT_GT(sim.q()[0], 1e-4);
  EXPECT_EQ(sim.brake_states()[0], BrakeState::Stuck);
  EXPECT_EQ(sim.brake_states()[1], BrakeState::Stuck);
}

// A shoulder drive too weak to hold the arm (50 N m < the 61 N m gravity torque): the hold
// saturates at once, the drive pushes at its limit against the sag and the shoulder moves
// down; at the deadline every drive is cut and the brakes are armed.
TEST(Brakes, StopSignalCategory1HoldSaturatesAtTheEffortLimit) {
  Robot robot = two_link_arm(50.0);
  Simulator sim(robot, recording());
  const RunResult r = run_cat1_stop(sim, 0.2, 1.0);
  ASSERT_TRUE(r.ok()) << r.message;
  const EventRecord* saturate = find_event(r, "drive.ms.saturate");
  ASSERT_NE(saturate, nullptr);
  EXPECT_EQ(saturate->time, 0.0);
  const auto ct = column(r, "t"), ctau = column(r, "tau.ms"), cv = column(r, "v.shoulder");
  int pushing = 0;
  for (const VectorX& s : r.samples)
    if (s[ct] > 1e-9 && s[ct] < 0.01) {
      ++pushing;
      EXPECT_DOUBLE_EQ(s[ctau], -50.0);  // against the downward sag, at the limit
      EXPECT_GT(s[cv], 0.0);
    }
  EXPECT_GT(pushing, 5);
  EXPECT_EQ(sim.brake_states()[0], BrakeState::Stuck);
}

// A shoulder drive whose limit the hold reaches while the elbow is being stopped (the hold
// torque of the 200 N m case is 112.44 N m at 4 ms and peaks near 112.50 N m): the located
// saturation at |λ| = 112.48 N m, the drive at its limit while the shoulder moves, the
// shoulder's standstill where the drive holds it again (the elbow still decelerates), and
// both brakes armed at the elbow's standstill.
TEST(Brakes, StopSignalCategory1HoldSaturatesThenHoldsAgain) {
  constexpr double limit = 112.48;
  Robot robot = two_link_arm(limit);
  Simulator sim(robot, recording());
  const RunResult r = run_cat1_stop(sim, std::numeric_limits<double>::infinity(), 0.5);
  ASSERT_TRUE(r.ok()) << r.message;
  const EventRecord* saturate = find_event(r, "drive.ms.saturate");
  const EventRecord* again = find_event(r, "drive.ms.standstill");
  const EventRecord* stop = find_event(r, "drive.me.standstill");
  const EventRecord* engage = find_event(r, "bs.engage");
  ASSERT_NE(saturate, nullptr);
  ASSERT_NE(again, nullptr);
  ASSERT_NE(stop, nullptr);
  ASSERT_NE(engage, nullptr);
  EXPECT_GT(saturate->time, 0.004);
  EXPECT_LT(saturate->time, again->time);
  EXPECT_LT(again->time, stop->time);
  EXPECT_NEAR(engage->time, stop->time + 0.04, 1e-12);  // armed at the stop, not at its own standstill
  const auto ct = column(r, "t"), ctau = column(r, "tau.ms"), cq = column(r, "q.shoulder"),
             cv = column(r, "v.shoulder");
  double q_again = -1.0;
  for (const VectorX& s : r.samples) {
    const double t = s[ct];
    if (t > 1e-9 && t < saturate->time - 1e-9) {
      EXPECT_EQ(s[cq], 0.0);
      EXPECT_LT(std::abs(s[ctau]), limit);
    }
    if (t > saturate->time + 1e-9 && t < again->time - 1e-9) {
      EXPECT_DOUBLE_EQ(s[ctau], -limit);  // at its limit against the sag
      EXPECT_GT(s[cv], 0.0);
    }
    if (t == again->time) q_again = s[cq];
  }
  EXPECT_GT(q_again, 1e-7);
  for (const VectorX& s : r.samples)
    if (s[ct] > again->time + 1e-9 && s[ct] < stop->time - 1e-9) {
      EXPECT_NEAR(s[cq], q_again, 1e-12);  // held again
      EXPECT_LE(std::abs(s[ctau]), limit);
    }
}

}  // namespace
}  // namespace articula
