// `articula view` against bad input (issue 21): each is exit code 2 with the problem named — a
// missing URDF or scenario, a log whose columns do not match the model, logs of different
// robots overlaid — and no page is left behind. A good pair of logs writes one page.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "test_support.hpp"

namespace articula {
namespace {
namespace fs = std::filesystem;

std::string sh(const std::string& s) { return "'" + s + "'"; }
bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(ViewCli, BadInputIsExit2WithTheProblemNamed) {
  const test::ScratchDir dir("cli_view");
  const std::string scenarios = std::string(ARTICULA_MODELS_DIR) + "/../scenarios/";
  const std::string pendulum = scenarios + "pendulum3r_locking.yaml", segway = scenarios + "segway_balance.yaml";
  ASSERT_EQ(test::run_cli("run -q " + sh(pendulum) + " --duration 0.05 -o " + sh(dir.path() + "/p")).code, 0);
  ASSERT_EQ(test::run_cli("run -q " + sh(segway) + " --duration 0.05 -o " + sh(dir.path() + "/s")).code, 0);
  // The run logs themselves (not their .events.csv or .status.yaml).
  const auto run_log = [](const std::string& folder) {
    for (const auto& e : fs::directory_iterator(folder)) {
      const fs::path p = e.path();
      if ((p.extension() == ".csv" || p.extension() == ".h5") && p.stem().extension().empty()) return p.string();
    }
    return std::string();
  };
  const std::string plog = run_log(dir.path() + "/p"), slog = run_log(dir.path() + "/s");
  ASSERT_FALSE(plog.empty());
  ASSERT_FALSE(slog.empty());
  const std::string page = dir.path() + "/page.html";

  const test::CliResult no_urdf =
      test::run_cli("view " + sh(plog) + " --model " + sh(dir.path() + "/none.urdf") + " -o " + sh(page));
  EXPECT_EQ(no_urdf.code, 2) << no_urdf.output;
  EXPECT_TRUE(contains(no_urdf.output, "none.urdf")) << no_urdf.output;

  const test::CliResult other_model =
      test::run_cli("view " + sh(plog) + " --model " + sh(test::model_path("ur5")) + " -o " + sh(page));
  EXPECT_EQ(other_model.code, 2) << other_model.output;
  EXPECT_TRUE(contains(other_model.output, "does not match model")) << other_model.output;

  const test::CliResult mixed =
      test::run_cli("view " + sh(plog) + " " + sh(slog) + " --scenario " + sh(pendulum) + " -o " + sh(page));
  EXPECT_EQ(mixed.code, 2) << mixed.output;
  EXPECT_TRUE(contains(mixed.output, slog + "'")) << mixed.output;
  EXPECT_TRUE(contains(mixed.output, "does not match model")) << mixed.output;

  const test::CliResult no_robot = test::run_cli("view " + sh(plog) + " -o " + sh(page));
  EXPECT_EQ(no_robot.code, 2) << no_robot.output;
  EXPECT_TRUE(contains(no_robot.output, "--scenario")) << no_robot.output;
  EXPECT_FALSE(fs::exists(page));
  EXPECT_FALSE(fs::exists(page + ".tmp"));
}

}  // namespace
}  // namespace articula
