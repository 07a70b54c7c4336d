#include "articula/dynamics/aba.hpp"

#include <Eigen/Cholesky>
#include <cmath>

#include "articula/common/check.hpp"
#include "dynamics/joint_motion.hpp"

namespace articula {
namespace {

// Inverse of the n × n (n ≤ 6) symmetric positive-definite top-left block of A by Cholesky,
// A = L Lᵀ, A⁻¹ = L⁻ᵀ L⁻¹ (Golub & Van Loan, Matrix Computations, §4.2), in plain loops:
// Eigen's triangular solve with a matrix right-hand side goes through its blocked kernels.
void spd_inverse(const Matrix6& A, int n, Matrix6& out) {
  double L[6][6], Li[6][6];
  for (int j = 0; j < n; ++j) {
    double d = A(j, j);
    for (int k = 0; k < j; ++k) d -= L[j][k] * L[j][k];
    L[j][j] = std::sqrt(d);
    const double inv = 1.0 / L[j][j];
    for (int i = j + 1; i < n; ++i) {
      double x = A(i, j);
      for (int k = 0; k < j; ++k) x -= L[i][k] * L[j][k];
      L[i][j] = x * inv;
    }
  }
  for (int j = 0; j < n; ++j) {
    Li[j][j] = 1.0 / L[j][j];
    for (int i = j + 1; i < n; ++i) {
      double x = 0.0;
      for (int k = j; k < i; ++k) x -= L[i][k] * Li[k][j];
      Li[i][j] = x / L[i][i];
    }
  }
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i) {
      double x = 0.0;
      for (int k = i; k < n; ++k) x += Li[k][i] * Li[k][j];
      out(i, j) = x;
      out(j, i) = x;
    }
}

// A free-flyer joint at the root without armature (pass 3 solves it in world coordinates).
ARTICULA_ALWAYS_INLINE bool free_root(const Model& model, Index i) {
  if (model.parents[i] != kWorld || model.joint_types[i] != JointType::FreeFlyer) return false;
  return model.armature.segment<6>(model.idx_v[i]).isZero(0.0);
}

// The articulated-body algorithm (RBDA §7.3, Table 7.1) carried out in world coordinates
// (Carpentier & Mansard, "Analytical Derivatives of Rigid Body Dynamics Algorithms",
// RSS 2018, §III; Featherstone RBDA §7.3 notes the recursion holds in any coordinates).
// Every spatial quantity of body i is expressed at the world origin, so the articulated
// inertias and bias forces are summed into the parent without a coordinate transform
// (the costly X* IA X⁻¹ of the body-frame form); the price is one rigid-inertia
// transform per body in pass 1 and the world columns J_i = ⁰X_i S_i.
template <bool Hybrid>
ARTICULA_FLATTEN void aba_passes(const Model& model, Data& data, VectorRef q, VectorRef v, VectorRef tau,
                                 std::span<const Force> f_ext, const char* prescribed, const double* qdd,
                                 double* tau_required) {
  const int nb = model.njoints;
  MatrixX& J = data.J;
  // Pass 1 (root to leaves): placements, world columns J_i, world velocities
  // ov_i = ov_λ + J_i q̇_i (kept in data.v until pass 2), velocity-product accelerations
  // c_i = ov_i × J_i q̇_i = ov_λ × ov_i (kept in data.a_gf until pass 3),
  // IA_i = ⁰I_i (world inertia), pA_i = ov_i ×* ⁰I_i ov_i − ⁰X_i* f_ext,i.
  for (Index i = 0; i < nb; ++i) {
    const Transform& oM = place_joint(model, data, q, i);
    const Index p = model.parents[i];
    joint_world_subspace(model, i, oM, J);
    const int iv = model.idx_v[i], ni = model.nv_joint[i];
    Motion vJ;
    if (ni == 1) {
      const auto s = J.col(iv);
      vJ.v = s.head<3>() * v[iv];
      vJ.w = s.tail<3>() * v[iv];
    } else {
      vJ = Motion::from(J.middleCols(iv, ni) * v.segment(iv, ni));
    }
    Motion& ov = data.v[i];
    if (p == kWorld) {
      ov = vJ;
      data.a_gf[i] = Motion::Zero();
    } else {
      const Motion& ovp = data.v[p];
      ov = ovp + vJ;
      data.a_gf[i] = ovp.cross(vJ);
    }
    const Inertia oI = model.inertias[i].transformed(oM);
    data.IA[i] = oI.matrix();
    data.pA[i] = ov.cross(oI * ov);
    if (!f_ext.empty()) data.pA[i] -= oM.act(f_ext[i]);
  }
  // Pass 2 (leaves to root): U_i = IA_i J_i, D_i = J_iᵀ U_i + armature_i, u_i = τ_i − J_iᵀ pA_i;
  // Ia = IA − U D⁻¹ Uᵀ, pa = pA + Ia c + U D⁻¹ u, summed into the parent (same frame).
  // Body i's world velocity is no longer needed by any child: store it in its own frame.
  for (Index i = nb - 1; i >= 0; --i) {
    const int iv = model.idx_v[i], ni = model.nv_joint[i];
    const Index p = model.parents[i];
    data.v[i] = data.oMi[i].act_inv(data.v[i]);
    Matrix6& IA = data.IA[i];
    const Vector6 pA = data.pA[i].vector();
    if (Hybrid && prescribed[i]) {
      // Known q̈_i (RBDA §9.2): the joint transmits the whole articulated inertia,
      // Ia = IA, pa = pA + IA (c_i + J_i q̈_i); IA_i and pA_i stay for pass 3.
      if (p != kWorld) {
        Motion ci = data.a_gf[i];
        for (int k = iv; k < iv + ni; ++k) {
          ci.v += J.col(k).head<3>() * qdd[k];
          ci.w += J.col(k).tail<3>() * qdd[k];
        }
        data.IA[p] += IA;
        const Vector6 pa = pA + IA * ci.vector();
        data.pA[p].f += pa.head<3>();
        data.pA[p].n += pa.tail<3>();
      }
    } else if (free_root(model, i)) {
      // Solved directly in pass 3; IA_i and pA_i stay.
    } else if (ni == 1) {
      const auto s = J.col(iv);
      // Sums split in two halves: shorter dependency chains on the leaf-to-root critical path.
      const Vector6 U = (IA.col(0) * s[0] + IA.col(1) * s[1] + IA.col(2) * s[2]) +
                        (IA.col(3) * s[3] + IA.col(4) * s[4] + IA.col(5) * s[5]);
      const double Dinv = 1.0 / ((s[0] * U[0] + s[1] * U[1] + s[2] * U[2]) + (s[3] * U[3] + s[4] * U[4] + s[5] * U[5]) +
                                 model.armature[iv]);
      const double u = tau[iv] - s.dot(pA);
      data.U.col(iv) = U;
      data.Dinv[i](0, 0) = Dinv;
      data.u[iv] = u;
      if (p != kWorld) {
        const Vector6 UD = U * Dinv;
        IA.noalias() -= UD * U.transpose();
        data.IA[p] += IA;
        const Motion& c = data.a_gf[i];
        const Vector6 pa = pA + (IA.col(0) * c.v[0] + IA.col(1) * c.v[1] + IA.col(2) * c.v[2]) +
                           (IA.col(3) * c.w[0] + IA.col(4) * c.w[1] + IA.col(5) * c.w[2]) + UD * u;
        data.pA[p].f += pa.head<3>();
        data.pA[p].n += pa.tail<3>();
      }
    } else {
      using MatrixN = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 6>;
      const auto S = J.middleCols(iv, ni);
      const Matrix6X U = IA * S;
      Matrix6 D;
      // noalias() and fixed-capacity temporaries (at most 6 × 6) throughout: no heap allocation.
      D.topLeftCorner(ni, ni).noalias() = S.transpose() * U;
      D.diagonal().head(ni) += model.armature.segment(iv, ni);
      spd_inverse(D, ni, data.Dinv[i]);
      const MatrixN Dinv = data.Dinv[i].topLeftCorner(ni, ni);
      data.U.middleCols(iv, ni) = U;
      data.u.segment(iv, ni) = tau.segment(iv, ni);
      data.u.segment(iv, ni).noalias() -= S.transpose() * pA;
      if (p != kWorld) {
        const Matrix6X UD = U * Dinv;
        IA.noalias() -= UD * U.transpose();
        data.IA[p] += IA;
        const Vector6 pa = pA + IA * data.a_gf[i].vector() + UD * data.u.segment(iv, ni);
        data.pA[p].f += pa.head<3>();
        data.pA[p].n += pa.tail<3>();
      }
    }
  }
  // Pass 3 (root to leaves): a_i = a_λ + c_i (a_root's parent = −g, gravity as a fictitious
  // base acceleration), q̈_i = D_i⁻¹ (u_i − U_iᵀ a_i), a_i += J_i q̈_i.
  const Motion a0 = -model.gravity;
  for (Index i = 0; i < nb; ++i) {
    const int iv = model.idx_v[i], ni = model.nv_joint[i];
    const Index p = model.parents[i];
    Motion& a = data.a_gf[i];
    a += p == kWorld ? a0 : data.a_gf[p];
    if (Hybrid && prescribed[i]) {
      // τ_i = J_iᵀ (IA_i a_i + pA_i) + armature q̈_i: the force the joint must transmit.
      for (int k = iv; k < iv + ni; ++k) {
        data.ddq[k] = qdd[k];
        a.v += J.col(k).head<3>() * qdd[k];
        a.w += J.col(k).tail<3>() * qdd[k];
      }
      const Vector6 f = data.IA[i] * a.vector() + data.pA[i].vector();
      for (int k = iv; k < iv + ni; ++k) tau_required[k] = J.col(k).dot(f) + model.armature[k] * qdd[k];
      continue;
    }
    if (free_root(model, i)) {
      // A free-flyer at the root: J_i = ⁰X_i (its world columns are the motion transform), so
      // J_iᵀ (IA_i a_i + pA_i) = τ_i gives a_i = IA_i⁻¹ (⁰X_i* τ_i − pA_i) with ⁰X_i* = J_i⁻ᵀ, and
      // q̈_i = ⁰X_i⁻¹ (a_i − a_0): one 6 × 6 Cholesky solve instead of forming and inverting
      // D_i = J_iᵀ IA_i J_i (RBDA §7.3 with S_i invertible; the floating-base form of §9.3).
      const Transform& oM = data.oMi[i];
      const Force f = oM.act(Force{tau.template segment<3>(iv), tau.template segment<3>(iv + 3)}) - data.pA[i];
      const Eigen::LLT<Matrix6> llt(data.IA[i]);
      a = Motion::from(llt.solve(f.vector()));
      const Motion qdd_root = oM.act_inv(a - a0);
      data.ddq.segment<3>(iv) = qdd_root.v;
      data.ddq.segment<3>(iv + 3) = qdd_root.w;
      continue;
    }
    const Vector6 av = a.vector();
    if (ni == 1) {
      const auto s = J.col(iv);
      const auto U = data.U.col(iv);
      const double Ua =
          (U[0] * a.v[0] + U[1] * a.v[1] + U[2] * a.v[2]) + (U[3] * a.w[0] + U[4] * a.w[1] + U[5] * a.w[2]);
      const double ddq = data.Dinv[i](0, 0) * (data.u[iv] - Ua);
      data.ddq[iv] = ddq;
      a.v += s.head<3>() * ddq;
      a.w += s.tail<3>() * ddq;
    } else {
      Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 6, 1> r = data.u.segment(iv, ni);
      r.noalias() -= data.U.middleCols(iv, ni).transpose() * av;
      data.ddq.segment(iv, ni).noalias() = data.Dinv[i].topLeftCorner(ni, ni) * r;
      a += Motion::from(J.middleCols(iv, ni) * data.ddq.segment(iv, ni));
    }
  }
  // Accelerations back to body frames (a child needed its parent's world value above).
  for (Index i = 0; i < nb; ++i) data.a_gf[i] = data.oMi[i].act_inv(data.a_gf[i]);
}

}  // namespace

