#include "articula/dynamics/crba.hpp"

#include <stdexcept>
#include <string>

#include "articula/common/check.hpp"
#include "articula/dynamics/kinematics.hpp"

namespace articula {

const MatrixX& crba(const Model& model, Data& data, VectorRef q) {
  forward_kinematics(model, data, q);
  const int nb = model.njoints;
  // Composite inertias, leaves to root: Iᶜ_λ += λX_i* Iᶜ_i ⁱX_λ.
  for (Index i = 0; i < nb; ++i) data.Ycrb[i] = model.inertias[i];
  for (Index i = nb - 1; i >= 0; --i) {
    const Index p = model.parents[i];
    if (p != kWorld) data.Ycrb[p] += data.Ycrb[i].transformed(data.liMi[i]);
  }
  // For each joint: F = Iᶜ_i S_i, then walk to the root: H_ji = S_jᵀ F, F = λX_j* F.
  for (Index i = 0; i < nb; ++i) {
    const int iv = model.idx_v[i], ni = model.nv_joint[i];
    for (int c = 0; c < ni; ++c) {
      Force F = data.Ycrb[i] * Motion::from(model.S.col(iv + c));
      for (int r = 0; r < ni; ++r) data.M(iv + r, iv + c) = model.S.col(iv + r).dot(F.vector());
      Index j = i;
      while (model.parents[j] != kWorld) {
        F = data.liMi[j].act(F);
        j = model.parents[j];
        const int jv = model.idx_v[j];
        for (int r = 0; r < model.nv_joint[j]; ++r) {
          const double Hji = model.S.col(jv + r).dot(F.vector());
          data.M(jv + r, iv + c) = Hji;
          data.M(iv + c, jv + r) = Hji;
        }
      }
    }
  }
  data.M.diagonal() += model.armature;
  return data.M;
}

void factorize_mass_matrix(const Model& model, Data& data) {
  // LTDL (RBDA Table 6.3): for k = n−1 … 0, eliminate row k into its ancestors only.
  MatrixX& H = data.Mfact;
  H = data.M;
  const auto& lambda = model.dof_parent;
  for (int k = model.nv - 1; k >= 0; --k) {
    if (!(H(k, k) > 0.0))
      throw std::runtime_error("factorize_mass_matrix: pivot " + std::to_string(k) + " is " + std::to_string(H(k, k)) +
                               " (M not positive definite: massless branch?)");
    for (int i = lambda[k]; i >= 0; i = lambda[i]) {
      const double a = H(k, i) / H(k, k);
      for (int j = i; j >= 0; j = lambda[j]) H(i, j) -= a * H(k, j);
      H(k, i) = a;
    }
  }
  for (int k = 0; k < model.nv; ++k) data.Dinv_fact[k] = 1.0 / H(k, k);
}

void solve_mass_lt(const Model& model, const Data& data, Eigen::Ref<MatrixX> X) {
  // y = L⁻ᵀ x: for i = n−1 … 0, x_j −= L_ij x_i for the ancestors j of i.
  const MatrixX& H = data.Mfact;
  for (int i = model.nv - 1; i >= 0; --i)
    for (int j = model.dof_parent[i]; j >= 0; j = model.dof_parent[j]) X.row(j) -= H(i, j) * X.row(i);
}

void solve_mass_l(const Model& model, const Data& data, Eigen::Ref<MatrixX> X) {
  // x = L⁻¹ y: for i = 0 … n−1, x_i −= L_ij x_j for the ancestors j of i.
  const MatrixX& H = data.Mfact;
  for (int i = 0; i < model.nv; ++i)
    for (int j = model.dof_parent[i]; j >= 0; j = model.dof_parent[j]) X.row(i) -= H(i, j) * X.row(j);
}

void solve_mass(const Model& model, const Data& data, Eigen::Ref<VectorX> x) {
  ARTICULA_CHECK_SIZE(x, model.nv);
  const MatrixX& H = data.Mfact;
  const auto& lambda = model.dof_parent;
  for (int i = model.nv - 1; i >= 0; --i)
    for (int j = lambda[i]; j >= 0; j = lambda[j]) x[j] -= H(i, j) * x[i];
  x.array() *= data.Dinv_fact.array();
  for (int i = 0; i < model.nv; ++i)
    for (int j = lambda[i]; j >= 0; j = lambda[j]) x[i] -= H(i, j) * x[j];
}

void solve_mass(const Model& model, const Data& data, Eigen::Ref<MatrixX> X) {
  ARTICULA_CHECK(X.rows() == model.nv, "X has " << X.rows() << " rows, expected " << model.nv);
  solve_mass_lt(model, data, X);
  X = data.Dinv_fact.asDiagonal() * X;
  solve_mass_l(model, data, X);
}

}  // namespace articula
