// The simulation engine end to end: energy, elastic contacts, brakes as events, guard
// location, a humanoid with fixed feet and a hand on a wall, failures and their statuses.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "articula/engine/simulator.hpp"
#include "test_models.hpp"
#include "test_support.hpp"

namespace articula {
namespace {

double total_energy(Simulator& sim) { return sim.kinetic_energy() + sim.potential_energy(); }

// A free-flying body (box of half sizes a, b, c, mass m) for contact tests.
Model free_box(double m, const Vector3& half) {
  const Vector3 s = 2 * half;
  Matrix3 I = Matrix3::Zero();
  I.diagonal() << m * (s.y() * s.y() + s.z() * s.z()) / 12, m * (s.x() * s.x() + s.z() * s.z()) / 12,
      m * (s.x() * s.x() + s.y() * s.y()) / 12;
  ModelBuilder b("box");
  b.add_body("box", "", "root", JointType::FreeFlyer, Transform(), Vector3::Zero(),
             Inertia::from_com(m, Vector3::Zero(), I));
  for (int k = 0; k < 4; ++k) {
    const Vector3 corner((k & 1 ? 1 : -1) * half.x(), (k & 2 ? 1 : -1) * half.y(), -half.z());
    b.add_frame("corner" + std::to_string(k), "box", Transform(Matrix3::Identity(), corner));
  }
  return b.build();
}

TEST(Engine, FreeRobotConservesEnergyWithEveryIntegrator) {
  // The 3R pendulum released from horizontal: no motors, no damping, no contacts.
  // Semi-implicit Euler is symplectic: its energy error stays bounded, of order dt.
  for (auto [integrator, tol] : {std::pair{Integrator::RK4, 1e-7}, std::pair{Integrator::DormandPrince, 1e-5},
                                 std::pair{Integrator::SemiImplicitEuler, 0.2}}) {
    SCOPED_TRACE(to_string(integrator));
    Robot robot = Robot::from_urdf(test::model_path("pendulum3r"));
    SimulationOptions o;
    o.integrator = integrator;
    o.dt = 1e-3;
    o.adaptive.rel_tol = o.adaptive.abs_tol = 1e-9;
    Simulator sim(robot, o);
    const double E0 = total_energy(sim);
    double worst = 0.0;
    for (int k = 0; k < 10; ++k) {
      ASSERT_TRUE(sim.run(0.1).ok());
      worst = std::max(worst, std::abs(total_energy(sim) - E0));
    }
    EXPECT_NEAR(sim.time(), 1.0, 1e-12);
    EXPECT_LT(worst, tol * std::max(1.0, sim.kinetic_energy())) << "E0 = " << E0;
    EXPECT_GT(sim.kinetic_energy(), 1.0);  // it did swing
  }
}

TEST(Engine, BallSettlesAtTheStaticPenetration) {
  const double m = 2.0, k = 2e4;
  ModelBuilder b("ball");
  b.add_body("ball", "", "root", JointType::FreeFlyer, Transform(), Vector3::Zero(),
             Inertia::from_com(m, Vector3::Zero(), 0.004 * Matrix3::Identity()));
  Robot robot(b.build());
  ElasticContact c;
  c.name = "bottom";
  c.frame = "ball";
  c.offset = Vector3(0, 0, -0.05);
  c.stiffness = k;
  c.damping = 200;
  robot.add_contact(c);
  Simulator sim(robot);
  VectorX q = neutral(robot.model());
  q[2] = 0.3;  // dropped from 0.25 m above the ground
  sim.set_state(q, VectorX::Zero(6));
  const RunResult r = sim.run(3.0);
  ASSERT_TRUE(r.ok()) << r.message;
  const double penetration = -(sim.q()[2] - 0.05);
  EXPECT_NEAR(penetration, m * 9.81 / k, 1e-6);
  EXPECT_NEAR(sim.contact_forces()[2], m * 9.81, 1e-3);
  EXPECT_LT(sim.v().norm(), 1e-4);
}

TEST(Engine, ContactForceIsNeverAttractive) {
  // A fast bounce with heavy damping: the damper would pull the ball back while it leaves.
  ModelBuilder b("ball");
  b.add_body("ball", "", "root", JointType::FreeFlyer, Transform(), Vector3::Zero(),
             Inertia::from_com(1.0, Vector3::Zero(), 0.004 * Matrix3::Identity()));
  Robot robot(b.build());
  ElasticContact c;
  c.name = "bottom";
  c.frame = "ball";
  c.stiffness = 1e4;
  c.damping = 40;  // damping ratio 0.2: the damper alone would pull while the ball leaves
  robot.add_contact(c);
  SimulationOptions o;
  o.dt = 1e-4;
  o.record_samples = true;
  Simulator sim(robot, o);
  VectorX q = neutral(robot.model()), v = VectorX::Zero(6);
  q[2] = 0.001;
  v[2] = -3.0;
  sim.set_state(q, v);
  const RunResult r = sim.run(0.2);
  ASSERT_TRUE(r.ok());
  const auto fz = std::find(r.columns.begin(), r.columns.end(), "contact.bottom.fz") - r.columns.begin();
  double fmin = 1e9, fmax = 0;
  for (const VectorX& row : r.samples) {
    fmin = std::min(fmin, row[fz]);
    fmax = std::max(fmax, row[fz]);
  }
  EXPECT_GE(fmin, 0.0);
  EXPECT_GT(fmax, 50.0);
  EXPECT_GT(sim.q()[2], 0.01);  // it bounced off
}

// Box on a slope of angle θ: the slope is modeled by tilting gravity (the ground stays z = 0).
double box_slide(double theta, double mu) {
  Robot robot(free_box(1.0, Vector3(0.1, 0.1, 0.05)));
  robot.set_gravity(9.81 * Vector3(std::sin(theta), 0, -std::cos(theta)));
  for (int k = 0; k < 4; ++k) {
    ElasticContact c;
    c.name = std::string("c").append(std::to_string(k));
    c.frame = std::string("corner").append(std::to_string(k));
    c.stiffness = 1e5;
    c.damping = 500;
    c.friction = mu;
    c.slip_velocity = 1e-4;
    robot.add_contact(c);
  }
  SimulationOptions o;
  o.dt = 2e-4;
  Simulator sim(robot, o);
  VectorX q = neutral(robot.model());
  q[2] = 0.05 - 9.81 * std::cos(theta) / 4e5;  // resting on its springs
  sim.set_state(q, VectorX::Zero(6));
  EXPECT_TRUE(sim.run(1.0).ok());
  return sim.q()[0];
}

TEST(Engine, BoxOnASlopeSticksBelowTheFrictionAngleAndSlidesAbove) {
  const double mu = 0.5;                           // friction angle atan(0.5) = 26.6°
  EXPECT_LT(std::abs(box_slide(0.35, mu)), 1e-3);  // 20°: creeps only by the regularization
  const double theta = 0.6;                        // 34.4°: slides with g (sin θ − μ cos θ)
  const double expected = 0.5 * 9.81 * (std::sin(theta) - mu * std::cos(theta));
  EXPECT_NEAR(box_slide(theta, mu), expected, 0.02 * expected);
}

// Brakes as events: the engine reproduces the library study (same jumps, same stop pose).
TEST(Engine, EmergencyStopMatchesTheBrakeStudy) {
  for (JumpForm form : {JumpForm::Auto, JumpForm::Naive}) {
    SCOPED_TRACE(to_string(form));
    BrakeStudyConfig config =
        default_estop_config(test::model_path("rx130_standin").substr(0, test::model_path("rx130_standin").rfind('/')));
    config.jump = form;
    const BrakeStudyResult study = run_brake_study(config);
    ASSERT_TRUE(study.ok) << study.message;

    Robot robot = Robot::from_urdf(config.urdf);
    Simulator sim(robot);
    for (const BrakeEvent& e : config.events) {
      const std::string name = "brake_" + e.joints.front();
      robot.constraints().add(std::make_shared<JointLock>(robot.model(), name, e.joints), false);
      sim.add_event({name, e.time, {}, 0, false, {EventAction::enable(name, form)}});
    }
    sim.set_state(config.q0, config.v0);
    const RunResult r = sim.run(config.duration);
    ASSERT_TRUE(r.ok()) << r.message;
    ASSERT_EQ(r.events.size(), study.events.size());
    for (std::size_t i = 0; i < r.events.size(); ++i) {
      EXPECT_NEAR(r.events[i].time, study.events[i].time, 1e-12);
      EXPECT_LT((r.events[i].v_plus - study.events[i].v_plus).norm(), 1e-9);
      EXPECT_NEAR(r.events[i].kinetic_after, study.events[i].kinetic_after, 1e-9);
      if (form == JumpForm::Naive)
        EXPECT_GT(r.events[i].momentum_residual, 1e-3);
      else
        EXPECT_LT(r.events[i].momentum_residual, 1e-9);
    }
    EXPECT_LT((sim.q() - study.q_final).norm(), 1e-8);
  }
}

TEST(Engine, GuardEventLocksAJointWhenItsVelocityCrossesZero) {
  // 3R pendulum released from horizontal; joint2's rate first crosses zero (falling) at t*:
  // a guard locks it there. The located time agrees with a fine-step reference to 1e-6 s.
  auto reference_crossing = [] {
    Robot robot = Robot::from_urdf(test::model_path("pendulum3r"));
    SimulationOptions o;
    o.dt = 1e-4;  // RK4 error ~1e-13; linear interpolation of v̇-smooth v in time: ~dt² ≈ 1e-8 s
    o.record_samples = true;
    Simulator sim(robot, o);
    const RunResult r = sim.run(1.0);
    const auto col = std::find(r.columns.begin(), r.columns.end(), "v.joint2") - r.columns.begin();
    for (std::size_t k = 1; k < r.samples.size(); ++k) {
      const double g0 = r.samples[k - 1][col], g1 = r.samples[k][col];
      if ((g0 > 0 && g1 <= 0) || (g0 < 0 && g1 >= 0))
        return r.samples[k - 1][0] + (r.samples[k][0] - r.samples[k - 1][0]) * g0 / (g0 - g1);
    }
    return -1.0;
  };
  const double t_ref = reference_crossing();
  ASSERT_GT(t_ref, 0.0);

  Robot robot = Robot::from_urdf(test::model_path("pendulum3r"));
  robot.constraints().add(std::make_shared<JointLock>(robot.model(), "brake2", std::vector<std::string>{"joint2"}),
                          false);
  SimulationOptions o;
  o.dt = 1e-3;
  o.event_tolerance = 1e-10;
  Simulator sim(robot, o);
  sim.add_event({"stop_joint2",
                 std::nullopt,
                 joint_velocity_guard(robot.model(), "joint2", 0.0),
                 0,
                 false,
                 {EventAction::enable("brake2")}});
  const RunResult r = sim.run(1.0);
  ASSERT_TRUE(r.ok()) << r.message;
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_NEAR(r.events[0].time, t_ref, 1e-6);
  const int iv = robot.model().idx_v[robot.model().joint_id("joint2")];
  EXPECT_LT(std::abs(r.events[0].v_minus[iv]), 1e-6);  // it fired at the crossing, not a step later
  EXPECT_LT(std::abs(sim.v()[iv]), 1e-9);              // and the joint stays locked
  EXPECT_NE(std::fmod(r.events[0].time, 1e-3), 0.0);   // the step was cut
}

TEST(Engine, EventsAtOneInstantUseOneJumpAndFollowTheDocumentedOrder) {
  Robot robot = Robot::from_urdf(test::model_path("rx130_standin"));
  for (const char* j : {"joint_1", "joint_2"})
    robot.constraints().add(
        std::make_shared<JointLock>(robot.model(), std::string("brake_") + j, std::vector<std::string>{j}), false);
  Simulator sim(robot);
  VectorX v = VectorX::Constant(6, 1.0);
  sim.set_state(neutral(robot.model()), v);
  sim.add_event({"a", 0.01, {}, 0, false, {EventAction::enable("brake_joint_1")}});
  sim.add_event({"b", 0.01, {}, 0, false, {EventAction::enable("brake_joint_2"), EventAction::stop()}});
  const RunResult r = sim.run(1.0);
  EXPECT_EQ(r.status, RunStatus::Stopped);
  EXPECT_NEAR(r.t, 0.01, 1e-12);
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].names, (std::vector<std::string>{"a", "b"}));
  EXPECT_NEAR(sim.v()[0], 0.0, 1e-12);
  EXPECT_NEAR(sim.v()[1], 0.0, 1e-12);
  // One jump of A ∪ B equals the library's simultaneous activation.
  Robot ref = Robot::from_urdf(test::model_path("rx130_standin"));
  ref.constraints().add(std::make_shared<JointLock>(ref.model(), "ab", std::vector<std::string>{"joint_1", "joint_2"}),
                        false);
  Data data(ref.model());
  const JumpResult jr =
      activate_constraints(ref.model(), data, ref.constraints(), {"ab"}, sim.q(), r.events[0].v_minus);
  EXPECT_LT((jr.v_plus - r.events[0].v_plus).norm(), 1e-10);
}

