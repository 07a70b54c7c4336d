#include "articula/integrators/fixed_step.hpp"

#include "rkmk.hpp"

namespace articula {

FixedStepWorkspace::FixedStepWorkspace(const Model& model)
    : qs(model.nq), vs(model.nv), dq(model.nv), dv(model.nv), k(model.nv), theta(model.nv), kq(model.nv) {}

bool fixed_step(const Model& model, FixedStepMethod method, const AccelerationFn& f, double dt, Eigen::Ref<VectorX> q,
                Eigen::Ref<VectorX> v, FixedStepWorkspace& ws) {
  switch (method) {
    case FixedStepMethod::ExplicitEuler:
      if (!f(q, v, ws.k)) return false;
      integrate(model, q, v, dt, ws.qs);
      q = ws.qs;
      v += dt * ws.k;
      return true;
    case FixedStepMethod::SemiImplicitEuler:
      if (!f(q, v, ws.k)) return false;
      v += dt * ws.k;
      integrate(model, q, v, dt, ws.qs);
      q = ws.qs;
      return true;
    case FixedStepMethod::RK4: {
      // RKMK4: stage i at (q ⊕ θᵢ, v + cᵢ dt kᵥ,ᵢ₋₁) with θᵢ = cᵢ dt k_q,ᵢ₋₁ and
      // k_q,i = dexp⁻¹_θᵢ(vᵢ); the step is q ⊕ dt Σ bᵢ k_q,i, v + dt Σ bᵢ kᵥ,ᵢ,
      // b = (1, 2, 2, 1)/6, c = (0, ½, ½, 1).
      static constexpr double c[4] = {0.0, 0.5, 0.5, 1.0};
      static constexpr double b[4] = {1.0 / 6, 2.0 / 6, 2.0 / 6, 1.0 / 6};
      if (!f(q, v, ws.k)) return false;
      ws.kq = v;  // θ₁ = 0: dexp⁻¹₀ = identity
      ws.dq = b[0] * ws.kq;
      ws.dv = b[0] * ws.k;
      for (int i = 1; i < 4; ++i) {
        ws.theta = c[i] * dt * ws.kq;
        ws.vs = v + c[i] * dt * ws.k;
        if (!detail::rkmk_stage(model, f, q, ws.theta, ws.vs, ws.qs, ws.k, ws.kq)) return false;
        ws.dq += b[i] * ws.kq;
        ws.dv += b[i] * ws.k;
      }
      integrate(model, q, ws.dq, dt, ws.qs);
      q = ws.qs;
      v += dt * ws.dv;
      return true;
    }
  }
  return false;
}

}  // namespace articula
