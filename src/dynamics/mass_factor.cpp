#include "articula/dynamics/mass_factor.hpp"

#include <stdexcept>
#include <string>

#include "articula/common/check.hpp"
#include "dynamics/ltdl.hpp"

namespace articula {

// M = Lᵀ D L by the shared sweep (dynamics/ltdl.hpp, RBDA §6.5 Table 6.3) on data.Lfact / Dfact.
void factorize_mass_matrix(const Model& model, Data& data) {
  const MatrixX& M = data.M;
  const int k = ltdl_factor<double>(
      model, [&M](int r, int c) { return M(c, r); }, data.Lfact.data(), data.Dfact.data(), data.Dinv_fact.data());
  if (k >= 0)
    throw std::runtime_error(std::string("factorize_mass_matrix: pivot ")
                                 .append(std::to_string(k))
                                 .append(" (joint '")
                                 .append(model.joint_names[static_cast<std::size_t>(model.dof_joint[k])])
                                 .append("') is ")
                                 .append(std::to_string(data.Dfact[k]))
                                 .append(" (M not positive definite: a moving body without mass or inertia?)"));
}

void solve_mass_lt(const Model& model, const Data& data, Eigen::Ref<MatrixX> X) {
  // Y = L⁻ᵀ X: for i = n−1 … 0, X_j −= L_ij X_i for the ancestors j of i.
  const double* L = data.Lfact.data();
  if (X.cols() == 1) {
    ltdl_solve_lt(model, L, X.data());
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
    ltdl_solve_l(model, L, X.data());
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
