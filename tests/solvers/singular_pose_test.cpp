// Dependent rows at a kinematic singularity (issue 16): the 3R pendulum held straight and
// horizontal, at full reach, with its tip held (x z, point, weld). The tip's x row of J is zero
// there, a dependent row; the rows are consistent at rest, and once the chain moves the drift
// J̇v leaves range J (a singular pose, not a contradiction). Also: duplicate locks and loops,
// a truly inconsistent set, and velocity jumps at the singular pose.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "test_support.hpp"

namespace articula {
namespace {

const ConstrainedMethod kMethods[] = {ConstrainedMethod::Kkt, ConstrainedMethod::RangeSpace,
                                      ConstrainedMethod::NullSpace};

struct Hold {
  const char* axes;
  int rank_straight;        // rank of the tip's rows at q = 0 (planar: x, y, rx, rz rows vanish)
  const char* independent;  // the rows that stay independent there
};
const Hold kHolds[] = {{"xz", 1, "z"}, {"point", 1, "z"}, {"weld", 2, "zry"}};

std::unique_ptr<ConstraintSet> tip_held(const Model& model, const std::string& axes) {
  auto set = std::make_unique<ConstraintSet>(model);
  set->add(std::make_shared<FrameConstraint>("tip", "tip", AxisMask::parse(axes)));
  return set;
}

// At rest at q = 0 the rows are dependent and consistent: Redundant (not Inconsistent), the
// rank of the independent rows, J v̇ + γ = 0 to round-off, the same v̇ and minimum-norm λ from
// every method, equal to the solve with only the independent rows.
TEST(SingularPose, StraightChainAtRestIsRedundantNotInconsistent) {
  const Model model = load_urdf(test::model_path("pendulum3r"));
  Data data(model);
  ConstrainedWorkspace ws(model);
  const VectorX q = VectorX::Zero(3), v = VectorX::Zero(3), tau = VectorX::Zero(3);
  for (const Hold& hold : kHolds) {
    auto reduced = tip_held(model, hold.independent);
    ASSERT_EQ(constrained_forward_dynamics(model, data, ws, *reduced, q, v, tau, {}, ConstrainedMethod::Kkt).status,
              SolveStatus::Ok);
    const VectorX ref = data.ddq;
    const VectorX ref_lambda = ws.lambda.head(reduced->dim());
    const VectorX ref_force = reduced->J().transpose() * ref_lambda;
    EXPECT_GT(ref.norm(), 1.0) << "gravity bends the chain at first order";
    for (ConstrainedMethod method : kMethods) {
      auto set = tip_held(model, hold.axes);
      const SolveReport r = constrained_forward_dynamics(model, data, ws, *set, q, v, tau, {}, method);
      const std::string what = std::string(hold.axes) + " / " + to_string(method);
      EXPECT_EQ(r.status, SolveStatus::Redundant) << what << ": " << r.message;
      EXPECT_TRUE(r.ok()) << what;
      EXPECT_EQ(r.rank, hold.rank_straight) << what;
      EXPECT_LT(r.residual, 1e-12) << what;
      EXPECT_LT(test::rel_err(data.ddq, ref), 1e-12) << what;
      // The same generalized constraint force, and λ minimum-norm: nothing on the vanished rows.
      const auto lambda = ws.lambda.head(set->dim());
      EXPECT_LT(test::rel_err(set->J().transpose() * lambda, ref_force), 1e-12) << what;
      EXPECT_NEAR(lambda.norm(), ref_lambda.norm(), 1e-12 * (1.0 + ref_lambda.norm())) << what;
    }
  }
}

// Moving in ker J at q = 0, the drift J̇v has a component along the vanished x row that no v̇
// can meet: a singular pose. The positions agree, so this is not a contradiction: ok(), the
// least-squares v̇ (the same from every method), the independent rows met to round-off.
TEST(SingularPose, DriftLeavingRangeJIsASingularPoseNotAFailure) {
  const Model model = load_urdf(test::model_path("pendulum3r"));
  Data data(model);
  ConstrainedWorkspace ws(model);
  const VectorX q = VectorX::Zero(3), tau = VectorX::Zero(3);
  VectorX v(3);
  v << 1.0, -1.0, -1.0;  // tip z velocity 3·1 + 2·(−1) + 1·(−1) = 0
  for (const Hold& hold : kHolds) {
    if (std::string(hold.axes) == "weld") v << 1.0, -2.0, 1.0;  // also Σ q̇ = 0 (ry row)
    VectorX first;
    for (ConstrainedMethod method : kMethods) {
      auto set = tip_held(model, hold.axes);
      const SolveReport r = constrained_forward_dynamics(model, data, ws, *set, q, v, tau, {}, method);
      const std::string what = std::string(hold.axes) + " / " + to_string(method);
      EXPECT_EQ(r.status, SolveStatus::SingularPose) << what << ": " << r.message;
      EXPECT_TRUE(r.ok()) << what;
      EXPECT_EQ(r.rank, hold.rank_straight) << what;
      // The unmet part is the x row's drift −Σ (centripetal): what the x row asks.
      const Eigen::Index x = 0;
      EXPECT_NEAR(r.residual, std::abs(set->gamma()[x]), 1e-12) << what;
      EXPECT_GT(r.residual, 1.0) << what;
      const VectorX res = set->J() * data.ddq + set->gamma();
      for (Eigen::Index i = 1; i < res.size(); ++i) EXPECT_LT(std::abs(res[i]), 1e-11) << what << " row " << i;
      if (first.size() == 0) {
        first = data.ddq;
      } else {
        EXPECT_LT(test::rel_err(data.ddq, first), 1e-12) << what;
      }
    }
  }
}

struct RunStats {
  bool ok = true;
  std::string failure;
  double max_error = 0.0;         // max ‖e‖∞ (position error of the rows)
  double max_energy_drift = 0.0;  // max |E(t) − E(0)|
  VectorX q_end;
};

// RK4 on (q, v) (q̇ = v for this all-revolute chain) with constrained_forward_dynamics.
RunStats run_held(const Model& model, const std::string& axes, const VectorX& q0, ConstrainedMethod method,
                  double duration, double dt = 1e-3) {
  Data data(model);
  ConstrainedWorkspace ws(model);
  auto set = tip_held(model, axes);
  RunStats st;
  VectorX q = q0, v = VectorX::Zero(model.nv);
  const VectorX tau = VectorX::Zero(model.nv);
  auto accel = [&](const VectorX& qq, const VectorX& vv, VectorX& a) {
    const SolveReport r = constrained_forward_dynamics(model, data, ws, *set, qq, vv, tau, {}, method);
    if (!r.ok() && st.ok) {
      st.ok = false;
      st.failure = to_string(r.status) + ": " + r.message;
    }
    a = data.ddq;
  };
  const double e0 = kinetic_energy(model, data, q, v) + potential_energy(model, data, q);
  VectorX a1, a2, a3, a4;
  const int steps = static_cast<int>(std::lround(duration / dt));
  for (int s = 0; s < steps && st.ok; ++s) {
    accel(q, v, a1);
    st.max_error = std::max(st.max_error, set->error().cwiseAbs().maxCoeff());
    const VectorX v2 = v + 0.5 * dt * a1;
    accel(q + 0.5 * dt * v, v2, a2);
    const VectorX v3 = v + 0.5 * dt * a2;
    accel(q + 0.5 * dt * v2, v3, a3);
    const VectorX v4 = v + dt * a3;
    accel(q + dt * v3, v4, a4);
    q += dt / 6.0 * (v + 2.0 * v2 + 2.0 * v3 + v4);
    v += dt / 6.0 * (a1 + 2.0 * a2 + 2.0 * a3 + a4);
    const double e = kinetic_energy(model, data, q, v) + potential_energy(model, data, q);
    st.max_energy_drift = std::max(st.max_energy_drift, std::abs(e - e0));
  }
  st.q_end = q;
  return st;
}

// From rest at the straight pose, under gravity, with the tip held: the run goes on under every
// method (it used to stop at the first RK4 stage with solver_failed), the chain stays at the
// singular pose (the held tip leaves it no room: the x row's tension grows as the chain bends),
// the position errors stay tiny and the methods agree. Energy: the bent 1-dof swing keeps it to
// ~1e-9 J; the straight chain sags by ~1e-4 rad before the x row's tension (~1e5 N) holds it,
// and the energy then differs by λ·e ≈ 2e5 N · 8e-9 m ≈ 1.7e-3 J (the work of the stabilized x
// row on its small error, by that estimate; 4e-5 of the potential-energy scale), bounded.
TEST(SingularPose, StraightChainRunsUnderEveryMethod) {
  const Model model = load_urdf(test::model_path("pendulum3r"));
  const VectorX straight = VectorX::Zero(3);
  VectorX bent(3);
  bent << 0.4, -0.8, 0.3;
  const double duration = 0.2;
  // Potential energy scale: m g Σ (link centre heights at reach) ≈ 9.81 · (0.5 + 1.5 + 2.5).
  const double energy_scale = 9.81 * 4.5;
  for (const Hold& hold : kHolds) {
    VectorX first;
    const RunStats bent_run = run_held(model, hold.axes, bent, ConstrainedMethod::RangeSpace, duration);
    ASSERT_TRUE(bent_run.ok) << hold.axes << ": " << bent_run.failure;
    for (ConstrainedMethod method : kMethods) {
      const std::string what = std::string(hold.axes) + " / " + to_string(method);
      const RunStats st = run_held(model, hold.axes, straight, method, duration);
      ASSERT_TRUE(st.ok) << what << ": " << st.failure;
      EXPECT_LT(st.q_end.cwiseAbs().maxCoeff(), 1e-3) << what << ": the chain left the straight pose";
      EXPECT_LT(st.max_error, 1e-7) << what;
      EXPECT_LT(st.max_energy_drift, 1e-4 * energy_scale) << what;
      EXPECT_LT(bent_run.max_energy_drift, 1e-9 * energy_scale) << what;
      if (first.size() == 0) {
        first = st.q_end;
      } else {
        EXPECT_LT((st.q_end - first).cwiseAbs().maxCoeff(), 1e-9) << what;
      }
    }
  }
}

// A joint locked twice at the same position, and a loop closed twice: dependent, consistent rows
// under every method, the acceleration of the single constraint, the same total force.
TEST(SingularPose, DuplicateLockAndLoopRowsAreRedundant) {
  const Model model = load_urdf(test::model_path("pendulum3r"));
  Data data(model);
  ConstrainedWorkspace ws(model);
  VectorX q(3), v(3);
  q << 0.3, -0.5, 0.7;
  v << 0.2, 0.4, -0.3;
  const VectorX tau = VectorX::Zero(3);
  using Make = std::function<void(ConstraintSet&, int)>;
  const Make lock = [](ConstraintSet& s, int k) {
    s.add(std::make_shared<JointLock>("lock" + std::to_string(k), std::vector<std::string>{"joint2"}));
  };
  const Make loop = [](ConstraintSet& s, int k) {
    s.add(std::make_shared<LoopConstraint>("loop" + std::to_string(k), "tip", "link1", AxisMask::parse("xy")));
  };  // x y of link1's frame: the plane of motion (its z is world −y)
  for (const Make& make : {lock, loop}) {
    ConstraintSet single(model), doubled(model);
    make(single, 0);
    make(doubled, 0);
    make(doubled, 1);
    const SolveReport one =
        constrained_forward_dynamics(model, data, ws, single, q, v, tau, {}, ConstrainedMethod::Kkt);
    ASSERT_EQ(one.status, SolveStatus::Ok);
    const VectorX ref = data.ddq;
    const VectorX ref_force = single.J().transpose() * ws.lambda.head(single.dim());
    for (ConstrainedMethod method : {ConstrainedMethod::Auto, ConstrainedMethod::Kkt, ConstrainedMethod::RangeSpace,
                                     ConstrainedMethod::NullSpace}) {
      const SolveReport r = constrained_forward_dynamics(model, data, ws, doubled, q, v, tau, {}, method);
      EXPECT_EQ(r.status, SolveStatus::Redundant) << to_string(method) << ": " << r.message;
      EXPECT_EQ(r.rank, single.dim()) << to_string(method);
      EXPECT_LT(r.residual, 1e-10) << to_string(method);
      EXPECT_LT(test::rel_err(data.ddq, ref), 1e-10) << to_string(method);
      const auto lambda = ws.lambda.head(doubled.dim());
      EXPECT_LT(test::rel_err(doubled.J().transpose() * lambda, ref_force), 1e-10) << to_string(method);
      // Minimum norm: the two copies share the force equally.
      const int d = single.dim();
      EXPECT_LT((lambda.head(d) - lambda.tail(d)).cwiseAbs().maxCoeff(), 1e-9 * (1.0 + ref_force.norm()))
          << to_string(method);
    }
  }
}

// Two locks of one joint at different positions contradict each other at the position level:
// still Inconsistent (not ok, the message says so) under every method, also at the singular pose.
TEST(SingularPose, ContradictingRowsAreStillInconsistent) {
  const Model model = load_urdf(test::model_path("pendulum3r"));
  Data data(model);
  ConstrainedWorkspace ws(model);
  for (const double q0 : {0.0, 0.4}) {
    const VectorX q = VectorX::Constant(3, q0), v = VectorX::Zero(3), tau = VectorX::Zero(3);
    ConstraintSet set(model);
    set.add(std::make_shared<JointLock>("a", std::vector<std::string>{"joint2"}, VectorX::Constant(1, q0)));
    set.add(std::make_shared<JointLock>("b", std::vector<std::string>{"joint2"}, VectorX::Constant(1, q0 + 0.1)));
    if (q0 == 0.0) set.add(std::make_shared<FrameConstraint>("tip", "tip", AxisMask::parse("xz")));
    for (ConstrainedMethod method : {ConstrainedMethod::Auto, ConstrainedMethod::Kkt, ConstrainedMethod::RangeSpace,
                                     ConstrainedMethod::NullSpace}) {
      const SolveReport r = constrained_forward_dynamics(model, data, ws, set, q, v, tau, {}, method);
      EXPECT_EQ(r.status, SolveStatus::Inconsistent) << q0 << " / " << to_string(method);
      EXPECT_FALSE(r.ok());
      EXPECT_NE(r.message.find("contradict"), std::string::npos) << r.message;
      EXPECT_EQ(to_string(r.status), "inconsistent rows");
    }
  }
  // Explicit rows: the same row twice with different drifts.
  MatrixX J(2, 3);
  J << 0, 1, 0, 0, 1, 0;
  VectorX gamma(2);
  gamma << 0.0, 1.0;
  const VectorX q = VectorX::Zero(3), v = VectorX::Zero(3), tau = VectorX::Zero(3);
  for (ConstrainedMethod method : kMethods) {
    const SolveReport r = solve_constrained(model, data, ws, J, gamma, q, v, tau, {}, method);
    EXPECT_EQ(r.status, SolveStatus::Inconsistent) << to_string(method);
    EXPECT_NEAR(data.ddq[1], -0.5, 1e-12) << to_string(method) << ": least squares splits the difference";
  }
}

// Welding the tip of the straight chain while it moves in ker J (x z held): the new rows add only
// ry (rank 2 of 8 rows). Every consistent form gives the same v⁺, meets J v⁺ = 0, balances the
// momentum on the admissible motions and loses exactly ½ Δvᵀ M Δv (Carnot), as at a bent pose.
TEST(SingularPose, JumpAtTheStraightPoseConservesWhatItShould) {
  const Model model = load_urdf(test::model_path("pendulum3r"));
  Data data(model);
  VectorX bent(3);
  bent << 0.4, -0.8, 0.3;
  for (const VectorX& q : {VectorX(VectorX::Zero(3)), bent}) {
    const bool straight = q.isZero();
    VectorX first;
    for (JumpForm form : {JumpForm::Full, JumpForm::Range, JumpForm::Projector, JumpForm::Minimal}) {
      const std::string what = std::string(straight ? "straight" : "bent") + " / " + to_string(form);
      ConstraintSet set(model);
      set.add(std::make_shared<FrameConstraint>("tip_xz", "tip", AxisMask::parse("xz")));
      set.add(std::make_shared<FrameConstraint>("weld", "tip", AxisMask::weld()), false);
      set.compute_rows(model, data, q, VectorX::Zero(3));
      // A velocity the x z hold admits: the kernel of its rows at q.
      const Eigen::FullPivLU<MatrixX> lu(set.J());
      const MatrixX ker = lu.kernel();
      ASSERT_EQ(ker.cols(), straight ? 2 : 1) << what;
      const VectorX v_minus = ker * VectorX::LinSpaced(ker.cols(), 1.0, 2.0);
      JumpOptions options;
      options.form = form;
      const JumpResult jr = activate_constraints(model, data, set, {"weld"}, q, v_minus, options);
      ASSERT_TRUE(jr.ok()) << what << ": " << to_string(jr.status) << " " << jr.message;
      EXPECT_EQ(jr.status, SolveStatus::Redundant) << what;
      EXPECT_EQ(jr.rank, straight ? 2 : 3) << what;
      EXPECT_LT(jr.constraint_residual, 1e-12) << what;
      EXPECT_LT(jr.momentum_residual, 1e-10) << what;
      crba(model, data, q);
      const VectorX dv = jr.v_plus - jr.v_minus;
      EXPECT_NEAR(jr.kinetic_before - jr.kinetic_after, 0.5 * dv.dot(data.M * dv), 1e-10) << what;
      EXPECT_GT(jr.kinetic_before - jr.kinetic_after, 0.0) << what;
      if (first.size() == 0) {
        first = jr.v_plus;
      } else {
        EXPECT_LT(test::rel_err(jr.v_plus, first), 1e-10) << what;
      }
    }
    if (!straight) {
      EXPECT_LT(first.norm(), 1e-10) << "a bent welded chain is rigid";
    }
  }
}

// The scenario through the CLI: straight, tip held on x z, then welded at 0.15 s.
TEST(SingularPose, ScenarioRunsThroughTheCli) {
  namespace fs = std::filesystem;
  const std::string file = std::string(ARTICULA_TEST_DATA_DIR) + "/pendulum3r_straight_tip_held.yaml";
  const fs::path dir = fs::path(testing::TempDir()) / "articula_singular_pose_test";
  fs::remove_all(dir);
  for (const char* solver : {"kkt", "range", "null_space"}) {
    // The scenario names `solver: range`; the other methods through a copy with that line changed.
    std::string text;
    {
      std::ifstream in(file);
      std::stringstream ss;
      ss << in.rdbuf();
      text = ss.str();
    }
    const std::string key = "solver: range";
    ASSERT_NE(text.find(key), std::string::npos);
    text.replace(text.find(key), key.size(), std::string("solver: ") + solver);
    const fs::path scenario = dir / solver / "scenario.yaml";
    fs::create_directories(scenario.parent_path());
    // The model path is relative to the scenario file: point it at models/ from the copy.
    const std::string model_key = "../../models/pendulum3r.urdf";
    ASSERT_NE(text.find(model_key), std::string::npos);
    text.replace(text.find(model_key), model_key.size(), test::model_path("pendulum3r"));
    std::ofstream(scenario) << text;
    const test::CliResult r =
        test::run_cli("run '" + scenario.string() + "' -q -o '" + (dir / solver / "out").string() + "'");
    EXPECT_EQ(r.code, 0) << solver << ":\n" << r.output;
    EXPECT_NE(r.output.find("completed"), std::string::npos) << r.output;
  }
  const test::CliResult direct = test::run_cli("run '" + file + "' -q -o '" + (dir / "direct").string() + "'");
  EXPECT_EQ(direct.code, 0) << direct.output;
}

}  // namespace
}  // namespace articula
