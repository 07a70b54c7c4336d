#pragma once
/// The brake / emergency-stop study: a robot moving with its drives off (τ = 0, gravity on,
/// armature as in the model, no damping, joint limits not enforced) has its joint brakes
/// engaged one after another. Each engagement is a constraint activation (A. Müller,
/// "Forward Dynamics of Variable Topology Mechanisms — The Case of Constraint Activation",
/// arXiv:2604.19419): the velocity jumps so that the generalized momentum is balanced by
/// the brake impulse,
///   M (v⁺ − v⁻) = −Jᵀ Λ,   J v⁺ = 0    (J: selection rows of the locked joints),
/// which the consistent jump solves; the naive jump (zero the locked rates, keep the others)
/// violates the balance on the still-free joints. Running both shows how far apart the two
/// predictions of where the flange stops are.
///
/// Between events: RK4 (fixed_step) at dt on constrained_forward_dynamics() with one
/// JointLock per event (Baumgarte at its default frequency); steps are cut to land exactly on
/// the event times.
#include <string>
#include <vector>

#include "articula/model/model.hpp"
#include "articula/solvers/activation.hpp"

namespace articula {

/// Brakes engaged at one instant: the named joints lock together (one JointLock named
/// brake_<joint> for one joint, brake_<joint_a>+<joint_b>… for several).
struct BrakeEvent {
  double time = 0.0;                ///< [s], 0 ≤ time ≤ duration
  std::vector<std::string> joints;  ///< at least one; a joint may be braked by one event only
};

struct BrakeStudyConfig {
  std::string urdf;                ///< model file (used by run_brake_study(config) and for reports)
  std::vector<BrakeEvent> events;  ///< in any order; applied in time order (stable for ties)
  VectorX q0, v0;                  ///< initial state (nq), (nv)
  double duration = 0.5;           ///< [s] > 0
  double dt = 1e-3;                ///< RK4 step [s] > 0
  JumpForm jump = JumpForm::Auto;  ///< Auto/Full/Locks/…: consistent; Naive: zero the locked rates
  std::string flange_frame;        ///< frame whose origin is tracked; empty: the model's last frame
  double sample_period = 0.0;      ///< trajectory sampling [s]; 0: every step (events always sampled)
};

/// One brake engagement as it happened.
struct BrakeEventRecord {
  double time = 0.0;
  std::vector<std::string> joints;
  std::string constraint;          ///< name of the JointLock in the study's ConstraintSet
  std::vector<int> dofs;           ///< the v indices locked by this event
  JumpForm form = JumpForm::Auto;  ///< the jump form actually used
  SolveStatus status = SolveStatus::Ok;
  VectorX v_minus, v_plus;                           ///< (nv) velocity before / after the jump
  VectorX Lambda;                                    ///< (m) impulses of this event's lock (NaN for the naive jump)
  double kinetic_before = 0.0, kinetic_after = 0.0;  ///< [J] ½ vᵀ M v
  double jump_energy = 0.0;                          ///< [J] ½ Δvᵀ M Δv (the Carnot loss for a consistent jump)
  double momentum_residual = 0.0;                    ///< ‖P_ker J (M Δv)‖∞: ~1e-12 consistent, large naive
  double constraint_residual = 0.0;                  ///< ‖J v⁺‖∞ over every active lock
  Vector3 flange{Vector3::Zero()};                   ///< [m] flange origin in the world at the event
};

/// One logged state.
struct BrakeSample {
  double t = 0.0;
  VectorX q, v;
  double kinetic_energy = 0.0, potential_energy = 0.0;
  Vector3 flange{Vector3::Zero()};
};

struct BrakeStudyResult {
  std::string model_name, flange_frame;
  JumpForm jump = JumpForm::Auto;
  std::vector<BrakeEventRecord> events;  ///< in time order
  std::vector<BrakeSample> trajectory;   ///< t = 0, every sample, pre- and post-jump at each event, t = duration
  VectorX q_final, v_final;
  Vector3 flange_first_event{Vector3::Zero()}, flange_final{Vector3::Zero()};
  double stop_distance = 0.0;      ///< [m] flange path length ∫|ṗ| dt from the first event to the end
  double straight_distance = 0.0;  ///< [m] |p_final − p_first event|
  /// Largest |E(t) − E(t_k)| between consecutive events (E = kinetic + potential, t_k the
  /// segment's start), divided by the kinetic energy at t = 0 (or 1 J if that is zero).
  double energy_drift = 0.0;
  int steps = 0;   ///< RK4 steps taken
  bool ok = true;  ///< false if a solve or jump failed (see message)
  std::string message;
};

/// Runs the study on `model` (config.urdf is not read).
/// @throws std::invalid_argument naming the offending value: q0/v0 sizes, duration or dt ≤ 0,
///   an event outside [0, duration] or without joints, an unknown joint or flange frame, a joint
///   braked twice.
/// Numerical trouble during the run (a singular solve) stops it early: ok = false, message says.
/// Cost: 4 constrained solves per step, duration/dt steps.
BrakeStudyResult run_brake_study(const Model& model, const BrakeStudyConfig& config);
/// Loads config.urdf (fixed base), then the above. Throws std::runtime_error for a bad file.
BrakeStudyResult run_brake_study(const BrakeStudyConfig& config);

/// Emergency stop of the RX130 stand-in (models/rx130_standin.urdf, under models_dir): the arm
/// moving fast, brakes on joint_1 at 0.05 s, joint_2 at 0.10 s, joint_3 at 0.15 s, 0.5 s in all;
/// flange frame `flange`.
BrakeStudyConfig default_estop_config(const std::string& models_dir = "models");
/// The 3R pendulum (models/pendulum3r.urdf) falling from horizontal at rest: joint2 locked at
/// 0.3 s, joint3 at 0.6 s, 1 s in all; flange frame `tip`.
BrakeStudyConfig default_pendulum_config(const std::string& models_dir = "models");

}  // namespace articula
