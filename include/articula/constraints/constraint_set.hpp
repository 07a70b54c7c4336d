#pragma once
/// The constraints registered on a robot, by name: add, remove, enable, disable, look up,
/// list; assembles the rows of the enabled ones for the solvers. The multipliers are results of
/// a solve, in its workspace (ConstrainedWorkspace::lambda), not state of the set.
#include <memory>
#include <string>
#include <vector>

#include "articula/constraints/constraint.hpp"

namespace articula {

class ConstraintSet {
 public:
  /// The model must outlive the set.
  explicit ConstraintSet(const Model& model);

  /// Registers a constraint (bound to the model now: a missing frame/joint throws here).
  /// Throws std::invalid_argument for a duplicate name.
  Constraint& add(std::shared_ptr<Constraint> constraint, bool enabled = true);
  template <typename T, typename... Args>
  T& emplace(Args&&... args) {
    auto c = std::make_shared<T>(std::forward<Args>(args)...);
    T& ref = *c;
    add(std::move(c));
    return ref;
  }
  /// Unknown names throw std::invalid_argument listing the registered names.
  void remove(const std::string& name);
  /// Enabling takes the reference (pose, joint positions) at the next compute_rows().
  void enable(const std::string& name);
  void disable(const std::string& name);
  bool is_enabled(const std::string& name) const;
  bool contains(const std::string& name) const;
  Constraint& get(const std::string& name);
  const Constraint& get(const std::string& name) const;
  std::vector<std::string> names() const;
  std::vector<std::string> enabled_names() const;
  /// Enabled constraints, in registration order (the row order).
  std::vector<const Constraint*> enabled() const;

  /// Total rows m of the enabled constraints.
  int dim() const { return dim_; }
  /// First row of an enabled constraint in the stacked rows.
  int row_offset(const std::string& name) const;

  /// The stacked rows of the enabled constraints at (q, v): J (m × nv), γ (m) with Baumgarte
  /// terms added (γ_stab = γ + kd J v + kp e), raw drift and position errors. When an enabled
  /// constraint uses kinematics (all but joint locks), first forward_kinematics_bias(q, v)
  /// (placements, velocities, accelerations at v̇ = 0) and the joint Jacobians data.J, and
  /// returns true: the solvers then reuse them (crba_from_kinematics, bias_from_kinematics).
  /// No allocation once the set is sized (built-in constraints).
  bool compute_rows(const Model& model, Data& data, VectorRef q, VectorRef v);
  /// J only, for a velocity jump (which needs no γ): the kinematics pass is placements-only
  /// (forward_kinematics(q) + update_joint_jacobians()) when every enabled constraint that uses
  /// kinematics has Constraint::jacobian_from_placements(), else the pass of compute_rows().
  /// References are captured as by compute_rows(). γ, the drift and the errors keep the
  /// values of the last compute_rows(). Returns true when a kinematics pass ran (data.oMi and data.J then hold q's).
  bool compute_jacobian(const Model& model, Data& data, VectorRef q, VectorRef v);
  /// True when an enabled constraint's reference is due: it was enabled since its last capture,
  /// or it has none (compute_rows() and compute_jacobian() take them).
  bool references_due() const;
  /// Takes the due references now, at q: the values compute_rows() would take there. Reads
  /// only data's placements (forward_kinematics(q)), and q for joint locks.
  void capture_references(const Model& model, const Data& data, VectorRef q);
  /// The stacked rows of the last compute_rows() (J also of the last compute_jacobian()).
  auto J() const { return J_.topRows(dim_); }
  auto gamma() const { return gamma_.head(dim_); }
  auto drift() const { return drift_.head(dim_); }
  auto error() const { return error_.head(dim_); }
  /// When every enabled constraint is a JointLock: the locked dof of each row, in row order
  /// (the rows are unit rows e_dofᵀ); empty otherwise. Lets the solvers use hybrid dynamics.
  const std::vector<int>& lock_dofs() const { return lock_dofs_; }
  /// One enabled constraint's entries of a vector stacked in row order, such as the multipliers
  /// of a solve (`set.rows_of("tip", ws.lambda)`), gamma() or error(). Throws
  /// std::invalid_argument for an unknown or disabled name, or a vector shorter than dim().
  VectorX rows_of(const std::string& name, VectorRef stacked) const;

 private:
  struct Entry {
    std::shared_ptr<Constraint> constraint;
    bool enabled = true;
    bool needs_reference = true;
  };
  Entry& entry(const std::string& name, const char* caller);
  const Entry& entry(const std::string& name, const char* caller) const;
  void resize();
  // The pass the enabled constraints read: none (joint locks only), placements only (for J
  // alone, when every such constraint has jacobian_from_placements()), else
  // forward_kinematics_bias(q, v); then the joint Jacobians. Returns whether a pass ran.
  bool kinematics_pass(const Model& model, Data& data, VectorRef q, VectorRef v, bool jacobian_only);
  template <typename F>
  int for_each_block(const Model& model, const Data& data, VectorRef q, F&& f);

  const Model* model_;
  std::vector<Entry> entries_;
  int dim_ = 0;
  MatrixX J_;
  VectorX gamma_, drift_, error_, jv_;
  VectorX scratch_gamma_, scratch_error_;  // compute_jacobian(): γ and e of constraints without a J-only path
  std::vector<int> lock_dofs_;
};

}  // namespace articula
