// Simulator internals, part 2: the run loop in named stages (docs/engine.md, "A run"):
//   begin_run      resolve the per-run tables, start the brakes and the logs
//   at_instant     controller tick, the logged sample, the events of this instant
//   hold_or_let_go joint-limit stops and stuck brakes decide whether they let go
//   advance        one integration step to the next instant, guard location
//   finish_run     status and message, the logs finished
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>

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

void Simulator::Impl::fail(Simulator& sim, RunStatus status, const std::string& what) {
  run_state.status = status;
  run_state.message = what + " " + when(sim.t_);
}

RunStatus Simulator::Impl::failure_status(const Simulator& sim) const {
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
  return sim.options_.integrator == Integrator::DormandPrince ? RunStatus::StepTooSmall : RunStatus::NonFinite;
}

bool Simulator::Impl::begin_run(Simulator& sim, double duration) {
  const Model& m = *model;
  RunState& rs = run_state;
  rs = RunState{};
  rs.wall0 = rs.last_progress = std::chrono::steady_clock::now();
  rs.duration = duration;
  rs.t_end = sim.t_ + duration;
  rs.eps = 1e-12 * std::max(1.0, std::abs(rs.t_end));
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
  rs.recording = !sinks.empty() || sim.options_.record_samples;
  for (const Sensor& sensor : robot.sensors())
    rs.sensors_need_rhs =
        rs.sensors_need_rhs || (sensor.type != SensorType::Encoder && sensor.type != SensorType::Position);
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
  RunResult& result = rs.result;
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
      return false;
    }
  }
  for (auto& e : events) {
    if (e.event.time && *e.event.time < sim.t_ - rs.eps) e.done = true;
    if (e.event.guard) e.g = e.event.guard(sim.t_, sim.q_, sim.v_);
  }
  next_tick = sim.t_;
  next_log = sim.t_;
  return true;
}

bool Simulator::Impl::evaluate_at_instant(Simulator& sim) {
  t_eval = sim.t_;
  ++run_state.result.evaluations;
  cache_valid = true;
  if (!rhs(sim, sim.q_, sim.v_, sim.vdot_)) {
    fail(sim, failure_status(sim), failure_message);
    return false;
  }
  compute_sensors(sim);
  update_brake_outputs(sim);
  return true;
}

std::vector<int> Simulator::Impl::due_time_events(double t) const {
  std::vector<int> due;
  for (std::size_t i = 0; i < events.size(); ++i)
    if (events[i].event.time && !events[i].done && *events[i].event.time <= t + run_state.eps)
      due.push_back(static_cast<int>(i));
  return due;
}

bool Simulator::Impl::state_is_sane(Simulator& sim) {
  const Model& m = *model;
  for (Eigen::Index k = 0; k < sim.q_.size(); ++k)
    if (!std::isfinite(sim.q_[k])) {
      fail(sim, RunStatus::NonFinite, "non-finite position of joint '" + joint_of(m, static_cast<int>(k), true) + "'");
      return false;
    }
  Eigen::Index worst = 0;
  for (Eigen::Index k = 0; k < sim.v_.size(); ++k) {
    if (!std::isfinite(sim.v_[k])) {
      fail(sim, RunStatus::NonFinite, "non-finite velocity of joint '" + joint_of(m, static_cast<int>(k), false) + "'");
      return false;
    }
    if (std::abs(sim.v_[k]) > std::abs(sim.v_[worst])) worst = k;
  }
  if (sim.v_.size() > 0 && std::abs(sim.v_[worst]) > sim.options_.max_speed) {
    std::ostringstream s;
    s << "|v| = " << std::abs(sim.v_[worst]) << " > max_speed = " << sim.options_.max_speed << " on joint '"
      << joint_of(m, static_cast<int>(worst), false) << "'";
    fail(sim, RunStatus::Exploded, s.str());
    return false;
  }
  return true;
}

// At an instant: controller tick, the sample, then the events (pre and post samples).
bool Simulator::Impl::at_instant(Simulator& sim, std::vector<int> firing, bool force_log) {
  RunState& rs = run_state;
  const SimulationOptions& o = sim.options_;
  const bool tick = controller && controller_period > 0 && sim.t_ >= next_tick - rs.eps;
  const bool log = rs.recording && (force_log || !firing.empty() || o.log_period == 0 || sim.t_ >= next_log - rs.eps);
  if (!tick && !log && firing.empty() && !force_log) return true;  // force_log: the end state
  if (tick) {
    // The controller sees the sensors at this instant: from q, v alone (encoders, positions)
    // or, for IMU / effort / force sensors, from an evaluation with the held commands.
    if (rs.sensors_need_rhs) {
      if (!evaluate_at_instant(sim)) return false;
    } else {
      compute_sensors(sim);
    }
    if (!call_controller(sim)) {
      fail(sim, RunStatus::ControllerFailed, failure_message);
      return false;
    }
    cache_valid = false;
    next_tick = next_multiple(next_tick, controller_period, sim.t_ + rs.eps);
  }
  // The row (and the next step's first stage) with the commands now held.
  if (!evaluate_at_instant(sim)) return false;
  if (log) {
    log_sample(sim, rs.result);
    if (o.log_period > 0) next_log = next_multiple(next_log, o.log_period, sim.t_ + rs.eps);
  }
  if (!firing.empty()) {
    apply_events(sim, firing, rs.result, rs.stop);
    if (failure != Failure::None) {
      fail(sim, failure_status(sim), failure_message);
      return false;
    }
    if (!evaluate_at_instant(sim)) return false;
    if (rs.recording) log_sample(sim, rs.result);
  }
  return true;
}

