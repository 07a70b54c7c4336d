// The command line against hostile and clumsy input (issue 16), as a child process: the file's
// `joint_limits` without a flag, a file-size limit (`ulimit -f`), output paths that cannot be
// written, inputs that are not files (FIFO, /dev/zero, a folder), `codegen --name`, the limits
// of `estop`, and Ctrl-C in the long commands (exit 130).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "test_support.hpp"

namespace articula {
namespace {
namespace fs = std::filesystem;

std::string quoted(const std::string& s) { return "'" + s + "'"; }
bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string write_scenario(const test::ScratchDir& dir, const std::string& name, const std::string& body) {
  const std::string path = dir.path() + "/" + name + ".yaml";
  std::ofstream(path) << "model: {urdf: '" << test::model_path("pendulum3r") << "'}\n" << body;
  return path;
}

TEST(RobustCli, JointLimitsInTheFileApplyWithoutAFlagAndTheFlagOverridesThem) {
  const test::ScratchDir dir("cli_limits");
  const std::string file = write_scenario(dir, "swing",
                                          "initial: {q: {joint2: 3.0}, v: {joint2: 4.0}}\nduration: 0.1\n"
                                          "joint_limits: true\n");
  const test::CliResult plain = test::run_cli("run " + quoted(file) + " -q -o " + quoted(dir.path() + "/plain"));
  EXPECT_EQ(plain.code, 0) << plain.output;
  EXPECT_TRUE(contains(read_text(dir.path() + "/plain/run.events.csv"), "limit.joint2.upper")) << plain.output;
  const test::CliResult off =
      test::run_cli("run " + quoted(file) + " --no-joint-limits -q -o " + quoted(dir.path() + "/off"));
  EXPECT_EQ(off.code, 0) << off.output;
  EXPECT_FALSE(contains(read_text(dir.path() + "/off/run.events.csv"), "limit.joint2")) << off.output;
}

// `ulimit -f`: the run ends with exit 1 (the run failed) instead of dying by SIGXFSZ; the
// status file says `error` with the reason, the CSV holds whole rows, no temporary file stays.
TEST(RobustCli, AFileSizeLimitIsAWriteErrorNotASignal) {
  const test::ScratchDir dir("cli_fsize");
  const std::string file = write_scenario(dir, "long", "duration: 2\n");
  const std::string out = dir.path() + "/out";
  // dash counts `ulimit -f` in 512-byte blocks: 64 KiB.
  const std::string cmd = "ulimit -f 128; exec '" + std::string(ARTICULA_CLI_PATH) + "' run -q " + quoted(file) +
                          " -o " + quoted(out) + " 2>&1";
  FILE* pipe = ::popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  std::array<char, 4096> buf;
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) output.append(buf.data(), n);
  const int status = ::pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status)) << "ended by a signal: " << status << "\n" << output;
  EXPECT_EQ(WEXITSTATUS(status), 1) << output;
  EXPECT_TRUE(contains(output, "File too large")) << output;
  const std::string yaml = read_text(out + "/run.status.yaml");
  EXPECT_EQ(yaml.rfind("status: error\n", 0), 0u) << yaml;
  EXPECT_TRUE(contains(yaml, "File too large")) << yaml;
  EXPECT_FALSE(fs::exists(out + "/run.status.yaml.tmp"));
  const std::string csv = read_text(out + "/run.csv");
  ASSERT_FALSE(csv.empty());
  EXPECT_EQ(csv.back(), '\n');
  EXPECT_LE(csv.size(), 64u * 1024u);
  std::istringstream lines(csv);
  std::string line;
  std::getline(lines, line);
  const auto fields = std::count(line.begin(), line.end(), ',');
  long rows = 0;
  while (std::getline(lines, line)) {
    ASSERT_EQ(std::count(line.begin(), line.end(), ','), fields) << "row " << rows;
    ++rows;
  }
  EXPECT_TRUE(contains(yaml, "\nrows: " + std::to_string(rows) + "\n")) << yaml;
}

