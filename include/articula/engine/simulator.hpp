#pragma once
/// The simulation loop (ARCHITECTURE.md, "The pipeline", stages 1–8): a Robot integrated on
/// its configuration manifold, a controller at its own period, events that switch constraints
/// (with consistent, naive or no velocity jump), and telemetry.
///
/// One evaluation of the right-hand side f(t, q, v) is stages 1–5 (Impl::rhs):
///   1. forward kinematics; 2. elastic contact forces → external forces;
///   3. motor efforts τ = sat(u) − friction(q̇) (u held from the last controller call, or the
///      controller called now when its period is 0);
///   4 + 5. ABA when no constraint is enabled, else constrained_forward_dynamics() (method
///      chosen by options.method; it computes the active rows, stage 4) with the contacts'
///      forces as external forces.
/// Each step then integrates (6), applies the events of its instants (7) and records (8).
///
/// Events at one instant are applied in this order (docs/engine.md): events sorted by time,
/// then by registration order; their actions gathered as: disables, command changes, then all
/// enables in one activation (one jump for simultaneous locks; the jump form of the first
/// enabling event is used, Naive wins if any asks for it), then stop.
#include <chrono>
#include <functional>
#include <future>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "articula/codegen/compiled.hpp"
#include "articula/codegen/kernels.hpp"
#include "articula/engine/robot.hpp"
#include "articula/engine/telemetry.hpp"
#include "articula/integrators/dopri5.hpp"
#include "articula/integrators/fixed_step.hpp"
#include "articula/model/data.hpp"
#include "articula/solvers/activation.hpp"

