#pragma once
/// The rows of the frame-pair, distance and wheel constraints, written once, generic over the
/// scalar S (docs/decisions/0003): the runtime constraints (frame_constraint.cpp,
/// wheel_constraint.cpp) instantiate them on double, the code generator (codegen/constrained.cpp)
/// traces them on Sym. Each gives, from the kinematics of the frames involved, one column of the
/// Jacobian J, the drift J̇ v and the position error e (docs/constraints.md). Branches depend on
/// the constraint's structure (a loop or a frame held in the world), never on the values; the
/// value-dependent steps are the back end's: a distance's length guarded away from 0 and the
/// wheel's tangent norm (with its test for a wheel flat on the plane) are callables passed in,
/// and log₃ of the rotation error is taken by the caller (the runtime's log3, called from the
/// generated kernels).
#include <Eigen/Core>

#include "articula/spatial/transform.hpp"

namespace articula::rows {

template <typename S>
using Vec3 = Eigen::Matrix<S, 3, 1>;
template <typename S>
using Mat3 = Eigen::Matrix<S, 3, 3>;
template <typename S>
using Vec6 = Eigen::Matrix<S, 6, 1>;

/// A frame's origin in world axes: its placement, its classical velocity (v, ω) and its drift
/// acceleration (a, ω̇) at v̇ = 0. A frame on the world keeps the zeros and the identity.
template <typename S>
struct FrameMotion {
  Vec3<S> p = Vec3<S>::Zero();
  Mat3<S> R = Mat3<S>::Identity();
  Vec3<S> v = Vec3<S>::Zero(), w = Vec3<S>::Zero();
  Vec3<S> a = Vec3<S>::Zero(), dw = Vec3<S>::Zero();
};

/// The frame with placement P on a body at oMb, moving with the body velocity vb and bias
/// acceleration ab (body coordinates, as Data::v, Data::a): v = R v_f, ω = R ω_f,
/// a = R (a_f + ω_f × v_f), ω̇ = R ω̇_f with R = R_b R_P and (v_f, a_f) = ᶠX_b (vb, ab) — the
/// classical acceleration of the origin from the spatial one (RBDA §2.11; frame_acceleration()).
template <typename S>
ARTICULA_ALWAYS_INLINE FrameMotion<S> frame_motion(const TransformTpl<S>& oMb, const MotionTpl<S>& vb,
                                                   const MotionTpl<S>& ab, const TransformTpl<S>& P) {
  FrameMotion<S> m;
  const TransformTpl<S> oMf = oMb * P;
  m.p = oMf.p;
  m.R = oMf.R;
  const MotionTpl<S> vf = P.act_inv(vb), af = P.act_inv(ab);
  m.v = m.R * vf.v;
  m.w = m.R * vf.w;
  m.a = m.R * Vec3<S>(af.v + vf.w.cross(vf.v));
  m.dw = m.R * af.w;
  return m;
}

/// The velocity v_c + ω_c × p of the point p of a body moving with the world joint column
/// (v_c, ω_c) (Data::J), the linear half of a frame's local-world-aligned Jacobian column.
template <typename S, typename V, typename W>
ARTICULA_ALWAYS_INLINE Vec3<S> origin_velocity(const V& v_c, const W& w_c, const Vec3<S>& p) {
  return v_c + w_c.cross(p);
}

/// Column c of a frame's local-world-aligned Jacobian: [v_c + ω_c × p; ω_c] for its origin p
/// (frame_jacobian()).
template <typename S, typename V, typename W>
ARTICULA_ALWAYS_INLINE Vec6<S> origin_column(const V& v_c, const W& w_c, const Vec3<S>& p) {
  Vec6<S> col;
  col.template head<3>() = origin_velocity<S>(v_c, w_c, p);
  col.template tail<3>() = w_c;
  return col;
}

/// Frame A held to frame B (a loop) or to the world (docs/constraints.md, "Frame and loop
/// rows"), with d = p_A − p_B and R_B B's orientation:
///   linear:  J = R_Bᵀ (J_A,v − J_B,v + [d]× J_B,ω),  e = R_Bᵀ d − r₀,
///            drift R_Bᵀ (a_A − a_B − ω̇_B × d − ω_B × (v_A − v_B) − ω_B × u),  u = v_A − v_B − ω_B × d
///   angular: J = R_Bᵀ (J_A,ω − J_B,ω),  e = log₃(R_Bᵀ R_A R₀ᵀ),  drift R_Bᵀ (ω̇_A − ω̇_B − ω_B × (ω_A − ω_B))
/// The relative velocity is differentiated in B's frame, so the rows hold the pose of A seen
/// from B. For the world (loop = false) every term of B is 0 or the identity and is not formed.
template <typename S>
struct FramePair {
  bool loop = false;
  Mat3<S> RbT = Mat3<S>::Identity();
  Vec3<S> d = Vec3<S>::Zero();

  FramePair(const Vec3<S>& p_a, const Vec3<S>& p_b, const Mat3<S>& R_b, bool is_loop) : loop(is_loop), d(p_a) {
    if (loop) {
      RbT = R_b.transpose();
      d = p_a - p_b;
    }
  }

