#pragma once
// The main() of bench_dynamics, bench_constrained and bench_activation: the command line, the
// cases made from their specs, the setup and the sanity check, then (unless --check_only) the
// benchmarks, their run and the summary. bench_simulation has a main() of its own.
#include <cstdio>
#include <exception>
#include <iterator>
#include <set>
#include <string>
#include <vector>

#include "bench_common.hpp"

/// The Google Benchmark flags put before the command line (later flags override them).
inline const std::vector<std::string> kBenchDefaults = {
    "--benchmark_repetitions=5", "--benchmark_display_aggregates_only=true", "--benchmark_min_time=0.1"};

/// The program's own steps, each called with its cases (bench_main).
template <typename Setup, typename Check, typename Register, typename Summary>
struct BenchSteps {
  Setup print_setup;             // (cases)
  Check sanity_check;            // (cases); not with --no_check, where that switch is taken
  Register register_benchmarks;  // (cases)
  Summary print_summary;         // (cases, collector)
};
// Deduction from the four steps (clang 14 does not deduce an aggregate's arguments itself).
template <typename Setup, typename Check, typename Register, typename Summary>
BenchSteps(Setup, Check, Register, Summary) -> BenchSteps<Setup, Check, Register, Summary>;

/// main(): the command line (kBenchDefaults before it, `switches` taken out), one case per spec
/// (make_case(spec), a std::unique_ptr; a failure is reported on stderr as "PROGRAM: cannot
/// WHAT: why", what(spec) e.g. "set up talos"), then the steps. Returns the exit status: 1 after
/// an unrecognized flag or a case that could not be made.
template <typename Specs, typename Make, typename What, typename Steps>
int bench_main(int argc, char** argv, const char* program, const std::set<std::string>& switches, const Specs& specs,
               Make make_case, What what, Steps steps) {
  const BenchCommandLine cl(argc, argv, kBenchDefaults, switches);
  if (!cl.ok()) return 1;
  std::vector<decltype(make_case(*std::begin(specs)))> cases;
  for (const auto& spec : specs) {
    try {
      cases.push_back(make_case(spec));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: cannot %s: %s\n", program, std::string(what(spec)).c_str(), e.what());
      return 1;
    }
  }
  steps.print_setup(cases);
  if (!cl.has("--no_check")) steps.sanity_check(cases);
  if (cl.has("--check_only")) return 0;
  steps.register_benchmarks(cases);
  Collector collector;
  run_benchmarks(collector);
  steps.print_summary(cases, collector);
  benchmark::Shutdown();
  return 0;
}
