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
// H_jk = H_kj = J_jᵀ F for the ancestor dofs j of k (model.dof_parent chain, which also visits
// the earlier dofs of a multi-dof joint).
ARTICULA_FLATTEN void composite_pass(const Model& model, Data& data) {
  const MatrixX& J = data.J;
  MatrixX& M = data.M;
  const auto& lambda = model.dof_parent;
  for (Index i = model.njoints - 1; i >= 0; --i) {
    const int iv = model.idx_v[i], ni = model.nv_joint[i];
    const Inertia& Ic = data.Ycrb[i];
    for (int k = iv; k < iv + ni; ++k) {
      const auto s = J.col(k);
      const Motion sk{s.head<3>(), s.tail<3>()};
      const Force F = Ic * sk;
      M(k, k) = sk.dot(F) + model.armature[k];
      for (int j = lambda[k]; j >= 0; j = lambda[j]) {
        const auto sj = J.col(j);
        const double Hjk = sj.head<3>().dot(F.f) + sj.tail<3>().dot(F.n);
        M(j, k) = Hjk;
        M(k, j) = Hjk;
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
    Transform& X = data.liMi[i];
    joint_placement(model, i, q.data() + model.idx_q[i], X);
    const Index p = model.parents[i];
    Transform& oM = data.oMi[i];
    if (p == kWorld)
      oM = X;
    else
      oM = data.oMi[p] * X;
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

void solve_mass_lt_transposed(const Model& model, const Data& data, Eigen::Ref<MatrixX> Xt) {
  // The columns of Xt are the rows of X: contiguous updates of m entries. A column that is
  // still zero when reached (no descendant dof touched it) is skipped: rows of J that only
  // involve one branch stay confined to that branch and its ancestors.
  const MatrixX& H = data.Mfact;
  for (int i = model.nv - 1; i >= 0; --i) {
    const auto xi = Xt.col(i);
    if (xi.isZero(0.0)) continue;
    for (int j = model.dof_parent[i]; j >= 0; j = model.dof_parent[j]) Xt.col(j) -= H(i, j) * xi;
  }
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

void solve_mass_columns(const Model& model, const Data& data, Eigen::Ref<MatrixX> X) {
  ARTICULA_CHECK(X.rows() == model.nv, "X has " << X.rows() << " rows, expected " << model.nv);
  solve_mass_lt(model, data, X);
  X = data.Dinv_fact.asDiagonal() * X;
  solve_mass_l(model, data, X);
}

}  // namespace articula