TEST(Engine, HumanoidWithFixedFeetAndAHandOnAWall) {
  // Feet welded, geared motors with a PD holding the posture on every joint but the free-flyer.
  test::StandingHumanoid h = test::standing_humanoid();
  Robot& robot = h.robot;
  const Model& model = robot.model();
  const VectorX& q = h.q;
  auto& targets = h.targets;
  const std::string arm = "arm_right_1_joint";
  for (auto& t : targets)
    if (t.first == arm) t.second += 0.6;
  // The wall: 3 cm ahead of the hand along the direction it moves when the shoulder turns.
  Data data(model);
  const Index hand = model.frame_id("gripper_right_base_link");
  forward_kinematics(model, data, q);
  const Vector3 p0 = frame_placement(model, data, hand).p;
  VectorX q1 = q;
  q1[model.idx_q[model.joint_id(arm)]] += 1e-4;
  forward_kinematics(model, data, q1);
  const Vector3 d = (frame_placement(model, data, hand).p - p0).normalized();
  ElasticContact c;
  c.name = "hand";
  c.frame = "gripper_right_base_link";
  c.surface = Surface::plane(p0 + 0.03 * d, -d);
  c.stiffness = 2e4;
  c.damping = 100;
  robot.add_contact(c);
  robot.add_sensor({"hand_ft", SensorType::ForceTorque, "hand"});
  robot.add_sensor({"left_foot_ft", SensorType::ForceTorque, "left_foot"});
  SimulationOptions o;
  o.dt = 5e-4;
  o.record_samples = true;
  Simulator sim(robot, o);
  sim.set_controller(pd_controller(robot, targets, 400.0, 20.0), 1e-3);
  VectorX v = VectorX::Zero(model.nv);
  v[model.idx_v[model.joint_id(arm)]] = 2.0;
  sim.set_state(q, v);
  const RunResult r = sim.run(0.3);
  ASSERT_TRUE(r.ok()) << r.message;
  const auto col = [&](const std::string& name) {
    const auto it = std::find(r.columns.begin(), r.columns.end(), name);
    EXPECT_NE(it, r.columns.end()) << name;
    return it - r.columns.begin();
  };
  const auto fx = col("contact.hand.fx");
  double push = 0.0;
  for (const VectorX& row : r.samples) {
    const Vector3 F = row.segment<3>(fx);
    EXPECT_GE(F.dot(-d), -1e-9);  // repulsive: along the wall's outward normal
    push = std::max(push, F.dot(-d));
  }
  EXPECT_GT(push, 10.0);  // the hand did hit the wall
  // Feet held: errors bounded (Baumgarte keeps them at the integration error level).
  robot.constraints().compute_rows(model, data, sim.q(), sim.v());
  EXPECT_LT(robot.constraints().error().cwiseAbs().maxCoeff(), 1e-6);
  // The foot force sensor carries the weight (robot ~ 93 kg on two feet).
  const double fz_left = r.samples.back()[col("sensor.left_foot_ft.fz")];
  EXPECT_GT(fz_left, 100.0);
}

