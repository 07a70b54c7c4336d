// Simulator internals, part 2: the run loop, guard location and event application
// (docs/engine.md).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>

#include "articula/constraints/frame_constraint.hpp"
#include "articula/dynamics/energy.hpp"
#include "engine/simulator_impl.hpp"

namespace articula {
namespace {

std::string when(double t) {
  std::ostringstream s;
  s << "at t = " << t << " s";
  return s.str();
}

// The first next + k·period (k ≥ 0) after t: in one step, however small the period (a loop
// adding the period could take ~t/period iterations).
double next_multiple(double next, double period, double t) {
  if (next > t) return next;
  const double k = std::floor((t - next) / period) + 1.0;
  const double n = next + k * period;
  return n > t ? n : std::nextafter(t, std::numeric_limits<double>::infinity());
}

bool crosses(double g0, double g1, int direction) {
  const bool rising = g0 < 0 && g1 >= 0;
  const bool falling = g0 > 0 && g1 <= 0;
  return direction > 0 ? rising : direction < 0 ? falling : (rising || falling);
}

// Joint holding dof (or coordinate) index k, for messages.
std::string joint_of(const Model& m, int k, bool coordinate) {
  for (Index j = 0; j < m.njoints; ++j) {
    const int start = coordinate ? m.idx_q[j] : m.idx_v[j];
    const int n = coordinate ? m.nq_joint[j] : m.nv_joint[j];
    if (k >= start && k < start + n) return m.joint_names[j];
  }
  return "?";
}

}  // namespace

// Bisection on the step size τ ∈ (0, h]: the state at t0 + τ is recomputed from the state at
// the step's start with one fixed step of size τ (RK4 for Dormand–Prince), until the bracket
// is narrower than options.event_tolerance. The state is left just after the earliest crossing.
bool Simulator::Impl::locate_guards(Simulator& sim, double t0, double h, RunResult& result) {
  const SimulationOptions& o = sim.options_;
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
    e.g_end = e.event.guard(sim.t_, sim.q_, sim.v_);
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
    sim.q_ = qa;
    sim.v_ = va;
    sim.t_ = t0 + best;
  }
  std::vector<int> firing;
  for (int i : crossing)
    if (located[static_cast<std::size_t>(i)] <= best + o.event_tolerance) firing.push_back(i);
  // Guards that did not fire continue from the new state.
  for (std::size_t i = 0; i < events.size(); ++i)
    if (events[i].event.guard && std::find(firing.begin(), firing.end(), static_cast<int>(i)) == firing.end())
      events[i].g = events[i].event.guard(sim.t_, sim.q_, sim.v_);
  pending = std::move(firing);
  return true;
}

void Simulator::Impl::apply_events(Simulator& sim, const std::vector<int>& firing, RunResult& result, bool& stop) {
  const Model& m = *model;
  ConstraintSet& set = robot.constraints();
  EventRecord record;
  record.time = sim.t_;
  record.kinetic_before = articula::kinetic_energy(m, aux, sim.q_, sim.v_);
  record.potential = articula::potential_energy(m, aux, sim.q_);
  record.v_minus = sim.v_;
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
  brake_actions(sim, firing, enables);
  const bool brake_enables = !enables.empty();
  for (const int i : firing)
    for (const EventAction& a : events[static_cast<std::size_t>(i)].event.actions)
      if (a.kind == EventAction::Kind::Disable && set.is_enabled(a.target)) deactivate_constraints(set, {a.target});
  for (const int i : firing)
    for (const EventAction& a : events[static_cast<std::size_t>(i)].event.actions)
      if (a.kind == EventAction::Kind::SetCommand) sim.u_[robot.motor_index(a.target)] = a.value;
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
      JumpOptions options;
      options.form = form;
      // Limit stops alone (joint_limits.cpp) may bounce: J v⁺ = −e J v⁻, then they let go.
      // Every impact slower than limit_bounce_velocity: plastic.
      bool stops_only = true, fast = false;
      for (const auto& name : enables) {
        bool stop_name = false;
        for (const LimitStop& s : limits)
          if (s.name == name) {
            stop_name = true;
            fast = fast || std::abs(sim.v_[s.iv]) >= sim.options_.limit_bounce_velocity;
          }
        stops_only = stops_only && stop_name;
      }
      bounced = stops_only && fast && sim.options_.limit_restitution > 0.0;
      if (bounced) options.restitution = sim.options_.limit_restitution;
      const JumpResult jump = activate_constraints(m, data, set, enables, sim.q_, sim.v_, options);
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
        brake_jump_energy(sim, jump, record.v_minus, jump.v_plus);
        sim.v_ = jump.v_plus;
        if (bounced) deactivate_constraints(set, enables);  // the stops let go: the joints bounce off
        const std::vector<std::string> restick = brakes_after_jump(sim, through, record);
        if (!restick.empty()) {
          const VectorX v_mid = sim.v_;
          const JumpResult again = activate_constraints(m, data, set, restick, sim.q_, sim.v_, JumpOptions{});
          if (!again.ok()) {
            failure = Failure::Solver;
            failure_message = "velocity jump " + to_string(again.status) + " re-sticking " + restick.front();
          } else {
            brake_jump_energy(sim, again, v_mid, again.v_plus);
            sim.v_ = again.v_plus;
          }
        }
      }
    }
  }
  refresh_active(sim);
  record.v_plus = sim.v_;
  record.kinetic_after = articula::kinetic_energy(m, aux, sim.q_, sim.v_);
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
    if (e.event.guard) e.g = e.event.guard(sim.t_, sim.q_, sim.v_);
  if (bounced) arm_leaving(enables);
  result.events.push_back(std::move(record));
}