namespace articula {

enum class Integrator { ExplicitEuler, SemiImplicitEuler, RK4, DormandPrince };
std::string to_string(Integrator integrator);
/// "euler", "semi_implicit_euler", "rk4", "dopri5"; throws std::invalid_argument.
Integrator parse_integrator(const std::string& text);

struct SimulationOptions {
  Integrator integrator = Integrator::RK4;
  double dt = 1e-3;          ///< [s] fixed step; first trial step of Dormand–Prince
  AdaptiveOptions adaptive;  ///< Dormand–Prince tolerances and step bounds
  ConstrainedMethod method = ConstrainedMethod::Auto;
  double event_tolerance = 1e-9;  ///< [s] width of the bracket a guard crossing is located in
  double log_period = 0.0;        ///< [s] between logged samples; 0: every step (events always logged)
  double max_speed = 1e4;         ///< |v|∞ above this stops the run as exploded
  bool record_samples = false;    ///< also keep the logged rows in RunResult::samples (tests, small runs)
  /// Enforce the position limits of the 1-dof joints (model.lower / upper, from URDF) as exact
  /// one-sided stops (docs/engine.md, "Joint limits"): reaching a limit is an event that locks
  /// the joint there with a consistent velocity jump (a JointLock named
  /// "limit.<joint>.upper" / ".lower", added to the robot's constraints by the constructor);
  /// the lock lets go when its multiplier would pull the joint onto the stop.
  bool joint_limits = false;
  double limit_restitution = 0.0;  ///< e of a limit impact: 0 stays on the stop, e > 0 bounces at −e q̇⁻
  /// Impacts slower than this [rad/s or m/s] are plastic: ends the ever shorter bounces of
  /// e > 0 (a Zeno sequence) by resting on the stop.
  double limit_bounce_velocity = 1e-2;
  /// Throws std::invalid_argument naming the field.
  void validate() const;
};

/// Sensor readings, flat, in the order of Robot::sensors() and their channels.
using SensorReadings = VectorX;

/// u = controller(t, q, v, sensors); write the commands (one per motor, Robot::motors() order)
/// into u (holding the previous commands). Return false to stop the run (status controller_failed).
using Controller = std::function<bool(double t, VectorRef q, VectorRef v, VectorRef sensors, Eigen::Ref<VectorX> u)>;

/// PD to targets by joint name: u = kp (q* − q) − kd q̇ on the motor of each joint (others 0).
/// Throws for an unknown joint or a joint without a motor.
Controller pd_controller(const Robot& robot, const std::vector<std::pair<std::string, double>>& targets, double kp,
                         double kd);

/// g(t, q, v): an event fires when g crosses zero.
using Guard = std::function<double(double t, VectorRef q, VectorRef v)>;
/// Guards on common quantities (names resolved now; throw for unknown names):
Guard joint_position_guard(const Model& model, const std::string& joint, double value);  ///< q_j − value
Guard joint_velocity_guard(const Model& model, const std::string& joint, double value);  ///< q̇_j − value
/// z of the frame origin − value (needs forward kinematics: evaluated on its own Data).
Guard frame_height_guard(std::shared_ptr<const Model> model, const std::string& frame, double value);

struct EventAction {
  /// StopSignal: the emergency stop of the robot's brakes (docs/brakes.md). Brake: a brake's
  /// own switch (engage, stick, release, overload, drive standstill, category-1 deadline),
  /// used by the events the Simulator registers for Robot::brakes(); not for user events.
  enum class Kind { Enable, Disable, SetCommand, Stop, StopSignal, Brake };
  Kind kind = Kind::Stop;
  std::string target;              ///< constraint (Enable/Disable), motor (SetCommand), brake (Brake)
  JumpForm jump = JumpForm::Auto;  ///< Enable: Auto/Full/… consistent; Naive; None
  double value = 0.0;              ///< SetCommand: the new held command; StopSignal: category-1 max time [s]
  int category = 0;                ///< StopSignal: 0 or 1; Brake: the switch (internal code)
  static EventAction enable(std::string constraint, JumpForm jump = JumpForm::Auto);
  static EventAction disable(std::string constraint);
  static EventAction set_command(std::string motor, double value);
  static EventAction stop();
  /// Category 0: the drives are cut at once and every brake's delay is armed. Category 1: each
  /// motor decelerates its joint at its effort limit; at the joint's standstill (a located
  /// event) its drive is cut and the brake's delay armed; at cat1_max_time after the signal
  /// every drive still on is cut and every brake armed.
  static EventAction stop_signal(int category = 0, double cat1_max_time = std::numeric_limits<double>::infinity());
  std::string describe() const;
};

struct Event {
  std::string name;
  std::optional<double> time;  ///< fires at this time [s] …
  Guard guard;                 ///< … or when the guard crosses zero
  int direction = 0;           ///< guard: +1 rising only, −1 falling only, 0 both
  bool repeat = false;         ///< guard: may fire again after re-arming (sign change back)
  std::vector<EventAction> actions;
};

/// What happened at one event instant.
struct EventRecord {
  double time = 0.0;
  std::vector<std::string> names;  ///< events applied together at this instant, in order
  std::string actions;             ///< their actions, described
  double kinetic_before = 0.0, kinetic_after = 0.0, potential = 0.0;
  bool jumped = false;
  JumpForm form = JumpForm::None;  ///< the jump form used (None without enable)
  SolveStatus jump_status = SolveStatus::Ok;
  VectorX v_minus, v_plus;
  double momentum_residual = 0.0, constraint_residual = 0.0;
};

enum class RunStatus {
  Completed,         ///< reached the requested duration
  Stopped,           ///< a stop action
  NonFinite,         ///< NaN/inf in the state or the accelerations
  Exploded,          ///< |v|∞ above options.max_speed
  SolverFailed,      ///< the constrained solve or a jump reported Singular / NonFinite
  StepTooSmall,      ///< Dormand–Prince needed a step below min_step
  ControllerFailed,  ///< the controller returned false or threw
  Error,             ///< a user callback (constraint, guard) or the log threw; the message says what
  Interrupted,       ///< request_stop() (e.g. from a SIGINT handler): ended between two steps
};
std::string to_string(RunStatus status);

struct RunResult {
  RunStatus status = RunStatus::Completed;
  std::string message;  ///< what happened, when (t) and where (joint / constraint) for failures
  double t = 0.0;       ///< time reached
  long steps = 0, rejected = 0, evaluations = 0;
  std::vector<EventRecord> events;
  std::vector<std::string> columns;  ///< log columns (always filled)
  std::vector<VectorX> samples;      ///< logged rows when options.record_samples
  double wall_time = 0.0;            ///< [s]
  /// Simulator::use_compiled_when_ready: the time [s] from which this run used the compiled
  /// kernels; NaN when it did not switch.
  double compiled_from = std::numeric_limits<double>::quiet_NaN();
  bool ok() const { return status == RunStatus::Completed || status == RunStatus::Stopped; }
  double real_time_factor() const { return wall_time > 0 ? t / wall_time : 0.0; }
};

/// Kernels written by `articula codegen` for this robot's model (docs/codegen.md), which the
/// Simulator calls in place of the runtime algorithms where they apply: `aba` when no
/// constraint is enabled; `constrained_dynamics` when every enabled constraint is one the
/// kernels declare — a FrameConstraint in the world or a LoopConstraint on one of
/// `held_frames` with its frames and mask (HeldFrame::mask()), a DistanceConstraint between the
/// frames of one of `distances`, a WheelConstraint with the numbers of one of `wheels`, or a JointLock (a brake's, a
/// limit stop's) of joints in `locked_joints` — and the method is Auto or RangeSpace. The kernels' `active` input
/// switches the declared ones on and off, so any subset of them runs on the kernels. With elastic contacts, their
/// `_fext` forms (generated with external forces) in the same cases; without those, the runtime algorithms. A kernel
/// that returns false (dependent rows) hands that evaluation to the runtime solver.
/// With the robot's elastic contacts declared (`contacts`: each contact's frame, offset and
/// plane, in the robot's order): `aba_contacts`, the contacts' forces inside it, when no
/// constraint is enabled.
using GeneratedDynamics = KernelTable;

/// The held frames to compile for `robot` (compile_kernels): its FrameConstraints (in the world)
/// and LoopConstraints (to another frame), with their masks, in their order. A set with a
/// callback constraint enabled runs on the runtime solver.
std::vector<HeldFrame> compilable_held_frames(const Robot& robot);
/// The joints to lock in the compiled kernels for `robot`: those of its JointLocks and of its
/// brakes, and, when `joint_limits`, the revolute and prismatic joints with a finite limit
/// (the Simulator's limit stops), in model order.
std::vector<std::string> compilable_locked_joints(const Robot& robot, bool joint_limits);
/// The distances to compile for `robot`: its DistanceConstraints, in their order.
std::vector<HeldDistance> compilable_distances(const Robot& robot);
/// The wheels to compile for `robot`: its WheelConstraints, with their numbers, in their order.
std::vector<HeldWheel> compilable_wheels(const Robot& robot);
/// The elastic contacts to compile for `robot` (aba_contacts): each contact's frame, offset and
/// plane, in their order; none when one of them is on a height field (the runtime contact law
/// then runs, with the kernels that take external forces).
std::vector<DeclaredContact> compilable_contacts(const Robot& robot);
/// The options compile_kernels needs for `robot`: its compilable_held_frames,
/// compilable_locked_joints, compilable_distances and compilable_wheels; its compilable_contacts
/// when it starts with no constraint enabled (aba_contacts: talos standing on welded feet
/// would never call it); the kernels with external forces and body_states of the contacts'
/// frames when it has contacts and constraints, or no compilable contacts; and only the kernels
/// the engine calls (CompileOptions::engine_kernels_only).
CompileOptions compile_options_for(const Robot& robot, const SimulationOptions& options = {});

/// Owns the simulation state (in its implementation; the accessors below read it). Not
/// copyable: a copy would have to duplicate a run's event queue, logs and loaded kernels.
/// Movable: the state, the callbacks the simulator registers (brake and limit guards) and the
/// right-hand side live in the implementation, which a move hands over unchanged; a moved-from
/// Simulator may only be destroyed or assigned to.
class Simulator {
 public:
  /// The robot must outlive the simulator. Throws for invalid options.
  explicit Simulator(Robot& robot, SimulationOptions options = {});
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;
  Simulator(Simulator&&) noexcept;
  Simulator& operator=(Simulator&&) noexcept;

