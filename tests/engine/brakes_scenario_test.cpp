// Brakes in scenario files (docs/scenarios.md "brakes", the stop_signal action): the bundled
// scenarios/estop_real_brakes.yaml runs, and bad brake input is an error naming the brake.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "articula/articula.hpp"
#include "test_support.hpp"

namespace articula {
namespace {

namespace fs = std::filesystem;

std::string pendulum() { return "model: {urdf: '" + test::model_path("pendulum3r") + "', base: fixed}\nduration: 0.2\n"; }

std::string error_of(const std::string& text) {
  try {
    parse_scenario(text, "b.yaml", ".");
  } catch (const ScenarioError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for:\n" << text;
  return "";
}

TEST(BrakesScenario, TheBundledRealBrakesEstopSlipsSticksAndSlipsThrough) {
  const fs::path file = fs::path(ARTICULA_MODELS_DIR).parent_path() / "scenarios" / "estop_real_brakes.yaml";
  ScenarioOverrides o;
  o.out_dir = (fs::path(testing::TempDir()) / "articula_brakes_scenario").string();
  Scenario s = load_scenario(file.string(), o);
  ASSERT_EQ(s.robot->brakes().size(), 6u);
  EXPECT_EQ(s.robot->brake("brake.joint_2").kind, BrakeKind::Pin);
  EXPECT_EQ(s.robot->brake("brake.joint_1").static_torque, 480.0);
  EXPECT_EQ(s.robot->brake("brake.joint_4").static_torque, 40.0);  // defaults to torque
  const RunResult r = run_scenario(s);
  ASSERT_TRUE(r.ok()) << r.message;
  bool through = false, pin = false;
  for (const EventRecord& e : r.events)
    for (const auto& n : e.names) {
      through = through || n.ends_with(".slip_through");
      pin = pin || n == "brake.joint_2.engage";
    }
  EXPECT_TRUE(through);
  EXPECT_TRUE(pin);
  for (std::size_t k = 0; k < 6; ++k)
    EXPECT_TRUE(s.simulator->brake_states()[k] == BrakeState::Stuck ||
                s.simulator->brake_states()[k] == BrakeState::Locked);
  EXPECT_EQ(s.simulator->v().norm(), 0.0);
  EXPECT_NE(std::find(r.columns.begin(), r.columns.end(), "brake.brake.joint_3.energy"), r.columns.end());
}

TEST(BrakesScenario, KeysAndTheStopSignalAction) {
  Scenario s = parse_scenario(pendulum() +
                                  "brakes:\n  - {name: elbow, joint: joint2, kind: friction, delay: 0.01, torque: 3, "
                                  "static_torque: 4}\n  - {joint: joint3, kind: pin}\nevents:\n"
                                  "  - {at: 0.05, actions: [{stop_signal: {category: 0}}]}\n",
                              "b.yaml", ".");
  EXPECT_EQ(s.robot->brake("elbow").delay, 0.01);
  EXPECT_EQ(s.robot->brake("brake.joint3").torque, std::numeric_limits<double>::infinity());
  EXPECT_TRUE(run_scenario(s).ok());
  EXPECT_NE(s.simulator->brake_states()[0], BrakeState::Released);
}

TEST(BrakesScenario, BadInputNamesTheBrake) {
  std::string m = error_of(pendulum() + "brakes:\n  - {name: weak, joint: joint2, torque: -1}\n");
  EXPECT_NE(m.find("brake 'weak'"), std::string::npos) << m;
  EXPECT_NE(m.find("brakes[0]"), std::string::npos) << m;
  m = error_of(pendulum() + "brakes:\n  - {joint: joint2, torque: 2, delay: -0.1}\n");
  EXPECT_NE(m.find("delay"), std::string::npos) << m;
  m = error_of(pendulum() + "brakes:\n  - {joint: joint2, torque: 2, static_torque: 1}\n");
  EXPECT_NE(m.find("brake 'brake.joint2'"), std::string::npos) << m;
  EXPECT_NE(m.find("static_torque"), std::string::npos) << m;
  m = error_of(pendulum() + "brakes:\n  - {joint: joint2, torque: 2}\n  - {name: two, joint: joint2, torque: 2}\n");
  EXPECT_NE(m.find("already has brake 'brake.joint2'"), std::string::npos) << m;
  m = error_of(pendulum() + "brakes:\n  - {joint: joint9, torque: 2}\n");
  EXPECT_NE(m.find("joint9"), std::string::npos) << m;
  m = error_of(pendulum() + "brakes:\n  - {joint: joint2}\n");
  EXPECT_NE(m.find("give torque"), std::string::npos) << m;
  m = error_of(pendulum() + "brakes:\n  - {joint: joint2, kind: disc, torque: 1}\n");
  EXPECT_NE(m.find("friction, pin"), std::string::npos) << m;
  m = error_of(pendulum() + "events:\n  - {at: 0.1, actions: [{stop_signal: {category: 2}}]}\n");
  EXPECT_NE(m.find("category"), std::string::npos) << m;
  m = error_of(pendulum() + "events:\n  - {at: 0.1, actions: [{stop_signal: {category: 0}}]}\n");
  EXPECT_NE(m.find("needs brakes"), std::string::npos) << m;
}

}  // namespace
}  // namespace articula
