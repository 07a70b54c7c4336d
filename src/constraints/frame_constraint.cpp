#include "articula/constraints/frame_constraint.hpp"

#include <algorithm>
#include <stdexcept>

#include "articula/dynamics/jacobian.hpp"
#include "constraints/frame_kinematics.hpp"

namespace articula {
namespace {

Index checked_frame(const Model& model, const std::string& constraint, const std::string& frame) {
  if (!model.has_frame(frame)) {
    try {
      model.frame_id(frame);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument("constraint '" + constraint + "': " + e.what());
    }
  }
  return model.frame_id(frame);
}

}  // namespace

FramePairConstraint::FramePairConstraint(std::string name, std::string frame_a, std::string frame_b, AxisMask mask,
                                         std::optional<Transform> reference)
    : Constraint(std::move(name), mask.count(), true),
      frame_a_(std::move(frame_a)),
      frame_b_(std::move(frame_b)),
      mask_(mask) {
  if (reference) set_reference(*reference);
  if (frame_a_ == frame_b_)
    throw std::invalid_argument("constraint '" + this->name() + "': frame A and B are the same");
}

void FramePairConstraint::set_reference(const Transform& reference) {
  reference_ = reference;
  user_reference_ = true;
  set_has_reference(true);
}

void FramePairConstraint::bind(const Model& model) {
  id_a_ = checked_frame(model, name(), frame_a_);
  id_b_ = frame_b_.empty() ? -1 : checked_frame(model, name(), frame_b_);
  support_a_ = frame_support(model, id_a_);
  support_b_ = frame_support(model, id_b_);
}

Transform FramePairConstraint::relative_pose(const Model& model, const Data& data) const {
  const Transform Xa = frame_placement(model, data, id_a_);
  const Transform Xb = id_b_ < 0 ? Transform::Identity() : frame_placement(model, data, id_b_);
  return Xb.inv_times(Xa);
}

void FramePairConstraint::capture_reference(const Model& model, const Data& data, VectorRef) {
  if (user_reference_) return;
  reference_ = relative_pose(model, data);
  set_has_reference(true);
}

void FramePairConstraint::compute(const Model& model, const Data& data, VectorRef, VectorRef, Eigen::Ref<MatrixX> J,
                                  Eigen::Ref<VectorX> gamma, Eigen::Ref<VectorX> error) {
  const rows::FrameMotion<double> A = frame_motion(model, data, id_a_);
  const rows::FrameMotion<double> B = frame_motion(model, data, id_b_);
  const rows::FramePair<double> pair(A.p, B.p, B.R, id_b_ >= 0);
  R_b_last_ = B.R;
  bool angular = false;
  for (int k = 3; k < 6; ++k) angular = angular || mask_.axis[k];
  // All six drift / error entries (row_formulas.hpp), then the masked ones.
  const Vector6 g6 = pair.drift(A, B);
  Vector6 e6;
  e6.head<3>() = pair.linear_error(reference_.p);
  e6.tail<3>() = angular ? log3(pair.rotation_error(A.R, reference_.R)) : Vector3::Zero();
  int r = 0;
  for (int k = 0; k < 6; ++k)
    if (mask_.axis[k]) {
      gamma[r] = g6[k];
      error[r] = e6[k];
      ++r;
    }
  write_jacobian(model, data, A.p, B.p, J);
}

void FramePairConstraint::jacobian(const Model& model, const Data& data, VectorRef, VectorRef, Eigen::Ref<MatrixX> J,
                                   Eigen::Ref<VectorX>, Eigen::Ref<VectorX>) {
  const Vector3 pa = frame_placement(model, data, id_a_).p;
  const Transform Xb = id_b_ < 0 ? Transform::Identity() : frame_placement(model, data, id_b_);
  R_b_last_ = Xb.R;
  write_jacobian(model, data, pa, Xb.p, J);
}

void FramePairConstraint::write_jacobian(const Model& model, const Data& data, const Vector3& p_a, const Vector3& p_b,
                                         Eigen::Ref<MatrixX> J) {
  const bool loop = id_b_ >= 0;
  const rows::FramePair<double> pair(p_a, p_b, R_b_last_, loop);
  int row_of[6];
  int r = 0;
  for (int k = 0; k < 6; ++k) row_of[k] = mask_.axis[k] ? r++ : -1;
  // One pass over the columns writes every entry once; a dof that moves neither frame has a
  // zero column.
  double scale = 0.0;
  for (Index c = 0; c < model.nv; ++c) {
    const std::size_t cc = static_cast<std::size_t>(c);
    const bool on_a = support_a_[cc] != 0, on_b = loop && support_b_[cc] != 0;
    if (!on_a && !on_b) {
      for (int rr = 0; rr < r; ++rr) J(rr, c) = 0.0;
      continue;
    }
    if (!loop) {
      // The rows are A's column (FramePair::column for the world), its halves written as they
      // are computed (no 6-vector through memory: this loop is most of compute_rows).
      const auto Jc = data.J.col(c);
      const Vector3 w = Jc.tail<3>();
      const Vector3 lin = rows::origin_velocity<double>(Jc.head<3>(), w, p_a);
      scale = std::max({scale, lin.cwiseAbs().maxCoeff(), w.cwiseAbs().maxCoeff()});
      for (int k = 0; k < 3; ++k) {
        if (row_of[k] >= 0) J(row_of[k], c) = lin[k];
        if (row_of[k + 3] >= 0) J(row_of[k + 3], c) = w[k];
      }
      continue;
    }
    const Vector6 JA = on_a ? frame_column(data, c, p_a) : Vector6::Zero();
    const Vector6 JB = on_b ? frame_column(data, c, p_b) : Vector6::Zero();
    scale = std::max({scale, JA.cwiseAbs().maxCoeff(), JB.cwiseAbs().maxCoeff()});
    const Vector6 col = pair.column(JA, JB);
    for (int k = 0; k < 6; ++k)
      if (row_of[k] >= 0) J(row_of[k], c) = col[k];
  }
  drop_roundoff_rows(J.topRows(r), loop ? scale * (1.0 + pair.d.norm()) : scale);
}

Vector6 FramePairConstraint::wrench(const Eigen::Ref<const VectorX>& lambda) const {
  Vector6 local = Vector6::Zero();
  int r = 0;
  for (int k = 0; k < 6; ++k)
    if (mask_.axis[k]) local[k] = lambda[r++];
  Vector6 w;
  w << R_b_last_ * local.head<3>(), R_b_last_ * local.tail<3>();
  return w;
}

DistanceConstraint::DistanceConstraint(std::string name, std::string frame_a, std::string frame_b,
                                       std::optional<double> distance)
    : Constraint(std::move(name), 1, true), frame_a_(std::move(frame_a)), frame_b_(std::move(frame_b)) {
  if (frame_a_ == frame_b_)
    throw std::invalid_argument("constraint '" + this->name() + "': frame A and B are the same (zero distance)");
  if (distance) {
    if (!(*distance > 0.0))
      throw std::invalid_argument("constraint '" + this->name() + "': distance must be positive, got " +
                                  std::to_string(*distance));
    distance_ = *distance;
    user_distance_ = true;
    set_has_reference(true);
  }
}

void DistanceConstraint::bind(const Model& model) {
  id_a_ = checked_frame(model, name(), frame_a_);
  id_b_ = checked_frame(model, name(), frame_b_);
  support_a_ = frame_support(model, id_a_);
  support_b_ = frame_support(model, id_b_);
}

void DistanceConstraint::capture_reference(const Model& model, const Data& data, VectorRef) {
  if (user_distance_) return;
  distance_ = (frame_placement(model, data, id_a_).p - frame_placement(model, data, id_b_).p).norm();
  if (!(distance_ > 0.0))
    throw std::invalid_argument("constraint '" + name() +
                                "': the two frames coincide; the distance constraint is singular");
  set_has_reference(true);
}

void DistanceConstraint::compute(const Model& model, const Data& data, VectorRef, VectorRef, Eigen::Ref<MatrixX> J,
                                 Eigen::Ref<VectorX> gamma, Eigen::Ref<VectorX> error) {
  const rows::FrameMotion<double> A = frame_motion(model, data, id_a_);
  const rows::FrameMotion<double> B = frame_motion(model, data, id_b_);
  const rows::Distance<double> dist(A.p, B.p, [](const Vector3& d) { return std::max(d.norm(), 1e-300); });
  double scale = 0.0;
  for (Index c = 0; c < model.nv; ++c) {
    const std::size_t cc = static_cast<std::size_t>(c);
    const Vector6 JA = support_a_[cc] ? frame_column(data, c, A.p) : Vector6::Zero();
    const Vector6 JB = support_b_[cc] ? frame_column(data, c, B.p) : Vector6::Zero();
    scale = std::max({scale, JA.head<3>().cwiseAbs().maxCoeff(), JB.head<3>().cwiseAbs().maxCoeff()});
    J(0, c) = dist.column(JA, JB);
  }
  drop_roundoff_rows(J.topRows(1), scale);
  gamma[0] = dist.drift(A, B);
  error[0] = dist.error(distance_);
}

}  // namespace articula
