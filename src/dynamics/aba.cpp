#include "articula/dynamics/aba.hpp"

#include <Eigen/Cholesky>

#include "articula/common/check.hpp"
#include "articula/dynamics/joint_motion.hpp"

namespace articula {

const VectorX& aba(const Model& model, Data& data, VectorRef q, VectorRef v, VectorRef tau,
                   std::span<const Force> f_ext) {
  ARTICULA_CHECK_SIZE(q, model.nq);
  ARTICULA_CHECK_SIZE(v, model.nv);
  ARTICULA_CHECK_SIZE(tau, model.nv);
  ARTICULA_CHECK(f_ext.empty() || f_ext.size() == static_cast<std::size_t>(model.njoints),
                 "f_ext has " << f_ext.size() << " forces, expected 0 or " << model.njoints);
  const int nb = model.njoints;
  // Pass 1 (root to leaves): placements, velocities, velocity-product accelerations
  // c_i = v_i × S_i q̇_i (kept in a_gf until pass 3), bias forces p_i = v_i ×* I_i v_i − f_ext,i.
  for (Index i = 0; i < nb; ++i) {
    const Transform& X = data.liMi[i] =
        model.joint_placements[i] * joint_transform(model.joint_types[i], model.axes[i], q.data() + model.idx_q[i]);
    const Index p = model.parents[i];
    data.oMi[i] = p == kWorld ? X : data.oMi[p] * X;
    const Motion vJ = joint_motion(model, i, v);
    data.v[i] = p == kWorld ? vJ : X.act_inv(data.v[p]) + vJ;
    data.a_gf[i] = data.v[i].cross(vJ);
    const Inertia& I = model.inertias[i];
    data.IA[i] = I.matrix();
    data.pA[i] = data.v[i].cross(I * data.v[i]);
    if (!f_ext.empty()) data.pA[i] -= f_ext[i];
  }
  // Pass 2 (leaves to root): U_i = IA_i S_i, D_i = S_iᵀ U_i + armature_i, u_i = τ_i − S_iᵀ pA_i;
  // Ia = IA − U D⁻¹ Uᵀ, pa = pA + Ia c + U D⁻¹ u, accumulated into the parent.
  for (Index i = nb - 1; i >= 0; --i) {
    const int iv = model.idx_v[i], ni = model.nv_joint[i];
    const Index p = model.parents[i];
    Matrix6& IA = data.IA[i];
    const Vector6 pA = data.pA[i].vector();
    if (ni == 1) {
      const auto s = model.S.col(iv);
      const Vector6 U = IA * s;
      const double Dinv = 1.0 / (s.dot(U) + model.armature[iv]);
      data.U.col(iv) = U;
      data.Dinv[i](0, 0) = Dinv;
      data.u[iv] = tau[iv] - s.dot(pA);
      if (p != kWorld) {
        const Matrix6 Ia = IA - Dinv * U * U.transpose();
        const Vector6 pa = pA + Ia * data.a_gf[i].vector() + U * (Dinv * data.u[iv]);
        data.IA[p] += transform_inertia_matrix(data.liMi[i], Ia);
        data.pA[p] += data.liMi[i].act(Force::from(pa));
      }
    } else {
      const auto S = model.S.middleCols(iv, ni);
      const Matrix6X U = IA * S;
      Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 6> D = S.transpose() * U;
      D.diagonal() += model.armature.segment(iv, ni);
      const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 6> Dinv =
          D.llt().solve(Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 6>::Identity(ni, ni));
      data.U.middleCols(iv, ni) = U;
      data.Dinv[i].topLeftCorner(ni, ni) = Dinv;
      data.u.segment(iv, ni) = tau.segment(iv, ni) - S.transpose() * pA;
      if (p != kWorld) {
        const Matrix6 Ia = IA - U * Dinv * U.transpose();
        const Vector6 pa = pA + Ia * data.a_gf[i].vector() + U * (Dinv * data.u.segment(iv, ni));
        data.IA[p] += transform_inertia_matrix(data.liMi[i], Ia);
        data.pA[p] += data.liMi[i].act(Force::from(pa));
      }
    }
  }
  // Pass 3 (root to leaves): a_i = ⁱX_λ a_λ + c_i (a_root's parent = −g),
  // q̈_i = D_i⁻¹ (u_i − U_iᵀ a_i), a_i += S_i q̈_i.
  const Motion a0 = -model.gravity;
  for (Index i = 0; i < nb; ++i) {
    const int iv = model.idx_v[i], ni = model.nv_joint[i];
    const Index p = model.parents[i];
    Motion& a = data.a_gf[i];
    a += p == kWorld ? data.liMi[i].act_inv(a0) : data.liMi[i].act_inv(data.a_gf[p]);
    const Vector6 av = a.vector();
    if (ni == 1) {
      data.ddq[iv] = data.Dinv[i](0, 0) * (data.u[iv] - data.U.col(iv).dot(av));
      a += Motion::from(model.S.col(iv) * data.ddq[iv]);
    } else {
      data.ddq.segment(iv, ni) = data.Dinv[i].topLeftCorner(ni, ni) *
                                 (data.u.segment(iv, ni) - data.U.middleCols(iv, ni).transpose() * av);
      a += Motion::from(model.S.middleCols(iv, ni) * data.ddq.segment(iv, ni));
    }
  }
  return data.ddq;
}

}  // namespace articula
