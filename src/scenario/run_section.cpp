// Scenario sections about the run: integrator, solver, duration and the logs (docs/scenarios.md).
#include <cmath>
#include <filesystem>
#include <sstream>

#include "scenario/sections.hpp"

namespace articula::scenario_detail {
namespace fs = std::filesystem;
namespace {

std::string seconds(double t) {
  std::ostringstream s;
  s << t << " s";
  return s.str();
}

}  // namespace

void read_run_settings(Build& b) {
  SimulationOptions& o = b.options;
  if (const Node n = b.root.get("integrator"); n.defined()) {
    n.check_map({"method", "dt", "abs_tol", "rel_tol", "min_step", "max_step", "event_tolerance", "max_speed"});
    if (const Node m = n.get("method"); m.defined())
      o.integrator = parse_integrator(m.one_of({"euler", "semi_implicit_euler", "rk4", "dopri5"}));
    o.dt = n.get("dt").positive_or(o.dt);
    o.adaptive.abs_tol = n.get("abs_tol").positive_or(o.adaptive.abs_tol);
    o.adaptive.rel_tol = n.get("rel_tol").non_negative_or(o.adaptive.rel_tol);
    o.adaptive.min_step = n.get("min_step").positive_or(o.adaptive.min_step);
    o.adaptive.max_step = n.get("max_step").positive_or(o.adaptive.max_step);
    o.event_tolerance = n.get("event_tolerance").positive_or(o.event_tolerance);
    o.max_speed = n.get("max_speed").positive_or(o.max_speed);
    if (o.adaptive.max_step < o.adaptive.min_step)
      n.get("max_step").fail("expected a step >= min_step = " + seconds(o.adaptive.min_step));
    n.rethrow([&] { o.validate(); });
  }
  // joint_limits: true | false | {restitution: e, bounce_velocity: v} (a map turns them on).
  if (const Node n = b.root.get("joint_limits"); n.defined()) {
    if (n.is_map()) {
      n.check_map({"restitution", "bounce_velocity"});
      o.joint_limits = true;
      if (const Node e = n.get("restitution"); e.defined()) {
        o.limit_restitution = e.non_negative();
        if (o.limit_restitution > 1) e.fail("expected a restitution in [0, 1]");
      }
      o.limit_bounce_velocity = n.get("bounce_velocity").non_negative_or(o.limit_bounce_velocity);
    } else {
      o.joint_limits = n.boolean();
    }
  }
  if (b.overrides.joint_limits) o.joint_limits = *b.overrides.joint_limits;
  if (const Node n = b.root.get("solver"); n.defined()) {
    // A bare `null` is YAML's null, not the text: say so instead of "got nothing".
    if (n.is_null())
      n.fail("expected one of auto, kkt, range, null_space, hybrid (a bare null is YAML's null: write null_space)");
    o.method = parse_method(n.one_of({"auto", "kkt", "range", "null", "null_space", "range_space", "hybrid"}));
  }
  const Node duration = b.root.need("duration", "the simulated time [s], a number > 0");
  b.scenario.duration = duration.positive();
  if (b.overrides.duration) {
    if (!(*b.overrides.duration > 0) || !std::isfinite(*b.overrides.duration))
      throw ScenarioError(b.root.file(), 0, 0, "--duration",
                          "expected a number > 0, got " + seconds(*b.overrides.duration));
    b.scenario.duration = *b.overrides.duration;
  }
}

void read_outputs(Build& b) {
  const std::string out_dir = b.overrides.out_dir.value_or((fs::path("articula_out") / b.scenario.name).string());
  auto resolve = [&](const std::string& stem) {
    const fs::path p(stem);
    return (p.is_absolute() ? p : fs::path(out_dir) / p).lexically_normal().string();
  };
  std::vector<ScenarioOutput>& outputs = b.scenario.outputs;
  double period = 0.0;
  const Node n = b.root.get("output");
  if (!n.defined()) {
    outputs.push_back({LogFormat::Csv, resolve("run"), 0.0});
  } else {
    n.check_map({"csv", "hdf5", "period"});
    period = n.get("period").non_negative_or(0.0);
    for (const auto& [key, format] : {std::pair{"csv", LogFormat::Csv}, std::pair{"hdf5", LogFormat::Hdf5}}) {
      const Node f = n.get(key);
      if (!f.defined()) continue;
      // true: the stem "run"; false: no such log; text: the stem.
      if (!f.is_scalar()) f.expected("true, false or a file stem");
      const std::string text = f.text();
      if (text == "false" || text == "no" || text == "off") continue;
      const bool on = text == "true" || text == "yes" || text == "on";
      outputs.push_back({format, resolve(on ? "run" : text), period});
    }
  }
  if (b.overrides.format) {
    const std::string stem = outputs.empty() ? resolve("run") : outputs.front().path;
    outputs = {{*b.overrides.format, stem, period}};
  }
  b.options.log_period = period;
  b.options.record_samples = b.overrides.record_samples;
}

}  // namespace articula::scenario_detail
