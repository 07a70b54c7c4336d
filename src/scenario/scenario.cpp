// Scenario files: reading the YAML text and building the robot and simulator section by
// section (sections.hpp), and running a loaded scenario with its logs. docs/scenarios.md.
#include "articula/scenario/scenario.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "scenario/sections.hpp"

namespace articula {
namespace fs = std::filesystem;
namespace {

std::string error_text(const std::string& file, int line, int column, const std::string& key, const std::string& what) {
  std::ostringstream s;
  s << file;
  if (line > 0) s << ':' << line << ':' << column;
  s << ": ";
  if (!key.empty()) s << "key '" << key << "': ";
  s << what;
  return s.str();
}

}  // namespace

ScenarioError::ScenarioError(std::string file, int line, int column, std::string key, const std::string& what)
    : std::runtime_error(error_text(file, line, column, key, what)),
      file_(std::move(file)),
      line_(line),
      column_(column),
      key_(std::move(key)) {}

Scenario parse_scenario(const std::string& yaml_text, const std::string& source_name, const std::string& base_dir,
                        const ScenarioOverrides& overrides) {
  using scenario_detail::Node;
  YAML::Node doc;
  try {
    doc = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    // yaml-cpp marks are 0-based.
    throw ScenarioError(source_name, e.mark.is_null() ? 0 : e.mark.line + 1, e.mark.is_null() ? 0 : e.mark.column + 1,
                        "", "malformed YAML: " + e.msg);
  }
  if (!doc.IsDefined() || doc.IsNull()) throw ScenarioError(source_name, 1, 1, "", "the file is empty");
  scenario_detail::Build b{Node::root(std::make_shared<const std::string>(source_name), doc),
                           base_dir,
                           overrides,
                           {},
                           {},
                           scenario_detail::ControllerType::None};
  try {
    b.root.check_map({"name", "description", "model", "gravity", "initial", "motors", "sensors", "contacts",
                      "constraints", "brakes", "controller", "integrator", "solver", "joint_limits", "duration", "events",
                      "output"});
    Scenario& s = b.scenario;
    s.file = source_name;
    s.name = b.root.has("name") ? b.root.get("name").text() : fs::path(source_name).stem().string();
    // The name is the default output folder articula_out/<name>: one plain folder name.
    if (b.root.has("name") &&
        (s.name.empty() || s.name == "." || s.name == ".." || s.name.find_first_of("/\\") != std::string::npos))
      b.root.get("name").fail("expected a plain name (it names the output folder): no '/', '\\', '.' or '..'");
    if (const Node d = b.root.get("description"); d.defined()) s.description = d.text();
    scenario_detail::read_model(b);
    scenario_detail::read_hardware(b);
    scenario_detail::read_brakes(b);
    scenario_detail::read_initial(b);
    scenario_detail::read_run_settings(b);
    scenario_detail::read_outputs(b);
    s.simulator = b.root.rethrow([&] { return std::make_unique<Simulator>(*s.robot, b.options); });
    b.root.get("initial").rethrow([&] { s.simulator->set_state(s.q0, s.v0); });
    scenario_detail::read_controller(b);
    scenario_detail::read_events(b);
    return std::move(b.scenario);
  } catch (const YAML::Exception& e) {
    // Not expected (the readers check types first); kept so that no input escapes as another type.
    throw ScenarioError(source_name, e.mark.is_null() ? 0 : e.mark.line + 1, e.mark.is_null() ? 0 : e.mark.column + 1,
                        "", e.msg);
  }
}

Scenario load_scenario(const std::string& path, const ScenarioOverrides& overrides) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    throw ScenarioError(path, 0, 0, "",
                        std::string("cannot read the scenario file (") +
                            (!fs::exists(path, ec)        ? "not found"
                             : fs::is_directory(path, ec) ? "a directory, not a file"
                                                          : "not a regular file") +
                            ")");
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) throw ScenarioError(path, 0, 0, "", "cannot read the scenario file");
  const fs::path dir = fs::path(path).parent_path();
  return parse_scenario(text.str(), path, dir.empty() ? "." : dir.string(), overrides);
}

std::vector<std::string> output_files(const Scenario& scenario) {
  std::vector<std::string> files;
  for (const ScenarioOutput& o : scenario.outputs)
    files.push_back(o.path + (o.format == LogFormat::Csv ? ".csv" : ".h5"));
  return files;
}

RunResult run_scenario(Scenario& scenario, std::function<void(double, double)> progress) {
  for (const ScenarioOutput& o : scenario.outputs) {
    const fs::path dir = fs::path(o.path).parent_path();
    std::error_code ec;
    if (!dir.empty()) fs::create_directories(dir, ec);
    if (ec) throw std::runtime_error("cannot create the output folder '" + dir.string() + "': " + ec.message());
    scenario.simulator->add_log(make_log(o.format, o.path));
  }
  if (progress) scenario.simulator->set_progress(std::move(progress));
  return scenario.simulator->run(scenario.duration);
}

}  // namespace articula
