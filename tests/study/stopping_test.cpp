// articula stopping (docs/stopping.md): input checks, the physics that must hold, determinism
// across threads and MPI ranks, sampling.
#include "articula/study/stopping.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "articula/dynamics/crba.hpp"
#include "articula/model/data.hpp"
#include "articula/scenario/scenario.hpp"
#include "test_support.hpp"

namespace articula {
namespace {

const std::string kStudiesDir = std::string(ARTICULA_MODELS_DIR) + "/../studies";
const std::string kStudyFile = kStudiesDir + "/rx130_stopping.yaml";

std::string bundled_text() {
  std::ifstream in(kStudyFile);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The bundled study with `from` replaced by `to` (each must occur).
std::string edited(std::string text, const std::vector<std::pair<std::string, std::string>>& edits) {
  for (const auto& [from, to] : edits) {
    const auto at = text.find(from);
    if (at == std::string::npos) throw std::logic_error("test edit not found: " + from);
    text.replace(at, from.size(), to);
  }
  return text;
}

StoppingStudy parse(const std::string& text) { return parse_stopping_study(text, "test.yaml", kStudiesDir); }

// The error text of parsing `text`, or "" if it parses.
std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  return "";
}

// A small sweep: one joint, one category, one extension.
StoppingStudy small(const std::string& joint_line, const std::string& category, const std::string& ext = "1.0") {
  std::string t = bundled_text();
  const auto js = t.find("joints:\n"), je = t.find("\n\n", js);
  t.replace(js, je - js, "joints:\n" + joint_line);
  StoppingStudy s = parse(edited(t, {{"categories: [0, 1]", "categories: [" + category + "]"}}));
  std::vector<StoppingExtension> keep;
  for (const StoppingExtension& e : s.extensions)
    if (std::abs(e.fraction - std::stod(ext)) < 1e-12) keep.push_back(e);
  s.extensions = keep;
  return s;
}

TEST(StoppingStudy, BundledFileHasTheFullAnnexBTable) {
  const StoppingStudy s = load_stopping_study(kStudyFile);
  EXPECT_EQ(s.joints.size(), 3u);
  EXPECT_EQ(s.brakes.size(), 6u);
  EXPECT_EQ(stopping_cases(s).size(), 162u);           // 3 joints x 27 conditions x 2 categories
  EXPECT_DOUBLE_EQ(s.brakes[1].torque, 10.0 * 150.0);  // motor_torque x gear ratio
  EXPECT_EQ(s.joints[0].direction, 1);
  EXPECT_EQ(s.joints[1].direction, 0);  // down
}

TEST(StoppingStudy, BadInputNamesTheKey) {
  const std::string t = bundled_text();
  std::string e = error_of(edited(t, {{"speeds: [0.33, 0.66, 1.0]", "speeds: [0.33, 1.5]"}}));
  EXPECT_NE(e.find("key 'speeds[1]'"), std::string::npos) << e;
  EXPECT_NE(e.find("(0, 1]"), std::string::npos) << e;
  e = error_of(edited(t, {{"payloads: [0.33, 0.66, 1.0]", "payloads: [0, 1]"}}));
  EXPECT_NE(e.find("key 'payloads[0]'"), std::string::npos) << e;
  e = error_of(edited(t, {{"{fraction: 0.66,", "{fraction: 1.2,"}}));
  EXPECT_NE(e.find("key 'extensions[1].fraction'"), std::string::npos) << e;
  e = error_of(edited(t, {{"{joint: joint_3, max_speed", "{joint: joint_9, max_speed"}}));
  EXPECT_NE(e.find("key 'joints[2].joint'"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown joint 'joint_9'"), std::string::npos) << e;
  e = error_of(edited(t, {{"  frame: flange", "  frame: gripper"}}));
  EXPECT_NE(e.find("key 'payload.frame'"), std::string::npos) << e;
  EXPECT_NE(e.find("missing frame 'gripper'"), std::string::npos) << e;
  e = error_of(edited(t, {{"  - {joint: joint_3, kind: friction", "  - {joint: joint_5, kind: friction"}}));
  EXPECT_NE(e.find("two brakes"), std::string::npos) << e;
  e = error_of(edited(t, {{"  - {joint: joint_3, kind: friction", "  - {joint: joint_5, kind: friction"},
                          {"  - {joint: joint_5, kind: friction", "  - {joint: joint_5, kind: pin"}}));
  EXPECT_NE(e.find("two brakes"), std::string::npos) << e;
  // No brake on a tested joint.
  std::string nob = t;
  nob.erase(nob.find("  - {joint: joint_2, kind: friction"),
            nob.find("\n", nob.find("  - {joint: joint_2, kind: friction")) -
                nob.find("  - {joint: joint_2, kind: friction") + 1);
  e = error_of(nob);
  EXPECT_NE(e.find("key 'joints[1].joint'"), std::string::npos) << e;
  EXPECT_NE(e.find("no brake on tested joint 'joint_2'"), std::string::npos) << e;
  e = error_of(edited(t, {{"static_torque: 1725", "static_torque: 1000"}}));
  EXPECT_NE(e.find("static_torque"), std::string::npos) << e;
  e = error_of(edited(t, {{"q_deg: [0, 0, 22, 0, 0, 0]", "q_deg: [0, 22]"}}));
  EXPECT_NE(e.find("key 'extensions[1].q_deg'"), std::string::npos) << e;
  e = error_of(edited(t, {{"categories: [0, 1]", "categories: [2]"}}));
  EXPECT_NE(e.find("key 'categories[0]'"), std::string::npos) << e;
  e = error_of(edited(t, {{"flange: flange", "flange: flange\nbogus: 1"}}));
  EXPECT_NE(e.find("bogus"), std::string::npos) << e;
}

TEST(StoppingStudy, DistanceGrowsWithSpeedAndPayload) {
  for (const char* cat : {"0", "1"}) {
    const StoppingStudy s = small("  - {joint: joint_2, max_speed: 2.5, direction: down}", cat);
    const auto r = run_stopping_sweep(s, 0, 1, 2);
    ASSERT_EQ(r.size(), 9u);
    for (const auto& x : r) ASSERT_TRUE(x.real.ok && x.ideal.ok) << x.real.message << x.ideal.message;
    // Index: payload * 3 + speed.
    for (int p = 0; p < 3; ++p)
      for (int v = 1; v < 3; ++v) {
        EXPECT_GT(r[p * 3 + v].real.distance_deg, r[p * 3 + v - 1].real.distance_deg) << "cat " << cat;
        EXPECT_GT(r[p * 3 + v].real.path_mm, r[p * 3 + v - 1].real.path_mm) << "cat " << cat;
      }
    for (int v = 0; v < 3; ++v)
      for (int p = 1; p < 3; ++p)
        EXPECT_GT(r[p * 3 + v].real.distance_deg, r[(p - 1) * 3 + v].real.distance_deg) << "cat " << cat;
  }
}

// The whole bundled table (162 cases): for every joint, category, extension and payload the
// stopping distance, the flange path and the stopping time grow with the speed. In category 1
// this needs the drives of the joints at rest to hold them until the stop is achieved (before,
// joint 2 sagged during its brake delay while joint 3 was being stopped, and joint 3's distance
// at 100 % extension fell from 33 % to 66 % speed).
TEST(StoppingStudy, EveryJointAndCategoryIsMonotoneInSpeed) {
  const StoppingStudy s = load_stopping_study(kStudyFile);
  const auto r = run_stopping_sweep(s, 0, 1, 2);
  ASSERT_EQ(r.size(), 162u);
  for (const auto& x : r) ASSERT_TRUE(x.real.ok && x.ideal.ok) << x.real.message << x.ideal.message;
  // Order: joint, category, extension, payload, speed (fastest).
  ASSERT_EQ(s.speeds.size(), 3u);
  for (std::size_t k = 0; k < r.size(); k += 3)
    for (std::size_t v = 1; v < 3; ++v) {
      const StoppingCaseResult &a = r[k + v - 1], &b = r[k + v];
      ASSERT_EQ(a.c.speed + 1, b.c.speed);
      const std::string where = s.joints[b.c.joint].joint + " category " + std::to_string(b.c.category) +
                                " extension " + std::to_string(s.extensions[b.c.extension].fraction) + " payload " +
                                std::to_string(s.payloads[b.c.payload]) + " speed " +
                                std::to_string(s.speeds[b.c.speed]);
      EXPECT_GT(b.real.distance_deg, a.real.distance_deg) << where;
      EXPECT_GT(b.real.path_mm, a.real.path_mm) << where;
      EXPECT_GT(b.real.stop_time, a.real.stop_time) << where;
      EXPECT_GT(b.ideal.distance_deg, a.ideal.distance_deg) << where;
    }
}

// Joint 1 with drives stronger than the brakes: category 1 stops it sooner and nearer than
// category 0; the other joints' drives hold them until its standstill, where their brakes are
// armed (docs/stopping.md, "Definitions").
TEST(StoppingStudy, CategoryOneStopsTheJointSoonerAndArmsTheHeldBrakesAtItsStandstill) {
  StoppingStudy s = small("  - {joint: joint_1, max_speed: 2.5, direction: positive}", "0, 1");
  for (const StoppingDrive& d : s.drives)
    for (const StoppingBrake& b : s.brakes)
      if (d.joint == b.joint) {
        ASSERT_GT(d.effort_limit, b.torque);
      }
  const auto r = run_stopping_sweep(s, 0, 1, 2);
  ASSERT_EQ(r.size(), 18u);
  double max_delay = 0.0;
  for (const StoppingBrake& b : s.brakes) max_delay = std::max(max_delay, b.delay);
  for (int k = 0; k < 9; ++k) {
    ASSERT_TRUE(r[k].real.ok && r[k + 9].real.ok);
    // The tested joint stops sooner and nearer, and the held arm does not sag meanwhile.
    EXPECT_LE(r[k + 9].real.distance_deg, r[k].real.distance_deg);
    EXPECT_LE(r[k + 9].real.path_mm, r[k].real.path_mm);
    // The stop time is the whole arm's (the last brake to hold). In category 1 the held joints'
    // brakes are armed only when the stop is achieved, at joint 1's standstill t_s: joint 1's
    // axis is vertical and the rest of the arm is held rigid, so t_s = M₁₁ ω₀ / effort_limit
    // exactly, and with ideal locks the last one (the longest delay) locks at t_s + max delay.
    const StoppingCase& c = r[k + 9].c;
    const Model m = stopping_case_model(s, c);
    Data d(m);
    const double I = crba(m, d, s.extensions[c.extension].q)(0, 0);
    const double t_s = I * s.speeds[c.speed] * s.joints[0].max_speed / s.drives[0].effort_limit;
    EXPECT_NEAR(r[k + 9].ideal.stop_time, t_s + max_delay, 1e-8);
    EXPECT_NEAR(r[k].ideal.stop_time, max_delay, 1e-12);
    // With the real brakes the arm sags from rest after t_s, at the same pose of joints 2–6
    // whatever the speed (gravity does not depend on joint 1's angle): the time from t_s to the
    // last stick depends on the payload only. (So the whole-arm stop time in category 1 can
    // exceed category 0's at low speed, where joint 1's brake dominates category 0: it did not
    // before the drives held the arm, when every other brake was armed at the signal.)
    const double after = r[k + 9].real.stop_time - t_s;
    const double after_slowest =
        r[k + 9 - c.speed].real.stop_time - I * s.speeds[0] * s.joints[0].max_speed / s.drives[0].effort_limit;
    EXPECT_NEAR(after, after_slowest, 1e-8) << "case " << k;
    EXPECT_GT(after, max_delay);
  }
}

// Gravity off, joint 1 moving, the other brakes engaged at once (they hold joints at rest: no
// jump, so joint 1 alone moves, with the inertia I = M_11 of the pose).
TEST(StoppingStudy, GravityOffOneJointMatchesTheClosedForm) {
  std::string t = edited(bundled_text(), {{"flange: flange", "flange: flange\ngravity: [0, 0, 0]"}});
  for (const char* j : {"joint_2, kind: friction, delay: 0.045", "joint_3, kind: friction, delay: 0.040",
                        "joint_4, kind: friction, delay: 0.030", "joint_5, kind: friction, delay: 0.030",
                        "joint_6, kind: friction, delay: 0.030"}) {
    std::string to = j;
    to = to.substr(0, to.find("delay: ")) + "delay: 0.0";
    t = edited(t, {{j, to}});
  }
  StoppingStudy s = parse(t);
  s.categories = {0};
  const auto cases = stopping_cases(s);
  // joint_1, 100 % extension, payload and speed: the last of joint_1's cases (joint-major order).
  const StoppingCase& c = cases[cases.size() / s.joints.size() - 1];
  ASSERT_EQ(c.joint, 0);
  ASSERT_EQ(c.speed, 2);
  ASSERT_EQ(c.extension, 2);
  const double w0 = s.joints[0].max_speed, td = s.brakes[0].delay;
  const StopFigures ideal = run_stopping_case(s, c, BrakeModel::Ideal);
  ASSERT_TRUE(ideal.ok) << ideal.message;
  EXPECT_NEAR(ideal.stop_time, td, 1e-12);
  EXPECT_NEAR(ideal.distance_deg, w0 * td * 180.0 / M_PI, 1e-9);
  const StopFigures real = run_stopping_case(s, c, BrakeModel::Real);
  ASSERT_TRUE(real.ok) << real.message;
  // I: joint 1's diagonal of M at the pose, payload and reflected rotor inertia included.
  const Model m = stopping_case_model(s, c);
  Data d(m);
  const double I = crba(m, d, s.extensions[c.extension].q)(0, 0), tau = s.brakes[0].torque;
  EXPECT_NEAR(real.stop_time, td + I * w0 / tau, 1e-3 * s.dt);
  EXPECT_NEAR(real.distance_deg * M_PI / 180.0, w0 * td + I * w0 * w0 / (2 * tau), 1e-6);
}

TEST(StoppingStudy, ThreadsGiveByteIdenticalOutputs) {
  StoppingStudy s = small("  - {joint: joint_3, max_speed: 3.0, direction: down}", "0, 1", "0.66");
  const auto one = run_stopping_sweep(s, 3, 11, 1);
  const auto two = run_stopping_sweep(s, 3, 11, 2);
  EXPECT_EQ(stopping_csv(s, one), stopping_csv(s, two));
  EXPECT_EQ(stopping_json(s, one, 3, 11), stopping_json(s, two, 3, 11));
  EXPECT_EQ(stopping_table(s, one), stopping_table(s, two));
}

TEST(StoppingStudy, SamplingIsReproducibleAndZeroToleranceGivesNominal) {
  StoppingStudy s = small("  - {joint: joint_2, max_speed: 2.5, direction: down}", "0", "0.33");
  s.payloads = {1.0};
  const auto a = run_stopping_sweep(s, 12, 5, 2), b = run_stopping_sweep(s, 12, 5, 1),
             c = run_stopping_sweep(s, 12, 6, 2);
  EXPECT_EQ(stopping_csv(s, a), stopping_csv(s, b));
  EXPECT_NE(stopping_csv(s, a), stopping_csv(s, c));
  for (const auto& r : a) {
    EXPECT_EQ(r.samples, 12);
    EXPECT_LE(r.distance.p50, r.distance.p95);
    EXPECT_LE(r.distance.p95, r.distance.p99);
    EXPECT_LE(r.distance.p99, r.distance.worst);
    EXPECT_GT(r.distance.worst, r.real.distance_deg);  // a longer delay lets it travel further
  }
  // Sampled factors stay within the tolerances and depend on (seed, case, sample) only.
  const BrakeScaling f = sample_brakes(s, 5, 2, 7);
  for (std::size_t k = 0; k < s.brakes.size(); ++k) {
    EXPECT_LE(std::abs(f.delay[k] - 1.0), s.delay_tolerance);
    EXPECT_LE(std::abs(f.torque[k] - 1.0), s.torque_tolerance);
  }
  EXPECT_EQ(sample_brakes(s, 5, 2, 7).delay, f.delay);
  EXPECT_NE(sample_brakes(s, 5, 3, 7).delay, f.delay);
  s.delay_tolerance = s.torque_tolerance = 0.0;
  for (const auto& r : run_stopping_sweep(s, 4, 5, 2)) {
    EXPECT_EQ(r.distance.worst, r.real.distance_deg);
    EXPECT_EQ(r.distance.p50, r.real.distance_deg);
    EXPECT_EQ(r.time.p99, r.real.stop_time);
    EXPECT_EQ(r.path.p95, r.real.path_mm);
  }
}

TEST(StoppingStudy, NearestRankPercentiles) {
  std::vector<double> v;
  for (int i = 100; i >= 1; --i) v.push_back(i);
  const Spread s = spread_of(v);
  EXPECT_EQ(s.worst, 100);
  EXPECT_EQ(s.p50, 50);
  EXPECT_EQ(s.p95, 95);
  EXPECT_EQ(s.p99, 99);
  EXPECT_EQ(spread_of({3.0}).p50, 3.0);
}

TEST(StoppingStudy, PackedFiguresRoundTrip) {
  StopFigures f;
  f.ok = true;
  f.stop_time = 0.25;
  f.distance_deg = 12.5;
  f.path_mm = 301.0;
  f.peak_torque = 800;
  f.slipped = true;
  f.slip_time = 0.125;
  double buf[kStopFiguresDoubles];
  pack_figures(f, buf);
  const StopFigures g = unpack_figures(buf);
  EXPECT_EQ(g.ok, f.ok);
  EXPECT_EQ(g.stop_time, f.stop_time);
  EXPECT_EQ(g.distance_deg, f.distance_deg);
  EXPECT_EQ(g.path_mm, f.path_mm);
  EXPECT_EQ(g.peak_torque, f.peak_torque);
  EXPECT_EQ(g.slipped, f.slipped);
  EXPECT_EQ(g.slip_time, f.slip_time);
}

// The bundled study with the model path made absolute, written to `dir`/name.
std::string write_study(const std::string& dir, const std::string& name,
                        const std::vector<std::pair<std::string, std::string>>& edits) {
  std::vector<std::pair<std::string, std::string>> all{
      {"model: ../models/rx130_standin.urdf", "model: " + std::string(ARTICULA_MODELS_DIR) + "/rx130_standin.urdf"}};
  all.insert(all.end(), edits.begin(), edits.end());
  const std::string file = dir + "/" + name;
  std::ofstream(file) << edited(bundled_text(), all);
  return file;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// A reduced sweep (joint 2, both categories, two extensions, two payloads: 24 cases, one
// sample each) through the command line: 1 thread, 2 threads and `mpirun -n 2` write the same
// bytes. With MPI found at configure time (ARTICULA_TEST_MPI) the MPI leg must run.
TEST(StoppingCli, OneTwoThreadsAndTwoMpiRanksWriteTheSameCsv) {
  const test::ScratchDir dir("stopping_cli");
  const std::string file =
      write_study(dir.path(), "small.yaml",
                  {{"  - {joint: joint_1, max_speed: 2.5, direction: positive}   # rad/s (URDF velocity limit)\n", ""},
                   {"  - {joint: joint_3, max_speed: 3.0, direction: down}\n", ""},
                   {"payloads: [0.33, 0.66, 1.0]", "payloads: [0.5, 1.0]"},
                   {"  - {fraction: 0.33, q_deg: [0, 0, -14, 0, 0, 0]}   # forearm raised: 0.447 m\n", ""}});
  const std::string base = "stopping '" + file + "' -q --samples 1 --seed 4 -o '" + dir.path();
  const test::CliResult one = test::run_cli(base + "/one' -j 1");
  ASSERT_EQ(one.code, 0) << one.output;
  const test::CliResult two = test::run_cli(base + "/two' -j 2");
  ASSERT_EQ(two.code, 0) << two.output;
  const std::string csv1 = read_text(dir.path() + "/one/stopping.csv");
  EXPECT_EQ(std::count(csv1.begin(), csv1.end(), '\n'), 1 + 24);
  EXPECT_EQ(csv1, read_text(dir.path() + "/two/stopping.csv"));
  EXPECT_EQ(read_text(dir.path() + "/one/stopping.json"), read_text(dir.path() + "/two/stopping.json"));
#ifdef ARTICULA_TEST_NO_MPI
  // Sanitized builds: Open MPI's own allocations would fail LeakSanitizer; the Release build
  // runs this leg.
  GTEST_SKIP() << "the mpirun leg is not run in sanitized builds";
#endif
#ifndef ARTICULA_TEST_MPI
  if (std::system("command -v mpirun >/dev/null 2>&1") != 0) GTEST_SKIP() << "mpirun not found";
#endif
  const std::string cmd = "mpirun -n 2 --allow-run-as-root --oversubscribe '" + std::string(ARTICULA_CLI_PATH) + "' " +
                          base + "/mpi' -j 1 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int code = pclose(p);
#ifndef ARTICULA_TEST_MPI
  if (out.find("built without MPI") != std::string::npos) GTEST_SKIP() << "articula built without MPI";
#endif
  ASSERT_EQ(code, 0) << out;
  EXPECT_NE(out.find("on 2 rank(s)"), std::string::npos) << out;
  EXPECT_EQ(csv1, read_text(dir.path() + "/mpi/stopping.csv"));
  EXPECT_EQ(read_text(dir.path() + "/one/stopping.json"), read_text(dir.path() + "/mpi/stopping.json"));
}

TEST(StoppingCli, BadStudyExitsTwoNamingTheKey) {
  const test::ScratchDir dir("stopping_bad");
  const std::string file =
      write_study(dir.path(), "bad.yaml", {{"speeds: [0.33, 0.66, 1.0]", "speeds: [0.33, 0.66, 1.01]"}});
  const test::CliResult r = test::run_cli("stopping '" + file + "' -o '" + dir.path() + "'");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("key 'speeds[2]'"), std::string::npos) << r.output;
}

// --plot draws one PNG per stop category (tools/plot_stopping.py) from the CSV just written.
TEST(StoppingCli, PlotWritesOnePngPerCategory) {
  if (std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no python3 with matplotlib";
  const test::ScratchDir dir("stopping_plot");
  const std::string file = write_study(dir.path(), "small.yaml", {{"payloads: [0.33, 0.66, 1.0]", "payloads: [1.0]"}});
  const test::CliResult r = test::run_cli("stopping '" + file + "' -q --plot -j 2 -o '" + dir.path() + "/out'");
  ASSERT_EQ(r.code, 0) << r.output;
  for (const char* cat : {"0", "1"}) {
    const std::string png = read_text(dir.path() + "/out/stopping_cat" + cat + ".png");
    ASSERT_GT(png.size(), 10000u) << "category " << cat << ": " << r.output;
    EXPECT_EQ(png.substr(1, 3), "PNG") << "category " << cat;
  }
}

}  // namespace
}  // namespace articula
