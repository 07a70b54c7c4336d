// Stopping reports: CSV, JSON and the terminal table, in fixed formats (byte-identical for
// equal results, whichever worker computed them). Columns: docs/stopping.md, "Outputs".
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <limits>
#include <string>

#include "articula/study/stopping.hpp"

namespace articula {
namespace {

std::string fmt(const char* f, ...) __attribute__((format(printf, 1, 2)));
std::string fmt(const char* f, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, f);
  std::vsnprintf(buf, sizeof buf, f, ap);
  va_end(ap);
  return buf;
}

// A number for CSV / JSON: 9 significant digits; non-finite as nan (CSV) / null (JSON).
std::string num(double x, bool json = false) {
  if (!std::isfinite(x)) return json ? "null" : "nan";
  return fmt("%.9g", x);
}

// (real − ideal) / ideal, NaN when either failed or the ideal value is 0.
double rel(double real, double ideal, bool ok) {
  return ok && ideal != 0.0 ? (real - ideal) / ideal : std::numeric_limits<double>::quiet_NaN();
}

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\')
      out += '\\', out += ch;
    else if (static_cast<unsigned char>(ch) < 0x20)
      out += fmt("\\u%04x", ch);
    else
      out += ch;
  }
  return out + "\"";
}

const char* kSpreadNames[4] = {"worst", "p50", "p95", "p99"};
double spread_value(const Spread& s, int k) { return k == 0 ? s.worst : k == 1 ? s.p50 : k == 2 ? s.p95 : s.p99; }

struct Row {
  const StoppingStudy& s;
  const StoppingCaseResult& r;
  const StoppingJoint& joint() const { return s.joints[r.c.joint]; }
  double speed() const { return s.speeds[r.c.speed] * joint().max_speed; }
  double payload_kg() const { return s.payloads[r.c.payload] * s.payload.rated_mass; }
  bool both_ok() const { return r.real.ok && r.ideal.ok; }
};

}  // namespace

std::string stopping_csv(const StoppingStudy& s, const std::vector<StoppingCaseResult>& results) {
  std::string out =
      "case,joint,category,speed_fraction,speed_rad_s,payload_fraction,payload_kg,extension_fraction,"
      "ok,stop_time_s,distance_deg,path_mm,peak_torque_Nm,slipped,slip_time_s,"
      "ideal_ok,ideal_stop_time_s,ideal_distance_deg,ideal_path_mm,ideal_peak_torque_Nm,"
      "rel_diff_time,rel_diff_distance,rel_diff_path,samples,failed_samples";
  for (const char* fig : {"time", "distance", "path", "torque"})
    for (const char* k : kSpreadNames) out += std::string(",") + fig + "_" + k;
  out += "\n";
  for (const StoppingCaseResult& r : results) {
    const Row w{s, r};
    const StopFigures &a = r.real, &b = r.ideal;
    out += fmt("%d,%s,%d,", r.c.index, w.joint().joint.c_str(), r.c.category);
    out += num(s.speeds[r.c.speed]) + "," + num(w.speed()) + "," + num(s.payloads[r.c.payload]) + "," +
           num(w.payload_kg()) + "," + num(s.extensions[r.c.extension].fraction) + ",";
    out += fmt("%d,", a.ok ? 1 : 0) + num(a.stop_time) + "," + num(a.distance_deg) + "," + num(a.path_mm) + "," +
           num(a.peak_torque) + fmt(",%d,", a.slipped ? 1 : 0) + num(a.slip_time) + ",";
    out += fmt("%d,", b.ok ? 1 : 0) + num(b.stop_time) + "," + num(b.distance_deg) + "," + num(b.path_mm) + "," +
           num(b.peak_torque) + ",";
    out += num(rel(a.stop_time, b.stop_time, w.both_ok())) + "," +
           num(rel(a.distance_deg, b.distance_deg, w.both_ok())) + "," + num(rel(a.path_mm, b.path_mm, w.both_ok())) +
           fmt(",%d,%d", r.samples, r.failed_samples);
    for (const Spread* sp : {&r.time, &r.distance, &r.path, &r.torque})
      for (int k = 0; k < 4; ++k) {
        out += ',';
        out += num(spread_value(*sp, k));
      }
    out += "\n";
  }
  return out;
}

