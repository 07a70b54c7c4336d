#include "articula/constraints/joint_lock.hpp"

#include <stdexcept>

namespace articula {

int locked_dimension(const Model& model, const std::vector<std::string>& joints) {
  int n = 0;
  for (const auto& j : joints) n += model.nv_joint[model.joint_id(j)];
  return n;
}

namespace {
int checked_dimension(const Model& model, const std::string& name, const std::vector<std::string>& joints) {
  try {
    return locked_dimension(model, joints);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument("JointLock '" + name + "': " + e.what());
  }
}
}  // namespace

JointLock::JointLock(std::string name, std::vector<std::string> joints, std::optional<VectorX> positions)
    : Constraint(std::move(name), static_cast<int>(joints.size()), true), joints_(std::move(joints)) {
  if (joints_.empty()) throw std::invalid_argument("JointLock '" + this->name() + "': no joint given");
  if (positions) {
    reference_ = *positions;
    user_positions_ = true;
    set_has_reference(true);
  }
}

JointLock::JointLock(const Model& model, std::string name, std::vector<std::string> joints,
                     std::optional<VectorX> positions)
    : Constraint(name, checked_dimension(model, name, joints), true), joints_(std::move(joints)) {
  if (positions) {
    reference_ = *positions;
    user_positions_ = true;
    set_has_reference(true);
  }
}

void JointLock::bind(const Model& model) {
  joint_ids_.clear();
  dofs_.clear();
  int nq = 0;
  for (const auto& j : joints_) {
    if (!model.has_joint(j)) {
      try {
        model.joint_id(j);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("JointLock '" + name() + "': " + e.what());
      }
    }
    const Index id = model.joint_id(j);
    for (Index other : joint_ids_)
      if (other == id) throw std::invalid_argument("JointLock '" + name() + "': joint '" + j + "' listed twice");
    joint_ids_.push_back(id);
    for (int k = 0; k < model.nv_joint[id]; ++k) dofs_.push_back(model.idx_v[id] + k);
    nq += model.nq_joint[id];
  }
  if (static_cast<int>(dofs_.size()) != dim())
    throw std::invalid_argument("JointLock '" + name() + "': the joints have " + std::to_string(dofs_.size()) +
                                " dofs but the lock was made with dimension " + std::to_string(dim()) +
                                " (use the constructor taking the model for multi-dof joints)");
  if (user_positions_ && reference_.size() != nq)
    throw std::invalid_argument("JointLock '" + name() + "': " + std::to_string(reference_.size()) +
                                " positions given, the joints have " + std::to_string(nq) + " coordinates");
  if (!user_positions_) reference_.setZero(nq);
}

void JointLock::capture_reference(const Model& model, const Data&, VectorRef q) {
  if (user_positions_) return;
  int k = 0;
  for (Index id : joint_ids_) {
    reference_.segment(k, model.nq_joint[id]) = q.segment(model.idx_q[id], model.nq_joint[id]);
    k += model.nq_joint[id];
  }
  set_has_reference(true);
}

void JointLock::compute(const Model& model, const Data&, VectorRef q, VectorRef, Eigen::Ref<MatrixX> J,
                        Eigen::Ref<VectorX> gamma, Eigen::Ref<VectorX> error) {
  // Explicit loops: Eigen's setZero() on this small strided block was a visible cost.
  for (Eigen::Index c = 0; c < J.cols(); ++c)
    for (Eigen::Index r = 0; r < J.rows(); ++r) J(r, c) = 0.0;
  for (Eigen::Index r = 0; r < gamma.size(); ++r) gamma[r] = 0.0;
  int row = 0, kq = 0;
  for (Index id : joint_ids_) {
    const int nv = model.nv_joint[id];
    for (int k = 0; k < nv; ++k) J(row + k, model.idx_v[id] + k) = 1.0;
    joint_difference(model.joint_types[id], reference_.data() + kq, q.data() + model.idx_q[id], error.data() + row);
    row += nv;
    kq += model.nq_joint[id];
  }
}

}  // namespace articula
