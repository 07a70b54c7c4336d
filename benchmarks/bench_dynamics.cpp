// bench_dynamics: articula's rnea / crba / aba against MuJoCo 2.2.2 and DART 6.12
// (when found at configure time) on the robots of models/, with the same 256
// random states (fixed seed) for every engine. See README.md beside this file.
//
// Usage: bench_dynamics [--check_only] [Google Benchmark flags]
//   --check_only  print the cross-engine sanity check and exit without timing.
// Defaults prepended to the command line (later flags override them):
//   --benchmark_repetitions=5 --benchmark_display_aggregates_only=true --benchmark_min_time=0.1
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "articula/articula.hpp"
#include "bench_common.hpp"
#include "bench_main.hpp"
#include "bench_panda.hpp"
#include "bench_pendulum3r.hpp"
#include "bench_solo12.hpp"
#include "bench_talos.hpp"
#include "bench_ur5.hpp"
#include "peer.hpp"
#include "peer_problem.hpp"
#include "pinocchio_quotes.hpp"
#ifdef ARTICULA_HAVE_MUJOCO
#include "peer_mujoco.hpp"
#endif
#ifdef ARTICULA_HAVE_DART
#include "peer_dart.hpp"
#endif

namespace {

using articula::BaseType;
using articula::MatrixX;
using articula::VectorX;
namespace ab = articula::bench;

constexpr std::size_t kStates = BenchStates::kCount;  // the states of bench_common.hpp

// The generated kernels of a model (`articula codegen`, written at build time; CMakeLists.txt).
struct Generated {
  const char* digest;
  articula::RneaKernel rnea;
  articula::CrbaKernel crba;
  articula::AbaKernel aba;
};
#define ARTICULA_GENERATED(ns)                                                                             \
  Generated {                                                                                              \
    articula::generated::ns::model_digest, &articula::generated::ns::rnea, &articula::generated::ns::crba, \
        &articula::generated::ns::aba                                                                      \
  }

struct ModelSpec {
  const char* key;
  const char* file;
  BaseType base;
  Generated generated;
};
const ModelSpec kModels[] = {
    {"pendulum3r", "pendulum3r.urdf", BaseType::Fixed, ARTICULA_GENERATED(bench_pendulum3r)},
    {"ur5", "ur5.urdf", BaseType::Fixed, ARTICULA_GENERATED(bench_ur5)},
    {"panda", "panda.urdf", BaseType::Fixed, ARTICULA_GENERATED(bench_panda)},
    {"solo12", "solo12.urdf", BaseType::Floating, ARTICULA_GENERATED(bench_solo12)},
    {"talos", "talos_reduced.urdf", BaseType::Floating, ARTICULA_GENERATED(bench_talos)},
};

const char* const kQuantityName[] = {"inverse dynamics", "mass matrix", "forward dynamics"};
const char* const kQuantityTag[] = {"ID", "M", "FD"};
const char* const kArticulaCall[] = {"rnea", "crba", "aba"};
const char* const kCodegenCall[] = {"codegen_rnea", "codegen_crba", "codegen_aba"};
const char* const kArticulaIncludes[] = {
    "rnea(model, data, q, v, a): placements from q, velocities, accelerations, body forces, tau (RNEA, RBDA Table 5.1)",
    "crba(model, data, q): placements from q, composite inertias, both triangles of M (CRBA, RBDA Table 6.2)",
    "aba(model, data, q, v, tau): placements from q and the three ABA passes (RBDA Table 7.1), no factorization of M",
};
const char* const kCodegenIncludes =
    "the same algorithms as the model's generated kernels (`articula codegen`, docs/codegen.md): straight-line code "
    "with the model's numbers folded in, q/v/a in, tau / M (sparsity pattern) / qdd out";

// The Pinocchio call PEERS.md quotes for each quantity (pinocchio_quotes.hpp).
constexpr PinocchioCall kPinocchioCall[] = {PinocchioCall::Rnea, PinocchioCall::Crba, PinocchioCall::Aba};

struct PeerSlot {
  std::string engine;              // "MuJoCo 2.2.2"
  std::unique_ptr<ab::Peer> peer;  // null when skipped
  std::string skipped;             // why
};

struct Case {
  ModelSpec spec;
  articula::Model model;
  std::unique_ptr<articula::Data> data;
  std::vector<VectorX> q, v, a, tau;
  ab::PeerProblem problem;
  std::vector<PeerSlot> peers;  // MuJoCo, DART, in this order
};

std::unique_ptr<Case> make_case(const ModelSpec& spec) {
  auto c = std::make_unique<Case>();
  c->spec = spec;
  const std::string path = bench_models_dir() + "/" + spec.file;
  c->model = articula::load_urdf(path, spec.base);
  c->data = std::make_unique<articula::Data>(c->model);
  const articula::Model& m = c->model;

  // The states (bench_common.hpp), also the peers' (peer_problem.hpp).
  BenchStates states = bench_states(m);
  std::string unsupported;
  c->problem = ab::peer_problem(spec.key, path, spec.base == BaseType::Floating, m, states, true, unsupported);
  const ab::PeerProblem& p = c->problem;
  c->q = std::move(states.q);
  c->v = std::move(states.v);
  c->a = std::move(states.a);
  c->tau = std::move(states.tau);

  // A peer slot: factory(p), or skipped with `missing` (the engine not found at configure time).
  auto attach = [&](const char* engine, std::unique_ptr<ab::Peer> (*factory)(const ab::PeerProblem&),
                    const char* missing) {
    PeerSlot slot;
    slot.engine = engine;
    if (missing != nullptr) {
      slot.skipped = missing;
    } else if (!unsupported.empty()) {
      slot.skipped = "joint '" + unsupported + "' has a type the peer adapters do not map";
    } else {
      try {
        slot.peer = factory(p);
      } catch (const std::exception& e) {
        slot.skipped = e.what();
      }
    }
    c->peers.push_back(std::move(slot));
  };
#ifdef ARTICULA_HAVE_MUJOCO
  attach("MuJoCo 2.2.2", &ab::make_mujoco_peer, nullptr);
#else
  attach("MuJoCo 2.2.2", nullptr, "not found at configure time (mujoco/mujoco.h + libmujoco)");
#endif
#ifdef ARTICULA_HAVE_DART
  attach("DART 6.12", &ab::make_dart_peer, nullptr);
#else
  attach("DART 6.12", nullptr, "not found at configure time (pkg-config dart + libdart-utils-urdf)");
#endif
  return c;
}

// ---------------------------------------------------------------- sanity check

struct Diff {
  double max_abs = 0.0;  // max over states and entries of |articula − peer|
  double max_ref = 0.0;  // max of |articula| (the scale for the relative figure)
  void add(const double* x, const double* y, std::size_t n) {
    for (std::size_t k = 0; k < n; ++k) {
      max_abs = std::max(max_abs, std::abs(x[k] - y[k]));
      max_ref = std::max(max_ref, std::abs(x[k]));
    }
  }
  double rel() const { return max_ref > 0 ? max_abs / max_ref : max_abs; }
};

void sanity_check(const std::vector<std::unique_ptr<Case>>& cases) {
  std::printf("\n## Sanity check: articula's generated kernels against its recursions (%zu states)\n\n", kStates);
  std::printf("| model | digest matches | max rel Δqdd | max rel Δtau | max rel ΔM |\n|---|---|---|---|---|\n");
  for (const auto& c : cases) {
    const articula::Model& m = c->model;
    const std::size_t nv = static_cast<std::size_t>(m.nv);
    const Generated& g = c->spec.generated;
    Diff dqdd, dtau, dM;
    std::vector<double> buf(nv * nv, 0.0);
    for (std::size_t i = 0; i < kStates; ++i) {
      g.aba(c->q[i].data(), c->v[i].data(), c->tau[i].data(), buf.data());
      dqdd.add(articula::aba(m, *c->data, c->q[i], c->v[i], c->tau[i]).data(), buf.data(), nv);
      g.rnea(c->q[i].data(), c->v[i].data(), c->a[i].data(), buf.data());
      dtau.add(articula::rnea(m, *c->data, c->q[i], c->v[i], c->a[i]).data(), buf.data(), nv);
      std::fill(buf.begin(), buf.end(), 0.0);
      g.crba(c->q[i].data(), buf.data());
      dM.add(articula::crba(m, *c->data, c->q[i]).data(), buf.data(), nv * nv);
    }
    std::printf("| %s | %s | %.1e | %.1e | %.1e |\n", c->spec.key, articula::model_digest(m) == g.digest ? "yes" : "NO",
                dqdd.rel(), dtau.rel(), dM.rel());
  }
  std::printf("\n## Sanity check: articula against each peer on the same %zu states\n\n", kStates);
  std::printf("max |articula − peer| over all states and entries (relative: divided by max |articula|)\n\n");
  std::printf("| model | engine | max |Δqdd| (rel) | max |Δtau| (rel) | max |ΔM| (rel) |\n");
  std::printf("|---|---|---|---|---|\n");
  for (const auto& c : cases) {
    const articula::Model& m = c->model;
    const std::size_t nv = static_cast<std::size_t>(m.nv);
    for (const auto& slot : c->peers) {
      if (!slot.peer) continue;
      Diff dqdd, dtau, dM;
      std::vector<double> buf(nv * nv);
      for (std::size_t i = 0; i < kStates; ++i) {
        const VectorX& qdd = articula::aba(m, *c->data, c->q[i], c->v[i], c->tau[i]);
        slot.peer->forward_dynamics(i, buf.data());
        dqdd.add(qdd.data(), buf.data(), nv);
        const VectorX& tau = articula::rnea(m, *c->data, c->q[i], c->v[i], c->a[i]);
        slot.peer->inverse_dynamics(i, buf.data());
        dtau.add(tau.data(), buf.data(), nv);
        const MatrixX& M = articula::crba(m, *c->data, c->q[i]);
        slot.peer->mass_matrix(i, buf.data());
        dM.add(M.data(), buf.data(), nv * nv);
      }
      std::printf("| %s | %s | %.2e (%.1e) | %.2e (%.1e) | %.2e (%.1e) |\n", c->spec.key, slot.engine.c_str(),
                  dqdd.max_abs, dqdd.rel(), dtau.max_abs, dtau.rel(), dM.max_abs, dM.rel());
    }
  }
  std::printf("\n");
}

// ---------------------------------------------------------------- timing

std::string bench_name(const Case& c, ab::Quantity q, const std::string& engine_call) {
  return std::string(c.spec.key) + "/" + kQuantityTag[static_cast<int>(q)] + "/" + engine_call;
}

void register_benchmarks(const std::vector<std::unique_ptr<Case>>& cases) {
  for (const auto& cp : cases) {
    Case* c = cp.get();
    add_state_benchmark(bench_name(*c, ab::Quantity::InverseDynamics, "articula:rnea"), [c](std::size_t i) {
      benchmark::DoNotOptimize(articula::rnea(c->model, *c->data, c->q[i], c->v[i], c->a[i]).data());
    });
    add_state_benchmark(bench_name(*c, ab::Quantity::MassMatrix, "articula:crba"), [c](std::size_t i) {
      benchmark::DoNotOptimize(articula::crba(c->model, *c->data, c->q[i]).data());
    });
    add_state_benchmark(bench_name(*c, ab::Quantity::ForwardDynamics, "articula:aba"), [c](std::size_t i) {
      benchmark::DoNotOptimize(articula::aba(c->model, *c->data, c->q[i], c->v[i], c->tau[i]).data());
    });
    // The generated kernels: one call per iteration on the state's arrays.
    const Generated g = c->spec.generated;
    const std::size_t nv = static_cast<std::size_t>(c->model.nv);
    auto out = std::make_shared<std::vector<double>>(nv * nv, 0.0);
    add_state_benchmark(
        bench_name(*c, ab::Quantity::InverseDynamics, "articula:codegen_rnea"),
        [c, g, out](std::size_t i) { g.rnea(c->q[i].data(), c->v[i].data(), c->a[i].data(), out->data()); });
    add_state_benchmark(bench_name(*c, ab::Quantity::MassMatrix, "articula:codegen_crba"),
                        [c, g, out](std::size_t i) { g.crba(c->q[i].data(), out->data()); });
    add_state_benchmark(
        bench_name(*c, ab::Quantity::ForwardDynamics, "articula:codegen_aba"),
        [c, g, out](std::size_t i) { g.aba(c->q[i].data(), c->v[i].data(), c->tau[i].data(), out->data()); });
    for (const auto& slot : c->peers) {
      if (!slot.peer) continue;
      ab::Peer* peer = slot.peer.get();
      const auto& ops = peer->ops();
      for (std::size_t op = 0; op < ops.size(); ++op)
        add_state_benchmark(bench_name(*c, ops[op].quantity, std::string(peer->key()) + ":" + ops[op].label),
                            [peer, op](std::size_t i) { peer->run(op, i); });
    }
  }
}

std::string fmt_us(double us) { return bench_fmt(us, us < 10 ? "%.3f µs" : "%.1f µs", "skipped"); }

void print_summary(const std::vector<std::unique_ptr<Case>>& cases, const Collector& col) {
  const std::string table_header =
      "| model | quantity | articula | articula codegen | MuJoCo 2.2.2 | DART 6.12 | best peer / "
      "articula | best peer / codegen | " +
      pinocchio_header() + " | Pinocchio / codegen |\n";
  print_summary_heading("median CPU time per call " + bench_states_cycled(), table_header.c_str(),
                        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const auto& c : cases) {
    for (int qi = 0; qi < 3; ++qi) {
      const auto q = static_cast<ab::Quantity>(qi);
      const double art = col.micros(bench_name(*c, q, std::string("articula:") + kArticulaCall[qi]));
      const double gen = col.micros(bench_name(*c, q, std::string("articula:") + kCodegenCall[qi]));
      std::string cells[2];
      double best = std::nan("");
      for (std::size_t s = 0; s < c->peers.size() && s < 2; ++s) {
        const auto& slot = c->peers[s];
        cells[s] = "skipped";
        if (!slot.peer) continue;
        for (const auto& op : slot.peer->ops()) {
          if (op.quantity != q || !op.primary) continue;
          const double t = col.micros(bench_name(*c, q, std::string(slot.peer->key()) + ":" + op.label));
          cells[s] = fmt_us(t);
          bench_keep_min(best, t);
        }
      }
      const PinocchioCall pc = kPinocchioCall[qi];
      std::printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", c->spec.key, kQuantityName[qi],
                  fmt_us(art).c_str(), fmt_us(gen).c_str(), cells[0].c_str(), cells[1].c_str(),
                  bench_ratio(best, art).c_str(), bench_ratio(best, gen).c_str(),
                  pinocchio_cell(pc, c->spec.key).c_str(), bench_ratio(pinocchio_us(pc, c->spec.key), gen).c_str());
    }
  }