// A controller declared not to read the sensors (reads_sensors = false) saves the evaluation
// made for the IMU / effort sensors at each tick; the run and its rows are the same.
TEST(Engine, AControllerOfQAndVOnlyCostsNoSensorEvaluationAndChangesNothing) {
  auto run = [](bool reads_sensors, long& ticks) {
    Robot robot = Robot::from_urdf(test::model_path("pendulum3r"));
    robot.add_motor({.name = "m1", .joint = "joint1"});
    robot.add_sensor({"imu", SensorType::Imu, "tip"});
    robot.add_sensor({"effort", SensorType::Effort, "m1"});
    SimulationOptions o;
    o.record_samples = true;
    Simulator sim(robot, o);
    const Controller pd = pd_controller(robot, {{"joint1", 0.5}}, 20.0, 1.0);
    sim.set_controller(
        [pd, &ticks](double t, VectorRef q, VectorRef v, VectorRef s, Eigen::Ref<VectorX> u) {
          ++ticks;
          return pd(t, q, v, s, u);
        },
        0.01, reads_sensors);
    VectorX q = VectorX::Zero(robot.model().nq);
    q[1] = 0.3;
    sim.set_state(q, VectorX::Zero(robot.model().nv));
    return sim.run(0.2);
  };
  long ticks_reading = 0, ticks_not = 0;
  const RunResult reading = run(true, ticks_reading), not_reading = run(false, ticks_not);
  ASSERT_TRUE(reading.ok()) << reading.message;
  ASSERT_TRUE(not_reading.ok()) << not_reading.message;
  EXPECT_EQ(ticks_reading, ticks_not);
  EXPECT_GE(ticks_not, 20);
  EXPECT_EQ(reading.evaluations - not_reading.evaluations, ticks_not);
  ASSERT_EQ(reading.samples.size(), not_reading.samples.size());
  for (std::size_t i = 0; i < reading.samples.size(); ++i)
    EXPECT_EQ(reading.samples[i], not_reading.samples[i]) << "row " << i;  // the sensors included, bitwise
}

