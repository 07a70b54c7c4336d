#pragma once
// Private state of Simulator (src/engine only), its one owner: the simulation state (time,
// q, v, commands, outputs), workspaces sized once, the event queue, the controller clock and
// the log sinks.
#include <atomic>
#include <chrono>
#include <limits>

#include "articula/constraints/frame_constraint.hpp"
#include "articula/engine/simulator.hpp"
#include "articula/model/data.hpp"
#include "articula/solvers/constrained_dynamics.hpp"
#include "engine/dynamics_backend.hpp"

namespace articula {

// True for a joint that gets limit stops with SimulationOptions::joint_limits (joint_limits.cpp):
// a revolute or prismatic joint with a finite lower or upper limit.
bool has_limit_stop(const Model& m, Index j);

/// The fixed-step method of an integrator; Dormand–Prince re-steps (guard location) with RK4.
inline FixedStepMethod fixed_method(Integrator integrator) {
  switch (integrator) {
    case Integrator::ExplicitEuler:
      return FixedStepMethod::ExplicitEuler;
    case Integrator::SemiImplicitEuler:
      return FixedStepMethod::SemiImplicitEuler;
    default:
      return FixedStepMethod::RK4;
  }
}

struct Simulator::Impl {
  Impl(Robot& robot, SimulationOptions options);

  // The simulation state and the outputs of the last evaluation (Simulator's accessors).
  struct State {
    double t = 0.0;
    VectorX q, v, vdot, u, tau_motor, sensors, f_contact;
    std::vector<BrakeState> brake_states;
    VectorX brake_torques, brake_energy;
  };

  struct EventState {
    Event event;
    bool armed = true;   // guard may fire (re-armed by a sign change back when repeat)
    bool done = false;   // time event already applied / one-shot guard fired
    double g = 0.0;      // guard value at the start of the current step
    double g_end = 0.0;  // guard value at the end of the current step
  };

  enum class Failure { None, NonFinite, Solver, Controller };

  // Set by Simulator::request_stop() (maybe in a signal handler), cleared by the run it ends.
  std::atomic<bool> stop_requested{false};
  static_assert(std::atomic<bool>::is_always_lock_free, "request_stop() must be async-signal-safe");

  // Simulator::add_event: validates the event (names resolved now) and queues it.
  void add_event(Event event);
  std::vector<std::string> sensor_channels() const;  // "<sensor>.<channel>"

  // f(q, v) at the held commands: contacts, motors, ABA or the constrained solve.
  bool rhs(VectorRef q, VectorRef v, Eigen::Ref<VectorX> vdot);
  bool step(double h_limit, double& h_taken, RunResult& result);
  bool call_controller();
  void compute_sensors();
  // Selects the back end for the enabled constraints. At the state (at_state: at the start of a
  // run or at an instant, state.q where the next evaluation is), first takes the references
  // that are due, so that the first evaluation can go to the generated kernels too.
  void refresh_active(bool at_state = true);
  std::vector<std::string> columns() const;
  void fill_row(double kinetic, double potential);
  void log_sample(RunResult& result);
  // Guard crossing in (t0, t0 + h]: locates it and leaves the state just after it.
  bool locate_guards(double t0, double h, RunResult& result);
  void apply_events(const std::vector<int>& firing, RunResult& result, bool& stop);

  // Joint limits (joint_limits.cpp): one stop per finite limit of a 1-dof joint.
  struct LimitStop {
    std::string name;  // its JointLock and its event: "limit.<joint>.upper" / ".lower"
    int iq = 0, iv = 0;
    double value = 0.0;
    bool upper = true;
    int column = -1;  // index into constraint_names (resolved per run)
  };
  std::vector<LimitStop> limits;
  void add_limit_stops();
  bool limit_engaged(const LimitStop& stop) const {
    return stop.column >= 0 && constraint_rows[static_cast<std::size_t>(stop.column)] >= 0;
  }
  // At the start of a run: resolves the stops' columns; throws std::invalid_argument for a
  // joint past a limit; adds to `firing` the stops the state already presses on.
  void start_limits(std::vector<int>& firing);
  // After an instant (state evaluated): releases the stops whose multiplier pulls; true if any.
  bool release_limits(RunResult& result);
  // Stops the joint is leaving (released, bounced): their guards start just inside the limit,
  // so that a return within the next step is caught even from q a round-off past the stop.
  void arm_leaving(const std::vector<std::string>& names);
  // The run loop in named stages (simulator_run.cpp; docs/engine.md "A run").
  struct RunState {
    RunResult result;
    double duration = 0.0, t_end = 0.0, eps = 0.0;
    bool recording = false;         // a log or record_samples
    bool sensors_need_rhs = false;  // IMU / effort / force sensors need an evaluation
    bool stop = false;              // an event's stop action
    RunStatus status = RunStatus::Completed;
    std::string message;
    std::chrono::steady_clock::time_point wall0, last_progress;
  };
  RunState run_state;
  RunResult run(double duration);
  // Per-run tables, brakes and logs; false (run_state.result set) when a log cannot start.
  bool begin_run(double duration);
  bool at_instant(std::vector<int> firing, bool force_log);
  bool hold_or_let_go();
  bool advance();
  RunResult finish_run();
  // Helpers of the stages: an evaluation at the current instant (v̇, sensors, brake outputs),
  // the time events due at t, the finite / max_speed check, and the run's failure.
  bool evaluate_at_instant();
  std::vector<int> due_time_events(double t) const;
  bool state_is_sane();
  void fail(RunStatus status, const std::string& what);
  RunStatus failure_status() const;

