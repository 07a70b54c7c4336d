#include "articula/solvers/constrained_dynamics.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "articula/common/check.hpp"
#include "articula/common/enum_names.hpp"
#include "articula/dynamics/aba.hpp"
#include "articula/dynamics/crba.hpp"
#include "articula/dynamics/jacobian.hpp"
#include "articula/dynamics/kinematics.hpp"
#include "articula/dynamics/rnea.hpp"
#include "methods.hpp"

namespace articula {

namespace {
constexpr EnumNames<ConstrainedMethod, 7> kMethods{{{ConstrainedMethod::Auto, "auto"},
                                                    {ConstrainedMethod::Kkt, "kkt"},
                                                    {ConstrainedMethod::RangeSpace, "range"},
                                                    {ConstrainedMethod::RangeSpace, "range_space"},
                                                    {ConstrainedMethod::NullSpace, "null"},
                                                    {ConstrainedMethod::NullSpace, "null_space"},
                                                    {ConstrainedMethod::Hybrid, "hybrid"}}};
constexpr EnumNames<SolveStatus, 6> kStatuses{{{SolveStatus::Ok, "ok"},
                                               {SolveStatus::Redundant, "redundant rows"},
                                               {SolveStatus::SingularPose, "singular pose"},
                                               {SolveStatus::Inconsistent, "inconsistent rows"},
                                               {SolveStatus::Singular, "singular"},
                                               {SolveStatus::NonFinite, "non-finite"}}};
}  // namespace

std::string to_string(ConstrainedMethod method) { return std::string(enum_name(kMethods, method)); }

ConstrainedMethod parse_method(const std::string& text) {
  return parse_enum(kMethods, text, "constrained-dynamics method");
}

std::string to_string(SolveStatus status) { return std::string(enum_name(kStatuses, status)); }

ConstrainedWorkspace::ConstrainedWorkspace(const Model& model, int max_rows) : nv(model.nv) {
  prescribed.assign(static_cast<std::size_t>(model.njoints), 0);
  qdd.setZero(nv);
  b.setZero(nv);
  a_free.setZero(nv);
  Z.setZero(nv, nv);
  householder_work.setZero(nv);
  MZ.setZero(nv, nv);
  ZMZ.setZero(nv, nv);
  reserve(max_rows);
}

void ConstrainedWorkspace::reserve(int rows) {
  if (lambda.size() >= rows && K.rows() >= nv + rows) return;
  lambda.setZero(rows);
  K.setZero(nv + rows, nv + rows);
  rhs.setZero(nv + rows);
  sol.setZero(nv + rows);
  Yt.setZero(rows, nv);
  S.setZero(rows, rows);
  Sfact.setZero(rows, rows);
  r.setZero(rows);
  Jt.setZero(std::max(nv, rows), std::max(nv, rows));
  Rt.setZero(rows, rows);
  G.setZero(rows, rows);
  row_a.setZero(rows);
  row_b.setZero(rows);
}

ConstrainedMethod choose_method(const Model& model, int rows) {
  if (rows == 0) return ConstrainedMethod::Auto;
  // Measured (benchmarks/README.md, bench_constrained): the range-space method was the
  // fastest or within noise of it on every bundled case (talos, solo12, panda, ur5,
  // pendulum3r); the null-space method builds a dense basis and never won.
  (void)model;
  return ConstrainedMethod::RangeSpace;
}

namespace detail {

bool ldlt_solve(const Eigen::Ref<const MatrixX>& S, VectorRef r, Eigen::Ref<VectorX> x, Eigen::Ref<MatrixX> L,
                double* pivot_ratio) {
  // Unpivoted S = L D Lᵀ by columns (right-looking, Golub & Van Loan §4.1.2 without square
  // roots): column j is scaled by 1/d_j after it updated the trailing lower triangle, so the
  // critical path has one division per column. Strict lower = L, diagonal = D, and the
  // first superdiagonal (unused otherwise) keeps 1/d_j. Then L y = r, D z = y, Lᵀ x = z.
  // Plain pointer loops over the contiguous columns: m is small (≤ a few dozen).
  const Eigen::Index m = S.rows(), ls = L.outerStride(), ss = S.outerStride();
  double* const l = L.data();
  for (Eigen::Index j = 0; j < m; ++j)
    for (Eigen::Index i = j; i < m; ++i) l[j * ls + i] = S.data()[j * ss + i];
  double dmin = std::numeric_limits<double>::infinity(), dmax = 0.0;
  double dinv_m = 0.0;
  for (Eigen::Index j = 0; j < m; ++j) {
    double* __restrict lj = l + j * ls;
    const double d = lj[j];
    if (!(d > 0.0)) return false;
    dmin = std::min(dmin, d);
    dmax = std::max(dmax, d);
    const double inv = 1.0 / d;
    for (Eigen::Index k = j + 1; k < m; ++k) {
      const double lkj = lj[k] * inv;
      double* __restrict lk = l + k * ls;
      for (Eigen::Index i = k; i < m; ++i) lk[i] -= lj[i] * lkj;
    }
    for (Eigen::Index i = j + 1; i < m; ++i) lj[i] *= inv;
    if (j + 1 < m)
      l[(j + 1) * ls + j] = inv;
    else
      dinv_m = inv;
  }
  // The same rank test as the pivoted LDLᵀ below (pivots of an unpivoted LDLᵀ here).
  if (pivot_ratio) *pivot_ratio = m > 0 ? dmin / std::max(dmax, 1e-300) : 1.0;
  if (!(dmin > kRankTolerance * std::max(dmax, 1e-300))) return false;
  double* const xs = x.data();
  for (Eigen::Index i = 0; i < m; ++i) xs[i] = r[i];
  for (Eigen::Index j = 0; j < m; ++j) {
    const double* lj = l + j * ls;
    const double y = xs[j];
    for (Eigen::Index i = j + 1; i < m; ++i) xs[i] -= lj[i] * y;
  }
  for (Eigen::Index j = m - 1; j >= 0; --j) {
    const double* lj = l + j * ls;
    double acc = xs[j] * (j + 1 < m ? l[(j + 1) * ls + j] : dinv_m);
    for (Eigen::Index i = j + 1; i < m; ++i) acc -= lj[i] * xs[i];
    xs[j] = acc;
  }
  return true;
}

int solve_psd(Eigen::Ref<MatrixX> S, VectorRef r, Eigen::Ref<VectorX> x, Eigen::Ref<MatrixX> L,
              Eigen::LDLT<MatrixX>& ldlt) {
  const Eigen::Index m = S.rows();
  if (m == 0) return 0;
  // Unpivoted LDLᵀ first (the cheapest for the small SPD Schur complements of independent
  // rows), then pivoted LDLᵀ, then the eigen-decomposition.
  if (ldlt_solve(S, r, x, L)) return static_cast<int>(m);
  ldlt.compute(S);
  const auto d = ldlt.vectorD();
  const double dmax = d.cwiseAbs().maxCoeff();
  if (ldlt.info() == Eigen::Success && d.minCoeff() > kRankTolerance * std::max(dmax, 1e-300)) {
    x = ldlt.solve(r);
    return static_cast<int>(m);
  }
  // Dependent rows: minimum-norm solution through the eigen-decomposition of S.
  Eigen::SelfAdjointEigenSolver<MatrixX> es(S);
  const VectorX& l = es.eigenvalues();
  const double lmax = std::max(l.cwiseAbs().maxCoeff(), 1e-300);
  VectorX y = es.eigenvectors().transpose() * r;
  int rank = 0;
  for (Eigen::Index k = 0; k < m; ++k) {
    if (l[k] > kRankTolerance * lmax) {
      y[k] /= l[k];
      ++rank;
    } else {
      y[k] = 0.0;
    }
  }
  x = es.eigenvectors() * y;
  return rank;
}

}  // namespace detail

namespace {

enum class Dynamics { Compute, FromKinematics };

// Shared by solve_constrained() and constrained_forward_dynamics(): M and b = τ − h + Σ Jᵀ f_ext
// (from scratch, or from the kinematics compute_rows() left in data), then the method.
SolveReport solve(const Model& model, Data& data, ConstrainedWorkspace& ws, const Eigen::Ref<const MatrixX>& J,
                  VectorRef gamma, VectorRef q, VectorRef v, VectorRef tau, std::span<const Force> f_ext,
                  ConstrainedMethod method, Dynamics dynamics) {
  ARTICULA_CHECK(J.cols() == model.nv, "J has " << J.cols() << " columns, expected nv = " << model.nv);
  ARTICULA_CHECK(gamma.size() == J.rows(), "gamma has size " << gamma.size() << ", J has " << J.rows() << " rows");
  ARTICULA_CHECK_SIZE(tau, model.nv);
  const int m = static_cast<int>(J.rows());
  SolveReport report;
  report.rows = m;
  ws.reserve(m);  // first: a caller reads ws.lambda.head(m) whatever the outcome
  if (!all_finite(q) || !all_finite(v) || !all_finite(tau) || !all_finite(J) || !all_finite(gamma)) {
    report.status = SolveStatus::NonFinite;
    report.message = "non-finite q, v, τ or constraint rows";
    return report;
  }
  if (method == ConstrainedMethod::Auto) method = choose_method(model, m);
  if (method == ConstrainedMethod::Hybrid) method = ConstrainedMethod::RangeSpace;  // explicit rows: no lock structure
  if (m == 0 && method == ConstrainedMethod::Auto) {
    aba(model, data, q, v, tau, f_ext);
    report.method = ConstrainedMethod::Auto;
  } else {
    // M (with armature) and b = τ − h + Σ Jᵀ f_ext = τ − rnea(q, v, 0, f_ext).
    if (dynamics == Dynamics::FromKinematics) {
      crba_from_kinematics(model, data);
      ws.b = tau - bias_from_kinematics(model, data, f_ext);
    } else {
      crba(model, data, q);
      data.tmp_nv.setZero();
      ws.b = tau - rnea(model, data, q, v, data.tmp_nv, f_ext);
    }
    // Without rows every method reduces to M v̇ = b: use the tree-sparse factorization.
    switch (m == 0 ? ConstrainedMethod::RangeSpace : method) {
      case ConstrainedMethod::Kkt:
        report = detail::solve_kkt(model, data, ws, J, gamma);
        break;
      case ConstrainedMethod::NullSpace:
        report = detail::solve_null_space(model, data, ws, J, gamma);
        break;
      default:
        report = detail::solve_range_space(model, data, ws, J, gamma);
        break;
    }
    report.rows = m;
    report.method = method;
    if (report.status == SolveStatus::Singular) return report;
  }
  if (!all_finite(data.ddq) || !all_finite(ws.lambda.head(m))) {
    report.status = SolveStatus::NonFinite;
    report.message = "the solve produced a non-finite acceleration or multiplier";
    return report;
  }
  if (m > 0) {
    auto r = ws.r.head(m);
    r.noalias() = J * data.ddq;
    r += gamma;
    report.residual = r.cwiseAbs().maxCoeff();
  }
  const double scale = 1.0 + (m > 0 ? gamma.cwiseAbs().maxCoeff() : 0.0);
  if (report.status == SolveStatus::Redundant && report.residual > 1e-6 * scale) {
    report.status = SolveStatus::Inconsistent;
    report.message = "dependent constraint rows contradict each other; least-squares acceleration";
  }
  return report;
}

}  // namespace

SolveReport solve_constrained(const Model& model, Data& data, ConstrainedWorkspace& ws,
                              const Eigen::Ref<const MatrixX>& J, VectorRef gamma, VectorRef q, VectorRef v,
                              VectorRef tau, std::span<const Force> f_ext, ConstrainedMethod method) {
  return solve(model, data, ws, J, gamma, q, v, tau, f_ext, method, Dynamics::Compute);
}

namespace {

// Joint locks only: hybrid dynamics (aba_prescribed). Returns false, with nothing written,
// when a dof is locked twice (dependent rows: left to the rank-revealing methods).
bool solve_locks(const Model& model, Data& data, ConstrainedWorkspace& ws, ConstraintSet& set, VectorRef q, VectorRef v,
                 VectorRef tau, std::span<const Force> f_ext, SolveReport& report) {
  const std::vector<int>& dofs = set.lock_dofs();
  const auto gamma = set.gamma();
  const int m = static_cast<int>(dofs.size());
  std::fill(ws.prescribed.begin(), ws.prescribed.end(), 0);
  for (int r = 0; r < m; ++r) {
    const auto joint = static_cast<std::size_t>(model.dof_joint[static_cast<std::size_t>(dofs[r])]);
    if (ws.prescribed[joint])  // a second dof of a multi-dof joint, or the same dof locked twice
      for (int k = 0; k < r; ++k)
        if (dofs[k] == dofs[r]) return false;
    ws.prescribed[joint] = 1;
    ws.qdd[dofs[r]] = -gamma[r];
  }
  report = SolveReport{};
  report.rows = m;
  report.rank = m;
  report.method = ConstrainedMethod::Hybrid;
  ws.reserve(m);  // first: a caller reads ws.lambda.head(m) whatever the outcome
  if (!all_finite(q) || !all_finite(v) || !all_finite(tau) || !all_finite(gamma)) {
    report.status = SolveStatus::NonFinite;
    report.message = "non-finite q, v, τ or constraint rows";
    return true;
  }
  aba_prescribed(model, data, q, v, tau, ws.prescribed, ws.qdd, ws.b, f_ext);
  for (int r = 0; r < m; ++r) ws.lambda[r] = ws.b[dofs[r]] - tau[dofs[r]];
  if (!all_finite(data.ddq) || !all_finite(ws.lambda.head(m))) {
    report.status = SolveStatus::NonFinite;
    report.message = "the solve produced a non-finite acceleration or multiplier";
    return true;
  }
  double residual = 0.0;
  for (int r = 0; r < m; ++r) residual = std::max(residual, std::abs(data.ddq[dofs[r]] + gamma[r]));
  report.residual = residual;
  return true;
}

// Whether dependent rows agree at the position level, e ∈ range J (to 10⁻⁶ (1 + ‖e‖∞)): the
// stabilized drift is γ = J̇v + kd J v + kp e, and J v always lies in range J, so a residual
// J v̇ + γ along the left null space of J that the errors e do not explain comes from J̇v
// alone: a velocity that J admits to first order but that leaves the constraint manifold at
// second order, which happens at kinematic singularities (a chain held straight). Rows that
// contradict each other (two locks of one joint at different positions) fail this test.
// Pivoted QR of Jᵀ (Golub & Van Loan, 4th ed., §5.4.2): Jᵀ P = Q R with rank r, so
// J = P Rᵀ Qᵀ and e ∈ range J ⇔ Pᵀe = Rᵀ y: R₁₁ᵀ y = (Pᵀe)₁..r, then (Pᵀe)_{r+1..m} = R₁₂ᵀ y.
// Runs only after an inconsistent solve; the workspace's QR and scratch are reused.
bool positions_agree(ConstrainedWorkspace& ws, const Eigen::Ref<const MatrixX>& J, VectorRef e) {
  const int m = static_cast<int>(J.rows());
  if (m == 0 || e.size() != m || !all_finite(e)) return false;
  const int r = detail::row_rank(ws, J);
  const auto& perm = ws.qr.colsPermutation().indices();
  auto pe = ws.r.head(m);
  for (int i = 0; i < m; ++i) pe[i] = e[perm[i]];
  const auto& R = ws.qr.matrixR();
  R.topLeftCorner(r, r).template triangularView<Eigen::Upper>().transpose().solveInPlace(pe.head(r));
  pe.tail(m - r).noalias() -= R.topRightCorner(r, m - r).transpose() * pe.head(r);
  const double unmet = m > r ? pe.tail(m - r).cwiseAbs().maxCoeff() : 0.0;
  return unmet <= 1e-6 * (1.0 + e.cwiseAbs().maxCoeff());
}

}  // namespace

SolveReport constrained_forward_dynamics(const Model& model, Data& data, ConstrainedWorkspace& ws, ConstraintSet& set,
                                         VectorRef q, VectorRef v, VectorRef tau, std::span<const Force> f_ext,
                                         ConstrainedMethod method) {
  const bool kinematics = set.compute_rows(model, data, q, v);
  if ((method == ConstrainedMethod::Auto || method == ConstrainedMethod::Hybrid) && !set.lock_dofs().empty()) {
    ARTICULA_CHECK_SIZE(tau, model.nv);
    SolveReport report;
    if (solve_locks(model, data, ws, set, q, v, tau, f_ext, report)) {
      return report;
    }
  }
  if (method == ConstrainedMethod::Hybrid) method = ConstrainedMethod::RangeSpace;
  // The solve reuses the kinematics of the rows; rows that needed none (joint locks) get
  // the same single pass here, unless ABA will run (no rows, Auto).
  const bool aba_only = set.dim() == 0 && method == ConstrainedMethod::Auto;
  bool have = kinematics;
  if (!have && !aba_only && q.size() == model.nq && v.size() == model.nv && all_finite(q) && all_finite(v)) {
    forward_kinematics_bias(model, data, q, v);
    update_joint_jacobians(model, data);
    have = true;
  }
  SolveReport report = solve(model, data, ws, set.J(), set.gamma(), q, v, tau, f_ext, method,
                             have ? Dynamics::FromKinematics : Dynamics::Compute);
  if (report.status == SolveStatus::Inconsistent && positions_agree(ws, set.J(), set.error())) {
    report.status = SolveStatus::SingularPose;
    report.message =
        "dependent rows at a singular pose: the positions agree, the drift J̇v does not lie in range J; "
        "least-squares acceleration";
  }
  return report;
}

}  // namespace articula
