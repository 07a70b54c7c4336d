// The log reader (io/log_reader) and the replay viewer's data and page (io/replay).
#include "articula/io/replay.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "articula/io/urdf.hpp"
#include "articula/scenario/scenario.hpp"
#include "test_support.hpp"

namespace articula {
namespace {

TEST(LogReader, CsvReadsBackWhatTheSinkWrote) {
  const test::ScratchDir dir("log_reader_csv");
  const std::string path = dir.path() + "/run.csv";
  auto log = make_csv_log(path, 0.2);
  log->begin({"t", "q.a", "odd, \"name\""});
  const double rows[3][3] = {{0.0, 0.1, -0.0}, {1e-3, 1e-310, 1.0 / 3.0}, {2e-3, INFINITY, 42.0}};
  for (const auto& r : rows) log->append(std::span<const double>(r, 3));
  log->event({.time = 1e-3,
              .name = "stop",
              .actions = "enable lock, \"brake\"",
              .kinetic_before = 2.5,
              .kinetic_after = 1.25});
  log->finish({.status = "completed", .message = "reached t_end", .t_end = 2e-3, .steps = 2});
  const LogTable t = read_log(path);
  ASSERT_EQ(t.columns.size(), 3u);
  EXPECT_EQ(t.columns[2], "odd, \"name\"");
  ASSERT_EQ(t.rows, 3u);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 3; ++j) EXPECT_EQ(t.at(i, j), rows[i][j]) << i << "," << j;
  ASSERT_EQ(t.events.size(), 1u);
  EXPECT_EQ(t.events[0].actions, "enable lock, \"brake\"");
  EXPECT_EQ(t.events[0].kinetic_after, 1.25);
  EXPECT_EQ(t.status, "completed");
  EXPECT_EQ(t.message, "reached t_end");
}

TEST(LogReader, Hdf5ReadsBackWhatTheSinkWrote) {
  const test::ScratchDir dir("log_reader_h5");
  const std::string path = dir.path() + "/run.h5";
  auto log = make_hdf5_log(path, 0.2);
  log->begin({"t", "q.b", "q.a"});
  for (int i = 0; i < 5; ++i) {
    const double r[3] = {1e-3 * i, 2.0 * i, -1.0 * i};
    log->append(std::span<const double>(r, 3));
  }
  log->event({.time = 2e-3, .name = "e", .actions = "x"});
  log->finish({.status = "completed", .message = "m", .t_end = 4e-3, .steps = 4});
  const LogTable t = read_log(path);
  ASSERT_EQ(t.rows, 5u);
  EXPECT_EQ(t.columns.front(), "t");
  EXPECT_EQ(t.at(3, static_cast<std::size_t>(t.column("q.b"))), 6.0);
  EXPECT_EQ(t.at(3, static_cast<std::size_t>(t.column("q.a"))), -3.0);
  ASSERT_EQ(t.events.size(), 1u);
  EXPECT_EQ(t.events[0].name, "e");
  EXPECT_EQ(t.status, "completed");
}

TEST(LogReader, BadFilesNameTheProblem) {
  const test::ScratchDir dir("log_reader_bad");
  const std::string path = dir.path() + "/bad.csv";
  std::ofstream(path) << "t,q.a\n0,1\n0.1,x\n";
  try {
    read_log(path);
    FAIL() << "no error";
  } catch (const LogReadError& e) {
    EXPECT_NE(std::string(e.what()).find("line 3, column 'q.a'"), std::string::npos) << e.what();
  }
  EXPECT_THROW(read_log(dir.path() + "/missing.csv"), LogReadError);
  std::ofstream(dir.path() + "/x.h5") << "not hdf5";
  EXPECT_THROW(read_log(dir.path() + "/x.h5"), LogReadError);
}

TEST(Replay, DecimationKeepsTheRowsAroundEvents) {
  std::vector<double> t(250001);
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = 1e-4 * static_cast<double>(i);
  const std::vector<double> events{1.00005, 7.3};
  const auto rows = replay_rows(t, events, 100000);
  EXPECT_LE(rows.size(), 100010u);
  EXPECT_GE(rows.size(), 80000u);
  EXPECT_EQ(rows.front(), 0u);
  EXPECT_EQ(rows.back(), t.size() - 1);
  EXPECT_TRUE(std::is_sorted(rows.begin(), rows.end()));
  for (const double te : events) {
    const auto first_after = static_cast<std::size_t>(std::lower_bound(t.begin(), t.end(), te) - t.begin());
    EXPECT_TRUE(std::binary_search(rows.begin(), rows.end(), first_after)) << te;
    EXPECT_TRUE(std::binary_search(rows.begin(), rows.end(), first_after - 1)) << te;
  }
  EXPECT_EQ(replay_rows(std::vector<double>(10, 0.0), events, 100000).size(), 10u);  // short runs: all rows
}

// A bundled scenario's log: the page data names every run, event and channel; another robot's
// log is refused naming the column.
TEST(Replay, ScenarioLogMakesTheViewerData) {
  const test::ScratchDir dir("replay_scenario");
  ScenarioOverrides o;
  o.out_dir = dir.path();
  o.duration = 0.5;
  Scenario s = load_scenario(std::string(ARTICULA_MODELS_DIR) + "/../scenarios/pendulum3r_locking.yaml", o);
  ASSERT_TRUE(run_scenario(s).ok());
  const LogTable log = read_log(output_files(s).front());
  ASSERT_GT(log.rows, 10u);
  const std::string json = replay_json(*s.robot, {{"solid", &log, false}, {"ghost", &log, true}}, {});
  EXPECT_EQ(json.rfind("{\"format\":\"articula-replay 1\"", 0), 0u);
  EXPECT_NE(json.find("\"label\":\"ghost\",\"ghost\":true"), std::string::npos);
  EXPECT_NE(json.find("\"rows\":" + std::to_string(log.rows) + ","), std::string::npos);
  std::size_t events = 0;
  for (std::size_t at = 0; (at = json.find("{\"t\":", at)) != std::string::npos; ++at) ++events;
  EXPECT_EQ(events, 2 * log.events.size());
  EXPECT_NE(json.find("\"energy.kinetic\":"), std::string::npos);

  Robot other(load_urdf(test::model_path("ur5")));
  try {
    replay_json(other, {{"x", &log, false}}, {});
    FAIL() << "no error";
  } catch (const ReplayError& e) {
    EXPECT_NE(std::string(e.what()).find("does not match model"), std::string::npos) << e.what();
  }
}

TEST(Replay, PageInlinesTheViewerAndEscapesScriptEnds) {
  const test::ScratchDir dir("replay_page");
  std::ofstream(dir.path() + "/page.html") << "<style>/*ARTICULA_STYLE*/</style><!--ARTICULA_DATA-->"
                                              "<script>/*ARTICULA_SCRIPT*/</script>";
  std::ofstream(dir.path() + "/viewer.css") << "body{}";
  std::ofstream(dir.path() + "/viewer.js") << "var s='</script>';";
  const std::string page = replay_html("{\"title\":\"a</SCRIPT>b\"}", dir.path());
  EXPECT_EQ(page,
            "<style>body{}</style><script id=\"articula-data\" type=\"application/json\">"
            "{\"title\":\"a<\\/SCRIPT>b\"}</script><script>var s='<\\/script>';</script>");
  EXPECT_THROW(replay_html("{}", dir.path() + "/none"), ReplayError);
}

}  // namespace
}  // namespace articula
