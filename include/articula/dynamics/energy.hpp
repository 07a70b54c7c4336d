#pragma once
/// Energies and the centre of mass.
#include "articula/model/data.hpp"

namespace articula {

/// T = ½ Σ v_iᵀ I_i v_i + ½ Σ armature_k v_k² (= ½ vᵀ M v). Computes forward kinematics. Cost O(n).
double kinetic_energy(const Model& model, Data& data, VectorRef q, VectorRef v);
/// V = −Σ m_i gᵀ c_i (zero at the world origin). Computes forward kinematics. Cost O(n).
double potential_energy(const Model& model, Data& data, VectorRef q);
/// Both, from one kinematics pass: data.kinetic_energy, data.potential_energy; returns their sum.
double mechanical_energy(const Model& model, Data& data, VectorRef q, VectorRef v);
/// The same two energies from the placements data.oMi and body velocities data.v already
/// computed for (q, v) — by forward_kinematics(q, v), rnea(), aba(), aba_prescribed() or
/// constrained_forward_dynamics() at that state — without another kinematics pass.
double mechanical_energy_from_kinematics(const Model& model, Data& data, VectorRef v);
/// Centre of mass in the world into data.com (and data.mass). Cost O(n).
const Vector3& center_of_mass(const Model& model, Data& data, VectorRef q);
/// 3 × nv Jacobian of the centre of mass (world axes) into data.Jcom, with data.com.
/// Column k: (m_sub v_k + ω_k × h_sub) / m, with m_sub, h_sub the mass and first moment
/// of the subtree moved by dof k (world axes) — O(n), no per-body Jacobian.
const MatrixX& center_of_mass_jacobian(const Model& model, Data& data, VectorRef q);

}  // namespace articula
