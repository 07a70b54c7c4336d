#include "articula/constraints/callback_constraint.hpp"

#include <stdexcept>

namespace articula {

CallbackConstraint::CallbackConstraint(std::string name, int dim, JacobianFn jacobian, DriftFn drift, ErrorFn error)
    : Constraint(std::move(name), dim, static_cast<bool>(error)),
      jacobian_(std::move(jacobian)),
      drift_(std::move(drift)),
      error_(std::move(error)) {
  if (!jacobian_ || !drift_)
    throw std::invalid_argument("CallbackConstraint '" + this->name() +
                                "': the Jacobian and drift callbacks are required");
  set_has_reference(true);
}

void CallbackConstraint::bind(const Model&) {}

void CallbackConstraint::compute(const Model& model, const Data& data, VectorRef q, VectorRef v, Eigen::Ref<MatrixX> J,
                                 Eigen::Ref<VectorX> gamma, Eigen::Ref<VectorX> error) {
  auto shape = [&](const char* what, Eigen::Index rows, Eigen::Index cols, Eigen::Index want_rows,
                   Eigen::Index want_cols) {
    if (rows != want_rows || cols != want_cols)
      throw std::runtime_error("CallbackConstraint '" + name() + "': " + what + " callback returned " +
                               std::to_string(rows) + "×" + std::to_string(cols) + ", expected " +
                               std::to_string(want_rows) + "×" + std::to_string(want_cols));
  };
  auto finite = [&](const char* what, bool ok) {
    if (!ok)
      throw std::runtime_error("CallbackConstraint '" + name() + "': " + what +
                               " callback returned a non-finite value");
  };
  const MatrixX Jc = jacobian_(model, data, q);
  shape("Jacobian", Jc.rows(), Jc.cols(), dim(), model.nv);
  finite("Jacobian", Jc.allFinite());
  const VectorX g = drift_(model, data, q, v);
  shape("drift", g.rows(), g.cols(), dim(), 1);
  finite("drift", g.allFinite());
  J = Jc;
  gamma = g;
  if (error_) {
    const VectorX e = error_(model, data, q);
    shape("error", e.rows(), e.cols(), dim(), 1);
    finite("error", e.allFinite());
    error = e;
  } else {
    error.setZero();
  }
}

}  // namespace articula
