#include "articula/constraints/wheel_constraint.hpp"

#include <stdexcept>

#include "articula/dynamics/jacobian.hpp"

namespace articula {

WheelConstraint::WheelConstraint(std::string name, std::string frame, double radius, Vector3 axis, Vector3 plane_normal,
                                 double plane_height)
    : Constraint(std::move(name), 3, false),
      frame_(std::move(frame)),
      radius_(radius),
      axis_(axis),
      normal_(plane_normal),
      height_(plane_height) {
  if (!(radius_ > 0.0) || !std::isfinite(radius_))
    throw std::invalid_argument("WheelConstraint '" + this->name() + "': radius must be positive, got " +
                                std::to_string(radius_));
  if (!(axis_.norm() > 1e-12) || !axis_.allFinite())
    throw std::invalid_argument("WheelConstraint '" + this->name() + "': zero or non-finite wheel axis");
  if (!(normal_.norm() > 1e-12) || !normal_.allFinite())
    throw std::invalid_argument("WheelConstraint '" + this->name() + "': zero or non-finite plane normal");
  axis_.normalize();
  normal_.normalize();
  // The normal row carries a position error: stabilize it like a holonomic constraint.
  set_default_baumgarte(kDefaultBaumgarteHz);
  set_has_reference(true);
}

void WheelConstraint::bind(const Model& model) {
  if (!model.has_frame(frame_)) {
    try {
      model.frame_id(frame_);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("WheelConstraint '" + name() + "': " + e.what());
    }
  }
  id_ = model.frame_id(frame_);
  Jf_.setZero(6, model.nv);
}

void WheelConstraint::compute(const Model& model, const Data& data, VectorRef, VectorRef, Eigen::Ref<MatrixX> J,
                              Eigen::Ref<VectorX> gamma, Eigen::Ref<VectorX> error) {
  const Transform X = frame_placement(model, data, id_);
  const Motion vel = frame_velocity(model, data, id_, ReferenceFrame::LocalWorldAligned);
  const Motion acc = frame_acceleration(model, data, id_, ReferenceFrame::LocalWorldAligned);
  frame_jacobian(model, data, id_, ReferenceFrame::LocalWorldAligned, Jf_);
  const Vector3 a = X.R * axis_;
  const Vector3 t = normal_ - normal_.dot(a) * a;
  // t = 0 means the wheel lies flat on the plane: the contact point is undefined, and rows
  // built on a round-off direction would act as some other constraint. An error, naming it.
  const double tn = t.norm();
  if (!(tn > 1e-9))
    throw std::invalid_argument("constraint '" + name() +
                                "': the wheel lies flat on the plane (its axis is along the plane normal): "
                                "no contact point");
  const Vector3 u = t / tn;
  contact_ = X.p - radius_ * u;
  const Vector3 a_dot = vel.w.cross(a);
  const Vector3 t_dot = -normal_.dot(a_dot) * a - normal_.dot(a) * a_dot;
  const Vector3 u_dot = (t_dot - u * u.dot(t_dot)) / tn;
  const Matrix3 U = skew(u);
  J = Jf_.topRows<3>();
  J.noalias() += (radius_ * U) * Jf_.bottomRows<3>();  // noalias: no heap temporary
  gamma = acc.v + radius_ * U * acc.w + radius_ * u_dot.cross(vel.w);
  error = normal_ * (normal_.dot(contact_) - height_);
}

}  // namespace articula
