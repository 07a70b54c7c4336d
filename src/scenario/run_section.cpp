// Scenario sections about the run: integrator, solver, duration and the logs (docs/scenarios.md).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "scenario/sections.hpp"

namespace articula {

std::string check_run_length(double duration, const SimulationOptions& options) {
  const bool adaptive = options.integrator == Integrator::DormandPrince;
  const double step = adaptive ? options.adaptive.max_step : options.dt;
  const double steps = duration / step;
  if (!(steps > RunLimits::kMaxSteps)) return {};
  std::ostringstream s;
  s << "a run of " << duration << " s in steps of " << (adaptive ? "at most " : "") << step << " s ("
    << (adaptive ? "max_step" : "dt") << ") takes " << steps << " steps, more than the limit of "
    << RunLimits::kMaxSteps << " (docs/scenarios.md, Limits): shorten the duration or lengthen the step";
  return s.str();
}

std::string check_log_length(double duration, double step, double period) {
  const double rows = duration / std::max(step, period);
  if (!(rows > RunLimits::kMaxLogRows)) return {};
  std::ostringstream s;
  s << "a log of " << duration << " s with a row every " << std::max(step, period) << " s holds " << rows
    << " rows, more than the limit of " << RunLimits::kMaxLogRows
    << " (docs/scenarios.md, Limits): give output.period, or a shorter duration";
  return s.str();
}

}  // namespace articula

namespace articula::scenario_detail {
namespace fs = std::filesystem;
namespace {

std::string seconds(double t) {
  std::ostringstream s;
  s << t << " s";
  return s.str();
}

// A step or tolerance below its minimum (run_limits.hpp) cannot be meant: it fails naming the limit.
double at_least(const Node& n, double fallback, double minimum, const char* what) {
  if (!n.defined()) return fallback;
  const double x = n.positive();
  if (x < minimum) {
    std::ostringstream s;
    s << "expected " << what << " >= " << minimum << " (the smallest articula accepts), got " << n.describe();
    n.fail(s.str());
  }
  return x;
}

}  // namespace

void read_run_settings(Build& b) {
  SimulationOptions& o = b.options;
  if (const Node n = b.root.get("integrator"); n.defined()) {
    n.check_map({"method", "dt", "abs_tol", "rel_tol", "min_step", "max_step", "event_tolerance", "max_speed"});
    if (const Node m = n.get("method"); m.defined())
      o.integrator = parse_integrator(m.one_of({"euler", "semi_implicit_euler", "rk4", "dopri5"}));
    // The adaptive keys belong to dopri5 only: under a fixed-step method they would be ignored.
    if (o.integrator != Integrator::DormandPrince)
      for (const char* key : {"abs_tol", "rel_tol", "min_step", "max_step"})
        if (const Node k = n.get(key); k.defined())
          k.fail("belongs to the adaptive method dopri5, not to " + to_string(o.integrator) +
                 " (a fixed step: give dt, or method: dopri5)");
    o.dt = at_least(n.get("dt"), o.dt, RunLimits::kMinStep, "a step");
    o.adaptive.abs_tol = at_least(n.get("abs_tol"), o.adaptive.abs_tol, RunLimits::kMinTolerance, "a tolerance");
    if (const Node r = n.get("rel_tol"); r.defined()) {
      o.adaptive.rel_tol = r.non_negative();
      if (o.adaptive.rel_tol > 0) o.adaptive.rel_tol = at_least(r, 0.0, RunLimits::kMinTolerance, "0 or a tolerance");
    }
    o.adaptive.min_step = at_least(n.get("min_step"), o.adaptive.min_step, RunLimits::kMinStep, "a step");
    o.adaptive.max_step = at_least(n.get("max_step"), o.adaptive.max_step, RunLimits::kMinStep, "a step");
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
  // A run that could never finish, or a log that could never be stored, is refused here.
  const std::string too_long = check_run_length(b.scenario.duration, o);
  if (!too_long.empty()) {
    if (b.overrides.duration) throw ScenarioError(b.root.file(), 0, 0, "--duration", too_long);
    duration.fail(too_long);
  }
}

void read_outputs(Build& b) {
  const std::string out_dir = b.overrides.out_dir.value_or((fs::path("articula_out") / b.scenario.name).string());
  auto resolve = [&](const std::string& stem) { return (fs::path(out_dir) / stem).lexically_normal().string(); };
  // A stem stays inside the output folder (as the `name` key does): no absolute path, no '..'.
  auto check_stem = [](const Node& at, const std::string& stem) {
    const fs::path p(stem);
    bool up = false;
    for (const fs::path& part : p) up = up || part == "..";
    if (p.is_absolute() || up || stem.find('\\') != std::string::npos || stem.back() == '/' || p.filename() == "." ||
        p.filename() == "..")
      at.fail("expected a file stem inside the output folder (-o), e.g. run or logs/run; got " + at.describe() +
              " (no absolute path, no '..', no trailing '/')");
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
      if (!on) check_stem(f, text);
      outputs.push_back({format, resolve(on ? "run" : text), period});
    }
  }
  if (b.overrides.format) {
    const std::string stem = outputs.empty() ? resolve("run") : outputs.front().path;
    outputs = {{*b.overrides.format, stem, period}};
  }
  if (!outputs.empty()) {
    const SimulationOptions& o = b.options;
    const double step = o.integrator == Integrator::DormandPrince ? o.adaptive.max_step : o.dt;
    if (const std::string too_big = check_log_length(b.scenario.duration, step, period); !too_big.empty()) {
      if (b.overrides.duration) throw ScenarioError(b.root.file(), 0, 0, "--duration", too_big);
      (n.has("period") ? n.get("period") : b.root.get("duration")).fail(too_big);
    }
  }
  b.options.log_period = period;
  b.options.record_samples = b.overrides.record_samples;
}

}  // namespace articula::scenario_detail
