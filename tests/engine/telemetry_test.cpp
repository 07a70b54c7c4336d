// Telemetry sinks: CSV and HDF5 files read back and compared bit for bit, the events and status
// files, misuse, a run killed with SIGKILL, and the plot tool (tools/plot_log.py).
#include "articula/engine/telemetry.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <bit>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <numbers>
#include <random>
#include <sstream>
#include <thread>

#include "test_models.hpp"

namespace articula {
namespace {

namespace fs = std::filesystem;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Each test gets a fresh directory, removed afterwards.
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "articula_telemetry_XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string file(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};
using TelemetryCsv = TempDirTest;
using TelemetryHdf5 = TempDirTest;
using TelemetryPlot = TempDirTest;

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// RFC 4180 records: quoted fields may hold commas, doubled quotes and line breaks.
std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> records(1, std::vector<std::string>(1));
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted && c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
      records.back().back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (!quoted && c == ',') {
      records.back().emplace_back();
    } else if (!quoted && c == '\n') {
      records.emplace_back(1);
    } else {
      records.back().back() += c;
    }
  }
  if (records.back() == std::vector<std::string>(1)) records.pop_back();  // after the last '\n'
  return records;
}

// The whole field as a double, or a failed expectation.
double number(const std::string& field) {
  double x = 0.0;
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), x);
  EXPECT_TRUE(ec == std::errc() && end == field.data() + field.size()) << "not a number: '" << field << "'";
  return x;
}

// Bit-exact equality, any NaN equal to any NaN (the CSV writes them all as `nan`).
::testing::AssertionResult same_double(double a, double b) {
  if ((std::isnan(a) && std::isnan(b)) || std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << std::hexfloat << a << " != " << b;
}

// Rows of awkward values: specials, subnormals, extremes, then random bit patterns.
std::vector<std::vector<double>> tricky_rows(std::size_t n, std::size_t columns) {
  const std::vector<double> specials = {
      0.0,  -0.0,  0.1,  1.0 / 3.0, std::numbers::pi,      -1e300, 5e-324, 2.2250738585072014e-308, 1e-310,
      kNaN, -kNaN, kInf, -kInf,     1.7976931348623157e308};
  std::mt19937_64 rng(42);
  std::vector<std::vector<double>> rows(n, std::vector<double>(columns));
  for (std::size_t r = 0; r < n; ++r) {
    rows[r][0] = 1e-3 * static_cast<double>(r);  // t
    for (std::size_t c = 1; c < columns; ++c) {
      const std::size_t k = r * (columns - 1) + c - 1;
      rows[r][c] = k < specials.size() ? specials[k] : std::bit_cast<double>(rng());
    }
  }
  return rows;
}

EventLogRow event_row(double time, const std::string& name, const std::string& actions = "") {
  EventLogRow e;
  e.time = time;
  e.name = name;
  e.actions = actions;
  return e;
}

TEST(TelemetryFormat, NamesRoundTripAndFactoryPicksTheExtension) {
  EXPECT_EQ(parse_log_format("csv"), LogFormat::Csv);
  EXPECT_EQ(parse_log_format("hdf5"), LogFormat::Hdf5);
  EXPECT_EQ(parse_log_format("h5"), LogFormat::Hdf5);
  EXPECT_EQ(parse_log_format(to_string(LogFormat::Csv)), LogFormat::Csv);
  EXPECT_EQ(parse_log_format(to_string(LogFormat::Hdf5)), LogFormat::Hdf5);
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([] { parse_log_format("json"); }, {"json", "csv", "hdf5"}));
  EXPECT_EQ(make_log(LogFormat::Csv, "/tmp/x/run")->path(), "/tmp/x/run.csv");
  EXPECT_EQ(make_log(LogFormat::Hdf5, "/tmp/x/run")->path(), "/tmp/x/run.h5");
  EXPECT_TRUE(test::throws_with<std::invalid_argument>([] { check_log_columns({"t", "x", "t"}, "f"); }, {"'t'"}));
  EXPECT_THROW(check_log_columns({"t", ""}, "f"), std::invalid_argument);
  EXPECT_THROW(check_log_columns({}, "f"), std::invalid_argument);
}