  // Brakes (brakes.cpp, docs/brakes.md): one JointLock per brake (named as the brake), the
  // drives' stop modes, and the guard events of the switches.
  enum BrakeSwitch { Engage, Stick, Release, Overload, Standstill, Deadline, Saturate };
  struct BrakeRun {
    BrakeState state = BrakeState::Released;
    double sign = 0.0;  // Slipping: sign of q̇ over the segment (the slip torque is −torque·sign)
    double t_engage = std::numeric_limits<double>::infinity();
    int iq = 0, iv = 0, motor = -1;
    int column = -1;          // index of the lock in constraint_names (resolved per run)
    bool overloaded = false;  // pin: the overload was reported
  };
  // Hold: category 1, the joint was at rest at the signal; the drive keeps it there (the
  // brake's lock on, |λ| ≤ effort_limit) until the stop is achieved (brakes.cpp).
  enum class Drive { On, Cut, Decelerate, Hold };
  std::vector<BrakeRun> brake_run;
  std::vector<Drive> drive;        // per motor
  std::vector<double> drive_sign;  // Decelerate: sign of q̇ (command −effort_limit·sign)
  std::vector<int> drive_brake;    // per motor: the brake on its joint (its lock is the hold), or −1
  std::vector<char> drive_held;    // per motor: held since the signal (a standstill holds it again)
  double cat1_deadline = std::numeric_limits<double>::infinity();
  bool registering = false;   // add_event accepts Kind::Brake actions (the simulator's own events)
  bool lambda_valid = false;  // brake_lambda cache at (lambda_q, lambda_v)
  VectorX lambda_q, lambda_v, lambda_vdot, lambda_all;
  void add_brakes();
  bool brake_locked(const BrakeRun& b) const {
    return b.column >= 0 && constraint_rows[static_cast<std::size_t>(b.column)] >= 0;
  }
  // The brake's lock is the holding drive's, not the brake's: the brake is released and the
  // drive on its joint holds (category 1, until the stop is achieved).
  bool drive_holds(const BrakeRun& b) const {
    return b.state == BrakeState::Released && b.motor >= 0 && drive[static_cast<std::size_t>(b.motor)] == Drive::Hold;
  }
  // The lock multiplier of brake k at (q, v) (an evaluation of its own, cached per state).
  double brake_lambda(std::size_t k, VectorRef q, VectorRef v);
  void start_brakes();
  // The next brake time after t (an engagement, the category-1 deadline): steps land on it.
  double next_brake_time(double t) const;
  // Work of the slip torques over the last step (q0 → q): exact for a fixed slip direction.
  void accumulate_brake_energy();
  // At an instant: the stop signals and brake switches of the firing events; the locks to
  // switch on are added to `enables`.
  void brake_actions(const std::vector<int>& firing, std::vector<std::string>& enables);
  // Before a jump: the stuck friction brakes leave the active set (they carry no impulse);
  // returns them, their locks taken out of `enables` and disabled.
  std::vector<std::size_t> brakes_slip_through(std::vector<std::string>& enables);
  // After the jump: re-stick those at rest (returned as locks to enable), the others slip.
  std::vector<std::string> brakes_after_jump(const std::vector<std::size_t>& through, EventRecord& record);
  // The Carnot loss of a jump, shared out to the brake locks by their impulse.
  void brake_jump_energy(const JumpResult& jump, VectorRef v_minus, VectorRef v_plus);
  // After an instant: stuck brakes whose hold is exceeded already (at a stick) slip; true if any.
  bool release_brakes(RunResult& result);
  // Simulator::brake_states / brake_torques from the current evaluation.
  void update_brake_outputs();