  /// Column c of the six rows [linear; angular] from A's and B's origin columns.
  ARTICULA_ALWAYS_INLINE Vec6<S> column(const Vec6<S>& JA, const Vec6<S>& JB) const {
    if (!loop) return JA;
    Vec6<S> col;
    col.template head<3>() =
        RbT * Vec3<S>(JA.template head<3>() - JB.template head<3>() + d.cross(Vec3<S>(JB.template tail<3>())));
    col.template tail<3>() = RbT * Vec3<S>(JA.template tail<3>() - JB.template tail<3>());
    return col;
  }

  /// The drift J̇ v of the six rows.
  Vec6<S> drift(const FrameMotion<S>& A, const FrameMotion<S>& B) const {
    Vec6<S> g;
    if (!loop) {
      g << A.a, A.dw;
      return g;
    }
    const Vec3<S> u = A.v - B.v - B.w.cross(d);
    g << RbT * Vec3<S>(A.a - B.a - B.dw.cross(d) - B.w.cross(Vec3<S>(A.v - B.v)) - B.w.cross(u)),
        RbT * Vec3<S>(A.dw - B.dw - B.w.cross(Vec3<S>(A.w - B.w)));
    return g;
  }

  /// The linear error R_Bᵀ d − r₀.
  Vec3<S> linear_error(const Vec3<S>& r0) const { return (loop ? Vec3<S>(RbT * d) : d) - r0; }

  /// R_Bᵀ R_A R₀ᵀ, whose log₃ is the angular error.
  Mat3<S> rotation_error(const Mat3<S>& R_a, const Mat3<S>& R0) const {
    const Mat3<S> rel = loop ? Mat3<S>(RbT * R_a) : R_a;
    return rel * R0.transpose();
  }
};

/// The distance ‖p_A − p_B‖ held at d₀ (docs/constraints.md): with ℓ = ‖d‖ (guarded from 0 by
/// the back end's `length`), n = d / ℓ and ḋ = v_A − v_B,
///   J = nᵀ (J_A,v − J_B,v),  e = ℓ − d₀,  drift nᵀ (a_A − a_B) + (‖ḋ‖² − (nᵀḋ)²) / ℓ
/// (d²/dt² ‖d‖).
template <typename S>
struct Distance {
  S len;
  Vec3<S> n;

  template <typename Length>
  Distance(const Vec3<S>& p_a, const Vec3<S>& p_b, Length&& length) {
    const Vec3<S> d = p_a - p_b;
    len = length(d);
    n = d * (S(1.0) / len);
  }
  S column(const Vec6<S>& JA, const Vec6<S>& JB) const {
    return n.dot(Vec3<S>(JA.template head<3>() - JB.template head<3>()));
  }
  S drift(const FrameMotion<S>& A, const FrameMotion<S>& B) const {
    const Vec3<S> dd = A.v - B.v;
    const S ndd = n.dot(dd);
    return n.dot(Vec3<S>(A.a - B.a)) + (dd.dot(dd) - ndd * ndd) * (S(1.0) / len);
  }
  S error(const S& d0) const { return len - d0; }
};

/// A wheel of radius r rolling without slip on the plane nᵀx = h (docs/constraints.md, "Wheel
/// rows"): with â = R axis its axis in the world, t = n − (nᵀâ) â, u = t / ‖t‖ the direction from
/// the contact point to the centre c and p = c − r u the contact point,
///   J = J_c,v + r [u]× J_ω,  e = n (nᵀp − h),  drift a_c + r u × ω̇ + r u̇ × ω,
///   u̇ = (ṫ − u (uᵀṫ)) / ‖t‖,  ṫ = −(nᵀâ̇) â − (nᵀâ) â̇,  â̇ = ω × â.
/// ‖t‖ is the back end's `tangent_norm` (it reports a wheel flat on its plane, ‖t‖ ≈ 0: there
/// is no contact point). axis and n are unit vectors.
template <typename S>
struct Wheel {
  S r, tn;
  Vec3<S> n, a, u, contact;

  template <typename TangentNorm>
  Wheel(const FrameMotion<S>& C, const S& radius, const Vec3<S>& axis, const Vec3<S>& normal,
        TangentNorm&& tangent_norm)
      : r(radius), n(normal) {
    a = C.R * axis;
    const Vec3<S> t = n - a * n.dot(a);
    tn = tangent_norm(t);
    u = t * (S(1.0) / tn);
    contact = C.p - u * r;
  }
  Vec3<S> column(const Vec6<S>& JC) const {
    return JC.template head<3>() + u.cross(Vec3<S>(JC.template tail<3>())) * r;
  }
  Vec3<S> drift(const FrameMotion<S>& C) const {
    const Vec3<S> a_dot = C.w.cross(a);
    const Vec3<S> t_dot = -(a * n.dot(a_dot)) - a_dot * n.dot(a);
    const Vec3<S> u_dot = (t_dot - u * u.dot(t_dot)) * (S(1.0) / tn);
    return C.a + u.cross(C.dw) * r + u_dot.cross(C.w) * r;
  }
  Vec3<S> error(const S& height) const { return n * (n.dot(contact) - height); }
};

}  // namespace articula::rows
