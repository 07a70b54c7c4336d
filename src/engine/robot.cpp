#include "articula/engine/robot.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "articula/common/enum_names.hpp"
#include "articula/constraints/frame_constraint.hpp"
#include "articula/io/urdf.hpp"

namespace articula {
namespace {

[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument("Robot: " + what); }

template <typename T>
std::string names_of(const std::vector<T>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item.name;
  return out.empty() ? "(none)" : out;
}

template <typename T>
int index_of(const std::vector<T>& items, const std::string& name) {
  for (std::size_t i = 0; i < items.size(); ++i)
    if (items[i].name == name) return static_cast<int>(i);
  return -1;
}

template <typename T>
int find_or_fail(const std::vector<T>& items, const std::string& name, const char* kind) {
  const int i = index_of(items, name);
  if (i < 0) fail(std::string("no ") + kind + " named '" + name + "'; registered: " + names_of(items));
  return i;
}

template <typename T>
void check_new_name(const std::vector<T>& items, const std::string& name, const char* kind) {
  if (name.empty()) fail(std::string("a ") + kind + " needs a name");
  if (index_of(items, name) >= 0) fail(std::string("duplicate ") + kind + " name '" + name + "'");
}

void check(bool ok, const std::string& what) {
  if (!ok) fail(what);
}

bool is_one_dof(JointType type) {
  return type == JointType::Revolute || type == JointType::Continuous || type == JointType::Prismatic;
}

}  // namespace

double Motor::effort(double u, double qd) const {
  const double sat = std::clamp(u, -effort_limit, effort_limit);
  const double tau = sat - viscous * qd;
  // No tanh without Coulomb friction (the default): it was 8 % of a compiled solo12 run.
  return coulomb == 0.0 ? tau : tau - coulomb * std::tanh(qd / coulomb_velocity);
}

namespace {
constexpr EnumNames<SensorType, 5> kSensorTypes{{{SensorType::Encoder, "encoder"},
                                                 {SensorType::Effort, "effort"},
                                                 {SensorType::Imu, "imu"},
                                                 {SensorType::ForceTorque, "force_torque"},
                                                 {SensorType::Position, "position"}}};
}  // namespace

std::string to_string(SensorType type) { return std::string(enum_name(kSensorTypes, type)); }

SensorType parse_sensor_type(const std::string& text) { return parse_enum(kSensorTypes, text, "sensor type"); }

std::vector<std::string> Sensor::channels() const {
  switch (type) {
    case SensorType::Encoder:
      return {"pos", "vel"};
    case SensorType::Effort:
      return {"effort"};
    case SensorType::Imu:
      return {"gyro.x", "gyro.y", "gyro.z", "acc.x", "acc.y", "acc.z"};
    case SensorType::ForceTorque:
      return {"fx", "fy", "fz", "tx", "ty", "tz"};
    case SensorType::Position:
      return {"x", "y", "z"};
  }
  return {};
}

Robot::Robot(Model model) : base_(std::move(model)), model_(std::make_shared<Model>(base_)), constraints_(*model_) {}

Robot Robot::from_urdf(const std::string& path, bool floating) {
  return Robot(load_urdf(path, floating ? BaseType::Floating : BaseType::Fixed));
}

void Robot::set_gravity(const Vector3& g) {
  check(g.allFinite(), "gravity must be finite");
  base_.gravity = Motion{g, Vector3::Zero()};
  model_->gravity = base_.gravity;
}

void Robot::rebuild_model() {
  // In place: the constraint set and the simulators hold references to *model_.
  model_->armature = base_.armature;
  for (const Motor& m : motors_) model_->armature[m.dof] += m.gear_ratio * m.gear_ratio * m.rotor_inertia;
}

const Motor& Robot::add_motor(Motor motor) {
  check_new_name(motors_, motor.name, "motor");
  const Index j = base_.joint_id(motor.joint);  // throws listing the joints
  check(is_one_dof(base_.joint_types[j]), "motor '" + motor.name + "': joint '" + motor.joint +
                                              "' is not a 1-dof joint (revolute, continuous or prismatic)");
  for (const Motor& m : motors_)
    check(m.joint != motor.joint,
          "motor '" + motor.name + "': joint '" + motor.joint + "' already has motor '" + m.name + "'");
  check(motor.gear_ratio > 0 && std::isfinite(motor.gear_ratio), "motor '" + motor.name + "': gear_ratio must be > 0");
  check(motor.rotor_inertia >= 0 && std::isfinite(motor.rotor_inertia),
        "motor '" + motor.name + "': rotor_inertia must be ≥ 0");
  check(std::isfinite(base_.armature[base_.idx_v[j]] + motor.gear_ratio * motor.gear_ratio * motor.rotor_inertia),
        "motor '" + motor.name + "': the reflected rotor inertia gear_ratio² · rotor_inertia is not finite");
  check(motor.effort_limit > 0, "motor '" + motor.name + "': effort_limit must be > 0 (inf for none)");
  check(motor.viscous >= 0 && std::isfinite(motor.viscous), "motor '" + motor.name + "': viscous must be ≥ 0");
  check(motor.coulomb >= 0 && std::isfinite(motor.coulomb), "motor '" + motor.name + "': coulomb must be ≥ 0");
  check(motor.coulomb_velocity > 0, "motor '" + motor.name + "': coulomb_velocity must be > 0");
  motor.dof = base_.idx_v[j];
  motors_.push_back(std::move(motor));
  rebuild_model();
  return motors_.back();
}

void Robot::remove_motor(const std::string& name) {
  motors_.erase(motors_.begin() + find_or_fail(motors_, name, "motor"));
  rebuild_model();
}

const Motor& Robot::motor(const std::string& name) const { return motors_[find_or_fail(motors_, name, "motor")]; }
int Robot::motor_index(const std::string& name) const { return find_or_fail(motors_, name, "motor"); }

const Sensor& Robot::add_sensor(Sensor sensor) {
  check_new_name(sensors_, sensor.name, "sensor");
  const std::string what = "sensor '" + sensor.name + "' (" + to_string(sensor.type) + "): ";
  switch (sensor.type) {
    case SensorType::Encoder: {
      const Index j = base_.joint_id(sensor.target);
      check(is_one_dof(base_.joint_types[j]), what + "joint '" + sensor.target + "' is not a 1-dof joint");
      break;
    }
    case SensorType::Effort:
      check(index_of(motors_, sensor.target) >= 0,
            what + "no motor named '" + sensor.target + "'; registered: " + names_of(motors_));
      break;
    case SensorType::Imu:
    case SensorType::Position:
      base_.frame_id(sensor.target);
      break;
    case SensorType::ForceTorque:
      check(index_of(contacts_, sensor.target) >= 0 || constraints_.contains(sensor.target),
            what + "no elastic contact or frame constraint named '" + sensor.target + "'");
      // A wrench exists for frame and loop constraints (FramePairConstraint::wrench).
      check(index_of(contacts_, sensor.target) >= 0 ||
                dynamic_cast<const FramePairConstraint*>(&constraints_.get(sensor.target)) != nullptr,
            what + "constraint '" + sensor.target +
                "' is not a frame or loop constraint: a force/torque sensor reads the wrench of those only");
      break;
  }
  sensors_.push_back(std::move(sensor));
  return sensors_.back();
}

void Robot::remove_sensor(const std::string& name) {
  sensors_.erase(sensors_.begin() + find_or_fail(sensors_, name, "sensor"));
}
const Sensor& Robot::sensor(const std::string& name) const { return sensors_[find_or_fail(sensors_, name, "sensor")]; }

const ElasticContact& Robot::add_contact(ElasticContact c) {
  check_new_name(contacts_, c.name, "contact");
  const std::string what = "contact '" + c.name + "': ";
  c.frame_id = base_.frame_id(c.frame);
  check(c.offset.allFinite(), what + "offset must be finite");
  check(c.stiffness > 0 && std::isfinite(c.stiffness), what + "stiffness must be > 0");
  check(c.damping >= 0 && std::isfinite(c.damping), what + "damping must be ≥ 0");
  check(c.friction >= 0 && std::isfinite(c.friction), what + "friction must be ≥ 0");
  check(c.slip_velocity > 0 && std::isfinite(c.slip_velocity), what + "slip_velocity must be > 0");
  if (c.surface.kind == Surface::Kind::Plane) {
    const double n = c.surface.normal.norm();
    check(n > 1e-12 && std::isfinite(n) && c.surface.point.allFinite(),
          what + "the surface needs a finite point and a non-zero normal");
    c.surface.normal /= n;
  } else {
    check(static_cast<bool>(c.surface.height), what + "the height field needs a function");
  }
  contacts_.push_back(std::move(c));
  return contacts_.back();
}

void Robot::remove_contact(const std::string& name) {
  contacts_.erase(contacts_.begin() + find_or_fail(contacts_, name, "contact"));
}
const ElasticContact& Robot::contact(const std::string& name) const {
  return contacts_[find_or_fail(contacts_, name, "contact")];
}
int Robot::contact_index(const std::string& name) const { return find_or_fail(contacts_, name, "contact"); }

}  // namespace articula
