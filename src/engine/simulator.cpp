#include "articula/engine/simulator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "articula/constraints/frame_constraint.hpp"
#include "articula/dynamics/aba.hpp"
#include "articula/dynamics/energy.hpp"
#include "articula/dynamics/kinematics.hpp"
#include "engine/simulator_impl.hpp"

namespace articula {
Simulator::Simulator(Robot& robot, SimulationOptions options) : robot_(robot), options_(options) {
  options_.validate();
  const Model& model = robot_.model();
  impl_ = std::make_shared<Impl>(robot_, options_.method);
  if (options_.joint_limits) impl_->add_limit_stops(*this);
  impl_->add_brakes(*this);
  q_ = neutral(model);
  v_ = VectorX::Zero(model.nv);
  vdot_ = VectorX::Zero(model.nv);
  u_ = VectorX::Zero(static_cast<Eigen::Index>(robot_.motors().size()));
  tau_motor_ = u_;
  f_contact_ = VectorX::Zero(3 * static_cast<Eigen::Index>(robot_.contacts().size()));
  sensors_ = VectorX::Zero(static_cast<Eigen::Index>(sensor_channels().size()));
}

void Simulator::set_state(VectorRef q, VectorRef v, double t) {
  const Model& model = robot_.model();
  if (q.size() != model.nq || v.size() != model.nv)
    throw std::invalid_argument("Simulator::set_state: q has " + std::to_string(q.size()) + " values and v " +
                                std::to_string(v.size()) + "; model '" + model.name +
                                "' has nq = " + std::to_string(model.nq) + ", nv = " + std::to_string(model.nv));
  for (Index j = 0; j < model.njoints; ++j) {
    const bool ok = all_finite(q.segment(model.idx_q[j], model.nq_joint[j])) &&
                    all_finite(v.segment(model.idx_v[j], model.nv_joint[j]));
    if (!ok)
      throw std::invalid_argument("Simulator::set_state: non-finite state of joint '" + model.joint_names[j] + "'");
  }
  if (!std::isfinite(t)) throw std::invalid_argument("Simulator::set_state: t is not finite");
  q_ = q;
  normalize(model, q_);
  v_ = v;
  t_ = t;
}

void Simulator::set_commands(VectorRef u) {
  if (u.size() != u_.size())
    throw std::invalid_argument("Simulator::set_commands: " + std::to_string(u.size()) + " commands for " +
                                std::to_string(u_.size()) + " motors");
  u_ = u;
}

void Simulator::set_command(const std::string& motor, double u) { u_[robot_.motor_index(motor)] = u; }

void Simulator::set_controller(Controller controller, double period) {
  // A period below 1 ns would cut every step to it: the run could not advance.
  if (!(period == 0 || period >= 1e-9) || !std::isfinite(period))
    throw std::invalid_argument("Simulator::set_controller: period must be 0 (every evaluation) or ≥ 1e-9 s, got " +
                                std::to_string(period));
  impl_->controller = std::move(controller);
  impl_->controller_period = period;
}

void Simulator::add_event(Event event) {
  const std::string what = "event '" + event.name + "': ";
  if (event.name.empty()) throw std::invalid_argument("Simulator::add_event: an event needs a name");
  for (const auto& e : impl_->events)
    if (e.event.name == event.name)
      throw std::invalid_argument("Simulator::add_event: duplicate event name '" + event.name + "'");
  if (event.time.has_value() == static_cast<bool>(event.guard))
    throw std::invalid_argument(what + "give either a time or a guard");
  if (event.time && (!(*event.time >= 0) || !std::isfinite(*event.time)))
    throw std::invalid_argument(what + "time must be ≥ 0");
  if (event.direction < -1 || event.direction > 1) throw std::invalid_argument(what + "direction must be -1, 0 or 1");
  if (event.time && event.repeat) throw std::invalid_argument(what + "repeat applies to guard events, not to a time");
  if (event.actions.empty()) throw std::invalid_argument(what + "has no action");
  for (const EventAction& a : event.actions) {
    if (a.kind == EventAction::Kind::Enable || a.kind == EventAction::Kind::Disable) {
      for (const Brake& b : robot_.brakes())
        if (b.name == a.target && !impl_->registering)
          throw std::invalid_argument(what + "constraint '" + a.target + "' is the lock of brake '" + b.name +
                                      "': the brake switches it (use stop_signal)");
      if (!robot_.constraints().contains(a.target)) {
        std::string names;
        for (const auto& n : robot_.constraints().names()) names += (names.empty() ? "" : ", ") + n;
        throw std::invalid_argument(what + "no constraint named '" + a.target +
                                    "'; registered: " + (names.empty() ? "(none)" : names));
      }
    } else if (a.kind == EventAction::Kind::SetCommand) {
      try {
        robot_.motor_index(a.target);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(what + e.what());
      }
      if (!std::isfinite(a.value)) throw std::invalid_argument(what + "command value is not finite");
    } else if (a.kind == EventAction::Kind::StopSignal) {
      if (a.category != 0 && a.category != 1)
        throw std::invalid_argument(what + "stop_signal category must be 0 or 1, got " + std::to_string(a.category));
      if (!(a.value >= 0)) throw std::invalid_argument(what + "stop_signal max_time must be ≥ 0 s (inf for none)");
      if (robot_.brakes().empty())
        throw std::invalid_argument(what + "stop_signal needs brakes: the robot has none (Robot::add_brake)");
      if (a.category == 1)
        for (const Motor& m : robot_.motors())
          if (!std::isfinite(m.effort_limit))
            throw std::invalid_argument(what + "a category-1 stop decelerates at the motors' effort limits; motor '" +
                                        m.name + "' has none");
    } else if (a.kind == EventAction::Kind::Brake && !impl_->registering) {
      throw std::invalid_argument(what + "brake switches are the simulator's own events (use stop_signal)");
    }
  }
  impl_->events.push_back({std::move(event)});
}

void Simulator::add_log(std::unique_ptr<LogSink> sink) { impl_->sinks.push_back(std::move(sink)); }

void Simulator::set_progress(std::function<void(double, double)> progress) { impl_->progress = std::move(progress); }

void Simulator::use_generated(GeneratedDynamics kernels) {
  const Model& m = robot_.model();
  const std::string digest = model_digest(m);
  if (kernels.model_digest != digest)
    throw std::invalid_argument("use_generated: the kernels' model digest " + kernels.model_digest +
                                " is not this robot's model's (" + digest +
                                "): regenerate them from robot.model() (armature and gravity included)");
  for (const HeldFrame& h : kernels.held_frames)
    if (!m.has_frame(h.frame))
      throw std::invalid_argument("use_generated: held frame '" + h.frame + "' is not a frame of the model");
  Impl& im = *impl_;
  im.generated_aba.set_kernel(kernels.aba);
  im.generated_held.set_kernel(kernels.constrained_dynamics, kernels.held_frames);
  im.compiled_owner.reset();  // kernels of a library loaded before (use_compiled) are no longer used
  im.refresh_active(*this);
}

std::vector<HeldFrame> compilable_held_frames(const Robot& robot) {
  std::vector<HeldFrame> held;
  const ConstraintSet& set = robot.constraints();
  for (const std::string& name : set.names()) {
    const auto* fc = dynamic_cast<const FramePairConstraint*>(&set.get(name));
    if (fc == nullptr || !fc->frame_b().empty()) return {};
    auto same = [&](const AxisMask& m) { return std::equal(m.axis, m.axis + 6, fc->mask().axis); };
    const bool weld = same(AxisMask::weld()), point = same(AxisMask::point());
    if (!weld && !point) return {};
    held.push_back({fc->frame_a(), weld});
  }
  return held;
}

void Simulator::use_compiled(std::shared_ptr<const CompiledKernels> kernels) {
  if (!kernels) throw std::invalid_argument("use_compiled: no kernels");
  GeneratedDynamics g;
  g.model_digest = kernels->model_digest;
  g.aba = kernels->aba;
  g.held_frames = kernels->held_frames;
  g.constrained_dynamics = kernels->constrained_dynamics;
  use_generated(std::move(g));
  impl_->compiled_owner = std::move(kernels);  // keeps the kernels' library loaded
}

long Simulator::generated_evaluations() const { return impl_->generated_calls; }

std::vector<std::string> Simulator::sensor_channels() const {
  std::vector<std::string> out;
  for (const Sensor& s : robot_.sensors())
    for (const auto& c : s.channels()) out.push_back(s.name + "." + c);
  return out;
}

double Simulator::kinetic_energy() { return articula::kinetic_energy(robot_.model(), impl_->aux, q_, v_); }
double Simulator::potential_energy() { return articula::potential_energy(robot_.model(), impl_->aux, q_); }

RunResult Simulator::run(double duration) {
  if (!(duration > 0) || !std::isfinite(duration))
    throw std::invalid_argument("Simulator::run: duration must be > 0, got " + std::to_string(duration));
  if (u_.size() != static_cast<Eigen::Index>(robot_.motors().size()) ||
      f_contact_.size() != 3 * static_cast<Eigen::Index>(robot_.contacts().size()) ||
      sensors_.size() != static_cast<Eigen::Index>(sensor_channels().size()) ||
      impl_->brake_run.size() != robot_.brakes().size())
    throw std::logic_error("Simulator::run: motors, sensors, contacts or brakes changed after the simulator was made");
  return impl_->run(*this, duration);
}

void Simulator::request_stop() noexcept { impl_->stop_requested.store(true, std::memory_order_relaxed); }

}  // namespace articula
