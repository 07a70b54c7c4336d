#include "articula/constraints/constraint_set.hpp"

#include <stdexcept>

#include "articula/common/check.hpp"
#include "articula/constraints/joint_lock.hpp"
#include "articula/dynamics/jacobian.hpp"
#include "articula/dynamics/kinematics.hpp"

namespace articula {

ConstraintSet::ConstraintSet(const Model& model) : model_(&model) { resize(); }

Constraint& ConstraintSet::add(std::shared_ptr<Constraint> constraint, bool enabled) {
  if (!constraint) throw std::invalid_argument("ConstraintSet::add: null constraint");
  if (contains(constraint->name()))
    throw std::invalid_argument("ConstraintSet::add: a constraint named '" + constraint->name() + "' exists already");
  constraint->bind(*model_);
  entries_.push_back({std::move(constraint), enabled, true});
  resize();
  return *entries_.back().constraint;
}

ConstraintSet::Entry& ConstraintSet::entry(const std::string& name, const char* caller) {
  return const_cast<Entry&>(static_cast<const ConstraintSet*>(this)->entry(name, caller));
}

const ConstraintSet::Entry& ConstraintSet::entry(const std::string& name, const char* caller) const {
  for (const auto& e : entries_)
    if (e.constraint->name() == name) return e;
  std::string list;
  for (const auto& e : entries_) list += (list.empty() ? "" : ", ") + e.constraint->name();
  throw std::invalid_argument(std::string("ConstraintSet::") + caller + ": unknown constraint '" + name +
                              "'; registered: " + (list.empty() ? "(none)" : list));
}

void ConstraintSet::remove(const std::string& name) {
  entry(name, "remove");
  std::erase_if(entries_, [&](const Entry& e) { return e.constraint->name() == name; });
  resize();
}

void ConstraintSet::enable(const std::string& name) {
  Entry& e = entry(name, "enable");
  if (!e.enabled) e.needs_reference = true;
  e.enabled = true;
  resize();
}

void ConstraintSet::disable(const std::string& name) {
  entry(name, "disable").enabled = false;
  resize();
}

bool ConstraintSet::is_enabled(const std::string& name) const { return entry(name, "is_enabled").enabled; }

bool ConstraintSet::contains(const std::string& name) const {
  for (const auto& e : entries_)
    if (e.constraint->name() == name) return true;
  return false;
}

Constraint& ConstraintSet::get(const std::string& name) { return *entry(name, "get").constraint; }
const Constraint& ConstraintSet::get(const std::string& name) const { return *entry(name, "get").constraint; }

std::vector<std::string> ConstraintSet::names() const {
  std::vector<std::string> out;
  for (const auto& e : entries_) out.push_back(e.constraint->name());
  return out;
}

std::vector<std::string> ConstraintSet::enabled_names() const {
  std::vector<std::string> out;
  for (const auto& e : entries_)
    if (e.enabled) out.push_back(e.constraint->name());
  return out;
}

std::vector<const Constraint*> ConstraintSet::enabled() const {
  std::vector<const Constraint*> out;
  for (const auto& e : entries_)
    if (e.enabled) out.push_back(e.constraint.get());
  return out;
}

int ConstraintSet::row_offset(const std::string& name) const {
  int row = 0;
  for (const auto& e : entries_) {
    if (e.constraint->name() == name) {
      if (!e.enabled) throw std::invalid_argument("ConstraintSet::row_offset: constraint '" + name + "' is disabled");
      return row;
    }
    if (e.enabled) row += e.constraint->dim();
  }
  entry(name, "row_offset");
  return -1;
}

void ConstraintSet::resize() {
  dim_ = 0;
  int total = 0;
  bool locks = true;
  lock_dofs_.clear();
  for (const auto& e : entries_) {
    total += e.constraint->dim();
    if (!e.enabled) continue;
    dim_ += e.constraint->dim();
    if (const auto* lock = dynamic_cast<const JointLock*>(e.constraint.get()); lock && locks)
      lock_dofs_.insert(lock_dofs_.end(), lock->dofs().begin(), lock->dofs().end());
    else
      locks = false;
  }
  if (!locks || dim_ == 0) lock_dofs_.clear();
  // Sized for all registered constraints, so that enabling one does not reallocate.
  if (J_.rows() < total || J_.cols() != model_->nv) {
    J_.setZero(total, model_->nv);
    gamma_.setZero(total);
    drift_.setZero(total);
    error_.setZero(total);
    scratch_gamma_.setZero(total);
    scratch_error_.setZero(total);
    jv_.setZero(total);
  }
}

// Visits the enabled constraints in row order, capturing a reference where one is due, and
// calls f(constraint, first row, rows); returns the total rows.
template <typename F>
int ConstraintSet::for_each_block(const Model& model, const Data& data, VectorRef q, F&& f) {
  int row = 0;
  for (auto& e : entries_) {
    if (!e.enabled) continue;
    Constraint& c = *e.constraint;
    if (e.needs_reference || !c.has_reference()) {
      c.capture_reference(model, data, q);
      e.needs_reference = false;
    }
    f(c, row, c.dim());
    row += c.dim();
  }
  return row;
}

bool ConstraintSet::references_due() const {
  for (const auto& e : entries_)
    if (e.enabled && (e.needs_reference || !e.constraint->has_reference())) return true;
  return false;
}

void ConstraintSet::capture_references(const Model& model, const Data& data, VectorRef q) {
  for_each_block(model, data, q, [](const Constraint&, int, int) {});
}

bool ConstraintSet::kinematics_pass(const Model& model, Data& data, VectorRef q, VectorRef v, bool jacobian_only) {
  bool kinematics = false, placements = jacobian_only;
  for (const auto& e : entries_)
    if (e.enabled && e.constraint->uses_kinematics()) {
      kinematics = true;
      placements = placements && e.constraint->jacobian_from_placements();
    }
  if (!kinematics) return false;
  if (placements)
    forward_kinematics(model, data, q);
  else
    forward_kinematics_bias(model, data, q, v);
  update_joint_jacobians(model, data);
  return true;
}

bool ConstraintSet::compute_rows(const Model& model, Data& data, VectorRef q, VectorRef v) {
  const bool kinematics = kinematics_pass(model, data, q, v, false);
  int row = for_each_block(model, data, q, [&](Constraint& c, int r, int m) {
    c.compute(model, data, q, v, J_.middleRows(r, m), drift_.segment(r, m), error_.segment(r, m));
    gamma_.segment(r, m) = drift_.segment(r, m);
  });
  // Baumgarte: γ_stab = γ + kd J v + kp e, with J v for all rows in one product.
  auto Jv = jv_.head(row);
  Jv.noalias() = J_.topRows(row) * v;
  row = 0;
  for (auto& e : entries_) {
    if (!e.enabled) continue;
    const Constraint& c = *e.constraint;
    const int m = c.dim();
    if (c.baumgarte_frequency() > 0.0)
      gamma_.segment(row, m) += c.kd() * Jv.segment(row, m) + c.kp() * error_.segment(row, m);
    row += m;
  }
  return kinematics;
}

bool ConstraintSet::compute_jacobian(const Model& model, Data& data, VectorRef q, VectorRef v) {
  const bool kinematics = kinematics_pass(model, data, q, v, true);
  for_each_block(model, data, q, [&](Constraint& c, int r, int m) {
    c.jacobian(model, data, q, v, J_.middleRows(r, m), scratch_gamma_.segment(r, m), scratch_error_.segment(r, m));
  });
  return kinematics;
}

VectorX ConstraintSet::rows_of(const std::string& name, VectorRef stacked) const {
  const int row = row_offset(name);
  ARTICULA_CHECK(stacked.size() >= dim_,
                 "rows_of('" << name << "'): the vector has " << stacked.size() << " entries, the rows are " << dim_);
  return stacked.segment(row, get(name).dim());
}

}  // namespace articula
