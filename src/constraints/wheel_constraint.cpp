#include "articula/constraints/wheel_constraint.hpp"

#include <stdexcept>

#include "articula/dynamics/jacobian.hpp"
#include "constraints/frame_kinematics.hpp"

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
  support_ = frame_support(model, id_);
}

void WheelConstraint::compute(const Model& model, const Data& data, VectorRef, VectorRef, Eigen::Ref<MatrixX> J,
                              Eigen::Ref<VectorX> gamma, Eigen::Ref<VectorX> error) {
  const rows::FrameMotion<double> C = frame_motion(model, data, id_);
  // ‖t‖ = 0 means the wheel lies flat on the plane: the contact point is undefined, and rows
  // built on a round-off direction would act as some other constraint. An error, naming it.
  const rows::Wheel<double> wheel(C, radius_, axis_, normal_, [this](const Vector3& t) {
    const double tn = t.norm();
    if (!(tn > 1e-9))
      throw std::invalid_argument("constraint '" + name() +
                                  "': the wheel lies flat on the plane (its axis is along the plane normal): "
                                  "no contact point");
    return tn;
  });
  contact_ = wheel.contact;
  for (Index c = 0; c < model.nv; ++c)
    if (support_[static_cast<std::size_t>(c)])
      J.col(c) = wheel.column(frame_column(data, c, C.p));
    else
      J.col(c).setZero();
  gamma = wheel.drift(C);
  error = wheel.error(height_);
}

}  // namespace articula