  /// Initial state; throws for wrong sizes or non-finite values (naming the joint).
  void set_state(VectorRef q, VectorRef v, double t = 0.0);
  /// Held commands (one per motor); throws for a wrong size.
  void set_commands(VectorRef u);
  void set_command(const std::string& motor, double u);
  /// period > 0: called at t = k·period with zero-order hold between calls; 0: at every evaluation.
  /// reads_sensors = false (a controller of q and v only, as pd_controller and
  /// feedback_controller): at a tick the IMU / effort / force sensors are not evaluated for it,
  /// which saves one evaluation of the dynamics per tick; it then gets the sensors of the last
  /// evaluation. The logged sensors are the same either way.
  void set_controller(Controller controller, double period = 0.0, bool reads_sensors = true);
  /// Validates the event (time ≥ 0, a time or a guard, known constraint / motor names) now.
  void add_event(Event event);
  void add_log(std::unique_ptr<LogSink> sink);
  /// Uses generated kernels (see GeneratedDynamics). Throws std::invalid_argument if their digest
  /// is not the robot model's (kernels of another model, or of other armature / gravity).
  void use_generated(GeneratedDynamics kernels);
  /// Uses kernels compiled on demand (compile_kernels(robot.model(), ...)) as use_generated
  /// does, and keeps their library loaded while this simulator lives.
  void use_compiled(std::shared_ptr<const CompiledKernels> kernels);
  /// Kernels compiled in the background (e.g. std::async of compile_kernels(robot.model(), ...)):
  /// the runtime algorithms run until they are ready. A run looks at the future only between
  /// two steps (never inside an evaluation); once it is ready with kernels, they are used as
  /// use_compiled does from that step on, and RunResult::compiled_from holds the time of the
  /// switch. A future that holds an exception (no compiler, the compile failed) or no kernels
  /// leaves the runtime algorithms in use; the caller reads the error from its own copy of the
  /// future. The switch time depends on the wall clock: such runs are not bitwise
  /// reproducible (use_compiled, after waiting, is).
  void use_compiled_when_ready(std::shared_future<std::shared_ptr<const CompiledKernels>> kernels);
  /// Evaluations done by the generated kernels since construction (for checks and profiles).
  long generated_evaluations() const;
  /// Evaluations of the dynamics by any back end since construction: the integrator's and
  /// those at events (brakes, sensors at an instant). RunResult::evaluations counts the
  /// integrator's of one run.
  long dynamics_evaluations() const;
  /// Called with progress (t, duration) about every 0.1 s of wall time (terminal progress bars).
  void set_progress(std::function<void(double t, double duration)> progress);

