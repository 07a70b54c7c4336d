// `articula estop`: the brake / emergency-stop study (library: study/brake_study.hpp), run
// with the consistent velocity jump and with the naive one, side by side, plus CSV logs.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "articula/articula.hpp"
#include "articula/scenario/scenario.hpp"
#include "bundled_files.hpp"
#include "commands.hpp"
#include "interrupt.hpp"

namespace articula::cli {
namespace fs = std::filesystem;
namespace {

constexpr double kRadToDeg = 180.0 / 3.14159265358979323846;
constexpr double kMaxEstopSteps = 1e7;  // duration / dt: the study keeps every step in memory

struct EstopOptions {
  std::string model;
  std::string q0, v0, brakes, flange;
  std::optional<double> duration, dt;
  std::string output = "articula_out";
  std::string jump = "both";
  LogFormat format = LogFormat::Csv;
  std::string format_text = "csv";
  std::string plot;
  std::string html;  // --html: the replay page of the runs (the first solid, the others ghosts)
  bool pendulum = false;
  std::string brakes_model = "ideal";  // ideal | pin | friction (docs/brakes.md)
  std::string brake_torque;            // friction: N m at the joint, one or one per brake event
};

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, sep)) out.push_back(trim(item));
  return out;
}

double parse_number(const std::string& option, const std::string& token) {
  char* end = nullptr;
  const double x = std::strtod(token.c_str(), &end);
  if (token.empty() || end != token.c_str() + token.size() || !std::isfinite(x))
    throw std::invalid_argument(option + ": '" + token + "' is not a number");
  return x;
}

// "a,b,c" → vector.
VectorX parse_vector(const std::string& option, const std::string& text) {
  const std::vector<std::string> tokens = split(text, ',');
  VectorX x(static_cast<Eigen::Index>(tokens.size()));
  for (std::size_t i = 0; i < tokens.size(); ++i) x[static_cast<Eigen::Index>(i)] = parse_number(option, tokens[i]);
  return x;
}

// "joint_1@0.05,joint_2+joint_3@0.1" → events (joints joined by '+' lock together).
std::vector<BrakeEvent> parse_brakes(const std::string& text) {
  std::vector<BrakeEvent> events;
  for (const std::string& item : split(text, ',')) {
    const auto at = item.rfind('@');
    if (at == std::string::npos || at == 0)
      throw std::invalid_argument("--brakes: '" + item + "' is not JOINT@SECONDS (e.g. joint_1@0.05)");
    BrakeEvent e;
    e.time = parse_number("--brakes", trim(item.substr(at + 1)));
    for (const std::string& j : split(item.substr(0, at), '+')) {
      if (j.empty()) throw std::invalid_argument("--brakes: '" + item + "' has an empty joint name");
      e.joints.push_back(j);
    }
    events.push_back(std::move(e));
  }
  if (events.empty()) throw std::invalid_argument("--brakes: no brake given");
  return events;
}