TEST(Engine, FailuresStopWithAStatusAndKeepTheLog) {
  Robot robot = Robot::from_urdf(test::model_path("pendulum3r"));
  robot.add_motor({.name = "m1", .joint = "joint1"});
  {
    Simulator sim(robot);
    sim.set_controller(
        [](double t, VectorRef, VectorRef, VectorRef, Eigen::Ref<VectorX> u) {
          u.setConstant(t > 0.05 ? std::nan("") : 0.0);
          return true;
        },
        0.01);
    const RunResult r = sim.run(1.0);
    EXPECT_EQ(r.status, RunStatus::ControllerFailed);
    EXPECT_NE(r.message.find("non-finite"), std::string::npos) << r.message;
    EXPECT_NEAR(r.t, 0.06, 1e-9);
  }
  {
    SimulationOptions o;
    o.max_speed = 2.0;
    Simulator sim(robot, o);
    const RunResult r = sim.run(2.0);
    EXPECT_EQ(r.status, RunStatus::Exploded);
    EXPECT_NE(r.message.find("joint"), std::string::npos) << r.message;
  }
  {
    // A non-finite acceleration names a joint (found by fuzzing: it named none).
    SimulationOptions o;
    o.max_speed = 1e308;
    Simulator sim(robot, o);
    sim.set_state(neutral(robot.model()), VectorX::Constant(3, 1e300));
    const RunResult r = sim.run(0.1);
    EXPECT_EQ(r.status, RunStatus::NonFinite);
    EXPECT_NE(r.message.find("of joint '"), std::string::npos) << r.message;
    EXPECT_LT(r.t, 2.0);
  }
  {
    SimulationOptions o;
    o.integrator = Integrator::DormandPrince;
    o.adaptive.rel_tol = 0;
    o.adaptive.abs_tol = 1e-14;  // unreachable with steps ≥ 5 ms
    o.adaptive.min_step = 5e-3;
    Simulator sim(robot, o);
    const RunResult r = sim.run(1.0);
    EXPECT_EQ(r.status, RunStatus::StepTooSmall);
    EXPECT_NE(r.message.find("min_step"), std::string::npos) << r.message;
  }
}