  /// Runs from the current time to t + duration (> 0). The logs added so far record this run:
  /// begun here, finished at its end (also on failure), then released. Can be called again to
  /// continue (add new logs first to record the continuation).
  RunResult run(double duration);
  /// Asks the current run (or, if none is going, the next one) to end before its next step,
  /// with status Interrupted and its logs finished as for any other end. Async-signal-safe
  /// (one lock-free atomic store): callable from a signal handler or another thread.
  void request_stop() noexcept;

  double time() const;
  const VectorX& q() const;
  const VectorX& v() const;
  const VectorX& vdot() const;
  const VectorX& commands() const;
  const VectorX& efforts() const;         ///< per motor
  const VectorX& sensors() const;         ///< flat, see sensor_channels()
  const VectorX& contact_forces() const;  ///< 3 per contact, world
  /// Per brake, in Robot::brakes() order (docs/brakes.md): its state, the torque it applies
  /// (slipping: −torque·sign(q̇)) or holds (stuck, locked: the lock's multiplier λ) [N·m], and
  /// the energy it has dissipated since the simulator was made [J].
  const std::vector<BrakeState>& brake_states() const;
  const VectorX& brake_torques() const;
  const VectorX& brake_energy() const;
  /// The multipliers λ of the enabled constraints at the current instant (the evaluation that
  /// gives vdot() and sensors(); the log's lambda.* columns) [N, N·m], in the enabled
  /// constraints' row order: robot().constraints().rows_of(name, λ) for one. Empty when none is
  /// enabled or before a run; after a failed evaluation, those of the last successful instant.
  /// The solvers' result (ConstrainedWorkspace::lambda), not state of the ConstraintSet.
  VectorX multipliers() const;
  std::vector<std::string> sensor_channels() const;  ///< "<sensor>.<channel>"
  std::vector<std::string> log_columns() const;
  const Robot& robot() const;
  const SimulationOptions& options() const;
  /// Kinetic, potential (gravity) and total energy at the current state.
  double kinetic_energy();
  double potential_energy();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace articula
