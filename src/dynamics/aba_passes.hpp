#pragma once
/// The articulated-body algorithm (RBDA §7.3, Table 7.1), written once, generic over the scalar
/// S, the coordinates C and the workspace W (ADR 0003): Data in world coordinates for the
/// runtime (aba.cpp), the code generator's workspace of symbols in body coordinates
/// (codegen/recursions.cpp), which traces these lines into the generated kernels.
/// W holds liMi, v, a_gf, IA, pA, J, U, Dinv, u and ddq (and oMi in world coordinates).
#include <Eigen/Cholesky>
#include <limits>
#include <span>
#include <type_traits>

#include "dynamics/joint_motion.hpp"

namespace articula {

/// Inverse of the n × n (n ≤ 6) symmetric positive-definite top-left block of A by
/// A = L diag(d) Lᵀ, A⁻¹ = L⁻ᵀ diag(1/d) L⁻¹ (Golub & Van Loan, Matrix Computations, §4.1), in
/// plain loops: Eigen's triangular solve with a matrix right-hand side goes through its blocked
/// kernels, and the loops trace into straight-line generated code.
template <typename S>
ARTICULA_ALWAYS_INLINE void spd_inverse(const Eigen::Matrix<S, 6, 6>& A, int n, Eigen::Matrix<S, 6, 6>& out) {
  S L[6][6], Li[6][6], d[6], dinv[6];
  for (int j = 0; j < n; ++j) {
    S dj = A(j, j);
    for (int k = 0; k < j; ++k) dj -= L[j][k] * L[j][k] * d[k];
    d[j] = dj;
    dinv[j] = S(1.0) / dj;
    // Not positive definite (an inertia without mass): NaN, which the callers report as
    // non-finite, as the square root of a Cholesky factorization would.
    if constexpr (std::is_same_v<S, double>)
      if (!(dj > 0.0)) dinv[j] = std::numeric_limits<double>::quiet_NaN();
    for (int i = j + 1; i < n; ++i) {
      S x = A(i, j);
      for (int k = 0; k < j; ++k) x -= L[i][k] * L[j][k] * d[k];
      L[i][j] = x * dinv[j];
    }
  }
  for (int j = 0; j < n; ++j)  // Li = L⁻¹ (unit lower triangular), below the diagonal
    for (int i = j + 1; i < n; ++i) {
      S x = -L[i][j];
      for (int k = j + 1; k < i; ++k) x -= L[i][k] * Li[k][j];
      Li[i][j] = x;
    }
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i) {
      S x = i == j ? dinv[i] : Li[i][j] * dinv[i];
      for (int k = i + 1; k < n; ++k) x += Li[k][i] * Li[k][j] * dinv[k];
      out(i, j) = x;
      out(j, i) = x;
    }
}

/// IA −= UD Uᵀ, with UD = U D⁻¹ (so the product is symmetric). The runtime takes Eigen's
/// vectorized 6 × 6 product; the generator computes one triangle and mirrors it, so that each
/// entry is one generated line.
template <typename S, typename A, typename B>
ARTICULA_ALWAYS_INLINE void subtract_symmetric_product(Eigen::Matrix<S, 6, 6>& IA, const A& UD, const B& U) {
  if constexpr (std::is_same_v<S, double>) {
    IA.noalias() -= UD * U.transpose();
  } else {
    for (int r = 0; r < 6; ++r)
      for (int c = r; c < 6; ++c) {
        S x = IA(r, c);
        for (int l = 0; l < U.cols(); ++l) x -= UD(r, l) * U(c, l);
        IA(r, c) = x;
        IA(c, r) = x;
      }
  }
}

/// Carries body i's articulated inertia Ia into its parent's sum: in world coordinates both are at
/// the world origin, IA_λ += Ia; in body coordinates IA_λ += λX_i* Ia ⁱX_λ (RBDA Table 7.1).
template <Coordinates C, typename S, typename W>
ARTICULA_ALWAYS_INLINE void add_inertia_to_parent(W& data, Index i, Index p, const Eigen::Matrix<S, 6, 6>& Ia) {
  if constexpr (C == Coordinates::World) {
    data.IA[p] += Ia;
  } else {
    const TransformTpl<S>& X = data.liMi[i];
    // λX_i* Ia (λX_i*)ᵀ: each column of Ia carried to the parent, then each row of the result;
    // the result is symmetric, so one triangle is computed.
    Eigen::Matrix<S, 6, 6> T;
    for (int k = 0; k < 6; ++k) T.col(k) = X.act(ForceTpl<S>::from(Ia.col(k))).vector();
    for (int r = 0; r < 6; ++r) {
      const Eigen::Matrix<S, 6, 1> row = X.act(ForceTpl<S>::from(T.row(r).transpose())).vector();
      for (int k = r; k < 6; ++k) {
        const S x = data.IA[p](r, k) + row[k];
        data.IA[p](r, k) = x;
        data.IA[p](k, r) = x;
      }
    }
  }
}