RunResult Simulator::Impl::run(Simulator& sim, double duration) {
  using clock = std::chrono::steady_clock;
  const auto wall0 = clock::now();
  const Model& m = *model;
  const SimulationOptions& o = sim.options_;
  RunResult result;
  const double t_end = sim.t_ + duration;
  const double eps = 1e-12 * std::max(1.0, std::abs(t_end));
  // The first evaluation of a step is at its start state: when the last logged evaluation was
  // made there with the same commands, its v̇ is reused instead of evaluating again.
  f = [this, &sim](VectorRef q, VectorRef v, Eigen::Ref<VectorX> vdot) {
    if (reuse_first) {
      reuse_first = false;
      vdot = sim.vdot_;
      return true;
    }
    return rhs(sim, q, v, vdot);
  };
  const bool recording = !sinks.empty() || o.record_samples;
  bool sensors_need_rhs = false;
  for (const Sensor& sensor : robot.sensors())
    sensors_need_rhs = sensors_need_rhs || (sensor.type != SensorType::Encoder && sensor.type != SensorType::Position);
  failure = Failure::None;
  failure_message.clear();
  h_adaptive = 0.0;

  const ConstraintSet& set = robot.constraints();
  constraint_names = set.names();
  constraint_dims.clear();
  for (const auto& n : constraint_names) constraint_dims.push_back(set.get(n).dim());
  sensor_target.assign(robot.sensors().size(), -1);
  for (std::size_t s = 0; s < robot.sensors().size(); ++s) {
    const Sensor& sensor = robot.sensors()[s];
    if (sensor.type == SensorType::Encoder) sensor_target[s] = m.joint_id(sensor.target);
    if (sensor.type == SensorType::Effort) sensor_target[s] = robot.motor_index(sensor.target);
    if (sensor.type == SensorType::Imu || sensor.type == SensorType::Position)
      sensor_target[s] = m.frame_id(sensor.target);
  }
  ft_contact.assign(robot.sensors().size(), -1);
  ft_constraint.assign(robot.sensors().size(), -1);
  for (std::size_t s = 0; s < robot.sensors().size(); ++s) {
    const Sensor& sensor = robot.sensors()[s];
    if (sensor.type != SensorType::ForceTorque) continue;
    for (std::size_t c = 0; c < robot.contacts().size(); ++c)
      if (robot.contacts()[c].name == sensor.target) ft_contact[s] = static_cast<int>(c);
    for (std::size_t c = 0; c < constraint_names.size(); ++c)
      if (constraint_names[c] == sensor.target) ft_constraint[s] = static_cast<int>(c);
  }
  owner = &sim;
  refresh_active(sim);
  start_brakes();
  update_brake_outputs(sim);
  result.columns = columns(sim);
  row.resize(static_cast<Eigen::Index>(result.columns.size()));
  for (std::size_t k = 0; k < sinks.size(); ++k) {
    try {
      sinks[k]->begin(result.columns);
    } catch (const std::exception& e) {
      // A log that cannot be created: no step is taken; the logs already begun record why.
      result.status = RunStatus::Error;
      result.message = std::string("error: cannot start the log: ") + e.what();
      result.t = sim.t_;
      for (std::size_t i = 0; i < k; ++i) sinks[i]->finish({to_string(result.status), result.message, sim.t_, 0});
      sinks.clear();
      return result;
    }
  }
  for (auto& e : events) {
    if (e.event.time && *e.event.time < sim.t_ - eps) e.done = true;
    if (e.event.guard) e.g = e.event.guard(sim.t_, sim.q_, sim.v_);
  }
  next_tick = sim.t_;
  next_log = sim.t_;

  RunStatus status = RunStatus::Completed;
  std::string message;
  auto fail = [&](RunStatus s, const std::string& what) {
    status = s;
    message = what + " " + when(sim.t_);
  };
  auto failure_status = [&]() {
    switch (failure) {
      case Failure::Solver:
        return RunStatus::SolverFailed;
      case Failure::Controller:
        return RunStatus::ControllerFailed;
      case Failure::NonFinite:
        return RunStatus::NonFinite;
      case Failure::None:
        break;
    }
    return o.integrator == Integrator::DormandPrince ? RunStatus::StepTooSmall : RunStatus::NonFinite;
  };
  // Evaluates the state for logging; false on failure (status set).
  auto evaluate = [&]() {
    t_eval = sim.t_;
    ++result.evaluations;
    cache_valid = true;
    if (!rhs(sim, sim.q_, sim.v_, sim.vdot_)) {
      fail(failure_status(), failure_message);
      return false;
    }
    compute_sensors(sim);
    update_brake_outputs(sim);
    return true;
  };
  auto due_time_events = [&]() {
    std::vector<int> due;
    for (std::size_t i = 0; i < events.size(); ++i)
      if (events[i].event.time && !events[i].done && *events[i].event.time <= sim.t_ + eps)
        due.push_back(static_cast<int>(i));
    return due;
  };
  auto check_state = [&]() {
    for (Eigen::Index k = 0; k < sim.q_.size(); ++k)
      if (!std::isfinite(sim.q_[k])) {
        fail(RunStatus::NonFinite, "non-finite position of joint '" + joint_of(m, static_cast<int>(k), true) + "'");
        return false;
      }
    Eigen::Index worst = 0;
    for (Eigen::Index k = 0; k < sim.v_.size(); ++k) {
      if (!std::isfinite(sim.v_[k])) {
        fail(RunStatus::NonFinite, "non-finite velocity of joint '" + joint_of(m, static_cast<int>(k), false) + "'");
        return false;
      }
      if (std::abs(sim.v_[k]) > std::abs(sim.v_[worst])) worst = k;
    }
    if (sim.v_.size() > 0 && std::abs(sim.v_[worst]) > o.max_speed) {
      std::ostringstream s;
      s << "|v| = " << std::abs(sim.v_[worst]) << " > max_speed = " << o.max_speed << " on joint '"
        << joint_of(m, static_cast<int>(worst), false) << "'";
      fail(RunStatus::Exploded, s.str());
      return false;
    }
    return true;
  };
  // At an instant: controller tick, the sample, then the events (pre and post samples).
  bool stop = false;
  auto at_instant = [&](std::vector<int> firing, bool force_log) {
    const bool tick = controller && controller_period > 0 && sim.t_ >= next_tick - eps;
    const bool log = recording && (force_log || !firing.empty() || o.log_period == 0 || sim.t_ >= next_log - eps);
    if (!tick && !log && firing.empty() && !force_log) return true;  // force_log: the end state
    if (tick) {
      // The controller sees the sensors at this instant: from q, v alone (encoders, positions)
      // or, for IMU / effort / force sensors, from an evaluation with the held commands.
      if (sensors_need_rhs) {
        if (!evaluate()) return false;
      } else {
        compute_sensors(sim);
      }
      if (!call_controller(sim)) {
        fail(RunStatus::ControllerFailed, failure_message);
        return false;
      }
      cache_valid = false;
      next_tick = next_multiple(next_tick, controller_period, sim.t_ + eps);
    }
    // The row (and the next step's first stage) with the commands now held.
    if (!evaluate()) return false;
    if (log) {
      log_sample(sim, result);
      if (o.log_period > 0) next_log = next_multiple(next_log, o.log_period, sim.t_ + eps);
    }
    if (!firing.empty()) {
      apply_events(sim, firing, result, stop);
      if (failure != Failure::None) {
        fail(failure_status(), failure_message);
        return false;
      }
      if (!evaluate()) return false;
      if (recording) log_sample(sim, result);
    }
    return true;
  };

  // Joint limits: with a stop engaged, its multiplier at the current state decides whether it
  // lets go (the evaluation is reused by the next step's first stage).
  // Brakes: a stuck one whose hold is exceeded at once (at its stick) slips; a pin overload is
  // reported (brakes.cpp).
  auto check_limits = [&]() {
    bool engaged = false, held = false;
    for (const LimitStop& s : limits) engaged = engaged || limit_engaged(s);
    for (const BrakeRun& b : brake_run) held = held || brake_locked(b);
    if (!engaged && !held) return true;
    if (!cache_valid && !evaluate()) return false;
    if (engaged && release_limits(sim, result)) {
      cache_valid = false;
      if (held && !evaluate()) return false;
    }
    if (held && release_brakes(sim, result)) cache_valid = false;
    return true;
  };

  auto last_progress = wall0;
  try {
    std::vector<int> first = due_time_events();
    start_limits(sim, first);
    std::sort(first.begin(), first.end());  // registration order
    bool ok = at_instant(std::move(first), true) && check_limits();
    while (ok && !stop && sim.t_ < t_end - eps) {
      if (stop_requested.exchange(false, std::memory_order_relaxed)) {
        fail(RunStatus::Interrupted, "interrupted (stop requested)");
        break;
      }
      double limit = t_end - sim.t_;
      for (const auto& e : events)
        if (e.event.time && !e.done && *e.event.time > sim.t_ + eps) limit = std::min(limit, *e.event.time - sim.t_);
      if (controller && controller_period > 0) limit = std::min(limit, next_tick - sim.t_);
      const double brake_time = next_brake_time(sim.t_ + eps);  // engagements land on a step
      limit = std::min(limit, brake_time - sim.t_);
      const double t0 = sim.t_;
      double h = 0.0;
      failure = Failure::None;
      if (!step(sim, limit, h, result)) {
        fail(failure_status(), failure_message.empty() ? "integration step failed" : failure_message);
        break;
      }
      sim.t_ = t0 + h;
      if (std::abs(sim.t_ - t_end) <= eps) sim.t_ = t_end;
      for (const auto& e : events)
        if (e.event.time && !e.done && std::abs(*e.event.time - sim.t_) <= eps) sim.t_ = *e.event.time;
      if (std::abs(brake_time - sim.t_) <= eps) sim.t_ = brake_time;
      if (!check_state()) break;
      pending.clear();
      bool have_guards = false;
      for (const auto& e : events) have_guards = have_guards || (e.event.guard && !e.done);
      if (have_guards && locate_guards(sim, t0, h, result) && failure != Failure::None) {
        fail(failure_status(), failure_message);
        break;
      }
      accumulate_brake_energy(sim);
      std::vector<int> firing = due_time_events();
      for (int i : pending)
        if (std::find(firing.begin(), firing.end(), i) == firing.end()) firing.push_back(i);
      std::sort(firing.begin(), firing.end());  // registration order
      ok = at_instant(std::move(firing), sim.t_ >= t_end) && check_limits();
      if (progress && (result.steps & 63) == 0 && clock::now() - last_progress > std::chrono::milliseconds(100)) {
        last_progress = clock::now();
        progress(sim.t_ - (t_end - duration), duration);
      }
    }
  } catch (const std::exception& e) {
    // A user callback (constraint, guard) or the log threw: stop, keep what was logged.
    fail(RunStatus::Error, std::string("error: ") + e.what());
  }
  if (stop && status == RunStatus::Completed) {
    status = RunStatus::Stopped;
    message = "stopped by an event " + when(sim.t_);
  }
  if (status == RunStatus::Completed) message = "completed " + when(sim.t_);
  result.status = status;
  result.message = message;
  result.t = sim.t_;
  result.wall_time = std::chrono::duration<double>(clock::now() - wall0).count();
  LogStatus log_status{to_string(status), message, sim.t_, result.steps};
  // A log that cannot be finished (disk full, …) does not take the run's result away: the run
  // reports status `error` naming the file, and the other logs are still finished.
  for (auto& sink : sinks) {
    try {
      sink->finish(log_status);
    } catch (const std::exception& e) {
      result.status = RunStatus::Error;
      result.message = "error: the log '" + sink->path() + "' could not be finished: " + e.what() + " (the run " +
                       (message.empty() ? to_string(status) : message) + ")";
    }
  }
  sinks.clear();  // a log records one run
  return result;
}

}  // namespace articula
