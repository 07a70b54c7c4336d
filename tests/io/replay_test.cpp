// The log reader (io/log_reader) and the replay viewer's data and page (io/replay).
#include "articula/io/replay.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>

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

TEST(Replay, UrdfPrimitivesAreCarriedInTheirBodysFrame) {
  const std::string xml = R"(<robot name="vis">
  <material name="red"><color rgba="1 0 0 0.5"/></material>
  <link name="base"><visual><geometry><box size="0.3 0.2 0.1"/></geometry></visual></link>
  <link name="arm">
    <inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>
    <visual><origin xyz="0 0 0.2"/><geometry><cylinder radius="0.04" length="0.4"/></geometry></visual>
    <visual><geometry><mesh filename="package://vis/arm.stl" scale="2 2 2"/></geometry></visual>
  </link>
  <link name="tool"><visual><origin xyz="0.1 0 0" rpy="0 0 1.5707963267948966"/>
    <geometry><sphere radius="0.05"/></geometry><material name="red"/></visual></link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="arm"/><origin xyz="0 0 0.1"/>
    <axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="10" velocity="1"/></joint>
  <joint name="fix" type="fixed"><parent link="arm"/><child link="tool"/><origin xyz="0 0 0.5"/></joint>
</robot>)";
  const Model m = load_urdf_string(xml);
  const std::vector<UrdfVisual> v = load_urdf_visuals_string(xml, m);
  ASSERT_EQ(v.size(), 4u);
  std::map<std::string, std::vector<const UrdfVisual*>> by_link;
  for (const UrdfVisual& u : v) by_link[u.link].push_back(&u);
  const UrdfVisual& box = *by_link.at("base").at(0);
  EXPECT_EQ(box.shape, UrdfVisual::Shape::Box);
  EXPECT_EQ(box.joint, kWorld);
  EXPECT_TRUE(box.size.isApprox(Vector3(0.3, 0.2, 0.1)));
  EXPECT_LT(box.rgba[0], 0.0);
  const UrdfVisual& cyl = *by_link.at("arm").at(0);
  EXPECT_EQ(cyl.shape, UrdfVisual::Shape::Cylinder);
  EXPECT_EQ(cyl.joint, 0);
  EXPECT_TRUE(cyl.size.isApprox(Vector3(0.04, 0.4, 0.0)));
  EXPECT_TRUE(cyl.placement.p.isApprox(Vector3(0, 0, 0.2)));
  const UrdfVisual& mesh = *by_link.at("arm").at(1);
  EXPECT_EQ(mesh.shape, UrdfVisual::Shape::Mesh);
  EXPECT_EQ(mesh.mesh, "package://vis/arm.stl");
  // The tool is merged into the arm's body: its visual's pose composes the fixed joint's.
  const UrdfVisual& ball = *by_link.at("tool").at(0);
  EXPECT_EQ(ball.shape, UrdfVisual::Shape::Sphere);
  EXPECT_EQ(ball.joint, 0);
  EXPECT_TRUE(ball.placement.p.isApprox(Vector3(0.1, 0, 0.5))) << ball.placement.p.transpose();
  EXPECT_NEAR((ball.placement.R * Vector3::UnitX() - Vector3::UnitY()).norm(), 0.0, 1e-12);
  EXPECT_DOUBLE_EQ(ball.rgba[0], 1.0);
  EXPECT_DOUBLE_EQ(ball.rgba[3], 0.5);

  // In the viewer's data: the three primitives, not the mesh.
  const test::ScratchDir dir("replay_visuals");
  const std::string csv = dir.path() + "/run.csv";
  std::ofstream(csv) << "t,q.j1\n0,0\n0.1,0.5\n";
  const LogTable log = read_log(csv);
  ReplayOptions o;
  o.visuals = v;
  const std::string json = replay_json(Robot(m), {{"a", &log, false}}, o);
  EXPECT_NE(json.find("\"shape\":\"box\""), std::string::npos);
  EXPECT_NE(json.find("\"shape\":\"cylinder\""), std::string::npos);
  EXPECT_NE(json.find("{\"link\":\"tool\",\"joint\":0,\"shape\":\"sphere\""), std::string::npos) << json;
  EXPECT_EQ(json.find("arm.stl"), std::string::npos);

  Model other = load_urdf(test::model_path("ur5"));
  EXPECT_THROW(load_urdf_visuals_string(xml, other), std::runtime_error);
}

}  // namespace
}  // namespace articula