TEST(Engine, LoggingCostsNoExtraEvaluationAndChangesNothing) {
  // The evaluation made for a logged row is reused as the next RK4 step's first stage; a run
  // that records nothing evaluates only the steps. Both give the same trajectory, bit for bit.
  Robot robot = Robot::from_urdf(test::model_path("pendulum3r"));
  SimulationOptions o;
  o.record_samples = true;
  Simulator logged(robot, o);
  const RunResult a = logged.run(0.1);
  Simulator quiet(robot);
  const RunResult b = quiet.run(0.1);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a.steps, 100);
  EXPECT_EQ(a.evaluations, 4 * a.steps + 1);  // + the initial state
  EXPECT_EQ(b.evaluations, 4 * b.steps + 1);  // the initial state's is reused, + the final state
  EXPECT_EQ(a.samples.size(), 101u);
  EXPECT_EQ(logged.q(), quiet.q());
  EXPECT_EQ(logged.v(), quiet.v());
}

TEST(Engine, ALogThatCannotBeCreatedIsAnErrorStatusNotACrash) {
  Robot robot = Robot::from_urdf(test::model_path("pendulum3r"));
  Simulator sim(robot);
  sim.add_log(make_log(LogFormat::Csv, "/nonexistent_articula_dir/run"));
  const RunResult r = sim.run(0.1);
  EXPECT_EQ(r.status, RunStatus::Error);
  EXPECT_NE(r.message.find("/nonexistent_articula_dir/run"), std::string::npos) << r.message;
  EXPECT_EQ(r.steps, 0);
}

