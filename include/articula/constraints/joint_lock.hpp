#pragma once
/// Joints held at a position (a brake): rows are the selection of the locked dofs.
#include <optional>
#include <vector>

#include "articula/constraints/constraint.hpp"

namespace articula {

/// Locks one or more joints (all dofs of multi-dof joints). Rows: J = selection of the
/// locked dofs (unit rows), γ = 0, e = q ⊖ q_ref per joint (manifold difference).
/// The reference is the joints' configuration when enabled, or the one given.
class JointLock : public Constraint {
 public:
  /// positions: optional q values of the locked joints, concatenated in the given order
  /// (each joint's nq values). Its size is checked at bind().
  JointLock(std::string name, std::vector<std::string> joints, std::optional<VectorX> positions = std::nullopt);
  /// Dimension before binding is unknown for multi-dof joints: JointLock takes it from the model.
  JointLock(const Model& model, std::string name, std::vector<std::string> joints,
            std::optional<VectorX> positions = std::nullopt);
  void bind(const Model& model) override;
  bool uses_kinematics() const override { return false; }
  void capture_reference(const Model& model, const Data& data, VectorRef q) override;
  void compute(const Model& model, const Data& data, VectorRef q, VectorRef v, Eigen::Ref<MatrixX> J,
               Eigen::Ref<VectorX> gamma, Eigen::Ref<VectorX> error) override;
  /// The locked dofs (v indices), in row order. Valid after bind().
  const std::vector<int>& dofs() const { return dofs_; }
  const std::vector<std::string>& joints() const { return joints_; }
  /// The locked joints' reference coordinates, concatenated in the joints' order (captured
  /// when enabled, or given); zero before either.
  const VectorX& reference() const { return reference_; }

 private:
  std::vector<std::string> joints_;
  std::vector<Index> joint_ids_;
  std::vector<int> dofs_;
  bool user_positions_ = false;
  VectorX reference_;  // concatenated q of the locked joints
};

/// Number of dofs of the named joints in a model (helper for JointLock's dimension).
int locked_dimension(const Model& model, const std::vector<std::string>& joints);

}  // namespace articula
