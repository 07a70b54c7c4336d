#include "articula/model/joint.hpp"

#include <cmath>
#include <stdexcept>

#include "articula/common/enum_names.hpp"
#include "model/joint_transform.hpp"

namespace articula {
namespace {

Quaternion quat_from(const double* q) { return Quaternion(q[3], q[0], q[1], q[2]); }
void quat_to(const Quaternion& x, double* q) {
  q[0] = x.x();
  q[1] = x.y();
  q[2] = x.z();
  q[3] = x.w();
}

// Coefficients of exp/log on SO(3)/SE(3), with Taylor series below 1e-4 rad:
// a = sinθ/θ, b = (1−cosθ)/θ², c = (θ−sinθ)/θ³.
void rodrigues_coefficients(double t, double& a, double& b, double& c) {
  const double t2 = t * t;
  if (t < 1e-4) {
    a = 1.0 - t2 / 6.0;
    b = 0.5 - t2 / 24.0;
    c = 1.0 / 6.0 - t2 / 120.0;
  } else {
    a = std::sin(t) / t;
    // b by the half-angle form 1 − cos θ = 2 sin²(θ/2): (1 − cos θ) / θ² loses digits as
    // ε / θ² for small θ (2e-8 relative at θ = 1e-4).
    const double sh = std::sin(0.5 * t) / (0.5 * t);
    b = 0.5 * sh * sh;
    c = (t - std::sin(t)) / (t2 * t);
  }
}

Quaternion random_rotation(std::mt19937& rng) {
  // Uniform unit quaternion (Shoemake, Graphics Gems III, "Uniform random rotations").
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const double u1 = u(rng), u2 = u(rng), u3 = u(rng);
  const double r1 = std::sqrt(1.0 - u1), r2 = std::sqrt(u1);
  const double pi2 = 2.0 * M_PI;
  return Quaternion(r2 * std::cos(pi2 * u3), r1 * std::sin(pi2 * u2), r1 * std::cos(pi2 * u2), r2 * std::sin(pi2 * u3));
}

double bounded_sample(double lo, double hi, double fallback, std::mt19937& rng) {
  if (!std::isfinite(lo)) lo = -fallback;
  if (!std::isfinite(hi)) hi = fallback;
  std::uniform_real_distribution<double> u(lo, hi);
  return u(rng);
}

void normalize_quat(double* q) {
  const double n = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!(n > 1e-12) || !std::isfinite(n))
    throw std::invalid_argument("normalize: quaternion (" + std::to_string(q[0]) + ", " + std::to_string(q[1]) + ", " +
                                std::to_string(q[2]) + ", " + std::to_string(q[3]) + ") is zero or not finite");
  for (int k = 0; k < 4; ++k) q[k] /= n;
}

}  // namespace

namespace {
constexpr EnumNames<JointType, 5> kJointTypes{{{JointType::Revolute, "revolute"},
                                               {JointType::Continuous, "continuous"},
                                               {JointType::Prismatic, "prismatic"},
                                               {JointType::Spherical, "spherical"},
                                               {JointType::FreeFlyer, "floating"}}};
}  // namespace

std::string_view to_string(JointType type) { return enum_name(kJointTypes, type); }

int joint_nq(JointType type) {
  switch (type) {
    case JointType::Spherical:
      return 4;
    case JointType::FreeFlyer:
      return 7;
    default:
      return 1;
  }
}

int joint_nv(JointType type) {
  switch (type) {
    case JointType::Spherical:
      return 3;
    case JointType::FreeFlyer:
      return 6;
    default:
      return 1;
  }
}

Matrix3 exp3(const Vector3& w) {
  double a, b, c;
  rodrigues_coefficients(w.norm(), a, b, c);
  const Matrix3 W = skew(w);
  return Matrix3::Identity() + a * W + b * W * W;
}