TEST(RobustCli, ALogThatCannotBeOpenedIsBadInputExit2) {
  const test::ScratchDir dir("cli_unwritable");
  const std::string file = write_scenario(dir, "short", "duration: 0.01\n");
  fs::create_directories(dir.path() + "/taken/run.csv");  // a folder where the log should be
  const test::CliResult taken = test::run_cli("run -q " + quoted(file) + " -o " + quoted(dir.path() + "/taken"));
  EXPECT_EQ(taken.code, 2) << taken.output;
  EXPECT_TRUE(contains(taken.output, dir.path() + "/taken/run.csv': a folder is in its place")) << taken.output;
  std::ofstream(dir.path() + "/plain_file") << "x";  // -o names a file
  const test::CliResult file_out =
      test::run_cli("run -q " + quoted(file) + " -o " + quoted(dir.path() + "/plain_file"));
  EXPECT_EQ(file_out.code, 2) << file_out.output;
  EXPECT_TRUE(contains(file_out.output, dir.path() + "/plain_file")) << file_out.output;
  const test::CliResult estop = test::run_cli("estop --pendulum --duration 1 -o " + quoted(dir.path() + "/plain_file"));
  EXPECT_EQ(estop.code, 2) << estop.output;
  EXPECT_TRUE(contains(estop.output, dir.path() + "/plain_file")) << estop.output;
  fs::create_directories(dir.path() + "/estop/estop_naive.csv");
  const test::CliResult estop_taken =
      test::run_cli("estop --pendulum --duration 1 -o " + quoted(dir.path() + "/estop"));
  EXPECT_EQ(estop_taken.code, 2) << estop_taken.output;
  EXPECT_TRUE(contains(estop_taken.output, "estop_naive.csv': a folder is in its place")) << estop_taken.output;
}

TEST(RobustCli, InputsThatAreNotFilesAreNamedAndNeverRead) {
  const test::ScratchDir dir("cli_not_files");
  const std::string fifo = dir.path() + "/robot.urdf";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);  // nobody writes: reading it would block for ever
  const std::vector<std::pair<std::string, std::string>> inputs = {
      {fifo, "a FIFO"}, {"/dev/zero", "character device"}, {dir.path(), "a directory"}};
  for (const auto& [path, what] : inputs)
    for (const std::string& cmd : {"info " + quoted(path), "bench " + quoted(path) + " --states 1",
                                   "codegen " + quoted(path) + " --name robot -o " + quoted(dir.path() + "/gen"),
                                   "estop --model " + quoted(path)}) {
      const test::CliResult r = test::run_cli(cmd);
      EXPECT_EQ(r.code, 2) << cmd << "\n" << r.output;
      EXPECT_TRUE(contains(r.output, path)) << cmd << "\n" << r.output;
      EXPECT_TRUE(contains(r.output, what)) << cmd << "\n" << r.output;
    }
}

TEST(RobustCli, CodegenNameMustBeACppIdentifierAndNotAKeyword) {
  const test::ScratchDir dir("cli_codegen_name");
  const std::string model = quoted(test::model_path("pendulum3r"));
  for (const auto& [name, why] :
       std::vector<std::pair<std::string, std::string>>{{"class", "a C++ keyword"},
                                                        {"9lives", "not a C++ identifier"},
                                                        {"my-robot", "not a C++ identifier"},
                                                        {"a b", "not a C++ identifier"},
                                                        {"../x", "not a C++ identifier"},
                                                        {"my__robot", "a reserved identifier"},
                                                        {"_Robot", "a reserved identifier"}}) {
    const test::CliResult r =
        test::run_cli("codegen " + model + " --name " + quoted(name) + " -o " + quoted(dir.path()));
    EXPECT_EQ(r.code, 2) << name << "\n" << r.output;
    EXPECT_TRUE(contains(r.output, "--name '" + name + "' is " + why)) << r.output;
  }
  EXPECT_TRUE(fs::is_empty(dir.path())) << "nothing written for a bad name";
  const test::CliResult ok = test::run_cli("codegen " + model + " --name pendulum_2 -q -o " + quoted(dir.path()));
  EXPECT_EQ(ok.code, 0) << ok.output;
  EXPECT_TRUE(fs::exists(dir.path() + "/pendulum_2.hpp"));
}