TEST(Engine, InvalidSettingsAreClearErrorsBeforeTheRun) {
  Robot robot = Robot::from_urdf(test::model_path("pendulum3r"));
  EXPECT_THROW(robot.add_motor({.name = "m", .joint = "nope"}), std::invalid_argument);
  EXPECT_THROW(robot.add_sensor({"imu", SensorType::Imu, "no_frame"}), std::invalid_argument);
  EXPECT_THROW(robot.add_sensor({"e", SensorType::Effort, "no_motor"}), std::invalid_argument);
  // Found by fuzzing the scenario files: N² I_r overflowing to inf froze the joint (NaN energy),
  // and a force/torque sensor on a joint lock failed at run time with std::bad_cast.
  EXPECT_THROW(robot.add_motor({.name = "m", .joint = "joint1", .gear_ratio = 1e160, .rotor_inertia = 1e-10}),
               std::invalid_argument);
  robot.constraints().add(std::make_shared<JointLock>("brake", std::vector<std::string>{"joint1"}), false);
  try {
    robot.add_sensor({"ft", SensorType::ForceTorque, "brake"});
    ADD_FAILURE() << "a force/torque sensor on a joint lock was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("not a frame or loop constraint"), std::string::npos) << e.what();
  }
  ElasticContact c;
  c.name = "c";
  c.frame = "tip";
  c.stiffness = -1;
  EXPECT_THROW(robot.add_contact(c), std::invalid_argument);
  SimulationOptions o;
  o.dt = -1e-3;
  EXPECT_THROW(Simulator(robot, o), std::invalid_argument);
  Simulator sim(robot);
  EXPECT_THROW(sim.set_controller({}, -0.1), std::invalid_argument);
  EXPECT_THROW(sim.set_controller({}, 1e-22), std::invalid_argument);  // would cut every step to 1e-22 s
  EXPECT_THROW(sim.add_event({"e", -1.0, {}, 0, false, {EventAction::stop()}}), std::invalid_argument);
  EXPECT_THROW(sim.add_event({"e", 0.1, {}, 0, false, {EventAction::enable("nope")}}), std::invalid_argument);
  EXPECT_THROW(sim.add_event({"e", 0.1, {}, 0, true, {EventAction::stop()}}),
               std::invalid_argument);  // repeat at a time
  EXPECT_THROW(sim.run(-1.0), std::invalid_argument);
  VectorX q = neutral(robot.model());
  q[1] = std::nan("");
  EXPECT_THROW(sim.set_state(q, VectorX::Zero(3)), std::invalid_argument);
}

// A log period far below the step (found by fuzzing: 1e-22 s) logs every step; advancing the
// next sample time used to loop ~t / period times.
TEST(Engine, ATinyLogPeriodLogsEveryStepAndEnds) {
  Robot robot = Robot::from_urdf(test::model_path("pendulum3r"));
  SimulationOptions o;
  o.log_period = 1e-22;
  o.record_samples = true;
  Simulator sim(robot, o);
  const RunResult r = sim.run(0.05);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(static_cast<long>(r.samples.size()), r.steps + 1);
}

