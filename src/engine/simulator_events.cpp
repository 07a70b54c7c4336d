// Simulator internals, part 3: guard location and event application (docs/engine.md, "Events").
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "articula/constraints/frame_constraint.hpp"
#include "articula/dynamics/energy.hpp"
#include "engine/simulator_impl.hpp"

namespace articula {
namespace {

bool crosses(double g0, double g1, int direction) {
  const bool rising = g0 < 0 && g1 >= 0;
  const bool falling = g0 > 0 && g1 <= 0;
  return direction > 0 ? rising : direction < 0 ? falling : (rising || falling);
}

}  // namespace

// Bisection on the step size τ ∈ (0, h]: the state at t0 + τ is recomputed from the state at
// the step's start with one fixed step of size τ (RK4 for Dormand–Prince), until the bracket
// is narrower than options.event_tolerance. The state is left just after the earliest crossing.
bool Simulator::Impl::locate_guards(double t0, double h, RunResult& result) {
  const SimulationOptions& o = options;
  const FixedStepMethod method = fixed_method(o.integrator);
  auto restep = [&](double tau) {
    qa = q0;
    va = v0;
    t_eval = t0;
    reuse_first = false;
    result.evaluations += method == FixedStepMethod::RK4 ? 4 : 1;
    return fixed_step(*model, method, f, tau, qa, va, fws);
  };
  bool any = false;
  for (EventState& e : events) {
    if (!e.event.guard || e.done) continue;
    e.g_end = e.event.guard(state.t, state.q, state.v);
    any = any || crosses(e.g, e.g_end, e.event.direction);
  }
  if (!any) {  // the common case: no allocation
    for (EventState& e : events)
      if (e.event.guard && !e.done) e.g = e.g_end;
    return false;
  }
  std::vector<int> crossing;
  for (std::size_t i = 0; i < events.size(); ++i)
    if (events[i].event.guard && !events[i].done && crosses(events[i].g, events[i].g_end, events[i].event.direction))
      crossing.push_back(static_cast<int>(i));
  double best = h;
  std::vector<double> located(events.size(), h);
  for (int i : crossing) {
    EventState& e = events[static_cast<std::size_t>(i)];
    double lo = 0.0, hi = h;
    while (hi - lo > o.event_tolerance) {
      const double mid = 0.5 * (lo + hi);
      if (!restep(mid)) return false;
      const double g = e.event.guard(t0 + mid, qa, va);
      if (crosses(e.g, g, e.event.direction))
        hi = mid;
      else
        lo = mid;
    }
    located[static_cast<std::size_t>(i)] = hi;
    best = std::min(best, hi);
  }
  if (best < h) {
    restep(best);
    state.q = qa;
    state.v = va;
    state.t = t0 + best;
  }
  std::vector<int> firing;
  for (int i : crossing)
    if (located[static_cast<std::size_t>(i)] <= best + o.event_tolerance) firing.push_back(i);
  // Guards that did not fire continue from the new state.
  for (std::size_t i = 0; i < events.size(); ++i)
    if (events[i].event.guard && std::find(firing.begin(), firing.end(), static_cast<int>(i)) == firing.end())
      events[i].g = events[i].event.guard(state.t, state.q, state.v);
  pending = std::move(firing);
  return true;
}

void Simulator::Impl::apply_events(const std::vector<int>& firing, RunResult& result, bool& stop) {
  const Model& m = *model;
  ConstraintSet& set = robot.constraints();
  EventRecord record;
  record.time = state.t;
  record.kinetic_before = articula::kinetic_energy(m, aux, state.q, state.v);
  record.potential = articula::potential_energy(m, aux, state.q);
  record.v_minus = state.v;
  std::vector<std::string> enables;
  JumpForm form = JumpForm::None;
  bool first_enable = true, naive = false, bounced = false;
  std::string described;
  // Order (docs/engine.md): disables, command changes, then all enables in one jump, then stop.
  for (const int i : firing) {
    const Event& e = events[static_cast<std::size_t>(i)].event;
    record.names.push_back(e.name);
    for (const EventAction& a : e.actions) described += (described.empty() ? "" : "; ") + e.name + ": " + a.describe();
  }
  // Brakes first (brakes.cpp): stop signals and brake switches; their locks join the enables.
  brake_actions(firing, enables);
  const bool brake_enables = !enables.empty();
  for (const int i : firing)
    for (const EventAction& a : events[static_cast<std::size_t>(i)].event.actions)
      if (a.kind == EventAction::Kind::Disable && set.is_enabled(a.target)) deactivate_constraints(set, {a.target});
  for (const int i : firing)
    for (const EventAction& a : events[static_cast<std::size_t>(i)].event.actions)
      if (a.kind == EventAction::Kind::SetCommand) state.u[robot.motor_index(a.target)] = a.value;
  for (const int i : firing)
    for (const EventAction& a : events[static_cast<std::size_t>(i)].event.actions) {
      if (a.kind == EventAction::Kind::Enable) {
        if (std::find(enables.begin(), enables.end(), a.target) == enables.end()) enables.push_back(a.target);
        if (first_enable) form = a.jump;
        first_enable = false;
        naive = naive || a.jump == JumpForm::Naive;
      }
      if (a.kind == EventAction::Kind::Stop) stop = true;
    }
  if (naive) form = JumpForm::Naive;
  if (brake_enables && first_enable) form = JumpForm::Auto;  // brake locks alone: the consistent jump
  record.actions = described;
  // Stuck friction brakes carry no impulse: out of the jump's active set (brakes.cpp).
  const std::vector<std::size_t> through =
      !enables.empty() && form != JumpForm::None ? brakes_slip_through(enables) : std::vector<std::size_t>{};
  if (!enables.empty()) {
    if (form == JumpForm::None) {
      for (const auto& name : enables) set.enable(name);
    } else {
      JumpOptions jump_options;
      jump_options.form = form;
      // Limit stops alone (joint_limits.cpp) may bounce: J v⁺ = −e J v⁻, then they let go.
      // Every impact slower than limit_bounce_velocity: plastic.
      bool stops_only = true, fast = false;
      for (const auto& name : enables) {
        bool stop_name = false;
        for (const LimitStop& s : limits)
          if (s.name == name) {
            stop_name = true;
            fast = fast || std::abs(state.v[s.iv]) >= options.limit_bounce_velocity;
          }
        stops_only = stops_only && stop_name;
      }
      bounced = stops_only && fast && options.limit_restitution > 0.0;
      if (bounced) jump_options.restitution = options.limit_restitution;
      const JumpResult jump = activate_constraints(m, data, set, enables, state.q, state.v, jump_options);
      record.jumped = true;
      record.form = jump.form;
      record.jump_status = jump.status;
      record.momentum_residual = jump.momentum_residual;
      record.constraint_residual = jump.constraint_residual;
      if (!jump.ok()) {
        failure = Failure::Solver;
        failure_message = "velocity jump " + to_string(jump.status) + " enabling " + enables.front() +
                          (jump.message.empty() ? "" : ": " + jump.message);
      } else {
        brake_jump_energy(jump, record.v_minus, jump.v_plus);
        state.v = jump.v_plus;
        if (bounced) deactivate_constraints(set, enables);  // the stops let go: the joints bounce off
        const std::vector<std::string> restick = brakes_after_jump(through, record);
        if (!restick.empty()) {
          const VectorX v_mid = state.v;
          const JumpResult again = activate_constraints(m, data, set, restick, state.q, state.v, JumpOptions{});
          if (!again.ok()) {
            failure = Failure::Solver;
            failure_message = "velocity jump " + to_string(again.status) + " re-sticking " + restick.front();
          } else {
            brake_jump_energy(again, v_mid, again.v_plus);
            state.v = again.v_plus;
          }
        }
      }
    }
  }
  refresh_active();
  record.v_plus = state.v;
  record.kinetic_after = articula::kinetic_energy(m, aux, state.q, state.v);
  EventLogRow row{record.time,
                  "",
                  record.actions,
                  record.kinetic_before,
                  record.kinetic_after,
                  record.potential,
                  record.momentum_residual,
                  record.constraint_residual};
  for (std::size_t k = 0; k < record.names.size(); ++k) row.name += (k ? "+" : "") + record.names[k];
  for (auto& sink : sinks) sink->event(row);
  for (const int i : firing) {
    EventState& e = events[static_cast<std::size_t>(i)];
    if (e.event.time || !e.event.repeat) e.done = true;
  }
  // Re-arm the guards at the post-event state.
  for (auto& e : events)
    if (e.event.guard) e.g = e.event.guard(state.t, state.q, state.v);
  if (bounced) arm_leaving(enables);
  result.events.push_back(std::move(record));
}

}  // namespace articula
