// Telemetry sinks when the disk refuses data (issue 16): a file-size limit hit in the middle of a
// row, and a device that is always full. The CSV must hold whole rows only, the status file must
// end as `error` with the reason, and no temporary status file may be left behind.
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "articula/engine/telemetry.hpp"
#include "test_support.hpp"

namespace articula {
namespace {
namespace fs = std::filesystem;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every line of `csv` ends with '\n' and has `fields` comma-separated fields; returns the data
// rows (lines after the header).
long whole_rows(const std::string& csv, long fields) {
  EXPECT_FALSE(csv.empty());
  if (csv.empty()) return -1;
  EXPECT_EQ(csv.back(), '\n') << "the last row is cut";
  std::istringstream lines(csv);
  std::string line;
  long rows = -1;  // the header is not a row
  while (std::getline(lines, line)) {
    EXPECT_EQ(std::count(line.begin(), line.end(), ',') + 1, fields) << "line " << rows + 2 << ": " << line;
    ++rows;
  }
  return rows;
}

TEST(TelemetryFaults, AFileSizeLimitLeavesWholeRowsAndStatusError) {
  const test::ScratchDir dir("telemetry_fsize");
  const std::string path = dir.path() + "/run.csv";
  const long limit = 10000;  // bytes: the limit falls inside a block of rows, mid-row
  const int code = test::exit_code_with_file_size_limit(limit, [&] {
    auto log = make_csv_log(path, 1e9);
    log->begin({"t", "x", "y"});
    std::vector<double> row = {0.0, 1.0 / 3.0, -2.0 / 7.0};
    try {
      for (int i = 0; i < 20000; ++i) {
        row[0] = 1e-3 * i;
        log->append(row);
      }
    } catch (const std::runtime_error&) {
      // seen while appending: finish() below must still record it
    }
    try {
      log->finish({.status = "completed", .message = "reached t_end", .t_end = 20.0, .steps = 20000});
    } catch (const std::runtime_error& e) {
      return std::string(e.what()).find("File too large") != std::string::npos ? 0 : 2;
    }
    return 1;  // finish() must report the write error
  });
  ASSERT_EQ(code, 0) << "1: finish() did not throw, 2: its message lacks the reason, 100: another exception";
  const std::string csv = read_file(path);
  EXPECT_LE(static_cast<long>(csv.size()), limit);
  const long rows = whole_rows(csv, 3);
  EXPECT_GT(rows, 100);
  const std::string status = read_file(dir.path() + "/run.status.yaml");
  EXPECT_EQ(status.rfind("status: error\n", 0), 0u) << status;
  EXPECT_NE(status.find("File too large"), std::string::npos) << status;
  EXPECT_NE(status.find(path), std::string::npos) << status;
  EXPECT_NE(status.find("(the run: reached t_end)"), std::string::npos) << status;
  EXPECT_NE(status.find("\nrows: " + std::to_string(rows) + "\n"), std::string::npos) << status;
  EXPECT_FALSE(fs::exists(dir.path() + "/run.status.yaml.tmp"));
  EXPECT_EQ(whole_rows(read_file(dir.path() + "/run.events.csv"), 8), 0);
}

// The caller saw the error first (the simulator stops the run with status `error`): finish()
// records that status and message and does not throw again.
TEST(TelemetryFaults, AnErrorStatusGivenToFinishIsKept) {
  const test::ScratchDir dir("telemetry_fsize_error");
  const std::string path = dir.path() + "/run.csv";
  const int code = test::exit_code_with_file_size_limit(6000, [&] {
    auto log = make_csv_log(path, 1e9);
    log->begin({"t", "x"});
    std::string error;
    for (int i = 0; i < 200000 && error.empty(); ++i) {
      try {
        log->append(std::vector<double>{1e-3 * i, 0.125 * i});
      } catch (const std::runtime_error& e) {
        error = e.what();
      }
    }
    if (error.empty()) return 1;
    log->finish({.status = "error", .message = "error: " + error, .t_end = 1.0, .steps = 1});
    return 0;
  });
  ASSERT_EQ(code, 0) << "1: no write error seen, 100: finish() threw";
  whole_rows(read_file(path), 2);
  const std::string status = read_file(dir.path() + "/run.status.yaml");
  EXPECT_EQ(status.rfind("status: error\nmessage: \"error: CSV log: cannot write", 0), 0u) << status;
  EXPECT_EQ(status.find("(the run:"), std::string::npos) << "no second copy of the error: " << status;
  EXPECT_FALSE(fs::exists(dir.path() + "/run.status.yaml.tmp"));
}

// A log whose file is a full device: begin() fails, and the status file says why.
TEST(TelemetryFaults, AFullDeviceIsAnErrorInTheStatusFile) {
  if (::access("/dev/full", W_OK) != 0) GTEST_SKIP() << "no /dev/full";
  const test::ScratchDir dir("telemetry_full");
  const std::string path = dir.path() + "/run.csv";
  fs::create_symlink("/dev/full", path);
  auto log = make_csv_log(path, 1e9);
  try {
    log->begin({"t", "x"});
    ADD_FAILURE() << "begin() wrote to /dev/full";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("No space left on device"), std::string::npos) << e.what();
  }
  const std::string status = read_file(dir.path() + "/run.status.yaml");
  EXPECT_EQ(status.rfind("status: error\n", 0), 0u) << status;
  EXPECT_NE(status.find("No space left on device"), std::string::npos) << status;
  EXPECT_FALSE(fs::exists(dir.path() + "/run.status.yaml.tmp"));
}

// check_log_target(): what `articula run` checks before a run (a bad output path is exit 2).
TEST(TelemetryFaults, LogTargetsThatCannotBeWrittenAreFoundBeforeTheRun) {
  const test::ScratchDir dir("telemetry_target");
  EXPECT_NO_THROW(check_log_target(LogFormat::Csv, dir.path() + "/run"));
  fs::create_directory(dir.path() + "/run.csv");
  try {
    check_log_target(LogFormat::Csv, dir.path() + "/run");
    ADD_FAILURE() << "a folder named run.csv was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find(dir.path() + "/run.csv': a folder is in its place"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(check_log_target(LogFormat::Hdf5, dir.path() + "/missing/run"), std::runtime_error);
  std::ofstream(dir.path() + "/plain") << "x";
  EXPECT_THROW(check_log_target(LogFormat::Hdf5, dir.path() + "/plain/run"), std::runtime_error);
}

}  // namespace
}  // namespace articula