TEST_F(TelemetryCsv, RoundTripIsBitExact) {
  const std::vector<std::string> columns = {"t", "q.joint_1", "lambda.brake_1.0", "odd,\"name\""};
  const auto rows = tricky_rows(15000, columns.size());  // 60000 numbers: several writer blocks
  const std::string path = file("run.csv");
  auto log = make_csv_log(path, 1e9);  // only full blocks and flush() write
  log->begin(columns);
  for (std::size_t r = 0; r < 9000; ++r) log->append(rows[r]);
  // flush(): every row appended so far is out, in whole lines.
  log->flush();
  const std::string partial = read_file(path);
  ASSERT_FALSE(partial.empty());
  EXPECT_EQ(partial.back(), '\n');
  EXPECT_EQ(parse_csv(partial).size(), 9001u);
  for (std::size_t r = 9000; r < rows.size(); ++r) log->append(rows[r]);

  log->finish({.status = "completed", .message = "", .t_end = 14.999, .steps = 15000});
  const auto records = parse_csv(read_file(path));
  ASSERT_EQ(records.size(), rows.size() + 1);
  EXPECT_EQ(records[0], columns);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    ASSERT_EQ(records[r + 1].size(), columns.size()) << "row " << r;
    for (std::size_t c = 0; c < columns.size(); ++c) {
      EXPECT_TRUE(same_double(number(records[r + 1][c]), rows[r][c])) << "row " << r << " column " << c;
      if (std::isnan(rows[r][c])) {
        EXPECT_EQ(records[r + 1][c], "nan");
      }
    }
  }
}

TEST_F(TelemetryCsv, EventsAndStatusFiles) {
  const std::string path = file("run.csv");
  auto log = make_csv_log(path);
  log->begin({"t", "x"});
  EXPECT_EQ(read_file(file("run.status.yaml")), "status: running\nmessage: \"\"\n");
  const std::string header =
      "time,name,actions,kinetic_before,kinetic_after,potential,momentum_residual,constraint_residual\n";
  EXPECT_EQ(read_file(file("run.events.csv")), header);

  log->append(std::vector<double>{0.0, 1.0});
  const EventLogRow e{.time = 0.5,
                      .name = "brake \"A\", left",
                      .actions = "enable brake_1 (locks); set u.motor_1=0",
                      .kinetic_before = 2.5,
                      .kinetic_after = 1.25,
                      .potential = -3.0,
                      .momentum_residual = 1e-15,
                      .constraint_residual = kNaN};
  log->event(e);
  // Queued behind the rows before it; flush() returns when both are written.
  log->flush();
  const std::string events = read_file(file("run.events.csv"));
  EXPECT_NE(events.find(",\"brake \"\"A\"\", left\",enable brake_1"), std::string::npos) << events;
  const auto records = parse_csv(events);
  ASSERT_EQ(records.size(), 2u);
  ASSERT_EQ(records[1].size(), 8u);
  EXPECT_EQ(records[1][1], e.name);
  EXPECT_EQ(records[1][2], e.actions);
  const std::array<double, 6> expected = {0.5, 2.5, 1.25, -3.0, 1e-15, kNaN};
  const std::array<std::size_t, 6> at = {0, 3, 4, 5, 6, 7};
  for (std::size_t k = 0; k < at.size(); ++k) EXPECT_TRUE(same_double(number(records[1][at[k]]), expected[k]));
  EXPECT_EQ(read_file(path), "t,x\n0,1\n");

  log->append(std::vector<double>{1.0, 2.0});
  log->finish({.status = "completed", .message = "reached \"t_end\"\nat 1 s", .t_end = 1.0, .steps = 1000});
  EXPECT_EQ(read_file(path), "t,x\n0,1\n1,2\n");
  EXPECT_EQ(read_file(file("run.status.yaml")),
            "status: completed\nmessage: \"reached \\\"t_end\\\"\\nat 1 s\"\nt_end: 1\nsteps: 1000\nrows: 2\n");
  EXPECT_FALSE(fs::exists(file("run.status.yaml.tmp")));
}