  Robot& robot;
  const SimulationOptions options;
  State state;
  std::shared_ptr<const Model> model;
  Data data, aux;
  ConstrainedWorkspace cws;
  // The multipliers of the last evaluation, in the enabled constraints' row order (the back
  // ends write them into cws.lambda; refresh_active sizes it for the set).
  auto multipliers() const { return cws.lambda.head(robot.constraints().dim()); }
  // Those of the last successful evaluation at an instant (Simulator::multipliers()).
  VectorX instant_lambda;
  int instant_rows = 0;
  FixedStepWorkspace fws;
  Dopri5Workspace dws;
  std::vector<Force> f_ext;
  VectorX tau, q0, v0, qa, va, row;
  AccelerationFn f;
  bool constrained = false;
  // The back ends of the evaluations (dynamics_backend.hpp): `dynamics` is the one selected by
  // refresh_active for the enabled constraints; the generated ones are set by
  // Simulator::use_generated (their digest checked) and count their calls in generated_calls.
  long generated_calls = 0;
  long dynamics_calls = 0;  // every evaluation of the dynamics, by any back end
  // The generated kinematics of the contacts' bodies (GeneratedDynamics::body_states), written
  // into data.oMi / data.v of those bodies in place of a whole forward_kinematics.
  BodyStatesKernel contact_states = nullptr;
  // The generated energies (GeneratedDynamics::energy), for log rows whose kinematics a kernel
  // did not leave in `data`.
  EnergyKernel energy_kernel = nullptr;
  std::vector<Index> contact_state_bodies;
  std::vector<double> contact_state_buffer;
  RuntimeAbaDynamics runtime_aba;
  RuntimeConstrainedDynamics runtime_constrained;
  GeneratedAbaDynamics generated_aba;
  GeneratedContactsDynamics generated_contacts;
  GeneratedConstrainedDynamics generated_constrained;
  Dynamics* dynamics = &runtime_aba;
  std::shared_ptr<const void> compiled_owner;
  // Simulator::use_compiled_when_ready: kernels still being compiled; polled between steps.
  std::shared_future<std::shared_ptr<const CompiledKernels>> kernels_in_flight;
  // Between two steps: kernels that became ready are installed (true if they were).
  bool poll_kernels();
  // Simulator::use_compiled: the kernels' digest and held frames checked, the back ends set.
  void install_compiled(std::shared_ptr<const CompiledKernels> kernels);
  void install_generated(GeneratedDynamics kernels);  // the library behind the generated kernels (use_compiled)
  // What `data` holds of the state of the last evaluation: its kinematics (placements and
  // velocities, left by the runtime back ends and the contacts), or only v̇ (a generated kernel).
  enum class DataStage { AccelerationsOnly, KinematicsCurrent };
  DataStage data_stage = DataStage::KinematicsCurrent;
  // The kinematics of (q, v), the state of the last evaluation, in `data`: computed only when
  // that evaluation left none.
  void ensure_kinematics(VectorRef q, VectorRef v);
  Failure failure = Failure::None;
  std::string failure_message;
  double t_eval = 0.0;  // time of the current evaluation (for the controller at period 0)
  double h_adaptive = 0.0;
  bool cache_valid = false;  // state.vdot is f at the current state and commands
  bool reuse_first = false;  // the next call of f is a step's first stage at that state

  Controller controller;
  double controller_period = 0.0;
  bool controller_reads_sensors = true;  // set_controller: else no evaluation for the sensors at a tick
  double next_tick = 0.0;

  std::vector<EventState> events;
  std::vector<std::unique_ptr<LogSink>> sinks;
  std::function<void(double, double)> progress;

  // Log layout: per registered constraint, its column offset and dim; and its row offset
  // among the enabled rows (−1 when disabled).
  std::vector<std::string> constraint_names;
  std::vector<int> constraint_dims, constraint_rows;
  std::vector<int> ft_constraint;  // per sensor: index into constraint_names (ForceTorque on a constraint) or −1
  std::vector<int> ft_contact;     // per sensor: contact index or −1
  std::vector<int> sensor_target;  // per sensor: joint id, motor index or frame id (resolved once per run)
  double next_log = 0.0;
  std::vector<int> pending;  // guard events located in the last step
};

}  // namespace articula
