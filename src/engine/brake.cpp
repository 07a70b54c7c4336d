// Brakes of a Robot: names, kinds and the checks of Robot::add_brake (docs/brakes.md).
#include "articula/engine/brake.hpp"

#include <cmath>
#include <sstream>
#include <stdexcept>

#include "articula/engine/robot.hpp"
#include "articula/common/enum_names.hpp"

namespace articula {

namespace {
constexpr EnumNames<BrakeKind, 2> kBrakeKinds{{{BrakeKind::Friction, "friction"}, {BrakeKind::Pin, "pin"}}};
constexpr EnumNames<BrakeState, 5> kBrakeStates{{{BrakeState::Released, "released"},
                                                 {BrakeState::Engaging, "engaging"},
                                                 {BrakeState::Slipping, "slipping"},
                                                 {BrakeState::Stuck, "stuck"},
                                                 {BrakeState::Locked, "locked"}}};
}  // namespace

std::string to_string(BrakeKind kind) { return std::string(enum_name(kBrakeKinds, kind)); }

BrakeKind parse_brake_kind(const std::string& text) { return parse_enum(kBrakeKinds, text, "brake kind"); }

std::string to_string(BrakeState state) { return std::string(enum_name(kBrakeStates, state)); }

const Brake& Robot::add_brake(Brake b) {
  auto fail = [&](const std::string& what) {
    throw std::invalid_argument("Robot: brake '" + b.name + "': " + what);
  };
  auto number = [](double x) {
    std::ostringstream s;
    s << x;
    return s.str();
  };
  if (b.name.empty()) throw std::invalid_argument("Robot: a brake needs a name (e.g. brake." + b.joint + ")");
  for (const Brake& other : brakes_)
    if (other.name == b.name) fail("duplicate brake name");
  if (!base_.has_joint(b.joint)) {
    std::string names;
    for (Index j = 0; j < base_.njoints; ++j) names += (names.empty() ? "" : ", ") + base_.joint_names[j];
    fail("no joint named '" + b.joint + "'; the model has: " + names);
  }
  const Index j = base_.joint_id(b.joint);
  const JointType t = base_.joint_types[j];
  if (base_.nv_joint[j] != 1 || !(t == JointType::Revolute || t == JointType::Continuous || t == JointType::Prismatic))
    fail("joint '" + b.joint + "' is not a 1-dof joint (revolute, continuous or prismatic)");
  for (const Brake& other : brakes_)
    if (other.joint == b.joint) fail("joint '" + b.joint + "' already has brake '" + other.name + "'");
  if (!(b.delay >= 0) || !std::isfinite(b.delay)) fail("delay must be ≥ 0 s (got " + number(b.delay) + ")");
  if (!(b.motor_torque >= 0) || !std::isfinite(b.motor_torque))
    fail("motor_torque must be ≥ 0 N m (got " + number(b.motor_torque) + ")");
  if (b.torque == 0.0 && b.motor_torque > 0.0) {
    const Motor* motor = nullptr;
    for (const Motor& m : motors_)
      if (m.joint == b.joint) motor = &m;
    if (motor == nullptr)
      fail("motor_torque needs a motor on joint '" + b.joint + "' (its gear_ratio); give torque at the joint instead");
    b.torque = b.motor_torque * motor->gear_ratio;
  }
  if (!(b.torque > 0) || std::isnan(b.torque))
    fail("torque must be > 0 N m at the joint (got " + number(b.torque) + "), or give motor_torque");
  if (b.kind == BrakeKind::Friction && !std::isfinite(b.torque))
    fail("a friction brake needs a finite torque (an infinite one is a pin brake)");
  if (!(b.static_torque >= 0) || std::isnan(b.static_torque))
    fail("static_torque must be ≥ torque (got " + number(b.static_torque) + ")");
  if (b.static_torque == 0.0) b.static_torque = b.torque;
  if (b.static_torque < b.torque)
    fail("static_torque " + number(b.static_torque) + " is less than torque " + number(b.torque));
  b.dof = base_.idx_v[j];
  brakes_.push_back(std::move(b));
  return brakes_.back();
}

void Robot::remove_brake(const std::string& name) {
  for (auto it = brakes_.begin(); it != brakes_.end(); ++it)
    if (it->name == name) {
      brakes_.erase(it);
      return;
    }
  brake(name);  // throws, listing the brakes
}

const Brake& Robot::brake(const std::string& name) const {
  std::string names;
  for (const Brake& b : brakes_) {
    if (b.name == name) return b;
    names += (names.empty() ? "" : ", ") + b.name;
  }
  throw std::invalid_argument("Robot: no brake named '" + name + "'; registered: " + (names.empty() ? "(none)" : names));
}

}  // namespace articula