std::string join(const std::vector<std::string>& parts, const char* sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

std::string fmt(const char* f, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

// Names of the q coordinates: the joint name, with [k] for multi-coordinate joints.
std::vector<std::string> coordinate_names(const Model& model) {
  std::vector<std::string> out;
  for (Index j = 0; j < model.njoints; ++j) {
    const int n = model.nq_joint[j];
    for (int k = 0; k < n; ++k) {
      std::string name = model.joint_names[j];
      if (n > 1) name.append("[").append(std::to_string(k)).append("]");
      out.push_back(std::move(name));
    }
  }
  return out;
}

// The same run on the engine (Simulator: brakes as time events enabling JointLocks, RK4 at
// cfg.dt, drives off), logging the full telemetry (docs/telemetry.md) to `stem` in `format`.
// tests/engine/engine_test.cpp checks that the engine reproduces run_brake_study().
RunResult log_with_engine(const Model& model, const BrakeStudyConfig& cfg, JumpForm form, LogFormat format,
                          const std::string& stem, std::string& path) {
  Robot robot(model);
  const Index flange =
      cfg.flange_frame.empty() ? static_cast<Index>(model.frames.size() - 1) : model.frame_id(cfg.flange_frame);
  robot.add_sensor({"flange", SensorType::Position, model.frames[flange].name});
  SimulationOptions options;
  options.dt = cfg.dt;
  options.log_period = cfg.sample_period;
  Simulator sim(robot, options);
  for (const BrakeEvent& e : cfg.events) {
    const std::string name = "brake_" + join(e.joints, "+");
    robot.constraints().add(std::make_shared<JointLock>(robot.model(), name, e.joints), false);
    sim.add_event({name, e.time, {}, 0, false, {EventAction::enable(name, form)}});
  }
  sim.set_state(cfg.q0, cfg.v0);
  auto sink = make_log(format, stem);
  path = sink->path();
  sim.add_log(std::move(sink));
  const StopOnSignals stop_on_signals(sim);  // Ctrl-C: the log is finished as `interrupted`
  return sim.run(cfg.duration);
}

// --brakes-model pin|friction: the same schedule with real brakes (docs/brakes.md): a stop
// signal at t = 0 arms one Brake per braked joint whose delay is its event's time; pin brakes
// lock rigidly (infinite holding torque), friction brakes slip at `torques` [N m] and stick at
// standstill (static torque 1.2×). Logs to `stem`; returns the run, the simulator's final state.
struct RealBrakesRun {
  RunResult result;
  VectorX q, brake_energy;
  std::vector<BrakeState> states;
  std::vector<std::string> names;
};
RealBrakesRun run_real_brakes(const Model& model, const BrakeStudyConfig& cfg, BrakeKind kind,
                              const std::vector<double>& torques, LogFormat format, const std::string& stem,
                              std::string& path) {
  Robot robot(model);
  const Index flange =
      cfg.flange_frame.empty() ? static_cast<Index>(model.frames.size() - 1) : model.frame_id(cfg.flange_frame);
  robot.add_sensor({"flange", SensorType::Position, model.frames[flange].name});
  std::size_t k = 0;
  for (const BrakeEvent& e : cfg.events)
    for (const std::string& j : e.joints) {
      Brake b;
      b.name = "brake." + j;
      b.joint = j;
      b.kind = kind;
      b.delay = e.time;
      b.torque =
          kind == BrakeKind::Pin ? std::numeric_limits<double>::infinity() : torques[std::min(k, torques.size() - 1)];
      if (kind == BrakeKind::Friction) b.static_torque = 1.2 * b.torque;
      robot.add_brake(b);
      ++k;
    }
  SimulationOptions options;
  options.dt = cfg.dt;
  options.log_period = cfg.sample_period;
  Simulator sim(robot, options);
  sim.add_event({"stop_signal", 0.0, {}, 0, false, {EventAction::stop_signal(0)}});
  sim.set_state(cfg.q0, cfg.v0);
  auto sink = make_log(format, stem);
  path = sink->path();
  sim.add_log(std::move(sink));
  RealBrakesRun out;
  out.result = sim.run(cfg.duration);
  out.q = sim.q();
  out.brake_energy = sim.brake_energy();
  out.states = sim.brake_states();
  for (const Brake& b : robot.brakes()) out.names.push_back(b.name);
  return out;
}

// The brake model beside the ideal locks (the consistent column): stop pose and flange.
void print_real_brakes(const Model& model, const BrakeStudyConfig& cfg, const BrakeStudyResult& ideal,
                       const std::string& label, const RealBrakesRun& real) {
  Data data(model);
  forward_kinematics(model, data, real.q);
  const Index flange =
      cfg.flange_frame.empty() ? static_cast<Index>(model.frames.size() - 1) : model.frame_id(cfg.flange_frame);
  const Vector3 p = frame_placement(model, data, flange).p;
  std::printf("\nBrake model '%s' (stop signal at 0 s, each brake engages at its time above) vs ideal locks:\n",
              label.c_str());
  std::printf("  %-30s %14s %14s %14s\n", "", "ideal", label.c_str(), "difference");
  const auto names = coordinate_names(model);
  for (int i = 0; i < model.nq; ++i)
    std::printf("  %-30s %14.3f %14.3f %14.3f\n", (names[static_cast<std::size_t>(i)] + " [deg]").c_str(),
                ideal.q_final[i] * kRadToDeg, real.q[i] * kRadToDeg, (real.q[i] - ideal.q_final[i]) * kRadToDeg);
  const char* axis[3] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i)
    std::printf("  %-30s %14.4f %14.4f %14.4f\n", (std::string("flange ") + axis[i] + " [m]").c_str(),
                ideal.flange_final[i], p[i], p[i] - ideal.flange_final[i]);
  std::printf("  flange stop poses differ by %.1f mm\n", (p - ideal.flange_final).norm() * 1e3);
  std::printf("  %-16s %-10s %12s\n", "brake", "state", "energy [J]");
  for (std::size_t k = 0; k < real.names.size(); ++k)
    std::printf("  %-16s %-10s %12.3f\n", real.names[k].c_str(), to_string(real.states[k]).c_str(),
                real.brake_energy[static_cast<Eigen::Index>(k)]);
  for (const EventRecord& e : real.result.events)
    for (const std::string& n : e.names)
      if (n.ends_with(".stick") || n.ends_with(".release") || n.ends_with(".slip_through") || n.ends_with(".overload"))
        std::printf("  t = %.4f s  %s\n", e.time, n.c_str());
}

struct Column {
  std::string label;
  BrakeStudyResult result;
};

void print_report(const Model& model, const BrakeStudyConfig& cfg, const std::vector<Column>& cols) {
  const auto& names = coordinate_names(model);
  auto joint_unit_scale = [&](int iq) {
    const Index j = [&] {
      for (Index k = 0; k < model.njoints; ++k)
        if (iq >= model.idx_q[k] && iq < model.idx_q[k] + model.nq_joint[k]) return k;
      return Index{0};
    }();
    const JointType t = model.joint_types[j];
    const bool angle = t == JointType::Revolute || t == JointType::Continuous;
    return std::pair<const char*, double>{angle ? "deg" : (t == JointType::Prismatic ? "m" : "-"),
                                          angle ? kRadToDeg : 1.0};
  };
  std::printf("articula estop: %s, drives off (tau = 0), gravity on, brakes engage one by one\n", model.name.c_str());
  std::printf("  model   %s (nv %d, %.6g kg)\n", cfg.urdf.c_str(), model.nv, model.total_mass());
  std::string q0, v0;
  for (Eigen::Index i = 0; i < cfg.q0.size(); ++i)
    q0 += (i ? ", " : "") + fmt("%.4g", cfg.q0[i] * joint_unit_scale(static_cast<int>(i)).second);
  for (Eigen::Index i = 0; i < cfg.v0.size(); ++i) v0 += (i ? ", " : "") + fmt("%.4g", cfg.v0[i]);
  std::printf("  start   q0 = (%s) deg\n          v0 = (%s) rad/s\n", q0.c_str(), v0.c_str());
  std::string brakes;
  for (const BrakeEvent& e : cfg.events)
    brakes += (brakes.empty() ? "" : ", ") + join(e.joints, "+") + " @ " + fmt("%g s", e.time);
  std::printf("  brakes  %s\n", brakes.c_str());
  std::printf("  run     RK4, dt %g ms, %g s; flange frame '%s'\n\n", cfg.dt * 1e3, cfg.duration,
              cols.front().result.flange_frame.c_str());

  // Brake events.
  std::printf(
      "Brake events: kinetic energy [J] before -> after the jump, and the momentum residual\n"
      "|P_kerJ M dv|_inf [kg m^2/s] on the joints still free (0 = momentum balanced)\n\n");
  std::printf("%-7s %-16s", "", "");
  for (const Column& c : cols) std::printf(" | %-36s", c.label.c_str());
  std::printf("\n%-7s %-16s", "t [s]", "brake");
  for (std::size_t k = 0; k < cols.size(); ++k)
    std::printf(" | %10s %10s %14s", "KE before", "KE after", "mom. residual");
  std::printf("\n");
  const std::size_t nev = cols.front().result.events.size();
  for (std::size_t e = 0; e < nev; ++e) {
    const BrakeEventRecord& r0 = cols.front().result.events[e];
    std::printf("%-7.3f %-16s", r0.time, join(r0.joints, "+").c_str());
    for (const Column& c : cols) {
      if (e < c.result.events.size()) {
        const BrakeEventRecord& r = c.result.events[e];
        std::printf(" | %10.3f %10.3f %14.2e", r.kinetic_before, r.kinetic_after, r.momentum_residual);
      } else {
        std::printf(" | %-36s", "(not reached)");
      }
    }
    std::printf("\n");
  }

  // Final state.
  std::printf("\nAt t = %g s%*s", cfg.duration, 29 - static_cast<int>(fmt("%g", cfg.duration).size()), "");
  for (const Column& c : cols) std::printf(" %14s", c.label.substr(0, c.label.find(' ')).c_str());
  if (cols.size() == 2) std::printf(" %14s", "difference");
  std::printf("\n");
  auto row = [&](const std::string& label, auto value, const char* f, bool difference = true) {
    std::printf("  %-37s", label.c_str());
    for (const Column& c : cols) std::printf(" %14s", fmt(f, value(c.result)).c_str());
    if (cols.size() == 2 && difference)
      std::printf(" %14s", fmt(f, value(cols[1].result) - value(cols[0].result)).c_str());
    std::printf("\n");
  };
  for (int i = 0; i < model.nq; ++i) {
    const auto [unit, scale] = joint_unit_scale(i);
    row(
        names[i] + " [" + unit + "]", [&, scale = scale](const BrakeStudyResult& r) { return r.q_final[i] * scale; },
        "%.3f");
  }
  const char* axis[3] = {"x", "y", "z"};
  for (int i = 0; i < 3; ++i)
    row(
        std::string("flange ") + axis[i] + " [m]", [&](const BrakeStudyResult& r) { return r.flange_final[i]; },
        "%.4f");
  row(
      "flange stop distance (path) [m]", [](const BrakeStudyResult& r) { return r.stop_distance; }, "%.4f");
  row(
      "flange straight-line displacement [m]", [](const BrakeStudyResult& r) { return r.straight_distance; }, "%.4f");
  row(
      "energy drift between events (rel.)", [](const BrakeStudyResult& r) { return r.energy_drift; }, "%.1e", false);
  if (cols.size() == 2) {
    const double d = (cols[1].result.flange_final - cols[0].result.flange_final).norm();
    std::printf("\nThe final flange positions differ by %.1f mm (%s vs %s).\n", d * 1e3,
                cols[1].label.substr(0, cols[1].label.find(' ')).c_str(),
                cols[0].label.substr(0, cols[0].label.find(' ')).c_str());
  }
}

int run_estop(const EstopOptions& o) {
  BrakeStudyConfig cfg;
  const bool custom_model = !o.model.empty();
  try {
    cfg = o.pendulum ? default_pendulum_config(bundled_models_dir().string())
                     : default_estop_config(custom_model ? std::string() : bundled_models_dir().string());
  } catch (const std::exception& e) {
    std::cerr << "articula estop: error: " << e.what() << "\n";
    return 2;
  }
  Model model;
  try {
    if (custom_model) {
      if (const std::string problem = input_file_problem(o.model); problem == "not found")
        throw std::invalid_argument("--model: file not found: " + o.model);
      else if (!problem.empty())
        throw std::invalid_argument("--model: cannot read '" + o.model + "' (" + problem + ")");
      cfg.urdf = o.model;
    }
    model = load_urdf(cfg.urdf, BaseType::Fixed);
    // A model of another size gets a neutral start at rest unless q0/v0 are given; the
    // default brakes and flange must exist in it.
    if (custom_model && o.q0.empty() && cfg.q0.size() != model.nq) cfg.q0 = neutral(model);
    if (custom_model && o.v0.empty() && cfg.v0.size() != model.nv) cfg.v0 = VectorX::Zero(model.nv);
    if (!o.q0.empty()) cfg.q0 = parse_vector("--q0", o.q0);
    if (!o.v0.empty()) cfg.v0 = parse_vector("--v0", o.v0);
    if (cfg.q0.size() != model.nq)
      throw std::invalid_argument("--q0 has " + std::to_string(cfg.q0.size()) + " values, model '" + model.name +
                                  "' needs nq = " + std::to_string(model.nq));
    if (cfg.v0.size() != model.nv)
      throw std::invalid_argument("--v0 has " + std::to_string(cfg.v0.size()) + " values, model '" + model.name +
                                  "' needs nv = " + std::to_string(model.nv));
    if (!o.brakes.empty()) {
      cfg.events = parse_brakes(o.brakes);
    } else if (custom_model) {
      for (const BrakeEvent& e : cfg.events)
        for (const std::string& j : e.joints)
          if (!model.has_joint(j))
            throw std::invalid_argument("model '" + model.name + "' has no joint '" + j +
                                        "' of the default brakes: give --brakes JOINT@SECONDS,...");
    }
    for (const BrakeEvent& e : cfg.events)
      for (const std::string& j : e.joints)
        if (!model.has_joint(j))
          throw std::invalid_argument("--brakes: unknown joint '" + j + "' (model '" + model.name +
                                      "' has: " + join(model.joint_names, ", ") + ")");
    if (!o.flange.empty()) {
      if (!model.has_frame(o.flange))
        throw std::invalid_argument("--flange: model '" + model.name + "' has no frame '" + o.flange + "'");
      cfg.flange_frame = o.flange;
    } else if (!model.has_frame(cfg.flange_frame)) {
      cfg.flange_frame.clear();  // the model's last frame
    }
    if (o.duration) {
      if (!(*o.duration > 0.0)) throw std::invalid_argument("--duration must be > 0 s, got " + fmt("%g", *o.duration));
      cfg.duration = *o.duration;
    }
    if (o.dt) {
      if (!(*o.dt > 0.0)) throw std::invalid_argument("--dt must be > 0 s, got " + fmt("%g", *o.dt));
      if (*o.dt < RunLimits::kMinStep)
        throw std::invalid_argument("--dt must be >= " + fmt("%g", RunLimits::kMinStep) +
                                    " s (the smallest step articula accepts), got " + fmt("%g", *o.dt));
      cfg.dt = *o.dt;
    }
    // The study keeps every step in memory (and logs it): its length is bounded more tightly
    // than a scenario's (docs/scenarios.md, Limits).
    if (const double steps = cfg.duration / cfg.dt; steps > kMaxEstopSteps)
      throw std::invalid_argument("--duration " + fmt("%g", cfg.duration) + " s in steps of --dt " + fmt("%g", cfg.dt) +
                                  " s is " + fmt("%.3g", steps) + " steps, more than the limit of " +
                                  fmt("%g", kMaxEstopSteps) + " for estop (it keeps every step in memory)");
    for (const BrakeEvent& e : cfg.events)
      if (e.time < 0.0 || e.time > cfg.duration)
        throw std::invalid_argument("--brakes: " + join(e.joints, "+") + " at " + fmt("%g", e.time) +
                                    " s is outside the run [0, " + fmt("%g", cfg.duration) + "] s");
  } catch (const std::exception& e) {
    std::cerr << "articula estop: error: " << e.what() << "\n";
    return 2;
  }

  std::vector<double> torques;
  if (o.brakes_model != "ideal") {
    try {
      for (const std::string& t : split(o.brake_torque.empty() ? "600" : o.brake_torque, ',')) {
        const double x = parse_number("--brake-torque", t);
        if (!(x > 0)) throw std::invalid_argument("--brake-torque: '" + t + "' must be > 0 N m");
        torques.push_back(x);
      }
    } catch (const std::exception& e) {
      std::cerr << "articula estop: error: " << e.what() << "\n";
      return 2;
    }
  }
  // A bad output folder is bad input: found before anything runs (exit 2).
  try {
    std::error_code ec;
    fs::create_directories(o.output, ec);
    if (ec) throw std::runtime_error("cannot create the output folder '" + o.output + "': " + ec.message());
    for (const char* stem : {"estop_consistent", "estop_naive"})
      check_log_target(o.format, (fs::path(o.output) / stem).string());
    if (o.brakes_model != "ideal")
      check_log_target(o.format, (fs::path(o.output) / ("estop_" + o.brakes_model)).string());
  } catch (const std::exception& e) {
    std::cerr << "articula estop: error: " << e.what() << "\n";
    return 2;
  }

  std::vector<Column> cols;
  std::vector<std::pair<std::string, std::string>> runs;  // (label, file stem)
  try {
    if (o.jump != "naive") {
      BrakeStudyConfig c = cfg;
      c.jump = JumpForm::Auto;
      cols.push_back({"consistent (momentum balance)", run_brake_study(model, c)});
      runs.emplace_back("consistent", "estop_consistent");
    }
    if (o.jump != "consistent") {
      BrakeStudyConfig c = cfg;
      c.jump = JumpForm::Naive;
      cols.push_back({"naive (locked rates zeroed)", run_brake_study(model, c)});
      runs.emplace_back("naive", "estop_naive");
    }
  } catch (const std::invalid_argument& e) {
    std::cerr << "articula estop: error: " << e.what() << "\n";
    return 2;
  }
  print_report(model, cfg, cols);

  int code = 0;
  for (const Column& c : cols)
    if (!c.result.ok) {
      std::fprintf(stderr, "articula estop: the %s run stopped early: %s\n", c.label.c_str(), c.result.message.c_str());
      code = 1;
    }
  try {
    const fs::path dir(o.output);
    fs::create_directories(dir);
    std::printf("\n");
    std::vector<std::string> csv_logs, labels;
    std::vector<ViewLog> view_logs;
    for (std::size_t k = 0; k < cols.size(); ++k) {
      std::string path;
      const JumpForm form = runs[k].first == "naive" ? JumpForm::Naive : JumpForm::Auto;
      const RunResult r = log_with_engine(model, cfg, form, o.format, (dir / runs[k].second).string(), path);
      std::printf("Wrote %s (%s, %ld steps, %zu events; events and status alongside)\n", path.c_str(),
                  to_string(r.status).c_str(), r.steps, r.events.size());
      if (r.status == RunStatus::Interrupted) {
        std::fprintf(stderr, "articula estop: interrupted at t = %g s; the log holds the run up to there\n", r.t);
        return 130;  // 128 + SIGINT, as `articula run`
      }
      if (!r.ok()) {
        std::fprintf(stderr, "articula estop: the log run failed (%s): %s\n", to_string(r.status).c_str(),
                     r.message.c_str());
        code = 1;
      }
      if (o.format == LogFormat::Csv) csv_logs.push_back(path), labels.push_back(runs[k].first);
      view_logs.push_back({runs[k].first, path});
    }
    if (o.brakes_model != "ideal") {
      std::string path;
      const BrakeKind kind = parse_brake_kind(o.brakes_model);
      const RealBrakesRun real =
          run_real_brakes(model, cfg, kind, torques, o.format, (dir / ("estop_" + o.brakes_model)).string(), path);
      if (o.jump != "naive") print_real_brakes(model, cfg, cols.front().result, o.brakes_model, real);
      std::printf("Wrote %s (%s, %ld steps, %zu events)\n", path.c_str(), to_string(real.result.status).c_str(),
                  real.result.steps, real.result.events.size());
      if (real.result.status == RunStatus::Interrupted) {
        std::fprintf(stderr, "articula estop: interrupted at t = %g s; the log holds the run up to there\n",
                     real.result.t);
        return 130;
      }
      if (!real.result.ok()) {
        std::fprintf(stderr, "articula estop: the %s brakes run failed (%s): %s\n", o.brakes_model.c_str(),
                     to_string(real.result.status).c_str(), real.result.message.c_str());
        code = 1;
      }
      if (o.format == LogFormat::Csv) csv_logs.push_back(path), labels.push_back(o.brakes_model);
      view_logs.push_back({o.brakes_model + " brakes", path});
    }
    if (!o.html.empty()) {
      ReplayOptions view;
      view.title = "Emergency stop of " + model.name + ": " + view_logs.front().label + " (solid) against the others";
      view.path_frame = cfg.flange_frame.empty() ? model.frames.back().name : cfg.flange_frame;
      if (const int c = write_view_html(Robot(model), cfg.urdf, view_logs, o.html, view, "estop")) code = c;
    }
    if (!o.plot.empty()) {
      const auto tool = tool_script("plot_log.py");
      if (o.format != LogFormat::Csv) {
        std::fprintf(stderr, "articula estop: --plot needs --format csv; no plot drawn\n");
      } else if (const auto python = python_with_matplotlib(); !tool || !python) {
        std::fprintf(stderr,
                     "articula estop: --plot needs python3 with matplotlib and tools/plot_log.py; no plot drawn\n");
      } else {
        std::string cmd = *python_with_matplotlib() + " " + shell_quote(tool->string());
        for (const auto& log : csv_logs) cmd += " " + shell_quote(log);
        std::string label_list;
        for (const auto& l : labels) label_list += (label_list.empty() ? "" : ",") + l;
        cmd += " -c 'q.*' -c energy.total --labels " + shell_quote(label_list) + " --title " +
               shell_quote("Emergency stop of " + model.name + ": consistent vs naive jumps") + " -o " +
               shell_quote(o.plot);
        if (std::system(cmd.c_str()) != 0) {
          std::fprintf(stderr, "articula estop: the plot tool failed\n");
          code = 1;
        } else {
          std::printf("Wrote %s\n", o.plot.c_str());
        }
      }
    }
  } catch (const std::exception& e) {
    std::cerr << "articula estop: error writing the logs: " << e.what() << "\n";
    return 1;
  }
  return code;
}

}  // namespace

