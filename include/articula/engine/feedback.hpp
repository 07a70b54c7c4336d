#pragma once
/// A linear state-feedback controller by signal names (a segway's balance loop, a PD law):
///   u[m] = bias[m] + Σ_{terms k on motor m} gain_k · (signal_k − target_k)
/// evaluated at every controller call. Motors without a term or a bias get u = 0.
#include <string>
#include <utility>
#include <vector>

#include "articula/engine/simulator.hpp"

namespace articula {

/// One term gain · (signal − target) added to a motor's command.
///
/// Signals, by name (resolved when the controller is built):
/// - `q.<joint>`, `v.<joint>`: position [rad or m] and rate of a 1-dof joint;
/// - `roll.<frame>`, `pitch.<frame>`, `yaw.<frame>` [rad]: tilt angles of the frame's world
///   orientation R (columns: the frame's axes in world axes), each the angle of one axis
///   projected on a world coordinate plane:
///     roll  = atan2(−R(1,2), R(2,2))   the frame's z axis in the world yz plane, about +x;
///     pitch = atan2( R(0,2), R(2,2))   the frame's z axis in the world xz plane, about +y
///                                      (as tests/constraints/segway_test.cpp measures the body);
///     yaw   = atan2( R(1,0), R(0,0))   the frame's x axis in the world xy plane, about +z.
///   Each is exact for a rotation about its own axis and agrees with the ZYX Euler angles to
///   first order near the identity; they stay continuous in (−π, π].
/// - `rate.<frame>.x|y|z` [rad/s]: the frame's angular velocity in world axes.
struct FeedbackTerm {
  std::string motor;    ///< a motor of the robot
  std::string signal;   ///< see above
  double gain = 0.0;    ///< [command unit / signal unit], finite
  double target = 0.0;  ///< set point of the signal, finite
};

/// Builds the controller for `robot` (its model and motors as they are now; the robot must
/// outlive the controller). `bias` gives constant commands per motor name.
/// @throws std::invalid_argument for an unknown motor (motors listed), an unknown or malformed
///   signal (the valid forms and the joint / frame names listed), a joint that is not 1-dof, or a
///   non-finite gain, target or bias.
/// The returned controller keeps its own Data (kinematics only when a frame signal is used):
/// no allocation per call; cost O(n) with frame signals (one forward kinematics), O(terms) without.
Controller feedback_controller(const Robot& robot, std::vector<FeedbackTerm> terms,
                               const std::vector<std::pair<std::string, double>>& bias = {});

/// The value of one signal at (q, v), for tests and reports (allocates a Data).
/// @throws std::invalid_argument as feedback_controller() for a bad signal name.
double feedback_signal(const Model& model, const std::string& signal, VectorRef q, VectorRef v);

}  // namespace articula