const VectorX& aba(const Model& model, Data& data, VectorRef q, VectorRef v, VectorRef tau,
                   std::span<const Force> f_ext) {
  ARTICULA_CHECK_SIZE(q, model.nq);
  ARTICULA_CHECK_SIZE(v, model.nv);
  ARTICULA_CHECK_SIZE(tau, model.nv);
  ARTICULA_CHECK(f_ext.empty() || f_ext.size() == static_cast<std::size_t>(model.njoints),
                 "f_ext has " << f_ext.size() << " forces, expected 0 or " << model.njoints);
  aba_passes<false>(model, data, q, v, tau, f_ext, nullptr, nullptr, nullptr);
  return data.ddq;
}

const VectorX& aba_prescribed(const Model& model, Data& data, VectorRef q, VectorRef v, VectorRef tau,
                              std::span<const char> prescribed, VectorRef qdd, Eigen::Ref<VectorX> tau_required,
                              std::span<const Force> f_ext) {
  ARTICULA_CHECK_SIZE(q, model.nq);
  ARTICULA_CHECK_SIZE(v, model.nv);
  ARTICULA_CHECK_SIZE(tau, model.nv);
  ARTICULA_CHECK_SIZE(qdd, model.nv);
  ARTICULA_CHECK_SIZE(tau_required, model.nv);
  ARTICULA_CHECK(prescribed.size() == static_cast<std::size_t>(model.njoints),
                 "prescribed has " << prescribed.size() << " entries, expected njoints = " << model.njoints);
  ARTICULA_CHECK(f_ext.empty() || f_ext.size() == static_cast<std::size_t>(model.njoints),
                 "f_ext has " << f_ext.size() << " forces, expected 0 or " << model.njoints);
  aba_passes<true>(model, data, q, v, tau, f_ext, prescribed.data(), qdd.data(), tau_required.data());
  return data.ddq;
}

}  // namespace articula