Vector3 log3(const Matrix3& R) {
  // θ = atan2(sin θ, cos θ) with 2 sin θ = ‖s‖ (s = the skew part of R) and 2 cos θ = tr R − 1:
  // accurate to round-off at every angle. (acos of the trace alone loses half the digits near
  // 0 and π: at θ = π − 1e-3 the result was off by 1e-9, at θ = π by 1.5e-8.)
  // The axis comes from the skew part, or from the symmetric part near θ = π.
  const double cos_t = std::clamp((R.trace() - 1.0) / 2.0, -1.0, 1.0);
  const Vector3 s(R(2, 1) - R(1, 2), R(0, 2) - R(2, 0), R(1, 0) - R(0, 1));
  const double sin_t = 0.5 * s.norm();
  const double t = std::atan2(sin_t, cos_t);
  if (t < 1e-4) return 0.5 * (1.0 + t * t / 6.0) * s;
  if (M_PI - t > 1e-4) return t / (2.0 * sin_t) * s;
  // Near π: R ≈ 2 n nᵀ − 1; take the largest diagonal entry for n, sign from s.
  Eigen::Index k;
  R.diagonal().maxCoeff(&k);
  Vector3 n = (R.col(k) + R.row(k).transpose()) / 2.0;
  n[k] = std::sqrt(std::max(0.0, (R(k, k) - cos_t) / (1.0 - cos_t)));
  for (int i = 0; i < 3; ++i)
    if (i != k) n[i] = (R(i, k) + R(k, i)) / (2.0 * n[k] * (1.0 - cos_t));
  n.normalize();
  if (n.dot(s) < 0) n = -n;
  return t * n;
}

Transform exp6(const Motion& twist) {
  double a, b, c;
  rodrigues_coefficients(twist.w.norm(), a, b, c);
  const Matrix3 W = skew(twist.w);
  const Matrix3 W2 = W * W;
  const Matrix3 V = Matrix3::Identity() + b * W + c * W2;
  return {Matrix3::Identity() + a * W + b * W2, V * twist.v};
}

Motion log6(const Transform& X) {
  const Vector3 w = log3(X.R);
  const double t = w.norm();
  const Matrix3 W = skew(w);
  // V⁻¹ = 1 − ½Ŵ + (1/θ²)(1 − a/(2b)) Ŵ², series (1/12 + θ²/720) for small θ.
  // a/(2b) = (θ/2) cot(θ/2), evaluated in that form: forming a/(2b) from the coefficients
  // made 1 − a/(2b) lose all its digits just above the series threshold (log6(exp6(ξ)) was
  // off by 1e-8 at θ = 1.01e-4).
  double k;
  if (t < 1e-4) {
    k = 1.0 / 12.0 + t * t / 720.0;
  } else {
    const double half = 0.5 * t;
    k = (1.0 - half * std::cos(half) / std::sin(half)) / (t * t);
  }
  const Matrix3 Vinv = Matrix3::Identity() - 0.5 * W + k * W * W;
  return {Vinv * X.p, w};
}

Transform joint_transform(JointType type, const Vector3& axis, const double* q) {
  return joint_transform_of(type, axis, q);
}

Matrix6X joint_subspace(JointType type, const Vector3& axis) {
  Matrix6X S(6, joint_nv(type));
  S.setZero();
  switch (type) {
    case JointType::Revolute:
    case JointType::Continuous:
      S.block<3, 1>(3, 0) = axis;
      break;
    case JointType::Prismatic:
      S.block<3, 1>(0, 0) = axis;
      break;
    case JointType::Spherical:
      S.block<3, 3>(3, 0).setIdentity();
      break;
    case JointType::FreeFlyer:
      S.setIdentity();
      break;
  }
  return S;
}