/// Carries body i's articulated bias force pa into its parent's sum: pA_λ += pa (world
/// coordinates) or pA_λ += λX_i* pa (body coordinates).
template <Coordinates C, typename S, typename W>
ARTICULA_ALWAYS_INLINE void add_force_to_parent(W& data, Index i, Index p, const Eigen::Matrix<S, 6, 1>& pa) {
  if constexpr (C == Coordinates::World) {
    data.pA[p].f += pa.template head<3>();
    data.pA[p].n += pa.template tail<3>();
  } else {
    data.pA[p] += data.liMi[i].act(ForceTpl<S>::from(pa));
  }
}

/// A free-flyer joint at the root without armature: in world coordinates pass 3 solves it
/// directly (aba_passes). In body coordinates its columns are the identity and the general path
/// already costs no more.
template <Coordinates C>
ARTICULA_ALWAYS_INLINE bool free_root(const Model& model, Index i) {
  if constexpr (C == Coordinates::Body) return false;
  if (model.parents[i] != kWorld || model.joint_types[i] != JointType::FreeFlyer) return false;
  return model.armature.segment<6>(model.idx_v[i]).isZero(0.0);
}

/// ABA (RBDA §7.3, Table 7.1). In world coordinates (Carpentier & Mansard, "Analytical
/// Derivatives of Rigid Body Dynamics Algorithms", RSS 2018, §III; RBDA §7.3 notes the recursion
/// holds in any coordinates) every quantity of body i is at the world origin, so the articulated
/// inertias and bias forces are summed into the parent without a transform (the costly
/// X* IA X⁻¹ of the body form), at the price of one rigid-inertia transform per body in pass 1
/// and dense columns J_i = ⁰X_i S_i. In body coordinates J_i = S_i is constant and most joint
/// placements are quarter turns, which the generator folds away (ADR 0003).
/// Hybrid (RBDA §9.2): the joints with prescribed[i] get q̈ = qdd and return the torque they
/// need in tau_required. Every branch depends on the model's structure only.
/// Not flattened here: the runtime's entry points are (aba.cpp); a flattened instantiation on the
/// generator's scalar took minutes and gigabytes to compile under the sanitizers.
template <typename S, Coordinates C, bool Hybrid, typename W, typename Q, typename V, typename Tau>
static void aba_passes(const Model& model, W& data, Q q, V v, Tau tau, std::span<const ForceTpl<S>> f_ext,
                       const char* prescribed, const S* qdd, S* tau_required) {
  using Motion_ = MotionTpl<S>;
  using Force_ = ForceTpl<S>;
  using Vector6_ = Eigen::Matrix<S, 6, 1>;
  using Matrix6_ = Eigen::Matrix<S, 6, 6>;
  constexpr bool world = C == Coordinates::World;
  const int nb = model.njoints;
  auto& J = data.J;
  // Pass 1 (root to leaves): placements, columns J_i, velocities v_i = v_λ + J_i q̇_i (v_λ
  // carried into i's coordinates, ⁱX_λ v_λ, in body coordinates; kept in data.v), velocity-product
  // accelerations c_i = v_λ × J_i q̇_i (= v_i × J_i q̇_i; kept in data.a_gf until pass 3),
  // IA_i = I_i, pA_i = v_i ×* I_i v_i − f_ext,i.
  for (Index i = 0; i < nb; ++i) {
    const auto& M = place_joint(model, data, q, i);
    const Index p = model.parents[i];
    joint_columns<C>(model, i, M, J);
    const int iv = model.idx_v[i], ni = model.nv_joint[i];
    Motion_ vJ;
    if (ni == 1) {
      const auto s = J.col(iv);
      vJ.v = s.template head<3>() * v[iv];
      vJ.w = s.template tail<3>() * v[iv];
    } else {
      vJ = Motion_::from(J.middleCols(iv, ni) * v.segment(iv, ni));
    }
    Motion_& vi = data.v[i];
    if (p == kWorld) {
      vi = vJ;
      data.a_gf[i] = Motion_::Zero();
    } else {
      if constexpr (world) {
        const Motion_& vp = data.v[p];
        vi = vp + vJ;
        data.a_gf[i] = vp.cross(vJ);
      } else {
        const Motion_ vp = M.act_inv(data.v[p]);  // ⁱX_λ v_λ
        vi = vp + vJ;
        data.a_gf[i] = vp.cross(vJ);
      }
    }
    const InertiaTpl<S> I = [&] {
      if constexpr (world)
        return model.inertias[i].transformed(M);
      else
        return model.inertias[i].template cast<S>();
    }();
    data.IA[i] = I.matrix();
    data.pA[i] = vi.cross(I * vi);
    if (!f_ext.empty()) {
      if constexpr (world)
        data.pA[i] -= M.act(f_ext[i]);
      else
        data.pA[i] -= f_ext[i];
    }
  }
  // Pass 2 (leaves to root): U_i = IA_i J_i, D_i = J_iᵀ U_i + armature_i, u_i = τ_i − J_iᵀ pA_i;
  // Ia = IA − U D⁻¹ Uᵀ, pa = pA + Ia c + U D⁻¹ u, added into the parent's (add_*_to_parent).
  for (Index i = nb - 1; i >= 0; --i) {
    const int iv = model.idx_v[i], ni = model.nv_joint[i];
    const Index p = model.parents[i];
    // Body i's world velocity is no longer needed by any child: store it in its own frame.
    if constexpr (world) data.v[i] = data.oMi[i].act_inv(data.v[i]);
    Matrix6_& IA = data.IA[i];
    const Vector6_ pA = data.pA[i].vector();
    if (Hybrid && prescribed[i]) {
      // Known q̈_i (RBDA §9.2): the joint transmits the whole articulated inertia,
      // Ia = IA, pa = pA + IA (c_i + J_i q̈_i); IA_i and pA_i stay for pass 3.
      if (p != kWorld) {
        Motion_ ci = data.a_gf[i];
        for (int k = iv; k < iv + ni; ++k) {
          ci.v += J.col(k).template head<3>() * qdd[k];
          ci.w += J.col(k).template tail<3>() * qdd[k];
        }
        add_inertia_to_parent<C, S>(data, i, p, IA);
        add_force_to_parent<C, S>(data, i, p, Vector6_(pA + IA * ci.vector()));
      }
    } else if (free_root<C>(model, i)) {
      // Solved directly in pass 3; IA_i and pA_i stay.
    } else if (ni == 1) {
      const auto s = J.col(iv);
      // Sums split in two halves: shorter dependency chains on the leaf-to-root critical path.
      const Vector6_ U = (IA.col(0) * s[0] + IA.col(1) * s[1] + IA.col(2) * s[2]) +
                         (IA.col(3) * s[3] + IA.col(4) * s[4] + IA.col(5) * s[5]);
      const S Dinv = S(1.0) / ((s[0] * U[0] + s[1] * U[1] + s[2] * U[2]) + (s[3] * U[3] + s[4] * U[4] + s[5] * U[5]) +
                               model.armature[iv]);
      const S u = tau[iv] - s.dot(pA);
      data.U.col(iv) = U;
      data.Dinv[i](0, 0) = Dinv;
      data.u[iv] = u;
      if (p != kWorld) {
        const Vector6_ UD = U * Dinv;
        subtract_symmetric_product<S>(IA, UD, U);
        const Motion_& c = data.a_gf[i];
        add_inertia_to_parent<C, S>(data, i, p, IA);
        const Vector6_ pa = pA + (IA.col(0) * c.v[0] + IA.col(1) * c.v[1] + IA.col(2) * c.v[2]) +
                            (IA.col(3) * c.w[0] + IA.col(4) * c.w[1] + IA.col(5) * c.w[2]) + UD * u;
        add_force_to_parent<C, S>(data, i, p, pa);
      }
    } else {
      // noalias() and fixed-capacity temporaries (at most 6 × 6) throughout: no heap allocation.
      using MatrixN = Eigen::Matrix<S, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 6>;
      using Matrix6X_ = Eigen::Matrix<S, 6, Eigen::Dynamic, 0, 6, 6>;
      const auto Si = J.middleCols(iv, ni);
      const Matrix6X_ U = IA * Si;
      Matrix6_ D;
      D.topLeftCorner(ni, ni).noalias() = Si.transpose() * U;
      for (int k = 0; k < ni; ++k) D(k, k) += model.armature[iv + k];
      spd_inverse<S>(D, ni, data.Dinv[i]);
      const MatrixN Dinv = data.Dinv[i].topLeftCorner(ni, ni);
      data.U.middleCols(iv, ni) = U;
      data.u.segment(iv, ni) = tau.segment(iv, ni);
      data.u.segment(iv, ni).noalias() -= Si.transpose() * pA;
      if (p != kWorld) {
        const Matrix6X_ UD = U * Dinv;
        subtract_symmetric_product<S>(IA, UD, U);
        add_inertia_to_parent<C, S>(data, i, p, IA);
        add_force_to_parent<C, S>(data, i, p, Vector6_(pA + IA * data.a_gf[i].vector() + UD * data.u.segment(iv, ni)));
      }
    }
  }
  // Pass 3 (root to leaves): a_i = a_λ + c_i (a_λ carried into i's coordinates in body
  // coordinates; a_root's parent = −g, gravity as a fictitious base acceleration, RBDA §5.3),
  // q̈_i = D_i⁻¹ (u_i − U_iᵀ a_i), a_i += J_i q̈_i.
  const Motion_ a0 = as_scalar<S>(-model.gravity);
  for (Index i = 0; i < nb; ++i) {
    const int iv = model.idx_v[i], ni = model.nv_joint[i];
    const Index p = model.parents[i];
    Motion_& a = data.a_gf[i];
    if constexpr (world)
      a += p == kWorld ? a0 : data.a_gf[p];
    else
      a += data.liMi[i].act_inv(p == kWorld ? a0 : data.a_gf[p]);
    if (Hybrid && prescribed[i]) {
      // τ_i = J_iᵀ (IA_i a_i + pA_i) + armature q̈_i: the force the joint must transmit.
      for (int k = iv; k < iv + ni; ++k) {
        data.ddq[k] = qdd[k];
        a.v += J.col(k).template head<3>() * qdd[k];
        a.w += J.col(k).template tail<3>() * qdd[k];
      }
      const Vector6_ f = data.IA[i] * a.vector() + data.pA[i].vector();
      for (int k = iv; k < iv + ni; ++k) tau_required[k] = J.col(k).dot(f) + model.armature[k] * qdd[k];
      continue;
    }
    if constexpr (world) {
      if (free_root<C>(model, i)) {
        // A free-flyer at the root: J_i = ⁰X_i (its world columns are the motion transform), so
        // J_iᵀ (IA_i a_i + pA_i) = τ_i gives a_i = IA_i⁻¹ (⁰X_i* τ_i − pA_i) with ⁰X_i* = J_i⁻ᵀ, and
        // q̈_i = ⁰X_i⁻¹ (a_i − a_0): one 6 × 6 Cholesky solve instead of forming and inverting
        // D_i = J_iᵀ IA_i J_i (RBDA §7.3 with S_i invertible; the floating-base form of §9.3).
        const auto& oM = data.oMi[i];
        const Force_ f = oM.act(Force_{tau.template segment<3>(iv), tau.template segment<3>(iv + 3)}) - data.pA[i];
        const Eigen::LLT<Matrix6_> llt(data.IA[i]);
        a = Motion_::from(llt.solve(f.vector()));
        const Motion_ qdd_root = oM.act_inv(a - a0);
        data.ddq.template segment<3>(iv) = qdd_root.v;
        data.ddq.template segment<3>(iv + 3) = qdd_root.w;
        continue;
      }
    }
    if (ni == 1) {
      const auto s = J.col(iv);
      const auto U = data.U.col(iv);
      const S Ua = (U[0] * a.v[0] + U[1] * a.v[1] + U[2] * a.v[2]) + (U[3] * a.w[0] + U[4] * a.w[1] + U[5] * a.w[2]);
      const S ddq = data.Dinv[i](0, 0) * (data.u[iv] - Ua);
      data.ddq[iv] = ddq;
      a.v += s.template head<3>() * ddq;
      a.w += s.template tail<3>() * ddq;
    } else {
      const Vector6_ av = a.vector();
      Eigen::Matrix<S, Eigen::Dynamic, 1, 0, 6, 1> r = data.u.segment(iv, ni);
      r.noalias() -= data.U.middleCols(iv, ni).transpose() * av;
      data.ddq.segment(iv, ni).noalias() = data.Dinv[i].topLeftCorner(ni, ni) * r;
      a += Motion_::from(J.middleCols(iv, ni) * data.ddq.segment(iv, ni));
    }
  }
  // Accelerations back to body frames (a child needed its parent's world value above).
  if constexpr (world)
    for (Index i = 0; i < nb; ++i) data.a_gf[i] = data.oMi[i].act_inv(data.a_gf[i]);
}

}  // namespace articula
