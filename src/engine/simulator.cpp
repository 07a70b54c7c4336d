#include "articula/engine/simulator.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "articula/constraints/frame_constraint.hpp"
#include "articula/constraints/joint_lock.hpp"
#include "articula/constraints/wheel_constraint.hpp"
#include "articula/dynamics/aba.hpp"
#include "articula/dynamics/energy.hpp"
#include "articula/dynamics/kinematics.hpp"
#include "engine/simulator_impl.hpp"

namespace articula {
Simulator::Simulator(Robot& robot, SimulationOptions options) {
  options.validate();
  impl_ = std::make_unique<Impl>(robot, std::move(options));
  Impl& im = *impl_;
  const Model& model = robot.model();
  if (im.options.joint_limits) im.add_limit_stops();
  im.add_brakes();
  Impl::State& s = im.state;
  s.q = neutral(model);
  s.v = VectorX::Zero(model.nv);
  s.vdot = VectorX::Zero(model.nv);
  s.u = VectorX::Zero(static_cast<Eigen::Index>(robot.motors().size()));
  s.tau_motor = s.u;
  s.f_contact = VectorX::Zero(3 * static_cast<Eigen::Index>(robot.contacts().size()));
  s.sensors = VectorX::Zero(static_cast<Eigen::Index>(im.sensor_channels().size()));
}

Simulator::~Simulator() = default;
Simulator::Simulator(Simulator&&) noexcept = default;
Simulator& Simulator::operator=(Simulator&&) noexcept = default;

double Simulator::time() const { return impl_->state.t; }
const VectorX& Simulator::q() const { return impl_->state.q; }
const VectorX& Simulator::v() const { return impl_->state.v; }
const VectorX& Simulator::vdot() const { return impl_->state.vdot; }
const VectorX& Simulator::commands() const { return impl_->state.u; }
const VectorX& Simulator::efforts() const { return impl_->state.tau_motor; }
const VectorX& Simulator::sensors() const { return impl_->state.sensors; }
const VectorX& Simulator::contact_forces() const { return impl_->state.f_contact; }
const std::vector<BrakeState>& Simulator::brake_states() const { return impl_->state.brake_states; }
const VectorX& Simulator::brake_torques() const { return impl_->state.brake_torques; }
const VectorX& Simulator::brake_energy() const { return impl_->state.brake_energy; }
const Robot& Simulator::robot() const { return impl_->robot; }
const SimulationOptions& Simulator::options() const { return impl_->options; }

void Simulator::set_state(VectorRef q, VectorRef v, double t) {
  const Model& model = *impl_->model;
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
  Impl::State& s = impl_->state;
  s.q = q;
  normalize(model, s.q);
  s.v = v;
  s.t = t;
}

void Simulator::set_commands(VectorRef u) {
  VectorX& held = impl_->state.u;
  if (u.size() != held.size())
    throw std::invalid_argument("Simulator::set_commands: " + std::to_string(u.size()) + " commands for " +
                                std::to_string(held.size()) + " motors");
  held = u;
}

void Simulator::set_command(const std::string& motor, double u) { impl_->state.u[impl_->robot.motor_index(motor)] = u; }

void Simulator::set_controller(Controller controller, double period, bool reads_sensors) {
  // A period below 1 ns would cut every step to it: the run could not advance.
  if (!(period == 0 || period >= 1e-9) || !std::isfinite(period))
    throw std::invalid_argument("Simulator::set_controller: period must be 0 (every evaluation) or ≥ 1e-9 s, got " +
                                std::to_string(period));
  impl_->controller = std::move(controller);
  impl_->controller_period = period;
  impl_->controller_reads_sensors = reads_sensors;
}

void Simulator::add_event(Event event) { impl_->add_event(std::move(event)); }

void Simulator::Impl::add_event(Event event) {
  const std::string what = "event '" + event.name + "': ";
  if (event.name.empty()) throw std::invalid_argument("Simulator::add_event: an event needs a name");
  for (const auto& e : events)
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
      for (const Brake& b : robot.brakes())
        if (b.name == a.target && !registering)
          throw std::invalid_argument(what + "constraint '" + a.target + "' is the lock of brake '" + b.name +
                                      "': the brake switches it (use stop_signal)");
      if (!robot.constraints().contains(a.target)) {
        std::string names;
        for (const auto& n : robot.constraints().names()) names += (names.empty() ? "" : ", ") + n;
        throw std::invalid_argument(what + "no constraint named '" + a.target +
                                    "'; registered: " + (names.empty() ? "(none)" : names));
      }
    } else if (a.kind == EventAction::Kind::SetCommand) {
      try {
        robot.motor_index(a.target);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument(what + e.what());
      }
      if (!std::isfinite(a.value)) throw std::invalid_argument(what + "command value is not finite");
    } else if (a.kind == EventAction::Kind::StopSignal) {
      if (a.category != 0 && a.category != 1)
        throw std::invalid_argument(what + "stop_signal category must be 0 or 1, got " + std::to_string(a.category));
      if (!(a.value >= 0)) throw std::invalid_argument(what + "stop_signal max_time must be ≥ 0 s (inf for none)");
      if (robot.brakes().empty())
        throw std::invalid_argument(what + "stop_signal needs brakes: the robot has none (Robot::add_brake)");
      if (a.category == 1)
        for (const Motor& m : robot.motors())
          if (!std::isfinite(m.effort_limit))
            throw std::invalid_argument(what + "a category-1 stop decelerates at the motors' effort limits; motor '" +
                                        m.name + "' has none");
    } else if (a.kind == EventAction::Kind::Brake && !registering) {
      throw std::invalid_argument(what + "brake switches are the simulator's own events (use stop_signal)");
    }
  }
  events.push_back({std::move(event)});
}

