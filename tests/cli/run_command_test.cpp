// `articula run SCENARIO.yaml` as a child process: the summary (events with energies, final
// state, status, real-time factor, logs), the overrides (-o, --format, --jump, --duration) and
// the exit codes (0 done, 1 run failed, 2 bad usage or bad input, 130 interrupted).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "test_support.hpp"

namespace articula {
namespace {
namespace fs = std::filesystem;

std::string quoted(const std::string& s) { return "'" + s + "'"; }

std::string bundled(const std::string& stem) {
  return (fs::path(ARTICULA_MODELS_DIR).parent_path() / "scenarios" / (stem + ".yaml")).string();
}

std::string fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(testing::TempDir()) / "articula_run_command_test" / name;
  fs::remove_all(dir);
  return dir.string();
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(RunCommand, PrintsTheSummaryAndWritesTheLog) {
  const std::string dir = fresh_dir("pendulum");
  const test::CliResult r = test::run_cli("run " + quoted(bundled("pendulum3r_locking")) + " -o " + quoted(dir));
  ASSERT_EQ(r.code, 0) << r.output;
  for (const char* part :
       {"pendulum3r_locking", "3R pendulum falling", "lock_joint2", "lock_joint3", "KE before", "mom. residual",
        "Final state at t = 1 s", "joint1 ", "completed", "real-time factor", "wall time"})
    EXPECT_TRUE(contains(r.output, part)) << part << " missing from:\n" << r.output;
  EXPECT_TRUE(fs::exists(dir + "/run.csv"));
  EXPECT_TRUE(fs::exists(dir + "/run.events.csv"));
  EXPECT_TRUE(contains(r.output, dir + "/run.csv")) << r.output;
}

TEST(RunCommand, OverridesFormatJumpAndDuration) {
  const std::string dir = fresh_dir("estop");
  const test::CliResult r = test::run_cli("run " + quoted(bundled("estop_consistent")) + " -o " + quoted(dir) +
                                          " --format hdf5 --jump naive --duration 0.12");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(fs::exists(dir + "/run.h5"));
  EXPECT_FALSE(fs::exists(dir + "/run.csv"));
  EXPECT_TRUE(contains(r.output, "jump naive")) << r.output;
  EXPECT_TRUE(contains(r.output, "brake_2")) << r.output;
  EXPECT_FALSE(contains(r.output, "brake_3")) << "0.15 s is past the 0.12 s run:\n" << r.output;
  EXPECT_TRUE(contains(r.output, "Final state at t = 0.12 s")) << r.output;
}

TEST(RunCommand, AFailedRunExitsWith1) {
  const fs::path dir = fresh_dir("failing");
  fs::create_directories(dir);
  const std::string file = (dir / "explodes.yaml").string();
  std::ofstream(file) << "description: the pendulum falls faster than max_speed allows\n"
                      << "model: {urdf: '" << test::model_path("pendulum3r") << "'}\n"
                      << "integrator: {max_speed: 0.5}\nduration: 1\n";
  const test::CliResult r = test::run_cli("run " + quoted(file) + " -o " + quoted((dir / "out").string()));
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "exploded")) << r.output;
  EXPECT_TRUE(fs::exists(dir / "out" / "run.status.yaml"));  // the log of the failed run is kept
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(RunCommand, JointLimitsFlagTurnsTheStopsOnAndOff) {
  const fs::path dir = fresh_dir("limits");
  fs::create_directories(dir);
  const std::string file = (dir / "swing.yaml").string();
  std::ofstream(file) << "description: joint2 starts near its +pi limit, moving up\n"
                      << "model: {urdf: '" << test::model_path("pendulum3r") << "'}\n"
                      << "initial: {q: {joint2: 3.0}, v: {joint2: 4.0}}\nduration: 0.1\n";
  const test::CliResult on =
      test::run_cli("run " + quoted(file) + " --joint-limits -q -o " + quoted((dir / "on").string()));
  EXPECT_EQ(on.code, 0) << on.output;
  EXPECT_TRUE(contains(read_text((dir / "on" / "run.events.csv").string()), "limit.joint2.upper")) << on.output;
  const test::CliResult off =
      test::run_cli("run " + quoted(file) + " --no-joint-limits -q -o " + quoted((dir / "off").string()));
  EXPECT_EQ(off.code, 0) << off.output;
  EXPECT_FALSE(contains(read_text((dir / "off" / "run.events.csv").string()), "limit.joint2")) << off.output;
}

// Ctrl-C during a long run: exit code 130, the log finished with status `interrupted`, every
// line of the CSV complete.
TEST(RunCommand, CtrlCStopsTheRunCleanlyWithExitCode130) {
  const std::string dir = fresh_dir("interrupted");
  const std::string scenario = bundled("pendulum3r_locking");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, STDOUT_FILENO);
    ::dup2(null, STDERR_FILENO);
    ::execl(ARTICULA_CLI_PATH, ARTICULA_CLI_PATH, "run", scenario.c_str(), "-o", dir.c_str(), "--duration", "1e5",
            static_cast<char*>(nullptr));
    ::_exit(127);
  }
  // Wait for rows in the log (the run has started), then send SIGINT.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  auto lines_in_log = [&] {
    const std::string text = read_text(dir + "/run.csv");
    return std::count(text.begin(), text.end(), '\n');
  };
  while (lines_in_log() < 3 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ::kill(pid, SIGINT);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status)) << "killed by the signal instead of stopping: " << status;
  EXPECT_EQ(WEXITSTATUS(status), 130);
  const std::string yaml = read_text(dir + "/run.status.yaml");
  EXPECT_EQ(yaml.rfind("status: interrupted\n", 0), 0u) << yaml;
  const std::string csv = read_text(dir + "/run.csv");
  ASSERT_FALSE(csv.empty());
  EXPECT_EQ(csv.back(), '\n');
  std::istringstream lines(csv);
  std::string line;
  std::getline(lines, line);
  const auto fields = std::count(line.begin(), line.end(), ',');
  int rows = 0;
  while (std::getline(lines, line)) {
    ASSERT_EQ(std::count(line.begin(), line.end(), ','), fields) << "row " << rows;
    ++rows;
  }
  EXPECT_GE(rows, 3);
}

TEST(RunCommand, BadUsageExitsWith2) {
  EXPECT_EQ(test::run_cli("run").code, 2);
  EXPECT_EQ(test::run_cli("run " + quoted(bundled("pendulum3r_locking")) + " --format xml").code, 2);
  EXPECT_EQ(test::run_cli("run " + quoted(bundled("pendulum3r_locking")) + " --jump sideways").code, 2);
  const test::CliResult negative = test::run_cli("run " + quoted(bundled("pendulum3r_locking")) + " --duration -1");
  EXPECT_EQ(negative.code, 2) << negative.output;
  EXPECT_TRUE(contains(negative.output, "--duration")) << negative.output;
  const test::CliResult missing = test::run_cli("run /nonexistent/articula_no_such_scenario.yaml");
  EXPECT_EQ(missing.code, 2) << missing.output;
  EXPECT_TRUE(contains(missing.output, "/nonexistent/articula_no_such_scenario.yaml")) << missing.output;
}

}  // namespace
}  // namespace articula
