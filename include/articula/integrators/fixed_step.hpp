#pragma once
/// Fixed-step integrators on the configuration manifold: q advances by the exponential map
/// (integrate()), so quaternions stay unit; v is a vector space.
#include <functional>

#include "articula/model/configuration.hpp"

namespace articula {

/// v̇ = f(q, v), written into vdot (size nv). Return false to signal a failure (the step stops).
using AccelerationFn = std::function<bool(VectorRef q, VectorRef v, Eigen::Ref<VectorX> vdot)>;

enum class FixedStepMethod { ExplicitEuler, SemiImplicitEuler, RK4 };

/// Stage storage, sized once per model.
struct FixedStepWorkspace {
  explicit FixedStepWorkspace(const Model& model);
  VectorX qs, vs, dq, dv, k, theta, kq;
};

/// One step of size dt from (q, v), in place. Cost: 1 (Euler) or 4 (RK4) evaluations of f.
/// - ExplicitEuler:     q⁺ = q ⊕ dt v,  v⁺ = v + dt f(q, v)
/// - SemiImplicitEuler: v⁺ = v + dt f(q, v),  q⁺ = q ⊕ dt v⁺  (symplectic Euler)
/// - RK4: the classical Runge–Kutta tableau (Hairer, Nørsett & Wanner, Solving ODEs I, §II.1)
///   in the Runge–Kutta–Munthe-Kaas form (Munthe-Kaas, BIT 38, 1998): stages q ⊕ θᵢ in local
///   coordinates θ around q, whose rates are the body velocities corrected by dexp⁻¹
///   (truncated after two brackets, enough for order 4); 4th order on every joint type.
/// Returns false if f returned false; (q, v) are then unchanged.
bool fixed_step(const Model& model, FixedStepMethod method, const AccelerationFn& f, double dt, Eigen::Ref<VectorX> q,
                Eigen::Ref<VectorX> v, FixedStepWorkspace& ws);

}  // namespace articula
