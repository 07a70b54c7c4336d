// The `articula` command-line front end (cli/), run as a child process: `info` prints the
// model's joints and sizes, `bench` prints its table, bad input exits with code 2 and a message.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

#include "test_models.hpp"

namespace articula {
namespace {

std::string quoted(const std::string& s) { return "'" + s + "'"; }

TEST(Cli, InfoPrintsJointsAndSizes) {
  const test::CliResult r = test::run_cli("info " + quoted(test::model_path("ur5")));
  ASSERT_EQ(r.code, 0) << r.output;
  for (const char* j :
       {"shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint", "wrist_1_joint", "wrist_2_joint", "wrist_3_joint"})
    EXPECT_NE(r.output.find(j), std::string::npos) << j << " missing from:\n" << r.output;
  EXPECT_NE(r.output.find("nv 6"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("nq 6"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("tool0"), std::string::npos) << "frames are listed:\n" << r.output;
}

TEST(Cli, InfoFloating) {
  const test::CliResult r = test::run_cli("info --floating " + quoted(test::model_path("solo12")));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("nq 19  nv 18"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("root_joint"), std::string::npos) << r.output;
}

TEST(Cli, BenchPrintsATable) {
  const test::CliResult r = test::run_cli("bench " + quoted(test::model_path("pendulum3r")) + " --states 4 --seed 7");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("4 random states"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("median ns/call"), std::string::npos) << r.output;
  for (const char* row : {"rnea", "crba", "aba", "nonlinear_effects", "center_of_mass_jacobian"})
    EXPECT_NE(r.output.find(row), std::string::npos) << row << " missing from:\n" << r.output;
}

TEST(Cli, MissingFileExitsWithCode2AndNamesTheFile) {
  const std::string path = "/nonexistent/articula_cli_test_robot.urdf";
  for (const char* cmd : {"info ", "bench "}) {
    const test::CliResult r = test::run_cli(cmd + quoted(path));
    EXPECT_EQ(r.code, 2) << cmd << r.output;
    EXPECT_NE(r.output.find(path), std::string::npos) << r.output;
  }
}

TEST(Cli, BadUsageExitsWithCode2) {
  EXPECT_EQ(test::run_cli("").code, 2);
  const test::CliResult unknown = test::run_cli("frobnicate");
  EXPECT_EQ(unknown.code, 2);
  EXPECT_NE(unknown.output.find("unknown command 'frobnicate' (commands: info, bench, estop, run"), std::string::npos)
      << unknown.output;
  EXPECT_EQ(test::run_cli("no_such_command").code, 2);
  EXPECT_EQ(test::run_cli("bench " + quoted(test::model_path("pendulum3r")) + " --states 0").code, 2);
  EXPECT_EQ(test::run_cli("info").code, 2);
}

TEST(Cli, HelpAndVersionExitWithZero) {
  const test::CliResult help = test::run_cli("--help");
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.output.find("info"), std::string::npos) << help.output;
  EXPECT_NE(help.output.find("bench"), std::string::npos) << help.output;
  const test::CliResult version = test::run_cli("--version");
  EXPECT_EQ(version.code, 0);
  EXPECT_NE(version.output.find("articula"), std::string::npos) << version.output;
}

}  // namespace
}  // namespace articula
