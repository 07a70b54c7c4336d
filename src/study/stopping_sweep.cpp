// Stopping sweeps: work items on a thread pool, brake sampling, percentiles, assembly.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <thread>

#include "articula/study/stopping.hpp"

namespace articula {
namespace {

// SplitMix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number generators",
// OOPSLA 2014): a counter-based stream, so the draw for (seed, case, sample, k) is the same
// whoever computes it.
std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// A uniform number in [0, 1) from the 53 high bits.
double unit(std::uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

}  // namespace

BrakeScaling sample_brakes(const StoppingStudy& s, std::uint64_t seed, int case_index, int sample) {
  BrakeScaling out;
  std::uint64_t state = splitmix(splitmix(seed) ^ (static_cast<std::uint64_t>(case_index) << 32 ^
                                                   static_cast<std::uint64_t>(static_cast<std::uint32_t>(sample))));
  auto draw = [&](double tol) {
    state = splitmix(state);
    return 1.0 + tol * (2.0 * unit(state) - 1.0);
  };
  for (std::size_t k = 0; k < s.brakes.size(); ++k) {
    out.delay.push_back(draw(s.delay_tolerance));
    out.torque.push_back(draw(s.torque_tolerance));
  }
  return out;
}

StopFigures run_stopping_item(const StoppingStudy& s, const std::vector<StoppingCase>& cases, const SweepPlan& plan,
                              int item) {
  const int runs = plan.runs_per_case();
  const StoppingCase& c = cases.at(static_cast<std::size_t>(item / runs));
  const int run = item % runs;
  const BrakeModel real = BrakeModel::Real;
  try {
    if (run == 0) return run_stopping_case(s, c, real);
    if (run == 1) return run_stopping_case(s, c, BrakeModel::Ideal);
    return run_stopping_case(s, c, real, sample_brakes(s, plan.seed, c.index, run - 2));
  } catch (const std::exception& e) {
    StopFigures f;
    f.message = e.what();
    return f;
  }
}

std::vector<StopFigures> run_stopping_items(const StoppingStudy& s, const std::vector<StoppingCase>& cases,
                                            const SweepPlan& plan, const std::vector<int>& items, int jobs) {
  std::vector<StopFigures> out(items.size());
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i = next++; i < items.size(); i = next++) out[i] = run_stopping_item(s, cases, plan, items[i]);
  };
  const int n = std::max(1, std::min<int>(jobs, static_cast<int>(items.size())));
  std::vector<std::thread> pool;
  for (int k = 1; k < n; ++k) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  return out;
}

Spread spread_of(std::vector<double> v) {
  Spread s;
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  // Nearest-rank percentile: the smallest value with at least p % of the values at or below it.
  auto rank = [&](double p) {
    const auto k = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(v.size())));
    return v[std::clamp<std::size_t>(k, 1, v.size()) - 1];
  };
  s.worst = v.back();
  s.p50 = rank(50);
  s.p95 = rank(95);
  s.p99 = rank(99);
  return s;
}

std::vector<StoppingCaseResult> assemble_results(const std::vector<StoppingCase>& cases, const SweepPlan& plan,
                                                 const std::vector<StopFigures>& items) {
  if (static_cast<int>(items.size()) != plan.items())
    throw std::invalid_argument("assemble_results: " + std::to_string(items.size()) + " results for " +
                                std::to_string(plan.items()) + " work items");
  const int runs = plan.runs_per_case();
  std::vector<StoppingCaseResult> out;
  for (std::size_t k = 0; k < cases.size(); ++k) {
    StoppingCaseResult r;
    r.c = cases[k];
    const std::size_t base = k * static_cast<std::size_t>(runs);
    r.real = items[base];
    r.ideal = items[base + 1];
    r.samples = plan.samples;
    std::vector<double> t, d, p, tq;
    for (int i = 0; i < plan.samples; ++i) {
      const StopFigures& f = items[base + 2 + static_cast<std::size_t>(i)];
      if (!f.ok) {
        ++r.failed_samples;
        continue;
      }
      t.push_back(f.stop_time);
      d.push_back(f.distance_deg);
      p.push_back(f.path_mm);
      tq.push_back(f.peak_torque);
    }
    r.time = spread_of(t);
    r.distance = spread_of(d);
    r.path = spread_of(p);
    r.torque = spread_of(tq);
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<StoppingCaseResult> run_stopping_sweep(const StoppingStudy& s, int samples, std::uint64_t seed, int jobs) {
  if (samples < 0) throw std::invalid_argument("run_stopping_sweep: samples must be ≥ 0");
  const std::vector<StoppingCase> cases = stopping_cases(s);
  const SweepPlan plan{static_cast<int>(cases.size()), samples, seed};
  std::vector<int> items(static_cast<std::size_t>(plan.items()));
  for (int i = 0; i < plan.items(); ++i) items[static_cast<std::size_t>(i)] = i;
  return assemble_results(cases, plan, run_stopping_items(s, cases, plan, items, jobs));
}

void pack_figures(const StopFigures& f, double* out) {
  out[0] = f.ok ? 1.0 : 0.0;
  out[1] = f.stop_time;
  out[2] = f.distance_deg;
  out[3] = f.path_mm;
  out[4] = f.peak_torque;
  out[5] = f.slipped ? 1.0 : 0.0;
  out[6] = f.slip_time;
  out[7] = static_cast<double>(f.message.size());
}

StopFigures unpack_figures(const double* in) {
  StopFigures f;
  f.ok = in[0] != 0.0;
  f.stop_time = in[1];
  f.distance_deg = in[2];
  f.path_mm = in[3];
  f.peak_torque = in[4];
  f.slipped = in[5] != 0.0;
  f.slip_time = in[6];
  if (!f.ok) f.message = "failed on another rank";
  return f;
}

}  // namespace articula
