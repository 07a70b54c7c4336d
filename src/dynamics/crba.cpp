#include "articula/dynamics/crba.hpp"

#include <stdexcept>
#include <string>

#include "articula/common/check.hpp"
#include "articula/dynamics/joint_motion.hpp"

namespace articula {

// CRBA (RBDA §6.2, Table 6.2) in world coordinates, as in Pinocchio (Carpentier & Mansard,
// RSS 2018; RBDA §6.2 notes any coordinate system may be used): with the composite inertias
// ⁰Iᶜ_i and the joint columns J_i = ⁰X_i S_i both at the world origin,
// H_ji = J_jᵀ ⁰Iᶜ_i J_i for every ancestor j of i, with no transform along the path.
namespace {

// Pass 2 (leaves to root), given ⁰I_i in data.Ycrb and the world columns in data.J: when i is
// reached, ⁰Iᶜ_i holds its whole subtree. F = ⁰Iᶜ_i J_i,k; H_kk = J_kᵀ F + armature_k;
// H_jk = H_kj = J_jᵀ F for the ancestor dofs j of k (which include the earlier dofs of a
// multi-dof joint).
ARTICULA_FLATTEN void composite_pass(const Model& model, Data& data) {
  const MatrixX& J = data.J;
  MatrixX& M = data.M;
  for (Index i = model.njoints - 1; i >= 0; --i) {
    const int iv = model.idx_v[i], ni = model.nv_joint[i];
    const Inertia& Ic = data.Ycrb[i];
    for (int k = iv; k < iv + ni; ++k) {
      const auto s = J.col(k);
      const Motion sk{s.head<3>(), s.tail<3>()};
      const Force F = Ic * sk;
      M(k, k) = sk.dot(F) + model.armature[k];
      // The ancestors by runs of consecutive dofs (model.ancestor_runs): the loop index is
      // arithmetic, not a chain of loads through λ, so the dot products overlap.
      const int* run = model.ancestor_runs.data() + 2 * model.run_offset[k];
      const int* run_end = model.ancestor_runs.data() + 2 * model.run_offset[k + 1];
      for (; run != run_end; run += 2) {
        for (int j = run[1]; j >= run[0]; --j) {
          const auto sj = J.col(j);
          const double Hjk = sj.head<3>().dot(F.f) + sj.tail<3>().dot(F.n);
          M(j, k) = Hjk;
          M(k, j) = Hjk;
        }
      }
    }
    const Index p = model.parents[i];
    if (p != kWorld) data.Ycrb[p] += Ic;
  }
}

}  // namespace

// CRBA (RBDA §6.2, Table 6.2) in world coordinates, as in Pinocchio (Carpentier & Mansard,
// RSS 2018; RBDA §6.2 notes any coordinate system may be used): with the composite inertias
// ⁰Iᶜ_i and the joint columns J_i = ⁰X_i S_i both at the world origin,
// H_ji = J_jᵀ ⁰Iᶜ_i J_i for every ancestor j of i, with no transform along the path.
ARTICULA_FLATTEN const MatrixX& crba(const Model& model, Data& data, VectorRef q) {
  ARTICULA_CHECK_SIZE(q, model.nq);
  // Pass 1 (root to leaves): placements, world columns J_i, world inertias ⁰I_i.
  for (Index i = 0; i < model.njoints; ++i) {
    const Transform& oM = place_joint(model, data, q, i);
    joint_world_subspace(model, i, oM, data.J);
    data.Ycrb[i] = model.inertias[i].transformed(oM);
  }
  composite_pass(model, data);
  return data.M;
}

const MatrixX& crba_from_kinematics(const Model& model, Data& data) {
  for (Index i = 0; i < model.njoints; ++i) data.Ycrb[i] = model.inertias[i].transformed(data.oMi[i]);
  composite_pass(model, data);
  return data.M;
}

namespace {

// The ancestor runs of dof k (model.ancestor_runs), nearest first.
struct Runs {
  const int* p;
  int n;
  int lo(int r) const { return p[2 * r]; }
  int hi(int r) const { return p[2 * r + 1]; }
};
ARTICULA_ALWAYS_INLINE Runs runs(const Model& model, int k) {
  const int b = model.run_offset[k];
  return {model.ancestor_runs.data() + 2 * b, model.run_offset[k + 1] - b};
}

}  // namespace

void factorize_mass_matrix(const Model& model, Data& data) {
  // LTDL (RBDA §6.5, Table 6.3): for k = n−1 … 0, eliminate dof k into its ancestors only.
  // Stored by columns: L_ki at H(i, k) (i an ancestor of k), D at the diagonal, so that the
  // updates over an ancestor run are contiguous: H(j, i) −= (H(i, k) / H(k, k)) H(j, k) for
  // the ancestors-or-self j of i, which are the rest of k's ancestor list from i on.
  MatrixX& H = data.Mfact;
  // Only the entries the elimination touches (the diagonal and each column's ancestor runs)
  // are copied from M; the rest of Mfact stays zero from construction.
  for (int k = 0; k < model.nv; ++k) {
    H(k, k) = data.M(k, k);
    const Runs R = runs(model, k);
    for (int r = 0; r < R.n; ++r)
      for (int j = R.lo(r); j <= R.hi(r); ++j) H(j, k) = data.M(j, k);
  }
  for (int k = model.nv - 1; k >= 0; --k) {
    const double d = H(k, k);
    if (!(d > 0.0))
      throw std::runtime_error("factorize_mass_matrix: pivot " + std::to_string(k) + " is " + std::to_string(d) +
                               " (M not positive definite: massless branch?)");
    const double dinv = 1.0 / d;
    data.Dinv_fact[k] = dinv;
    const Runs R = runs(model, k);
    double* hk = &H(0, k);
    for (int r = 0; r < R.n; ++r) {
      for (int i = R.hi(r); i >= R.lo(r); --i) {
        double* hi = &H(0, i);
        const double a = hk[i] * dinv;
        for (int j = R.lo(r); j <= i; ++j) hi[j] -= a * hk[j];
        for (int s = r + 1; s < R.n; ++s)
          for (int j = R.lo(s); j <= R.hi(s); ++j) hi[j] -= a * hk[j];
        hk[i] = a;
      }
    }
  }
}

void solve_mass_lt(const Model& model, const Data& data, Eigen::Ref<MatrixX> X) {
  // Y = L⁻ᵀ X: for i = n−1 … 0, X_j −= L_ij X_i for the ancestors j of i.
  const MatrixX& H = data.Mfact;
  if (X.cols() == 1) {
    double* x = X.data();
    for (int i = model.nv - 1; i >= 0; --i) {
      const Runs R = runs(model, i);
      const double xi = x[i];
      for (int r = 0; r < R.n; ++r)
        for (int j = R.lo(r); j <= R.hi(r); ++j) x[j] -= H(j, i) * xi;
    }
    return;
  }
  for (int i = model.nv - 1; i >= 0; --i) {
    const Runs R = runs(model, i);
    for (int r = 0; r < R.n; ++r)
      for (int j = R.lo(r); j <= R.hi(r); ++j) X.row(j) -= H(j, i) * X.row(i);
  }
}

void solve_mass_lt_transposed(const Model& model, const Data& data, Eigen::Ref<MatrixX> Xt) {
  // The columns of Xt are the rows of X: contiguous updates of m entries. A column that is
  // still zero when reached (no descendant dof touched it) is skipped: rows of J that only
  // involve one branch stay confined to that branch and its ancestors.
  const MatrixX& H = data.Mfact;
  const Eigen::Index m = Xt.rows(), stride = Xt.outerStride();
  double* x = Xt.data();
  for (int i = model.nv - 1; i >= 0; --i) {
    const double* xi = x + i * stride;
    bool zero = true;
    for (Eigen::Index c = 0; c < m; ++c) zero = zero && xi[c] == 0.0;
    if (zero) continue;
    const Runs R = runs(model, i);
    for (int r = 0; r < R.n; ++r) {
      for (int j = R.lo(r); j <= R.hi(r); ++j) {
        const double h = H(j, i);
        double* xj = x + j * stride;
        for (Eigen::Index c = 0; c < m; ++c) xj[c] -= h * xi[c];
      }
    }
  }
}

void solve_mass_l(const Model& model, const Data& data, Eigen::Ref<MatrixX> X) {
  // X = L⁻¹ Y: for i = 0 … n−1, X_i −= L_ij X_j for the ancestors j of i.
  const MatrixX& H = data.Mfact;
  if (X.cols() == 1) {
    double* x = X.data();
    for (int i = 0; i < model.nv; ++i) {
      const Runs R = runs(model, i);
      double acc = x[i];
      for (int r = 0; r < R.n; ++r)
        for (int j = R.lo(r); j <= R.hi(r); ++j) acc -= H(j, i) * x[j];
      x[i] = acc;
    }
    return;
  }
  for (int i = 0; i < model.nv; ++i) {
    const Runs R = runs(model, i);
    for (int r = 0; r < R.n; ++r)
      for (int j = R.lo(r); j <= R.hi(r); ++j) X.row(i) -= H(j, i) * X.row(j);
  }
}

void solve_mass(const Model& model, const Data& data, Eigen::Ref<VectorX> x) {
  ARTICULA_CHECK_SIZE(x, model.nv);
  solve_mass_lt(model, data, x);
  x.array() *= data.Dinv_fact.array();
  solve_mass_l(model, data, x);
}

double mass_quadratic_form(const Model& model, const Data& data, VectorRef v) {
  ARTICULA_CHECK_SIZE(v, model.nv);
  // vᵀ M v = vᵀ Lᵀ D L v = Σ d_i y_i², y = L v, y_i = v_i + Σ_j L_ij v_j over the ancestors j.
  const MatrixX& H = data.Mfact;
  double sum = 0.0;
  for (int i = 0; i < model.nv; ++i) {
    const Runs R = runs(model, i);
    double y = v[i];
    for (int r = 0; r < R.n; ++r)
      for (int j = R.lo(r); j <= R.hi(r); ++j) y += H(j, i) * v[j];
    sum += y * y / data.Dinv_fact[i];
  }
  return sum;
}

void solve_mass_columns(const Model& model, const Data& data, Eigen::Ref<MatrixX> X) {
  ARTICULA_CHECK(X.rows() == model.nv, "X has " << X.rows() << " rows, expected " << model.nv);
  solve_mass_lt(model, data, X);
  X = data.Dinv_fact.asDiagonal() * X;
  solve_mass_l(model, data, X);
}

}  // namespace articula
