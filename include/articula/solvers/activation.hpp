#pragma once
/// Velocity jumps at constraint activation (A. Müller, "Forward Dynamics of Variable
/// Topology Mechanisms — The Case of Constraint Activation", arXiv:2604.19419).
///
/// When bilateral constraints switch on at (q, v⁻), positions are continuous and the
/// velocity jumps so that generalized momentum is balanced by the constraint impulse:
///   [M Jᵀ; J 0] [Δv; Λ] = [U; −(1 + e) J v⁻],   v⁺ = v⁻ + Δv,
/// (M with armature, U an optional impulse of applied forces, e ∈ [0, 1] restitution; e = 0
/// is the plastic jump J v⁺ = 0). The constraint impulse on the system is −Jᵀ Λ.
/// docs/activation.md writes out every form and its cost.
#include <string>
#include <vector>

#include "articula/constraints/constraint_set.hpp"
#include "articula/solvers/constrained_dynamics.hpp"

namespace articula {

enum class JumpForm {
  Auto,       ///< JointLocks only → Locks; otherwise Range (measured fastest, docs/activation.md)
  Full,       ///< the KKT system over all active rows, size nv + m, dense LU
  Range,      ///< the same system in range-space form: tree-sparse LᵀDL of M, Schur complement (m × m)
  Projector,  ///< impulse balance projected on ker J₁ (persistent rows), size nv + m₂
  Minimal,    ///< Voronets form: Δv = F₁ Δy, J₁F₁ = 0, size nv − m₁ + m₂
  Locks,      ///< selection rows of joint locks: only the free block M_FF is solved
  Naive,      ///< for comparison only: locked rates set to zero (Euclidean projection for other rows)
  None,       ///< no jump: v⁺ = v⁻ (the constraint is then violated at velocity level)
};
std::string to_string(JumpForm form);
/// "auto", "full", "range", "projector", "minimal", "locks", "naive", "none"; throws std::invalid_argument.
JumpForm parse_jump_form(const std::string& text);

struct JumpOptions {
  JumpForm form = JumpForm::Auto;
  double restitution = 0.0;  ///< e: J v⁺ = −e J v⁻ (0 ≤ e ≤ 1)
  VectorX impulse;           ///< U (nv), or empty for none
  bool diagnostics = true;   ///< compute the momentum and constraint residuals
};

struct JumpResult {
  SolveStatus status = SolveStatus::Ok;
  JumpForm form = JumpForm::Auto;   ///< the form actually used
  VectorX v_minus, v_plus;          ///< (nv)
  VectorX Lambda;                   ///< (m) all active rows, in ConstraintSet row order
  std::vector<std::string> names;   ///< active constraints, in row order
  std::vector<VectorX> Lambda_per;  ///< Λ split per active constraint
  double kinetic_before = 0.0, kinetic_after = 0.0;
  double constraint_residual = 0.0;  ///< ‖J v⁺ + e J v⁻‖∞
  double momentum_residual = 0.0;    ///< ‖P_ker J (M Δv − U)‖∞ (Euclidean projector)
  int rank = 0;                      ///< rank of J
  std::string message;
  bool ok() const { return status == SolveStatus::Ok || status == SolveStatus::Redundant; }
  /// Λ of one active constraint; throws std::invalid_argument for an unknown name.
  const VectorX& Lambda_of(const std::string& name) const;
};

/// The jump with explicit rows: J1 (m₁ × nv) persistent rows that v⁻ already satisfies,
/// J2 (m₂ × nv) the rows being activated. M is taken from data.M: call crba(q) first (the
/// range form writes its factorization into data.Lfact / data.Dfact / data.Dinv_fact).
/// `locked` lists the dofs of joint-lock rows (used only by JumpForm::Locks / Naive: rows of
/// J1 and J2 must then all be selection rows, in that order). Never throws for numerical
/// trouble (the status says); throws std::invalid_argument for inconsistent sizes.
JumpResult velocity_jump(const Model& model, Data& data, const Eigen::Ref<const MatrixX>& J1,
                         const Eigen::Ref<const MatrixX>& J2, VectorRef v_minus, const JumpOptions& options = {},
                         const std::vector<int>& locked = {});

/// Enables the named constraints of `set` at q (their references are taken at q) and applies
/// the jump from v⁻ with every enabled constraint active; the already-enabled ones are the
/// persistent rows J1. Returns v⁺, Λ per constraint, energies and diagnostics.
/// Unknown names throw std::invalid_argument (before anything is changed). A jump that fails
/// (status NonFinite / Singular, or a form that does not apply, e.g. Locks with a frame row)
/// changes nothing: the named constraints are left as they were, v⁺ = v⁻, Λ = 0.
JumpResult activate_constraints(const Model& model, Data& data, ConstraintSet& set,
                                const std::vector<std::string>& names, VectorRef q, VectorRef v_minus,
                                const JumpOptions& options = {});

/// Deactivation changes no velocity: disables the named constraints and returns v unchanged.
void deactivate_constraints(ConstraintSet& set, const std::vector<std::string>& names);

}  // namespace articula
