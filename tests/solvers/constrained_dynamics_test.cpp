// The three constrained-dynamics solvers against each other, redundancy, joint locks
// against a model with the joint made fixed, and failure reporting.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "test_support.hpp"

namespace articula {
namespace {

struct Combo {
  std::string model;  // stem in all_models()
  std::vector<std::shared_ptr<Constraint>> (*make)(const Model&);
};
// What gtest prints for a combination (not its raw bytes, which hold heap addresses).
void PrintTo(const Combo& c, std::ostream* os) { *os << c.model; }

std::vector<std::shared_ptr<Constraint>> tip_point(const Model&) {
  return {std::make_shared<FrameConstraint>("tip", "tip", AxisMask::parse("xz"))};
}
std::vector<std::shared_ptr<Constraint>> ur5_point_lock(const Model&) {
  return {std::make_shared<FrameConstraint>("tool", "tool0", AxisMask::point()),
          std::make_shared<JointLock>("brake", std::vector<std::string>{"wrist_3_joint"})};
}
std::vector<std::shared_ptr<Constraint>> panda_weld(const Model&) {
  return {std::make_shared<FrameConstraint>("hand", "panda_hand", AxisMask::weld())};
}
std::vector<std::shared_ptr<Constraint>> panda_loop_distance(const Model&) {
  return {std::make_shared<LoopConstraint>("loop", "panda_hand", "panda_link3", AxisMask::point()),
          std::make_shared<DistanceConstraint>("dist", "panda_link5", "panda_link0")};
}
std::vector<std::shared_ptr<Constraint>> solo_feet(const Model&) {
  std::vector<std::shared_ptr<Constraint>> out;
  for (const char* f : {"FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"})
    out.push_back(std::make_shared<FrameConstraint>(std::string(f), f, AxisMask::point()));
  return out;
}
std::vector<std::shared_ptr<Constraint>> talos_feet(const Model&) {
  return {std::make_shared<FrameConstraint>("left", "left_sole_link", AxisMask::weld()),
          std::make_shared<FrameConstraint>("right", "right_sole_link", AxisMask::weld()),
          std::make_shared<JointLock>("head", std::vector<std::string>{"head_1_joint", "head_2_joint"})};
}
std::vector<std::shared_ptr<Constraint>> talos_base_lock(const Model& model) {
  // A free-flyer lock (6 rows from one multi-dof joint) plus a hand held on the z axis only.
  return {std::make_shared<JointLock>(model, "base", std::vector<std::string>{"root_joint"}),
          std::make_shared<FrameConstraint>("hand", "arm_left_7_link", AxisMask::parse("z"))};
}
std::vector<std::shared_ptr<Constraint>> rx_weld_lock(const Model&) {
  return {std::make_shared<FrameConstraint>("flange", "flange", AxisMask::parse("xyzrz")),
          std::make_shared<JointLock>("brake", std::vector<std::string>{"joint_1"})};
}

class SolversAgree : public ::testing::TestWithParam<Combo> {};

TEST_P(SolversAgree, SameAccelerationAndMultipliers) {
  const Combo& combo = GetParam();
  test::ModelCase mc;
  for (const auto& c : test::all_models())
    if (c.name == combo.model) mc = c;
  for (bool armature : {false, true}) {
    Model model = test::load(mc);
    if (armature) test::add_armature(model);
    Data data(model);
    ConstraintSet set(model);
    for (auto& c : combo.make(model)) set.add(c);
    ConstrainedWorkspace ws(model);
    std::mt19937 rng(7);
    for (int trial = 0; trial < 5; ++trial) {
      const VectorX q = random_configuration(model, rng);
      const VectorX v = test::random_vector(model.nv, rng);
      const VectorX tau = test::random_vector(model.nv, rng, 5.0);
      for (const auto& name : set.names()) set.disable(name), set.enable(name);  // fresh references at q
      std::vector<VectorX> ddq, lambda;
      std::vector<SolveReport> reports;
      for (auto method : {ConstrainedMethod::Kkt, ConstrainedMethod::RangeSpace, ConstrainedMethod::NullSpace}) {
        reports.push_back(constrained_forward_dynamics(model, data, ws, set, q, v, tau, {}, method));
        ASSERT_TRUE(reports.back().ok()) << to_string(method) << ": " << reports.back().message;
        ddq.push_back(data.ddq);
        lambda.push_back(ws.lambda.head(set.dim()));
        EXPECT_LT(reports.back().residual, 1e-8 * (1 + ddq.back().norm())) << to_string(method);
      }
      for (int k = 1; k < 3; ++k) {
        EXPECT_LT(test::rel_err(ddq[k], ddq[0]), 1e-9) << combo.model << " method " << k;
        if (reports[0].status == SolveStatus::Ok) {
          EXPECT_LT(test::rel_err(lambda[k], lambda[0]), 1e-9) << combo.model;
        }
      }
      // Physics: M v̇ + h = τ + Jᵀ λ and J v̇ + γ = 0.
      crba(model, data, q);
      const VectorX h = nonlinear_effects(model, data, q, v);
      set.compute_rows(model, data, q, v);
      EXPECT_LT(test::rel_err(data.M * ddq[0] + h, tau + set.J().transpose() * lambda[0]), 1e-9);
      EXPECT_LT((set.J() * ddq[0] + set.gamma()).norm(), 1e-8 * (1 + ddq[0].norm()));
      // Auto picks a method and agrees.
      const SolveReport rep = constrained_forward_dynamics(model, data, ws, set, q, v, tau);
      EXPECT_TRUE(rep.ok());
      EXPECT_LT(test::rel_err(data.ddq, ddq[0]), 1e-9);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Models, SolversAgree,
                         ::testing::Values(Combo{"pendulum3r", tip_point}, Combo{"ur5", ur5_point_lock},
                                           Combo{"panda", panda_weld}, Combo{"panda", panda_loop_distance},
                                           Combo{"solo12", solo_feet}, Combo{"talos", talos_feet},
                                           Combo{"talos", talos_base_lock}, Combo{"rx130_standin", rx_weld_lock}),
                         [](const auto& info) { return info.param.model + "_" + std::to_string(info.index); });

// Joint locks only: Auto takes hybrid dynamics (ABA with the locked accelerations given,
// RBDA §9.2) and must agree with the range-space solve of the same unit rows, Baumgarte
// terms, armature and external forces included; a dof locked twice falls back.
TEST(ConstrainedDynamics, HybridLocksEqualRangeSpace) {
  for (const auto& mc : test::all_models()) {
    Model model = test::load(mc);
    test::add_armature(model);
    Data data(model);
    ConstraintSet set(model);
    std::vector<std::string> names;
    for (Index j = 0; j < model.njoints; ++j)
      if (model.nv_joint[j] > 0) names.push_back(model.joint_names[j]);
    set.add(std::make_shared<JointLock>(model, "first", std::vector<std::string>{names.front()}));
    set.add(
        std::make_shared<JointLock>(model, "pair", std::vector<std::string>{names[names.size() / 2], names.back()}));
    ConstrainedWorkspace ws(model);
    std::mt19937 rng(11);
    for (int trial = 0; trial < 4; ++trial) {
      const VectorX q0 = random_configuration(model, rng);
      for (const auto& name : set.names()) set.disable(name), set.enable(name);
      VectorX zero = VectorX::Zero(model.nv);
      set.compute_rows(model, data, q0, zero);  // references at q0
      // Evaluate slightly away from the reference: non-zero position errors and rates.
      const VectorX q = integrate(model, q0, test::random_vector(model.nv, rng, 0.05), 1.0);
      const VectorX v = test::random_vector(model.nv, rng);
      const VectorX tau = test::random_vector(model.nv, rng, 5.0);
      std::vector<Force> f_ext(static_cast<std::size_t>(model.njoints));
      for (auto& f : f_ext) f = Force::from(test::random_vector(6, rng));
      const SolveReport hybrid = constrained_forward_dynamics(model, data, ws, set, q, v, tau, f_ext);
      ASSERT_TRUE(hybrid.ok()) << mc.name << ": " << hybrid.message;
      EXPECT_EQ(hybrid.method, ConstrainedMethod::Hybrid) << mc.name;
      EXPECT_LT(hybrid.residual, 1e-12) << mc.name;
      const VectorX ddq = data.ddq, lambda = ws.lambda.head(set.dim());
      const SolveReport range =
          constrained_forward_dynamics(model, data, ws, set, q, v, tau, f_ext, ConstrainedMethod::RangeSpace);
      ASSERT_TRUE(range.ok()) << mc.name;
      EXPECT_LT(test::rel_err(ddq, data.ddq), 1e-9) << mc.name;
      EXPECT_LT(test::rel_err(lambda, ws.lambda.head(set.dim())), 1e-9) << mc.name;
      EXPECT_GT(set.gamma().cwiseAbs().maxCoeff(), 1e-3) << mc.name << ": Baumgarte terms exercised";
    }
    // The same joint locked twice: dependent rows, left to the rank-revealing range space.
    set.add(std::make_shared<JointLock>(model, "again", std::vector<std::string>{names.front()}));
    std::mt19937 rng2(5);
    const VectorX q = random_configuration(model, rng2), v = test::random_vector(model.nv, rng2);
    for (const auto& name : set.names()) set.disable(name), set.enable(name);  // one reference for both
    const SolveReport rep = constrained_forward_dynamics(model, data, ws, set, q, v, VectorX::Zero(model.nv));
    EXPECT_TRUE(rep.ok()) << mc.name << ": " << rep.message;
    EXPECT_NE(rep.method, ConstrainedMethod::Hybrid) << mc.name;
    EXPECT_EQ(rep.status, SolveStatus::Redundant) << mc.name;
  }
  EXPECT_EQ(parse_method("hybrid"), ConstrainedMethod::Hybrid);
  EXPECT_EQ(to_string(ConstrainedMethod::Hybrid), "hybrid");
}

TEST(ConstrainedDynamics, NoConstraintEqualsAba) {
  const Model model = load_urdf(test::model_path("talos_reduced"), BaseType::Floating);
  Data data(model);
  ConstraintSet set(model);
  ConstrainedWorkspace ws(model);
  std::mt19937 rng(3);
  const VectorX q = random_configuration(model, rng), v = test::random_vector(model.nv, rng);
  const VectorX tau = test::random_vector(model.nv, rng);
  const VectorX ref = aba(model, data, q, v, tau);
  for (auto method :
       {ConstrainedMethod::Auto, ConstrainedMethod::Kkt, ConstrainedMethod::RangeSpace, ConstrainedMethod::NullSpace}) {
    ASSERT_TRUE(constrained_forward_dynamics(model, data, ws, set, q, v, tau, {}, method).ok());
    EXPECT_LT(test::rel_err(data.ddq, ref), 1e-10) << to_string(method);
  }
}

TEST(ConstrainedDynamics, RedundantRowsGiveUniqueAcceleration) {
  // Two welds on one body, and the same loop closed twice: dependent rows.
  const Model model = load_urdf(test::model_path("panda"));
  Data data(model);
  ConstrainedWorkspace ws(model);
  std::mt19937 rng(11);
  const VectorX q = random_configuration(model, rng), v = test::random_vector(model.nv, rng);
  const VectorX tau = test::random_vector(model.nv, rng);
  ConstraintSet single(model);
  single.add(std::make_shared<FrameConstraint>("w1", "panda_hand", AxisMask::weld()));
  ASSERT_TRUE(constrained_forward_dynamics(model, data, ws, single, q, v, tau).ok());
  const VectorX ref = data.ddq;
  ConstraintSet doubled(model);
  doubled.add(std::make_shared<FrameConstraint>("w1", "panda_hand", AxisMask::weld()));
  doubled.add(std::make_shared<FrameConstraint>("w2", "panda_hand", AxisMask::weld()));
  for (auto method : {ConstrainedMethod::Kkt, ConstrainedMethod::RangeSpace, ConstrainedMethod::NullSpace}) {
    const SolveReport r = constrained_forward_dynamics(model, data, ws, doubled, q, v, tau, {}, method);
    EXPECT_EQ(r.status, SolveStatus::Redundant) << to_string(method);
    EXPECT_EQ(r.rank, 6) << to_string(method);
    EXPECT_LT(test::rel_err(data.ddq, ref), 1e-8) << to_string(method);
    EXPECT_TRUE(data.ddq.allFinite());
  }
}

TEST(ConstrainedDynamics, ARowTheMechanismCannotMoveAlongIsDependentNotTiny) {
  // pendulum3r swings in the world x–z plane: the tip's world y row, and the distance between
  // two origins on one link, are zero up to round-off (found by fuzzing: each used to be taken
  // as a tiny independent row, λ ~ 1e16, acting as another constraint). Now: rank 0, the
  // unconstrained acceleration.
  const Model model = load_urdf(test::model_path("pendulum3r"));
  Data data(model);
  ConstrainedWorkspace ws(model);
  std::mt19937 rng(12);
  const VectorX q = random_configuration(model, rng), v = test::random_vector(model.nv, rng);
  const VectorX tau = test::random_vector(model.nv, rng);
  const VectorX free = aba(model, data, q, v, tau);
  ConstraintSet y(model), dist(model);
  y.add(std::make_shared<FrameConstraint>("y", "tip", AxisMask::parse("y")));
  dist.add(std::make_shared<DistanceConstraint>("d", "link2", "link1"));
  for (ConstraintSet* set : {&y, &dist})
    for (auto method : {ConstrainedMethod::Kkt, ConstrainedMethod::RangeSpace, ConstrainedMethod::NullSpace}) {
      const SolveReport r = constrained_forward_dynamics(model, data, ws, *set, q, v, tau, {}, method);
      EXPECT_EQ(r.status, SolveStatus::Redundant) << to_string(method);
      EXPECT_EQ(r.rank, 0) << to_string(method);
      EXPECT_LT(test::rel_err(data.ddq, free), 1e-9) << to_string(method);
    }
}

TEST(ConstrainedDynamics, AWheelLyingFlatIsAnErrorNamingIt) {
  // pendulum3r's link1 has its local z along world −y: a wheel about local z on a plane with
  // normal −y lies flat (found by fuzzing: it acted as a lock of joint1, λ ~ −3.5e5).
  const Model model = load_urdf(test::model_path("pendulum3r"));
  Data data(model);
  ConstraintSet set(model);
  set.add(std::make_shared<WheelConstraint>("w", "link1", 0.1, Vector3::UnitZ(), -Vector3::UnitY()));
  try {
    set.compute_rows(model, data, neutral(model), VectorX::Zero(model.nv));
    ADD_FAILURE() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("constraint 'w': the wheel lies flat"), std::string::npos) << e.what();
  }
}

TEST(ConstrainedDynamics, NonFiniteStateIsReportedNotThrown) {
  const Model model = load_urdf(test::model_path("ur5"));
  Data data(model);
  ConstrainedWorkspace ws(model);
  ConstraintSet set(model);
  set.add(std::make_shared<FrameConstraint>("tool", "tool0", AxisMask::point()));
  VectorX q = neutral(model), v = VectorX::Zero(model.nv), tau = VectorX::Zero(model.nv);
  v[2] = std::numeric_limits<double>::quiet_NaN();
  const SolveReport r = constrained_forward_dynamics(model, data, ws, set, q, v, tau);
  EXPECT_EQ(r.status, SolveStatus::NonFinite);
  EXPECT_FALSE(r.ok());
}

// A joint lock at q_j = 0, v_j = 0 gives the motion of the model with that joint fixed.
TEST(ConstrainedDynamics, JointLockEqualsFixedJoint) {
  std::ifstream in(test::model_path("ur5"));
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string xml = ss.str();
  const std::string fixed_xml = std::regex_replace(xml, std::regex("name=\"elbow_joint\" type=\"revolute\""),
                                                   "name=\"elbow_joint\" type=\"fixed\"");
  ASSERT_NE(xml, fixed_xml);
  Model full = load_urdf_string(xml);
  Model reduced = load_urdf_string(fixed_xml);
  test::add_armature(full);
  ASSERT_EQ(reduced.nv, full.nv - 1);
  const int j = full.idx_v[full.joint_id("elbow_joint")];
  for (int k = 0, r = 0; k < full.nv; ++k)
    if (k != j) reduced.armature[r++] = full.armature[k];
  Data dfull(full), dred(reduced);
  ConstraintSet set(full);
  set.add(std::make_shared<JointLock>("brake", std::vector<std::string>{"elbow_joint"}, VectorX::Zero(1)));
  ConstrainedWorkspace ws(full);
  std::mt19937 rng(5);
  for (int trial = 0; trial < 5; ++trial) {
    VectorX q = random_configuration(full, rng), v = test::random_vector(full.nv, rng);
    VectorX tau = test::random_vector(full.nv, rng);
    q[j] = 0.0;
    v[j] = 0.0;
    auto drop = [&](const VectorX& x) {
      VectorX y(full.nv - 1);
      for (int k = 0, r = 0; k < full.nv; ++k)
        if (k != j) y[r++] = x[k];
      return y;
    };
    const VectorX ref = aba(reduced, dred, drop(q), drop(v), drop(tau));
    for (auto method : {ConstrainedMethod::Kkt, ConstrainedMethod::RangeSpace, ConstrainedMethod::NullSpace}) {
      ASSERT_TRUE(constrained_forward_dynamics(full, dfull, ws, set, q, v, tau, {}, method).ok());
      EXPECT_NEAR(dfull.ddq[j], 0.0, 1e-10);
      EXPECT_LT(test::rel_err(drop(dfull.ddq), ref), 1e-10) << to_string(method);
    }
  }
}

TEST(ConstrainedDynamics, ExternalForcesEnterLikeAba) {
  const Model model = load_urdf(test::model_path("solo12"), BaseType::Floating);
  Data data(model);
  ConstrainedWorkspace ws(model);
  ConstraintSet set(model);
  std::mt19937 rng(2);
  const VectorX q = random_configuration(model, rng), v = test::random_vector(model.nv, rng);
  const VectorX tau = test::random_vector(model.nv, rng);
  std::vector<Force> f(model.njoints);
  for (auto& fi : f) fi = Force::from(test::random_vector(6, rng));
  const VectorX ref = aba(model, data, q, v, tau, f);
  for (auto method : {ConstrainedMethod::Kkt, ConstrainedMethod::RangeSpace, ConstrainedMethod::NullSpace}) {
    set.add(std::make_shared<FrameConstraint>("dummy", "FL_FOOT", AxisMask::point()), false);
    ASSERT_TRUE(constrained_forward_dynamics(model, data, ws, set, q, v, tau, f, method).ok());
    EXPECT_LT(test::rel_err(data.ddq, ref), 1e-10);
    set.remove("dummy");
  }
}

}  // namespace
}  // namespace articula