// request_stop() (what `articula run` calls on Ctrl-C) ends the run before its next step with
// status `interrupted`, finishes the log with that status, and is consumed: the next run goes on.
TEST(Engine, RequestStopEndsTheRunAsInterruptedAndFinishesTheLog) {
  const test::ScratchDir scratch("articula_stop");
  const std::string& dir = scratch.path();
  Robot robot = Robot::from_urdf(test::model_path("pendulum3r"));
  robot.add_motor({.name = "m1", .joint = "joint1"});
  Simulator sim(robot);
  bool asked = false;
  sim.set_controller(
      [&](double t, VectorRef, VectorRef, VectorRef, Eigen::Ref<VectorX> u) {
        u.setZero();
        if (!asked && t >= 0.1 - 1e-12) {
          sim.request_stop();
          asked = true;
        }
        return true;
      },
      0.01);
  sim.add_log(make_log(LogFormat::Csv, dir + "/run"));
  const RunResult r = sim.run(1.0);
  EXPECT_EQ(r.status, RunStatus::Interrupted);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(to_string(r.status), "interrupted");
  EXPECT_NEAR(r.t, 0.1, 1e-9);
  EXPECT_NE(r.message.find("interrupted"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("t = 0.1"), std::string::npos) << r.message;
  std::ifstream status_file(dir + "/run.status.yaml");
  std::stringstream status;
  status << status_file.rdbuf();
  EXPECT_EQ(status.str().rfind("status: interrupted\n", 0), 0u) << status.str();
  std::ifstream csv(dir + "/run.csv");
  std::string line, last;
  while (std::getline(csv, line)) last = line;
  EXPECT_NEAR(std::stod(last.substr(0, last.find(','))), 0.1, 1e-9);  // the log ends at the stop

  const RunResult r2 = sim.run(0.2);
  EXPECT_EQ(r2.status, RunStatus::Completed) << r2.message;
  EXPECT_NEAR(r2.t, 0.3, 1e-9);
}

// A log that fails (here: the file-size limit, EFBIG) ends the run with status `error` naming
// the file; run() returns its result instead of throwing.
// The logged energies come from the kinematics the sample's evaluation left in the workspace:
// with ABA and with every constrained method (a brake, a held flange), they equal
// mechanical_energy() recomputed from the logged q and v.
TEST(Engine, LoggedEnergiesMatchTheStateForEveryMethod) {
  for (const ConstrainedMethod method : {ConstrainedMethod::Auto, ConstrainedMethod::Kkt, ConstrainedMethod::RangeSpace,
                                         ConstrainedMethod::NullSpace, ConstrainedMethod::Hybrid}) {
    for (int set = 0; set < 3; ++set) {                               // none, a joint lock, a point on the flange
      if (method == ConstrainedMethod::Hybrid && set == 2) continue;  // hybrid takes locks only
      SCOPED_TRACE(to_string(method) + " set " + std::to_string(set));
      Robot robot = Robot::from_urdf(test::model_path("rx130_standin"));
      if (set == 1)
        robot.constraints().add(
            std::make_shared<JointLock>(robot.model(), "brake", std::vector<std::string>{"joint_2"}));
      if (set == 2) robot.constraints().add(std::make_shared<FrameConstraint>("hold", "flange", AxisMask::point()));
      SimulationOptions o;
      o.method = method;
      o.record_samples = true;
      Simulator sim(robot, o);
      VectorX v = VectorX::Zero(6);
      v[0] = 0.7;
      v[3] = -1.1;
      if (set == 1) v[1] = 0.0;
      if (set == 2) v.setZero();
      sim.set_state(neutral(robot.model()), v);
      const RunResult r = sim.run(0.02);
      ASSERT_TRUE(r.ok()) << r.message;
      const Model& m = robot.model();
      Data aux(m);
      const auto kinetic = std::find(r.columns.begin(), r.columns.end(), "energy.kinetic") - r.columns.begin();
      ASSERT_LT(kinetic, static_cast<long>(r.columns.size()));
      ASSERT_GT(r.samples.size(), 10u);
      for (const VectorX& row : r.samples) {
        const VectorX q = row.segment(1, m.nq), vr = row.segment(1 + m.nq, m.nv);
        mechanical_energy(m, aux, q, vr);
        EXPECT_NEAR(row[kinetic], aux.kinetic_energy, 1e-12 * (1 + aux.kinetic_energy));
        EXPECT_NEAR(row[kinetic + 1], aux.potential_energy, 1e-12 * (1 + std::abs(aux.potential_energy)));
      }
    }
  }
}

TEST(Engine, AFailingLogEndsTheRunWithAnErrorNamingTheFile) {
  const test::ScratchDir scratch("articula_full");
  const std::string& dir = scratch.path();
  const int code = test::exit_code_with_file_size_limit(4096, [&] {
    Robot robot = Robot::from_urdf(test::model_path("pendulum3r"));
    Simulator sim(robot);
    sim.add_log(make_log(LogFormat::Csv, dir + "/run"));
    const RunResult r = sim.run(2.0);
    return r.status == RunStatus::Error && r.message.find(dir + "/run.csv") != std::string::npos ? 0 : 2;
  });
  EXPECT_EQ(code, 0) << "2: not status error naming the file, 100: run() threw";
}

TEST(Engine, ARunKilledHalfwayLeavesACsvThatParsesToTheLastCompleteRow) {
  const test::ScratchDir scratch("articula_kill");
  const std::string& dir = scratch.path();
  const std::string stem = dir + "/run";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // a long run, flushing its log every 10 ms of wall time
    Robot robot = Robot::from_urdf(test::model_path("pendulum3r"));
    SimulationOptions o;
    o.dt = 1e-5;
    Simulator sim(robot, o);
    sim.add_log(make_log(LogFormat::Csv, stem, 0.01));
    sim.run(1e6);
    ::_exit(0);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(400));
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  std::ifstream file(stem + ".csv");
  std::stringstream content;
  content << file.rdbuf();
  std::string csv = content.str();
  // A kill inside a write() can leave one unterminated fragment at the end (docs/telemetry.md):
  // it is not a row, and readers drop it. Every terminated line is a whole row.
  ASSERT_NE(csv.find('\n'), std::string::npos);
  csv.erase(csv.rfind('\n') + 1);
  std::istringstream in(csv);
  std::string line;
  ASSERT_TRUE(std::getline(in, line));
  const auto fields = [](const std::string& l) { return std::count(l.begin(), l.end(), ',') + 1; };
  const auto n = fields(line);
  EXPECT_EQ(line.substr(0, 2), "t,");
  int rows = 0;
  double t_last = -1.0;
  while (std::getline(in, line)) {
    ASSERT_EQ(fields(line), n) << "row " << rows;
    const double t = std::stod(line.substr(0, line.find(',')));
    EXPECT_GT(t, t_last);
    t_last = t;
    ++rows;
  }
  EXPECT_GT(rows, 10);
  std::ifstream status_file(stem + ".status.yaml");
  std::stringstream text;
  text << status_file.rdbuf();
  EXPECT_NE(text.str().find("running"), std::string::npos) << text.str();
}

