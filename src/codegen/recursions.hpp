#pragma once
/// The rigid-body algorithms on generator scalars (codegen/sym.hpp) for the generated kernels.
/// The joint placements and RNEA are the runtime's own code (dynamics/joint_motion.hpp,
/// dynamics/rnea_passes.hpp) instantiated on Sym: the generator traces what the runtime runs.
/// CRBA and ABA are written here in body coordinates (RBDA §6.2, §7.3) on the shared spatial
/// algebra, while the runtime's are in world coordinates: traced, the world form made the
/// kernels 2.2–3.0× (CRBA) and 1.3–1.7× (ABA) slower (docs/decisions/0003). Each returns the symbols of
/// its result, so that kernels can combine them in one function (shared terms emitted once).
#include <string>
#include <vector>

#include "articula/model/model.hpp"
#include "articula/spatial/inertia.hpp"
#include "codegen/sym.hpp"

namespace articula::codegen {

using SMotion = MotionTpl<Sym>;
using SForce = ForceTpl<Sym>;
using STransform = TransformTpl<Sym>;
using SInertia = InertiaTpl<Sym>;
using SymVector = Eigen::Matrix<Sym, Eigen::Dynamic, 1>;
using SymMatrix = std::vector<std::vector<Sym>>;  // [row][column]

/// "array[index]".
std::string at(const char* array, int index);
/// Temporaries holding array[0 … n−1] (in the active Emitter).
SymVector inputs(const char* array, int n);
/// liMi = X_T,i X_J,i(q) (RBDA eq. 4.3) of every joint (joint_placement(), shared).
std::vector<STransform> placements(const Model& model, const SymVector& q);
/// Column k of the motion subspaces Model::S (numbers).
SVector6 subspace_column(const Model& model, int k);

/// External forces: one per body from array[6 i … 6 i + 5] = [force; moment] in body i's frame
/// (AbaFextKernel).
std::vector<SForce> force_inputs(const Model& model, const char* array);

/// τ = M a + h − Σ J_iᵀ f_ext,i (armature included) by the runtime's RNEA passes
/// (dynamics/rnea_passes.hpp) traced on Sym; `f_ext` empty or one force per body.
SymVector rnea(const Model& model, const SymVector& q, const SymVector& v, const SymVector& a,
               const std::vector<SForce>& f_ext = {});
/// CRBA (RBDA §6.2, Table 6.2) in body coordinates: composite inertias Iᶜ_λ += λX_i* Iᶜ_i ⁱX_λ,
/// F = Iᶜ_i S_i carried to each ancestor j by ʲX_i* and H_ji = S_jᵀ F. Entries outside the
/// tree's pattern are the number 0; `pattern` (optional) marks the entries inside it.
SymMatrix crba(const Model& model, const std::vector<STransform>& X, std::vector<std::vector<bool>>* pattern = nullptr);
/// ABA (RBDA §7.3, Table 7.1) in body coordinates, as aba(): q̈ = M⁻¹ (τ − h + Σ J_iᵀ f_ext,i);
/// `f_ext` empty or one force per body, in the body's frame (RBDA §7.3: pA_i −= f_ext,i).
SymVector aba(const Model& model, const std::vector<STransform>& X, const SymVector& v, const SymVector& tau,
              const std::vector<SForce>& f_ext = {});
/// Inverse of a symmetric positive-definite n × n matrix (n ≤ 6) by D = L diag(d) Lᵀ,
/// D⁻¹ = L⁻ᵀ diag(1/d) L⁻¹ (Golub & Van Loan, Matrix Computations, §4.1).
SymMatrix spd_inverse(const SymMatrix& A);

}  // namespace articula::codegen
