#pragma once
/// Constrained forward dynamics with exact Lagrange multipliers (docs/solvers.md):
///   M v̇ + h = τ + Σ Jᵢᵀ f_ext,i + Jᵀ λ,   J v̇ + γ = 0,
/// solved by one of three methods named after the linear system they factor.
#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <Eigen/QR>
#include <span>
#include <string>

#include "articula/constraints/constraint_set.hpp"

namespace articula {

enum class ConstrainedMethod {
  Auto,        ///< ABA when m = 0, otherwise the method expected to be cheapest (docs/solvers.md)
  Kkt,         ///< the full (nv + m) system [M Jᵀ; J 0]
  RangeSpace,  ///< tree-sparse M = LᵀDL, then the Schur complement J M⁻¹ Jᵀ (m × m)
  NullSpace,   ///< a basis Z of ker J, the reduced system Zᵀ M Z ((nv − r) × (nv − r))
  Hybrid,      ///< joint locks only: ABA with the locked joints' accelerations prescribed (RBDA §9.2)
};
std::string to_string(ConstrainedMethod method);
/// "auto", "kkt", "range", "null", "hybrid" (also "range_space", "null_space"); throws std::invalid_argument.
ConstrainedMethod parse_method(const std::string& text);

enum class SolveStatus {
  Ok,            ///< full-rank rows, unique v̇ and λ
  Redundant,     ///< dependent rows handled by a rank-revealing step: v̇ unique, λ minimum-norm
  SingularPose,  ///< dependent rows at a kinematic singularity whose positions agree but whose drift J̇v
                 ///< leaves range J (the velocity leaves the constraint manifold at second order):
                 ///< least-squares v̇ (no v̇ does better: the unmet part does not depend on v̇), not a failure
  Inconsistent,  ///< dependent rows that contradict each other: v̇ satisfies them in least squares
  Singular,      ///< M not positive definite (or reduced system singular): data.ddq and ws.lambda unspecified
  NonFinite,     ///< NaN / inf in the inputs or the result: data.ddq and ws.lambda unspecified
};
std::string to_string(SolveStatus status);

struct SolveReport {
  SolveStatus status = SolveStatus::Ok;
  ConstrainedMethod method = ConstrainedMethod::Auto;  ///< the method actually used
  int rows = 0;                                        ///< m
  int rank = 0;                                        ///< rank of J
  double residual = 0.0;                               ///< ‖J v̇ + γ‖∞
  std::string message;
  bool ok() const {
    return status == SolveStatus::Ok || status == SolveStatus::Redundant || status == SolveStatus::SingularPose;
  }
};

/// Preallocated workspace of the constrained solvers for one model (rows up to max_rows;
/// more rows grow it once). Results: data.ddq and lambda.
struct ConstrainedWorkspace {
  ConstrainedWorkspace(const Model& model, int max_rows = 24);
  void reserve(int rows);
  int nv;
  VectorX b;                     ///< (nv) τ − h + Σ Jᵀ f_ext
  VectorX lambda;                ///< (capacity ≥ m) the multipliers of the last solve in its first m entries
  VectorX a_free;                ///< (nv) scratch of the methods (range space: D⁻¹ L⁻ᵀ b)
  MatrixX K;                     ///< KKT matrix (nv + m)²
  VectorX rhs, sol;              ///< (nv + m)
  MatrixX Yt;                    ///< (m × nv) (L⁻ᵀ Jᵀ)ᵀ
  MatrixX S;                     ///< (m × m) Schur complement
  MatrixX Sfact;                 ///< (m × m) its Cholesky factor
  VectorX r;                     ///< (m)
  MatrixX Jt;                    ///< (max(nv, m))² scratch: Jᵀ (null space), Yᵀ D⁻¹ (range space)
  MatrixX Z;                     ///< (nv × nv) null-space basis storage
  VectorX householder_work;      ///< (nv) scratch of the null-space method's Q
  std::vector<char> prescribed;  ///< (njoints) hybrid method: joints whose acceleration is given
  VectorX qdd;                   ///< (nv) hybrid method: the given accelerations
  MatrixX MZ, ZMZ;
  MatrixX Rt;            ///< (m × m) rank-deficient rows: [R₁₁ R₁₂] of the pivoted QR of Jᵀ
  MatrixX G;             ///< (m × m) R_t R_tᵀ
  VectorX row_a, row_b;  ///< (m) scratch of the rank-deficient path
  Eigen::LLT<MatrixX> Gllt;
  Eigen::PartialPivLU<MatrixX> lu;
  Eigen::LDLT<MatrixX> ldlt;
  Eigen::LLT<MatrixX> llt;
  Eigen::ColPivHouseholderQR<MatrixX> qr;
};

/// Solves with explicit rows J (m × nv), γ (m). With m = 0 every method reduces to
/// ABA (Auto) or the same system without rows. Writes data.ddq (nv) and ws.lambda (m).
/// Armature is included through M (crba) / D (aba); f_ext as in rnea()/aba().
/// Never throws for numerical trouble: the report says what happened; throws
/// std::invalid_argument for inconsistent sizes only.
SolveReport solve_constrained(const Model& model, Data& data, ConstrainedWorkspace& ws,
                              const Eigen::Ref<const MatrixX>& J, VectorRef gamma, VectorRef q, VectorRef v,
                              VectorRef tau, std::span<const Force> f_ext = {},
                              ConstrainedMethod method = ConstrainedMethod::Auto);

/// The rows of the enabled constraints of `set` at (q, v) (with Baumgarte terms), then
/// solve_constrained(); the multipliers are in ws.lambda.head(set.dim()), in the set's row order
/// (set.rows_of(name, ws.lambda) for one constraint). When every enabled
/// constraint is a JointLock, Auto (and Hybrid) use hybrid dynamics: aba_prescribed() with
/// q̈_locked = −γ and λ = τ_required − τ on the locked dofs (one O(n) pass, M never formed);
/// Hybrid on any other set falls back to the range-space method (report.method says which).
SolveReport constrained_forward_dynamics(const Model& model, Data& data, ConstrainedWorkspace& ws, ConstraintSet& set,
                                         VectorRef q, VectorRef v, VectorRef tau, std::span<const Force> f_ext = {},
                                         ConstrainedMethod method = ConstrainedMethod::Auto);

/// The method Auto picks for m rows on this model (docs/solvers.md, measured thresholds).
ConstrainedMethod choose_method(const Model& model, int rows);

}  // namespace articula