TEST(Engine, MultipliersAreTheInstantsResultAndTheLogsColumns) {
  // talos on a fixed base with each joint locked: 32 rows, more than the solver workspace's first
  // size (24). At rest the locks hold the joints against gravity: M v̇ + h = τ + Eᵀ λ with v̇ = 0,
  // τ = 0 gives λ = g(q), the gravity torques.
  Robot robot = Robot::from_urdf(test::model_path("talos_reduced"));
  const Model& m = robot.model();
  for (Index j = 0; j < m.njoints; ++j)
    robot.constraints().add(
        std::make_shared<JointLock>("lock." + m.joint_names[j], std::vector<std::string>{m.joint_names[j]}));
  ASSERT_GT(robot.constraints().dim(), 24);
  SimulationOptions o;
  o.record_samples = true;
  Simulator sim(robot, o);
  EXPECT_EQ(sim.multipliers().size(), 0);  // before a run
  const RunResult r = sim.run(0.01);
  ASSERT_TRUE(r.ok()) << r.message;
  const VectorX lambda = sim.multipliers();
  ASSERT_EQ(lambda.size(), robot.constraints().dim());
  Data data(m);
  const VectorX g = rnea(m, data, sim.q(), VectorX::Zero(m.nv), VectorX::Zero(m.nv));
  EXPECT_GT(g.cwiseAbs().maxCoeff(), 1.0);
  EXPECT_LT(test::rel_err(lambda, g), 1e-9);
  // One lock's entries by name, and the last sample's lambda.* columns: the same numbers.
  const std::string& knee = m.joint_names[3];
  EXPECT_EQ(robot.constraints().rows_of("lock." + knee, lambda)[0], g[m.idx_v[m.joint_id(knee)]]);
  const auto& cols = r.columns;
  for (Index j = 0; j < m.njoints; ++j) {
    const auto it = std::find(cols.begin(), cols.end(), "lambda.lock." + m.joint_names[j] + ".0");
    ASSERT_NE(it, cols.end());
    EXPECT_EQ(r.samples.back()[it - cols.begin()], lambda[m.idx_v[j]]) << m.joint_names[j];
  }
}

}  // namespace
}  // namespace articula