// A write error (the temporary file is /dev/full) fails the command naming the file and leaves
// neither the temporary nor a half-written kernel.
TEST(RobustCli, CodegenWriteErrorLeavesNoTemporaryFile) {
  if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no /dev/full";
  const test::ScratchDir dir("cli_codegen_full");
  const std::string tmp = dir.path() + "/pendulum_2.hpp.tmp";
  fs::create_symlink("/dev/full", tmp);
  const test::CliResult r = test::run_cli("codegen " + quoted(test::model_path("pendulum3r")) +
                                          " --name pendulum_2 -q -o " + quoted(dir.path()));
  EXPECT_NE(r.code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "pendulum_2.hpp.tmp")) << r.output;
  EXPECT_FALSE(fs::exists(fs::symlink_status(tmp))) << "the temporary is removed";
  EXPECT_FALSE(fs::exists(dir.path() + "/pendulum_2.hpp"));
}

TEST(RobustCli, EstopRefusesRunsThatCouldNeverEnd) {
  const test::CliResult dt = test::run_cli("estop --pendulum --dt 1e-300");
  EXPECT_EQ(dt.code, 2) << dt.output;
  EXPECT_TRUE(contains(dt.output, "--dt must be >= 1e-12 s")) << dt.output;
  EXPECT_TRUE(contains(dt.output, "1e-300")) << dt.output;
  const test::CliResult duration = test::run_cli("estop --pendulum --duration 1e12");
  EXPECT_EQ(duration.code, 2) << duration.output;
  EXPECT_TRUE(contains(duration.output, "--duration 1e+12 s")) << duration.output;
  EXPECT_TRUE(contains(duration.output, "limit of 1e+07")) << duration.output;
}

// Starts the CLI with `args`, waits `delay`, sends SIGINT and returns the wait status.
int interrupt_after(const std::vector<std::string>& args, std::chrono::milliseconds delay) {
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, STDOUT_FILENO);
    ::dup2(null, STDERR_FILENO);
    std::vector<char*> argv = {const_cast<char*>(ARTICULA_CLI_PATH)};
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    ::execv(ARTICULA_CLI_PATH, argv.data());
    ::_exit(127);
  }
  // Wait until the command has installed its SIGINT handler (bit 1 of SigCgt in
  // /proc/PID/status; slow under the sanitizers), then give it `delay` to get going.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  auto catches_sigint = [pid] {
    std::ifstream status("/proc/" + std::to_string(pid) + "/status");
    std::string line;
    while (std::getline(status, line))
      if (line.rfind("SigCgt:", 0) == 0)
        return (std::stoull(line.substr(7), nullptr, 16) & (1ull << (SIGINT - 1))) != 0;
    return false;
  };
  while (!catches_sigint() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::this_thread::sleep_for(delay);
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

TEST(RobustCli, CtrlCEndsTheLongCommandsWithExitCode130) {
  const test::ScratchDir dir("cli_ctrl_c");
  // estop: the study (nothing open yet) or the logged run (its log finished as `interrupted`).
  const int estop = interrupt_after({"estop", "--pendulum", "--duration", "20", "--dt", "1e-5", "-o", dir.path()},
                                    std::chrono::milliseconds(100));
  ASSERT_TRUE(WIFEXITED(estop)) << "killed by the signal: " << estop;
  EXPECT_EQ(WEXITSTATUS(estop), 130);
  for (const char* log : {"/estop_consistent.status.yaml", "/estop_naive.status.yaml"})
    if (fs::exists(dir.path() + log)) {
      const std::string yaml = read_text(dir.path() + log);
      EXPECT_TRUE(yaml.rfind("status: interrupted\n", 0) == 0 || yaml.rfind("status: completed\n", 0) == 0) << yaml;
    }
  const int bench = interrupt_after({"bench", test::model_path("talos_reduced"), "--states", "1000000"},
                                    std::chrono::milliseconds(100));
  ASSERT_TRUE(WIFEXITED(bench)) << "killed by the signal: " << bench;
  EXPECT_EQ(WEXITSTATUS(bench), 130);
}

}  // namespace
}  // namespace articula
