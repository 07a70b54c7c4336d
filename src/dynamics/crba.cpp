#include "articula/dynamics/crba.hpp"

#include "articula/common/check.hpp"
#include "dynamics/joint_motion.hpp"

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
      // The ancestors of dof k, nearest first, as one contiguous list (model.ancestors_of(k)): the
      // loop reads the next index from memory, not through a chain of λ loads, so the dot
      // products overlap.
      const int* anc = model.ancestors_of(k);
      const int* anc_end = anc + model.ancestor_count(k);
      for (; anc != anc_end; ++anc) {
        const int j = *anc;
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

}  // namespace articula
