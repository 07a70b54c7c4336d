// Scenario files (scenario/scenario.hpp): each bundled scenario in scenarios/ runs and does what
// its description says; a file and the equivalent C++ program write identical logs; every kind
// of mistake in a file is a ScenarioError naming FILE:LINE:COL and the key (and, through
// `articula run`, exit code 2).
#include "articula/scenario/scenario.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "articula/engine/feedback.hpp"
#include "test_support.hpp"

namespace articula {
namespace {
namespace fs = std::filesystem;

std::string bundled(const std::string& stem) {
  return (fs::path(ARTICULA_MODELS_DIR).parent_path() / "scenarios" / (stem + ".yaml")).string();
}

// A fresh output folder per test.
std::string out_dir(const std::string& name) {
  const fs::path dir = fs::path(testing::TempDir()) / "articula_scenario_test" / name;
  fs::remove_all(dir);
  return dir.string();
}

ScenarioOverrides overrides_for(const std::string& name) {
  ScenarioOverrides o;
  o.out_dir = out_dir(name);
  o.record_samples = true;
  return o;
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Eigen::Index column(const RunResult& r, const std::string& name) {
  const auto it = std::find(r.columns.begin(), r.columns.end(), name);
  EXPECT_NE(it, r.columns.end()) << name;
  return it - r.columns.begin();
}

TEST(Scenario, EstopConsistentBalancesMomentumAndMatchesTheStudy) {
  Scenario s = load_scenario(bundled("estop_consistent"), overrides_for("estop_consistent"));
  EXPECT_FALSE(s.description.empty());
  const RunResult r = run_scenario(s);
  ASSERT_TRUE(r.ok()) << r.message;
  ASSERT_EQ(r.events.size(), 3u);
  for (const EventRecord& e : r.events) {
    EXPECT_TRUE(e.jumped);
    EXPECT_LT(e.momentum_residual, 1e-9) << e.actions;
    EXPECT_LT(e.kinetic_after, e.kinetic_before);  // Carnot loss
  }
  EXPECT_NEAR(r.events[0].time, 0.05, 1e-12);
  EXPECT_NEAR(r.events[2].time, 0.15, 1e-12);
  // The same run as the library's brake study with its default configuration.
  BrakeStudyConfig config = default_estop_config(fs::path(ARTICULA_MODELS_DIR).string());
  const BrakeStudyResult study = run_brake_study(config);
  ASSERT_TRUE(study.ok) << study.message;
  EXPECT_LT((s.simulator->q() - study.q_final).norm(), 1e-8);
  EXPECT_TRUE(fs::exists(output_files(s).front()));
}

TEST(Scenario, EstopNaiveViolatesTheMomentumBalance) {
  Scenario s = load_scenario(bundled("estop_naive"), overrides_for("estop_naive"));
  const RunResult r = run_scenario(s);
  ASSERT_TRUE(r.ok()) << r.message;
  ASSERT_EQ(r.events.size(), 3u);
  for (const EventRecord& e : r.events) {
    EXPECT_EQ(e.form, JumpForm::Naive);
    EXPECT_GT(e.momentum_residual, 1e-3) << e.actions;
  }
  // The --jump override turns the consistent file into this run.
  ScenarioOverrides o = overrides_for("estop_naive_override");
  o.jump = JumpForm::Naive;
  Scenario c = load_scenario(bundled("estop_consistent"), o);
  const RunResult rc = run_scenario(c);
  ASSERT_TRUE(rc.ok());
  EXPECT_LT((c.simulator->q() - s.simulator->q()).norm(), 1e-12);
}

TEST(Scenario, PendulumLocksTwiceWithACarnotLoss) {
  Scenario s = load_scenario(bundled("pendulum3r_locking"), overrides_for("pendulum"));
  const RunResult r = run_scenario(s);
  ASSERT_TRUE(r.ok()) << r.message;
  ASSERT_EQ(r.events.size(), 2u);
  EXPECT_NEAR(r.events[0].time, 0.3, 1e-12);
  EXPECT_NEAR(r.events[1].time, 0.6, 1e-12);
  for (const EventRecord& e : r.events) {
    // Loss = ½ Δvᵀ M Δv > 0 (M at the event's q: the jump leaves q unchanged).
    const VectorX dv = e.v_plus - e.v_minus;
    const double loss = e.kinetic_before - e.kinetic_after;
    EXPECT_GT(loss, 1e-3);
    EXPECT_LT(e.momentum_residual, 1e-9);
    EXPECT_GT(dv.norm(), 1e-3);
  }
  // Between the events the energy is conserved (RK4 at 1 ms): from the samples.
  const auto ek = column(r, "energy.total");
  double e_first = r.samples.front()[ek], worst = 0.0;
  for (const VectorX& row : r.samples)
    if (row[0] < 0.3 - 1e-9) worst = std::max(worst, std::abs(row[ek] - e_first));
  EXPECT_LT(worst, 1e-6);
  EXPECT_NEAR(std::abs(s.simulator->v()[1]), 0.0, 1e-9);  // joint2 stays locked
  EXPECT_NEAR(std::abs(s.simulator->v()[2]), 0.0, 1e-9);  // joint3 too
}

TEST(Scenario, SegwayBalancesUpright) {
  Scenario s = load_scenario(bundled("segway_balance"), overrides_for("segway"));
  EXPECT_EQ(s.duration, 10.0);
  const RunResult r = run_scenario(s);
  ASSERT_TRUE(r.ok()) << r.message;
  const Model& model = s.robot->model();
  double worst = 0.0;
  for (const VectorX& row : r.samples)
    worst = std::max(worst, std::abs(feedback_signal(model, "pitch.body", row.segment(1, model.nq),
                                                     row.segment(1 + model.nq, model.nv))));
  EXPECT_LT(worst, 0.05);
  EXPECT_GT(worst, 0.0199);  // it started tilted
  const VectorX& q = s.simulator->q();
  const VectorX& v = s.simulator->v();
  EXPECT_LT(std::abs(feedback_signal(model, "pitch.body", q, v)), 1e-3);  // upright at the end
  EXPECT_LT(std::abs(feedback_signal(model, "rate.body.y", q, v)), 1e-3);
  EXPECT_NEAR(q[2], 0.2, 1e-6);  // the wheel still on the ground
  EXPECT_LT(v.norm(), 1e-2);     // and at rest
}

TEST(Scenario, Solo12StandsThenLiftsAFoot) {
  Scenario s = load_scenario(bundled("solo12_stand_lift"), overrides_for("solo12"));
  const RunResult r = run_scenario(s);
  ASSERT_TRUE(r.ok()) << r.message;
  const auto z = column(r, "q.root_joint.z");
  const auto fl = column(r, "contact.FL_FOOT.fz");
  double lowest = 1.0, fl_late = 0.0, fl_early = 1e9;
  Eigen::Index rows_late = 0;
  for (const VectorX& row : r.samples) {
    lowest = std::min(lowest, row[z]);
    if (row[0] > 0.2 && row[0] < 0.5) fl_early = std::min(fl_early, row[fl]);
    if (row[0] > 1.3) {
      fl_late = std::max(fl_late, row[fl]);
      ++rows_late;
    }
  }
  EXPECT_GT(lowest, 0.17);   // the body stays up (starts at 0.222 m)
  EXPECT_GT(fl_early, 2.0);  // the front-left foot first carries about a quarter of the weight
  EXPECT_GT(rows_late, 10);
  EXPECT_EQ(fl_late, 0.0);  // then it is off the ground
  const VectorX& last = r.samples.back();
  double fz = 0.0;
  for (const char* foot : {"FR_FOOT", "HL_FOOT", "HR_FOOT"}) {
    const double f = last[column(r, std::string("contact.") + foot + ".fz")];
    EXPECT_GT(f, 1.0) << foot;  // the three others stand
    fz += f;
  }
  EXPECT_NEAR(fz, s.robot->model().total_mass() * 9.81, 0.05 * s.robot->model().total_mass() * 9.81);
  // Upright: the base's tilt under ~6°.
  EXPECT_LT(std::abs(feedback_signal(s.robot->model(), "roll.base_link", s.simulator->q(), s.simulator->v())), 0.1);
  EXPECT_LT(std::abs(feedback_signal(s.robot->model(), "pitch.base_link", s.simulator->q(), s.simulator->v())), 0.1);
}

TEST(Scenario, TalosHandPushesOnTheWallWithFeetHeld) {
  ScenarioOverrides o = overrides_for("talos");
  o.duration = 0.3;
  Scenario s = load_scenario(bundled("talos_wall"), o);
  const RunResult r = run_scenario(s);
  ASSERT_TRUE(r.ok()) << r.message;
  const Vector3 n = Vector3(-0.9993466, -0.0361436, 0).normalized();  // the wall's outward normal
  const auto fx = column(r, "contact.hand.fx");
  double push = 0.0;
  for (const VectorX& row : r.samples) {
    const Vector3 F = row.segment<3>(fx);
    EXPECT_GE(F.dot(n), -1e-9);  // repulsive
    push = std::max(push, F.dot(n));
  }
  EXPECT_GT(push, 10.0);  // the hand did hit the wall
  const Model& model = s.robot->model();
  Data data(model);
  s.robot->constraints().compute_rows(model, data, s.simulator->q(), s.simulator->v());
  EXPECT_LT(s.robot->constraints().error().cwiseAbs().maxCoeff(), 1e-6);
  const VectorX& last = r.samples.back();
  const double weight = model.total_mass() * 9.81;
  const double feet = last[column(r, "sensor.left_foot_ft.fz")] + last[column(r, "sensor.right_foot_ft.fz")];
  EXPECT_NEAR(feet, weight, 0.2 * weight);  // the feet carry the robot
}

// The segway scenario rebuilt with the library: same log, byte for byte.
TEST(Scenario, FileAndEquivalentProgramWriteIdenticalLogs) {
  ScenarioOverrides o;
  o.out_dir = out_dir("identical_file");
  o.duration = 1.0;
  Scenario s = load_scenario(bundled("segway_balance"), o);
  ASSERT_TRUE(run_scenario(s).ok());

  Robot robot = Robot::from_urdf(test::model_path("segway"), true);
  Motor motor;
  motor.name = motor.joint = "axle";
  motor.effort_limit = 50;
  robot.add_motor(motor);
  robot.constraints().add(std::make_shared<WheelConstraint>("rolling", "wheel", 0.2, Vector3::UnitY()));
  robot.constraints().add(std::make_shared<FrameConstraint>("planar", "wheel", AxisMask::parse("rxrz")));
  robot.add_sensor({"axle_torque", SensorType::Effort, "axle"});
  SimulationOptions options;
  options.integrator = Integrator::RK4;
  options.dt = 1e-3;
  options.log_period = 0.01;
  Simulator sim(robot, options);
  VectorX q = neutral(robot.model());
  q[2] = 0.2;
  q[robot.model().idx_q[robot.model().joint_id("axle")]] = 0.02;
  sim.set_state(q, VectorX::Zero(robot.model().nv));
  sim.set_controller(feedback_controller(robot, {{"axle", "pitch.body", -68.141666666666694},
                                                 {"axle", "rate.body.y", -17.330899368707197},
                                                 {"axle", "rate.wheel.y", -2.9383893985728848}}),
                     1e-3);
  const std::string dir = out_dir("identical_program");
  fs::create_directories(dir);
  sim.add_log(make_csv_log(dir + "/run.csv"));
  ASSERT_TRUE(sim.run(1.0).ok());

  const std::string a = read_file(o.out_dir.value() + "/run.csv"), b = read_file(dir + "/run.csv");
  EXPECT_GT(a.size(), 1000u);
  EXPECT_TRUE(a == b) << "the logs differ";
  EXPECT_EQ(read_file(o.out_dir.value() + "/run.events.csv"), read_file(dir + "/run.events.csv"));
}

// Same for a scenario with events: the pendulum's locks.
TEST(Scenario, FileAndEquivalentProgramWriteIdenticalEventLogs) {
  ScenarioOverrides o;
  o.out_dir = out_dir("identical_events_file");
  Scenario s = load_scenario(bundled("pendulum3r_locking"), o);
  ASSERT_TRUE(run_scenario(s).ok());

  Robot robot = Robot::from_urdf(test::model_path("pendulum3r"));
  for (const char* j : {"joint2", "joint3"})
    robot.constraints().add(
        std::make_shared<JointLock>(robot.model(), std::string("brake_") + j, std::vector<std::string>{j}), false);
  Simulator sim(robot);  // RK4, 1 ms
  sim.add_event({"lock_joint2", 0.3, {}, 0, false, {EventAction::enable("brake_joint2")}});
  sim.add_event({"lock_joint3", 0.6, {}, 0, false, {EventAction::enable("brake_joint3")}});
  const std::string dir = out_dir("identical_events_program");
  fs::create_directories(dir);
  sim.add_log(make_csv_log(dir + "/run.csv"));
  ASSERT_TRUE(sim.run(1.0).ok());
  EXPECT_TRUE(read_file(o.out_dir.value() + "/run.csv") == read_file(dir + "/run.csv")) << "the logs differ";
  const std::string events = read_file(dir + "/run.events.csv");
  EXPECT_NE(events.find("lock_joint3"), std::string::npos);
  EXPECT_EQ(read_file(o.out_dir.value() + "/run.events.csv"), events);
}

// ---- Mistakes: one test per kind. Each file is written to a temporary folder; the error must
// name FILE:LINE:COL of the offending node and the key, and `articula run` must exit with 2.

struct BadCase {
  std::string path, text;
};

BadCase write_bad(const std::string& name, const std::string& body) {
  const fs::path dir = fs::path(testing::TempDir()) / "articula_scenario_test" / "bad";
  fs::create_directories(dir);
  BadCase c{(dir / (name + ".yaml")).string(), body};
  std::ofstream(c.path, std::ios::binary) << body;
  return c;
}

// "LINE:COL" (1-based) of the first occurrence of `needle` in `text`.
std::string where(const std::string& text, const std::string& needle) {
  const auto at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  const auto line_start = text.rfind('\n', at);
  const std::size_t col = at - (line_start == std::string::npos ? 0 : line_start + 1) + 1;
  const long line = std::count(text.begin(), text.begin() + static_cast<long>(at), '\n') + 1;
  return std::to_string(line) + ":" + std::to_string(col);
}

// Loads the file, expects a ScenarioError starting with "FILE:LINE:COL: key 'KEY'" (the position of
// `needle`), returns its message; the CLI must print it and exit with 2.
std::string expect_error(const BadCase& c, const std::string& needle, const std::string& key) {
  std::string message;
  try {
    load_scenario(c.path);
    ADD_FAILURE() << "no error for " << c.path;
  } catch (const ScenarioError& e) {
    message = e.what();
  }
  const std::string prefix = c.path + ":" + where(c.text, needle) + ": key '" + key + "': ";
  EXPECT_EQ(message.rfind(prefix, 0), 0u) << "expected the prefix\n  " << prefix << "\ngot\n  " << message;
  const test::CliResult r = test::run_cli("run --quiet '" + c.path + "'");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
  return message;
}

std::string pendulum_model() { return "model: {urdf: '" + test::model_path("pendulum3r") + "', base: fixed}\n"; }

TEST(Scenario, JointLimitsStopTheElbowAtItsUrdfLimit) {
  // pendulum3r's joints are limited to ±π in its URDF; joint2 starts near +π, moving up.
  const std::string text = pendulum_model() +
                           "duration: 0.2\ninitial: {q: {joint2: 3.0}, v: {joint2: 4.0}}\n"
                           "joint_limits: {restitution: 0.25}\n";
  Scenario s = parse_scenario(text, "limits.yaml", ".", overrides_for("limits"));
  EXPECT_TRUE(s.simulator->options().joint_limits);
  EXPECT_DOUBLE_EQ(s.simulator->options().limit_restitution, 0.25);
  const RunResult r = run_scenario(s);
  ASSERT_TRUE(r.ok()) << r.message;
  ASSERT_FALSE(r.events.empty());
  EXPECT_EQ(r.events[0].names, std::vector<std::string>{"limit.joint2.upper"});
  EXPECT_NEAR(r.events[0].v_plus[1], -0.25 * r.events[0].v_minus[1], 1e-12);
  const auto q2 = column(r, "q.joint2");
  for (const VectorX& row : r.samples) EXPECT_LE(row[q2], M_PI + 1e-6);
  // Off explicitly, or not given: the joint passes the limit.
  Scenario off = parse_scenario(pendulum_model() +
                                    "duration: 0.2\ninitial: {q: {joint2: 3.0}, v: {joint2: 4.0}}\n"
                                    "joint_limits: false\n",
                                "off.yaml", ".", overrides_for("limits_off"));
  EXPECT_FALSE(off.simulator->options().joint_limits);
  // The null-space solver by its unambiguous name (a bare `null` is YAML's null).
  EXPECT_EQ(
      parse_scenario(pendulum_model() + "duration: 1\nsolver: null_space\n", "n.yaml", ".").simulator->options().method,
      ConstrainedMethod::NullSpace);
  EXPECT_GT(run_scenario(off).t, 0.0);
  EXPECT_GT(off.simulator->q()[1], M_PI);
}

TEST(Scenario, PositionSensorReadsTheFramePosition) {
  // Every sensor type of the engine can be declared in a file, `position` included.
  Scenario s = parse_scenario(pendulum_model() +
                                  "duration: 0.05\ninitial: {q: {joint1: 0.4}}\n"
                                  "sensors: [{name: tip_pos, type: position, target: tip}]\n",
                              "position.yaml", ".", overrides_for("position_sensor"));
  ASSERT_TRUE(run_scenario(s).ok());
  const auto channels = s.simulator->sensor_channels();
  ASSERT_EQ(channels, (std::vector<std::string>{"tip_pos.x", "tip_pos.y", "tip_pos.z"}));
  const Model& model = s.robot->model();
  Data data(model);
  forward_kinematics(model, data, s.simulator->q());
  update_frame_placements(model, data);
  const Vector3 p = data.oMf[static_cast<std::size_t>(model.frame_id("tip"))].p;
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(s.simulator->sensors()[k], p[k], 1e-12) << channels[k];
}

TEST(ScenarioErrors, WrongType) {
  const BadCase c =
      write_bad("wrong_type", pendulum_model() + "duration: 1\ncontacts:\n  - {frame: tip, stiffness: stiff}\n");
  const std::string m = expect_error(c, "stiff}", "contacts[0].stiffness");
  EXPECT_NE(m.find("expected a number > 0, got 'stiff'"), std::string::npos) << m;
}

TEST(ScenarioErrors, UnknownKey) {
  const BadCase c =
      write_bad("unknown_key", pendulum_model() + "duration: 1\nintegrator: {method: rk4, step: 0.001}\n");
  const std::string m = expect_error(c, "step:", "integrator.step");
  EXPECT_NE(m.find("unknown key"), std::string::npos) << m;
  EXPECT_NE(m.find("method, dt, abs_tol"), std::string::npos) << "lists the valid keys: " << m;
}

TEST(ScenarioErrors, UnknownJointListsTheValidOnes) {
  const BadCase c =
      write_bad("unknown_joint", pendulum_model() + "duration: 1\ninitial:\n  q: {joint1: 0.1, joint9: 0.2}\n");
  const std::string m = expect_error(c, "joint9", "initial.q.joint9");
  EXPECT_NE(m.find("unknown joint 'joint9'"), std::string::npos) << m;
  EXPECT_NE(m.find("joint1, joint2, joint3"), std::string::npos) << m;
}

TEST(ScenarioErrors, UnknownConstraintInAnEvent) {
  const BadCase c = write_bad("unknown_constraint",
                              pendulum_model() +
                                  "duration: 1\nconstraints:\n  - {name: brake, type: joint_lock, joints: [joint2], "
                                  "enabled: false}\nevents:\n  - at: 0.1\n    actions:\n      - enable: brake9\n");
  const std::string m = expect_error(c, "brake9", "events[0].actions[0].enable");
  EXPECT_NE(m.find("unknown constraint 'brake9'"), std::string::npos) << m;
  EXPECT_NE(m.find("defined constraints: brake"), std::string::npos) << m;
}

TEST(ScenarioErrors, MissingModelFile) {
  const BadCase c = write_bad("missing_model", "duration: 1\nmodel: {urdf: robots/no_such_robot.urdf}\n");
  const std::string m = expect_error(c, "robots/", "model.urdf");
  const std::string resolved = (fs::path(c.path).parent_path() / "robots" / "no_such_robot.urdf").string();
  EXPECT_NE(m.find("model file not found: " + resolved), std::string::npos) << m;
}

TEST(ScenarioErrors, NegativeDuration) {
  const BadCase c = write_bad("negative_duration", pendulum_model() + "duration: -0.5\n");
  const std::string m = expect_error(c, "-0.5", "duration");
  EXPECT_NE(m.find("expected a number > 0, got '-0.5'"), std::string::npos) << m;
}

TEST(ScenarioErrors, MalformedYaml) {
  const BadCase c = write_bad("malformed", pendulum_model() + "duration: 1\nevents:\n  - {at: 0.1, actions: [stop\n");
  try {
    load_scenario(c.path);
    ADD_FAILURE() << "no error";
  } catch (const ScenarioError& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind(c.path + ":", 0), 0u) << m;
    EXPECT_GT(e.line(), 3);  // at or after the unclosed flow sequence
    EXPECT_GT(e.column(), 0);
    EXPECT_NE(m.find(":" + std::to_string(e.line()) + ":" + std::to_string(e.column()) + ": malformed YAML"),
              std::string::npos)
        << m;
    const test::CliResult r = test::run_cli("run --quiet '" + c.path + "'");
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_NE(r.output.find(m), std::string::npos) << r.output;
  }
}

// Odd documents of every shape are ScenarioErrors, never a crash or another exception.
TEST(ScenarioErrors, OddDocumentsAreAlwaysScenarioErrors) {
  const std::string model = pendulum_model();
  for (const std::string& text :
       {std::string(""),
        std::string("- 1\n- 2\n"),
        std::string("just text"),
        std::string("model: [1, 2]\n"),
        model + "duration: [1]\n",
        model + "duration: 1\nevents: {a: 1}\n",
        model + "duration: 1\nevents: [1]\n",
        model + "duration: 1\nevents: [{at: 1, actions: []}]\n",
        model + "duration: .nan\n",
        model + "duration: 1\ninitial: {q: {joint1: [1, 2]}}\n",
        model + "duration: 1\ngravity: [0, 0]\n",
        model + "duration: 1\nmotors: [{joint: joint1}, {joint: joint1}]\n",
        model + "duration: 1\nconstraints: [{name: a, type: frame, frame: tip, axes: qq}]\n",
        model + "duration: 1\nconstraints: [{name: a, type: wheel, frame: tip, radius: 0.1, axis: [0, 0, 0]}]\n",
        model + "duration: 1\ncontroller: {type: pd, kp: 1, kd: 1}\n",
        model + "duration: 1\nmotors: [{all_joints: true}]\ncontroller: {type: feedback, terms: [{motor: joint1, "
                "signal: pitch.nowhere, gain: 1}]}\n",
        model + "duration: 1\nevents: [{when: {joint_velocity: joint2}, actions: [{stop: false}]}]\n",
        model + "duration: 1\noutput: {csv: [a]}\n",
        model + "duration: 1\nsolver: fastest\n",
        model + "duration: 1\nsolver: null\n",
        model + "duration: 1\nname: ../../escape\n",
        model + "duration: 1\ncontroller: pd\n",
        model + "duration: 1\nconstraints: [{name: a, type: distance, frame_a: tip, frame_b: tip}]\n",
        model + "duration: 1\nmotors: [{all_joints: true}]\ncontroller: {type: pd, kp: 1, kd: 1, joints: []}\n",
        model + "duration: 1\nmotors: [{all_joints: true}]\ncontroller: {type: pd, kp: 1, kd: 1, joints: [joint1, "
                "joint1]}\n",
        model + "duration: 1\nconstraints: [{name: a, type: loop, frame_a: tip, frame_b: tip}]\n",
        model + "duration: 1\nevents: [{at: 0.1, repeat: true, actions: [{stop: true}]}]\n",
        "model: {urdf: '" + test::model_path("solo12") +
            "', base: floating}\nduration: 1\ninitial: {q: {root_joint: [0, 0, 0.3, 0, 0, 0, 1]}, base: {position: "
            "[0, 0, 1]}}\n",
        model + "duration: 1\nname: /tmp/x\n",
        model + "duration: 1\nmotors: [{all_joints: true}]\ncontroller: {type: pd, kp: 1, kd: 1, period: 1e-22}\n",
        model + "duration: 1\njoint_limits: maybe\n",
        model + "duration: 1\njoint_limits: {restitution: 2}\n",
        model + "duration: 1\njoint_limits: {bounce: 1}\n",
        model + "duration: 1\nduration: 2\n",
        std::string("model: {urdf: '") + test::model_path("pendulum3r") + "'}\n",
        std::string("\x01\x02\xff\xfe: [\n"),
        model + "duration: 1\n? [a, b]\n: c\n"}) {
    SCOPED_TRACE(text);
    EXPECT_THROW(parse_scenario(text, "odd.yaml", "."), ScenarioError);
  }
}

}  // namespace
}  // namespace articula
