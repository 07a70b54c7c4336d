#include "articula/dynamics/mass_factor.hpp"

#include <stdexcept>
#include <string>

#include "articula/common/check.hpp"

namespace articula {
namespace {

// Row k of L packed along k's ancestor list (nearest first): L(k, anc[t]) = row[t], t < n.
struct PackedRow {
  const int* anc;
  int n;
  int offset;
};
ARTICULA_ALWAYS_INLINE PackedRow packed_row(const Model& model, int k) {
  return {model.ancestors_of(k), model.ancestor_count(k), model.ancestor_offset[k]};
}

}  // namespace

void factorize_mass_matrix(const Model& model, Data& data) {
  // LTDL (RBDA §6.5, Table 6.3): for k = n−1 … 0, eliminate dof k into its ancestors:
  // H_ij −= (H_ki / H_kk) H_kj for the ancestors i of k and the ancestors-or-self j of i.
  // With the rows packed along the ancestor lists, the ancestors of k's t-th ancestor i are
  // exactly the entries of k's list after t, so row i (length n − t − 1) is updated by one
  // contiguous loop over row k's tail, and H_ii by one product.
  double* L = data.Lfact.data();
  double* D = data.Dfact.data();
  const MatrixX& M = data.M;
  for (int k = 0; k < model.nv; ++k) {
    D[k] = M(k, k);
    const PackedRow r = packed_row(model, k);
    const double* mk = &M(0, k);  // M symmetric: column k holds row k
    for (int t = 0; t < r.n; ++t) L[r.offset + t] = mk[r.anc[t]];
  }
  for (int k = model.nv - 1; k >= 0; --k) {
    const double d = D[k];
    if (!(d > 0.0))
      throw std::runtime_error(std::string("factorize_mass_matrix: pivot ")
                                   .append(std::to_string(k))
                                   .append(" (joint '")
                                   .append(model.joint_names[static_cast<std::size_t>(model.dof_joint[k])])
                                   .append("') is ")
                                   .append(std::to_string(d))
                                   .append(" (M not positive definite: a moving body without mass or inertia?)"));
    const double dinv = 1.0 / d;
    data.Dinv_fact[k] = dinv;
    const PackedRow r = packed_row(model, k);
    double* lk = L + r.offset;
    for (int t = 0; t < r.n; ++t) {
      const int i = r.anc[t];
      const double a = lk[t] * dinv;
      D[i] -= a * lk[t];
      // Row i precedes row k in Lfact (i < k), so the two ranges never overlap.
      double* __restrict li = L + model.ancestor_offset[i];
      const double* __restrict tail = lk + t + 1;
      const int len = r.n - t - 1;
      for (int s = 0; s < len; ++s) li[s] -= a * tail[s];
      lk[t] = a;
    }
  }
}

void solve_mass_lt(const Model& model, const Data& data, Eigen::Ref<MatrixX> X) {
  // Y = L⁻ᵀ X: for i = n−1 … 0, X_j −= L_ij X_i for the ancestors j of i.
  const double* L = data.Lfact.data();
  if (X.cols() == 1) {
    double* x = X.data();
    for (int i = model.nv - 1; i >= 0; --i) {
      const PackedRow r = packed_row(model, i);
      const double xi = x[i];
      for (int t = 0; t < r.n; ++t) x[r.anc[t]] -= L[r.offset + t] * xi;
    }
    return;
  }
  for (int i = model.nv - 1; i >= 0; --i) {
    const PackedRow r = packed_row(model, i);
    for (int t = 0; t < r.n; ++t) X.row(r.anc[t]) -= L[r.offset + t] * X.row(i);
  }
}

void solve_mass_lt_transposed(const Model& model, const Data& data, Eigen::Ref<MatrixX> Xt) {
  // The columns of Xt are the rows of X: contiguous updates of m entries. A column that is
  // still zero when reached (no descendant dof touched it) is skipped: rows of J that only
  // involve one branch stay confined to that branch and its ancestors.
  const double* L = data.Lfact.data();
  const Eigen::Index m = Xt.rows(), stride = Xt.outerStride();
  double* x = Xt.data();
  for (int i = model.nv - 1; i >= 0; --i) {
    const double* xi = x + i * stride;
    bool zero = true;
    for (Eigen::Index c = 0; c < m; ++c) zero = zero && xi[c] == 0.0;
    if (zero) continue;
    const PackedRow r = packed_row(model, i);
    for (int t = 0; t < r.n; ++t) {
      const double h = L[r.offset + t];
      double* xj = x + r.anc[t] * stride;
      for (Eigen::Index c = 0; c < m; ++c) xj[c] -= h * xi[c];
    }
  }
}

void solve_mass_l(const Model& model, const Data& data, Eigen::Ref<MatrixX> X) {
  // X = L⁻¹ Y: for i = 0 … n−1, X_i −= L_ij X_j for the ancestors j of i.
  const double* L = data.Lfact.data();
  if (X.cols() == 1) {
    double* x = X.data();
    for (int i = 0; i < model.nv; ++i) {
      const PackedRow r = packed_row(model, i);
      double acc = x[i];
      for (int t = 0; t < r.n; ++t) acc -= L[r.offset + t] * x[r.anc[t]];
      x[i] = acc;
    }
    return;
  }
  for (int i = 0; i < model.nv; ++i) {
    const PackedRow r = packed_row(model, i);
    for (int t = 0; t < r.n; ++t) X.row(i) -= L[r.offset + t] * X.row(r.anc[t]);
  }
}

void solve_mass(const Model& model, const Data& data, Eigen::Ref<VectorX> x) {
  ARTICULA_CHECK_SIZE(x, model.nv);
  solve_mass_lt(model, data, x);
  x.array() *= data.Dinv_fact.array();
  solve_mass_l(model, data, x);
}

void solve_mass_columns(const Model& model, const Data& data, Eigen::Ref<MatrixX> X) {
  ARTICULA_CHECK(X.rows() == model.nv, "X has " << X.rows() << " rows, expected " << model.nv);
  solve_mass_lt(model, data, X);
  X = data.Dinv_fact.asDiagonal() * X;
  solve_mass_l(model, data, X);
}

double mass_quadratic_form(const Model& model, const Data& data, VectorRef v) {
  ARTICULA_CHECK_SIZE(v, model.nv);
  // vᵀ M v = vᵀ Lᵀ D L v = Σ d_i y_i², y = L v, y_i = v_i + Σ_j L_ij v_j over the ancestors j.
  const double* L = data.Lfact.data();
  double sum = 0.0;
  for (int i = 0; i < model.nv; ++i) {
    const PackedRow r = packed_row(model, i);
    double y = v[i];
    for (int t = 0; t < r.n; ++t) y += L[r.offset + t] * v[r.anc[t]];
    sum += data.Dfact[i] * y * y;
  }
  return sum;
}

MatrixX mass_factor_l(const Model& model, const Data& data) {
  MatrixX L = MatrixX::Identity(model.nv, model.nv);
  for (int i = 0; i < model.nv; ++i) {
    const PackedRow r = packed_row(model, i);
    for (int t = 0; t < r.n; ++t) L(i, r.anc[t]) = data.Lfact[r.offset + t];
  }
  return L;
}

}  // namespace articula
