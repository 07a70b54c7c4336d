// Simulator internals, part 3: joint position limits as exact one-sided stops
// (docs/engine.md, "Joint limits"). A stop is a JointLock at the limit, switched on by a guard
// event with the consistent velocity jump of constraint activation (A. Müller, "Forward
// Dynamics of Variable Topology Mechanisms — The Case of Constraint Activation", the plastic
// impact: J v⁺ = 0, or J v⁺ = −e J v⁻ with restitution), and switched off when its
// multiplier changes sign: the unilateral contact condition λ ≥ 0 (lower stop) / λ ≤ 0
// (upper stop) of a bilateral lock (Pfeiffer & Glocker, "Multibody Dynamics with Unilateral
// Contacts", 1996, §5: a closed contact opens when its force would become tensile).
#include <cmath>
#include <limits>
#include <memory>
#include <sstream>

#include "articula/constraints/joint_lock.hpp"
#include "articula/dynamics/energy.hpp"
#include "engine/simulator_impl.hpp"

namespace articula {

bool has_limit_stop(const Model& m, Index j) {
  const JointType t = m.joint_types[j];
  if (m.nv_joint[j] != 1 || m.nq_joint[j] != 1 || (t != JointType::Revolute && t != JointType::Prismatic)) return false;
  return std::isfinite(m.lower[m.idx_q[j]]) || std::isfinite(m.upper[m.idx_q[j]]);
}

void Simulator::Impl::add_limit_stops() {
  const Model& m = *model;
  ConstraintSet& set = robot.constraints();
  for (Index j = 0; j < m.njoints; ++j) {
    if (!has_limit_stop(m, j)) continue;
    const int iq = m.idx_q[j], iv = m.idx_v[j];
    for (const bool upper : {false, true}) {
      const double value = upper ? m.upper[iq] : m.lower[iq];
      if (!std::isfinite(value)) continue;
      LimitStop stop{"limit." + m.joint_names[j] + (upper ? ".upper" : ".lower"), iq, iv, value, upper, -1};
      if (!set.contains(stop.name))
        set.add(std::make_shared<JointLock>(stop.name, std::vector<std::string>{m.joint_names[j]},
                                            VectorX::Constant(1, value)),
                false);
      const std::size_t k = limits.size();
      limits.push_back(stop);
      // g = q − limit, crossing upwards at the upper stop, downwards at the lower one; held
      // at ∓1 while the stop is engaged (the lock keeps q at the limit to round-off).
      Event e;
      e.name = stop.name;
      e.direction = upper ? 1 : -1;
      e.repeat = true;
      e.guard = [this, k](double, VectorRef q, VectorRef) {
        const LimitStop& s = limits[k];
        if (limit_engaged(s)) return s.upper ? -1.0 : 1.0;
        return q[s.iq] - s.value;
      };
      e.actions = {EventAction::enable(stop.name)};
      add_event(std::move(e));
    }
  }
}

void Simulator::Impl::start_limits(std::vector<int>& firing) {
  const Model& m = *model;
  for (LimitStop& s : limits) {
    s.column = -1;
    for (std::size_t c = 0; c < constraint_names.size(); ++c)
      if (constraint_names[c] == s.name) s.column = static_cast<int>(c);
  }
  for (std::size_t k = 0; k < limits.size(); ++k) {
    const LimitStop& s = limits[k];
    if (s.column < 0 || limit_engaged(s)) continue;
    const double q = state.q[s.iq], v = state.v[s.iv];
    const double past = s.upper ? q - s.value : s.value - q;  // > 0: beyond the stop
    const double tol = 1e-9 * std::max(1.0, std::abs(s.value));
    if (past > 1e-6 * std::max(1.0, std::abs(s.value))) {
      std::ostringstream what;
      what << "joint '" << m.joint_names[static_cast<std::size_t>(m.dof_joint[static_cast<std::size_t>(s.iv)])]
           << "' starts at q = " << q << ", past its " << (s.upper ? "upper" : "lower") << " limit " << s.value
           << " (joint limits are enforced)";
      throw std::invalid_argument(what.str());
    }
    // On the stop (to round-off) and not leaving it: engaged from the start.
    const bool leaving = s.upper ? v < 0 : v > 0;
    if (past >= -tol && !leaving)
      for (std::size_t i = 0; i < events.size(); ++i)
        if (events[i].event.name == s.name) firing.push_back(static_cast<int>(i));
  }
}

bool Simulator::Impl::release_limits(RunResult& result) {
  const auto lambda_all = multipliers();
  std::vector<std::string> released;  // allocates only when a stop lets go
  for (const LimitStop& s : limits) {
    if (!limit_engaged(s)) continue;
    const double lambda = lambda_all[constraint_rows[static_cast<std::size_t>(s.column)]];
    if (s.upper ? lambda > 0.0 : lambda < 0.0) released.push_back(s.name);
  }
  if (released.empty()) return false;
  deactivate_constraints(robot.constraints(), released);
  refresh_active();
  EventRecord record;
  record.time = state.t;
  record.kinetic_before = record.kinetic_after = articula::kinetic_energy(*model, aux, state.q, state.v);
  record.potential = articula::potential_energy(*model, aux, state.q);
  record.v_minus = record.v_plus = state.v;
  for (const auto& name : released) {
    record.names.push_back(name);
    record.actions += (record.actions.empty() ? "" : "; ") + name + ": release (the stop would pull)";
  }
  EventLogRow row{record.time, "", record.actions, record.kinetic_before, record.kinetic_after, record.potential,
                  0.0,         0.0};
  for (std::size_t k = 0; k < released.size(); ++k) row.name += (k ? "+" : "") + released[k];
  for (auto& sink : sinks) sink->event(row);
  for (auto& e : events)
    if (e.event.guard) e.g = e.event.guard(state.t, state.q, state.v);
  arm_leaving(released);
  result.events.push_back(std::move(record));
  return true;
}

void Simulator::Impl::arm_leaving(const std::vector<std::string>& names) {
  constexpr double inside = std::numeric_limits<double>::denorm_min();
  for (const LimitStop& s : limits)
    for (const auto& name : names)
      if (name == s.name)
        for (auto& e : events)
          if (e.event.name == s.name) e.g = s.upper ? std::min(e.g, -inside) : std::max(e.g, inside);
}

}  // namespace articula
