// One stopping case on the Simulator (docs/stopping.md, "How a case is run").
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <span>
#include <stdexcept>

#include "articula/dynamics/rnea.hpp"
#include "articula/engine/brake.hpp"
#include "articula/engine/robot.hpp"
#include "articula/engine/simulator.hpp"
#include "articula/model/data.hpp"
#include "articula/study/stopping.hpp"

namespace articula {
namespace {

constexpr double kRadToDeg = 180.0 / 3.14159265358979323846;

// The engine's default brake name (docs/scenarios.md, brakes:); its lock has the same name.
std::string brake_name(const std::string& joint) { return "brake." + joint; }

// A log sink that keeps only what the figures need, as the rows come: the flange path length
// (polyline through the logged flange positions, one per step: the chord sum converges to
// ∫|ṗ| dt at O(dt²)) and the largest |torque| the tested joint's brake applies or holds.
// The Simulator releases its logs at the end of a run: the sink writes into `out`.
struct SinkFigures {
  double path_length = 0.0, peak_torque = 0.0;
  Vector3 last{Vector3::Zero()};  // the last logged flange position (kept across run slices)
  bool have = false;
};
class FigureSink final : public LogSink {
 public:
  FigureSink(std::string torque_column, SinkFigures& out) : torque_column_(std::move(torque_column)), out_(out) {}
  void begin(const std::vector<std::string>& columns) override {
    for (int k = 0; k < 3; ++k) {
      pos_[k] = index_of(columns, std::string("sensor.flange.") + "xyz"[k]);
      if (pos_[k] < 0) throw std::logic_error("stopping: no flange position column in the log");
    }
    torque_ = index_of(columns, torque_column_);
  }
  void append(std::span<const double> row) override {
    const Vector3 p(row[pos_[0]], row[pos_[1]], row[pos_[2]]);
    if (out_.have) out_.path_length += (p - out_.last).norm();
    out_.last = p;
    out_.have = true;
    if (torque_ >= 0 && std::isfinite(row[torque_]))
      out_.peak_torque = std::max(out_.peak_torque, std::abs(row[torque_]));
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
  std::string torque_column_;
  SinkFigures& out_;
  int torque_ = -1;
  int pos_[3] = {0, 0, 0};
  std::string name_ = "(stopping figures)";
};

// The model of one case: the study's, with gravity and the payload (a rigid body at the
// payload frame, mass and principal moments scaled by the payload fraction) merged into the
// frame's body (RBDA §2.13: inertias of rigidly joined bodies add in a common frame).
Model case_model(const StoppingStudy& s, const StoppingCase& c) {
  Model m = *s.model;
  m.gravity = Motion{s.gravity, Vector3::Zero()};
  const double f = s.payloads[c.payload];
  if (s.payload.rated_mass > 0.0) {
    const Frame& fr = m.frames[m.frame_id(s.payload.frame)];
    if (fr.parent == kWorld)
      throw std::invalid_argument("stopping: the payload frame '" + fr.name + "' is fixed to the world");
    const Matrix3 Ic = (f * s.payload.inertia).asDiagonal();
    m.inertias[fr.parent] += Inertia::from_com(f * s.payload.rated_mass, s.payload.com, Ic).transformed(fr.placement);
  }
  return m;
}

double brake_factor(const std::vector<double>& v, std::size_t k) { return v.empty() ? 1.0 : v[k]; }

}  // namespace

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
  Robot robot(case_model(s, c));
  add_drives(s, robot);
  robot.add_sensor({"flange", SensorType::Position, s.flange});
  // The engine brakes (docs/brakes.md), each with its lock named after it. Ideal: a pin with an
  // infinite holding torque at the same delay, i.e. a JointLock switched on with the consistent
  // jump at engagement (bit for bit the ideal lock event, docs/brakes.md "The stop signal").
  for (std::size_t k = 0; k < s.brakes.size(); ++k) {
    const StoppingBrake& sb = s.brakes[k];
    Brake b;
    b.name = brake_name(sb.joint);
    b.joint = sb.joint;
    b.delay = sb.delay * brake_factor(scaling.delay, k);
    if (brake_model == BrakeModel::Ideal) {
      b.kind = BrakeKind::Pin;
      b.torque = std::numeric_limits<double>::infinity();
    } else {
      const double f = brake_factor(scaling.torque, k);
      b.kind = parse_brake_kind(sb.kind);
      b.torque = sb.torque * f;
      b.static_torque = sb.static_torque * f;
    }
    robot.add_brake(b);
  }
  const Model& model = robot.model();  // after the motors: add_motor() rebuilds it (armature)

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
  // The stop signal at t = 0 (IEC 60204-1 §9.2.2): category 0 cuts the drives and arms every
  // brake; category 1 decelerates each moving joint at its drive's effort limit and arms its
  // brake at the joint's standstill (or at cat1_max_time).
  sim.add_event({"stop_signal", 0.0, {}, 0, false, {EventAction::stop_signal(c.category, s.cat1_max_time)}});

  // Run in slices until every brake holds (stuck or locked) and every joint is at rest: the
  // brakes' states are modes that change only at their events, so the end is checked between
  // slices and the stop time is taken from the events (the last stick or pin lock).
  SinkFigures figures;
  const std::string torque_column = "brake." + brake_name(tj.joint) + ".torque";
  std::vector<EventRecord> events;
  StopFigures out;
  constexpr double kSlice = 0.025;  // [s]
  for (;;) {
    const double left = s.max_duration - sim.time();
    if (left <= 1e-12) {
      out.message = "not at rest after max_duration";
      break;
    }
    sim.add_log(std::make_unique<FigureSink>(torque_column, figures));
    RunResult r = sim.run(std::min(kSlice, left));
    for (EventRecord& e : r.events) events.push_back(std::move(e));
    if (r.status != RunStatus::Completed) {
      out.message = to_string(r.status) + ": " + r.message;
      break;
    }
    const auto& st = sim.brake_states();
    const bool held = std::all_of(st.begin(), st.end(),
                                  [](BrakeState b) { return b == BrakeState::Stuck || b == BrakeState::Locked; });
    if (held && sim.v().cwiseAbs().maxCoeff() <= s.rest_speed) {
      out.ok = true;
      break;
    }
  }

  // Hold instants, and slips of a brake after it had stuck (release, or slip-through at a jump).
  std::vector<bool> stuck(s.brakes.size(), false);
  double last_hold = 0.0;
  for (const EventRecord& e : events)
    for (const std::string& n : e.names)
      for (std::size_t k = 0; k < s.brakes.size(); ++k) {
        const std::string& b = robot.brakes()[k].name;
        if (!n.starts_with(b) || n.size() <= b.size() || n[b.size()] != '.') continue;
        const std::string what = n.substr(b.size() + 1);
        if (what == "stick" || (what == "engage" && robot.brakes()[k].kind == BrakeKind::Pin)) {
          stuck[k] = what == "stick";
          last_hold = std::max(last_hold, e.time);
        } else if ((what == "release" || what == "slip_through") && stuck[k]) {
          stuck[k] = false;
          if (!out.slipped) out.slip_time = e.time;
          out.slipped = true;
        }
      }
  out.stop_time = out.ok ? last_hold : sim.time();
  const int iq = model.idx_q[model.joint_id(tj.joint)];
  out.distance_deg = std::abs(sim.q()[iq] - q0[iq]) * kRadToDeg;
  out.path_mm = figures.path_length * 1e3;
  out.peak_torque = figures.peak_torque;
  return out;
}

}  // namespace articula
