// The brake / emergency-stop study (study/brake_study.hpp) and `articula estop`:
// momentum balance and J v⁺ = 0 at each brake event for the consistent jump (Müller,
// arXiv:2604.19419), the naive jump's momentum residual, Carnot's energy loss, the consistent
// jump as the M-closest admissible velocity, energy conservation between events, exact event
// times, input errors, and the CLI's table, CSV files and exit codes.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "articula/articula.hpp"
#include "test_models.hpp"

namespace articula {
namespace {

const Model& rx130() {
  static const Model m = load_urdf(test::model_path("rx130_standin"));
  return m;
}
const Model& pendulum() {
  static const Model m = load_urdf(test::model_path("pendulum3r"));
  return m;
}

BrakeStudyResult run(const Model& model, BrakeStudyConfig c, JumpForm form) {
  c.jump = form;
  return run_brake_study(model, c);
}

// Every dof locked by the events up to and including `e`.
std::vector<int> locked_up_to(const BrakeStudyResult& r, std::size_t e) {
  std::vector<int> dofs;
  for (std::size_t k = 0; k <= e; ++k) dofs.insert(dofs.end(), r.events[k].dofs.begin(), r.events[k].dofs.end());
  return dofs;
}

// The consistent jump's invariants at every event: momentum balance on the free joints,
// J v⁺ = 0 for every active lock, no energy gain, and Carnot's loss ½ Δvᵀ M Δv.
void expect_consistent_events(const BrakeStudyResult& r, std::size_t expected_events) {
  ASSERT_TRUE(r.ok) << r.message;
  ASSERT_EQ(r.events.size(), expected_events);
  for (std::size_t e = 0; e < r.events.size(); ++e) {
    const BrakeEventRecord& ev = r.events[e];
    SCOPED_TRACE("event " + std::to_string(e) + " at t = " + std::to_string(ev.time));
    EXPECT_EQ(ev.form, JumpForm::Locks);
    EXPECT_LT(ev.momentum_residual, 1e-9);
    EXPECT_LT(ev.constraint_residual, 1e-12);
    for (int d : locked_up_to(r, e)) EXPECT_EQ(ev.v_plus[d], 0.0) << "dof " << d;
    EXPECT_LE(ev.kinetic_after, ev.kinetic_before + 1e-12);
    EXPECT_NEAR(ev.kinetic_before - ev.kinetic_after, ev.jump_energy, 1e-9 * (1.0 + ev.kinetic_before));
    ASSERT_EQ(ev.Lambda.size(), static_cast<Eigen::Index>(ev.dofs.size()));
    EXPECT_TRUE(ev.Lambda.allFinite());
  }
}

TEST(BrakeStudy, EstopConsistentJumpBalancesMomentumAndStopsTheLockedJoints) {
  const BrakeStudyResult r = run(rx130(), default_estop_config(ARTICULA_MODELS_DIR), JumpForm::Auto);
  expect_consistent_events(r, 3);
  // The brakes hold to the end: the locked joints keep their angle at the event.
  for (std::size_t e = 0; e < r.events.size(); ++e)
    for (int d : r.events[e].dofs) EXPECT_NEAR(r.v_final[d], 0.0, 1e-9) << "dof " << d;
  // Every event removes energy here (the arm moves fast).
  for (const BrakeEventRecord& ev : r.events) EXPECT_GT(ev.kinetic_before - ev.kinetic_after, 1e-3);
}

TEST(BrakeStudy, EstopNaiveJumpViolatesMomentumBalance) {
  const BrakeStudyResult r = run(rx130(), default_estop_config(ARTICULA_MODELS_DIR), JumpForm::Naive);
  ASSERT_TRUE(r.ok) << r.message;
  ASSERT_EQ(r.events.size(), 3u);
  for (std::size_t e = 0; e < r.events.size(); ++e) {
    const BrakeEventRecord& ev = r.events[e];
    SCOPED_TRACE("event " + std::to_string(e));
    EXPECT_EQ(ev.form, JumpForm::Naive);
    EXPECT_GT(ev.momentum_residual, 0.1);  // kg m²/s: the free joints keep their rates
    for (int d : locked_up_to(r, e)) EXPECT_EQ(ev.v_plus[d], 0.0);
    // The rates of the joints not braked yet are kept unchanged.
    const std::vector<int> locked = locked_up_to(r, e);
    for (Eigen::Index i = 0; i < ev.v_plus.size(); ++i)
      if (std::find(locked.begin(), locked.end(), static_cast<int>(i)) == locked.end()) {
        EXPECT_EQ(ev.v_plus[i], ev.v_minus[i]);
      }
  }
}

TEST(BrakeStudy, ConsistentJumpIsTheMassMetricClosestAdmissibleVelocity) {
  // At the first event both runs start from the same state: the consistent v⁺ is the M-orthogonal
  // projection of v⁻ on ker J (Gauss / Carnot), so its ½‖v⁺ − v⁻‖²_M is the smallest of all
  // admissible velocities, the naive one included.
  const BrakeStudyConfig c = default_estop_config(ARTICULA_MODELS_DIR);
  const BrakeStudyResult cons = run(rx130(), c, JumpForm::Auto), naive = run(rx130(), c, JumpForm::Naive);
  ASSERT_FALSE(cons.events.empty());
  ASSERT_FALSE(naive.events.empty());
  const BrakeEventRecord &a = cons.events.front(), &b = naive.events.front();
  ASSERT_TRUE(a.v_minus.isApprox(b.v_minus, 1e-14));
  EXPECT_DOUBLE_EQ(a.kinetic_before, b.kinetic_before);
  EXPECT_LT(a.jump_energy, b.jump_energy);
  // Both are admissible, and the consistent loss equals its jump energy (Carnot); the naive
  // one does not (its energy change has no such closed form).
  EXPECT_NEAR(a.kinetic_before - a.kinetic_after, a.jump_energy, 1e-9 * a.kinetic_before);
  EXPECT_GT(std::abs((b.kinetic_before - b.kinetic_after) - b.jump_energy), 1e-3);
}

TEST(BrakeStudy, NaiveJumpCanEvenGainEnergy) {
  // Not a theorem the other way round: KE after the naive jump is not bounded by the consistent
  // one. Shoulder of the 3R pendulum braked while it turns against the other two joints:
  // ΔKE_naive = −(v_Fᵀ M_FL v_L + ½ M_LL v_L²) > 0 when the coupling term dominates.
  BrakeStudyConfig c = default_pendulum_config(ARTICULA_MODELS_DIR);
  c.v0 = Vector3(1.0, -3.0, 0.5);
  c.events = {{0.0, {"joint1"}}};
  c.duration = 0.01;
  const BrakeStudyResult cons = run(pendulum(), c, JumpForm::Auto), naive = run(pendulum(), c, JumpForm::Naive);
  ASSERT_EQ(cons.events.size(), 1u);
  ASSERT_EQ(naive.events.size(), 1u);
  EXPECT_LE(cons.events[0].kinetic_after, cons.events[0].kinetic_before);
  EXPECT_GT(naive.events[0].kinetic_after, naive.events[0].kinetic_before + 0.1);  // energy from nowhere
  EXPECT_GT(naive.events[0].kinetic_after, cons.events[0].kinetic_after);
}

TEST(BrakeStudy, EstopConsistentAndNaiveStopAtDifferentPlaces) {
  const BrakeStudyConfig c = default_estop_config(ARTICULA_MODELS_DIR);
  const BrakeStudyResult cons = run(rx130(), c, JumpForm::Auto), naive = run(rx130(), c, JumpForm::Naive);
  EXPECT_GT((cons.flange_final - naive.flange_final).norm(), 1e-3);  // > 1 mm
  for (const BrakeStudyResult* r : {&cons, &naive}) {
    EXPECT_GT(r->straight_distance, 0.0);
    EXPECT_GE(r->stop_distance, r->straight_distance);  // a path is never shorter than its chord
    EXPECT_NEAR(r->straight_distance, (r->flange_final - r->flange_first_event).norm(), 1e-15);
    EXPECT_EQ(r->flange_first_event, r->events.front().flange);
  }
}

TEST(BrakeStudy, EnergyIsConservedBetweenEvents) {
  // No damping and workless locks: E = T + V is constant on each segment (RK4 error only).
  const BrakeStudyConfig c = default_estop_config(ARTICULA_MODELS_DIR);
  for (JumpForm f : {JumpForm::Auto, JumpForm::Naive}) {
    const BrakeStudyResult r = run(rx130(), c, f);
    EXPECT_LT(r.energy_drift, 1e-6) << to_string(f);
    EXPECT_GT(r.energy_drift, 0.0) << to_string(f) << ": the check must see something";
  }
}

TEST(BrakeStudy, StepsLandExactlyOnEventTimes) {
  BrakeStudyConfig c = default_estop_config(ARTICULA_MODELS_DIR);
  c.events = {{0.0123, {"joint_2"}}, {0.0501, {"joint_1", "joint_4"}}};
  c.duration = 0.1;
  const BrakeStudyResult r = run(rx130(), c, JumpForm::Auto);
  expect_consistent_events(r, 2);
  EXPECT_EQ(r.events[0].time, 0.0123);
  EXPECT_EQ(r.events[1].time, 0.0501);
  EXPECT_EQ(r.events[1].constraint, "brake_joint_1+joint_4");
  EXPECT_EQ(r.events[1].dofs.size(), 2u);
  EXPECT_EQ(r.trajectory.front().t, 0.0);
  EXPECT_EQ(r.trajectory.back().t, 0.1);
  // Pre- and post-jump samples at each event time; the velocities differ across the jump.
  for (const BrakeEventRecord& ev : r.events) {
    int at = 0;
    for (const BrakeSample& s : r.trajectory) at += s.t == ev.time;
    EXPECT_EQ(at, 2) << ev.time;
  }
  EXPECT_EQ(r.steps, 100 + 2);  // the grid k·dt, two steps cut by the events
  for (const BrakeSample& s : r.trajectory) {
    const double k = std::round(s.t / c.dt);
    if (s.t != 0.0123 && s.t != 0.0501) {
      EXPECT_NEAR(s.t, k * c.dt, 1e-15) << "off the grid";
    }
  }
}

TEST(BrakeStudy, PendulumDefault) {
  const BrakeStudyConfig c = default_pendulum_config(ARTICULA_MODELS_DIR);
  const BrakeStudyResult cons = run(pendulum(), c, JumpForm::Auto), naive = run(pendulum(), c, JumpForm::Naive);
  expect_consistent_events(cons, 2);
  EXPECT_EQ(cons.flange_frame, "tip");
  EXPECT_LT(cons.energy_drift, 1e-6);
  EXPECT_LT(naive.energy_drift, 1e-6);
  ASSERT_EQ(naive.events.size(), 2u);
  EXPECT_GT(naive.events[0].momentum_residual, 0.1);  // joint1 and joint3 swing when joint2 locks
  EXPECT_GT((cons.flange_final - naive.flange_final).norm(), 1e-3);
  // Starts at rest, horizontal: the tip starts at (3, 0, 0) and the first sample has no energy.
  EXPECT_EQ(cons.trajectory.front().kinetic_energy, 0.0);
}

TEST(BrakeStudy, SamplingPeriod) {
  BrakeStudyConfig c = default_pendulum_config(ARTICULA_MODELS_DIR);
  c.sample_period = 0.1;
  const BrakeStudyResult r = run(pendulum(), c, JumpForm::Auto);
  // t = 0, 0.1 … 1.0 (11) plus the pre/post pair at each event (0.3 and 0.6 are sample times:
  // one extra post-jump row each).
  EXPECT_EQ(r.trajectory.size(), 13u);
}

TEST(BrakeStudy, BadInputThrowsNamingTheProblem) {
  const BrakeStudyConfig base = default_estop_config(ARTICULA_MODELS_DIR);
  auto expect_throw = [&](auto edit, std::initializer_list<std::string> parts) {
    BrakeStudyConfig c = base;
    edit(c);
    EXPECT_TRUE(test::throws_with<std::invalid_argument>([&] { run_brake_study(rx130(), c); }, parts));
  };
  expect_throw([](BrakeStudyConfig& c) { c.events.push_back({0.2, {"nojoint"}}); }, {"nojoint", "joint_1"});
  expect_throw([](BrakeStudyConfig& c) { c.events.push_back({0.2, {"joint_1"}}); }, {"joint_1", "twice"});
  expect_throw([](BrakeStudyConfig& c) { c.events.push_back({0.2, {}}); }, {"no joint"});
  expect_throw([](BrakeStudyConfig& c) { c.events.push_back({0.7, {"joint_5"}}); }, {"0.7", "outside"});
  expect_throw([](BrakeStudyConfig& c) { c.q0 = VectorX::Zero(3); }, {"q0", "3", "6"});
  expect_throw([](BrakeStudyConfig& c) { c.v0 = VectorX::Zero(7); }, {"v0", "7", "6"});
  expect_throw([](BrakeStudyConfig& c) { c.duration = -1.0; }, {"duration", "-1"});
  expect_throw([](BrakeStudyConfig& c) { c.dt = 0.0; }, {"dt"});
  expect_throw([](BrakeStudyConfig& c) { c.flange_frame = "nowhere"; }, {"nowhere"});
  BrakeStudyConfig missing = base;
  missing.urdf = "/nonexistent/robot.urdf";
  EXPECT_TRUE(test::throws_with<std::runtime_error>([&] { run_brake_study(missing); }, {"/nonexistent/robot.urdf"}));
}

// --- the CLI --------------------------------------------------------------------------------

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "articula_estop_XXXXXX").string();
    path = ::mkdtemp(tmpl.data()) ? tmpl : std::string();
  }
  ~TempDir() {
    std::error_code ec;
    if (!path.empty()) std::filesystem::remove_all(path, ec);
  }
};

