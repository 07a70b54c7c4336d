// `articula run SCENARIO.yaml`: loads a scenario file (library: scenario/scenario.hpp), runs it
// with its logs, shows progress on a terminal and prints a summary: the final state, the events
// with their energies, the run status, wall time and real-time factor, the log files.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <future>
#include <iostream>
#include <optional>
#include <string>

#include "articula/articula.hpp"
#include "articula/scenario/scenario.hpp"
#include "commands.hpp"
#include "interrupt.hpp"

namespace articula::cli {
namespace {

struct RunOptions {
  std::string scenario;
  std::string output, format, jump;
  std::optional<double> duration;
  bool quiet = false;
  bool joint_limits = false;
  bool compiled = false;
  bool background = false;  // --compile-in-background: run on the runtime path until the kernels are ready
  std::string cache_dir;
  int max_statements = CompileOptions{}.max_statements;  // --max-statements
  std::string html;                                      // --html: the replay page of the run's first log
  const CLI::Option* joint_limits_flag = nullptr;        // given (either way) when its count() > 0
};

std::string fmt(const char* f, double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, x);
  return buf;
}

// Progress bar on stderr, drawn only once the run has taken a second of wall time.
std::function<void(double, double)> progress_bar() {
  const auto start = std::chrono::steady_clock::now();
  return [start](double t, double duration) {
    if (std::chrono::steady_clock::now() - start < std::chrono::seconds(1)) return;
    const int width = 30;
    const double f = duration > 0 ? std::clamp(t / duration, 0.0, 1.0) : 1.0;
    const int filled = static_cast<int>(f * width);
    std::fprintf(stderr, "\r  t = %8.3f / %g s  [%s%s] %3d%%", t, duration, std::string(filled, '#').c_str(),
                 std::string(width - filled, ' ').c_str(), static_cast<int>(100 * f));
    std::fflush(stderr);
  };
}

// "joint value" pairs, wrapped at ~100 columns; multi-coordinate joints as [a, b, …].
void print_state(const Model& model, const VectorX& x, bool velocity) {
  std::string line = velocity ? "  v " : "  q ";
  for (Index j = 0; j < model.njoints; ++j) {
    const int n = velocity ? model.nv_joint[j] : model.nq_joint[j];
    const int start = velocity ? model.idx_v[j] : model.idx_q[j];
    std::string item = model.joint_names[j] + " ";
    if (n == 1) {
      item += fmt("%.4g", x[start]);
    } else {
      item += "[";
      for (int k = 0; k < n; ++k) item += (k ? ", " : "") + fmt("%.4g", x[start + k]);
      item += "]";
    }
    if (line.size() + item.size() + 2 > 100 && line.size() > 4) {
      std::printf("%s\n", line.c_str());
      line = "    ";
    }
    line += (line.size() > 4 ? "  " : "") + item;
  }
  std::printf("%s\n", line.c_str());
}

void print_summary(const Scenario& s, const RunResult& r, bool quiet) {
  const Model& model = s.robot->model();
  if (!quiet) {
    std::printf("articula run: %s\n", s.name.c_str());
    if (!s.description.empty()) std::printf("  %s\n", s.description.c_str());
    std::printf("  model    %s (%s, nq %d, nv %d)\n", s.model_file.c_str(),
                model.njoints > 0 && model.joint_types[0] == JointType::FreeFlyer ? "floating base" : "fixed base",
                model.nq, model.nv);
    std::printf("  robot    %zu motors, %zu sensors, %zu contacts, %zu constraints\n", s.robot->motors().size(),
                s.robot->sensors().size(), s.robot->contacts().size(), s.robot->constraints().names().size());
    const SimulationOptions& o = s.simulator->options();
    std::printf("  control  %s\n", s.controller.c_str());
    std::printf("  run      %s, dt %g s, %g s simulated\n", to_string(o.integrator).c_str(), o.dt, s.duration);
    if (!r.events.empty()) {
      std::printf("\nEvents: kinetic energy [J] before -> after, and the momentum residual of the jump\n");
      std::printf("  %-9s %-22s %11s %11s %11s %-9s %14s  %s\n", "t [s]", "event", "KE before", "KE after", "change",
                  "jump", "mom. residual", "actions");
      for (const EventRecord& e : r.events) {
        std::string names;
        for (const auto& n : e.names) names += (names.empty() ? "" : "+") + n;
        std::printf("  %-9.4f %-22s %11.4f %11.4f %11.4f %-9s %14s  %s\n", e.time, names.c_str(), e.kinetic_before,
                    e.kinetic_after, e.kinetic_after - e.kinetic_before, e.jumped ? to_string(e.form).c_str() : "-",
                    e.jumped ? fmt("%.2e", e.momentum_residual).c_str() : "-", e.actions.c_str());
      }
    }
    std::printf("\nFinal state at t = %g s\n", r.t);
    print_state(model, s.simulator->q(), false);
    print_state(model, s.simulator->v(), true);
    std::printf("\n");
  }
  const std::string status = to_string(r.status);
  if (r.message.rfind(status, 0) == 0)
    std::printf("Status  %s\n", r.message.c_str());
  else
    std::printf("Status  %s: %s\n", status.c_str(), r.message.c_str());
  std::printf("  steps %ld (rejected %ld, evaluations %ld), wall time %.3f s, real-time factor %.3g\n", r.steps,
              r.rejected, r.evaluations, r.wall_time, r.real_time_factor());
  if (const long g = s.simulator->generated_evaluations(); g > 0)
    std::printf("  evaluations by the compiled kernels: %ld of %ld (events' included)\n", g,
                s.simulator->dynamics_evaluations());
  const std::vector<std::string> files = output_files(s);
  if (files.empty()) std::printf("  no log (output disabled)\n");
  for (const std::string& f : files) std::printf("  log   %s\n", f.c_str());
}

// --compiled: the model's kernels from the cache, or compiled now (docs/codegen.md). Without a
// compiler, or when it fails, one notice and the runtime algorithms. With --compile-in-background
// the compile runs on its own thread and the run starts at once on the runtime algorithms
// (report_background_compile() says after the run whether and when it switched).
using KernelsFuture = std::shared_future<std::shared_ptr<const CompiledKernels>>;

std::optional<KernelsFuture> use_compiled_kernels(Scenario& s, const RunOptions& o) {
  CompileOptions c = compile_options_for(*s.robot, s.simulator->options());
  c.cache_dir = o.cache_dir;
  c.max_statements = o.max_statements;
  if (o.background) {
    KernelsFuture kernels = std::async(std::launch::async, [model = s.robot->model_ptr(), c] {
                              return compile_kernels(*model, c);
                            }).share();
    s.simulator->use_compiled_when_ready(kernels);
    std::printf(
        "articula run: compiling the kernels in the background; the runtime algorithms run until they are "
        "ready\n");
    std::fflush(stdout);
    return kernels;
  }
  try {
    const auto k = compile_kernels(s.robot->model(), c);
    s.simulator->use_compiled(k);
    if (k->from_cache)
      std::printf("articula run: compiled kernels loaded from the cache in %.0f ms (%s)\n", 1e3 * k->seconds,
                  k->library.c_str());
    else
      std::printf("articula run: kernels compiled in %.2f s (%d units, %s), cached in %s\n", k->seconds, k->units,
                  c.flags.c_str(), kernel_cache_dir(c).c_str());
  } catch (const CompileError& e) {
    std::fprintf(stderr, "articula run: notice: %s; running with the runtime algorithms\n", e.what());
  }
  std::fflush(stdout);
  return std::nullopt;
}

// After a run with --compile-in-background: when it switched to the kernels, or why it did not.
// A compile still going is waited for (it fills the cache for the next run).
void report_background_compile(const KernelsFuture& kernels, const RunResult& r) {
  try {
    const auto k = kernels.get();
    const std::string how = k->from_cache ? "loaded from the cache in " + fmt("%.0f ms", 1e3 * k->seconds)
                                          : "compiled in " + fmt("%.2f s", k->seconds);
    if (std::isfinite(r.compiled_from))
      std::printf("articula run: switched to the compiled kernels at t = %g s (%s)\n", r.compiled_from, how.c_str());
    else
      std::printf("articula run: the kernels (%s) were ready after the run; it ran with the runtime algorithms\n",
                  how.c_str());
  } catch (const std::exception& e) {  // CompileError: no compiler, or it failed
    std::fprintf(stderr, "articula run: notice: %s; running with the runtime algorithms\n", e.what());
  }
  std::fflush(stdout);
}

int run(const RunOptions& o) {
  ScenarioOverrides overrides;
  if (!o.output.empty()) overrides.out_dir = o.output;
  if (!o.format.empty()) overrides.format = parse_log_format(o.format);
  if (!o.jump.empty()) overrides.jump = parse_jump_form(o.jump);
  // Only a flag that was given overrides the file's `joint_limits`.
  if (o.joint_limits_flag && o.joint_limits_flag->count() > 0) overrides.joint_limits = o.joint_limits;
  if (o.duration) {
    if (!(*o.duration > 0) || !std::isfinite(*o.duration)) {
      std::fprintf(stderr, "articula run: error: --duration must be > 0 s, got %g\n", *o.duration);
      return 2;
    }
    overrides.duration = o.duration;
  }
  Scenario s;
  try {
    s = load_scenario(o.scenario, overrides);
  } catch (const ScenarioError& e) {
    std::fprintf(stderr, "articula run: error: %s\n", e.what());
    return 2;
  }
  std::optional<KernelsFuture> in_flight;
  if (o.compiled || o.background) in_flight = use_compiled_kernels(s, o);
  const bool terminal = !o.quiet && ::isatty(STDERR_FILENO);
  RunResult r;
  try {
    const StopOnSignals stop_on_signals(*s.simulator);
    r = run_scenario(s, terminal ? progress_bar() : std::function<void(double, double)>());
  } catch (const std::exception& e) {
    if (terminal) std::fprintf(stderr, "\r\033[K");
    std::fprintf(stderr, "articula run: error: %s\n", e.what());
    return 2;
  }
  if (terminal) std::fprintf(stderr, "\r\033[K");
  if (in_flight) report_background_compile(*in_flight, r);
  print_summary(s, r, o.quiet);
  if (r.status == RunStatus::Interrupted) {
    std::fprintf(stderr, "articula run: interrupted at t = %g s; the logs hold the run up to there\n", r.t);
    return 130;  // 128 + SIGINT, as a shell reports a Ctrl-C
  }
  if (!o.html.empty()) {
    const std::vector<std::string> files = output_files(s);
    if (files.empty()) {
      std::fprintf(stderr, "articula run: error: --html needs a log, and the scenario writes none\n");
      return 2;
    }
    ReplayOptions view;
    view.title = s.name + (s.description.empty() ? "" : ": " + s.description);
    if (const int code = write_view_html(*s.robot, s.model_file, {{s.name, files.front()}}, o.html, view, "run"))
      return code;
  }
  if (!r.ok()) {
    std::fprintf(stderr, "articula run: the run failed (%s): %s\n", to_string(r.status).c_str(), r.message.c_str());
    return 1;
  }
  return 0;
}

}  // namespace

