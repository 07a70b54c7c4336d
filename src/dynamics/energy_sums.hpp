#pragma once
/// The mechanical energies from a kinematics pass's body velocities and world placements,
/// generic over the scalar: the runtime's (energy.cpp) and, traced, the generated `energy`
/// kernel's (codegen/kernels.cpp). T = Σ ½ vᵢᵀ Iᵢ vᵢ (body frame) + ½ Σ armatureₖ vₖ²;
/// V = −Σ mᵢ gᵀ cᵢ with mᵢ gᵀ cᵢ = gᵀ (Rᵢ hᵢ + mᵢ pᵢ) (RBDA §2.13, the inertia's first moment).
#include <vector>

#include "articula/model/model.hpp"
#include "articula/spatial/inertia.hpp"

namespace articula::energy_sums {

template <typename S, typename Motions, typename V>
S kinetic(const Model& model, const Motions& body_velocities, const V& v) {
  S T = S(0.0);
  for (Index i = 0; i < model.njoints; ++i) {
    if constexpr (std::is_same_v<S, double>)
      T += model.inertias[i].kinetic_energy(body_velocities[i]);
    else
      T += model.inertias[i].template cast<S>().kinetic_energy(body_velocities[i]);
  }
  return T + 0.5 * (model.armature.template cast<S>().array() * v.array().square()).sum();
}

template <typename S, typename Placements>
S potential(const Model& model, const Placements& oMi) {
  S V = S(0.0);
  for (Index i = 0; i < model.njoints; ++i) {
    const Inertia& I = model.inertias[i];
    V -= model.gravity.v.template cast<S>().dot(oMi[i].R * I.h.template cast<S>() + S(I.m) * oMi[i].p);
  }
  return V;
}

}  // namespace articula::energy_sums
