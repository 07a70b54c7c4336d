#include "articula/solvers/activation.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <algorithm>
#include <limits>
#include <stdexcept>

#include "articula/common/check.hpp"
#include "articula/common/enum_names.hpp"
#include "articula/constraints/joint_lock.hpp"
#include "articula/dynamics/crba.hpp"
#include "dense_solve.hpp"
#include "methods.hpp"

namespace articula {

namespace {
constexpr EnumNames<JumpForm, 9> kJumpForms{{{JumpForm::Auto, "auto"},
                                             {JumpForm::Auto, "consistent"},
                                             {JumpForm::Full, "full"},
                                             {JumpForm::Range, "range"},
                                             {JumpForm::Projector, "projector"},
                                             {JumpForm::Minimal, "minimal"},
                                             {JumpForm::Locks, "locks"},
                                             {JumpForm::Naive, "naive"},
                                             {JumpForm::None, "none"}}};
}  // namespace

std::string to_string(JumpForm form) { return std::string(enum_name(kJumpForms, form)); }

JumpForm parse_jump_form(const std::string& text) { return parse_enum(kJumpForms, text, "jump form"); }

const VectorX& JumpResult::Lambda_of(const std::string& name) const {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return Lambda_per[i];
  throw std::invalid_argument("JumpResult::Lambda_of: no active constraint '" + name + "'");
}

namespace {

// Euclidean basis of ker A (columns), from the pivoted QR of Aᵀ: Aᵀ P = Q R → Q₂.
MatrixX null_space_basis(const MatrixX& A, int n, int& rank) {
  if (A.rows() == 0) {
    rank = 0;
    return MatrixX::Identity(n, n);
  }
  Eigen::ColPivHouseholderQR<MatrixX> qr(A.transpose());
  qr.setThreshold(detail::kRowRankTolerance);
  rank = static_cast<int>(qr.rank());
  MatrixX Q = qr.householderQ() * MatrixX::Identity(n, n);
  return Q.rightCols(n - rank);
}

// Full KKT (Müller, eq. for the plastic impact): [M Jᵀ; J 0][Δv; Λ] = [U; c].
void jump_full(const MatrixX& M, const Eigen::Ref<const MatrixX>& J, const VectorX& U, const VectorX& c, VectorX& dv,
               VectorX& Lambda, int& rank) {
  const int n = static_cast<int>(M.rows()), m = static_cast<int>(J.rows());
  MatrixX K = MatrixX::Zero(n + m, n + m);
  K.topLeftCorner(n, n) = M;
  K.topRightCorner(n, m) = J.transpose();
  K.bottomLeftCorner(m, n) = J;
  VectorX rhs(n + m);
  rhs << U, c;
  VectorX sol;
  rank = detail::solve_square(K, rhs, sol) - n;
  dv = sol.head(n);
  Lambda = sol.tail(m);
}

// The full system in range-space form (Nocedal & Wright §16.2), on the tree-sparse
// M = LᵀDL (RBDA §6.5): from MΔv + JᵀΛ = U and JΔv = c,
//   S Λ = J M⁻¹ U − c,  S = J M⁻¹ Jᵀ = Yᵀ D⁻¹ Y (Y = L⁻ᵀ Jᵀ),  Δv = M⁻¹ (U − Jᵀ Λ).
// Dependent rows: S is singular, Λ minimum-norm, Δv still unique. Returns false if M is not
// positive definite.
bool jump_range(const Model& model, Data& data, const Eigen::Ref<const MatrixX>& J, const VectorX& U, const VectorX& c,
                VectorX& dv, VectorX& Lambda, int& rank) {
  const int n = model.nv, m = static_cast<int>(J.rows());
  try {
    factorize_mass_matrix(model, data);
  } catch (const std::exception&) {
    return false;
  }
  // Scratch kept between calls (events are rare, but a study may jump often): sized once.
  thread_local MatrixX Yt, DY, S, L;
  thread_local VectorX w, r;
  thread_local Eigen::LDLT<MatrixX> ldlt;
  const VectorX& Dinv = data.Dinv_fact;
  w = U;  // D⁻¹ L⁻ᵀ U (zero without an applied impulse: no sweep)
  if (!U.isZero(0.0)) {
    solve_mass_lt(model, data, w);
    w.array() *= Dinv.array();
  }
  Yt = J;
  solve_mass_lt_transposed(model, data, Yt);
  S.resize(m, m);
  DY.resize(m, n);
  DY.noalias() = Yt * Dinv.asDiagonal();
  S.noalias() = DY * Yt.transpose();
  r.resize(m);
  r.noalias() = Yt * w;
  r -= c;
  L.resize(m, m);
  Lambda.resize(m);
  rank = detail::solve_psd(S, r, Lambda, L, ldlt);
  dv.resize(n);
  dv.noalias() = Yt.transpose() * Lambda;
  dv.array() = w.array() - Dinv.array() * dv.array();
  solve_mass_l(model, data, dv);
  return true;
}

// Projector form in redundant coordinates: with P₁ = 1 − J₁⁺J₁ (Euclidean projector on ker J₁),
//   [P₁M + (1 − P₁)  P₁J₂ᵀ; J₂ 0] [Δv; Λ₂] = [P₁U; c₂]     (size nv + m₂).
// Rows of P₁M + (1 − P₁) split into ker J₁ ⊕ range J₁ᵀ: the momentum balance projected on the
// admissible motions of the persistent constraints, and J₁Δv = 0.
void jump_projector(const MatrixX& M, const MatrixX& J1, const MatrixX& J2, const VectorX& U, const VectorX& c2,
                    VectorX& dv, VectorX& Lambda2, int& rank2) {
  const int n = static_cast<int>(M.rows()), m2 = static_cast<int>(J2.rows());
  int r1 = 0;
  const MatrixX F1 = null_space_basis(J1, n, r1);
  const MatrixX P1 = F1 * F1.transpose();
  MatrixX K = MatrixX::Zero(n + m2, n + m2);
  K.topLeftCorner(n, n) = P1 * M + (MatrixX::Identity(n, n) - P1);
  K.topRightCorner(n, m2) = P1 * J2.transpose();
  K.bottomLeftCorner(m2, n) = J2;
  VectorX rhs(n + m2);
  rhs << P1 * U, c2;
  VectorX sol;
  rank2 = detail::solve_square(K, rhs, sol) - n;
  dv = sol.head(n);
  Lambda2 = sol.tail(m2);
}

// Minimal-coordinate (Voronets) form: Δv = F₁Δy with J₁F₁ = 0,
//   [F₁ᵀMF₁  (J₂F₁)ᵀ; J₂F₁ 0] [Δy; Λ₂] = [F₁ᵀU; c₂]      (size nv − m₁ + m₂).
void jump_minimal(const MatrixX& M, const MatrixX& J1, const MatrixX& J2, const VectorX& U, const VectorX& c2,
                  VectorX& dv, VectorX& Lambda2, int& rank2) {
  const int n = static_cast<int>(M.rows()), m2 = static_cast<int>(J2.rows());
  int r1 = 0;
  const MatrixX F1 = null_space_basis(J1, n, r1);
  const int k = n - r1;
  const MatrixX G = J2 * F1;
  MatrixX K = MatrixX::Zero(k + m2, k + m2);
  K.topLeftCorner(k, k) = F1.transpose() * M * F1;
  K.topRightCorner(k, m2) = G.transpose();
  K.bottomLeftCorner(m2, k) = G;
  VectorX rhs(k + m2);
  rhs << F1.transpose() * U, c2;
  VectorX sol;
  rank2 = detail::solve_square(K, rhs, sol) - k;
  dv = F1 * sol.head(k);
  Lambda2 = sol.tail(m2);
}

// xᵀ M x column by column, without a temporary M x.
double quadratic_form(const MatrixX& M, VectorRef x) {
  double s = 0.0;
  for (Eigen::Index j = 0; j < M.cols(); ++j) s += x[j] * M.col(j).dot(x);
  return s;
}

// The number of distinct dofs in `locked`: the rank of its selection rows (a dof locked twice
// gives two equal rows).
int distinct_dofs(const std::vector<int>& locked, int n, std::vector<char>& seen) {
  seen.assign(static_cast<std::size_t>(n), 0);
  int count = 0;
  for (int d : locked)
    if (!seen[static_cast<std::size_t>(d)]) {
      seen[static_cast<std::size_t>(d)] = 1;
      ++count;
    }
  return count;
}

// Joint locks (selection rows S_L): Δv_L = c (= −(1+e) v⁻_L), M_FF Δv_F = U_F − M_FL Δv_L,
// Λ = U_L − M_LF Δv_F − M_LL Δv_L. Only the free block is factorized (Cholesky). Scratch kept
// between calls: no allocation once sized.
void jump_locks(const MatrixX& M, const std::vector<int>& locked, const VectorX& U, const VectorX& c, VectorX& dv,
                VectorX& Lambda) {
  const int n = static_cast<int>(M.rows()), m = static_cast<int>(locked.size());
  thread_local std::vector<char> is_locked;
  thread_local std::vector<int> free;
  thread_local MatrixX MFF;
  thread_local VectorX rhs;
  thread_local Eigen::LLT<MatrixX> llt;
  distinct_dofs(locked, n, is_locked);  // marks the locked dofs
  free.clear();
  for (int i = 0; i < n; ++i)
    if (!is_locked[static_cast<std::size_t>(i)]) free.push_back(i);
  const int f = static_cast<int>(free.size());
  dv.setZero(n);
  for (int r = 0; r < m; ++r) dv[locked[r]] = c[r];
  if (f > 0) {
    MFF.resize(f, f);
    rhs.resize(f);
    for (int a = 0; a < f; ++a) {
      const int i = free[static_cast<std::size_t>(a)];
      double s = U[i];
      for (int r = 0; r < m; ++r) s -= M(i, locked[r]) * c[r];
      rhs[a] = s;
      for (int b = 0; b < f; ++b) MFF(a, b) = M(i, free[static_cast<std::size_t>(b)]);
    }
    llt.compute(MFF);
    llt.solveInPlace(rhs);
    for (int a = 0; a < f; ++a) dv[free[static_cast<std::size_t>(a)]] = rhs[a];
  }
  Lambda.resize(m);
  for (int r = 0; r < m; ++r) Lambda[r] = U[locked[r]] - M.row(locked[r]).dot(dv);
}

}  // namespace

JumpResult velocity_jump(const Model& model, Data& data, const Eigen::Ref<const MatrixX>& J1,
                         const Eigen::Ref<const MatrixX>& J2, VectorRef v_minus, const JumpOptions& options,
                         const std::vector<int>& locked) {
  const int n = model.nv, m1 = static_cast<int>(J1.rows()), m2 = static_cast<int>(J2.rows()), m = m1 + m2;
  ARTICULA_CHECK(J1.cols() == n && J2.cols() == n, "rows must have nv = " << n << " columns");
  ARTICULA_CHECK_SIZE(v_minus, n);
  ARTICULA_CHECK(options.impulse.size() == 0 || options.impulse.size() == n,
                 "impulse U has size " << options.impulse.size() << ", expected 0 or " << n);
  ARTICULA_CHECK(options.restitution >= 0.0 && options.restitution <= 1.0,
                 "restitution must be in [0, 1], got " << options.restitution);
  const MatrixX& M = data.M;
  JumpResult res;
  res.v_minus = v_minus;
  // J = [J1; J2]: when the two blocks are consecutive rows of one matrix (as
  // activate_constraints() and ConstraintSet::J() give them) a view, else a copy.
  MatrixX Jcopy;
  const bool adjacent = m1 == 0 || m2 == 0 || (J1.outerStride() == J2.outerStride() && J2.data() == J1.data() + m1);
  const double* Jdata = m1 > 0 ? J1.data() : J2.data();
  const Eigen::Index Jstride = m1 > 0 ? J1.outerStride() : J2.outerStride();
  if (!adjacent) {
    Jcopy.resize(m, n);
    Jcopy << J1, J2;
  }
  const Eigen::Map<const MatrixX, 0, Eigen::OuterStride<>> J =
      adjacent ? Eigen::Map<const MatrixX, 0, Eigen::OuterStride<>>(
                     m > 0 ? Jdata : nullptr, m, n, Eigen::OuterStride<>(std::max<Eigen::Index>(Jstride, 1)))
               : Eigen::Map<const MatrixX, 0, Eigen::OuterStride<>>(Jcopy.data(), m, n, Eigen::OuterStride<>(m));
  // Scratch kept between calls (a study or a simulation may jump often): no allocation once
  // sized, apart from the result's own vectors.
  thread_local VectorX U_zero, c, dv;
  if (options.impulse.size() == 0) U_zero.setZero(n);
  const VectorX& U = options.impulse.size() ? options.impulse : U_zero;
  if (!all_finite(v_minus) || !all_finite(J) || !all_finite(U) || !all_finite(M)) {
    res.status = SolveStatus::NonFinite;
    res.message = "non-finite velocity, rows, impulse or mass matrix";
    res.v_plus = v_minus;
    return res;
  }
  const double e = options.restitution;
  c.resize(m);
  c.noalias() = J * v_minus;
  c *= -(1.0 + e);
  JumpForm form = options.form;
  const bool all_locks = static_cast<int>(locked.size()) == m && m > 0;
  // Measured (benchmarks/README.md, bench_activation): the range-space form of the full
  // system beat the dense full, projector and minimal forms on every case, also with
  // persistent rows; lock-only sets take the locks form.
  if (form == JumpForm::Auto) form = all_locks ? JumpForm::Locks : JumpForm::Range;
  if (form == JumpForm::Locks && !all_locks) {
    res.status = SolveStatus::Singular;
    res.message = "the locks form needs every active row to be a joint lock";
    res.v_plus = v_minus;
    return res;
  }
  if (m1 == 0 && (form == JumpForm::Projector || form == JumpForm::Minimal)) form = JumpForm::Full;
  res.form = form;
  dv.setZero(n);
  VectorX Lambda = VectorX::Zero(m), Lambda2;
  int rank2 = m2;
  switch (form) {
    case JumpForm::Full:
      jump_full(M, J, U, c, dv, Lambda, res.rank);
      break;
    case JumpForm::Range:
      if (!jump_range(model, data, J, U, c, dv, Lambda, res.rank)) {
        res.status = SolveStatus::Singular;
        res.message = "M is not positive definite (massless branch?)";
        res.v_plus = v_minus;
        return res;
      }
      break;
    case JumpForm::Projector:
    case JumpForm::Minimal:
      if (form == JumpForm::Projector)
        jump_projector(M, J1, J2, U, c.tail(m2), dv, Lambda2, rank2);
      else
        jump_minimal(M, J1, J2, U, c.tail(m2), dv, Lambda2, rank2);
      Lambda.tail(m2) = Lambda2;
      if (m1 > 0) {
        // Λ₁ from the full balance J₁ᵀΛ₁ = U − MΔv − J₂ᵀΛ₂ (least squares, minimum norm).
        const VectorX r = U - M * dv - J2.transpose() * Lambda2;
        Lambda.head(m1) = J1.transpose().completeOrthogonalDecomposition().solve(r);
      }
      break;
    case JumpForm::Locks:
      jump_locks(M, locked, U, c, dv, Lambda);
      break;
    case JumpForm::Naive: {
      // Zero the locked rates, keep the others; other rows: Euclidean projection on ker J.
      if (all_locks) {
        for (int d : locked) dv[d] = -(1.0 + e) * v_minus[d];
      } else {
        dv = J.transpose() * (J * J.transpose()).completeOrthogonalDecomposition().solve(c);
      }
      Lambda.setConstant(std::numeric_limits<double>::quiet_NaN());
      break;
    }
    case JumpForm::None:
      Lambda.setConstant(std::numeric_limits<double>::quiet_NaN());
      break;
    case JumpForm::Auto:
      break;
  }
  res.v_plus = v_minus + dv;
  res.Lambda = std::move(Lambda);
  if (form != JumpForm::Full && form != JumpForm::Range) {
    if (all_locks) {  // selection rows: the rank is the number of distinct locked dofs
      thread_local std::vector<char> seen;
      res.rank = distinct_dofs(locked, n, seen);
    } else {
      const Eigen::CompleteOrthogonalDecomposition<MatrixX> cod(J);
      res.rank = static_cast<int>(cod.rank());
    }
  }
  if (res.rank < m) res.status = SolveStatus::Redundant;
  if (form == JumpForm::Range) {
    // ½ vᵀ M v = ½ Σ d_i (L v)_i² on the factors the range form just computed: O(nnz L).
    res.kinetic_before = 0.5 * mass_quadratic_form(model, data, v_minus);
    res.kinetic_after = 0.5 * mass_quadratic_form(model, data, res.v_plus);
  } else {
    res.kinetic_before = 0.5 * quadratic_form(M, v_minus);
    res.kinetic_after = 0.5 * quadratic_form(M, res.v_plus);
  }
  if (options.diagnostics) {
    res.constraint_residual = m > 0 ? (J * res.v_plus + e * (J * v_minus)).cwiseAbs().maxCoeff() : 0.0;
    // Component of M Δv − U along admissible directions: P r with P = 1 − J⁺J.
    const VectorX r = M * dv - U;
    const VectorX Pr =
        m > 0 ? VectorX(r - J.transpose() * (J * J.transpose()).completeOrthogonalDecomposition().solve(J * r)) : r;
    res.momentum_residual = n > 0 ? Pr.cwiseAbs().maxCoeff() : 0.0;
  }
  if (!all_finite(res.v_plus)) {
    res.status = SolveStatus::NonFinite;
    res.message = "the jump produced a non-finite velocity";
    res.v_plus = v_minus;
  }
  return res;
}

JumpResult activate_constraints(const Model& model, Data& data, ConstraintSet& set,
                                const std::vector<std::string>& names, VectorRef q, VectorRef v_minus,
                                const JumpOptions& options) {
  for (const auto& n : names) set.get(n);  // throws for an unknown name before any change
  const std::vector<std::string> before = set.enabled_names();
  for (const auto& n : names) set.enable(n);
  // The jump needs J and M only: the placements-only pass when the constraints allow it.
  if (set.compute_jacobian(model, data, q, v_minus))
    crba_from_kinematics(model, data);
  else
    crba(model, data, q);
  // Split the active rows into persistent (enabled before, not re-activated) and new.
  std::vector<std::string> active = set.enabled_names();
  auto is_new = [&](const std::string& n) {
    if (std::find(names.begin(), names.end(), n) != names.end()) return true;
    return std::find(before.begin(), before.end(), n) == before.end();
  };
  int m1 = 0, m2 = 0;
  for (const auto& n : active) (is_new(n) ? m2 : m1) += set.get(n).dim();
  // [J1; J2] in one matrix, so that velocity_jump() sees consecutive rows and copies nothing.
  MatrixX Jall(m1 + m2, model.nv);
  auto J1 = Jall.topRows(m1);
  auto J2 = Jall.bottomRows(m2);
  std::vector<int> locked1, locked2;
  bool all_locks = true;
  std::vector<std::pair<std::string, int>> order;  // (name, row in [J1; J2])
  int r1 = 0, r2 = 0;
  for (const auto& n : active) {
    const Constraint& c = set.get(n);
    const int off = set.row_offset(n);
    const auto* lock = dynamic_cast<const JointLock*>(&c);
    if (!lock) all_locks = false;
    if (is_new(n)) {
      J2.middleRows(r2, c.dim()) = set.J().middleRows(off, c.dim());
      if (lock) locked2.insert(locked2.end(), lock->dofs().begin(), lock->dofs().end());
      order.emplace_back(n, m1 + r2);
      r2 += c.dim();
    } else {
      J1.middleRows(r1, c.dim()) = set.J().middleRows(off, c.dim());
      if (lock) locked1.insert(locked1.end(), lock->dofs().begin(), lock->dofs().end());
      order.emplace_back(n, r1);
      r1 += c.dim();
    }
  }
  std::vector<int> locked;
  if (all_locks) {
    locked = locked1;
    locked.insert(locked.end(), locked2.begin(), locked2.end());
  }
  JumpResult res = velocity_jump(model, data, J1, J2, v_minus, options, locked);
  if (!res.ok()) {
    // Nothing applied (the status says why, e.g. the locks form asked for other rows): the
    // constraints switched on here are switched off again, Λ is zero.
    for (const auto& n : names)
      if (std::find(before.begin(), before.end(), n) == before.end()) set.disable(n);
    res.v_plus = v_minus;
    res.Lambda = VectorX::Zero(m1 + m2);
    for (const auto& [n, row] : order) {
      res.names.push_back(n);
      res.Lambda_per.push_back(VectorX::Zero(set.get(n).dim()));
    }
    return res;
  }
  // Λ back into ConstraintSet row order, and per constraint.
  VectorX ordered(set.dim());
  for (const auto& [n, row] : order) {
    const int dim = set.get(n).dim();
    ordered.segment(set.row_offset(n), dim) = res.Lambda.segment(row, dim);
    res.names.push_back(n);
    res.Lambda_per.push_back(res.Lambda.segment(row, dim));
  }
  res.Lambda = ordered;
  return res;
}

void deactivate_constraints(ConstraintSet& set, const std::vector<std::string>& names) {
  for (const auto& n : names) set.get(n);
  for (const auto& n : names) set.disable(n);
}

}  // namespace articula
