// Simulator owns its state (in its implementation) and is not copyable; a move hands the
// whole simulation over.
#include <gtest/gtest.h>

#include <type_traits>

#include "test_support.hpp"

namespace articula {
namespace {

static_assert(!std::is_copy_constructible_v<Simulator>, "a Simulator is not copyable");
static_assert(!std::is_copy_assignable_v<Simulator>, "a Simulator is not copyable");
static_assert(std::is_nothrow_move_constructible_v<Simulator>);

TEST(SimulatorOwnership, NotCopyable) {
  EXPECT_FALSE(std::is_copy_constructible_v<Simulator>);
  EXPECT_FALSE(std::is_copy_assignable_v<Simulator>);
}

// Half a run, the simulator moved (its events, controller and brakes' guards with it), the
// other half: the run the unmoved simulator makes.
TEST(SimulatorOwnership, AMovedSimulatorContinuesTheRun) {
  auto run = [](bool move) {
    test::StandingHumanoid h = test::standing_humanoid();
    auto sim = std::make_unique<Simulator>(h.robot);
    sim->set_controller(pd_controller(h.robot, h.targets, 400.0, 20.0), 1e-3);
    sim->set_state(h.q, VectorX::Zero(h.robot.model().nv));
    Event e;
    e.name = "release";
    e.time = 0.05;
    e.actions = {EventAction::disable("left_foot")};
    sim->add_event(e);
    EXPECT_TRUE(sim->run(0.03).ok());
    if (!move) {
      EXPECT_TRUE(sim->run(0.04).ok());
      return VectorX(sim->q());
    }
    Simulator moved = std::move(*sim);
    sim.reset();
    const RunResult r = moved.run(0.04);
    EXPECT_TRUE(r.ok()) << r.message;
    EXPECT_EQ(r.events.size(), 1u);
    EXPECT_DOUBLE_EQ(moved.time(), 0.07);
    return VectorX(moved.q());
  };
  const VectorX a = run(true), b = run(false);
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace articula
