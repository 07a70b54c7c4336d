#pragma once
// The scaffolding every bench_* program shares: the compiler and models folder of the report,
// the command line (the program's defaults before Google Benchmark's flags, its own switches
// taken out), the cases made from their specs, the seeded random states and the benchmarks
// that cycle through them, the number formats and the summary's headings, and the run itself
// with the Google Benchmark reporter (Collector), which keeps the console output and records,
// per benchmark, the median over repetitions of the CPU time per call — or the wall time, for
// programs whose timed calls use more than one thread (Collector(Clock::Wall)) — (or, with
// one repetition, the median of the runs), so that a summary table can follow.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "articula/model/configuration.hpp"

/// The compiler that built the benchmark, for the report's header.
inline std::string bench_compiler() {
#if defined(__clang__)
  return std::string("clang++ ") + __clang_version__;
#elif defined(__GNUC__)
  return std::string("g++ ") + __VERSION__;
#else
  return "unknown compiler";
#endif
}

/// The bundled models: $ARTICULA_MODELS_DIR, else the source tree's models/ (compile-time path;
/// every bench_* target defines ARTICULA_BENCH_MODELS_DIR).
inline std::string bench_models_dir() {
  if (const char* env = std::getenv("ARTICULA_MODELS_DIR")) return env;
  return ARTICULA_BENCH_MODELS_DIR;
}

class Collector : public benchmark::ConsoleReporter {
 public:
  enum class Clock { Cpu, Wall };
  explicit Collector(Clock clock = Clock::Cpu) : clock_(clock) {}
  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& r : runs) {
      if (r.error_occurred) continue;
      const double t = clock_ == Clock::Wall ? r.GetAdjustedRealTime() : r.GetAdjustedCPUTime();
      const double ns = t / benchmark::GetTimeUnitMultiplier(r.time_unit) * 1e9;
      const std::string& name = r.run_name.function_name;
      if (r.run_type == Run::RT_Aggregate) {
        if (r.aggregate_name == "median") median_[name] = ns;
      } else {
        samples_[name].push_back(ns);
      }
    }
  }
  /// Median CPU (or wall) time per call in µs, or NaN when the benchmark did not run.
  double micros(const std::string& name) const {
    if (const auto it = median_.find(name); it != median_.end()) return it->second * 1e-3;
    if (const auto it = samples_.find(name); it != samples_.end() && !it->second.empty()) {
      std::vector<double> s = it->second;
      std::nth_element(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(s.size() / 2), s.end());
      return s[s.size() / 2] * 1e-3;
    }
    return std::nan("");
  }

 private:
  Clock clock_;
  std::map<std::string, double> median_;
  std::map<std::string, std::vector<double>> samples_;
};

/// "-march=native" or "no -march=native", as the program was built (ARTICULA_NATIVE).
inline const char* bench_native() { return ARTICULA_BENCH_NATIVE ? "-march=native" : "no -march=native"; }

/// The report's first line: "# NAME — articula <compiler>, <-march=native or not>".
inline void print_bench_title(const char* program) {
  std::printf("# %s — articula %s, %s\n\n", program, bench_compiler().c_str(), bench_native());
}

/// The summary's build line: "articula built with <compiler>[, -march=native (ARTICULA_NATIVE=ON)]".
inline void print_bench_build() {
  std::printf("articula built with %s%s\n\n", bench_compiler().c_str(),
              ARTICULA_BENCH_NATIVE ? ", -march=native (ARTICULA_NATIVE=ON)" : "");
}

/// x with printf format `format`, or `missing` when x is NaN (a benchmark that did not run).
inline std::string bench_fmt(double x, const char* format, const char* missing = "skipped") {
  if (std::isnan(x)) return missing;
  char buf[48];
  std::snprintf(buf, sizeof buf, format, x);
  return buf;
}

/// num / den with "%.2f", or "—" when either is missing (NaN) or den is not positive.
inline std::string bench_ratio(double num, double den) {
  if (std::isnan(num) || std::isnan(den) || den <= 0) return "—";
  return bench_fmt(num / den, "%.2f");
}

/// best = min(best, t), skipping a missing t (NaN); best starts as NaN.
inline void bench_keep_min(double& best, double t) {
  if (!std::isnan(t) && (std::isnan(best) || t < best)) best = t;
}

