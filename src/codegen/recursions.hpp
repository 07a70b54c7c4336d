#pragma once
/// The rigid-body algorithms on generator scalars (codegen/sym_spatial.hpp), in body
/// coordinates, for the generated kernels: each returns the symbols of its result, so that
/// kernels can combine them in one function (where shared terms are emitted once).
#include <string>
#include <vector>

#include "articula/model/model.hpp"
#include "codegen/sym_spatial.hpp"

namespace articula::codegen {

using SymMatrix = std::vector<std::vector<Sym>>;  // [row][column]

/// "array[index]".
std::string at(const char* array, int index);
/// Temporaries holding array[0 … n−1].
std::vector<Sym> inputs(Emitter& e, const char* array, int n);
/// liMi = X_T,i X_J,i(q) (RBDA eq. 4.3) of every joint, reading q[…].
std::vector<STransform> placements(Spatial& s, const Model& model);
/// Column k of the motion subspaces Model::S (numbers).
V6 subspace_column(const Model& model, int k);
/// S_i x_i for joint i's slice of x (size nv).
SMotion joint_motion(Spatial& s, const Model& model, Index i, const std::vector<Sym>& x);
/// a_0 = −g, the fictitious base acceleration of gravity (RBDA §5.3).
SMotion gravity_acceleration(Spatial& s, const Model& model);

/// RNEA (RBDA §5.3, Table 5.1) as rnea() without external forces: τ = M a + h (with armature).
std::vector<Sym> rnea(Spatial& s, const Model& model, const std::vector<STransform>& X, const std::vector<Sym>& v,
                      const std::vector<Sym>& a);
/// CRBA (RBDA §6.2, Table 6.2): composite inertias Iᶜ_λ += λX_i* Iᶜ_i ⁱX_λ, F = Iᶜ_i S_i carried
/// to each ancestor j by ʲX_i* and H_ji = S_jᵀ F. Entries outside the tree's pattern are the
/// number 0; `pattern` (optional) marks the entries inside it.
SymMatrix crba(Spatial& s, const Model& model, const std::vector<STransform>& X,
               std::vector<std::vector<bool>>* pattern = nullptr);
/// ABA (RBDA §7.3, Table 7.1) as aba() without external forces: q̈ = M⁻¹ (τ − h).
std::vector<Sym> aba(Spatial& s, const Model& model, const std::vector<STransform>& X, const std::vector<Sym>& v,
                     const std::vector<Sym>& tau);
/// Inverse of a symmetric positive-definite n × n matrix (n ≤ 6) by D = L diag(d) Lᵀ,
/// D⁻¹ = L⁻ᵀ diag(1/d) L⁻¹ (Golub & Van Loan, Matrix Computations, §4.1).
SymMatrix spd_inverse(Emitter& e, const SymMatrix& A);

}  // namespace articula::codegen