  // Secondary peer rows (not in the ratio).
  bool header = false;
  for (const auto& c : cases)
    for (const auto& slot : c->peers) {
      if (!slot.peer) continue;
      for (const auto& op : slot.peer->ops()) {
        if (op.primary) continue;
        if (!header) {
          std::printf(
              "\nOther peer variants (not used in the ratio):\n\n| model | engine | call | time "
              "|\n|---|---|---|---:|\n");
          header = true;
        }
        std::printf(
            "| %s | %s | %s | %s |\n", c->spec.key, slot.engine.c_str(), op.label.c_str(),
            fmt_us(col.micros(bench_name(*c, op.quantity, std::string(slot.peer->key()) + ":" + op.label))).c_str());
      }
    }

  print_includes_heading();
  for (int qi = 0; qi < 3; ++qi) std::printf("- articula %s: %s\n", kQuantityName[qi], kArticulaIncludes[qi]);
  std::printf("- articula codegen: %s\n", kCodegenIncludes);
  std::map<std::string, bool> seen;
  for (const auto& c : cases)
    for (const auto& slot : c->peers) {
      if (!slot.peer) continue;
      for (const auto& op : slot.peer->ops()) {
        const std::string line = slot.engine + " " + op.label + (op.primary ? "" : " (variant)") + ": " + op.includes;
        if (!seen[line]) std::printf("- %s\n", line.c_str());
        seen[line] = true;
      }
    }
  std::printf("%s%s", pinocchio_note().c_str(), pinocchio_readme_note());
  std::printf("best peer / articula > 1 means articula is faster than the fastest measured peer.\n");
}

void print_setup(const std::vector<std::unique_ptr<Case>>& cases) {
  print_bench_title("bench_dynamics");
  std::map<std::string, bool> noted;
  for (const auto& c : cases) {
    std::printf("%-10s nq %2d nv %2d bodies %2d %s\n", c->spec.key, c->model.nq, c->model.nv, c->model.njoints,
                c->spec.base == BaseType::Floating ? "(floating)" : "(fixed base)");
    for (const auto& slot : c->peers) {
      if (!slot.peer)
        std::printf("           %s rows SKIPPED: %s\n", slot.engine.c_str(), slot.skipped.c_str());
      else
        std::printf("           %s: %s\n", slot.engine.c_str(), slot.peer->notes().c_str());
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  return bench_main(
      argc, argv, "bench_dynamics", {"--check_only"}, kModels, make_case,
      [](const ModelSpec& s) { return std::string("load ") + s.file; },
      BenchSteps{print_setup, sanity_check, register_benchmarks, print_summary});
}