std::string first_line(const std::filesystem::path& file, std::size_t* lines = nullptr) {
  std::ifstream in(file);
  std::string line, first;
  std::size_t n = 0;
  while (std::getline(in, line)) {
    if (n++ == 0) first = line;
  }
  if (lines) *lines = n;
  return first;
}

TEST(EstopCli, WritesTheTableAndBothCsvFiles) {
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  const test::CliResult r = test::run_cli("estop -o '" + dir.path.string() + "/out'");
  ASSERT_EQ(r.code, 0) << r.output;
  for (const char* s : {"rx130_standin", "KE before", "KE after", "mom. residual", "consistent", "naive", "joint_1",
                        "joint_3", "flange stop distance", "straight-line", "differ by", "estop_naive.csv"})
    EXPECT_NE(r.output.find(s), std::string::npos) << s << " missing from:\n" << r.output;
  // The engine's telemetry (docs/telemetry.md): state, accelerations, the flange position
  // sensor, the brakes' multipliers, energies; events and the run status alongside.
  const std::string header =
      "t,q.joint_1,q.joint_2,q.joint_3,q.joint_4,q.joint_5,q.joint_6,"
      "v.joint_1,v.joint_2,v.joint_3,v.joint_4,v.joint_5,v.joint_6,"
      "a.joint_1,a.joint_2,a.joint_3,a.joint_4,a.joint_5,a.joint_6,"
      "sensor.flange.x,sensor.flange.y,sensor.flange.z,"
      "lambda.brake_joint_1.0,lambda.brake_joint_2.0,lambda.brake_joint_3.0,"
      "energy.kinetic,energy.potential,energy.total";
  for (const char* stem : {"estop_consistent", "estop_naive"}) {
    std::size_t lines = 0;
    EXPECT_EQ(first_line(dir.path / "out" / (std::string(stem) + ".csv"), &lines), header) << stem;
    EXPECT_GT(lines, 500u) << stem;  // a row per 1 ms step over 0.5 s, plus the event rows
    EXPECT_EQ(first_line(dir.path / "out" / (std::string(stem) + ".events.csv"), &lines),
              "time,name,actions,kinetic_before,kinetic_after,potential,momentum_residual,constraint_residual");
    EXPECT_EQ(lines, 4u) << stem;  // three brakes
    EXPECT_EQ(first_line(dir.path / "out" / (std::string(stem) + ".status.yaml")), "status: completed") << stem;
  }
}

