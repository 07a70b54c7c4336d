#pragma once
/// A kinematic constraint: something that produces rows. A constraint of dimension m
/// gives, at (q, v), its Jacobian J (m × nv), its drift γ with J v̇ + γ = 0, and its
/// position error e (holonomic rows; zero for velocity-level rows). Solvers consume rows.
///
/// Baumgarte stabilization (Baumgarte 1972, "Stabilization of constraints and integrals
/// of motion in dynamical systems"): the solver enforces J v̇ + γ + kd J v + kp e = 0, so
/// the error obeys ë + kd ė + kp e = 0. Gains from a frequency f: ω = 2πf, kp = ω², kd = 2ω
/// (critically damped); f = 0 turns stabilization off.
#include <string>

#include "articula/model/data.hpp"

namespace articula {

class Constraint {
 public:
  /// Default stabilization frequency for constraints with position-level rows.
  static constexpr double kDefaultBaumgarteHz = 10.0;

  Constraint(std::string name, int dim, bool holonomic);
  virtual ~Constraint() = default;
  Constraint(const Constraint&) = delete;
  Constraint& operator=(const Constraint&) = delete;

  const std::string& name() const { return name_; }
  /// Number of rows m (fixed when the constraint is made).
  int dim() const { return dim_; }
  /// True if every row is the derivative of a position-level constraint.
  bool holonomic() const { return holonomic_; }

  /// Sets the Baumgarte frequency f ≥ 0 in Hz (0 = off). Throws std::invalid_argument otherwise.
  void set_baumgarte_frequency(double hz);
  double baumgarte_frequency() const { return baumgarte_hz_; }
  double kp() const;
  double kd() const;

  /// Checks that the frames / joints it names exist in the model and sizes its scratch.
  /// Throws std::invalid_argument naming the constraint and the missing element.
  virtual void bind(const Model& model) = 0;
  /// Takes the reference (e.g. the frame's current pose) from the current kinematics
  /// (data.oMi valid for q). Called when the constraint is enabled, unless the user gave one.
  virtual void capture_reference(const Model& model, const Data& data, VectorRef q);
  /// True once a reference is set (captured or given).
  bool has_reference() const { return has_reference_; }

  /// False if compute() and capture_reference() never read data (joint locks): a set with
  /// only such constraints skips the kinematics pass.
  virtual bool uses_kinematics() const { return true; }

  /// Writes J (m × nv), γ (m) and e (m). Preconditions: forward_kinematics_bias(q, v) and
  /// update_joint_jacobians() on data for this (q, v); bind() called. No allocation.
  virtual void compute(const Model& model, const Data& data, VectorRef q, VectorRef v, Eigen::Ref<MatrixX> J,
                       Eigen::Ref<VectorX> gamma, Eigen::Ref<VectorX> error) = 0;
  /// True if jacobian() needs only the placements (forward_kinematics(q) and
  /// update_joint_jacobians()), not the velocity-level pass compute() reads: a set whose
  /// enabled constraints all say so computes its Jacobian at a velocity jump without that pass
  /// (ConstraintSet::compute_jacobian()).
  virtual bool jacobian_from_placements() const { return false; }
  /// Writes J only; gamma and error are scratch (m) whose contents are unspecified afterwards.
  /// Preconditions: those of compute(), or only forward_kinematics(q) + update_joint_jacobians()
  /// when jacobian_from_placements(). This default runs compute().
  virtual void jacobian(const Model& model, const Data& data, VectorRef q, VectorRef v, Eigen::Ref<MatrixX> J,
                        Eigen::Ref<VectorX> gamma, Eigen::Ref<VectorX> error) {
    compute(model, data, q, v, J, gamma, error);
  }

 protected:
  /// Rows whose entries are all round-off of `scale` (|J_ij| ≤ 1e-13 · scale) are made exactly
  /// zero: a row that is structurally zero (an axis the mechanism cannot move along) then reads
  /// as a dependent row to the solvers' rank tests instead of a tiny independent one.
  static void drop_roundoff_rows(Eigen::Ref<MatrixX> J, double scale);
  void set_has_reference(bool value) { has_reference_ = value; }
  void set_default_baumgarte(double hz) { baumgarte_hz_ = hz; }

 private:
  std::string name_;
  int dim_;
  bool holonomic_;
  bool has_reference_ = false;
  double baumgarte_hz_ = 0.0;
};

/// Which of the six axes [x y z | rx ry rz] a frame constraint holds.
struct AxisMask {
  bool axis[6] = {true, true, true, true, true, true};
  static AxisMask weld() { return {}; }
  static AxisMask point() { return {{true, true, true, false, false, false}}; }
  static AxisMask orientation() { return {{false, false, false, true, true, true}}; }
  /// From a string of axis names such as "xyz", "z", "xyzrxryrz" or the words "weld"/"6d", "point"/"3d".
  /// Throws std::invalid_argument for anything else.
  static AxisMask parse(const std::string& text);
  int count() const;
  std::string to_string() const;
};

}  // namespace articula
