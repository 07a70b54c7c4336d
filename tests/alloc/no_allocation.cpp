// DESIGN.md: "no allocation inside a step". The kernels, the constrained solves and the
// simulator's steps are run once to warm up, then again with every heap allocation of this
// thread counted (malloc_counter.cpp); the count must be zero (for a simulation: it must
// not grow with the number of steps).
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <random>

#include "articula/articula.hpp"
#include "malloc_counter.hpp"
#include "test_solo12.hpp"
#include "test_standing_humanoid.hpp"
#include "test_support.hpp"

namespace articula {
namespace {

// Allocations made by f's second call (the first one warms up lazily sized scratch).
long allocations_of(const std::function<void()>& f) {
  f();
  test::CountAllocations counter;
  f();
  return counter.count();
}

TEST(NoAllocation, TheCounterSeesEigenAndOperatorNew) {
  {
    test::CountAllocations counter;
    auto p = std::make_unique<double>(1.0);
    EXPECT_EQ(counter.count(), 1);
  }
  test::CountAllocations counter;
  MatrixX A = MatrixX::Random(40, 40);
  EXPECT_GE(counter.count(), 1);
}

TEST(NoAllocation, KernelsOnEveryModel) {
  for (const auto& c : test::all_models()) {
    SCOPED_TRACE(c.name);
    Model model = test::load(c);
    test::add_armature(model);
    Data data(model);
    std::mt19937 rng(7);
    const VectorX q = random_configuration(model, rng);
    const VectorX v = test::random_vector(model.nv, rng), a = test::random_vector(model.nv, rng);
    VectorX x = test::random_vector(model.nv, rng);
    std::vector<Force> f_ext(static_cast<std::size_t>(model.njoints));
    for (auto& f : f_ext) f = Force{Vector3(1, 2, 3), Vector3(-1, 0.5, 0.25)};
    const Index frame = static_cast<Index>(model.frames.size()) - 1;
    MatrixX Jf = MatrixX::Zero(6, model.nv);
    const std::vector<std::pair<const char*, std::function<void()>>> kernels = {
        {"forward_kinematics", [&] { forward_kinematics(model, data, q, v, a); }},
        {"forward_kinematics_bias", [&] { forward_kinematics_bias(model, data, q, v); }},
        {"update_frame_placements", [&] { update_frame_placements(model, data); }},
        {"compute_joint_jacobians", [&] { compute_joint_jacobians(model, data, q); }},
        {"frame_jacobian", [&] { frame_jacobian(model, data, frame, ReferenceFrame::LocalWorldAligned, Jf); }},
        {"rnea", [&] { rnea(model, data, q, v, a); }},
        {"rnea with f_ext", [&] { rnea(model, data, q, v, a, f_ext); }},
        {"nonlinear_effects", [&] { nonlinear_effects(model, data, q, v); }},
        {"generalized_gravity", [&] { generalized_gravity(model, data, q); }},
        {"generalized_momentum", [&] { generalized_momentum(model, data, q, v); }},
        {"bias_from_kinematics",
         [&] {
           forward_kinematics_bias(model, data, q, v);
           bias_from_kinematics(model, data, f_ext);
         }},
        {"crba", [&] { crba(model, data, q); }},
        {"factorize_mass_matrix + solve_mass",
         [&] {
           crba(model, data, q);
           factorize_mass_matrix(model, data);
           solve_mass(model, data, x);
         }},
        {"aba", [&] { aba(model, data, q, v, a); }},
        {"aba with f_ext", [&] { aba(model, data, q, v, a, f_ext); }},
        {"energies", [&] { mechanical_energy(model, data, q, v); }},
        {"center_of_mass_jacobian", [&] { center_of_mass_jacobian(model, data, q); }},
    };
    for (const auto& [name, f] : kernels) EXPECT_EQ(allocations_of(f), 0) << name;
  }
}

struct ConstraintCase {
  const char* model;
  bool floating;
  std::function<void(ConstraintSet&)> add;
};

TEST(NoAllocation, ConstrainedForwardDynamicsWithEveryMethodAndConstraintType) {
  auto feet = [](ConstraintSet& set) {
    for (const char* foot : {"FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"})
      set.add(std::make_shared<FrameConstraint>(foot, foot, AxisMask::point()));
  };
  const std::vector<ConstraintCase> cases = {
      {"talos_reduced", true,
       [](ConstraintSet& set) {
         set.add(std::make_shared<FrameConstraint>("left", "left_sole_link"));
         set.add(std::make_shared<FrameConstraint>("right", "right_sole_link", AxisMask::parse("xyzrz")));
         set.add(std::make_shared<LoopConstraint>("hands", "gripper_left_motor_double_link",
                                                  "gripper_right_motor_double_link", AxisMask::point()));
         set.add(std::make_shared<DistanceConstraint>("span", "arm_left_4_link", "arm_right_4_link"));
         set.add(std::make_shared<JointLock>("head", std::vector<std::string>{"head_1_joint"}));
       }},
      {"solo12", true, feet},
      {"panda", false, [](ConstraintSet& set) { set.add(std::make_shared<FrameConstraint>("hand", "panda_hand")); }},
      {"rx130_standin", false,
       [](ConstraintSet& set) {
         set.add(std::make_shared<JointLock>("brakes", std::vector<std::string>{"joint_1", "joint_2"}));
       }},
      {"segway", true,
       [](ConstraintSet& set) {
         set.add(std::make_shared<WheelConstraint>("rolling", "wheel", 0.2, Vector3::UnitY()));
         set.add(std::make_shared<FrameConstraint>("planar", "wheel", AxisMask::parse("rxrz")));
       }},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.model);
    Model model = load_urdf(test::model_path(c.model), c.floating ? BaseType::Floating : BaseType::Fixed);
    test::add_armature(model);
    Data data(model);
    ConstraintSet set(model);
    c.add(set);
    ConstrainedWorkspace ws(model, set.dim());
    std::mt19937 rng(3);
    const VectorX q = random_configuration(model, rng);
    const VectorX v = test::random_vector(model.nv, rng), tau = test::random_vector(model.nv, rng);
    for (ConstrainedMethod method : {ConstrainedMethod::Auto, ConstrainedMethod::RangeSpace, ConstrainedMethod::Kkt,
                                     ConstrainedMethod::NullSpace, ConstrainedMethod::Hybrid}) {
      SolveReport report;
      EXPECT_EQ(
          allocations_of([&] { report = constrained_forward_dynamics(model, data, ws, set, q, v, tau, {}, method); }),
          0)
          << to_string(method);
      EXPECT_TRUE(report.ok()) << to_string(method) << ": " << report.message;
    }
  }
}

// A humanoid with both feet welded, a hand pressing on an elastic wall, geared motors under a
// PD controller and force sensors: the allocations of a run (setting up, finishing the logs)
// must not grow with its length.
long allocations_of_run(Integrator integrator, double duration, const std::string& log_stem) {
  test::StandingHumanoid h = test::standing_humanoid();
  Robot& robot = h.robot;
  const Model& model = robot.model();
  const VectorX& q = h.q;
  const auto& targets = h.targets;
  Data data(model);
  forward_kinematics(model, data, q);
  const Vector3 hand = frame_placement(model, data, model.frame_id("gripper_right_base_link")).p;
  ElasticContact c;
  c.name = "hand";
  c.frame = "gripper_right_base_link";
  c.surface = Surface::plane(hand + Vector3(0.005, 0, 0), Vector3(-1, 0, 0));
  c.stiffness = 2e4;
  c.damping = 100;
  robot.add_contact(c);
  robot.add_sensor({"hand_ft", SensorType::ForceTorque, "hand"});
  robot.add_sensor({"left_foot_ft", SensorType::ForceTorque, "left_foot"});
  SimulationOptions o;
  o.integrator = integrator;
  o.dt = 1e-3;
  Simulator sim(robot, o);
  sim.set_controller(pd_controller(robot, targets, 400.0, 20.0), 2e-3);
  VectorX v = VectorX::Zero(model.nv);
  v[model.idx_v[model.joint_id("arm_right_1_joint")]] = 1.0;
  sim.set_state(q, v);
  if (!log_stem.empty()) sim.add_log(make_log(LogFormat::Csv, log_stem));
  test::CountAllocations counter;
  const RunResult r = sim.run(duration);
  const long n = counter.count();
  EXPECT_TRUE(r.ok()) << r.message;
  EXPECT_GT(r.steps, 0);
  return n;
}

TEST(NoAllocation, SimulationStepsWithEveryIntegrator) {
  for (Integrator integrator : {Integrator::RK4, Integrator::DormandPrince, Integrator::SemiImplicitEuler}) {
    SCOPED_TRACE(to_string(integrator));
    const long short_run = allocations_of_run(integrator, 0.02, "");
    const long long_run = allocations_of_run(integrator, 0.1, "");
    // Five times the steps: not one allocation more (formatting t in messages may differ by one).
    EXPECT_LE(long_run, short_run) << "allocations grow with the number of steps";
  }
}

TEST(NoAllocation, SimulationStepsWhileLogging) {
  test::ScratchDir dir("no_allocation_log");
  const long short_run = allocations_of_run(Integrator::RK4, 0.02, dir.path() + "/run_a");
  const long long_run = allocations_of_run(Integrator::RK4, 0.1, dir.path() + "/run_b");
  EXPECT_LE(long_run, short_run) << "allocations grow with the number of logged rows";
}

// The same humanoid without the wall, through its generated kernels (Simulator::use_generated).
long allocations_of_generated_run(double duration) {
  test::StandingHumanoid h = test::standing_humanoid();
  Simulator sim(h.robot);
  namespace k = generated::test_standing_humanoid;
  GeneratedDynamics g;
  g.model_digest = k::model_digest;
  g.aba = &k::aba;
  g.held_frames = {{"left_sole_link", true}, {"right_sole_link", true}};
  g.constrained_dynamics = &k::constrained_dynamics;
  sim.use_generated(g);
  sim.set_controller(pd_controller(h.robot, h.targets, 400.0, 20.0), 2e-3);
  sim.set_state(h.q, VectorX::Zero(h.robot.model().nv));
  test::CountAllocations counter;
  const RunResult r = sim.run(duration);
  const long n = counter.count();
  EXPECT_TRUE(r.ok()) << r.message;
  EXPECT_GT(sim.generated_evaluations(), 0);
  return n;
}

TEST(NoAllocation, SimulationStepsThroughGeneratedKernels) {
  const long short_run = allocations_of_generated_run(0.02);
  const long long_run = allocations_of_generated_run(0.1);
  EXPECT_LE(long_run, short_run) << "allocations grow with the number of steps";
}

// Solo-12 on four elastic feet through its generated kernels with external forces (aba_fext)
// and the feet's kinematics (body_states): the contact forces packed for the kernel every
// evaluation; or (`fused`) through aba_contacts, the feet declared as the kernel has them
// (gen_kernels.cpp). No allocation per step.
long allocations_of_generated_contact_run(double duration, bool fused) {
  const Model model = test::load_with_armature("solo12");
  Robot robot(model);
  namespace k = generated::test_solo12;
  GeneratedDynamics g;
  g.model_digest = k::model_digest;
  if (fused) {
    robot.add_contact({.name = "FL", .frame = "FL_FOOT", .offset = Vector3(0.01, -0.02, 0.005), .stiffness = 1e4});
    robot.add_contact({.name = "FR",
                       .frame = "FR_FOOT",
                       .surface = Surface::plane(Vector3(0, 0, 0.05), Vector3(0.3, 0.1, 1.0)),
                       .stiffness = 1e4});
    for (const char* foot : {"HL_FOOT", "HR_FOOT"}) robot.add_contact({.name = foot, .frame = foot, .stiffness = 1e4});
    g.aba_contacts = &k::aba_contacts;
    g.contacts = {{"FL_FOOT", Vector3(0.01, -0.02, 0.005)},
                  {"FR_FOOT", Vector3::Zero(), Vector3(0, 0, 0.05), Vector3(0.3, 0.1, 1.0)},
                  {"HL_FOOT"},
                  {"HR_FOOT"}};
  } else {
    for (const char* foot : {"FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"})
      robot.add_contact({.name = foot, .frame = foot, .stiffness = 1e4, .damping = 60.0});
    g.aba_fext = &k::aba_fext;
    g.body_states = &k::body_states;
    g.state_frames = {"FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"};
  }
  Simulator sim(robot);
  sim.use_generated(g);
  VectorX q = neutral(robot.model());
  q[2] = 0.3;
  sim.set_state(q, VectorX::Zero(robot.model().nv));
  test::CountAllocations counter;
  const RunResult r = sim.run(duration);
  const long n = counter.count();
  EXPECT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(sim.generated_evaluations(), r.evaluations);
  return n;
}

TEST(NoAllocation, SimulationStepsWithContactsThroughGeneratedKernels) {
  for (const bool fused : {false, true}) {
    const long short_run = allocations_of_generated_contact_run(0.02, fused);
    const long long_run = allocations_of_generated_contact_run(0.3, fused);  // the feet land at about 0.2 s
    EXPECT_LE(long_run, short_run) << "allocations grow with the number of steps (fused " << fused << ")";
  }
}

// The RX130 stand-in after a stop signal: joint_1's friction brake slipping, joint_3's stuck
// (its release guard evaluates the lock's multiplier every step): no allocation per step.
long allocations_of_braked_run(double duration) {
  Robot robot = Robot::from_urdf(test::model_path("rx130_standin"));
  robot.add_brake({.name = "b1", .joint = "joint_1", .torque = 5.0});
  robot.add_brake({.name = "b3", .joint = "joint_3", .torque = 100.0, .static_torque = 1e5});
  Simulator sim(robot);
  VectorX v = VectorX::Zero(6);
  v[0] = 1.2;
  v[4] = -1.0;
  sim.set_state(neutral(robot.model()), v);
  sim.add_event({"estop", 0.0, {}, 0, false, {EventAction::stop_signal()}});
  test::CountAllocations counter;
  const RunResult r = sim.run(duration);
  const long n = counter.count();
  EXPECT_TRUE(r.ok()) << r.message;
  EXPECT_EQ(sim.brake_states()[0], BrakeState::Slipping);
  EXPECT_EQ(sim.brake_states()[1], BrakeState::Stuck);
  return n;
}

TEST(NoAllocation, SimulationStepsWithSlippingAndStuckBrakes) {
  const long short_run = allocations_of_braked_run(0.02);
  const long long_run = allocations_of_braked_run(0.1);
  EXPECT_LE(long_run, short_run) << "allocations grow with the number of steps";
}

// A category-1 stop on the RX130 stand-in: joint_1's drive decelerating it at its effort limit
// (its standstill guard), joint_3 at rest held by its drive through its brake's lock (the
// saturation guard evaluates the lock's multiplier every step): no allocation per step.
long allocations_of_category1_run(double duration) {
  Robot robot = Robot::from_urdf(test::model_path("rx130_standin"));
  robot.add_motor({.name = "m1", .joint = "joint_1", .effort_limit = 5.0});
  robot.add_motor({.name = "m3", .joint = "joint_3", .effort_limit = 1e4});
  robot.add_brake({.name = "b1", .joint = "joint_1", .torque = 5.0});
  robot.add_brake({.name = "b3", .joint = "joint_3", .torque = 100.0, .static_torque = 1e5});
  Simulator sim(robot);
  VectorX v = VectorX::Zero(6);
  v[0] = 1.2;
  sim.set_state(neutral(robot.model()), v);
  sim.add_event({"stop1", 0.0, {}, 0, false, {EventAction::stop_signal(1)}});
  test::CountAllocations counter;
  const RunResult r = sim.run(duration);
  const long n = counter.count();
  EXPECT_TRUE(r.ok()) << r.message;
  EXPECT_GT(sim.v()[0], 0.0);  // still decelerating
  EXPECT_EQ(sim.v()[2], 0.0);  // held
  EXPECT_EQ(sim.brake_states()[0], BrakeState::Released);
  EXPECT_EQ(sim.brake_states()[1], BrakeState::Released);
  return n;
}

TEST(NoAllocation, SimulationStepsWithACategory1StopHoldingAJoint) {
  const long short_run = allocations_of_category1_run(0.02);
  const long long_run = allocations_of_category1_run(0.1);
  EXPECT_LE(long_run, short_run) << "allocations grow with the number of steps";
}

}  // namespace
}  // namespace articula
