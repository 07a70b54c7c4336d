#pragma once
/// Internal helper shared by the Runge–Kutta–Munthe-Kaas integrators (fixed_step()'s RK4 and
/// dopri5_step()): one stage evaluation in local coordinates around q₀ (H. Munthe-Kaas,
/// "Runge–Kutta methods on Lie groups", BIT 38, 1998). Not installed.
#include "articula/integrators/fixed_step.hpp"

namespace articula::detail {

/// Stage at local coordinate θ around q0 with velocity vs: qs = q0 ⊕ θ, kv = f(qs, vs) and
/// kq = dexp⁻¹_θ(vs), the rate of θ. Returns f's result (kq is not computed when f fails).
/// The first stage of a step (θ = 0) needs no call: qs = q0 and kq = vs.
/// No allocation.
inline bool rkmk_stage(const Model& model, const AccelerationFn& f, VectorRef q0, VectorRef theta, VectorRef vs,
                       Eigen::Ref<VectorX> qs, Eigen::Ref<VectorX> kv, Eigen::Ref<VectorX> kq) {
  integrate(model, q0, theta, 1.0, qs);
  if (!f(qs, vs, kv)) return false;
  dexp_inv(model, theta, vs, kq);
  return true;
}

}  // namespace articula::detail
