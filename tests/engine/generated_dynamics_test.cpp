// Simulator::use_generated: the engine with generated kernels gives the runtime engine's run.
#include <gtest/gtest.h>

#include "test_models.hpp"
#include "test_segway.hpp"
#include "test_solo12.hpp"
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
  VectorX q, v, lambda, f_contact;
  long generated = 0;
};

// `duration` of `sim`, and where it ended.
Outcome outcome_of_run(Simulator& sim, double duration) {
  Outcome out;
  out.result = sim.run(duration);
  out.q = sim.q();
  out.v = sim.v();
  out.lambda = sim.multipliers();
  out.f_contact = sim.contact_forces();
  out.generated = sim.generated_evaluations();
  return out;
}

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
  return outcome_of_run(sim, 0.2);
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

// Solo-12 standing on four elastic feet as the solo12 test kernels declare them (FL with an
// offset, FR on a slope; gen_kernels.cpp), 0.3 s of RK4 at 0.5 ms: with aba_contacts
// (`fused`) or aba_fext + body_states, or on the runtime; `offset` moves HR's contact point.
Outcome contact_run(int kernels, const Vector3& offset = Vector3::Zero()) {  // 0 runtime, 1 fused, 2 fext
  const Model model = test::load_with_armature("solo12");
  Robot robot(model);
  robot.add_contact(
      {.name = "FL", .frame = "FL_FOOT", .offset = Vector3(0.01, -0.02, 0.005), .stiffness = 1e4, .damping = 60.0});
  robot.add_contact({.name = "FR",
                     .frame = "FR_FOOT",
                     .surface = Surface::plane(Vector3(0, 0, 0.05), Vector3(0.3, 0.1, 1.0)),
                     .stiffness = 2e4,
                     .damping = 40.0,
                     .friction = 0.6});
  robot.add_contact({.name = "HL", .frame = "HL_FOOT", .stiffness = 1e4, .damping = 60.0, .slip_velocity = 0.02});
  robot.add_contact({.name = "HR", .frame = "HR_FOOT", .offset = offset, .stiffness = 1e4, .damping = 60.0});
  SimulationOptions o;
  o.dt = 5e-4;
  Simulator sim(robot, o);
  namespace k = generated::test_solo12;
  GeneratedDynamics g;
  g.model_digest = k::model_digest;
  if (kernels == 1) {
    g.aba_contacts = &k::aba_contacts;
    g.contacts = {{"FL_FOOT", Vector3(0.01, -0.02, 0.005)},
                  {"FR_FOOT", Vector3::Zero(), Vector3(0, 0, 0.05), Vector3(0.3, 0.1, 1.0)},
                  {"HL_FOOT"},
                  {"HR_FOOT"}};
  } else if (kernels == 2) {
    g.aba_fext = &k::aba_fext;
    g.body_states = &k::body_states;
    g.state_frames = {"FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"};
  }
  if (kernels != 0) sim.use_generated(g);
  VectorX q = neutral(robot.model());
  // Standing (scenarios/solo12_stand_lift.yaml): the feet 0.2229 m below the base.
  const Model& m = robot.model();
  for (const char* leg : {"FL", "FR", "HL", "HR"}) {
    const double s = leg[0] == 'F' ? 1.0 : -1.0;
    q[m.idx_q[m.joint_id(std::string(leg) + "_HFE")]] = 0.8 * s;
    q[m.idx_q[m.joint_id(std::string(leg) + "_KFE")]] = -1.6 * s;
  }
  q[2] = 0.2229;
  VectorX v = VectorX::Zero(robot.model().nv);
  v[0] = 0.2, v[4] = 0.5;  // sliding and pitching: friction and every foot's force differ
  sim.set_state(q, v);
  return outcome_of_run(sim, 0.3);
}

// compile_options_for: the contacts inside aba_contacts for a robot that starts without a
// constraint enabled; with one enabled, the kernels with external forces and the contacts'
// body states only; a contact on a height field leaves every contact to the runtime law.
TEST(GeneratedDynamics, CompileOptionsDeclareTheContactsWhereTheyWouldRun) {
  Robot robot = Robot::from_urdf(test::model_path("solo12"), true);
  for (const char* foot : {"FL_FOOT", "FR_FOOT"}) robot.add_contact({.name = foot, .frame = foot});
  CompileOptions o = compile_options_for(robot);
  ASSERT_EQ(o.contacts.size(), 2u);
  EXPECT_EQ(o.contacts[1].frame, "FR_FOOT");
  EXPECT_FALSE(o.external_forces);
  EXPECT_TRUE(o.state_frames.empty());
  robot.constraints().add(std::make_shared<FrameConstraint>("hold", "HL_FOOT", AxisMask::point()));
  o = compile_options_for(robot);
  EXPECT_TRUE(o.contacts.empty());
  EXPECT_TRUE(o.external_forces);
  EXPECT_EQ(o.state_frames, (std::vector<std::string>{"FL_FOOT", "FR_FOOT"}));
  robot.constraints().disable("hold");
  o = compile_options_for(robot);
  EXPECT_EQ(o.contacts.size(), 2u);
  EXPECT_TRUE(o.external_forces);  // for when `hold` is switched on
  robot.add_contact(
      {.name = "hill", .frame = "HR_FOOT", .surface = Surface::height_field([](double, double) { return 0.0; })});
  o = compile_options_for(robot);
  EXPECT_TRUE(o.contacts.empty());
  EXPECT_TRUE(o.external_forces);
}

TEST(GeneratedDynamics, ContactsInsideTheKernelGiveTheSameRun) {
  const Outcome ref = contact_run(0), fused = contact_run(1), fext = contact_run(2);
  for (const Outcome* r : {&ref, &fused, &fext}) ASSERT_TRUE(r->result.ok()) << r->result.message;
  EXPECT_EQ(fused.generated, fused.result.evaluations);
  EXPECT_EQ(fext.generated, fext.result.evaluations);
  int down = 0;  // feet pushing at the end (the robot rocks: some are in the air)
  for (int c = 0; c < 4; ++c) down += ref.f_contact.segment<3>(3 * c).squaredNorm() > 0;
  EXPECT_GE(down, 2) << ref.f_contact.transpose();
  for (const Outcome* r : {&fused, &fext}) {
    EXPECT_LT((r->q - ref.q).cwiseAbs().maxCoeff(), 1e-9);
    EXPECT_LT((r->v - ref.v).cwiseAbs().maxCoeff(), 1e-8);
    EXPECT_LT((r->f_contact - ref.f_contact).cwiseAbs().maxCoeff(), 1e-7 * ref.f_contact.cwiseAbs().maxCoeff());
  }
  // A contact the kernel does not declare (HR's point moved): the runtime for every evaluation.
  const Outcome other = contact_run(1, Vector3(0, 0, 0.01)), other_ref = contact_run(0, Vector3(0, 0, 0.01));
  EXPECT_EQ(other.generated, 0);
  EXPECT_EQ(other.q, other_ref.q);
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
