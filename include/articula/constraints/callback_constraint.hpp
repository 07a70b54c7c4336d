#pragma once
/// A constraint given by user callbacks.
#include <functional>

#include "articula/constraints/constraint.hpp"

namespace articula {

/// The user supplies J(model, data, q) (m × nv) and γ(model, data, q, v) (m) with
/// J v̇ + γ = 0, and optionally the position error e(model, data, q) (m), which makes the
/// constraint holonomic and turns Baumgarte stabilization on by default. When the callbacks
/// run, data holds forward_kinematics(q, v, 0) and the joint Jacobians (update_joint_jacobians),
/// so frame_jacobian / frame_acceleration can be called directly.
/// A callback returning the wrong shape or a non-finite number raises std::runtime_error
/// naming the constraint.
class CallbackConstraint : public Constraint {
 public:
  using JacobianFn = std::function<MatrixX(const Model&, const Data&, VectorRef q)>;
  using DriftFn = std::function<VectorX(const Model&, const Data&, VectorRef q, VectorRef v)>;
  using ErrorFn = std::function<VectorX(const Model&, const Data&, VectorRef q)>;

  CallbackConstraint(std::string name, int dim, JacobianFn jacobian, DriftFn drift, ErrorFn error = nullptr);
  void bind(const Model& model) override;
  void compute(const Model& model, const Data& data, VectorRef q, VectorRef v, Eigen::Ref<MatrixX> J,
               Eigen::Ref<VectorX> gamma, Eigen::Ref<VectorX> error) override;

 private:
  JacobianFn jacobian_;
  DriftFn drift_;
  ErrorFn error_;
};

}  // namespace articula
