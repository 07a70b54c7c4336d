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

void Simulator::Impl::fail(RunStatus status, const std::string& what) {
  run_state.status = status;
  run_state.message = what + " " + when(state.t);
}

RunStatus Simulator::Impl::failure_status() const {
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
  return options.integrator == Integrator::DormandPrince ? RunStatus::StepTooSmall : RunStatus::NonFinite;
}

bool Simulator::Impl::begin_run(double duration) {
  const Model& m = *model;
  RunState& rs = run_state;
  rs = RunState{};
  rs.wall0 = rs.last_progress = std::chrono::steady_clock::now();
  rs.duration = duration;
  rs.t_end = state.t + duration;
  rs.eps = 1e-12 * std::max(1.0, std::abs(rs.t_end));
  // The first evaluation of a step is at its start state: when the last logged evaluation was
  // made there with the same commands, its v̇ is reused instead of evaluating again.
  f = [this](VectorRef q, VectorRef v, Eigen::Ref<VectorX> vdot) {
    if (reuse_first) {
      reuse_first = false;
      vdot = state.vdot;
      return true;
    }
    return rhs(q, v, vdot);
  };
  rs.recording = !sinks.empty() || options.record_samples;
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
  refresh_active(false);  // the references due are taken in run(), where a failure is reported
  start_brakes();
  update_brake_outputs();
  RunResult& result = rs.result;
  result.columns = columns();
  row.resize(static_cast<Eigen::Index>(result.columns.size()));
  for (std::size_t k = 0; k < sinks.size(); ++k) {
    try {
      sinks[k]->begin(result.columns);
    } catch (const std::exception& e) {
      // A log that cannot be created: no step is taken; the logs already begun record why.
      result.status = RunStatus::Error;
      result.message = std::string("error: cannot start the log: ") + e.what();
      result.t = state.t;
      for (std::size_t i = 0; i < k; ++i) sinks[i]->finish({to_string(result.status), result.message, state.t, 0});
      sinks.clear();
      return false;
    }
  }
  for (auto& e : events) {
    if (e.event.time && *e.event.time < state.t - rs.eps) e.done = true;
    if (e.event.guard) e.g = e.event.guard(state.t, state.q, state.v);
  }
  next_tick = state.t;
  next_log = state.t;
  return true;
}

bool Simulator::Impl::evaluate_at_instant() {
  t_eval = state.t;
  ++run_state.result.evaluations;
  cache_valid = true;
  if (!rhs(state.q, state.v, state.vdot)) {
    fail(failure_status(), failure_message);
    return false;
  }
  instant_rows = robot.constraints().dim();
  instant_lambda.head(instant_rows) = multipliers();
  compute_sensors();
  update_brake_outputs();
  return true;
}

std::vector<int> Simulator::Impl::due_time_events(double t) const {
  std::vector<int> due;
  for (std::size_t i = 0; i < events.size(); ++i)
    if (events[i].event.time && !events[i].done && *events[i].event.time <= t + run_state.eps)
      due.push_back(static_cast<int>(i));
  return due;
}

bool Simulator::Impl::state_is_sane() {
  const Model& m = *model;
  for (Eigen::Index k = 0; k < state.q.size(); ++k)
    if (!std::isfinite(state.q[k])) {
      fail(RunStatus::NonFinite, "non-finite position of joint '" + joint_of(m, static_cast<int>(k), true) + "'");
      return false;
    }
  Eigen::Index worst = 0;
  for (Eigen::Index k = 0; k < state.v.size(); ++k) {
    if (!std::isfinite(state.v[k])) {
      fail(RunStatus::NonFinite, "non-finite velocity of joint '" + joint_of(m, static_cast<int>(k), false) + "'");
      return false;
    }
    if (std::abs(state.v[k]) > std::abs(state.v[worst])) worst = k;
  }
  if (state.v.size() > 0 && std::abs(state.v[worst]) > options.max_speed) {
    std::ostringstream s;
    s << "|v| = " << std::abs(state.v[worst]) << " > max_speed = " << options.max_speed << " on joint '"
      << joint_of(m, static_cast<int>(worst), false) << "'";
    fail(RunStatus::Exploded, s.str());
    return false;
  }
  return true;
}

// At an instant: controller tick, the sample, then the events (pre and post samples).
bool Simulator::Impl::at_instant(std::vector<int> firing, bool force_log) {
  RunState& rs = run_state;
  const SimulationOptions& o = options;
  const bool tick = controller && controller_period > 0 && state.t >= next_tick - rs.eps;
  const bool log = rs.recording && (force_log || !firing.empty() || o.log_period == 0 || state.t >= next_log - rs.eps);
  if (!tick && !log && firing.empty() && !force_log) return true;  // force_log: the end state
  if (tick) {
    // The controller sees the sensors at this instant: from q, v alone (encoders, positions)
    // or, for IMU / effort / force sensors, from an evaluation with the held commands. One
    // that reads no sensors (set_controller) gets those of the last evaluation: the row's
    // evaluation below computes them again with the new commands.
    if (rs.sensors_need_rhs && controller_reads_sensors) {
      if (!evaluate_at_instant()) return false;
    } else if (controller_reads_sensors) {
      compute_sensors();
    }
    if (!call_controller()) {
      fail(RunStatus::ControllerFailed, failure_message);
      return false;
    }
    cache_valid = false;
    next_tick = next_multiple(next_tick, controller_period, state.t + rs.eps);
  }
  // The row (and the next step's first stage) with the commands now held.
  if (!evaluate_at_instant()) return false;
  if (log) {
    log_sample(rs.result);
    if (o.log_period > 0) next_log = next_multiple(next_log, o.log_period, state.t + rs.eps);
  }
  if (!firing.empty()) {
    apply_events(firing, rs.result, rs.stop);
    if (failure != Failure::None) {
      fail(failure_status(), failure_message);
      return false;
    }
    if (!evaluate_at_instant()) return false;
    if (rs.recording) log_sample(rs.result);
  }
  return true;
}

