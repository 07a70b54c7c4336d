#pragma once
/// Joint brakes (issue 18, docs/brakes.md): spring-applied friction brakes that slip with a
/// finite torque and stick at standstill, and pin (tooth) brakes that lock rigidly at
/// engagement. A Brake is hardware of a Robot (Robot::add_brake); the Simulator runs it:
/// a stop signal (EventAction::stop_signal) arms its delay, engagement, stick, release,
/// slip-through and overload are located events, each switching the brake's JointLock.
#include <limits>
#include <string>

namespace articula {

enum class BrakeKind { Friction, Pin };
std::string to_string(BrakeKind kind);  ///< "friction", "pin"
/// "friction" or "pin"; throws std::invalid_argument naming the text.
BrakeKind parse_brake_kind(const std::string& text);

/// Engaging: the stop signal has armed the delay, which is running. Slipping (friction): the
/// brake applies −torque·sign(q̇). Stuck (friction): its lock holds the joint while
/// |λ| ≤ static_torque. Locked (pin): its lock holds the joint for good.
enum class BrakeState { Released, Engaging, Slipping, Stuck, Locked };
std::string to_string(BrakeState state);  ///< "released", "engaging", "slipping", "stuck", "locked"

struct Brake {
  std::string name;  ///< unique; the scenario default is "brake.<joint>"
  std::string joint;  ///< a 1-dof joint
  BrakeKind kind = BrakeKind::Friction;
  double delay = 0.0;   ///< [s] ≥ 0, stop signal → engagement
  double torque = 0.0;  ///< [N·m] at the joint, > 0 (friction: slip torque; pin: holding torque, may be inf)
  /// [N·m] motor side; if > 0 and torque == 0: torque = motor_torque · the joint's motor gear_ratio.
  double motor_torque = 0.0;
  double static_torque = 0.0;  ///< [N·m] ≥ torque; 0 means "equal to torque" (set by Robot::add_brake)
  int dof = -1;                ///< index in v (resolved by Robot::add_brake)
};

/// Numeric code of a state in the logs (column brake.<name>.state): the enum's order, 0..4.
inline double state_code(BrakeState state) { return static_cast<double>(static_cast<int>(state)); }

}  // namespace articula
