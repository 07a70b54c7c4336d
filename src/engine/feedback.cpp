// Linear state feedback by signal names (engine/feedback.hpp).
#include "articula/engine/feedback.hpp"

#include <cmath>
#include <memory>
#include <stdexcept>

#include "articula/dynamics/kinematics.hpp"

namespace articula {
namespace {

struct Signal {
  enum class Kind { Position, Rate, Roll, Pitch, Yaw, AngularRate };
  Kind kind = Kind::Position;
  int index = 0;    // q or v index (joint signals)
  Index frame = 0;  // frame signals
  int axis = 0;     // AngularRate: 0, 1, 2
  bool needs_kinematics() const { return kind != Kind::Position && kind != Kind::Rate; }
};

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "(none)" : out;
}

bool one_dof(JointType t) {
  return t == JointType::Revolute || t == JointType::Continuous || t == JointType::Prismatic;
}

[[noreturn]] void bad_signal(const Model& model, const std::string& signal, const std::string& why) {
  std::vector<std::string> joints, frames;
  for (Index j = 0; j < model.njoints; ++j)
    if (one_dof(model.joint_types[j])) joints.push_back(model.joint_names[j]);
  for (const Frame& f : model.frames) frames.push_back(f.name);
  throw std::invalid_argument(
      "feedback signal '" + signal + "': " + why +
      "; signals are q.<joint>, v.<joint> (1-dof joints: " + join_names(joints) +
      "), roll.<frame>, pitch.<frame>, yaw.<frame>, rate.<frame>.x|y|z (frames: " + join_names(frames) + ")");
}

Signal resolve(const Model& model, const std::string& signal) {
  const auto dot = signal.find('.');
  if (dot == std::string::npos || dot + 1 >= signal.size()) bad_signal(model, signal, "not of the form kind.name");
  const std::string kind = signal.substr(0, dot), name = signal.substr(dot + 1);
  Signal s;
  if (kind == "q" || kind == "v") {
    if (!model.has_joint(name)) bad_signal(model, signal, "no joint named '" + name + "'");
    const Index j = model.joint_id(name);
    if (!one_dof(model.joint_types[j])) bad_signal(model, signal, "joint '" + name + "' is not a 1-dof joint");
    s.kind = kind == "q" ? Signal::Kind::Position : Signal::Kind::Rate;
    s.index = kind == "q" ? model.idx_q[j] : model.idx_v[j];
    return s;
  }
  if (kind == "roll" || kind == "pitch" || kind == "yaw") {
    if (!model.has_frame(name)) bad_signal(model, signal, "no frame named '" + name + "'");
    s.kind = kind == "roll" ? Signal::Kind::Roll : kind == "pitch" ? Signal::Kind::Pitch : Signal::Kind::Yaw;
    s.frame = model.frame_id(name);
    return s;
  }
  if (kind == "rate") {
    const auto last = name.rfind('.');
    const std::string axis = last == std::string::npos ? "" : name.substr(last + 1);
    if (axis != "x" && axis != "y" && axis != "z") bad_signal(model, signal, "a rate needs an axis .x, .y or .z");
    const std::string frame = name.substr(0, last);
    if (!model.has_frame(frame)) bad_signal(model, signal, "no frame named '" + frame + "'");
    s.kind = Signal::Kind::AngularRate;
    s.frame = model.frame_id(frame);
    s.axis = axis[0] - 'x';
    return s;
  }
  bad_signal(model, signal, "unknown kind '" + kind + "'");
}

// The signal's value; frame signals need forward_kinematics(q, v) on data.
double evaluate(const Model& model, const Data& data, const Signal& s, VectorRef q, VectorRef v) {
  switch (s.kind) {
    case Signal::Kind::Position:
      return q[s.index];
    case Signal::Kind::Rate:
      return v[s.index];
    case Signal::Kind::AngularRate:
      return frame_velocity(model, data, s.frame, ReferenceFrame::LocalWorldAligned).w[s.axis];
    default:
      break;
  }
  // Tilt angles of R = R_WF (feedback.hpp): one axis of the frame projected on a world plane.
  const Matrix3 R = frame_placement(model, data, s.frame).R;
  if (s.kind == Signal::Kind::Roll) return std::atan2(-R(1, 2), R(2, 2));
  if (s.kind == Signal::Kind::Pitch) return std::atan2(R(0, 2), R(2, 2));
  return std::atan2(R(1, 0), R(0, 0));
}

}  // namespace

Controller feedback_controller(const Robot& robot, std::vector<FeedbackTerm> terms,
                               const std::vector<std::pair<std::string, double>>& bias) {
  const Model& model = robot.model();
  struct Term {
    int motor;
    Signal signal;
    double gain, target;
  };
  std::vector<Term> resolved;
  bool kinematics = false;
  auto motor_index = [&](const std::string& name) {
    try {
      return robot.motor_index(name);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(std::string("feedback_controller: ") + e.what());
    }
  };
  for (const FeedbackTerm& t : terms) {
    Term r{motor_index(t.motor), resolve(model, t.signal), t.gain, t.target};
    if (!std::isfinite(t.gain) || !std::isfinite(t.target))
      throw std::invalid_argument("feedback_controller: term '" + t.signal + "' on motor '" + t.motor +
                                  "': gain and target must be finite");
    kinematics = kinematics || r.signal.needs_kinematics();
    resolved.push_back(r);
  }
  VectorX u0 = VectorX::Zero(static_cast<Eigen::Index>(robot.motors().size()));
  for (const auto& [motor, value] : bias) {
    if (!std::isfinite(value))
      throw std::invalid_argument("feedback_controller: bias of motor '" + motor + "' must be finite");
    u0[motor_index(motor)] += value;
  }
  // The model is shared (it outlives a moved Robot); the Data is the controller's own.
  std::shared_ptr<const Model> shared = robot.model_ptr();
  auto data = std::make_shared<Data>(*shared);
  // u = bias + Σ gain (signal − target): one forward kinematics per call when a frame is read.
  return [shared, resolved = std::move(resolved), u0, data, kinematics](double, VectorRef q, VectorRef v, VectorRef,
                                                                        Eigen::Ref<VectorX> u) {
    if (kinematics) forward_kinematics(*shared, *data, q, v);
    u = u0;
    for (const Term& t : resolved) u[t.motor] += t.gain * (evaluate(*shared, *data, t.signal, q, v) - t.target);
    return true;
  };
}

double feedback_signal(const Model& model, const std::string& signal, VectorRef q, VectorRef v) {
  const Signal s = resolve(model, signal);
  Data data(model);
  if (s.needs_kinematics()) forward_kinematics(model, data, q, v);
  return evaluate(model, data, s, q, v);
}

}  // namespace articula