void Simulator::add_log(std::unique_ptr<LogSink> sink) { impl_->sinks.push_back(std::move(sink)); }

void Simulator::set_progress(std::function<void(double, double)> progress) { impl_->progress = std::move(progress); }

void Simulator::use_generated(GeneratedDynamics kernels) {
  impl_->kernels_in_flight = {};  // these kernels, not those of a compile still going
  impl_->install_generated(std::move(kernels));
}

void Simulator::Impl::install_generated(GeneratedDynamics kernels) {
  const Model& m = *model;
  const std::string digest = model_digest(m);
  if (kernels.model_digest != digest)
    throw std::invalid_argument("use_generated: the kernels' model digest " + kernels.model_digest +
                                " is not this robot's model's (" + digest +
                                "): regenerate them from robot.model() (armature and gravity included)");
  for (const HeldFrame& h : kernels.held_frames)
    for (const std::string& f : {h.frame, h.relative_to})
      if (!f.empty() && !m.has_frame(f))
        throw std::invalid_argument("use_generated: held frame '" + f + "' is not a frame of the model");
  for (const HeldDistance& d : kernels.distances)
    for (const std::string& f : {d.frame_a, d.frame_b})
      if (!m.has_frame(f))
        throw std::invalid_argument("use_generated: distance frame '" + f + "' is not a frame of the model");
  for (const HeldWheel& w : kernels.wheels)
    if (!m.has_frame(w.frame))
      throw std::invalid_argument("use_generated: wheel frame '" + w.frame + "' is not a frame of the model");
  generated_aba.set_kernel(kernels.aba, kernels.aba_fext, m.njoints);
  for (const DeclaredContact& c : kernels.contacts)
    if (!m.has_frame(c.frame))
      throw std::invalid_argument("use_generated: contact frame '" + c.frame + "' is not a frame of the model");
  generated_contacts.set_kernel(kernels.aba_contacts, kernels.contacts);
  for (const std::string& j : kernels.locked_joints)
    if (!m.has_joint(j))
      throw std::invalid_argument("use_generated: locked joint '" + j + "' is not a joint of the model");
  generated_constrained.set_kernel(kernels, m);
  energy_kernel = kernels.energy;
  // The contacts' kinematics from body_states when it reports every contact's body.
  contact_states = nullptr;
  contact_state_bodies.clear();
  bool all = kernels.body_states != nullptr && !robot.contacts().empty();
  for (const std::string& f : kernels.state_frames)
    if (!m.has_frame(f))
      throw std::invalid_argument("use_generated: state frame '" + f + "' is not a frame of the model");
  for (const ElasticContact& c : robot.contacts()) {
    const auto it = std::find(kernels.state_frames.begin(), kernels.state_frames.end(), c.frame);
    all = all && (m.frames[m.frame_id(c.frame)].parent == kWorld || it != kernels.state_frames.end());
  }
  if (all) {
    contact_states = kernels.body_states;
    for (const std::string& f : kernels.state_frames) contact_state_bodies.push_back(m.frames[m.frame_id(f)].parent);
    contact_state_buffer.assign(18 * contact_state_bodies.size(), 0.0);
  }
  compiled_owner.reset();  // kernels of a library loaded before (use_compiled) are no longer used
  refresh_active(false);   // not at a run's state: the references are taken when a run begins
}

