#include <cmath>
#include <sstream>
#include <stdexcept>

#include "articula/common/enum_names.hpp"
#include "articula/dynamics/kinematics.hpp"
#include "articula/engine/simulator.hpp"

namespace articula {
namespace {

Index one_dof_joint(const Model& model, const std::string& joint, const char* what) {
  const Index j = model.joint_id(joint);
  if (model.nv_joint[j] != 1)
    throw std::invalid_argument(std::string(what) + ": joint '" + joint + "' is not a 1-dof joint");
  return j;
}

}  // namespace

namespace {
constexpr EnumNames<Integrator, 4> kIntegrators{{{Integrator::ExplicitEuler, "euler"},
                                                 {Integrator::SemiImplicitEuler, "semi_implicit_euler"},
                                                 {Integrator::RK4, "rk4"},
                                                 {Integrator::DormandPrince, "dopri5"}}};
constexpr EnumNames<RunStatus, 9> kRunStatuses{{{RunStatus::Completed, "completed"},
                                                {RunStatus::Stopped, "stopped"},
                                                {RunStatus::NonFinite, "non_finite"},
                                                {RunStatus::Exploded, "exploded"},
                                                {RunStatus::SolverFailed, "solver_failed"},
                                                {RunStatus::StepTooSmall, "step_too_small"},
                                                {RunStatus::ControllerFailed, "controller_failed"},
                                                {RunStatus::Error, "error"},
                                                {RunStatus::Interrupted, "interrupted"}}};
}  // namespace

std::string to_string(Integrator integrator) { return std::string(enum_name(kIntegrators, integrator)); }

Integrator parse_integrator(const std::string& text) { return parse_enum(kIntegrators, text, "integrator"); }

std::string to_string(RunStatus status) { return std::string(enum_name(kRunStatuses, status)); }

void SimulationOptions::validate() const {
  auto positive = [](double x, const char* field) {
    if (!(x > 0) || !std::isfinite(x))
      throw std::invalid_argument(std::string("simulation options: ") + field + " must be > 0 (got " +
                                  std::to_string(x) + ")");
  };
  positive(dt, "dt");
  positive(event_tolerance, "event_tolerance");
  positive(max_speed, "max_speed");
  if (!(log_period >= 0) || !std::isfinite(log_period))
    throw std::invalid_argument("simulation options: log_period must be ≥ 0 (0: every step)");
  if (integrator == Integrator::DormandPrince) adaptive.validate();
  if (!(limit_restitution >= 0 && limit_restitution <= 1))
    throw std::invalid_argument("simulation options: limit_restitution must be in [0, 1] (got " +
                                std::to_string(limit_restitution) + ")");
  if (!(limit_bounce_velocity >= 0) || !std::isfinite(limit_bounce_velocity))
    throw std::invalid_argument("simulation options: limit_bounce_velocity must be ≥ 0");
}

EventAction EventAction::enable(std::string constraint, JumpForm jump) {
  return {Kind::Enable, std::move(constraint), jump, 0.0};
}
EventAction EventAction::disable(std::string constraint) {
  return {Kind::Disable, std::move(constraint), JumpForm::None, 0.0};
}
EventAction EventAction::set_command(std::string motor, double value) {
  return {Kind::SetCommand, std::move(motor), JumpForm::None, value};
}
EventAction EventAction::stop() { return {Kind::Stop, "", JumpForm::None, 0.0}; }
EventAction EventAction::stop_signal(int category, double cat1_max_time) {
  return {Kind::StopSignal, "", JumpForm::Auto, cat1_max_time, category};
}

std::string EventAction::describe() const {
  std::ostringstream s;
  switch (kind) {
    case Kind::Enable:
      s << "enable " << target << " (jump " << to_string(jump) << ")";
      break;
    case Kind::Disable:
      s << "disable " << target;
      break;
    case Kind::SetCommand:
      s << "set u." << target << " = " << value;
      break;
    case Kind::Stop:
      s << "stop";
      break;
    case Kind::StopSignal:
      s << "stop signal, category " << category;
      if (category == 1 && std::isfinite(value)) s << " (max time " << value << " s)";
      break;
    case Kind::Brake: {
      // Codes of Simulator::Impl::BrakeSwitch (brakes.cpp).
      static const char* const what[] = {"engage",
                                         "stick (lock on)",
                                         "release (slips)",
                                         "overload reported",
                                         "standstill (drive cut, brake armed)",
                                         "category-1 max time (drives cut)",
                                         "hold saturates (drive at its effort limit)"};
      s << target << ": " << (category >= 0 && category < 7 ? what[category] : "?");
      break;
    }
  }
  return s.str();
}

Guard joint_position_guard(const Model& model, const std::string& joint, double value) {
  const int iq = model.idx_q[one_dof_joint(model, joint, "joint_position_guard")];
  return [iq, value](double, VectorRef q, VectorRef) { return q[iq] - value; };
}

Guard joint_velocity_guard(const Model& model, const std::string& joint, double value) {
  const int iv = model.idx_v[one_dof_joint(model, joint, "joint_velocity_guard")];
  return [iv, value](double, VectorRef, VectorRef v) { return v[iv] - value; };
}

Guard frame_height_guard(std::shared_ptr<const Model> model, const std::string& frame, double value) {
  const Index f = model->frame_id(frame);
  auto data = std::make_shared<Data>(*model);
  return [model, data, f, value](double, VectorRef q, VectorRef) {
    forward_kinematics(*model, *data, q);
    return frame_placement(*model, *data, f).p.z() - value;
  };
}

Controller pd_controller(const Robot& robot, const std::vector<std::pair<std::string, double>>& targets, double kp,
                         double kd) {
  const Model& model = robot.model();
  struct Term {
    int motor, iq, iv;
    double target;
  };
  std::vector<Term> terms;
  for (const auto& [joint, target] : targets) {
    const Index j = model.joint_id(joint);
    int motor = -1;
    for (std::size_t k = 0; k < robot.motors().size(); ++k)
      if (robot.motors()[k].joint == joint) motor = static_cast<int>(k);
    if (motor < 0) throw std::invalid_argument("pd_controller: joint '" + joint + "' has no motor");
    if (!std::isfinite(target)) throw std::invalid_argument("pd_controller: target of '" + joint + "' is not finite");
    terms.push_back({motor, model.idx_q[j], model.idx_v[j], target});
  }
  if (!std::isfinite(kp) || !std::isfinite(kd)) throw std::invalid_argument("pd_controller: gains must be finite");
  // u = kp (q* − q) − kd q̇ on the listed joints; other motors get 0.
  return [terms, kp, kd](double, VectorRef q, VectorRef v, VectorRef, Eigen::Ref<VectorX> u) {
    u.setZero();
    for (const Term& t : terms) u[t.motor] = kp * (t.target - q[t.iq]) - kd * v[t.iv];
    return true;
  };
}

}  // namespace articula
