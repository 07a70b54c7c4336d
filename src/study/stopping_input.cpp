// Stopping study files (docs/stopping.md, "Input file"): read with the scenario readers, so
// every mistake is a ScenarioError naming the file, line, column and key.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "articula/io/urdf.hpp"
#include "articula/study/stopping.hpp"
#include "scenario/sections.hpp"

namespace articula {
namespace fs = std::filesystem;
using scenario_detail::Node;

namespace {

constexpr double kDegToRad = 3.14159265358979323846 / 180.0;

// A fraction in (0, 1].
double fraction(const Node& n) {
  const double f = n.number();
  if (!(f > 0.0 && f <= 1.0)) n.fail("expected a fraction in (0, 1], got " + n.describe());
  return f;
}

std::vector<double> fractions(const Node& n, const std::vector<double>& fallback) {
  if (!n.defined()) return fallback;
  std::vector<double> out;
  for (const Node& item : n.items()) out.push_back(fraction(item));
  if (out.empty()) n.fail("expected at least one fraction in (0, 1]");
  return out;
}

void read_joints(const Model& model, const Node& list, StoppingStudy& s) {
  const Node joints = list;
  if (!joints.is_list()) joints.expected("a list of tested joints {joint, max_speed, direction}");
  for (const Node& item : joints.items()) {
    item.check_map({"joint", "max_speed", "direction"});
    StoppingJoint j;
    const Node name = item.need("joint", "the tested joint");
    j.joint = name.text();
    const Index id = scenario_detail::joint_named(model, name, j.joint);
    if (model.nv_joint[id] != 1) name.fail("joint '" + j.joint + "' is not a 1-dof joint");
    for (const StoppingJoint& o : s.joints)
      if (o.joint == j.joint) name.fail("joint '" + j.joint + "' is tested twice");
    j.max_speed = item.need("max_speed", "the joint's maximum speed [rad/s]").positive();
    const std::string dir = item.get("direction").defined()
                                ? item.get("direction").one_of({"positive", "negative", "down"})
                                : std::string("down");
    j.direction = dir == "positive" ? 1 : dir == "negative" ? -1 : 0;
    s.joints.push_back(j);
  }
  if (s.joints.empty()) joints.fail("expected at least one tested joint");
}

void read_drives(const Model& model, const Node& list, StoppingStudy& s) {
  for (const Node& item : list.items()) {
    item.check_map({"joint", "gear_ratio", "rotor_inertia", "effort_limit"});
    StoppingDrive d;
    const Node name = item.need("joint", "the joint the drive moves");
    d.joint = name.text();
    const Index id = scenario_detail::joint_named(model, name, d.joint);
    if (model.nv_joint[id] != 1) name.fail("joint '" + d.joint + "' is not a 1-dof joint");
    for (const StoppingDrive& o : s.drives)
      if (o.joint == d.joint) name.fail("joint '" + d.joint + "' has two drives");
    d.gear_ratio = item.get("gear_ratio").positive_or(1.0);
    d.rotor_inertia = item.get("rotor_inertia").non_negative_or(0.0);
    d.effort_limit = item.need("effort_limit", "the drive's effort limit at the joint [N m]").positive();
    s.drives.push_back(d);
  }
}

void read_brakes(const Model& model, const Node& list, StoppingStudy& s) {
  for (const Node& item : list.items()) {
    item.check_map({"name", "joint", "kind", "delay", "torque", "motor_torque", "static_torque"});
    StoppingBrake b;
    const Node name = item.need("joint", "the braked joint");
    b.joint = name.text();
    const Index id = scenario_detail::joint_named(model, name, b.joint);
    if (model.nv_joint[id] != 1) name.fail("joint '" + b.joint + "' is not a 1-dof joint");
    for (const StoppingBrake& o : s.brakes)
      if (o.joint == b.joint) name.fail("joint '" + b.joint + "' has two brakes");
    b.kind = item.get("kind").defined() ? item.get("kind").one_of({"friction", "pin"}) : std::string("friction");
    b.delay = item.need("delay", "the engagement delay [s]").non_negative();
    const Node torque = item.get("torque"), motor = item.get("motor_torque");
    if (torque.defined() == motor.defined())
      item.fail("give one of 'torque' (at the joint) or 'motor_torque' (motor side, times the drive's gear ratio)");
    if (torque.defined()) {
      b.torque = torque.positive();
    } else {
      const auto d =
          std::find_if(s.drives.begin(), s.drives.end(), [&](const StoppingDrive& x) { return x.joint == b.joint; });
      if (d == s.drives.end()) motor.fail("motor_torque needs a drive (gear ratio) on joint '" + b.joint + "'");
      b.torque = motor.positive() * d->gear_ratio;
    }
    b.static_torque = item.get("static_torque").positive_or(b.torque);
    if (b.static_torque < b.torque)
      item.get("static_torque").fail("static_torque must be ≥ torque (" + std::to_string(b.torque) + " N m)");
    s.brakes.push_back(b);
  }
}

void read_payload(const Model& model, const Node& p, StoppingStudy& s) {
  if (!p.defined()) {
    s.payload.frame = s.flange;
    return;
  }
  p.check_map({"frame", "rated_mass", "com", "inertia"});
  const Node frame = p.need("frame", "the frame the payload is fixed to");
  s.payload.frame = frame.text();
  if (!model.has_frame(s.payload.frame))
    frame.fail("payload on a missing frame '" + s.payload.frame + "' (model '" + model.name + "')");
  s.payload.rated_mass = p.need("rated_mass", "the rated payload [kg]").non_negative();
  s.payload.com = p.get("com").vec3_or(Vector3::Zero());
  s.payload.inertia = p.get("inertia").vec3_or(Vector3::Zero());
  if ((s.payload.inertia.array() < 0.0).any()) p.get("inertia").fail("principal moments must be ≥ 0");
}

void read_extensions(const Model& model, const Node& list, StoppingStudy& s) {
  if (!list.is_list()) list.expected("a list of poses {fraction, q_deg: [...]}");
  for (const Node& item : list.items()) {
    item.check_map({"fraction", "q_deg"});
    StoppingExtension e;
    e.fraction = fraction(item.need("fraction", "the fraction of the reach, (0, 1]"));
    const Node q = item.need("q_deg", "the pose, one angle per joint [deg]");
    e.q = q.numbers() * kDegToRad;
    if (e.q.size() != model.nq)
      q.fail("expected " + std::to_string(model.nq) + " joint angles (model '" + model.name + "'), got " +
             std::to_string(e.q.size()));
    s.extensions.push_back(e);
  }
  if (s.extensions.empty()) list.fail("expected at least one pose");
}

void read_tolerances(const Node& t, StoppingStudy& s) {
  if (!t.defined()) return;
  t.check_map({"delay", "torque"});
  for (auto [key, out] : {std::pair{"delay", &s.delay_tolerance}, std::pair{"torque", &s.torque_tolerance}}) {
    const Node n = t.get(key);
    *out = n.non_negative_or(0.0);
    if (*out >= 1.0) n.fail("expected a relative tolerance in [0, 1), got " + n.describe());
  }
}

void read_run(const Node& r, StoppingStudy& s) {
  if (!r.defined()) return;
  r.check_map({"dt", "max_duration", "rest_speed", "cat1_max_time"});
  s.dt = r.get("dt").positive_or(s.dt);
  s.max_duration = r.get("max_duration").positive_or(s.max_duration);
  s.rest_speed = r.get("rest_speed").positive_or(s.rest_speed);
  s.cat1_max_time = r.get("cat1_max_time").positive_or(s.cat1_max_time);
  if (s.dt > 0.1 * s.max_duration) r.get("dt").fail("dt must be well below max_duration");
}

}  // namespace

StoppingStudy parse_stopping_study(const std::string& yaml_text, const std::string& source_name,
                                   const std::string& base_dir) {
  YAML::Node doc;
  try {
    doc = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    throw ScenarioError(source_name, e.mark.is_null() ? 0 : e.mark.line + 1, e.mark.is_null() ? 0 : e.mark.column + 1,
                        "", "malformed YAML: " + e.msg);
  }
  if (!doc.IsDefined() || doc.IsNull()) throw ScenarioError(source_name, 1, 1, "", "the file is empty");
  const Node root = Node::root(std::make_shared<const std::string>(source_name), doc);
  try {
    root.check_map({"name", "description", "model", "flange", "gravity", "joints", "drives", "brakes", "payload",
                    "speeds", "payloads", "extensions", "categories", "tolerances", "run"});
    StoppingStudy s;
    s.file = source_name;
    s.name = root.has("name") ? root.get("name").text() : fs::path(source_name).stem().string();
    if (const Node d = root.get("description"); d.defined()) s.description = d.text();
    const Node urdf = root.need("model", "the URDF path (relative to the study file)");
    const fs::path p = fs::path(urdf.text());
    s.model_file = (p.is_absolute() ? p : fs::path(base_dir) / p).lexically_normal().string();
    if (std::error_code ec; !fs::is_regular_file(s.model_file, ec)) urdf.fail("model file not found: " + s.model_file);
    s.model = urdf.rethrow([&] { return std::make_shared<const Model>(load_urdf(s.model_file, BaseType::Fixed)); });
    const Model& model = *s.model;
    const Node flange = root.need("flange", "the frame whose path is measured");
    s.flange = flange.text();
    scenario_detail::frame_named(model, flange, s.flange);
    s.gravity = root.get("gravity").vec3_or(s.gravity);
    read_joints(model, root.need("joints", "the tested joints"), s);
    read_drives(model, root.get("drives"), s);
    read_brakes(model, root.need("brakes", "the joint brakes"), s);
    for (std::size_t k = 0; k < s.joints.size(); ++k)
      if (std::none_of(s.brakes.begin(), s.brakes.end(),
                       [&](const StoppingBrake& b) { return b.joint == s.joints[k].joint; }))
        root.get("joints").items()[k].get("joint").fail("no brake on tested joint '" + s.joints[k].joint +
                                                        "': add it under 'brakes'");
    read_payload(model, root.get("payload"), s);
    s.speeds = fractions(root.get("speeds"), s.speeds);
    s.payloads = fractions(root.get("payloads"), s.payloads);
    read_extensions(model, root.need("extensions", "the extension poses"), s);
    if (const Node c = root.get("categories"); c.defined()) {
      s.categories.clear();
      for (const Node& item : c.items()) {
        const double v = item.number();
        if (v != 0.0 && v != 1.0) item.fail("expected stop category 0 or 1, got " + item.describe());
        if (std::find(s.categories.begin(), s.categories.end(), static_cast<int>(v)) != s.categories.end())
          item.fail("category given twice");
        s.categories.push_back(static_cast<int>(v));
      }
      if (s.categories.empty()) c.fail("expected at least one stop category");
    }
    if (std::find(s.categories.begin(), s.categories.end(), 1) != s.categories.end())
      for (const StoppingJoint& j : s.joints)
        if (std::none_of(s.drives.begin(), s.drives.end(), [&](const StoppingDrive& d) { return d.joint == j.joint; }))
          root.get("drives").fail("category 1 needs a drive (effort_limit) on tested joint '" + j.joint + "'");
    read_tolerances(root.get("tolerances"), s);
    read_run(root.get("run"), s);
    return s;
  } catch (const YAML::Exception& e) {
    throw ScenarioError(source_name, e.mark.is_null() ? 0 : e.mark.line + 1, e.mark.is_null() ? 0 : e.mark.column + 1,
                        "", e.msg);
  }
}

StoppingStudy load_stopping_study(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec))
    throw ScenarioError(
        path, 0, 0, "",
        std::string("cannot read the study file (") + (fs::exists(path, ec) ? "not a file" : "not found") + ")");
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) throw ScenarioError(path, 0, 0, "", "cannot read the study file");
  const fs::path dir = fs::path(path).parent_path();
  return parse_stopping_study(text.str(), path, dir.empty() ? "." : dir.string());
}

std::vector<StoppingCase> stopping_cases(const StoppingStudy& s) {
  std::vector<StoppingCase> out;
  for (int j = 0; j < static_cast<int>(s.joints.size()); ++j)
    for (int c : s.categories)
      for (int e = 0; e < static_cast<int>(s.extensions.size()); ++e)
        for (int p = 0; p < static_cast<int>(s.payloads.size()); ++p)
          for (int v = 0; v < static_cast<int>(s.speeds.size()); ++v)
            out.push_back({static_cast<int>(out.size()), j, v, p, e, c});
  return out;
}

}  // namespace articula