namespace {

// Calls f on each of the robot's constraints of type T, in the set's order.
template <typename T, typename F>
void each_constraint(const Robot& robot, F f) {
  const ConstraintSet& set = robot.constraints();
  for (const std::string& name : set.names())
    if (const auto* c = dynamic_cast<const T*>(&set.get(name))) f(*c);
}

}  // namespace

std::vector<HeldFrame> compilable_held_frames(const Robot& robot) {
  std::vector<HeldFrame> held;
  each_constraint<FramePairConstraint>(robot, [&](const FramePairConstraint& fc) {
    auto same = [&](const AxisMask& m) { return std::equal(m.axis, m.axis + 6, fc.mask().axis); };
    const bool weld = same(AxisMask::weld()), point = same(AxisMask::point());
    held.push_back({fc.frame_a(), weld, fc.frame_b(), weld || point ? "" : fc.mask().to_string()});
  });
  return held;
}

std::vector<HeldDistance> compilable_distances(const Robot& robot) {
  std::vector<HeldDistance> out;
  each_constraint<DistanceConstraint>(robot, [&](const DistanceConstraint& d) {
    out.push_back({d.frame_a(), d.frame_b()});
  });
  return out;
}

std::vector<HeldWheel> compilable_wheels(const Robot& robot) {
  std::vector<HeldWheel> out;
  each_constraint<WheelConstraint>(robot, [&](const WheelConstraint& w) {
    out.push_back({w.frame(), w.radius(), w.axis(), w.normal(), w.height()});
  });
  return out;
}

std::vector<std::string> compilable_locked_joints(const Robot& robot, bool joint_limits) {
  const Model& m = robot.model();
  std::vector<char> lock(static_cast<std::size_t>(m.njoints), 0);
  each_constraint<JointLock>(robot, [&](const JointLock& l) {
    for (const std::string& j : l.joints()) lock[static_cast<std::size_t>(m.joint_id(j))] = 1;
  });
  for (const Brake& b : robot.brakes()) lock[static_cast<std::size_t>(m.joint_id(b.joint))] = 1;
  if (joint_limits)
    for (Index j = 0; j < m.njoints; ++j)
      if (has_limit_stop(m, j)) lock[static_cast<std::size_t>(j)] = 1;
  std::vector<std::string> out;
  for (Index j = 0; j < m.njoints; ++j)
    if (lock[static_cast<std::size_t>(j)]) out.push_back(m.joint_names[j]);
  return out;
}

std::vector<DeclaredContact> compilable_contacts(const Robot& robot) {
  std::vector<DeclaredContact> out;
  for (const ElasticContact& e : robot.contacts()) {
    if (e.surface.kind != Surface::Kind::Plane) return {};
    out.push_back({e.frame, e.offset, e.surface.point, e.surface.normal});
  }
  return out;
}

