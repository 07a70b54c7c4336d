// Simulator::use_compiled_when_ready: the runtime algorithms run until the kernels are ready;
// the run switches between two steps and ends where the runtime run ends. The kernels here are
// the build's generated ones (test_standing_humanoid), handed over as compiled kernels, so that
// the switch time is set by the test (the controller makes them ready at 0.1 s).
#include <gtest/gtest.h>

#include <cmath>
#include <future>

#include "test_standing_humanoid.hpp"
#include "test_support.hpp"

namespace articula {
namespace {

namespace gen = generated::test_standing_humanoid;

using KernelsFuture = std::shared_future<std::shared_ptr<const CompiledKernels>>;

std::shared_ptr<const CompiledKernels> humanoid_kernels() {
  auto k = std::make_shared<CompiledKernels>();
  k->model_digest = gen::model_digest;
  k->aba = &gen::aba;
  k->held_frames = {{"left_sole_link", true}, {"right_sole_link", true}};
  k->constrained_dynamics = &gen::constrained_dynamics;
  return k;
}

struct Outcome {
  RunResult result;
  VectorX q, v;
  long generated = 0;
};

// 0.2 s of the standing humanoid under PD (RK4, 1 ms) with a push on an arm; `ready` (if any)
// is called by the controller at its first tick at or after 0.1 s.
Outcome run(const KernelsFuture* kernels, const std::function<void()>& ready = {}) {
  test::StandingHumanoid h = test::standing_humanoid();
  Simulator sim(h.robot);
  if (kernels) sim.use_compiled_when_ready(*kernels);
  Controller pd = pd_controller(h.robot, h.targets, 400.0, 20.0);
  bool made_ready = false;
  sim.set_controller(
      [&](double t, VectorRef q, VectorRef v, VectorRef s, Eigen::Ref<VectorX> u) {
        if (ready && !made_ready && t >= 0.1 - 1e-12) {
          ready();
          made_ready = true;
        }
        return pd(t, q, v, s, u);
      },
      1e-3);
  VectorX v = VectorX::Zero(h.robot.model().nv);
  v[h.robot.model().idx_v[h.robot.model().joint_id("arm_right_1_joint")]] = 2.0;
  sim.set_state(h.q, v);
  Outcome out;
  out.result = sim.run(0.2);
  out.q = sim.q();
  out.v = sim.v();
  out.generated = sim.generated_evaluations();
  return out;
}

TEST(CompiledWhenReady, TheRunSwitchesWhenTheKernelsAreReadyAndEndsAsTheRuntimeRun) {
  const Outcome ref = run(nullptr);
  ASSERT_TRUE(ref.result.ok()) << ref.result.message;
  EXPECT_TRUE(std::isnan(ref.result.compiled_from));
  std::promise<std::shared_ptr<const CompiledKernels>> promise;
  const KernelsFuture kernels = promise.get_future().share();
  const Outcome fast = run(&kernels, [&] { promise.set_value(humanoid_kernels()); });
  ASSERT_TRUE(fast.result.ok()) << fast.result.message;
  EXPECT_NEAR(fast.result.compiled_from, 0.1, 1e-9);  // the step after the controller's tick
  // The second half ran on the kernels (its first stage captured nothing new: the welds'
  // references were taken in the first half).
  EXPECT_GT(fast.generated, fast.result.evaluations / 3);
  EXPECT_LT(fast.generated, fast.result.evaluations);
  EXPECT_LT((fast.q - ref.q).cwiseAbs().maxCoeff(), 1e-9);
  EXPECT_LT((fast.v - ref.v).cwiseAbs().maxCoeff(), 1e-9);
}

TEST(CompiledWhenReady, AFailedCompileLeavesTheRuntimeRun) {
  const Outcome ref = run(nullptr);
  std::promise<std::shared_ptr<const CompiledKernels>> promise;
  const KernelsFuture kernels = promise.get_future().share();
  const Outcome failed =
      run(&kernels, [&] { promise.set_exception(std::make_exception_ptr(CompileError("no C++ compiler"))); });
  ASSERT_TRUE(failed.result.ok()) << failed.result.message;
  EXPECT_TRUE(std::isnan(failed.result.compiled_from));
  EXPECT_EQ(failed.generated, 0);
  EXPECT_EQ(failed.q, ref.q);  // bitwise: the runtime path throughout
  EXPECT_EQ(failed.v, ref.v);
  EXPECT_THROW(kernels.get(), CompileError);  // the caller's copy holds the error
}

TEST(CompiledWhenReady, KernelsNeverReadyLeaveTheRuntimeRun) {
  const Outcome ref = run(nullptr);
  std::promise<std::shared_ptr<const CompiledKernels>> promise;
  const KernelsFuture kernels = promise.get_future().share();
  const Outcome waiting = run(&kernels);
  EXPECT_TRUE(std::isnan(waiting.result.compiled_from));
  EXPECT_EQ(waiting.generated, 0);
  EXPECT_EQ(waiting.q, ref.q);
}

}  // namespace
}  // namespace articula
