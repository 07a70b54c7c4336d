#pragma once
/// Products with a joint's motion subspace S_i (model.S columns), and the joint
/// placements, shared by the recursions. The fast paths for joints whose axis is
/// ±e_k (model.axis_index) live here, inline, so that the hot loops of
/// rnea()/crba()/aba() do not call out; every other joint goes through the
/// per-joint functions of model/joint.hpp.
#include <cmath>
#include <type_traits>

#include "articula/common/sincos.hpp"
#include "articula/model/data.hpp"
#include "model/joint_transform.hpp"

namespace articula {

/// k when joint i is revolute/continuous/prismatic about ±e_k, −1 otherwise (or if unknown).
ARTICULA_ALWAYS_INLINE int joint_axis_index(const Model& model, Index i) {
  return static_cast<std::size_t>(i) < model.axis_index.size() ? model.axis_index[i] : -1;
}

ARTICULA_ALWAYS_INLINE bool is_revolute(JointType t) { return t == JointType::Revolute || t == JointType::Continuous; }

/// `x` as scalar S: a reference for double (no copy in the runtime), a converted copy
/// otherwise (the model's numbers as constants of the generated code).
template <typename S, typename T>
ARTICULA_ALWAYS_INLINE decltype(auto) as_scalar(const T& x) {
  if constexpr (std::is_same_v<S, double>)
    return (x);
  else
    return x.template cast<S>();
}

/// liMi = X_T,i X_J,i(q_i): the joint placement times the joint transform (RBDA §4.2, eq. 4.3).
/// Revolute about ±e_k: X_J is the rotation by ±θ about e_k (RBDA Table 2.2, rx/ry/rz), so
/// R = R_T R_J only mixes two columns of R_T by cos θ / sin θ; prismatic along ±e_k only moves p.
template <typename S>
ARTICULA_ALWAYS_INLINE void joint_placement(const Model& model, Index i, const S* q, TransformTpl<S>& out) {
  const Transform& P = model.joint_placements[i];
  const JointType t = model.joint_types[i];
  const int k = joint_axis_index(model, i);
  if (k >= 0) {
    const double sign = model.axes[i][k];
    if (t == JointType::Prismatic) {
      out.R = as_scalar<S>(P.R);
      out.p = as_scalar<S>(P.p) + as_scalar<S>(P.R).col(k) * (sign * q[0]);
      return;
    }
    S s, c;
    sin_cos(q[0], s, c);
    s *= sign;
    const int a = k == 2 ? 0 : k + 1, b = k == 0 ? 2 : k - 1;  // (k+1) mod 3, (k+2) mod 3
    const auto& R = as_scalar<S>(P.R);
    out.R.col(a) = c * R.col(a) + s * R.col(b);
    out.R.col(b) = c * R.col(b) - s * R.col(a);
    out.R.col(k) = R.col(k);
    out.p = as_scalar<S>(P.p);
    return;
  }
  out = as_scalar<S>(P) * joint_transform_of(t, model.axes[i], q);
}

/// data.liMi[i] (joint_placement) and, when the workspace keeps world placements (Data does),
/// data.oMi[i] = oMi[parent] liMi[i]; returns oMi[i] (liMi[i] for a workspace without them). The parent's placement
/// must be current (root-to-leaves order).
template <typename W, typename Q>
ARTICULA_ALWAYS_INLINE const auto& place_joint(const Model& model, W& data, const Q& q, Index i) {
  auto& X = data.liMi[i];
  joint_placement(model, i, q.data() + model.idx_q[i], X);
  if constexpr (requires { data.oMi; }) {
    const Index p = model.parents[i];
    auto& oM = data.oMi[i];
    if (p == kWorld)
      oM = X;
    else
      oM = data.oMi[p] * X;
    return oM;
  } else {
    return X;
  }
}

/// a += v × S q̇ for a joint about ±e_k with S q̇ = wq e_k in the angular (revolute) or the
/// linear (prismatic) half: v × [0; wq e_k] = [v_lin × wq e_k; ω × wq e_k], v × [wq e_k; 0] =
/// [ω × wq e_k; 0], and x × e_k = (x₂, −x₁) on the components ((k+1) mod 3, (k+2) mod 3)
/// (RBDA eq. 2.31). Shared by the axis fast paths of the recursions.
template <typename S>
ARTICULA_ALWAYS_INLINE void add_axis_velocity_product(bool revolute, int k, const S& wq, const MotionTpl<S>& v,
                                                      MotionTpl<S>& a) {
  const int c1 = k == 2 ? 0 : k + 1, c2 = k == 0 ? 2 : k - 1;
  if (revolute) {
    a.v[c1] += v.v[c2] * wq;
    a.v[c2] -= v.v[c1] * wq;
    a.w[c1] += v.w[c2] * wq;
    a.w[c2] -= v.w[c1] * wq;
  } else {
    a.v[c1] += v.w[c2] * wq;
    a.v[c2] -= v.w[c1] * wq;
  }
}

/// The axis fast path of a root-to-leaves pass for joint i about ±e_k (k = joint_axis_index ≥ 0),
/// on its body's motions carried over from the parent (v = ⁱX_λ v_λ, a = ⁱX_λ a_λ): S q̇ = σ q̇ e_k
/// and S q̈ = σ q̈ e_k sit in the angular (revolute) or linear (prismatic) half, so v += S q̇ and
/// a += S q̈ + v × S q̇ (add_axis_velocity_product) each touch single components (RBDA eqs. 4.7–4.8).
/// with_velocity = false: a += S q̈ only (v untouched); a = nullptr: v only; qdd = nullptr: q̈ = 0.
template <bool with_velocity, typename S>
ARTICULA_ALWAYS_INLINE void add_axis_joint_motion(const Model& model, Index i, int k, const S& qd, const S* qdd,
                                                  MotionTpl<S>& v, MotionTpl<S>* a) {
  const double sign = model.axes[i][k];
  const bool revolute = is_revolute(model.joint_types[i]);
  S wq{};
  if constexpr (with_velocity) wq = sign * qd;  // before σ q̈: the generated code's order of temporaries
  if (a != nullptr && qdd != nullptr) (revolute ? a->w : a->v)[k] += sign * *qdd;
  if constexpr (with_velocity) {
    (revolute ? v.w : v.v)[k] += wq;
    if (a != nullptr) add_axis_velocity_product(revolute, k, wq, v, *a);
  }
}

/// World-frame motion subspace columns J_i = ⁰X_i S_i (the joint's columns of the joint
/// Jacobian, as update_joint_jacobians()), written into J.middleCols(idx_v[i], nv_i).
/// Revolute: [p × R a; R a]; prismatic: [R a; 0] (RBDA eq. 2.24 applied to S).
ARTICULA_ALWAYS_INLINE void joint_world_subspace(const Model& model, Index i, const Transform& oMi, MatrixX& J) {
  const int iv = model.idx_v[i];
  const JointType t = model.joint_types[i];
  if (model.nv_joint[i] == 1) {
    const int k = joint_axis_index(model, i);
    const Vector3 a = k >= 0 ? Vector3(oMi.R.col(k) * model.axes[i][k]) : Vector3(oMi.R * model.axes[i]);
    auto col = J.col(iv);
    if (t == JointType::Prismatic) {
      col.head<3>() = a;
      col.tail<3>().setZero();
    } else {
      col.head<3>() = oMi.p.cross(a);
      col.tail<3>() = a;
    }
    return;
  }
  if (t == JointType::FreeFlyer) {
    // S = 1₆: translations along the body axes [R e_k; 0], rotations about them through the
    // body origin [p × R e_k; R e_k].
    for (int k = 0; k < 3; ++k) {
      auto lin = J.col(iv + k);
      lin.head<3>() = oMi.R.col(k);
      lin.tail<3>().setZero();
      auto ang = J.col(iv + 3 + k);
      ang.head<3>() = oMi.p.cross(oMi.R.col(k));
      ang.tail<3>() = oMi.R.col(k);
    }
    return;
  }
  oMi.act_motions(model.S.middleCols(iv, model.nv_joint[i]), J.middleCols(iv, model.nv_joint[i]));
}

/// Where a recursion expresses body i's spatial quantities (ADR 0003): at the world origin (the
/// runtime: nothing to carry between a body and its parent, dense columns J_i = ⁰X_i S_i), or in
/// body i's frame (the generator: constant columns S_i, quarter-turn placements fold away).
enum class Coordinates { World, Body };

/// Joint i's columns in coordinates C, written into J.middleCols(idx_v[i], nv_i): J_i = ⁰X_i S_i
/// (joint_world_subspace, given ⁰X_i) or S_i (the placement unused).
template <Coordinates C, typename X, typename Mat>
ARTICULA_ALWAYS_INLINE void joint_columns(const Model& model, Index i, const X& oMi, Mat& J) {
  if constexpr (C == Coordinates::World) {
    joint_world_subspace(model, i, oMi, J);
  } else {
    using S = typename Mat::Scalar;
    const int iv = model.idx_v[i], ni = model.nv_joint[i];
    J.middleCols(iv, ni) = model.S.middleCols(iv, ni).template cast<S>();
  }
}

/// S_i x_i: the joint's spatial motion for the joint's slice of a velocity-like vector x (size nv).
template <typename Vec>
ARTICULA_ALWAYS_INLINE auto joint_motion(const Model& model, Index i, const Vec& x) {
  using S = typename Vec::Scalar;
  const int iv = model.idx_v[i];
  const int n = model.nv_joint[i];
  if (n == 1) return MotionTpl<S>::from(model.S.col(iv).template cast<S>() * x[iv]);
  return MotionTpl<S>::from(model.S.middleCols(iv, n).template cast<S>() * x.segment(iv, n));
}

/// S_iᵀ f written into out[idx_v(i) ...].
template <typename S, typename Vec>
ARTICULA_ALWAYS_INLINE void joint_project(const Model& model, Index i, const ForceTpl<S>& f, Vec&& out) {
  const int iv = model.idx_v[i];
  const int n = model.nv_joint[i];
  const auto fv = f.vector();
  if (n == 1)
    out[iv] = model.S.col(iv).template cast<S>().dot(fv);
  else
    out.segment(iv, n).noalias() = model.S.middleCols(iv, n).transpose().template cast<S>() * fv;
}

}  // namespace articula
