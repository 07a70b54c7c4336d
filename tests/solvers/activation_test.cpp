// Velocity jumps at constraint activation: the invariants of Müller's momentum balance,
// the forms against each other, a closed form, and the naive mode's failure.
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace articula {
namespace {

using Factory = std::vector<std::shared_ptr<Constraint>> (*)(const Model&);

struct Case {
  std::string model;
  Factory persistent;  // enabled before the jump (may be empty)
  Factory added;       // activated by the jump
};
// What gtest prints for a case (else it prints the struct's raw bytes: heap addresses and
// uninitialized padding, which differ from run to run).
void PrintTo(const Case& c, std::ostream* os) { *os << c.model; }

std::vector<std::shared_ptr<Constraint>> none(const Model&) { return {}; }
std::vector<std::shared_ptr<Constraint>> p3_lock2(const Model&) {
  return {std::make_shared<JointLock>("b2", std::vector<std::string>{"joint2"})};
}
std::vector<std::shared_ptr<Constraint>> p3_lock3(const Model&) {
  return {std::make_shared<JointLock>("b3", std::vector<std::string>{"joint3"})};
}
std::vector<std::shared_ptr<Constraint>> rx_lock1(const Model&) {
  return {std::make_shared<JointLock>("b1", std::vector<std::string>{"joint_1"})};
}
std::vector<std::shared_ptr<Constraint>> rx_lock23(const Model&) {
  return {std::make_shared<JointLock>("b23", std::vector<std::string>{"joint_2", "joint_3"})};
}
std::vector<std::shared_ptr<Constraint>> ur5_point(const Model&) {
  return {std::make_shared<FrameConstraint>("tool", "tool0", AxisMask::point())};
}
std::vector<std::shared_ptr<Constraint>> panda_weld(const Model&) {
  return {std::make_shared<FrameConstraint>("hand", "panda_hand", AxisMask::weld())};
}
std::vector<std::shared_ptr<Constraint>> panda_loop(const Model&) {
  return {std::make_shared<LoopConstraint>("loop", "panda_hand", "panda_link2", AxisMask::point())};
}
std::vector<std::shared_ptr<Constraint>> solo_three_feet(const Model&) {
  return {std::make_shared<FrameConstraint>("fl", "FL_FOOT", AxisMask::point()),
          std::make_shared<FrameConstraint>("fr", "FR_FOOT", AxisMask::point()),
          std::make_shared<FrameConstraint>("hl", "HL_FOOT", AxisMask::point())};
}
std::vector<std::shared_ptr<Constraint>> solo_fourth_foot(const Model&) {
  return {std::make_shared<FrameConstraint>("hr", "HR_FOOT", AxisMask::point())};
}
std::vector<std::shared_ptr<Constraint>> talos_left(const Model&) {
  return {std::make_shared<FrameConstraint>("left", "left_sole_link", AxisMask::weld())};
}
std::vector<std::shared_ptr<Constraint>> talos_right_and_lock(const Model&) {
  return {std::make_shared<FrameConstraint>("right", "right_sole_link", AxisMask::weld()),
          std::make_shared<JointLock>("arm", std::vector<std::string>{"arm_left_4_joint"})};
}

test::ModelCase find(const std::string& name) {
  for (const auto& c : test::all_models())
    if (c.name == name) return c;
  throw std::runtime_error("no model " + name);
}

// A basis of ker J (Euclidean), for the momentum checks.
MatrixX kernel(const MatrixX& J) {
  Eigen::FullPivLU<MatrixX> lu(J);
  lu.setThreshold(1e-10);
  return lu.kernel();
}

class JumpInvariants : public ::testing::TestWithParam<Case> {};

TEST_P(JumpInvariants, MomentumBalanceEnergyAndFormsAgree) {
  const Case& cs = GetParam();
  for (bool armature : {false, true}) {
    Model model = test::load(find(cs.model));
    if (armature) test::add_armature(model);
    Data data(model);
    std::mt19937 rng(17);
    for (int trial = 0; trial < 4; ++trial) {
      const VectorX q = random_configuration(model, rng);
      VectorX v = test::random_vector(model.nv, rng);
      const VectorX U = trial % 2 ? test::random_vector(model.nv, rng, 0.5) : VectorX::Zero(model.nv);
      std::vector<std::string> added_names;
      std::vector<VectorX> vplus;
      for (JumpForm form : {JumpForm::Full, JumpForm::Range, JumpForm::Projector, JumpForm::Minimal}) {
        ConstraintSet set(model);
        for (auto& c : cs.persistent(model)) set.add(c, true);
        // Make v⁻ admissible for the persistent rows with a first (consistent) jump.
        VectorX vm = v;
        if (set.dim() > 0) {
          const JumpResult first = activate_constraints(model, data, set, set.enabled_names(), q, v);
          ASSERT_TRUE(first.ok());
          vm = first.v_plus;
        }
        added_names.clear();
        for (auto& c : cs.added(model)) {
          added_names.push_back(c->name());
          set.add(c, false);
        }
        JumpOptions opt;
        opt.form = form;
        opt.impulse = U;
        const JumpResult r = activate_constraints(model, data, set, added_names, q, vm, opt);
        ASSERT_TRUE(r.ok()) << to_string(form) << " " << r.message;
        // J v⁺ = 0 to round-off.
        set.compute_rows(model, data, q, r.v_plus);
        const MatrixX J = set.J();
        EXPECT_LT((J * r.v_plus).cwiseAbs().maxCoeff(), 1e-10 * (1 + vm.norm())) << to_string(form);
        // wᵀ M v⁺ = wᵀ M v⁻ + wᵀ U for every admissible w.
        crba(model, data, q);
        const MatrixX Z = kernel(J);
        const VectorX dv = r.v_plus - vm;
        EXPECT_LT((Z.transpose() * (data.M * dv - U)).cwiseAbs().maxCoeff(), 1e-9 * (1 + (data.M * vm).norm()));
        EXPECT_LT(r.momentum_residual, 1e-9 * (1 + (data.M * vm).norm()));
        if (U.isZero()) {
          // Carnot: T⁻ − T⁺ = ½ Δvᵀ M Δv ≥ 0, and v⁺ is the M-closest admissible velocity.
          const double loss = 0.5 * dv.dot(data.M * dv);
          EXPECT_NEAR(r.kinetic_before - r.kinetic_after, loss, 1e-9 * (1 + r.kinetic_before));
          EXPECT_GE(loss, 0.0);
          if (Z.cols() > 0) {
            const VectorX w = r.v_plus + Z * test::random_vector(static_cast<int>(Z.cols()), rng, 0.1);
            const VectorX d = w - vm;
            EXPECT_GE(d.dot(data.M * d), dv.dot(data.M * dv) - 1e-12);
          }
        }
        // Jumping twice changes nothing.
        JumpOptions again;
        again.form = form;
        const JumpResult r2 = activate_constraints(model, data, set, added_names, q, r.v_plus, again);
        EXPECT_LT((r2.v_plus - r.v_plus).cwiseAbs().maxCoeff(), 1e-10 * (1 + vm.norm()));
        vplus.push_back(r.v_plus);
      }
      EXPECT_LT(test::rel_err(vplus[1], vplus[0]), 1e-10) << "range vs full";
      EXPECT_LT(test::rel_err(vplus[2], vplus[0]), 1e-10) << "projector vs full";
      EXPECT_LT(test::rel_err(vplus[3], vplus[0]), 1e-10) << "minimal vs full";
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Models, JumpInvariants,
                         ::testing::Values(Case{"pendulum3r", none, p3_lock2}, Case{"pendulum3r", p3_lock2, p3_lock3},
                                           Case{"rx130_standin", rx_lock1, rx_lock23}, Case{"ur5", none, ur5_point},
                                           Case{"panda", none, panda_weld}, Case{"panda", panda_loop, panda_weld},
                                           Case{"solo12", solo_three_feet, solo_fourth_foot},
                                           Case{"talos", talos_left, talos_right_and_lock}),
                         [](const auto& info) { return info.param.model + "_" + std::to_string(info.index); });

// The 3R pendulum: locks in sequence; the naive mode breaks the momentum balance.
TEST(ActivationJump, NaiveModeBreaksMomentumBalanceOn3R) {
  const Model model = load_urdf(test::model_path("pendulum3r"));
  Data data(model);
  ConstraintSet set(model);
  set.add(std::make_shared<JointLock>("b2", std::vector<std::string>{"joint2"}), false);
  VectorX q(3), v(3);
  q << -0.4, 0.3, -0.2;
  v << -1.5, 2.0, 1.0;
  JumpOptions naive;
  naive.form = JumpForm::Naive;
  const JumpResult rn = activate_constraints(model, data, set, {"b2"}, q, v, naive);
  set.disable("b2");
  const JumpResult rc = activate_constraints(model, data, set, {"b2"}, q, v);
  EXPECT_EQ(rc.form, JumpForm::Locks);
  crba(model, data, q);
  const VectorX p_minus = data.M * v;
  // Consistent: momenta of the unlocked joints 1 and 3 unchanged.
  const VectorX pc = data.M * rc.v_plus;
  EXPECT_NEAR(pc[0], p_minus[0], 1e-12);
  EXPECT_NEAR(pc[2], p_minus[2], 1e-12);
  EXPECT_LT(rc.momentum_residual, 1e-12);
  // Naive: the locked rate is zero but the momenta of the others are not conserved.
  EXPECT_EQ(rn.v_plus[1], 0.0);
  EXPECT_EQ(rn.v_plus[0], v[0]);
  const VectorX pn = data.M * rn.v_plus;
  EXPECT_GT(std::abs(pn[0] - p_minus[0]), 0.1);
  EXPECT_GT(rn.momentum_residual, 0.1);
  // Both satisfy the lock; the consistent one is the M-closest admissible velocity.
  const VectorX dc = rc.v_plus - v, dn = rn.v_plus - v;
  EXPECT_LT(dc.dot(data.M * dc), dn.dot(data.M * dn));
}

// Double pendulum of uniform rods locking its elbow: after the lock the two rods rotate as one
// rigid body about the shoulder, with the shoulder's generalized momentum unchanged:
// ω⁺ = (M₁₁ ω₁ + M₁₂ ω₂) / M₁₁, written out by hand.
TEST(ActivationJump, DoublePendulumElbowLockClosedForm) {
  const double m1 = 1.3, L1 = 0.9, m2 = 0.7, L2 = 1.1;
  ModelBuilder b("double_pendulum");
  auto rod = [](double m, double L) {
    Matrix3 I = Matrix3::Zero();
    I.diagonal() << 0.0, m * L * L / 12, m * L * L / 12;
    return Inertia::from_com(m, Vector3(L / 2, 0, 0), I);
  };
  b.add_body("l1", "", "shoulder", JointType::Revolute, Transform::Identity(), Vector3::UnitY(), rod(m1, L1));
  b.add_body("l2", "l1", "elbow", JointType::Revolute, {Matrix3::Identity(), Vector3(L1, 0, 0)}, Vector3::UnitY(),
             rod(m2, L2));
  const Model model = b.build();
  Data data(model);
  ConstraintSet set(model);
  set.add(std::make_shared<JointLock>("elbow_brake", std::vector<std::string>{"elbow"}), false);
  const double t2 = 0.7, w1 = 1.9, w2 = -2.6;
  VectorX q(2), v(2);
  q << 0.3, t2;
  v << w1, w2;
  // Hand-derived inertia entries (planar rods about parallel axes).
  const double M11 = m1 * L1 * L1 / 3 + m2 * (L1 * L1 + L2 * L2 / 3 + L1 * L2 * std::cos(t2));
  const double M12 = m2 * (L2 * L2 / 3 + L1 * L2 / 2 * std::cos(t2));
  const double M22 = m2 * L2 * L2 / 3;
  crba(model, data, q);
  EXPECT_NEAR(data.M(0, 0), M11, 1e-12);
  EXPECT_NEAR(data.M(0, 1), M12, 1e-12);
  for (JumpForm form : {JumpForm::Auto, JumpForm::Full, JumpForm::Range}) {
    set.disable("elbow_brake");
    JumpOptions opt;
    opt.form = form;
    const JumpResult r = activate_constraints(model, data, set, {"elbow_brake"}, q, v, opt);
    EXPECT_NEAR(r.v_plus[0], (M11 * w1 + M12 * w2) / M11, 1e-12);
    EXPECT_NEAR(r.v_plus[1], 0.0, 1e-14);
    // The impulse the brake applies: Λ = −(M₂₁Δω₁ + M₂₂Δω₂) (U = 0).
    const double dw1 = r.v_plus[0] - w1, dw2 = -w2;
    EXPECT_NEAR(r.Lambda_of("elbow_brake")[0], -(M12 * dw1 + M22 * dw2), 1e-12);
    const double T0 = 0.5 * (M11 * w1 * w1 + 2 * M12 * w1 * w2 + M22 * w2 * w2);
    EXPECT_NEAR(r.kinetic_before, T0, 1e-12);
    EXPECT_NEAR(r.kinetic_after, 0.5 * M11 * std::pow((M11 * w1 + M12 * w2) / M11, 2), 1e-12);
  }
}

TEST(ActivationJump, LockThenLockEqualsLockingBothAtOnce) {
  const Model model = load_urdf(test::model_path("rx130_standin"));
  Data data(model);
  std::mt19937 rng(4);
  const VectorX q = random_configuration(model, rng), v = test::random_vector(model.nv, rng);
  ConstraintSet a(model), b(model);
  a.add(std::make_shared<JointLock>("A", std::vector<std::string>{"joint_2"}), false);
  a.add(std::make_shared<FrameConstraint>("B", "flange", AxisMask::parse("z")), false);
  b.add(std::make_shared<JointLock>("A", std::vector<std::string>{"joint_2"}), false);
  b.add(std::make_shared<FrameConstraint>("B", "flange", AxisMask::parse("z")), false);
  const JumpResult ra = activate_constraints(model, data, a, {"A"}, q, v);
  const JumpResult rab = activate_constraints(model, data, a, {"B"}, q, ra.v_plus);
  const JumpResult rb = activate_constraints(model, data, b, {"A", "B"}, q, v);
  EXPECT_LT(test::rel_err(rab.v_plus, rb.v_plus), 1e-10);
}

TEST(ActivationJump, AFailedJumpChangesNothing) {
  // The locks form asked for a frame row (found by fuzzing the scenario files: it used to read
  // an empty Λ): a status, v⁺ = v⁻, Λ = 0 and the constraint left disabled.
  const Model model = load_urdf(test::model_path("rx130_standin"));
  Data data(model);
  std::mt19937 rng(5);
  const VectorX q = random_configuration(model, rng), v = test::random_vector(model.nv, rng);
  ConstraintSet set(model);
  set.add(std::make_shared<JointLock>("A", std::vector<std::string>{"joint_2"}));
  set.add(std::make_shared<FrameConstraint>("B", "flange", AxisMask::parse("z")), false);
  JumpOptions o;
  o.form = JumpForm::Locks;
  const JumpResult r = activate_constraints(model, data, set, {"B"}, q, v, o);
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(r.message.empty());
  EXPECT_EQ(r.v_plus, v);
  EXPECT_EQ(r.Lambda_of("B"), VectorX::Zero(1));
  EXPECT_FALSE(set.is_enabled("B"));
  EXPECT_TRUE(set.is_enabled("A"));
}

TEST(ActivationJump, JointLockAndCallbackLockGiveTheSameJump) {
  const Model model = load_urdf(test::model_path("ur5"));
  Data data(model);
  std::mt19937 rng(8);
  const VectorX q = random_configuration(model, rng), v = test::random_vector(model.nv, rng);
  const int dof = model.idx_v[model.joint_id("elbow_joint")];
  ConstraintSet a(model), b(model);
  a.add(std::make_shared<JointLock>("lock", std::vector<std::string>{"elbow_joint"}), false);
  b.add(std::make_shared<CallbackConstraint>(
            "lock_cb", 1,
            [dof](const Model& m, const Data&, VectorRef) {
              MatrixX J = MatrixX::Zero(1, m.nv);
              J(0, dof) = 1.0;
              return J;
            },
            [](const Model&, const Data&, VectorRef, VectorRef) { return VectorX::Zero(1).eval(); }),
        false);
  const JumpResult ra = activate_constraints(model, data, a, {"lock"}, q, v);
  const JumpResult rb = activate_constraints(model, data, b, {"lock_cb"}, q, v);
  EXPECT_EQ(ra.form, JumpForm::Locks);
  EXPECT_EQ(rb.form, JumpForm::Range);
  EXPECT_LT(test::rel_err(ra.v_plus, rb.v_plus), 1e-12);
  EXPECT_NEAR(ra.Lambda_of("lock")[0], rb.Lambda_of("lock_cb")[0], 1e-10);
}

TEST(ActivationJump, RestitutionReversesTheConstrainedVelocity) {
  const Model model = load_urdf(test::model_path("panda"));
  Data data(model);
  ConstraintSet set(model);
  set.add(std::make_shared<FrameConstraint>("hand", "panda_hand", AxisMask::parse("z")), false);
  std::mt19937 rng(12);
  const VectorX q = random_configuration(model, rng), v = test::random_vector(model.nv, rng);
  JumpOptions opt;
  opt.restitution = 0.5;
  const JumpResult r = activate_constraints(model, data, set, {"hand"}, q, v, opt);
  set.compute_rows(model, data, q, v);
  const double before = (set.J() * v)[0];
  EXPECT_NEAR((set.J() * r.v_plus)[0], -0.5 * before, 1e-10);
  EXPECT_LT(r.kinetic_after, r.kinetic_before);
  opt.restitution = 1.5;
  EXPECT_THROW(activate_constraints(model, data, set, {"hand"}, q, v, opt), std::invalid_argument);
}

TEST(ActivationJump, DeactivationChangesNoVelocityAndUnknownNamesThrow) {
  const Model model = load_urdf(test::model_path("ur5"));
  Data data(model);
  ConstraintSet set(model);
  set.add(std::make_shared<FrameConstraint>("tool", "tool0", AxisMask::point()));
  deactivate_constraints(set, {"tool"});
  EXPECT_FALSE(set.is_enabled("tool"));
  EXPECT_EQ(set.dim(), 0);
  const VectorX q = neutral(model), v = VectorX::Ones(model.nv);
  EXPECT_THROW(activate_constraints(model, data, set, {"nope"}, q, v), std::invalid_argument);
  EXPECT_FALSE(set.is_enabled("tool"));  // nothing changed
  EXPECT_THROW(parse_jump_form("sideways"), std::invalid_argument);
  EXPECT_EQ(parse_jump_form("consistent"), JumpForm::Auto);
}

TEST(ActivationJump, RedundantRowsAreHandled) {
  const Model model = load_urdf(test::model_path("panda"));
  Data data(model);
  ConstraintSet set(model);
  set.add(std::make_shared<FrameConstraint>("w1", "panda_hand", AxisMask::weld()), false);
  set.add(std::make_shared<FrameConstraint>("w2", "panda_hand", AxisMask::weld()), false);
  std::mt19937 rng(21);
  const VectorX q = random_configuration(model, rng), v = test::random_vector(model.nv, rng);
  const JumpResult twice = activate_constraints(model, data, set, {"w1", "w2"}, q, v);
  ConstraintSet single(model);
  single.add(std::make_shared<FrameConstraint>("w1", "panda_hand", AxisMask::weld()), false);
  const JumpResult once = activate_constraints(model, data, single, {"w1"}, q, v);
  EXPECT_EQ(twice.status, SolveStatus::Redundant);
  EXPECT_EQ(twice.rank, 6);
  EXPECT_LT(test::rel_err(twice.v_plus, once.v_plus), 1e-9);
}

}  // namespace
}  // namespace articula