CompileOptions compile_options_for(const Robot& robot, const SimulationOptions& options) {
  CompileOptions c;
  c.held_frames = compilable_held_frames(robot);
  c.locked_joints = compilable_locked_joints(robot, options.joint_limits);
  c.distances = compilable_distances(robot);
  c.wheels = compilable_wheels(robot);
  // Contacts on planes: aba_contacts, for a robot that starts with no constraint enabled; with
  // constraints (or another surface), also the kernels with external forces and the contacts'
  // body states for the runtime contact forces.
  const auto& contacts = robot.contacts();
  if (robot.constraints().enabled_names().empty()) c.contacts = compilable_contacts(robot);
  c.external_forces = !contacts.empty() && (c.contacts.empty() || c.constrained());
  const Model& m = robot.model();
  for (const ElasticContact& contact : contacts) {
    if (!c.external_forces || m.frames[m.frame_id(contact.frame)].parent == kWorld) continue;
    if (std::find(c.state_frames.begin(), c.state_frames.end(), contact.frame) == c.state_frames.end())
      c.state_frames.push_back(contact.frame);
  }
  c.engine_kernels_only = true;
  return c;
}

void Simulator::use_compiled(std::shared_ptr<const CompiledKernels> kernels) {
  impl_->kernels_in_flight = {};
  impl_->install_compiled(std::move(kernels));
}

void Simulator::Impl::install_compiled(std::shared_ptr<const CompiledKernels> kernels) {
  if (!kernels) throw std::invalid_argument("use_compiled: no kernels");
  install_generated(*kernels);          // the table and its declarations
  compiled_owner = std::move(kernels);  // keeps the kernels' library loaded
}

void Simulator::use_compiled_when_ready(std::shared_future<std::shared_ptr<const CompiledKernels>> kernels) {
  if (!kernels.valid()) throw std::invalid_argument("use_compiled_when_ready: the future holds no state");
  impl_->kernels_in_flight = std::move(kernels);
}

bool Simulator::Impl::poll_kernels() {
  if (!kernels_in_flight.valid() || kernels_in_flight.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
    return false;
  const auto ready = std::move(kernels_in_flight);
  kernels_in_flight = {};
  try {
    const std::shared_ptr<const CompiledKernels> kernels = ready.get();
    if (!kernels) return false;
    install_compiled(kernels);
  } catch (const std::exception&) {
    return false;  // no compiler, a failed compile, kernels of another model: the runtime stays
  }
  return true;
}

long Simulator::generated_evaluations() const { return impl_->generated_calls; }

long Simulator::dynamics_evaluations() const { return impl_->dynamics_calls; }

VectorX Simulator::multipliers() const { return impl_->instant_lambda.head(impl_->instant_rows); }

std::vector<std::string> Simulator::sensor_channels() const { return impl_->sensor_channels(); }

std::vector<std::string> Simulator::Impl::sensor_channels() const {
  std::vector<std::string> out;
  for (const Sensor& s : robot.sensors())
    for (const auto& c : s.channels()) out.push_back(s.name + "." + c);
  return out;
}

double Simulator::kinetic_energy() {
  return articula::kinetic_energy(*impl_->model, impl_->aux, impl_->state.q, impl_->state.v);
}
double Simulator::potential_energy() { return articula::potential_energy(*impl_->model, impl_->aux, impl_->state.q); }

RunResult Simulator::run(double duration) {
  if (!(duration > 0) || !std::isfinite(duration))
    throw std::invalid_argument("Simulator::run: duration must be > 0, got " + std::to_string(duration));
  const Impl& im = *impl_;
  if (im.state.u.size() != static_cast<Eigen::Index>(im.robot.motors().size()) ||
      im.state.f_contact.size() != 3 * static_cast<Eigen::Index>(im.robot.contacts().size()) ||
      im.state.sensors.size() != static_cast<Eigen::Index>(im.sensor_channels().size()) ||
      im.brake_run.size() != im.robot.brakes().size())
    throw std::logic_error("Simulator::run: motors, sensors, contacts or brakes changed after the simulator was made");
  return impl_->run(duration);
}

void Simulator::request_stop() noexcept { impl_->stop_requested.store(true, std::memory_order_relaxed); }

}  // namespace articula