TEST(EstopCli, PendulumConsistentOnly) {
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  const test::CliResult r = test::run_cli("estop --pendulum --jump consistent -o '" + dir.path.string() + "'");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("pendulum3r"), std::string::npos) << r.output;
  EXPECT_EQ(first_line(dir.path / "estop_consistent.csv"),
            "t,q.joint1,q.joint2,q.joint3,v.joint1,v.joint2,v.joint3,a.joint1,a.joint2,a.joint3,"
            "sensor.flange.x,sensor.flange.y,sensor.flange.z,lambda.brake_joint2.0,lambda.brake_joint3.0,"
            "energy.kinetic,energy.potential,energy.total");
  EXPECT_FALSE(std::filesystem::exists(dir.path / "estop_naive.csv"));
}

TEST(EstopCli, BadInputExitsWithCode2AndNamesTheProblem) {
  TempDir dir;
  ASSERT_FALSE(dir.path.empty());
  const std::string o = " -o '" + dir.path.string() + "'";
  struct Case {
    std::string args, expected;
  };
  for (const Case& c : {Case{"estop --brakes nojoint@0.1", "nojoint"}, Case{"estop --brakes joint_1", "JOINT@SECONDS"},
                        Case{"estop --q0 0.1,0.2", "--q0"}, Case{"estop --v0 1,2,x,4,5,6", "'x'"},
                        Case{"estop --duration -1", "--duration"}, Case{"estop --brakes joint_1@0.9", "outside"},
                        Case{"estop --model /nonexistent/robot.urdf", "/nonexistent/robot.urdf"},
                        Case{"estop --flange nowhere", "nowhere"}, Case{"estop --jump sideways", "sideways"}}) {
    const test::CliResult r = test::run_cli(c.args + o);
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.expected), std::string::npos) << c.args << "\n" << r.output;
  }
  EXPECT_TRUE(std::filesystem::is_empty(dir.path)) << "bad input writes nothing";
}

}  // namespace
}  // namespace articula
