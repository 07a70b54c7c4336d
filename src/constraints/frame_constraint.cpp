#include "articula/constraints/frame_constraint.hpp"

#include <algorithm>
#include <stdexcept>

#include "articula/dynamics/jacobian.hpp"

namespace articula {
namespace {

// Classical velocity / acceleration of a frame origin in world axes (zero for the world).
struct FrameMotion {
  Vector3 p = Vector3::Zero();
  Matrix3 R = Matrix3::Identity();
  Vector3 v = Vector3::Zero(), w = Vector3::Zero();   // velocity
  Vector3 a = Vector3::Zero(), dw = Vector3::Zero();  // acceleration (drift when v̇ = 0)
};

FrameMotion frame_motion(const Model& model, const Data& data, Index id) {
  FrameMotion m;
  if (id < 0) return m;
  const Transform X = frame_placement(model, data, id);
  m.p = X.p;
  m.R = X.R;
  const Motion vel = frame_velocity(model, data, id, ReferenceFrame::LocalWorldAligned);
  const Motion acc = frame_acceleration(model, data, id, ReferenceFrame::LocalWorldAligned);
  m.v = vel.v;
  m.w = vel.w;
  m.a = acc.v;
  m.dw = acc.w;
  return m;
}

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
  support_a_.assign(static_cast<std::size_t>(model.nv), 0);
  for (Index j = model.frames[id_a_].parent; j != kWorld; j = model.parents[j])
    for (int c = model.idx_v[j]; c < model.idx_v[j] + model.nv_joint[j]; ++c)
      support_a_[static_cast<std::size_t>(c)] = 1;
  Ja_.setZero(6, model.nv);
  Jb_.setZero(6, model.nv);
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
  const FrameMotion A = frame_motion(model, data, id_a_);
  bool angular = false;
  for (int k = 3; k < 6; ++k) angular = angular || mask_.axis[k];
  // Full six drift / error entries, then keep the masked ones.
  Eigen::Matrix<double, 6, 1> g6, e6;
  Vector3 d = A.p;  // p_A − p_B
  if (id_b_ < 0) {
    R_b_last_.setIdentity();
    g6 << A.a, A.dw;
    e6.head<3>() = A.p - reference_.p;
    e6.tail<3>() = angular ? log3(A.R * reference_.R.transpose()) : Vector3::Zero();
  } else {
    const FrameMotion B = frame_motion(model, data, id_b_);
    R_b_last_ = B.R;
    const Matrix3 RbT = B.R.transpose();
    d = A.p - B.p;
    const Vector3 u = A.v - B.v - B.w.cross(d);  // relative velocity of A's origin w.r.t. B's body point there
    g6.head<3>() = RbT * (A.a - B.a - B.dw.cross(d) - B.w.cross(A.v - B.v) - B.w.cross(u));
    g6.tail<3>() = RbT * (A.dw - B.dw - B.w.cross(A.w - B.w));
    e6.head<3>() = RbT * d - reference_.p;
    e6.tail<3>() = angular ? log3(RbT * A.R * reference_.R.transpose()) : Vector3::Zero();
  }
  int r = 0;
  for (int k = 0; k < 6; ++k)
    if (mask_.axis[k]) {
      gamma[r] = g6[k];
      error[r] = e6[k];
      ++r;
    }
  write_jacobian(model, data, A.p, d, J);
}

void FramePairConstraint::jacobian(const Model& model, const Data& data, VectorRef, VectorRef, Eigen::Ref<MatrixX> J,
                                   Eigen::Ref<VectorX>, Eigen::Ref<VectorX>) {
  const Vector3 pa = frame_placement(model, data, id_a_).p;
  if (id_b_ < 0) {
    R_b_last_.setIdentity();
    write_jacobian(model, data, pa, pa, J);
  } else {
    const Transform Xb = frame_placement(model, data, id_b_);
    R_b_last_ = Xb.R;
    write_jacobian(model, data, pa, pa - Xb.p, J);
  }
}

void FramePairConstraint::write_jacobian(const Model& model, const Data& data, const Vector3& p_a, const Vector3& d,
                                         Eigen::Ref<MatrixX> J) {
  int row_of[6];
  int r = 0;
  for (int k = 0; k < 6; ++k) row_of[k] = mask_.axis[k] ? r++ : -1;
  if (id_b_ < 0) {
    // B is the world (R_B = I): the rows are entries of A's local-world-aligned Jacobian,
    // column c = [v_c + ω_c × p_A; ω_c] for the dofs supporting A (frame_jacobian()), others 0.
    // One pass over the columns writes every entry once.
    const Index nv = model.nv;
    double scale = 0.0;
    for (Index c = 0; c < nv; ++c) {
      if (!support_a_[static_cast<std::size_t>(c)]) {
        for (int rr = 0; rr < r; ++rr) J(rr, c) = 0.0;
        continue;
      }
      const auto col = data.J.col(c);
      const Vector3 w = col.tail<3>();
      const Vector3 lin = col.head<3>() + w.cross(p_a);
      scale = std::max({scale, lin.cwiseAbs().maxCoeff(), w.cwiseAbs().maxCoeff()});
      for (int k = 0; k < 3; ++k) {
        if (row_of[k] >= 0) J(row_of[k], c) = lin[k];
        if (row_of[k + 3] >= 0) J(row_of[k + 3], c) = w[k];
      }
    }
    drop_roundoff_rows(J.topRows(r), scale);
    return;
  }
  const Matrix3 RbT = R_b_last_.transpose();
  frame_jacobian(model, data, id_a_, ReferenceFrame::LocalWorldAligned, Ja_);
  frame_jacobian(model, data, id_b_, ReferenceFrame::LocalWorldAligned, Jb_);
  for (int k = 0; k < 6; ++k) {
    if (row_of[k] < 0) continue;
    auto row = J.row(row_of[k]);
    const auto Rc = RbT.row(k % 3);
    if (k < 3) {
      // Row c of R_Bᵀ (J_A,v − J_B,v + [d]× J_B,ω).
      const Eigen::RowVector3d t = Rc * skew(d);
      row.noalias() = Rc * Ja_.topRows<3>();
      row.noalias() -= Rc * Jb_.topRows<3>();
      row.noalias() += t * Jb_.bottomRows<3>();
    } else {
      row.noalias() = Rc * Ja_.bottomRows<3>();
      row.noalias() -= Rc * Jb_.bottomRows<3>();
    }
  }
  drop_roundoff_rows(J.topRows(r), std::max(Ja_.cwiseAbs().maxCoeff(), Jb_.cwiseAbs().maxCoeff()) * (1.0 + d.norm()));
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
  Ja_.setZero(6, model.nv);
  Jb_.setZero(6, model.nv);
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
  const FrameMotion A = frame_motion(model, data, id_a_);
  const FrameMotion B = frame_motion(model, data, id_b_);
  frame_jacobian(model, data, id_a_, ReferenceFrame::LocalWorldAligned, Ja_);
  frame_jacobian(model, data, id_b_, ReferenceFrame::LocalWorldAligned, Jb_);
  const Vector3 d = A.p - B.p;
  const double len = std::max(d.norm(), 1e-300);
  const Vector3 n = d / len;
  const Vector3 dd = A.v - B.v;
  // d²/dt² ‖d‖ = nᵀ d̈ + (‖ḋ‖² − (nᵀḋ)²)/‖d‖.
  J.row(0).noalias() = n.transpose() * Ja_.topRows<3>();
  J.row(0).noalias() -= n.transpose() * Jb_.topRows<3>();
  drop_roundoff_rows(J.topRows(1),
                     std::max(Ja_.topRows<3>().cwiseAbs().maxCoeff(), Jb_.topRows<3>().cwiseAbs().maxCoeff()));
  gamma[0] = n.dot(A.a - B.a) + (dd.squaredNorm() - std::pow(n.dot(dd), 2)) / len;
  error[0] = len - distance_;
}

}  // namespace articula