// Joint limits: with a stop engaged, its multiplier at the current state decides whether it
// lets go (the evaluation is reused by the next step's first stage).
// Brakes: a stuck one whose hold is exceeded at once (at its stick) slips; a pin overload is
// reported (brakes.cpp).
bool Simulator::Impl::hold_or_let_go(Simulator& sim) {
  bool engaged = false, held = false;
  for (const LimitStop& s : limits) engaged = engaged || limit_engaged(s);
  for (const BrakeRun& b : brake_run) held = held || brake_locked(b);
  if (!engaged && !held) return true;
  if (!cache_valid && !evaluate_at_instant(sim)) return false;
  if (engaged && release_limits(sim, run_state.result)) {
    cache_valid = false;
    if (held && !evaluate_at_instant(sim)) return false;
  }
  if (held && release_brakes(sim, run_state.result)) cache_valid = false;
  return true;
}

// One step to the next instant: the step lands on time events, controller ticks and brake
// engagements; a guard crossing inside it is located and the state left just after it.
bool Simulator::Impl::advance(Simulator& sim) {
  RunState& rs = run_state;
  double limit = rs.t_end - sim.t_;
  for (const auto& e : events)
    if (e.event.time && !e.done && *e.event.time > sim.t_ + rs.eps) limit = std::min(limit, *e.event.time - sim.t_);
  if (controller && controller_period > 0) limit = std::min(limit, next_tick - sim.t_);
  const double brake_time = next_brake_time(sim.t_ + rs.eps);  // engagements land on a step
  limit = std::min(limit, brake_time - sim.t_);
  const double t0 = sim.t_;
  double h = 0.0;
  failure = Failure::None;
  if (!step(sim, limit, h, rs.result)) {
    fail(sim, failure_status(sim), failure_message.empty() ? "integration step failed" : failure_message);
    return false;
  }
  sim.t_ = t0 + h;
  if (std::abs(sim.t_ - rs.t_end) <= rs.eps) sim.t_ = rs.t_end;
  for (const auto& e : events)
    if (e.event.time && !e.done && std::abs(*e.event.time - sim.t_) <= rs.eps) sim.t_ = *e.event.time;
  if (std::abs(brake_time - sim.t_) <= rs.eps) sim.t_ = brake_time;
  if (!state_is_sane(sim)) return false;
  pending.clear();
  bool have_guards = false;
  for (const auto& e : events) have_guards = have_guards || (e.event.guard && !e.done);
  if (have_guards && locate_guards(sim, t0, h, rs.result) && failure != Failure::None) {
    fail(sim, failure_status(sim), failure_message);
    return false;
  }
  accumulate_brake_energy(sim);
  std::vector<int> firing = due_time_events(sim.t_);
  for (int i : pending)
    if (std::find(firing.begin(), firing.end(), i) == firing.end()) firing.push_back(i);
  std::sort(firing.begin(), firing.end());  // registration order
  return at_instant(sim, std::move(firing), sim.t_ >= rs.t_end) && hold_or_let_go(sim);
}

RunResult Simulator::Impl::finish_run(Simulator& sim) {
  RunState& rs = run_state;
  if (rs.stop && rs.status == RunStatus::Completed) {
    rs.status = RunStatus::Stopped;
    rs.message = "stopped by an event " + when(sim.t_);
  }
  if (rs.status == RunStatus::Completed) rs.message = "completed " + when(sim.t_);
  RunResult& result = rs.result;
  result.status = rs.status;
  result.message = rs.message;
  result.t = sim.t_;
  result.wall_time = std::chrono::duration<double>(std::chrono::steady_clock::now() - rs.wall0).count();
  LogStatus log_status{to_string(rs.status), rs.message, sim.t_, result.steps};
  // A log that cannot be finished (disk full, …) does not take the run's result away: the run
  // reports status `error` naming the file, and the other logs are still finished.
  for (auto& sink : sinks) {
    try {
      sink->finish(log_status);
    } catch (const std::exception& e) {
      result.status = RunStatus::Error;
      result.message = "error: the log '" + sink->path() + "' could not be finished: " + e.what() + " (the run " +
                       (rs.message.empty() ? to_string(rs.status) : rs.message) + ")";
    }
  }
  sinks.clear();  // a log records one run
  return std::move(result);
}

RunResult Simulator::Impl::run(Simulator& sim, double duration) {
  if (!begin_run(sim, duration)) return std::move(run_state.result);
  RunState& rs = run_state;
  try {
    std::vector<int> first = due_time_events(sim.t_);
    start_limits(sim, first);
    std::sort(first.begin(), first.end());  // registration order
    bool ok = at_instant(sim, std::move(first), true) && hold_or_let_go(sim);
    while (ok && !rs.stop && sim.t_ < rs.t_end - rs.eps) {
      if (stop_requested.exchange(false, std::memory_order_relaxed)) {
        fail(sim, RunStatus::Interrupted, "interrupted (stop requested)");
        break;
      }
      ok = advance(sim);
      if (ok && progress && (rs.result.steps & 63) == 0 &&
          std::chrono::steady_clock::now() - rs.last_progress > std::chrono::milliseconds(100)) {
        rs.last_progress = std::chrono::steady_clock::now();
        progress(sim.t_ - (rs.t_end - rs.duration), rs.duration);
      }
    }
  } catch (const std::exception& e) {
    // A user callback (constraint, guard) or the log threw: stop, keep what was logged.
    fail(sim, RunStatus::Error, std::string("error: ") + e.what());
  }
  return finish_run(sim);
}

}  // namespace articula
