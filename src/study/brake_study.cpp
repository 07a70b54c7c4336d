#include "articula/study/brake_study.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "articula/constraints/constraint_set.hpp"
#include "articula/constraints/joint_lock.hpp"
#include "articula/dynamics/energy.hpp"
#include "articula/dynamics/kinematics.hpp"
#include "articula/integrators/fixed_step.hpp"
#include "articula/io/urdf.hpp"
#include "articula/model/data.hpp"
#include "articula/solvers/constrained_dynamics.hpp"

namespace articula {
namespace {

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

// Throws std::invalid_argument "run_brake_study: <what>".
[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument("run_brake_study: " + what); }

std::string seconds(double t) {
  std::ostringstream s;
  s << t << " s";
  return s.str();
}

// Checks the configuration against the model; returns the events sorted by time (stable).
std::vector<BrakeEvent> checked_events(const Model& model, const BrakeStudyConfig& c) {
  if (c.q0.size() != model.nq)
    fail("q0 has " + std::to_string(c.q0.size()) + " values, model '" + model.name +
         "' has nq = " + std::to_string(model.nq));
  if (c.v0.size() != model.nv)
    fail("v0 has " + std::to_string(c.v0.size()) + " values, model '" + model.name +
         "' has nv = " + std::to_string(model.nv));
  if (!c.q0.allFinite() || !c.v0.allFinite()) fail("q0 and v0 must be finite");
  if (!(c.duration > 0.0) || !std::isfinite(c.duration)) fail("duration must be > 0, got " + seconds(c.duration));
  if (!(c.dt > 0.0) || !std::isfinite(c.dt)) fail("dt must be > 0, got " + seconds(c.dt));
  if (c.sample_period < 0.0) fail("sample_period must be ≥ 0, got " + seconds(c.sample_period));
  if (!c.flange_frame.empty() && !model.has_frame(c.flange_frame))
    model.frame_id(c.flange_frame);  // throws, lists frames
  if (c.flange_frame.empty() && model.frames.empty()) fail("model '" + model.name + "' has no frame to track");
  std::vector<std::string> braked;
  for (const BrakeEvent& e : c.events) {
    if (!(e.time >= 0.0 && e.time <= c.duration))
      fail("brake event at " + seconds(e.time) + " is outside [0, " + seconds(c.duration) + "]");
    if (e.joints.empty()) fail("brake event at " + seconds(e.time) + " names no joint");
    for (const std::string& j : e.joints) {
      if (!model.has_joint(j))
        fail("brake event at " + seconds(e.time) + ": unknown joint '" + j + "' (model '" + model.name +
             "' has: " + join(model.joint_names, ", ") + ")");
      if (std::find(braked.begin(), braked.end(), j) != braked.end()) fail("joint '" + j + "' is braked twice");
      braked.push_back(j);
    }
  }
  std::vector<BrakeEvent> events = c.events;
  std::stable_sort(events.begin(), events.end(),
                   [](const BrakeEvent& a, const BrakeEvent& b) { return a.time < b.time; });
  return events;
}

}  // namespace

BrakeStudyResult run_brake_study(const Model& model, const BrakeStudyConfig& config) {
  const std::vector<BrakeEvent> events = checked_events(model, config);
  BrakeStudyResult res;
  res.model_name = model.name;
  res.jump = config.jump;
  const Index flange =
      config.flange_frame.empty() ? static_cast<Index>(model.frames.size() - 1) : model.frame_id(config.flange_frame);
  res.flange_frame = model.frames[flange].name;

  // One JointLock per event, registered disabled; activate_constraints() enables it.
  Data data(model);
  ConstraintSet set(model);
  std::vector<std::string> lock_names;
  for (const BrakeEvent& e : events) {
    lock_names.push_back("brake_" + join(e.joints, "+"));
    set.add(std::make_shared<JointLock>(model, lock_names.back(), e.joints), false);
  }
  ConstrainedWorkspace ws(model, std::max(1, model.nv));
  FixedStepWorkspace fws(model);
  const VectorX tau = VectorX::Zero(model.nv);  // drives off
  std::string solve_error;
  const AccelerationFn f = [&](VectorRef q, VectorRef v, Eigen::Ref<VectorX> vdot) {
    const SolveReport rep = constrained_forward_dynamics(model, data, ws, set, q, v, tau);
    if (!rep.ok()) {
      solve_error = "constrained solve failed (" + to_string(rep.status) + "): " + rep.message;
      return false;
    }
    vdot = data.ddq;
    return true;
  };

  VectorX q = config.q0, v = config.v0;
  double t = 0.0;
  // Flange position and speed |ṗ| (world axes) at (q, v).
  auto flange_state = [&](double& speed) {
    forward_kinematics(model, data, q, v);
    speed = frame_velocity(model, data, flange, ReferenceFrame::LocalWorldAligned).v.norm();
    return frame_placement(model, data, flange).p;
  };
  auto sample = [&] {
    BrakeSample s;
    s.t = t;
    s.q = q;
    s.v = v;
    s.kinetic_energy = kinetic_energy(model, data, q, v);
    s.potential_energy = potential_energy(model, data, q);
    double speed = 0.0;
    s.flange = flange_state(speed);
    res.trajectory.push_back(std::move(s));
  };
  auto energy = [&] { return kinetic_energy(model, data, q, v) + potential_energy(model, data, q); };
  const double ke0 = kinetic_energy(model, data, q, v);
  const double energy_scale = ke0 > 0.0 ? ke0 : 1.0;

  const JumpOptions jump{config.jump, 0.0, {}, true};
  std::size_t next = 0;  // next event
  // Applies every event due at the current time; returns false if a jump failed.
  auto apply_events = [&] {
    while (next < events.size() && events[next].time <= t + 1e-12) {
      const BrakeEvent& e = events[next];
      if (res.trajectory.empty() || res.trajectory.back().t != t) sample();  // pre-jump state
      BrakeEventRecord rec;
      rec.time = t;
      rec.joints = e.joints;
      rec.constraint = lock_names[next];
      rec.dofs = static_cast<const JointLock&>(set.get(rec.constraint)).dofs();
      double speed = 0.0;
      rec.flange = flange_state(speed);
      const JumpResult jr = activate_constraints(model, data, set, {rec.constraint}, q, v, jump);
      rec.form = jr.form;
      rec.status = jr.status;
      rec.v_minus = jr.v_minus;
      rec.v_plus = jr.v_plus;
      rec.Lambda = jr.Lambda_of(rec.constraint);
      rec.kinetic_before = jr.kinetic_before;
      rec.kinetic_after = jr.kinetic_after;
      const VectorX dv = jr.v_plus - jr.v_minus;
      rec.jump_energy = 0.5 * dv.dot(data.M * dv);  // data.M: crba(q) by activate_constraints()
      rec.momentum_residual = jr.momentum_residual;
      rec.constraint_residual = jr.constraint_residual;
      if (res.events.empty()) res.flange_first_event = rec.flange;
      res.events.push_back(std::move(rec));
      ++next;
      if (!jr.ok()) {
        res.ok = false;
        res.message = "velocity jump at " + seconds(t) + " (" + lock_names[next - 1] + ") failed (" +
                      to_string(jr.status) + "): " + jr.message;
        return false;
      }
      v = jr.v_plus;
      sample();  // post-jump state
    }
    return true;
  };

  sample();
  bool running = apply_events();
  double e_start = energy();
  double speed_a = 0.0;
  flange_state(speed_a);
  double next_sample = config.sample_period;
  while (running && t < config.duration) {
    // Step on the grid t_k = k dt towards the next event (or the end); a step that would pass
    // the event is shortened to end on it, and the step after it to get back on the grid.
    const double target = next < events.size() ? events[next].time : config.duration;
    while (t < target) {
      const double t_grid = (std::floor(t / config.dt + 1e-9) + 1.0) * config.dt;
      const bool last = t_grid >= target - 1e-6 * config.dt;
      const double h = (last ? target : t_grid) - t;
      if (!fixed_step(model, FixedStepMethod::RK4, f, h, q, v, fws)) {
        res.ok = false;
        res.message = "step at " + seconds(t) + ": " + solve_error;
        running = false;
        break;
      }
      ++res.steps;
      t = last ? target : t_grid;
      double speed_b = 0.0;
      flange_state(speed_b);
      if (!res.events.empty()) res.stop_distance += 0.5 * (speed_a + speed_b) * h;  // trapezoid
      speed_a = speed_b;
      res.energy_drift = std::max(res.energy_drift, std::abs(energy() - e_start) / energy_scale);
      if (config.sample_period <= 0.0 || t >= next_sample - 1e-12 || t >= config.duration) {
        sample();
        while (config.sample_period > 0.0 && next_sample <= t + 1e-12) next_sample += config.sample_period;
      }
    }
    if (!running) break;
    running = apply_events();
    e_start = energy();
    flange_state(speed_a);
    if (t >= config.duration) break;
  }
  res.q_final = q;
  res.v_final = v;
  double speed = 0.0;
  res.flange_final = flange_state(speed);
  if (res.events.empty()) res.flange_first_event = res.flange_final;
  res.straight_distance = (res.flange_final - res.flange_first_event).norm();
  return res;
}

BrakeStudyResult run_brake_study(const BrakeStudyConfig& config) {
  const Model model = load_urdf(config.urdf, BaseType::Fixed);
  return run_brake_study(model, config);
}

BrakeStudyConfig default_estop_config(const std::string& models_dir) {
  BrakeStudyConfig c;
  c.urdf = models_dir + "/rx130_standin.urdf";
  c.q0.resize(6);
  c.q0 << 0.3, -0.4, 0.6, 0.2, 0.5, -0.3;  // rad
  c.v0.resize(6);
  c.v0 << 1.2, -0.8, 1.0, 1.5, -1.0, 2.0;  // rad/s
  c.events = {{0.05, {"joint_1"}}, {0.10, {"joint_2"}}, {0.15, {"joint_3"}}};
  c.duration = 0.5;
  c.dt = 1e-3;
  c.flange_frame = "flange";
  return c;
}

BrakeStudyConfig default_pendulum_config(const std::string& models_dir) {
  BrakeStudyConfig c;
  c.urdf = models_dir + "/pendulum3r.urdf";
  c.q0 = VectorX::Zero(3);  // horizontal
  c.v0 = VectorX::Zero(3);  // at rest
  c.events = {{0.3, {"joint2"}}, {0.6, {"joint3"}}};
  c.duration = 1.0;
  c.dt = 1e-3;
  c.flange_frame = "tip";
  return c;
}

}  // namespace articula