std::string stopping_json(const StoppingStudy& s, const std::vector<StoppingCaseResult>& results, int samples,
                          std::uint64_t seed) {
  auto figures = [](const StopFigures& f) {
    return "{\"ok\": " + std::string(f.ok ? "true" : "false") + ", \"stop_time_s\": " + num(f.stop_time, true) +
           ", \"distance_deg\": " + num(f.distance_deg, true) + ", \"path_mm\": " + num(f.path_mm, true) +
           ", \"peak_torque_Nm\": " + num(f.peak_torque, true) + ", \"slipped\": " + (f.slipped ? "true" : "false") +
           ", \"slip_time_s\": " + (f.slipped ? num(f.slip_time, true) : std::string("null")) + "}";
  };
  auto spread = [](const Spread& sp) {
    std::string o = "{";
    for (int k = 0; k < 4; ++k)
      o += std::string(k ? ", " : "") + "\"" + kSpreadNames[k] + "\": " + num(spread_value(sp, k), true);
    return o + "}";
  };
  std::string out =
      "{\n  \"study\": " + json_string(s.name) + ",\n  \"model\": " + json_string(s.model->name) +
      ",\n  \"flange\": " + json_string(s.flange) +
      ",\n  \"brake_model\": " + json_string("engine brakes (docs/brakes.md); ideal: instant pin locks at engagement") +
      ",\n  \"samples\": " + std::to_string(samples) + ",\n  \"seed\": " + std::to_string(seed) + ",\n  \"cases\": [\n";
  for (std::size_t i = 0; i < results.size(); ++i) {
    const StoppingCaseResult& r = results[i];
    const Row w{s, r};
    out += "    {\"case\": " + std::to_string(r.c.index) + ", \"joint\": " + json_string(w.joint().joint) +
           ", \"category\": " + std::to_string(r.c.category) +
           ", \"speed_fraction\": " + num(s.speeds[r.c.speed], true) + ", \"speed_rad_s\": " + num(w.speed(), true) +
           ", \"payload_fraction\": " + num(s.payloads[r.c.payload], true) +
           ", \"payload_kg\": " + num(w.payload_kg(), true) +
           ", \"extension_fraction\": " + num(s.extensions[r.c.extension].fraction, true) +
           ",\n     \"result\": " + figures(r.real) + ",\n     \"ideal\": " + figures(r.ideal) +
           ",\n     \"rel_diff\": {\"time\": " + num(rel(r.real.stop_time, r.ideal.stop_time, w.both_ok()), true) +
           ", \"distance\": " + num(rel(r.real.distance_deg, r.ideal.distance_deg, w.both_ok()), true) +
           ", \"path\": " + num(rel(r.real.path_mm, r.ideal.path_mm, w.both_ok()), true) + "}";
    if (r.samples > 0)
      out += ",\n     \"sampled\": {\"samples\": " + std::to_string(r.samples) +
             ", \"failed\": " + std::to_string(r.failed_samples) + ", \"time_s\": " + spread(r.time) +
             ", \"distance_deg\": " + spread(r.distance) + ", \"path_mm\": " + spread(r.path) +
             ", \"peak_torque_Nm\": " + spread(r.torque) + "}";
    out += std::string("}") + (i + 1 < results.size() ? "," : "") + "\n";
  }
  return out + "  ]\n}\n";
}

std::string stopping_table(const StoppingStudy& s, const std::vector<StoppingCaseResult>& results) {
  std::string out;
  const bool sampled = !results.empty() && results.front().samples > 0;
  int joint = -1, category = -1;
  for (const StoppingCaseResult& r : results) {
    const Row w{s, r};
    if (r.c.joint != joint || r.c.category != category) {
      joint = r.c.joint;
      category = r.c.category;
      out += fmt("\n%s, stop category %d\n", w.joint().joint.c_str(), category);
      out += fmt("  %5s %8s %6s | %8s %9s %9s %9s %-10s | %8s %9s %9s | %8s", "ext", "payload", "speed", "time [s]",
                 "dist [deg]", "path [mm]", "torque", "slip [s]", "ideal t", "ideal deg", "ideal mm", "diff deg");
      if (sampled) out += fmt(" | %9s %9s %9s", "deg p95", "deg p99", "deg worst");
      out += "\n";
    }
    const StopFigures &a = r.real, &b = r.ideal;
    out += fmt("  %4.0f%% %6.2fkg %5.0f%% | ", 100 * s.extensions[r.c.extension].fraction, w.payload_kg(),
               100 * s.speeds[r.c.speed]);
    if (a.ok)
      out += fmt("%8.3f %10.2f %9.1f %9.1f %-10s", a.stop_time, a.distance_deg, a.path_mm, a.peak_torque,
                 a.slipped ? fmt("%.3f", a.slip_time).c_str() : "-");
    else
      out += fmt("%-50s", "failed");
    if (b.ok)
      out += fmt(" | %8.3f %9.2f %9.1f", b.stop_time, b.distance_deg, b.path_mm);
    else
      out += fmt(" | %-28s", "failed");
    const double d = rel(a.distance_deg, b.distance_deg, w.both_ok());
    out += std::isfinite(d) ? fmt(" | %+7.1f%%", 100 * d) : fmt(" | %8s", "-");
    if (sampled) out += fmt(" | %9.2f %9.2f %9.2f", r.distance.p95, r.distance.p99, r.distance.worst);
    out += "\n";
  }
  return out;
}

}  // namespace articula
