// Replays the fuzzers' regression inputs (tests/fuzz/regressions/<target>/, kept from crashes
// and from issue 16's hand-made inputs) outside libFuzzer, as scripts/fuzz.sh's harnesses do:
// each ends as a load/run or as an error naming its source, never with a signal (a signal
// kills this test binary, or the CLI child and then run_cli reports -1).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "articula/scenario/scenario.hpp"
#include "test_support.hpp"

namespace articula {
namespace {
namespace fs = std::filesystem;

fs::path fuzz_dir() { return fs::path(ARTICULA_TEST_DATA_DIR).parent_path() / "fuzz"; }

std::vector<fs::path> inputs(const std::string& target) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(fuzz_dir() / "regressions" / target))
    if (e.is_regular_file()) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(FuzzRegressions, UrdfInputsLoadOrFailNamingTheirSource) {
  const std::vector<fs::path> files = inputs("urdf");
  ASSERT_GE(files.size(), 6u);
  for (const fs::path& f : files)
    for (BaseType base : {BaseType::Fixed, BaseType::Floating}) {
      const std::string source = f.filename().string();
      try {
        (void)load_urdf_string(read_bytes(f), base, source);
      } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find(source), std::string::npos) << e.what();
      }
    }
  // The hand-made ones (issue 16's crashes) are all bad input.
  for (const char* bad : {"link_without_name.urdf", "empty_link_name.urdf", "printf_in_joint_type.urdf",
                          "nested_30000.urdf", "bad_numbers.urdf", "stray_closing_tags.urdf"})
    EXPECT_THROW((void)load_urdf_string(read_bytes(fuzz_dir() / "regressions/urdf" / bad), BaseType::Fixed, bad),
                 std::runtime_error)
        << bad;
}

TEST(FuzzRegressions, ScenarioInputsRunOrFailNamingTheirSource) {
  const std::vector<fs::path> files = inputs("scenario");
  ASSERT_GE(files.size(), 3u);
  const test::ScratchDir dir("fuzz_regressions");
  for (const fs::path& f : files) {
    const std::string source = f.filename().string();
    try {
      ScenarioOverrides o;
      o.duration = 0.005;  // as the harness (tests/fuzz/fuzz_scenario.cpp)
      o.out_dir = dir.path();
      Scenario s = parse_scenario(read_bytes(f), source, fs::path(ARTICULA_MODELS_DIR).parent_path() / "scenarios", o);
      s.outputs.clear();
      (void)run_scenario(s);
    } catch (const std::exception& e) {
      EXPECT_NE(std::string(e.what()).find(source), std::string::npos) << e.what();
    }
  }
}

// A CLI input is one argument per line (tests/fuzz/fuzz_cli.cpp); here the real CLI runs it.
TEST(FuzzRegressions, CliInputsExitWithACodeNotASignal) {
  const std::vector<fs::path> files = inputs("cli");
  ASSERT_GE(files.size(), 3u);
  for (const fs::path& f : files) {
    std::istringstream lines(read_bytes(f));
    std::string args, word;
    while (std::getline(lines, word)) {
      std::string q = "'";
      for (char c : word) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
      args += q + "' ";
    }
    const test::CliResult r = test::run_cli(args);
    EXPECT_TRUE(r.code == 0 || r.code == 1 || r.code == 2) << f << ": " << r.code << "\n" << r.output;
  }
}

}  // namespace
}  // namespace articula
