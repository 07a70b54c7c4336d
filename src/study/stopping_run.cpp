// One stopping case on the Simulator (docs/stopping.md, "How a case is run").
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <span>
#include <stdexcept>

#include "articula/constraints/joint_lock.hpp"
#include "articula/dynamics/crba.hpp"
#include "articula/dynamics/rnea.hpp"
#include "articula/engine/robot.hpp"
#include "articula/engine/simulator.hpp"
#include "articula/model/data.hpp"
#include "articula/study/stopping.hpp"

namespace articula {
namespace {

constexpr double kRadToDeg = 180.0 / 3.14159265358979323846;

std::string lock_name(const std::string& joint) { return "brake." + joint; }

// A log sink that keeps only what the figures need, as the rows come: the flange path length
// (polyline through the logged flange positions, one per step: the chord sum converges to
// ∫|ṗ| dt at O(dt²)) and the largest |λ| of the tested joint's brake lock.
// The Simulator releases its logs at the end of a run: the sink writes into `out`.
struct SinkFigures {
  double path_length = 0.0, peak_lambda = 0.0;
};
class FigureSink final : public LogSink {
 public:
  FigureSink(std::string lock_column, SinkFigures& out) : lock_column_(std::move(lock_column)), out_(out) {}
  void begin(const std::vector<std::string>& columns) override {
    for (int k = 0; k < 3; ++k) {
      pos_[k] = index_of(columns, std::string("sensor.flange.") + "xyz"[k]);
      if (pos_[k] < 0) throw std::logic_error("stopping: no flange position column in the log");
    }
    lambda_ = index_of(columns, lock_column_);
  }
  void append(std::span<const double> row) override {
    const Vector3 p(row[pos_[0]], row[pos_[1]], row[pos_[2]]);
    if (have_) out_.path_length += (p - last_).norm();
    last_ = p;
    have_ = true;
    if (lambda_ >= 0 && std::isfinite(row[lambda_])) out_.peak_lambda = std::max(out_.peak_lambda, std::abs(row[lambda_]));
  }
  void event(const EventLogRow&) override {}
  void flush() override {}
  void finish(const LogStatus&) override {}
  const std::string& path() const override { return name_; }


