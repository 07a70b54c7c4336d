// Scenario files: reading the YAML text and building the robot and simulator section by
// section (sections.hpp), and running a loaded scenario with its logs. docs/scenarios.md.
#include "articula/scenario/scenario.hpp"

#include <sys/stat.h>
#include <unistd.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "scenario/sections.hpp"

namespace articula {
namespace fs = std::filesystem;
namespace {

std::string error_text(const std::string& file, int line, int column, const std::string& key, const std::string& what) {
  // The file name and the key path come from the user: printed with control characters escaped.
  std::ostringstream s;
  s << scenario_detail::printable(file);
  if (line > 0) s << ':' << line << ':' << column;
  s << ": ";
  if (!key.empty()) s << "key '" << scenario_detail::printable(key) << "': ";
  s << what;
  return s.str();
}

// Counts the documents of the text with yaml-cpp's event parser, throwing on a second one. Not
// YAML::LoadAll: yaml-cpp 0.7 never gets past a ',' at the top level of a document (each call
// reads an empty document at the same place, so LoadAll loops forever; found by fuzz_scenario).
// A document that starts where the previous one did is that case, reported at its mark.
void check_one_document(const std::string& yaml_text, const std::string& source_name) {
  struct Starts : YAML::EventHandler {  // where each document's first node is
    std::vector<YAML::Mark> marks;
    bool open = false;
    void at(const YAML::Mark& m) {
      if (open) marks.push_back(m);
      open = false;
    }
    void OnDocumentStart(const YAML::Mark&) override { open = true; }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark& m, YAML::anchor_t) override { at(m); }
    void OnAlias(const YAML::Mark& m, YAML::anchor_t) override { at(m); }
    void OnScalar(const YAML::Mark& m, const std::string&, YAML::anchor_t, const std::string&) override { at(m); }
    void OnSequenceStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
      at(m);
    }
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark& m, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {
      at(m);
    }
    void OnMapEnd() override {}
  } starts;
  std::istringstream in(yaml_text);
  YAML::Parser parser(in);
  while (starts.marks.size() < 2 && parser.HandleNextDocument(starts)) {
  }
  if (starts.marks.size() < 2) return;
  const YAML::Mark m = starts.marks[1];
  if (m.pos == starts.marks[0].pos) {
    const std::string at = m.pos >= 0 && static_cast<std::size_t>(m.pos) < yaml_text.size()
                               ? scenario_detail::printable(yaml_text.substr(static_cast<std::size_t>(m.pos), 1))
                               : std::string();
    throw ScenarioError(source_name, m.line + 1, m.column + 1, "",
                        "malformed YAML: '" + at + "' cannot start a document (a ',' outside [ ] or { }?)");
  }
  throw ScenarioError(source_name, m.line + 1, m.column + 1, "",
                      "a second YAML document (after '---'): a scenario file holds one document; "
                      "remove the '---' line and what follows, or merge it into the first document");
}
}  // namespace

std::string input_file_problem(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0)
    return errno == ENOENT || errno == ENOTDIR ? "not found" : std::string("cannot be read: ") + std::strerror(errno);
  if (S_ISDIR(st.st_mode)) return "a directory, not a file";
  if (S_ISFIFO(st.st_mode)) return "a FIFO (named pipe), not a regular file";
  if (S_ISCHR(st.st_mode)) return "a character device (such as /dev/zero), not a regular file";
  if (S_ISBLK(st.st_mode)) return "a block device, not a regular file";
  if (S_ISSOCK(st.st_mode)) return "a socket, not a regular file";
  if (!S_ISREG(st.st_mode)) return "not a regular file";
  if (::access(path.c_str(), R_OK) != 0) return std::string("not readable: ") + std::strerror(errno);
  return {};
}

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
    // Every document is read, so that a second one (after `---`) is an error, not ignored.
    check_one_document(yaml_text, source_name);
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
                      "constraints", "brakes", "controller", "integrator", "solver", "joint_limits", "duration",
                      "events", "output"});
    Scenario& s = b.scenario;
    s.file = source_name;
    s.name = b.root.has("name") ? b.root.get("name").text() : fs::path(source_name).stem().string();
    // The file's stem names the output folder and the summary when `name` is absent: it must be
    // printable text too (no terminal escape in a folder name or on the screen).
    if (!b.root.has("name"))
      if (const std::string bad = scenario_detail::text_problem(s.name, false); !bad.empty())
        throw ScenarioError(source_name, 0, 0, "",
                            "the file name '" + scenario_detail::printable(s.name) + "' is not printable UTF-8 text (" +
                                bad + "): give the scenario a `name`");
    // The name is the default output folder articula_out/<name>: one plain folder name.
    if (b.root.has("name") &&
        (s.name.empty() || s.name == "." || s.name == ".." || s.name.find_first_of("/\\") != std::string::npos))
      b.root.get("name").fail("expected a plain name (it names the output folder): no '/', '\\', '.' or '..'");
    if (const Node d = b.root.get("description"); d.defined()) s.description = d.long_text();
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
  if (const std::string problem = input_file_problem(path); !problem.empty())
    throw ScenarioError(path, 0, 0, "", "cannot read the scenario file (" + problem + ")");
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
    check_log_target(o.format, o.path);
  }
  for (const ScenarioOutput& o : scenario.outputs) scenario.simulator->add_log(make_log(o.format, o.path));
  if (progress) scenario.simulator->set_progress(std::move(progress));
  return scenario.simulator->run(scenario.duration);
}

}  // namespace articula
