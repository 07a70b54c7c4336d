#include <gtest/gtest.h>
#include <cstdio>
#include "test_support.hpp"

namespace articula {
namespace {

TEST(SingularProbe, Kkt) {
  const Model model = load_urdf(test::model_path("pendulum3r"));
  Data data(model);
  ConstrainedWorkspace ws(model);
  for (auto method : {ConstrainedMethod::Kkt, ConstrainedMethod::RangeSpace, ConstrainedMethod::NullSpace}) {
    ConstraintSet set(model);
    set.add(std::make_shared<FrameConstraint>("tip", "tip", AxisMask::parse("xz")));
    VectorX q = VectorX::Zero(3), v = VectorX::Zero(3), tau = VectorX::Zero(3);
    const double dt = 1e-3;
    auto f = [&](const VectorX& qq, const VectorX& vv, VectorX& a) {
      const SolveReport r = constrained_forward_dynamics(model, data, ws, set, qq, vv, tau, {}, method);
      std::printf("  %s rank %d res %.3e lam %s | J %s | g %s\n", to_string(r.status).c_str(), r.rank, r.residual,
                  ::testing::PrintToString(set.lambda().transpose().eval()).c_str(),
                  ::testing::PrintToString(set.J().eval()).c_str(), ::testing::PrintToString(set.gamma().transpose().eval()).c_str());
      a = data.ddq;
      return r.ok();
    };
    std::printf("%s\n", to_string(method).c_str());
    for (int s = 0; s < 3; ++s) {
      VectorX a1, a2, a3, a4;
      f(q, v, a1);
      VectorX q2 = q + 0.5 * dt * v, v2 = v + 0.5 * dt * a1;
      f(q2, v2, a2);
      VectorX q3 = q + 0.5 * dt * v2, v3 = v + 0.5 * dt * a2;
      f(q3, v3, a3);
      VectorX q4 = q + dt * v3, v4 = v + dt * a3;
      f(q4, v4, a4);
      q += dt / 6 * (v + 2 * v2 + 2 * v3 + v4);
      v += dt / 6 * (a1 + 2 * a2 + 2 * a3 + a4);
      std::printf(" q %s v %s\n", ::testing::PrintToString(q.transpose().eval()).c_str(), ::testing::PrintToString(v.transpose().eval()).c_str());
    }
  }
}

}  // namespace
}  // namespace articula
