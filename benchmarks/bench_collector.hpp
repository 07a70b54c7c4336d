#pragma once
// Shared by the bench_* programs: the compiler and models folder of the report, and the
// Google Benchmark reporter, which keeps the console output
// and records, per benchmark, the median over repetitions of the CPU time per call — or the wall
// time, for programs whose timed calls use more than one thread (Collector(Clock::Wall)) — (or,
// with one repetition, the median of the runs), so that a summary table can follow.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

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