// An earlier log at the path is replaced by a fresh file (not truncated in place), and deleted;
// a path that is a symbolic link is written through the link, the link kept.
TEST_F(TelemetryCsv, ReplacesAnEarlierLogAndWritesThroughASymlink) {
  const std::string path = file("run.csv");
  std::ofstream(path) << std::string(100000, 'x') << "\n";
  std::ifstream reader(path);  // a reader of the old log keeps the old content
  for (int pass = 0; pass < 2; ++pass) {
    auto log = make_csv_log(path);
    log->begin({"t", "x"});
    log->append(std::vector<double>{0.5, 2.0});
    log->finish({.status = "completed", .message = "", .t_end = 0.5, .steps = 1});
    EXPECT_EQ(read_file(path), "t,x\n0.5,2\n");
  }
  std::string old;
  std::getline(reader, old);
  EXPECT_EQ(old.size(), 100000u);
  // The old file was renamed out of the way and deleted by the writer (csv_log.cpp): nothing of
  // it is left in the folder, also when the log is closed unfinished.
  std::ofstream(path) << std::string(100000, 'y') << "\n";
  { make_csv_log(path)->begin({"t"}); }
  EXPECT_EQ(read_file(path), "t\n");
  for (const auto& e : fs::directory_iterator(fs::path(path).parent_path()))
    EXPECT_EQ(e.path().filename().string().find(".old~"), std::string::npos) << e.path();

  const std::string target = file("target.csv"), link = file("link.csv");
  std::ofstream(target) << "old\n";
  fs::create_symlink(target, link);
  auto log = make_csv_log(link);
  log->begin({"t"});
  log->append(std::vector<double>{1.0});
  log->finish({.status = "completed", .message = "", .t_end = 1.0, .steps = 1});
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_EQ(read_file(target), "t\n1\n");
}

TEST_F(TelemetryCsv, UnfinishedLogKeepsItsRowsAndSaysAborted) {
  {
    auto log = make_csv_log(file("run.csv"), 1e9);
    log->begin({"x", "t"});
    for (int i = 0; i < 3; ++i) log->append(std::vector<double>{10.0 + i, 0.25 * i});
  }
  EXPECT_EQ(read_file(file("run.csv")), "x,t\n10,0\n11,0.25\n12,0.5\n");
  EXPECT_EQ(read_file(file("run.status.yaml")),
            "status: aborted\nmessage: \"log closed before the run finished\"\nt_end: 0.5\nsteps: 0\nrows: 3\n");
}

// Both formats: wrong order of calls, wrong sizes, a missing directory.
TEST_F(TelemetryCsv, MisuseAndBadPathsThrow) {
  for (const LogFormat format : {LogFormat::Csv, LogFormat::Hdf5}) {
    SCOPED_TRACE(to_string(format));
    auto log = make_log(format, file("misuse"));
    const std::vector<double> row = {0.0, 1.0};
    EXPECT_THROW(log->append(row), std::logic_error);
    EXPECT_THROW(log->begin({"t", "t"}), std::invalid_argument);
    log->begin({"t", "x"});
    EXPECT_THROW(log->begin({"t", "x"}), std::logic_error);
    EXPECT_THROW(log->append(std::vector<double>{1.0}), std::invalid_argument);
    log->append(row);
    log->finish({.status = "completed", .message = "", .t_end = 0.0, .steps = 1});
    EXPECT_TRUE(test::throws_with<std::logic_error>([&] { log->append(row); }, {"after finish", log->path()}));
    EXPECT_THROW(log->event({}), std::logic_error);
    EXPECT_THROW(log->finish({}), std::logic_error);
    EXPECT_NO_THROW(log->flush());

    auto bad = make_log(format, file("no_such_dir/run"));
    EXPECT_TRUE(
        test::throws_with<std::runtime_error>([&] { bad->begin({"t"}); }, {bad->path(), "No such file or directory"}));
  }
  EXPECT_TRUE(test::throws_with<std::invalid_argument>(
      [&] {
        make_hdf5_log(file("slash.h5"))->begin({"t", "a/b"});
      },
      {"'a/b'"}));
}

