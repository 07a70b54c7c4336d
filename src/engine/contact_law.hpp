#pragma once
/// The elastic contact law, written once for the runtime (contact.cpp) and the generated
/// aba_contacts kernel (codegen/contacts.cpp), generic over the scalar: a linear spring–damper
/// normal force, never attractive, and regularized Coulomb friction (Brogliato, Nonsmooth
/// Mechanics, 3rd ed., §2.1; the tanh-free form v_t / sqrt(|v_t|² + ε²) of regularized
/// friction). ElasticContact (engine/robot.hpp) states the law.
#include "articula/spatial/transform.hpp"

namespace articula::contact_law {

template <typename S>
using Vec3 = Eigen::Matrix<S, 3, 1>;

/// The contact point r (body axes) of a body at oMi moving with vb (body axes): its world
/// position p and world velocity ṗ = R (v + ω × r).
template <typename S>
struct Point {
  Vec3<S> p, pdot;
};
template <typename S>
Point<S> point(const TransformTpl<S>& oMi, const MotionTpl<S>& vb, const Vec3<S>& r) {
  return {oMi.act_point(r), oMi.R * (vb.v + vb.w.cross(r))};
}

/// Signed distance of p from the plane through `at` with unit normal n (positive outside).
template <typename S>
S plane_distance(const Vec3<S>& at, const Vec3<S>& n, const Vec3<S>& p) {
  return n.dot(p - at);
}

/// The force F (world axes) at a point at signed distance `dist` with velocity ṗ against a
/// surface of unit normal n, for stiffness k, damping d, friction μ and slip velocity v_slip.
/// It acts when `pushing` > 0 (in contact and the spring–damper pushes); F is zero otherwise,
/// which the caller applies (a branch at run time, a select in the generated code).
template <typename S>
struct Law {
  S pushing;
  Vec3<S> F;
};
template <typename S, typename N>
Law<S> force(const N& k, const N& d, const N& mu, const N& slip, const Vec3<S>& pdot, const Vec3<S>& n, const S& dist) {
  using std::fmin;
  using std::sqrt;
  const S vn = n.dot(pdot);
  const S fn = -k * dist - d * vn;
  const Vec3<S> vt = pdot - vn * n;
  const Vec3<S> ft = -mu * fn / sqrt(vt.squaredNorm() + slip * slip) * vt;
  return {fmin(-dist, fn), fn * n + ft};
}

/// F (world axes) at the point r of a body at oMi, as a spatial force in the body's frame.
template <typename S>
ForceTpl<S> body_force(const TransformTpl<S>& oMi, const Vec3<S>& r, const Vec3<S>& F) {
  const Vec3<S> fb = oMi.R.transpose() * F;
  return {fb, r.cross(fb)};
}

}  // namespace articula::contact_law