// Joint limits: with a stop engaged, its multiplier at the current state decides whether it
// lets go (the evaluation is reused by the next step's first stage).
// Brakes: a stuck one whose hold is exceeded at once (at its stick) slips; a pin overload is
// reported (brakes.cpp).
bool Simulator::Impl::hold_or_let_go() {
  bool engaged = false, held = false;
  for (const LimitStop& s : limits) engaged = engaged || limit_engaged(s);
  for (const BrakeRun& b : brake_run) held = held || brake_locked(b);
  if (!engaged && !held) return true;
  if (!cache_valid && !evaluate_at_instant()) return false;
  if (engaged && release_limits(run_state.result)) {
    cache_valid = false;
    if (held && !evaluate_at_instant()) return false;
  }
  if (held && release_brakes(run_state.result)) cache_valid = false;
  return true;
}

// One step to the next instant: the step lands on time events, controller ticks and brake
// engagements; a guard crossing inside it is located and the state left just after it.
bool Simulator::Impl::advance() {
  RunState& rs = run_state;
  double limit = rs.t_end - state.t;
  for (const auto& e : events)
    if (e.event.time && !e.done && *e.event.time > state.t + rs.eps) limit = std::min(limit, *e.event.time - state.t);
  if (controller && controller_period > 0) limit = std::min(limit, next_tick - state.t);
  const double brake_time = next_brake_time(state.t + rs.eps);  // engagements land on a step
  limit = std::min(limit, brake_time - state.t);
  const double t0 = state.t;
  double h = 0.0;
  failure = Failure::None;
  if (!step(limit, h, rs.result)) {
    fail(failure_status(), failure_message.empty() ? "integration step failed" : failure_message);
    return false;
  }
  state.t = t0 + h;
  if (std::abs(state.t - rs.t_end) <= rs.eps) state.t = rs.t_end;
  for (const auto& e : events)
    if (e.event.time && !e.done && std::abs(*e.event.time - state.t) <= rs.eps) state.t = *e.event.time;
  if (std::abs(brake_time - state.t) <= rs.eps) state.t = brake_time;
  if (!state_is_sane()) return false;
  pending.clear();
  bool have_guards = false;
  for (const auto& e : events) have_guards = have_guards || (e.event.guard && !e.done);
  if (have_guards && locate_guards(t0, h, rs.result) && failure != Failure::None) {
    fail(failure_status(), failure_message);
    return false;
  }
  accumulate_brake_energy();
  std::vector<int> firing = due_time_events(state.t);
  for (int i : pending)
    if (std::find(firing.begin(), firing.end(), i) == firing.end()) firing.push_back(i);
  std::sort(firing.begin(), firing.end());  // registration order
  return at_instant(std::move(firing), state.t >= rs.t_end) && hold_or_let_go();
}

RunResult Simulator::Impl::finish_run() {
  RunState& rs = run_state;
  if (rs.stop && rs.status == RunStatus::Completed) {
    rs.status = RunStatus::Stopped;
    rs.message = "stopped by an event " + when(state.t);
  }
  if (rs.status == RunStatus::Completed) rs.message = "completed " + when(state.t);
  RunResult& result = rs.result;
  result.status = rs.status;
  result.message = rs.message;
  result.t = state.t;
  result.wall_time = std::chrono::duration<double>(std::chrono::steady_clock::now() - rs.wall0).count();
  LogStatus log_status{to_string(rs.status), rs.message, state.t, result.steps};
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

RunResult Simulator::Impl::run(double duration) {
  if (!begin_run(duration)) return std::move(run_state.result);
  RunState& rs = run_state;
  try {
    refresh_active();  // takes the references due at the start state (a singular one throws)
    std::vector<int> first = due_time_events(state.t);
    start_limits(first);
    std::sort(first.begin(), first.end());  // registration order
    bool ok = at_instant(std::move(first), true) && hold_or_let_go();
    while (ok && !rs.stop && state.t < rs.t_end - rs.eps) {
      if (stop_requested.exchange(false, std::memory_order_relaxed)) {
        fail(RunStatus::Interrupted, "interrupted (stop requested)");
        break;
      }
      if (poll_kernels()) {
        rs.result.compiled_from = state.t;
        cache_valid = false;  // the next step's first stage is evaluated by the kernels
      }
      ok = advance();
      if (ok && progress && (rs.result.steps & 63) == 0 &&
          std::chrono::steady_clock::now() - rs.last_progress > std::chrono::milliseconds(100)) {
        rs.last_progress = std::chrono::steady_clock::now();
        progress(state.t - (rs.t_end - rs.duration), rs.duration);
      }
    }
  } catch (const std::exception& e) {
    // A user callback (constraint, guard) or the log threw: stop, keep what was logged.
    fail(RunStatus::Error, std::string("error: ") + e.what());
  }
  return finish_run();
}

}  // namespace articula