 private:
  static int index_of(const std::vector<std::string>& columns, const std::string& name) {
    const auto it = std::find(columns.begin(), columns.end(), name);
    return it == columns.end() ? -1 : static_cast<int>(it - columns.begin());
  }
  std::string lock_column_;
  SinkFigures& out_;
  int lambda_ = -1;
  int pos_[3] = {0, 0, 0};
  Vector3 last_{Vector3::Zero()};
  bool have_ = false;
  std::string name_ = "(stopping figures)";
};

// The model of one case: the study's, with gravity and the payload (a rigid body at the
// payload frame, mass and principal moments scaled by the payload fraction) merged into the
// frame's body (RBDA §2.13: inertias of rigidly joined bodies add in a common frame).
Model case_model(const StoppingStudy& s, const StoppingCase& c) {
  Model m = *s.model;
  m.gravity = Motion(s.gravity, Vector3::Zero());
  const double f = s.payloads[c.payload];
  if (s.payload.rated_mass > 0.0) {
    const Frame& fr = m.frames[m.frame_id(s.payload.frame)];
    if (fr.parent == kWorld) throw std::invalid_argument("stopping: the payload frame '" + fr.name + "' is fixed to the world");
    const Matrix3 Ic = (f * s.payload.inertia).asDiagonal();
    m.inertias[fr.parent] += Inertia::from_com(f * s.payload.rated_mass, s.payload.com, Ic).transformed(fr.placement);
  }
  return m;
}

double brake_factor(const std::vector<double>& v, std::size_t k) { return v.empty() ? 1.0 : v[k]; }

}  // namespace

bool real_brakes_available() { return false; }

namespace {
void add_drives(const StoppingStudy& s, Robot& robot) {
  for (const StoppingDrive& d : s.drives) {
    Motor m;
    m.name = m.joint = d.joint;
    m.gear_ratio = d.gear_ratio;
    m.rotor_inertia = d.rotor_inertia;
    m.effort_limit = d.effort_limit;
    robot.add_motor(m);
  }
}
}  // namespace

Model stopping_case_model(const StoppingStudy& s, const StoppingCase& c) {
  Robot robot(case_model(s, c));
  add_drives(s, robot);
  return robot.model();
}

StopFigures run_stopping_case(const StoppingStudy& s, const StoppingCase& c, BrakeModel brake_model,
                              const BrakeScaling& scaling) {
  if (brake_model == BrakeModel::Real && !real_brakes_available())
    throw std::invalid_argument("stopping: the real brakes (friction / pin) are not in this build");
  Robot robot(case_model(s, c));
  add_drives(s, robot);
  robot.add_sensor({"flange", SensorType::Position, s.flange});
  const Model& model = robot.model();  // after the motors: add_motor() rebuilds it (armature)
  for (const StoppingBrake& b : s.brakes)
    robot.constraints().add(std::make_shared<JointLock>(model, lock_name(b.joint), std::vector<std::string>{b.joint}),
                            false);

  // Initial state: the pose, the tested joint at its speed (downward: against g(q)).
  const StoppingJoint& tj = s.joints[c.joint];
  const int dof = model.idx_v[model.joint_id(tj.joint)];
  const VectorX q0 = s.extensions[c.extension].q;
  VectorX v0 = VectorX::Zero(model.nv);
  Data data(model);
  int sign = tj.direction;
  if (sign == 0) {
    const double g = generalized_gravity(model, data, q0)[dof];
    sign = std::abs(g) > 1e-9 ? (g > 0.0 ? -1 : 1) : 1;
  }
  v0[dof] = sign * s.speeds[c.speed] * tj.max_speed;

  SimulationOptions options;
  options.integrator = Integrator::RK4;
  options.dt = s.dt;
  Simulator sim(robot, options);
  sim.set_state(q0, v0);

  // Every joint braked → all at rest once the last lock is on: the run stops there.
  bool all_braked = true;
  for (Index j = 0; j < model.njoints; ++j)
    if (model.nv_joint[j] == 1 &&
        std::none_of(s.brakes.begin(), s.brakes.end(), [&](const StoppingBrake& b) { return b.joint == model.joint_names[j]; }))
      all_braked = false;

  if (c.category == 0) {
    // Drives off at the signal (commands 0); each lock at its brake's delay, the last one stops.
    double last = 0.0;
    for (std::size_t k = 0; k < s.brakes.size(); ++k)
      last = std::max(last, s.brakes[k].delay * brake_factor(scaling.delay, k));
    bool stop_added = false;
    for (std::size_t k = 0; k < s.brakes.size(); ++k) {
      const double t = s.brakes[k].delay * brake_factor(scaling.delay, k);
      Event e{lock_name(s.brakes[k].joint), t, {}, 0, false, {EventAction::enable(lock_name(s.brakes[k].joint))}};
      if (all_braked && t == last && !stop_added) {
        e.actions.push_back(EventAction::stop());
        stop_added = true;
      }
      sim.add_event(std::move(e));
    }
  } else {
    // Category 1 (IEC 60204-1 §9.2.2): the drives stop the motion, then the brakes hold. The
    // tested joint's drive brakes at its effort limit, u = −E sign(q̇); the other drives hold
    // their joints: u = g(q) − k q̇ (gravity compensation and damping, k = 0.2 M_kk / dt keeps
    // RK4 well inside its stability bound), saturated at their limits. At the tested joint's
    // standstill (a located guard) or at cat1_max_time, every lock engages and the run stops.
    const VectorX M = crba(model, data, q0).diagonal();
    auto gdata = std::make_shared<Data>(model);
    std::vector<int> motor_dof;
    for (const Motor& m : robot.motors()) motor_dof.push_back(m.dof);
    const double E = robot.motor(tj.joint).effort_limit;
    const double dt = s.dt;
    const Model* mp = &model;
    sim.set_controller(
        [=](double, VectorRef q, VectorRef v, VectorRef, Eigen::Ref<VectorX> u) {
          const VectorX& g = generalized_gravity(*mp, *gdata, q);
          for (std::size_t i = 0; i < motor_dof.size(); ++i) {
            const int k = motor_dof[i];
            u[static_cast<Index>(i)] = k == dof ? -E * (sign > 0 ? 1.0 : -1.0) : g[k] - 0.2 * M[k] / dt * v[k];
          }
          // Standstill reached (the locks are on): power removed, the brakes hold.
          if (sign * v[dof] <= 0.0) u.setZero();
          return true;
        },
        0.0);
    std::vector<EventAction> lock_all;
    for (const StoppingBrake& b : s.brakes) lock_all.push_back(EventAction::enable(lock_name(b.joint)));
    lock_all.push_back(EventAction::stop());
    sim.add_event({"standstill", std::nullopt, joint_velocity_guard(model, tj.joint, 0.0), sign > 0 ? -1 : 1, false,
                   lock_all});
    sim.add_event({"cat1_max_time", s.cat1_max_time, {}, 0, false, lock_all});
  }
  if (!all_braked) {
    const double rest = s.rest_speed;
    sim.add_event({"at_rest", std::nullopt,
                   [rest](double, VectorRef, VectorRef v) { return v.cwiseAbs().maxCoeff() - rest; }, -1, false,
                   {EventAction::stop()}});
  }
  SinkFigures figures;
  sim.add_log(std::make_unique<FigureSink>("lambda." + lock_name(tj.joint) + ".0", figures));
  const RunResult r = sim.run(s.max_duration);

  StopFigures out;
  out.stop_time = r.t;
  out.distance_deg = std::abs(sim.q()[model.idx_q[model.joint_id(tj.joint)]] - q0[model.idx_q[model.joint_id(tj.joint)]]) *
                     kRadToDeg;
  out.path_mm = figures.path_length * 1e3;
  out.peak_torque = figures.peak_lambda;
  out.ok = r.status == RunStatus::Stopped;
  if (!out.ok)
    out.message = r.status == RunStatus::Completed ? "not at rest after max_duration" : to_string(r.status) + ": " + r.message;
  return out;
}

}  // namespace articula
