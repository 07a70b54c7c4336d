#pragma once
/// The joint transform X_J(q) generic over the scalar: model/joint.cpp's joint_transform() for
/// double, the recursions (dynamics/joint_motion.hpp) for double and the code generator's scalar.
#include <type_traits>

#include "articula/common/sincos.hpp"
#include "articula/model/joint.hpp"
#include "articula/spatial/transform.hpp"

namespace articula {

/// sin and cos of a joint angle (common/sincos.hpp: fdlibm kernels, ~1 ulp). The code generator
/// has its own overload for its scalar (codegen/sym.hpp), found by argument-dependent lookup.
ARTICULA_ALWAYS_INLINE void sin_cos(double x, double& s, double& c) { fast_sincos(x, s, c); }

/// The rotation of a unit quaternion [x y z w] (Eigen's Quaternion::toRotationMatrix formula).
template <typename S>
Eigen::Matrix<S, 3, 3> quaternion_rotation(const S* q) {
  const S x = q[0], y = q[1], z = q[2], w = q[3];
  const S tx = 2.0 * x, ty = 2.0 * y, tz = 2.0 * z;
  const S twx = tx * w, twy = ty * w, twz = tz * w;
  const S txx = tx * x, txy = ty * x, txz = tz * x;
  const S tyy = ty * y, tyz = tz * y, tzz = tz * z;
  Eigen::Matrix<S, 3, 3> R;
  R << 1.0 - (tyy + tzz), txy - twz, txz + twy, txy + twz, 1.0 - (txx + tzz), tyz - twx, txz - twy, tyz + twx,
      1.0 - (txx + tyy);
  return R;
}

/// X_J(q) of a joint (model/joint.hpp): a rotation about the axis by q (revolute, Rodrigues'
/// formula R = 1 + sin q â + (1 − cos q) â²), a translation along it (prismatic), a quaternion
/// rotation (spherical), or both (free-flyer: position, then quaternion).
template <typename S>
TransformTpl<S> joint_transform_of(JointType type, const Vector3& axis, const S* q) {
  using Mat3 = Eigen::Matrix<S, 3, 3>;
  using Vec3 = Eigen::Matrix<S, 3, 1>;
  switch (type) {
    case JointType::Revolute:
    case JointType::Continuous: {
      S s, c;
      sin_cos(q[0], s, c);
      const Matrix3 A = skew(axis);
      const Matrix3 A2 = A * A;
      return {Mat3(Mat3::Identity() + s * A.template cast<S>() + (1.0 - c) * A2.template cast<S>()), Vec3::Zero()};
    }
    case JointType::Prismatic:
      return {Mat3::Identity(), Vec3(axis.template cast<S>() * q[0])};
    case JointType::Spherical:
      return {quaternion_rotation(q), Vec3::Zero()};
    case JointType::FreeFlyer:
      return {quaternion_rotation(q + 3), Vec3(q[0], q[1], q[2])};
  }
  return {};
}

}  // namespace articula
