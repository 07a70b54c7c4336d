#pragma once
// Private state of Simulator (src/engine only): workspaces sized once, the event queue, the
// controller clock and the log sinks.
#include <atomic>
#include <chrono>

#include "articula/constraints/frame_constraint.hpp"
#include "articula/engine/simulator.hpp"
#include "articula/model/data.hpp"
#include "articula/solvers/constrained_dynamics.hpp"

namespace articula {

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
  explicit Impl(Robot& robot);

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

  // f(q, v) at the held commands: contacts, motors, ABA or the constrained solve.
  bool rhs(Simulator& sim, VectorRef q, VectorRef v, Eigen::Ref<VectorX> vdot);
  bool step(Simulator& sim, double h_limit, double& h_taken, RunResult& result);
  bool call_controller(Simulator& sim);
  void compute_sensors(Simulator& sim);
  void refresh_active(Simulator& sim);
  std::vector<std::string> columns(const Simulator& sim) const;
  void fill_row(Simulator& sim, double kinetic, double potential);
  void log_sample(Simulator& sim, RunResult& result);
  // Guard crossing in (t0, t0 + h]: locates it and leaves the state just after it.
  bool locate_guards(Simulator& sim, double t0, double h, RunResult& result);
  void apply_events(Simulator& sim, const std::vector<int>& firing, RunResult& result, bool& stop);

  // Joint limits (joint_limits.cpp): one stop per finite limit of a 1-dof joint.
  struct LimitStop {
    std::string name;  // its JointLock and its event: "limit.<joint>.upper" / ".lower"
    int iq = 0, iv = 0;
    double value = 0.0;
    bool upper = true;
    int column = -1;  // index into constraint_names (resolved per run)
  };
  std::vector<LimitStop> limits;
  void add_limit_stops(Simulator& sim);
  bool limit_engaged(const LimitStop& stop) const {
    return stop.column >= 0 && constraint_rows[static_cast<std::size_t>(stop.column)] >= 0;
  }
  // At the start of a run: resolves the stops' columns; throws std::invalid_argument for a
  // joint past a limit; adds to `firing` the stops the state already presses on.
  void start_limits(Simulator& sim, std::vector<int>& firing);
  // After an instant (state evaluated): releases the stops whose multiplier pulls; true if any.
  bool release_limits(Simulator& sim, RunResult& result);
  // Stops the joint is leaving (released, bounced): their guards start just inside the limit,
  // so that a return within the next step is caught even from q a round-off past the stop.
  void arm_leaving(const std::vector<std::string>& names);
  RunResult run(Simulator& sim, double duration);

  Robot& robot;
  std::shared_ptr<const Model> model;
  Data data, aux;
  ConstrainedWorkspace cws;
  FixedStepWorkspace fws;
  Dopri5Workspace dws;
  std::vector<Force> f_ext;
  VectorX tau, q0, v0, qa, va, row;
  AccelerationFn f;
  bool constrained = false;
  // Generated kernels (Simulator::use_generated): `generated_match` when the enabled constraints
  // are the kernels' held frames (refresh_active); their inputs and λ, sized once.
  GeneratedDynamics generated;
  bool generated_match = false;
  std::vector<const FramePairConstraint*> generated_frames;
  std::vector<double> gen_ref, gen_kp, gen_kd;
  VectorX gen_lambda;
  long generated_calls = 0;
  bool generated_rhs(VectorRef q, VectorRef v);
  Failure failure = Failure::None;
  std::string failure_message;
  double t_eval = 0.0;  // time of the current evaluation (for the controller at period 0)
  double h_adaptive = 0.0;
  bool cache_valid = false;  // sim.vdot_ is f at the current state and commands
  bool reuse_first = false;  // the next call of f is a step's first stage at that state

  Controller controller;
  double controller_period = 0.0;
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
