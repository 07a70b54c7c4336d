#pragma once
/// Adaptive Dormand–Prince 5(4) on the configuration manifold (J. R. Dormand & P. J. Prince,
/// "A family of embedded Runge–Kutta formulae", J. Comput. Appl. Math. 6, 1980; step-size
/// control as in Hairer, Nørsett & Wanner, Solving ODEs I, §II.4). Stages in the
/// Runge–Kutta–Munthe-Kaas form like fixed_step()'s RK4: q = q₀ ⊕ θ, θ̇ = dexp⁻¹_θ(v).
/// Formulas, error norm and step control: docs/integrators.md.
#include "articula/integrators/fixed_step.hpp"

namespace articula {

struct AdaptiveOptions {
  double abs_tol = 1e-8;                      ///< > 0
  double rel_tol = 1e-6;                      ///< ≥ 0
  double min_step = 1e-9;                     ///< [s] > 0: a step that would go below fails
  double max_step = 1e-2;                     ///< [s] ≥ min_step
  double safety = 0.9;                        ///< factor on the optimal step, in (0, 1]
  double min_factor = 0.2, max_factor = 5.0;  ///< bounds of h_new / h: 0 < min_factor < 1 ≤ max_factor
  /// Throws std::invalid_argument naming the offending field (every value must also be finite).
  void validate() const;
};

struct Dopri5Workspace {
  explicit Dopri5Workspace(const Model& model);
  // Stage storage, sized once (nq for qs, nv otherwise); no allocation in dopri5_step.
  VectorX kq[7];             ///< stage rates of θ, dexp⁻¹_θᵢ(vᵢ)
  VectorX kv[7];             ///< stage accelerations f(qᵢ, vᵢ)
  VectorX theta, vs, qs;     ///< the current stage: θᵢ, vᵢ, qᵢ = q₀ ⊕ θᵢ
  VectorX err_theta, err_v;  ///< 5th − 4th order difference
};

struct AdaptiveStepResult {
  bool ok = true;         ///< false: f failed, or the step fell below min_step (q, v unchanged)
  bool f_failed = false;  ///< f returned false
  double h = 0.0;         ///< the step taken [s] (0 when !ok)
  double h_next = 0.0;    ///< proposed next step [s] (≤ max_step); when !ok, the last step tried
  double error = 0.0;     ///< weighted RMS error estimate of the accepted step (≤ 1 unless the
                          ///< step was a forced h_limit < min_step step)
  int rejected = 0;       ///< trials rejected before acceptance
  int evaluations = 0;    ///< calls of f (7 for the first trial, 6 for each retry: FSAL)
};

/// One accepted step from (q, v), in place, trying h first (clamped to [min_step, max_step]
/// and to h_limit, the largest step allowed, e.g. up to the next scheduled event; h_limit may
/// be below min_step to land exactly on it: that step is then taken at once, without error
/// control). Rejected trials shrink h by max(min_factor, safety·err^(−1/5)); when the next
/// trial would fall below min_step, min_step itself is tried once, then the step fails.
/// The error norm is the weighted RMS of the 5th−4th order difference over the tangent
/// coordinates θ (nv) and v (nv), each scaled by abs_tol + rel_tol·max(|x₀|, |x₁|): for v
/// the velocities at the start and the end of the step, for θ (which starts at 0) the
/// displacement |θ₁| of the step and |v₀|·h.
/// The accepted step proposes h_next = h·clamp(safety·err^(−1/5), min_factor, max_factor),
/// not above h after a rejection, and not below the requested h when only h_limit shortened
/// the step. The 5th-order solution is propagated (local extrapolation). f is not cached
/// between calls (the right-hand side may change); within a call its first evaluation is
/// reused by every trial (first same as last is not exploited across calls).
/// Cost: 7 + 6·rejected evaluations of f; no allocation.
/// @throws std::invalid_argument for invalid options, sizes, h ≤ 0 or h_limit ≤ 0 (or NaN).
AdaptiveStepResult dopri5_step(const Model& model, const AccelerationFn& f, double h, double h_limit,
                               Eigen::Ref<VectorX> q, Eigen::Ref<VectorX> v, Dopri5Workspace& ws,
                               const AdaptiveOptions& options);

}  // namespace articula
