#pragma once
/// The rigid-body algorithms on generator scalars (codegen/sym.hpp) for the generated kernels.
/// The joint placements, RNEA, CRBA and ABA are the runtime's own code (dynamics/joint_motion.hpp,
/// rnea_passes.hpp, crba_passes.hpp, aba_passes.hpp) instantiated on Sym: the generator traces
/// what the runtime runs. CRBA and ABA are traced in body coordinates (Coordinates::Body), where
/// the runtime runs them in world coordinates: traced, the world form made the kernels 2.2–3.0×
/// (CRBA) and 1.3–1.7× (ABA) slower (docs/decisions/0003). Each returns the symbols of its
/// result, so that kernels can combine them in one function (shared terms emitted once).
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
/// Column k of the motion subspaces Model::S (numbers).
SVector6 subspace_column(const Model& model, int k);

/// External forces: one per body from array[6 i … 6 i + 5] = [force; moment] in body i's frame
/// (AbaFextKernel).
std::vector<SForce> force_inputs(const Model& model, const char* array);

/// The joint and world placements and, with v, the body velocities and bias accelerations
/// (v̇ = 0, no gravity) in body coordinates: the workspace of the shared forward-kinematics pass
/// (dynamics/kinematics_pass.hpp) on Sym.
struct BodyMotion {
  explicit BodyMotion(const Model& model)
      : liMi(static_cast<std::size_t>(model.njoints)), oMi(liMi.size()), v(liMi.size()), a(liMi.size()) {}
  std::vector<STransform> liMi, oMi;
  std::vector<SMotion> v, a;
};
/// The kinematics pass traced on Sym (with the velocities when v is given).
BodyMotion body_motion(const Model& model, const SymVector& q, const SymVector* v);

/// τ = M a + h − Σ J_iᵀ f_ext,i (armature included) by the runtime's RNEA passes
/// (dynamics/rnea_passes.hpp) traced on Sym; `f_ext` empty or one force per body.
SymVector rnea(const Model& model, const SymVector& q, const SymVector& v, const SymVector& a,
               const std::vector<SForce>& f_ext = {});
/// CRBA (dynamics/crba_passes.hpp) traced on Sym in body coordinates. Entries outside the tree's
/// pattern are the number 0; `pattern` (optional) marks the entries inside it.
SymMatrix crba(const Model& model, const SymVector& q, std::vector<std::vector<bool>>* pattern = nullptr);
/// ABA (dynamics/aba_passes.hpp) traced on Sym in body coordinates: q̈ = M⁻¹ (τ − h + Σ J_iᵀ f_ext,i);
/// `f_ext` empty or one force per body, in the body's frame.
SymVector aba(const Model& model, const SymVector& q, const SymVector& v, const SymVector& tau,
              const std::vector<SForce>& f_ext = {});

}  // namespace articula::codegen