Command add_estop_command(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "estop", "Emergency-stop study: brakes lock joints one by one; consistent vs naive velocity jumps");
  auto o = std::make_shared<EstopOptions>();
  auto* model = sub->add_option("--model", o->model, "URDF file (default: the bundled rx130_standin.urdf)");
  sub->add_option("--q0", o->q0, "Initial joint positions, comma-separated (rad / m), nq values");
  sub->add_option("--v0", o->v0, "Initial joint velocities, comma-separated (rad/s / m/s), nv values");
  sub->add_option("--brakes", o->brakes,
                  "Brake events JOINT@SECONDS, comma-separated; JOINT_A+JOINT_B@T locks both at T "
                  "(default: joint_1@0.05,joint_2@0.10,joint_3@0.15)");
  sub->add_option("--duration", o->duration, "Simulated time [s] (default 0.5; 1 with --pendulum)");
  sub->add_option("--dt", o->dt, "RK4 step [s] (default 0.001)");
  sub->add_option("--flange", o->flange, "Frame whose origin is tracked (default: flange; tip with --pendulum)");
  sub->add_option("-o,--output", o->output,
                  "Folder for the logs estop_consistent.* / estop_naive.* (+ .events.csv, .status.yaml)")
      ->capture_default_str();
  sub->add_option("--format", o->format_text, "Log format: csv or hdf5")
      ->check(CLI::IsMember({"csv", "hdf5", "h5"}))
      ->capture_default_str();
  sub->add_option("--html", o->html, "Also write the replay page of the runs (3D viewer, docs/viewer.md)");
  sub->add_option("--plot", o->plot,
                  "Also draw the joint angles and energy of both runs into this PNG "
                  "(tools/plot_log.py; needs python3-matplotlib)");
  sub->add_option("--jump", o->jump, "Which velocity jump to run: consistent, naive or both")
      ->check(CLI::IsMember({"consistent", "naive", "both"}))
      ->capture_default_str();
  sub->add_option("--brakes-model", o->brakes_model,
                  "Also run real brakes (docs/brakes.md) beside the ideal locks: pin (rigid lock at engagement) "
                  "or friction (slips at --brake-torque, sticks at standstill); ideal: the locks only")
      ->check(CLI::IsMember({"ideal", "pin", "friction"}))
      ->capture_default_str();
  sub->add_option("--brake-torque", o->brake_torque,
                  "Friction brakes' slip torque [N m at the joint], one value or one per braked joint (default 600; "
                  "static torque 1.2x)");
  sub->add_flag("--pendulum", o->pendulum,
                "The 3R pendulum instead: falls from horizontal at rest, joint2 locks at 0.3 s, joint3 at 0.6 s")
      ->excludes(model);
  return [o] {
    o->format = parse_log_format(o->format_text);
    return run_estop(*o);
  };
}

}  // namespace articula::cli
