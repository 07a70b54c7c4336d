// Scenario sections that need the Simulator: the controller and the events (docs/scenarios.md).
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>

#include "articula/engine/feedback.hpp"
#include "scenario/sections.hpp"

namespace articula::scenario_detail {
namespace {

// controller.period: 0 (every evaluation) or ≥ 1 ns (a smaller one would cut every step to it).
double controller_period(const Node& n) {
  const Node p = n.get("period");
  const double period = p.non_negative_or(0.0);
  if (period > 0 && period < 1e-9) p.fail("expected 0 (every evaluation) or a period >= 1e-9 s");
  return period;
}

// Gains of a PD: one number for every joint, or a map joint → number with an optional
// `default` for the joints not listed.
struct Gains {
  std::map<std::string, double> by_joint;
  std::optional<double> fallback;
  double of(const Node& at, const std::string& joint) const {
    const auto it = by_joint.find(joint);
    if (it != by_joint.end()) return it->second;
    if (!fallback) at.fail("no gain for joint '" + joint + "' (give it, or a 'default')");
    return *fallback;
  }
};

Gains read_gains(const Model& model, const Node& n) {
  Gains g;
  if (n.is_scalar()) {
    g.fallback = n.number();
    return g;
  }
  if (!n.is_map()) n.expected("a number, or a map joint: number (with an optional default)");
  for (const Node::Entry& e : n.entries()) {
    if (e.key == "default") {
      g.fallback = e.value.number();
      continue;
    }
    joint_named(model, e.key_node, e.key);
    g.by_joint[e.key] = e.value.number();
  }
  return g;
}

// Motor of a joint, or fail at `at`.
const Motor& motor_of_joint(const Robot& robot, const Node& at, const std::string& joint) {
  for (const Motor& m : robot.motors())
    if (m.joint == joint) return m;
  at.fail("joint '" + joint + "' has no motor (add one under 'motors'; all_joints: true puts one on every joint)");
}

// PD as feedback terms: u = kp (q* − q) − kd q̇ = −kp (q − q*) − kd (q̇ − 0).
Controller pd_phase(const Robot& robot, const std::vector<std::string>& joints, const std::vector<double>& kp,
                    const std::vector<double>& kd, const std::map<std::string, double>& targets) {
  std::vector<FeedbackTerm> terms;
  for (std::size_t i = 0; i < joints.size(); ++i) {
    const std::string& motor = [&]() -> const std::string& {
      for (const Motor& m : robot.motors())
        if (m.joint == joints[i]) return m.name;
      return joints[i];
    }();
    terms.push_back({motor, "q." + joints[i], -kp[i], targets.at(joints[i])});
    terms.push_back({motor, "v." + joints[i], -kd[i], 0.0});
  }
  return feedback_controller(robot, std::move(terms));
}

void read_pd(Build& b, const Node& n) {
  n.check_map({"type", "period", "kp", "kd", "joints", "targets", "schedule"});
  Robot& robot = *b.scenario.robot;
  const Model& model = robot.model();
  const Scenario& s = b.scenario;
  // Driven joints: the list given, else every motor's joint.
  std::vector<std::string> joints;
  std::vector<Node> joint_nodes;
  if (const Node list = n.get("joints"); list.defined()) {
    for (const Node& j : list.items()) {
      joints.push_back(j.text());
      joint_named(model, j, joints.back());
      motor_of_joint(robot, j, joints.back());
      if (std::find(joints.begin(), joints.end() - 1, joints.back()) != joints.end() - 1)
        j.fail("joint '" + joints.back() + "' is listed twice");
      joint_nodes.push_back(j);
    }
    if (joints.empty()) list.fail("expected at least one joint (or leave 'joints' out: every motor's joint)");
  } else {
    for (const Motor& m : robot.motors()) joints.push_back(m.joint);
    if (joints.empty()) n.fail("a pd controller needs motors (add them under 'motors')");
  }
  const Node kp_node = n.need("kp", "the stiffness gain [N·m/rad]"), kd_node = n.need("kd", "the damping gain");
  const Gains kp = read_gains(model, kp_node), kd = read_gains(model, kd_node);
  std::vector<double> kps, kds;
  for (const std::string& j : joints) {
    kps.push_back(kp.of(kp_node, j));
    kds.push_back(kd.of(kd_node, j));
  }
  // Targets: the initial position of each driven joint, then the map given.
  std::map<std::string, double> targets;
  for (const std::string& j : joints) targets[j] = s.q0[model.idx_q[model.joint_id(j)]];
  auto read_targets = [&](const Node& map) {
    for (const Node::Entry& e : map.entries()) {
      joint_named(model, e.key_node, e.key);
      if (!targets.count(e.key)) e.key_node.fail("joint '" + e.key + "' is not driven by the pd controller");
      targets[e.key] = e.value.number();
    }
  };
  read_targets(n.get("targets"));
  // Schedule: from each time on, the targets changed as listed (a step at the next controller call).
  struct Phase {
    double time;
    Controller controller;
  };
  std::vector<Phase> phases{{-INFINITY, pd_phase(robot, joints, kps, kds, targets)}};
  for (const Node& item : n.get("schedule").items()) {
    item.check_map({"at", "targets"});
    const Node at = item.need("at", "the time [s] the new targets apply from");
    const double t = at.non_negative();
    if (t < phases.back().time) at.fail("schedule times must not decrease");
    read_targets(item.need("targets", "a map joint: target"));
    phases.push_back({t, pd_phase(robot, joints, kps, kds, targets)});
  }
  const double period = controller_period(n);
  std::ostringstream what;
  what << "pd on " << joints.size() << " joints, period " << period << " s";
  for (std::size_t k = 1; k < phases.size(); ++k)
    what << (k == 1 ? "; targets change at " : ", ") << phases[k].time << " s";
  b.scenario.controller = what.str();
  if (phases.size() == 1) {
    b.scenario.simulator->set_controller(phases.front().controller, period, false);  // reads q, v only
    return;
  }
  // The last phase whose time has come (1e-12 s of slack for times on the controller's grid).
  b.scenario.simulator->set_controller(
      [phases = std::move(phases)](double t, VectorRef q, VectorRef v, VectorRef sensors, Eigen::Ref<VectorX> u) {
        std::size_t k = 0;
        while (k + 1 < phases.size() && phases[k + 1].time <= t + 1e-12) ++k;
        return phases[k].controller(t, q, v, sensors, u);
      },
      period, false);
}

void read_feedback(Build& b, const Node& n) {
  n.check_map({"type", "period", "terms", "bias"});
  Robot& robot = *b.scenario.robot;
  const Scenario& s = b.scenario;
  std::vector<FeedbackTerm> terms;
  for (const Node& item : n.need("terms", "a list of {motor, signal, gain, target}").items()) {
    item.check_map({"motor", "signal", "gain", "target"});
    FeedbackTerm t;
    const Node motor = item.need("motor", "the motor the term drives");
    t.motor = motor.text();
    motor.rethrow([&] { return robot.motor_index(t.motor); });
    const Node signal = item.need("signal", "a signal name such as q.<joint> or pitch.<frame>");
    t.signal = signal.text();
    signal.rethrow([&] { return feedback_signal(robot.model(), t.signal, s.q0, s.v0); });
    t.gain = item.need("gain", "the gain").number();
    t.target = item.get("target").number_or(0.0);
    terms.push_back(std::move(t));
  }
  std::vector<std::pair<std::string, double>> bias;
  for (const Node::Entry& e : n.get("bias").entries()) {
    e.key_node.rethrow([&] { return robot.motor_index(e.key); });
    bias.emplace_back(e.key, e.value.number());
  }
  Controller c = n.rethrow([&] { return feedback_controller(robot, terms, bias); });
  const double period = controller_period(n);
  std::ostringstream what;
  what << "feedback, " << terms.size() << " terms, period " << period << " s";
  b.scenario.controller = what.str();
  b.scenario.simulator->set_controller(std::move(c), period, false);  // signals of q, v
}

void read_constant(Build& b, const Node& n) {
  n.check_map({"type", "commands"});
  const Robot& robot = *b.scenario.robot;
  VectorX u = VectorX::Zero(static_cast<Eigen::Index>(robot.motors().size()));
  for (const Node::Entry& e : n.get("commands").entries()) {
    const int k = e.key_node.rethrow([&] { return robot.motor_index(e.key); });
    u[k] = e.value.number();
  }
  b.scenario.simulator->set_commands(u);
  b.scenario.controller = "constant commands";
}

Guard read_guard(const Build& b, const Node& when, int& direction) {
  when.check_map({"joint_position", "joint_velocity", "frame_height", "crosses", "direction"});
  const Robot& robot = *b.scenario.robot;
  const double value = when.get("crosses").number_or(0.0);
  const std::string dir =
      when.get("direction").defined() ? when.get("direction").one_of({"rising", "falling", "both"}) : "both";
  direction = dir == "rising" ? 1 : dir == "falling" ? -1 : 0;
  int kinds = 0;
  for (const char* k : {"joint_position", "joint_velocity", "frame_height"}) kinds += when.has(k);
  if (kinds != 1) when.fail("give exactly one of joint_position, joint_velocity, frame_height");
  if (const Node j = when.get("joint_position"); j.defined()) {
    const std::string name = j.text();
    joint_named(robot.model(), j, name);
    return j.rethrow([&] { return joint_position_guard(robot.model(), name, value); });
  }
  if (const Node j = when.get("joint_velocity"); j.defined()) {
    const std::string name = j.text();
    joint_named(robot.model(), j, name);
    return j.rethrow([&] { return joint_velocity_guard(robot.model(), name, value); });
  }
  const Node f = when.get("frame_height");
  const std::string name = f.text();
  frame_named(robot.model(), f, name);
  return f.rethrow([&] { return frame_height_guard(robot.model_ptr(), name, value); });
}

EventAction read_action(const Build& b, const Node& n) {
  if (!n.is_map()) n.expected("a map with one of enable, disable, set, stop, stop_signal");
  const Robot& robot = *b.scenario.robot;
  int kinds = 0;
  for (const char* k : {"enable", "disable", "set", "stop", "stop_signal"}) kinds += n.has(k);
  if (kinds != 1) n.fail("an action has exactly one of enable, disable, set, stop, stop_signal");
  if (const Node s = n.get("stop_signal"); s.defined()) {
    n.check_map({"stop_signal"});
    return read_stop_signal(s);
  }
  auto constraint = [&](const Node& c) {
    const std::string name = c.text();
    if (!robot.constraints().contains(name))
      c.fail("unknown constraint '" + name + "'; defined constraints: " + join(robot.constraints().names()));
    return name;
  };
  if (const Node c = n.get("enable"); c.defined()) {
    n.check_map({"enable", "jump"});
    const JumpForm form = n.has("jump") ? jump_named(n.get("jump")) : JumpForm::Auto;
    return EventAction::enable(constraint(c), b.overrides.jump.value_or(form));
  }
  if (const Node c = n.get("disable"); c.defined()) {
    n.check_map({"disable"});
    return EventAction::disable(constraint(c));
  }
  if (const Node m = n.get("set"); m.defined()) {
    n.check_map({"set", "value"});
    if (b.controller == ControllerType::Pd || b.controller == ControllerType::Feedback)
      m.fail(
          "the controller computes the commands, a set would be overwritten at its next call (change pd targets "
          "with controller.schedule)");
    const std::string motor = m.text();
    m.rethrow([&] { return robot.motor_index(motor); });
    return EventAction::set_command(motor, n.need("value", "the new command").number());
  }
  n.check_map({"stop"});
  if (!n.get("stop").boolean()) n.get("stop").fail("stop: false does nothing; write stop: true or drop the action");
  return EventAction::stop();
}

}  // namespace

JumpForm jump_named(const Node& at) {
  const std::string s =
      at.one_of({"consistent", "auto", "naive", "none", "full", "range", "projector", "minimal", "locks"});
  return parse_jump_form(s);
}

void read_controller(Build& b) {
  const Node n = b.root.get("controller");
  if (!n.defined()) return;
  if (!n.is_map()) n.expected("a map {type: none | constant | pd | feedback, ...}");
  const std::string type =
      n.need("type", "none, constant, pd or feedback").one_of({"none", "constant", "pd", "feedback"});
  if (type == "none") {
    n.check_map({"type"});
  } else if (type == "constant") {
    b.controller = ControllerType::Constant;
    read_constant(b, n);
  } else if (type == "pd") {
    b.controller = ControllerType::Pd;
    read_pd(b, n);
  } else {
    b.controller = ControllerType::Feedback;
    read_feedback(b, n);
  }
}

void read_events(Build& b) {
  const std::vector<Node> items = b.root.get("events").items();
  for (std::size_t i = 0; i < items.size(); ++i) {
    const Node& item = items[i];
    item.check_map({"name", "at", "when", "repeat", "actions"});
    Event e;
    e.name = item.has("name") ? item.get("name").text() : "event_" + std::to_string(i);
    const Node at = item.get("at"), when = item.get("when");
    if (at.defined() == when.defined()) item.fail("an event needs either 'at' (a time) or 'when' (a guard)");
    if (at.defined()) e.time = at.non_negative();
    if (when.defined()) e.guard = read_guard(b, when, e.direction);
    e.repeat = item.get("repeat").boolean_or(false);
    const Node actions = item.need("actions", "a list of actions (enable, disable, set, stop, stop_signal)");
    for (const Node& a : actions.items()) e.actions.push_back(read_action(b, a));
    if (e.actions.empty()) actions.fail("an event needs at least one action");
    item.rethrow([&] { b.scenario.simulator->add_event(std::move(e)); });
  }
}

}  // namespace articula::scenario_detail
