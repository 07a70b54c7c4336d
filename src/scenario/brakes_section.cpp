// Scenario parsing: the `brakes:` list and the stop_signal event action (docs/scenarios.md,
// docs/brakes.md).
#include <limits>

#include "scenario/sections.hpp"

namespace articula::scenario_detail {

void read_brakes(Build& b) {
  const Node list = b.root.get("brakes");
  if (!list.defined()) return;
  if (!list.is_list()) list.expected("a list of brakes ({joint: ..., kind: friction | pin, torque: ...})");
  Robot& robot = *b.scenario.robot;
  for (const Node& item : list.items()) {
    item.check_map({"name", "joint", "kind", "delay", "torque", "motor_torque", "static_torque"});
    Brake brake;
    const Node joint = item.need("joint", "the braked joint (a 1-dof joint)");
    brake.joint = joint.text();
    joint_named(robot.model(), joint, brake.joint);
    brake.name = item.has("name") ? item.get("name").text() : "brake." + brake.joint;
    if (const Node k = item.get("kind"); k.defined()) brake.kind = parse_brake_kind(k.one_of({"friction", "pin"}));
    brake.delay = item.get("delay").defined() ? item.get("delay").non_negative() : 0.0;
    // A pin brake's holding torque may be .inf (never overloaded); a friction brake's is finite.
    if (const Node t = item.get("torque"); t.defined()) brake.torque = t.number_or_inf();
    if (const Node t = item.get("motor_torque"); t.defined()) brake.motor_torque = t.positive();
    if (const Node t = item.get("static_torque"); t.defined()) brake.static_torque = t.number_or_inf();
    if (!item.has("torque") && !item.has("motor_torque")) {
      if (brake.kind == BrakeKind::Pin)
        brake.torque = std::numeric_limits<double>::infinity();
      else
        item.fail("brake '" + brake.name + "': give torque (N m at the joint) or motor_torque");
    }
    item.rethrow([&] { robot.add_brake(brake); });
  }
}

EventAction read_stop_signal(const Node& n) {
  // stop_signal: {category: 0 | 1, max_time: s}, or stop_signal: 0 / 1.
  if (n.is_scalar()) {
    const std::string c = n.one_of({"0", "1"});
    return EventAction::stop_signal(c == "1" ? 1 : 0);
  }
  if (n.is_null()) return EventAction::stop_signal(0);
  n.check_map({"category", "max_time"});
  int category = 0;
  if (const Node c = n.get("category"); c.defined()) category = c.one_of({"0", "1"}) == "1" ? 1 : 0;
  double max_time = std::numeric_limits<double>::infinity();
  if (const Node t = n.get("max_time"); t.defined()) {
    if (category != 1) t.fail("max_time applies to a category-1 stop (category: 1)");
    max_time = t.non_negative();
  }
  return EventAction::stop_signal(category, max_time);
}

}  // namespace articula::scenario_detail