void joint_integrate(JointType type, const double* q, const double* v, double dt, double* q_out) {
  switch (type) {
    case JointType::Revolute:
    case JointType::Continuous:
    case JointType::Prismatic:
      q_out[0] = q[0] + v[0] * dt;
      break;
    case JointType::Spherical: {
      // R⁺ = R exp(ω dt): the velocity is expressed in the child frame.
      const Vector3 w = Eigen::Map<const Vector3>(v) * dt;
      Quaternion r = quat_from(q) * Quaternion(Eigen::AngleAxisd(exp3(w)));
      quat_to(r.normalized(), q_out);
      break;
    }
    case JointType::FreeFlyer: {
      // M⁺ = M exp6(v dt) on SE(3).
      const Transform M{quat_from(q + 3).toRotationMatrix(), Vector3(q[0], q[1], q[2])};
      const Motion twist{Eigen::Map<const Vector3>(v) * dt, Eigen::Map<const Vector3>(v + 3) * dt};
      const Transform E = exp6(twist);
      const Transform Mn = M * E;
      // Multiply quaternions rather than converting Mn.R, so that q keeps the input's sign.
      Quaternion r = quat_from(q + 3) * Quaternion(E.R);
      q_out[0] = Mn.p.x();
      q_out[1] = Mn.p.y();
      q_out[2] = Mn.p.z();
      quat_to(r.normalized(), q_out + 3);
      break;
    }
  }
}

void joint_difference(JointType type, const double* q0, const double* q1, double* v_out) {
  switch (type) {
    case JointType::Revolute:
    case JointType::Continuous:
    case JointType::Prismatic:
      v_out[0] = q1[0] - q0[0];
      break;
    case JointType::Spherical: {
      const Vector3 w = log3(quat_from(q0).toRotationMatrix().transpose() * quat_from(q1).toRotationMatrix());
      Eigen::Map<Vector3> out(v_out);
      out = w;
      break;
    }
    case JointType::FreeFlyer: {
      const Transform M0{quat_from(q0 + 3).toRotationMatrix(), Vector3(q0[0], q0[1], q0[2])};
      const Transform M1{quat_from(q1 + 3).toRotationMatrix(), Vector3(q1[0], q1[1], q1[2])};
      const Motion d = log6(M0.inv_times(M1));
      Eigen::Map<Vector6> out(v_out);
      out = d.vector();
      break;
    }
  }
}

void joint_neutral(JointType type, double* q) {
  switch (type) {
    case JointType::Spherical:
      q[0] = q[1] = q[2] = 0.0;
      q[3] = 1.0;
      break;
    case JointType::FreeFlyer:
      for (int k = 0; k < 6; ++k) q[k] = 0.0;
      q[6] = 1.0;
      break;
    default:
      q[0] = 0.0;
  }
}

void joint_dexp_inv(JointType type, const double* theta, const double* xi, double* out) {
  switch (type) {
    case JointType::Spherical: {
      const Eigen::Map<const Vector3> t(theta), x(xi);
      const Vector3 b1 = t.cross(x);
      Eigen::Map<Vector3> o(out);
      o = x + 0.5 * b1 + t.cross(b1) / 12.0;
      break;
    }
    case JointType::FreeFlyer: {
      const Motion t = Motion::from(Eigen::Map<const Vector6>(theta));
      const Motion x = Motion::from(Eigen::Map<const Vector6>(xi));
      const Motion b1 = t.cross(x);
      Eigen::Map<Vector6> o(out);
      o = (x + b1 * 0.5 + t.cross(b1) * (1.0 / 12.0)).vector();
      break;
    }
    default:
      out[0] = xi[0];
  }
}

void joint_normalize(JointType type, double* q) {
  if (type == JointType::Spherical) normalize_quat(q);
  if (type == JointType::FreeFlyer) normalize_quat(q + 3);
}

void joint_random(JointType type, const double* lower, const double* upper, std::mt19937& rng, double* q) {
  switch (type) {
    case JointType::Revolute:
    case JointType::Continuous:
      q[0] = bounded_sample(lower[0], upper[0], M_PI, rng);
      break;
    case JointType::Prismatic:
      q[0] = bounded_sample(lower[0], upper[0], 1.0, rng);
      break;
    case JointType::Spherical:
      quat_to(random_rotation(rng), q);
      break;
    case JointType::FreeFlyer:
      for (int k = 0; k < 3; ++k) q[k] = bounded_sample(lower[k], upper[k], 1.0, rng);
      quat_to(random_rotation(rng), q + 3);
      break;
  }
}

}  // namespace articula