// A write error of the writer thread (here: the file-size limit, EFBIG) reaches the caller as an
// exception naming the file, from append() or flush(), not a silent loss of rows.
TEST_F(TelemetryCsv, WriterThreadErrorReachesTheCaller) {
  const std::string path = file("limited.csv");
  const int code = test::exit_code_with_file_size_limit(4096, [&] {
    try {
      auto log = make_csv_log(path, 1e9);
      log->begin({"t", "x"});
      std::vector<double> row = {0.0, 1.0 / 3.0};
      for (int i = 0; i < 100000; ++i) {
        row[0] = i;
        log->append(row);
      }
      log->flush();
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      return what.find(path) != std::string::npos && what.find("cannot write") != std::string::npos ? 0 : 2;
    }
    return 1;
  });
  EXPECT_EQ(code, 0) << "1: no error seen, 2: message without the path, 100: another exception";
}

// A run killed with SIGKILL leaves a CSV of complete lines and a status file saying `running`.
TEST_F(TelemetryCsv, SigkillLeavesOnlyCompleteLines) {
  std::vector<std::string> columns = {"t"};
  for (int k = 1; k < 16; ++k) columns.push_back("q.j" + std::to_string(k));
  const std::string path = file("killed.csv");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {  // the child logs until it is killed
    try {
      auto log = make_csv_log(path, 0.01);
      log->begin(columns);
      std::vector<double> row(columns.size());
      for (long i = 0;; ++i) {
        row[0] = 1e-4 * static_cast<double>(i);
        for (std::size_t k = 1; k < row.size(); ++k) row[k] = std::sin(row[0] * static_cast<double>(k)) / 3.0;
        log->append(row);
        if (i % 8 == 0) ::usleep(100);
      }
    } catch (...) {
    }
    ::_exit(3);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ::kill(pid, SIGKILL);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "the child ended by itself: " << status;

  std::string text = read_file(path);
  ASSERT_FALSE(text.empty());
  // A kill that lands inside a write() can cut it at a page boundary (the kernel checks for a
  // fatal signal between pages): at most one unterminated fragment at the end, which readers
  // drop (tools/plot_log.py does). Every line before it is a whole row.
  if (text.back() != '\n') {
    const std::string fragment = text.substr(text.rfind('\n') + 1);
    EXPECT_LT(std::count(fragment.begin(), fragment.end(), ','), static_cast<long>(columns.size())) << fragment;
    text.erase(text.rfind('\n') + 1);
  }
  const auto records = parse_csv(text);
  ASSERT_GE(records.size(), 2u);
  EXPECT_EQ(records[0], columns);
  for (std::size_t r = 1; r < records.size(); ++r) {
    ASSERT_EQ(records[r].size(), columns.size()) << "line " << r;
    for (const auto& field : records[r]) EXPECT_TRUE(std::isfinite(number(field))) << "line " << r;
  }
  EXPECT_EQ(read_file(file("killed.status.yaml")).rfind("status: running\n", 0), 0u);
}

// --- HDF5, read back with the C API ----------------------------------------------------------

// Owns an HDF5 identifier in the tests.
struct Id {
  hid_t id;
  herr_t (*close)(hid_t);
  ~Id() {
    if (id >= 0) close(id);
  }
  operator hid_t() const { return id; }
};

std::vector<double> read_doubles(hid_t file, const std::string& name) {
  const Id dataset{H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose};
  const Id space{H5Dget_space(dataset), H5Sclose};
  std::vector<double> values(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
  EXPECT_GE(H5Dread(dataset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0) << name;
  return values;
}

std::vector<std::string> read_strings(hid_t file, const std::string& name) {
  const Id dataset{H5Dopen2(file, name.c_str(), H5P_DEFAULT), H5Dclose};
  const Id space{H5Dget_space(dataset), H5Sclose};
  const Id type{H5Dget_type(dataset), H5Tclose};
  std::vector<char*> text(static_cast<std::size_t>(H5Sget_simple_extent_npoints(space)));
  EXPECT_GE(H5Dread(dataset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, text.data()), 0) << name;
  const std::vector<std::string> out(text.begin(), text.end());
  H5Dvlen_reclaim(type, space, H5P_DEFAULT, text.data());  // H5Treclaim from 1.12 on
  return out;
}

std::string read_string_attribute(hid_t file, const char* name) {
  const Id attribute{H5Aopen(file, name, H5P_DEFAULT), H5Aclose};
  const Id type{H5Aget_type(attribute), H5Tclose};
  char* text = nullptr;
  EXPECT_GE(H5Aread(attribute, type, &text), 0) << name;
  const std::string out = text ? text : "";
  H5free_memory(text);
  return out;
}

template <class T>
T read_attribute(hid_t file, const char* name, hid_t type) {
  const Id attribute{H5Aopen(file, name, H5P_DEFAULT), H5Aclose};
  T value{};
  EXPECT_GE(H5Aread(attribute, type, &value), 0) << name;
  return value;
}

// A full disk (the file-size limit): the error names the file and the system's reason, not
// HDF5's buffers; and the process then exits normally (found by fuzzing: HDF5's clean-up at exit
// flushed the failed file again and crashed, exit 139).
TEST_F(TelemetryHdf5, AFullDiskIsAnErrorAndTheProcessStillExitsCleanly) {
  const std::string path = file("limited.h5");
  const int code = test::exit_code_with_file_size_limit(16384, [&]() -> int {
    int result = 1;  // no error seen
    try {
      auto log = make_hdf5_log(path, 1e9);
      log->begin({"t", "x"});
      std::vector<double> row = {0.0, 1.0 / 3.0};
      for (int i = 0; i < 200000; ++i) {
        row[0] = i;
        log->append(row);
      }
      log->finish({"completed", "", 1.0, 200000});
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      result = what.find(path) != std::string::npos && what.find("File too large") != std::string::npos &&
                       what.find("buf =") == std::string::npos
                   ? 0
                   : 2;
    }
    std::exit(result);  // through the atexit handlers, as a process that ends normally
  });
  EXPECT_EQ(code, 0) << "1: no error seen, 2: unexpected message, -1: did not exit normally (crash at exit)";
}

// After a write error every root dataset keeps the same length (whole rows) and, when HDF5 can
// still write the attributes, the status says `error` with the reason.
TEST_F(TelemetryHdf5, AWriteErrorLeavesWholeRowsAndStatusError) {
  const std::string path = file("limited_rows.h5");
  const int code = test::exit_code_with_file_size_limit(40000, [&]() -> int {
    auto log = make_hdf5_log(path, 1e9);
    log->begin({"t", "x", "y"});
    try {
      for (int i = 0; i < 100000; ++i) log->append(std::vector<double>{1.0 * i, 0.5, -0.25});
    } catch (const std::runtime_error&) {
    }
    try {
      log->finish({"completed", "reached t_end", 1.0, 100000});
    } catch (const std::runtime_error& e) {
      std::exit(std::string(e.what()).find("File too large") != std::string::npos ? 0 : 2);
    }
    std::exit(1);
  });
  ASSERT_EQ(code, 0) << "1: finish() did not throw, 2: unexpected message";
  const Id h5{H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  if (h5.id < 0) GTEST_SKIP() << "HDF5 left the file unreadable (no journal without SWMR; docs/telemetry.md)";
  const std::size_t rows = read_doubles(h5, "t").size();
  EXPECT_EQ(read_doubles(h5, "x").size(), rows);
  EXPECT_EQ(read_doubles(h5, "y").size(), rows);
  const std::string status = read_string_attribute(h5, "status");
  EXPECT_TRUE(status == "error" || status == "running") << status;
  if (status == "error") {
    EXPECT_NE(read_string_attribute(h5, "message").find("File too large"), std::string::npos);
  }
}

TEST_F(TelemetryHdf5, RoundTripIsBitExact) {
  const std::vector<std::string> columns = {"t", "q.joint_1", "lambda.brake_1.0"};
  const auto rows = tricky_rows(2500, columns.size());  // more than two chunks of 1024 rows
  const std::string path = file("run.h5");
  auto log = make_hdf5_log(path, 1e9);
  log->begin(columns);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    log->append(rows[r]);
    if (r == 700) log->flush();  // a partial chunk, continued afterwards
    if (r == 1800) {
      EventLogRow brake = event_row(1.8, "brake", "enable brake_1 (locks)");
      brake.potential = -1.0;
      log->event(brake);
    }
  }
  EventLogRow stop = event_row(2.4, "stop, \"now\"");
  stop.kinetic_before = 3.0;
  stop.constraint_residual = 1e-12;
  log->event(stop);
  log->finish({.status = "completed", .message = "reached t_end", .t_end = 2.499, .steps = 2500});

  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const Id h5{H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  ASSERT_GE(h5.id, 0);
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const auto values = read_doubles(h5, columns[c]);
    ASSERT_EQ(values.size(), rows.size()) << columns[c];
    for (std::size_t r = 0; r < rows.size(); ++r)
      ASSERT_EQ(std::bit_cast<std::uint64_t>(values[r]), std::bit_cast<std::uint64_t>(rows[r][c]))
          << columns[c] << " row " << r;
  }
  EXPECT_EQ(read_doubles(h5, "events/time"), (std::vector<double>{1.8, 2.4}));
  EXPECT_EQ(read_doubles(h5, "events/kinetic_before"), (std::vector<double>{0.0, 3.0}));
  EXPECT_EQ(read_doubles(h5, "events/kinetic_after"), (std::vector<double>{0.0, 0.0}));
  EXPECT_EQ(read_doubles(h5, "events/potential"), (std::vector<double>{-1.0, 0.0}));
  EXPECT_EQ(read_doubles(h5, "events/momentum_residual"), (std::vector<double>{0.0, 0.0}));
  EXPECT_EQ(read_doubles(h5, "events/constraint_residual"), (std::vector<double>{0.0, 1e-12}));
  EXPECT_EQ(read_strings(h5, "events/name"), (std::vector<std::string>{"brake", "stop, \"now\""}));
  EXPECT_EQ(read_strings(h5, "events/actions"), (std::vector<std::string>{"enable brake_1 (locks)", ""}));
  EXPECT_EQ(read_string_attribute(h5, "status"), "completed");
  EXPECT_EQ(read_string_attribute(h5, "message"), "reached t_end");
  EXPECT_EQ(read_attribute<double>(h5, "t_end", H5T_NATIVE_DOUBLE), 2.499);
  EXPECT_EQ(read_attribute<long long>(h5, "steps", H5T_NATIVE_LLONG), 2500);
  EXPECT_EQ(read_attribute<long long>(h5, "rows", H5T_NATIVE_LLONG), 2500);
}

TEST_F(TelemetryHdf5, StatusIsRunningThenAbortedWhenNotFinished) {
  const std::string path = file("run.h5");
  auto log = make_hdf5_log(path, 1e9);
  log->begin({"t", "x"});
  for (int i = 0; i < 5; ++i) log->append(std::vector<double>{0.5 * i, -1.0 * i});
  log->flush();
  {
    const Id h5{H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
    ASSERT_GE(h5.id, 0);
    EXPECT_EQ(read_string_attribute(h5, "status"), "running");
    EXPECT_EQ(read_doubles(h5, "x").size(), 5u);
  }
  log->append(std::vector<double>{2.5, -5.0});
  log.reset();  // not finished
  const Id h5{H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose};
  ASSERT_GE(h5.id, 0);
  EXPECT_EQ(read_string_attribute(h5, "status"), "aborted");
  EXPECT_EQ(read_string_attribute(h5, "message"), "log closed before the run finished");
  EXPECT_EQ(read_attribute<double>(h5, "t_end", H5T_NATIVE_DOUBLE), 2.5);
  EXPECT_EQ(read_doubles(h5, "x"), (std::vector<double>{0, -1, -2, -3, -4, -5}));
}

// --- tools/plot_log.py -----------------------------------------------------------------------

const std::string kPlotTool = std::string(ARTICULA_MODELS_DIR) + "/../tools/plot_log.py";

// Exit code and output (stdout and stderr) of a shell command.
std::pair<int, std::string> run(const std::string& command) {
  std::string output;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (!pipe) return {-1, ""};
  std::array<char, 4096> buffer;
  std::size_t n;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0) output.append(buffer.data(), n);
  const int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

// A Python 3 that has `module` (found, not imported: quick), or "" (PATH's python3 first, then the system's).
std::string python_with(const std::string& module) {
  for (const std::string python : {"python3", "/usr/bin/python3"})
    if (run(python + " -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec(\"" + module + "\") is None)'")
            .first == 0)
      return python;
  return "";
}

// A small CSV log with two events, written by the sink.
void write_demo_log(const std::string& path, double shift) {
  auto log = make_csv_log(path);
  log->begin({"t", "q.a", "q.b", "v.a"});
  for (int i = 0; i <= 100; ++i) {
    const double t = 0.01 * i;
    log->append(std::vector<double>{t, std::sin(t + shift), std::cos(t), i == 50 ? kNaN : t});
    if (i == 30 || i == 70) log->event(event_row(t, "brake_" + std::to_string(i)));
  }
  log->finish({.status = "completed", .message = "", .t_end = 1.0, .steps = 100});
}

TEST_F(TelemetryPlot, WritesPng) {
  const std::string python = python_with("matplotlib");
  if (python.empty()) GTEST_SKIP() << "no python3 with matplotlib";
  write_demo_log(file("a.csv"), 0.0);
  write_demo_log(file("b.csv"), 0.5);
  const std::string png = file("plot.png");
  const auto [code, output] = run(python + " '" + kPlotTool + "' '" + file("a.csv") + "' '" + file("b.csv") +
                                  "' -c 'q.*' -c v.a -o '" + png + "' --labels consistent,naive --title demo");
  ASSERT_EQ(code, 0) << output;
  const std::string bytes = read_file(png);
  ASSERT_GE(bytes.size(), 8u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
}

TEST_F(TelemetryPlot, MissingFileOrColumnExitsWith2) {
  const std::string python = python_with("csv");
  if (python.empty()) GTEST_SKIP() << "no python3";
  write_demo_log(file("a.csv"), 0.0);
  const std::string png = file("plot.png");
  auto [code, output] = run(python + " '" + kPlotTool + "' '" + file("nope.csv") + "' -c t -o '" + png + "'");
  EXPECT_EQ(code, 2) << output;
  EXPECT_NE(output.find("nope.csv"), std::string::npos) << output;
  std::tie(code, output) = run(python + " '" + kPlotTool + "' '" + file("a.csv") + "' -c 'lambda.*' -o '" + png + "'");
  EXPECT_EQ(code, 2) << output;
  EXPECT_NE(output.find("lambda.*"), std::string::npos) << output;
  EXPECT_NE(output.find("q.a, q.b, v.a"), std::string::npos) << output;  // the available columns
  EXPECT_FALSE(fs::exists(png));
}

}  // namespace
}  // namespace articula