Command add_run_command(CLI::App& app) {
  auto* sub = app.add_subcommand("run", "Run a scenario file (YAML): model, hardware, controller, events, logs");
  auto o = std::make_shared<RunOptions>();
  sub->add_option("scenario", o->scenario, "Scenario file (docs/scenarios.md)")->required();
  sub->add_option("-o,--output", o->output, "Folder for the logs (default: articula_out/<scenario name>/)");
  sub->add_option("--format", o->format, "One log in this format instead of the file's outputs")
      ->check(CLI::IsMember({"csv", "hdf5", "h5"}));
  sub->add_option("--jump", o->jump, "Jump form of every constraint activation (consistent: momentum-balanced)")
      ->check(CLI::IsMember({"consistent", "naive", "none", "full", "range", "projector", "minimal", "locks"}));
  sub->add_option("--duration", o->duration, "Simulated time [s] instead of the file's");
  sub->add_flag("-q,--quiet", o->quiet, "No progress bar; print only the status and the log files");
  o->joint_limits_flag =
      sub->add_flag("--joint-limits,!--no-joint-limits", o->joint_limits,
                    "Enforce the URDF joint position limits as exact stops (or not), whatever the file says");
  sub->add_flag("--compiled", o->compiled,
                "Generate and compile this model's kernels (cached; docs/codegen.md) and run on them where they apply");
  sub->add_flag("--compile-in-background", o->background,
                "As --compiled, but start at once on the runtime algorithms and switch to the kernels between two "
                "steps once they are ready (the run is then not bitwise reproducible)");
  sub->add_option("--html", o->html, "Also write the run's replay page (3D viewer, docs/viewer.md) to this file");
  sub->add_option("--cache-dir", o->cache_dir, "Cache folder of --compiled (default $XDG_CACHE_HOME/articula)");
  sub->add_option(
         "--max-statements", o->max_statements,
         "--compiled: cut kernels longer than this many statements into parts compiled in parallel "
         "(0: whole). Faster to compile and, at the default, as fast or faster to run (docs/codegen.md, \"Kernels "
         "in parts\")")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  return [o] { return run(*o); };
}

}  // namespace articula::cli
