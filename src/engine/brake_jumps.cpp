// Simulator internals, part 5: brakes at jumps and after an instant (docs/brakes.md,
// "Slip-through", "Energy"). A friction brake transmits a bounded torque, hence no impulse:
// the stuck ones leave the active set of another constraint's jump and re-stick after it if
// their joint is still at rest (a bounded force does no work over a zero-duration impact;
// Pfeiffer & Glocker 1996, §5: friction impulses are bounded by the normal ones, zero here).
// The Carnot loss of a jump is shared out to the brake locks by their impulse.
#include <algorithm>
#include <cmath>

#include "articula/dynamics/energy.hpp"
#include "engine/simulator_impl.hpp"

namespace articula {
namespace {

double sign_of(double x) { return x > 0 ? 1.0 : -1.0; }

}  // namespace

std::vector<std::size_t> Simulator::Impl::brakes_slip_through(std::vector<std::string>& enables) {
  const auto& brakes = robot.brakes();
  // Bounded-torque locks: a friction brake's, and a brake's lock while the drive holds with it
  // (its torque is bounded by the effort limit: brakes.cpp).
  auto friction_lock = [&](const std::string& name) {
    for (std::size_t k = 0; k < brakes.size(); ++k)
      if (brakes[k].name == name) return brakes[k].kind == BrakeKind::Friction || drive_holds(brake_run[k]);
    return false;
  };
  bool impact = false;
  for (const auto& name : enables) impact = impact || !friction_lock(name);
  std::vector<std::size_t> through;
  if (!impact) return through;
  ConstraintSet& set = robot.constraints();
  for (std::size_t k = 0; k < brakes.size(); ++k) {
    const bool stuck = brakes[k].kind == BrakeKind::Friction && brake_run[k].state == BrakeState::Stuck;
    if (!stuck && !drive_holds(brake_run[k])) continue;
    through.push_back(k);
    enables.erase(std::remove(enables.begin(), enables.end(), brakes[k].name), enables.end());
    if (set.is_enabled(brakes[k].name)) deactivate_constraints(set, {brakes[k].name});
  }
  return through;
}

std::vector<std::string> Simulator::Impl::brakes_after_jump(const std::vector<std::size_t>& through,
                                                            EventRecord& record) {
  std::vector<std::string> restick;
  const double scale = 1.0 + (record.v_minus.size() ? record.v_minus.cwiseAbs().maxCoeff() : 0.0);
  for (const std::size_t k : through) {
    BrakeRun& r = brake_run[k];
    const std::string& name = robot.brakes()[k].name;
    const double qd = state.v[r.iv];
    if (std::abs(qd) <= 1e-12 * scale) {
      restick.push_back(name);  // still at rest: sticks again (or the drive holds again)
    } else if (drive_holds(r)) {
      // A holding drive pushed through: it decelerates the joint at its effort limit.
      const auto m = static_cast<std::size_t>(r.motor);
      drive[m] = Drive::Decelerate;
      drive_sign[m] = sign_of(qd);
      const std::string drive_name = "drive." + robot.motors()[m].name;
      record.names.push_back(drive_name + ".slip_through");
      record.actions += "; " + drive_name + ": pushed through the impact (decelerates)";
    } else {
      r.state = BrakeState::Slipping;
      r.sign = sign_of(qd);
      record.names.push_back(name + ".slip_through");
      record.actions += "; " + name + ": slip through the impact";
    }
  }
  return restick;
}

void Simulator::Impl::brake_jump_energy(const JumpResult& jump, VectorRef v_minus, VectorRef v_plus) {
  // M Δv = −Jᵀ Λ (solvers/activation.hpp), so T⁻ − T⁺ = −½ (v⁺ + v⁻)ᵀ M Δv = ½ Σᵢ Λᵢ Jᵢ (v⁺ + v⁻):
  // each row's share of the Carnot loss; a lock row's is ½ Λ (q̇⁺ + q̇⁻) of its dof.
  for (std::size_t c = 0; c < jump.names.size(); ++c)
    for (std::size_t k = 0; k < brake_run.size(); ++k)
      if (jump.names[c] == robot.brakes()[k].name && c < jump.Lambda_per.size() && jump.Lambda_per[c].size() == 1) {
        const int iv = brake_run[k].iv;
        state.brake_energy[static_cast<Eigen::Index>(k)] += 0.5 * jump.Lambda_per[c][0] * (v_plus[iv] + v_minus[iv]);
      }
}

bool Simulator::Impl::release_brakes(RunResult& result) {
  const auto& brakes = robot.brakes();
  const auto lambda = multipliers();
  std::vector<std::string> names;  // allocates only when a brake lets go
  std::vector<std::string> released;
  for (std::size_t k = 0; k < brakes.size(); ++k) {
    BrakeRun& r = brake_run[k];
    if (!brake_locked(r)) continue;
    const int row = constraint_rows[static_cast<std::size_t>(r.column)];
    if (row >= lambda.size()) continue;
    const double l = lambda[row];
    if (r.state == BrakeState::Stuck && std::abs(l) > brakes[k].static_torque) {
      released.push_back(brakes[k].name);
      names.push_back(brakes[k].name + ".release");
      r.state = BrakeState::Slipping;
      r.sign = -sign_of(l);
    } else if (drive_holds(r) && std::abs(l) > robot.motors()[static_cast<std::size_t>(r.motor)].effort_limit) {
      // The hold needs more than the drive's effort limit at once: it decelerates (brakes.cpp).
      const auto m = static_cast<std::size_t>(r.motor);
      released.push_back(brakes[k].name);
      names.push_back("drive." + robot.motors()[m].name + ".saturate");
      drive[m] = Drive::Decelerate;
      drive_sign[m] = -sign_of(l);
    } else if (r.state == BrakeState::Locked && !r.overloaded && std::abs(l) > brakes[k].torque) {
      r.overloaded = true;
      names.push_back(brakes[k].name + ".overload");
    }
  }
  if (names.empty()) return false;
  if (!released.empty()) deactivate_constraints(robot.constraints(), released);
  refresh_active();
  EventRecord record;
  record.time = state.t;
  record.kinetic_before = record.kinetic_after = articula::kinetic_energy(*model, aux, state.q, state.v);
  record.potential = articula::potential_energy(*model, aux, state.q);
  record.v_minus = record.v_plus = state.v;
  record.names = names;
  for (const auto& name : names)
    record.actions += (record.actions.empty() ? "" : "; ") + name +
                      (name.ends_with(".release")    ? " (the hold would exceed static_torque)"
                       : name.ends_with(".saturate") ? " (the hold would exceed the drive's effort_limit)"
                                                     : " (the holding torque is exceeded; the pin stays locked)");
  EventLogRow row{record.time, "", record.actions, record.kinetic_before, record.kinetic_after, record.potential,
                  0.0,         0.0};
  for (std::size_t k = 0; k < names.size(); ++k) row.name += (k ? "+" : "") + names[k];
  for (auto& sink : sinks) sink->event(row);
  for (auto& e : events)
    if (e.event.guard) e.g = e.event.guard(state.t, state.q, state.v);
  result.events.push_back(std::move(record));
  return !released.empty();
}

}  // namespace articula
