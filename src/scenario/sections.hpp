#pragma once
// Scenario parsing, internal: the state shared by the readers of the file's sections, in the
// order parse_scenario() calls them (scenario.cpp):
//   model_section.cpp     model, gravity, motors, contacts, constraints, sensors, initial
//   run_section.cpp       integrator, solver, output, duration
//   brakes_section.cpp    brakes (after the hardware), the stop_signal action
//   control_section.cpp   controller, events (need the Simulator)
#include <string>

#include "articula/scenario/scenario.hpp"
#include "scenario/yaml_node.hpp"

namespace articula::scenario_detail {

enum class ControllerType { None, Constant, Pd, Feedback };

struct Build {
  Node root;
  std::string base_dir;
  ScenarioOverrides overrides;
  Scenario scenario;
  SimulationOptions options;
  ControllerType controller = ControllerType::None;
};

// model_section.cpp
void read_model(Build& b);
void read_hardware(Build& b);  // motors, contacts, constraints, sensors
void read_initial(Build& b);
// run_section.cpp
void read_run_settings(Build& b);  // integrator, solver, duration
void read_outputs(Build& b);
// brakes_section.cpp
void read_brakes(Build& b);  // the brakes: list (after the motors: motor_torque needs them)
EventAction read_stop_signal(const Node& n);  // the stop_signal event action
// control_section.cpp
void read_controller(Build& b);
void read_events(Build& b);

/// Checked look-ups that fail at `at` listing the valid names.
Index joint_named(const Model& model, const Node& at, const std::string& name);
Index frame_named(const Model& model, const Node& at, const std::string& name);
/// JumpForm from its scenario name (consistent = auto, naive, none, full, projector, minimal, locks).
JumpForm jump_named(const Node& at);

}  // namespace articula::scenario_detail
