// Simulator::use_generated: the engine with generated kernels gives the runtime engine's run.
#include <gtest/gtest.h>

#include "test_segway.hpp"
#include "test_standing_humanoid.hpp"
#include "test_support.hpp"

namespace articula {
namespace {

namespace gen = generated::test_standing_humanoid;

GeneratedDynamics humanoid_kernels() {
  GeneratedDynamics g;
  g.model_digest = gen::model_digest;
  g.aba = &gen::aba;
  g.held_frames = {{"left_sole_link", true}, {"right_sole_link", true}};
  g.constrained_dynamics = &gen::constrained_dynamics;
  return g;
}

struct Outcome {
  RunResult result;
  VectorX q, v, lambda;
  long generated = 0;
};

enum class Change { None, ReleaseLeftFoot, LockLeftKnee };

// The standing humanoid `h` under PD (1 ms), on the kernels or not, with `joint` pushed at `speed`.
void start(const test::StandingHumanoid& h, Simulator& sim, bool use_generated, const std::string& joint,
           double speed) {
  if (use_generated) sim.use_generated(humanoid_kernels());
  sim.set_controller(pd_controller(h.robot, h.targets, 400.0, 20.0), 1e-3);
  VectorX v = VectorX::Zero(h.robot.model().nv);
  v[h.robot.model().idx_v[h.robot.model().joint_id(joint)]] = speed;
  sim.set_state(h.q, v);
}

// 0.2 s of the standing humanoid under PD (RK4, 1 ms), a push on an arm, then at 0.1 s the left
// foot let go (one weld: a subset of the kernels' held frames) or the left knee locked (a
// JointLock the kernels do not declare).
Outcome run(bool use_generated, Change change = Change::None) {
  test::StandingHumanoid h = test::standing_humanoid();
  h.robot.constraints().add(std::make_shared<JointLock>("knee", std::vector<std::string>{"leg_left_4_joint"}), false);
  Simulator sim(h.robot);
  start(h, sim, use_generated, "arm_right_1_joint", 2.0);
  if (change != Change::None) {
    Event e;
    e.name = "change";
    e.time = 0.1;
    e.actions = {change == Change::ReleaseLeftFoot ? EventAction::disable("left_foot") : EventAction::enable("knee")};
    sim.add_event(e);
  }
  Outcome out;
  out.result = sim.run(0.2);
  out.q = sim.q();
  out.v = sim.v();
  out.lambda = sim.multipliers();
  out.generated = sim.generated_evaluations();
  return out;
}

TEST(GeneratedDynamics, TheEngineGivesTheSameRun) {
  const Outcome ref = run(false), fast = run(true);
  ASSERT_TRUE(ref.result.ok()) << ref.result.message;
  ASSERT_TRUE(fast.result.ok()) << fast.result.message;
  EXPECT_EQ(ref.generated, 0);
  // Every evaluation went to the kernel (the weld references are taken when the run begins).
  EXPECT_EQ(fast.generated, fast.result.evaluations);
  EXPECT_LT((fast.q - ref.q).cwiseAbs().maxCoeff(), 1e-9);
  EXPECT_LT((fast.v - ref.v).cwiseAbs().maxCoeff(), 1e-8);
  EXPECT_LT((fast.lambda - ref.lambda).cwiseAbs().maxCoeff(), 1e-6 * (1.0 + ref.lambda.cwiseAbs().maxCoeff()));
}

TEST(GeneratedDynamics, ASubsetOfTheHeldFramesStaysOnTheKernel) {
  const Outcome ref = run(false, Change::ReleaseLeftFoot), fast = run(true, Change::ReleaseLeftFoot);
  ASSERT_TRUE(ref.result.ok()) << ref.result.message;
  ASSERT_TRUE(fast.result.ok()) << fast.result.message;
  // One weld after 0.1 s: the kernel with the left foot's `active` 0. Every evaluation but the
  // first (which captures the weld references) and those at the event went to it.
  EXPECT_GE(fast.generated, fast.result.evaluations - 4);
  EXPECT_LT((fast.q - ref.q).cwiseAbs().maxCoeff(), 1e-9);
  EXPECT_LT((fast.v - ref.v).cwiseAbs().maxCoeff(), 1e-8);
  EXPECT_LT((fast.lambda - ref.lambda).cwiseAbs().maxCoeff(), 1e-6 * (1.0 + ref.lambda.cwiseAbs().maxCoeff()));
}

TEST(GeneratedDynamics, OtherConstraintSetsUseTheRuntimeSolver) {
  const Outcome ref = run(false, Change::LockLeftKnee), fast = run(true, Change::LockLeftKnee);
  ASSERT_TRUE(ref.result.ok()) << ref.result.message;
  ASSERT_TRUE(fast.result.ok()) << fast.result.message;
  // Both welds and a lock the kernels do not declare after 0.1 s: the kernel ran for about
  // half of the evaluations.
  EXPECT_GT(fast.generated, fast.result.evaluations / 3);
  EXPECT_LT(fast.generated, 2 * fast.result.evaluations / 3);
  EXPECT_LT((fast.q - ref.q).cwiseAbs().maxCoeff(), 1e-9);
  EXPECT_LT((fast.v - ref.v).cwiseAbs().maxCoeff(), 1e-8);
}

// A foot let go in one run and held again before the next is held at its new pose on the
// kernels, as on the runtime: its reference is taken again when the run begins (a kernel fed
// the old pose would pull the foot back).
TEST(GeneratedDynamics, AFrameHeldAgainBetweenRunsIsHeldWhereItIs) {
  struct Runs {
    VectorX q, v;
    Transform first, second;
    long generated = 0, evaluations = 0;
  };
  auto runs = [](bool use_generated) {
    test::StandingHumanoid h = test::standing_humanoid();
    Simulator sim(h.robot);
    start(h, sim, use_generated, "leg_left_1_joint", 3.0);
    Runs out;
    ConstraintSet& set = h.robot.constraints();  // the simulator's robot (Simulator keeps a reference)
    const auto& foot = static_cast<const FramePairConstraint&>(set.get("left_foot"));
    EXPECT_TRUE(sim.run(0.02).ok());
    out.first = foot.reference();
    set.disable("left_foot");
    EXPECT_TRUE(sim.run(0.05).ok());
    set.enable("left_foot");
    const long before = sim.generated_evaluations();
    const RunResult last = sim.run(0.05);
    EXPECT_TRUE(last.ok()) << last.message;
    out.second = foot.reference();
    out.generated = sim.generated_evaluations() - before;
    out.evaluations = last.evaluations;
    out.q = sim.q();
    out.v = sim.v();
    return out;
  };
  const Runs ref = runs(false), fast = runs(true);
  EXPECT_GT((ref.second.p - ref.first.p).norm(), 1e-4);  // the foot moved while it was free
  EXPECT_LT((fast.second.p - ref.second.p).norm(), 1e-9);
  EXPECT_EQ(fast.generated, fast.evaluations);
  EXPECT_LT((fast.q - ref.q).cwiseAbs().maxCoeff(), 1e-9);
  EXPECT_LT((fast.v - ref.v).cwiseAbs().maxCoeff(), 1e-8);
}

// A wheel declared with directions that are not unit vectors is the WheelConstraint with those
// directions (which keeps them normalized, as the generator folds them in): it runs on the
// kernels, not on the runtime solver.
TEST(GeneratedDynamics, AWheelDeclaredWithNonUnitDirectionsRunsOnTheKernels) {
  namespace seg = generated::test_segway;
  Model model = load_urdf(test::model_path("segway"), BaseType::Floating);
  test::add_armature(model);  // the kernels' model (tests/codegen/gen_kernels.cpp)
  Robot robot(std::move(model));
  robot.constraints().emplace<WheelConstraint>("rolling", "wheel", 0.2, Vector3::UnitY());
  robot.constraints().emplace<FrameConstraint>("planar", "wheel", AxisMask::parse("rxrz"));
  GeneratedDynamics g;
  g.model_digest = seg::model_digest;
  g.aba = &seg::aba;
  g.held_frames = {held_frame("wheel", "rxrz")};
  g.wheels = {{"wheel", 0.2, Vector3(0.0, 2.5, 0.0), Vector3(0.0, 0.0, 4.0), 0.0}};
  g.constrained_dynamics = &seg::constrained_dynamics;
  Simulator sim(robot);
  sim.use_generated(g);
  VectorX q = neutral(robot.model());
  q[2] = 0.2;  // the wheel's centre one radius above the plane z = 0
  sim.set_state(q, VectorX::Zero(robot.model().nv));
  const RunResult r = sim.run(0.05);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(sim.generated_evaluations(), r.evaluations);
}

TEST(GeneratedDynamics, KernelsOfAnotherModelAreRejected) {
  // The same URDF without the motors: no reflected rotor inertia, so other armature.
  Robot bare = Robot::from_urdf(test::model_path("talos_reduced"), true);
  Simulator sim(bare);
  try {
    sim.use_generated(humanoid_kernels());
    ADD_FAILURE() << "accepted kernels of another model";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("regenerate"), std::string::npos) << e.what();
  }
  GeneratedDynamics g = humanoid_kernels();
  g.held_frames = {{"no_such_frame", true}};
  test::StandingHumanoid h2 = test::standing_humanoid();
  Simulator sim2(h2.robot);
  EXPECT_THROW(sim2.use_generated(g), std::invalid_argument);
}

}  // namespace
}  // namespace articula
