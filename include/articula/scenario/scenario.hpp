#pragma once
/// Scenario files: everything a run needs, by name, in YAML (yaml-cpp) — the model, its
/// hardware (motors, sensors, elastic contacts), constraints, the initial state, a controller,
/// the integrator, events and the logs. Every key is documented in docs/scenarios.md.
///
/// Loading builds a ready-to-run Robot and Simulator; run_scenario() adds the logs and runs.
/// Every mistake in a file is a ScenarioError whose message names the file, the line and
/// column (1-based) of the offending node, the key and what was expected:
///   scenarios/x.yaml:12:14: key 'contacts[0].stiffness': expected a number, got 'stiff'
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "articula/engine/robot.hpp"
#include "articula/engine/simulator.hpp"
#include "articula/engine/telemetry.hpp"
#include "articula/solvers/activation.hpp"

namespace articula {

/// A mistake in a scenario file. what() is "FILE:LINE:COL: key 'KEY': WHAT" (or "FILE: WHAT"
/// when no node is to blame, e.g. an unreadable file); line and column are 1-based.
class ScenarioError : public std::runtime_error {
 public:
  ScenarioError(std::string file, int line, int column, std::string key, const std::string& what);
  const std::string& file() const { return file_; }
  int line() const { return line_; }               ///< 1-based; 0 when unknown
  int column() const { return column_; }           ///< 1-based; 0 when unknown
  const std::string& key() const { return key_; }  ///< dotted path, e.g. "events[1].actions[0].enable"

 private:
  std::string file_;
  int line_, column_;
  std::string key_;
};

/// What a run may ask for (docs/scenarios.md, "Limits"). Beyond these a run could never finish
/// or its log could never be stored, so loading refuses them with a message naming the key and
/// the limit; `articula estop` applies the same to its options.
struct RunLimits {
  static constexpr double kMinStep = 1e-12;       ///< [s] smallest dt, min_step, max_step
  static constexpr double kMinTolerance = 1e-14;  ///< smallest abs_tol and (unless 0) rel_tol
  static constexpr double kMaxSteps = 1e9;        ///< duration / step (dt; dopri5: max_step)
  static constexpr double kMaxLogRows = 1e8;      ///< duration / max(log period, step)
};
/// Why a run of `duration` with these options is too long (more than kMaxSteps steps), or "".
/// The step counted is dt (fixed step) or max_step (dopri5, the fewest steps it can take).
std::string check_run_length(double duration, const SimulationOptions& options);
/// Why a log of `duration` sampled every max(period, step) is too long (more than
/// kMaxLogRows rows), or "".
std::string check_log_length(double duration, double step, double period);

/// Why `path` cannot be read as an input file (a scenario, a URDF), checked before reading so
/// that a FIFO or a device is never read forever: "not found", "a directory, not a file",
/// "a FIFO (named pipe), not a regular file", "a character device (such as /dev/zero), not a
/// regular file", "a block device, …", "a socket, …", "not readable: Permission denied"; "" when
/// it is a readable regular file (symbolic links followed).
std::string input_file_problem(const std::string& path);

/// One log to write: `path` is the stem (no extension), already resolved against the output
/// folder; the sink writes path + ".csv" or ".h5".
struct ScenarioOutput {
  LogFormat format = LogFormat::Csv;
  std::string path;
  double period = 0.0;  ///< [s] between logged samples; 0: every step (events are always logged)
};

/// Command-line style changes applied while loading (they win over the file).
struct ScenarioOverrides {
  std::optional<std::string> out_dir;  ///< folder the output stems are resolved against
  std::optional<LogFormat> format;     ///< one log of this format instead of the file's outputs
  std::optional<JumpForm> jump;        ///< replaces the jump form of every `enable` action
  std::optional<double> duration;      ///< [s] > 0
  std::optional<bool> joint_limits;    ///< replaces the file's `joint_limits` on/off
  bool record_samples = false;         ///< keep the logged rows in RunResult::samples (tests)
};

/// A loaded scenario. The simulator holds a reference to the robot: keep them together
/// (moving the Scenario is fine, the pointers stay).
struct Scenario {
  std::string file;         ///< as given (or the source name)
  std::string name;         ///< the `name` key, else the file's stem
  std::string description;  ///< the `description` key
  std::string model_file;   ///< the URDF, resolved against the scenario's folder
  std::unique_ptr<Robot> robot;
  std::unique_ptr<Simulator> simulator;  ///< initial state, controller and events set
  std::string controller = "none";       ///< the controller in words, for summaries
  double duration = 0.0;                 ///< [s]
  VectorX q0, v0;                        ///< the initial state given to the simulator
  std::vector<ScenarioOutput> outputs;   ///< may be empty (no log)
};

/// Reads and builds a scenario file. Relative paths in it (the URDF) are resolved against the
/// file's folder. Output stems are resolved against overrides.out_dir, or else
/// `articula_out/<name>/` (relative to the working directory).
/// @throws ScenarioError for any mistake in the file (never another exception type for bad
///   input: malformed YAML, wrong types, unknown keys or names, a missing model file, invalid
///   numbers or overrides all become ScenarioError).
Scenario load_scenario(const std::string& path, const ScenarioOverrides& overrides = {});
/// Same from text; `source_name` names it in messages and gives the default name (its stem);
/// `base_dir` resolves relative paths.
Scenario parse_scenario(const std::string& yaml_text, const std::string& source_name, const std::string& base_dir,
                        const ScenarioOverrides& overrides = {});

/// Creates the output folders, adds one log per output to the simulator and runs it for the
/// scenario's duration. `progress` (optional) is passed to Simulator::set_progress.
/// @throws std::runtime_error naming the path when a log cannot be created.
RunResult run_scenario(Scenario& scenario, std::function<void(double t, double duration)> progress = {});

/// Log file paths of the outputs (stem + extension), in order.
std::vector<std::string> output_files(const Scenario& scenario);

}  // namespace articula
