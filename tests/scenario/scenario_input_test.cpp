// Hostile and clumsy scenario files (issue 16): a second YAML document, keys of another
// integrator, quoted or tagged numbers, bad text (invalid UTF-8, NUL, terminal escapes), runs that
// could never end, output stems outside the output folder, input files that are not files.
// Each must be a ScenarioError "FILE:LINE:COL: key 'KEY': …" naming the bad text, and
// `articula run` must print it and exit with 2.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "articula/articula.hpp"
#include "articula/scenario/scenario.hpp"
#include "test_support.hpp"

namespace articula {
namespace {
namespace fs = std::filesystem;

struct BadFile {
  std::string path, text;
};

BadFile write_file(const std::string& name, const std::string& body) {
  const fs::path dir = fs::path(testing::TempDir()) / "articula_scenario_input_test";
  fs::create_directories(dir);
  BadFile f{(dir / (name + ".yaml")).string(), body};
  std::ofstream(f.path, std::ios::binary) << body;
  return f;
}

ScenarioOverrides out_to(const std::string& dir) {
  ScenarioOverrides o;
  o.out_dir = dir;
  return o;
}

std::string model() { return "model: {urdf: '" + test::model_path("pendulum3r") + "', base: fixed}\n"; }

// "LINE:COL" (1-based) of the first `needle` in `text`.
std::string where(const std::string& text, const std::string& needle) {
  const auto at = text.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  if (at == std::string::npos) return "?";
  const auto line_start = text.rfind('\n', at);
  const std::size_t col = at - (line_start == std::string::npos ? 0 : line_start + 1) + 1;
  const long line = std::count(text.begin(), text.begin() + static_cast<long>(at), '\n') + 1;
  return std::to_string(line) + ":" + std::to_string(col);
}

// The error of loading `f`; it must start with "FILE:LINE:COL: key 'KEY': " (`needle`'s place;
// no key part when `key` is empty) and contain each of `parts`; `articula run` prints it, exit 2.
std::string expect_error(const BadFile& f, const std::string& needle, const std::string& key,
                         std::initializer_list<std::string> parts) {
  std::string message;
  try {
    load_scenario(f.path);
    ADD_FAILURE() << "no error for\n" << f.text;
  } catch (const ScenarioError& e) {
    message = e.what();
  }
  const std::string prefix = f.path + ":" + where(f.text, needle) + ": " + (key.empty() ? "" : "key '" + key + "': ");
  EXPECT_EQ(message.rfind(prefix, 0), 0u) << "expected the prefix\n  " << prefix << "\ngot\n  " << message;
  for (const std::string& p : parts) EXPECT_NE(message.find(p), std::string::npos) << p << " not in: " << message;
  const test::CliResult r = test::run_cli("run --quiet '" + f.path + "'");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find(message), std::string::npos) << r.output;
  return message;
}

TEST(ScenarioInput, ASecondYamlDocumentIsAnError) {
  const BadFile f = write_file("two_docs", model() + "duration: 1\n---\nduration: 2\n");
  expect_error(f, "duration: 2", "", {"a second YAML document"});
  // An empty second document too.
  const BadFile empty = write_file("two_docs_empty", model() + "duration: 1\n---\n");
  EXPECT_THROW(load_scenario(empty.path), ScenarioError);
}

// yaml-cpp 0.7's LoadAll never gets past a ',' at the top level (found by fuzz_scenario: it hung).
TEST(ScenarioInput, AStrayCommaIsAnErrorNotAHang) {
  const BadFile f = write_file("stray_comma", ",\n" + model());
  expect_error(f, ",", "", {"malformed YAML", "','"});
  const BadFile after = write_file("stray_comma_after", model() + "duration: 1\n,\n");
  EXPECT_THROW(load_scenario(after.path), ScenarioError);
}

TEST(ScenarioInput, AdaptiveKeysUnderAFixedStepMethodAreErrors) {
  const BadFile f = write_file("rk4_tolerance", model() + "duration: 1\nintegrator: {method: rk4, abs_tol: 1e-6}\n");
  expect_error(f, "1e-6", "integrator.abs_tol", {"dopri5", "rk4"});
  // Without a method the default (a fixed-step method) applies.
  const BadFile g = write_file("default_min_step", model() + "duration: 1\nintegrator:\n  min_step: 1e-6\n");
  expect_error(g, "1e-6", "integrator.min_step", {"dopri5"});
  // Under dopri5 they are fine.
  EXPECT_NO_THROW(parse_scenario(model() + "duration: 0.01\nintegrator: {method: dopri5, abs_tol: 1e-6, "
                                           "rel_tol: 0, min_step: 1e-9, max_step: 1e-3}\n",
                                 "ok.yaml", ".", out_to(testing::TempDir())));
}

TEST(ScenarioInput, QuotedOrTaggedNumbersAreErrors) {
  const BadFile quoted = write_file("quoted_number", model() + "duration: '1.5'\n");
  expect_error(quoted, "'1.5'", "duration", {"quoted", "1.5", "plain"});
  const BadFile tagged = write_file("tagged_number", model() + "duration: 1\ngravity: [0, 0, !!str -9.81]\n");
  expect_error(tagged, "!!str", "gravity[2]", {"-9.81", "tag"});
  const BadFile flag = write_file("quoted_bool", model() + "duration: 1\njoint_limits: \"true\"\n");
  expect_error(flag, "\"true\"", "joint_limits", {"true or false"});
}

TEST(ScenarioInput, InvalidUtf8NulAndTerminalEscapesInTextAreErrors) {
  const BadFile utf8 = write_file("bad_utf8", model() + "duration: 1\nname: caf\xe9\n");
  expect_error(utf8, "caf", "name", {"invalid UTF-8", "\\xe9"});
  const BadFile nul = write_file("nul", model() + "duration: 1\ndescription: \"a\\0b\"\n");
  expect_error(nul, "\"a", "description", {"NUL", "a\\x00b"});
  const BadFile escape = write_file("escape", model() + "duration: 1\ndescription: \"\\e[2J\\e[31mred\"\n");
  const std::string m = expect_error(escape, "\"\\e", "description", {"terminal escape", "\\x1b[2J"});
  EXPECT_EQ(m.find('\x1b'), std::string::npos) << "the message itself must not carry the escape";
  // A C1 control (U+009B, CSI) as UTF-8, in a joint name used as a key.
  const BadFile c1 = write_file("c1", model() + "duration: 1\ninitial: {q: {\"joint\\u009b1\": 0}}\n");
  expect_error(c1, "\"joint", "initial.q.joint\\xc2\\x9b1", {"U+009B"});
  // Line breaks are fine in a description, not in a name.
  EXPECT_NO_THROW(parse_scenario(model() + "duration: 1\ndescription: |\n  two\n  lines\n", "d.yaml", "."));
  EXPECT_THROW(parse_scenario(model() + "duration: 1\nname: \"two\\nlines\"\n", "n.yaml", "."), ScenarioError);
  // Without `name`, the file's stem names the run: it must be printable too, and the message
  // shows it escaped.
  const BadFile stem = write_file("esc\x1b[31m", model() + "duration: 0.01\n");
  const test::CliResult r = test::run_cli("run --quiet '" + stem.path + "'");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("the file name 'esc\\x1b[31m' is not printable UTF-8 text"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find('\x1b'), std::string::npos) << r.output;
  EXPECT_NO_THROW(parse_scenario(model() + "duration: 0.01\nname: fine\n", stem.path, "."));
}

TEST(ScenarioInput, RunsThatCouldNeverEndAreErrorsNamingTheLimit) {
  const BadFile tiny_dt = write_file("tiny_dt", model() + "duration: 1\nintegrator: {method: rk4, dt: 1e-300}\n");
  expect_error(tiny_dt, "1e-300", "integrator.dt", {"1e-12", "'1e-300'"});
  const BadFile long_run = write_file("long_run", model() + "duration: 1e12\n");
  expect_error(long_run, "1e12", "duration", {"1e+15 steps", "limit of 1e+09"});
  const BadFile tolerance = write_file(
      "tiny_tolerance", model() + "duration: 1\nintegrator: {method: dopri5, abs_tol: 1e-300, rel_tol: 1e-300}\n");
  expect_error(tolerance, "1e-300", "integrator.abs_tol", {"1e-14"});
  const BadFile rel =
      write_file("tiny_rel_tolerance", model() + "duration: 1\nintegrator: {method: dopri5, rel_tol: 1e-300}\n");
  expect_error(rel, "1e-300", "integrator.rel_tol", {"1e-14"});
  const BadFile adaptive = write_file("long_adaptive", model() + "duration: 1e12\nintegrator: {method: dopri5}\n");
  expect_error(adaptive, "1e12", "duration", {"max_step", "limit of 1e+09"});
  // 1e9 steps may run, but not be logged row by row: the log limit names output.period.
  const BadFile big_log = write_file("big_log", model() + "duration: 1e6\n");
  expect_error(big_log, "1e6", "duration", {"1e+09 rows", "limit of 1e+08", "output.period"});
  const BadFile big_period =
      write_file("big_log_period", model() + "duration: 1e6\noutput: {csv: true, period: 1e-3}\n");
  expect_error(big_period, "1e-3", "output.period", {"1e+09 rows"});
  EXPECT_NO_THROW(parse_scenario(model() + "duration: 1e6\noutput: {csv: true, period: 1}\n", "p.yaml", "."));
  EXPECT_NO_THROW(parse_scenario(model() + "duration: 1e6\noutput: {csv: false}\n", "p.yaml", "."));
  // --duration of the command line, checked the same way.
  const test::CliResult r =
      test::run_cli("run --quiet '" + write_file("short", model() + "duration: 1\n").path + "' --duration 1e12");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("key '--duration'"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("limit of 1e+09"), std::string::npos) << r.output;
}

TEST(ScenarioInput, OutputStemsMustStayInsideTheOutputFolder) {
  const std::string out = (fs::path(testing::TempDir()) / "articula_scenario_input_test" / "stems_out").string();
  fs::remove_all(out);
  const BadFile absolute =
      write_file("absolute_stem", model() + "duration: 0.01\noutput: {csv: /tmp/articula_escape}\n");
  expect_error(absolute, "/tmp/articula_escape", "output.csv", {"'/tmp/articula_escape'", "inside the output folder"});
  const BadFile up = write_file("up_stem", model() + "duration: 0.01\noutput: {hdf5: logs/../../../escape}\n");
  expect_error(up, "logs/", "output.hdf5", {"'logs/../../../escape'", "'..'"});
  const test::CliResult r = test::run_cli("run --quiet '" + up.path + "' -o '" + out + "'");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_FALSE(fs::exists(fs::path(out).parent_path() / "escape.h5"));
  // A stem in a sub-folder of the output folder is fine.
  const Scenario s = parse_scenario(model() + "duration: 0.01\noutput: {csv: logs/run}\n", "ok.yaml", ".", out_to(out));
  EXPECT_EQ(s.outputs.at(0).path, (fs::path(out) / "logs" / "run").string());
}

TEST(ScenarioInput, AModelOrScenarioThatIsNotAFileIsNamedAsWhatItIs) {
  const fs::path dir = fs::path(testing::TempDir()) / "articula_scenario_input_test";
  fs::create_directories(dir);
  const std::string fifo = (dir / "model.fifo").string();
  ::unlink(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  const BadFile f = write_file("fifo_model", "model: {urdf: '" + fifo + "'}\nduration: 1\n");
  expect_error(f, "'" + fifo, "model.urdf", {fifo, "a FIFO"});
  const BadFile z = write_file("dev_zero_model", "model: /dev/zero\nduration: 1\n");
  expect_error(z, "/dev/zero", "model", {"character device"});
  const BadFile d = write_file("dir_model", "model: /tmp\nduration: 1\n");
  expect_error(d, "/tmp", "model", {"a directory"});
  // The scenario path itself.
  for (const auto& [path, what] : {std::pair{fifo, "a FIFO"}, std::pair{std::string("/dev/zero"), "character device"},
                                   std::pair{dir.string(), "a directory"}}) {
    const test::CliResult r = test::run_cli("run --quiet '" + path + "'");
    EXPECT_EQ(r.code, 2) << r.output;
    EXPECT_NE(r.output.find(path + ": cannot read the scenario file ("), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(what), std::string::npos) << r.output;
  }
  ::unlink(fifo.c_str());
}

}  // namespace
}  // namespace articula