/// The random states of bench_dynamics, bench_constrained and bench_activation (the same
/// generator and order of draws, so each program times the same states): q uniform within
/// the limits (±1 m for the base position, uniform rotations), v, a, tau uniform in [−1, 1].
struct BenchStates {
  static constexpr std::size_t kCount = 256;
  static constexpr unsigned kSeed = 20240917u;
  std::vector<articula::VectorX> q, v, a, tau;
};
inline BenchStates bench_states(const articula::Model& m) {
  BenchStates s;
  std::mt19937 rng(BenchStates::kSeed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (std::size_t i = 0; i < BenchStates::kCount; ++i) {
    s.q.push_back(articula::random_configuration(m, rng));
    articula::VectorX v(m.nv), a(m.nv), tau(m.nv);
    for (int k = 0; k < m.nv; ++k) v[k] = u(rng);
    for (int k = 0; k < m.nv; ++k) a[k] = u(rng);
    for (int k = 0; k < m.nv; ++k) tau[k] = u(rng);
    s.v.push_back(v);
    s.a.push_back(a);
    s.tau.push_back(tau);
  }
  return s;
}

/// "(256 states cycled, fixed seed 20240917)", for a summary's title.
inline std::string bench_states_cycled() {
  char buf[64];
  std::snprintf(buf, sizeof buf, "(%zu states cycled, fixed seed %u)", BenchStates::kCount, BenchStates::kSeed);
  return buf;
}

/// The summary's heading, "## Summary: TITLE", and its build line (print_bench_build), then the
/// table's header and alignment rows when given (`header`, `rule`: each a line with its "\n").
inline void print_summary_heading(const std::string& title, const char* header = nullptr, const char* rule = nullptr) {
  std::printf("\n## Summary: %s\n\n", title.c_str());
  print_bench_build();
  if (header != nullptr) std::printf("%s%s", header, rule);
}

/// The heading of the list of what one timed call includes, below a summary table.
inline void print_includes_heading() {
  std::printf("\nWhat one timed call includes (every call sets its state, cycling through the %zu states):\n",
              BenchStates::kCount);
}

/// Registers benchmark `name` (in ns): each iteration is one call body(i) on state i, cycling
/// through the BenchStates::kCount states.
template <typename F>
void add_state_benchmark(const std::string& name, F body) {
  benchmark::RegisterBenchmark(name.c_str(), [body](benchmark::State& st) {
    std::size_t i = 0;
    for (auto _ : st) {
      body(i);
      benchmark::ClobberMemory();
      i = (i + 1) % BenchStates::kCount;
    }
  })->Unit(benchmark::kNanosecond);
}

/// "KEY/CALL": the name of benchmark `call` of a case whose spec has a key (bench_constrained,
/// bench_activation).
template <typename Case>
std::string case_bench_name(const Case& c, const std::string& call) {
  return std::string(c.spec->key) + "/" + call;
}

/// add_state_benchmark under the name case_bench_name(c, call).
template <typename Case, typename F>
void add_case_benchmark(const Case& c, const std::string& call, F body) {
  add_state_benchmark(case_bench_name(c, call), body);
}

/// The command line of a bench_* program: `defaults` (Google Benchmark flags) come first so
/// that the user's flags override them; the program's own `switches` (e.g. "--check_only")
/// are taken out and reported by has(). ok() is false after an unrecognized flag (reported).
class BenchCommandLine {
 public:
  BenchCommandLine(int argc, char** argv, const std::vector<std::string>& defaults,
                   const std::set<std::string>& switches) {
    storage_.push_back(argv[0]);
    for (const std::string& d : defaults) storage_.push_back(d);
    for (int i = 1; i < argc; ++i) {
      if (switches.count(argv[i]) > 0)
        given_.insert(argv[i]);
      else
        storage_.push_back(argv[i]);
    }
    for (std::string& s : storage_) args_.push_back(s.data());
    int n = static_cast<int>(args_.size());
    benchmark::Initialize(&n, args_.data());
    ok_ = !benchmark::ReportUnrecognizedArguments(n, args_.data());
  }
  bool ok() const { return ok_; }
  bool has(const std::string& sw) const { return given_.count(sw) > 0; }

 private:
  std::vector<std::string> storage_;
  std::vector<char*> args_;
  std::set<std::string> given_;
  bool ok_ = false;
};

/// Runs the registered benchmarks into `collector`, with the compiler and -march=native in
/// the report's context.
inline void run_benchmarks(Collector& collector) {
  benchmark::AddCustomContext("articula compiler", bench_compiler());
  benchmark::AddCustomContext("articula -march=native", ARTICULA_BENCH_NATIVE ? "yes" : "no");
  benchmark::RunSpecifiedBenchmarks(&collector);
}
