// bench_constrained: articula's exact constrained forward dynamics (KKT, range-space,
// null-space, auto) against MuJoCo 2.2.2's soft equality constraints (when found at
// configure time) on the robots of models/ with frames held in the world, the same 256
// random states (fixed seed, the states of bench_dynamics) for every engine.
// See README.md beside this file.
//
// Usage: bench_constrained [--check_only] [Google Benchmark flags]
//   --check_only  print the sanity check (residuals, statuses, MuJoCo's rows) and exit.
//   --no_check    skip the sanity check (e.g. for a profiler run of one benchmark).
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
#include "held_panda.hpp"
#include "held_pendulum3r.hpp"
#include "held_solo12.hpp"
#include "held_talos.hpp"
#include "held_ur5.hpp"
#include "peer.hpp"
#include "peer_problem.hpp"
#include "pinocchio_quotes.hpp"
#ifdef ARTICULA_HAVE_MUJOCO
#include "peer_mujoco_constrained.hpp"
#endif

namespace {

using articula::AxisMask;
using articula::BaseType;
using articula::ConstrainedMethod;
using articula::VectorX;
namespace ab = articula::bench;

constexpr std::size_t kStates = BenchStates::kCount;  // the states of bench_common.hpp

// The case's generated kernel (`articula codegen --hold`, the same frames; CMakeLists.txt).
using GeneratedDynamics = articula::ConstrainedKernel;

struct HeldFrame {
  const char* frame;
  bool weld;  // weld (6 rows) or point (3 rows)
};

struct CaseSpec {
  const char* key;
  const char* file;
  BaseType base;
  std::vector<HeldFrame> frames;
  GeneratedDynamics generated;
};

const std::vector<CaseSpec>& case_specs() {
  static const std::vector<CaseSpec> specs = {
      {"talos",
       "talos_reduced.urdf",
       BaseType::Floating,
       {{"left_sole_link", true}, {"right_sole_link", true}},
       &articula::generated::held_talos::constrained_dynamics},
      {"solo12",
       "solo12.urdf",
       BaseType::Floating,
       {{"FL_FOOT", false}, {"FR_FOOT", false}, {"HL_FOOT", false}, {"HR_FOOT", false}},
       &articula::generated::held_solo12::constrained_dynamics},
      {"panda",
       "panda.urdf",
       BaseType::Fixed,
       {{"panda_hand", true}},
       &articula::generated::held_panda::constrained_dynamics},
      {"ur5", "ur5.urdf", BaseType::Fixed, {{"tool0", false}}, &articula::generated::held_ur5::constrained_dynamics},
      {"pendulum3r",
       "pendulum3r.urdf",
       BaseType::Fixed,
       {{"tip", false}},
       &articula::generated::held_pendulum3r::constrained_dynamics},
  };
  return specs;
}

struct MethodRow {
  const char* tag;  // benchmark name part
  ConstrainedMethod method;
};
constexpr MethodRow kMethods[] = {
    {"kkt", ConstrainedMethod::Kkt},
    {"range", ConstrainedMethod::RangeSpace},
    {"null", ConstrainedMethod::NullSpace},
    {"auto", ConstrainedMethod::Auto},
};

struct Case {
  const CaseSpec* spec = nullptr;
  articula::Model model;
  std::unique_ptr<articula::Data> data;
  std::unique_ptr<articula::ConstraintSet> set;
  std::unique_ptr<articula::ConstrainedWorkspace> ws;
  std::vector<VectorX> q, v, tau;
  VectorX zero;  // (nv) v̇ = 0 for the bias-force piece
  // The generated kernel's inputs: the constraints' reference poses and Baumgarte gains (filled
  // by the sanity check, after the first solve has captured the references), and its outputs.
  std::vector<double> ref, kp, kd;
  VectorX gen_qdd, gen_lambda;
  std::string peer_engine = "MuJoCo 2.2.2";
#ifdef ARTICULA_HAVE_MUJOCO
  std::unique_ptr<ab::ConstrainedPeer> peer;
#endif
  std::string peer_skipped;
};

std::unique_ptr<Case> make_case(const CaseSpec& spec) {
  auto c = std::make_unique<Case>();
  c->spec = &spec;
  const std::string path = bench_models_dir() + "/" + spec.file;
  c->model = articula::load_urdf(path, spec.base);
  const articula::Model& m = c->model;
  c->data = std::make_unique<articula::Data>(m);
  c->set = std::make_unique<articula::ConstraintSet>(m);
  for (const auto& f : spec.frames)
    c->set->emplace<articula::FrameConstraint>(f.frame, f.frame, f.weld ? AxisMask::weld() : AxisMask::point());
  int rows = 0;
  for (const auto& f : spec.frames) rows += f.weld ? 6 : 3;
  c->ws = std::make_unique<articula::ConstrainedWorkspace>(m, rows);
  c->zero = VectorX::Zero(m.nv);

  // The states of bench_dynamics (bench_common.hpp; a is dropped) and the peer's problem:
  // joints by name, states in articula's conventions (peer_problem.hpp), frames by body.
  BenchStates states = bench_states(m);
  std::string unsupported;
  const ab::PeerProblem p =
      ab::peer_problem(spec.key, path, spec.base == BaseType::Floating, m, states, false, unsupported);
  c->q = std::move(states.q);
  c->v = std::move(states.v);
  c->tau = std::move(states.tau);
#ifdef ARTICULA_HAVE_MUJOCO
  // MuJoCo fuses fixed links into their parent body, as articula does: the equality is
  // attached to the body carrying the frame, at the frame's origin in that body.
  std::vector<ab::EqualitySpec> eqs;
  for (const auto& f : spec.frames) {
    const articula::Frame& fr = m.frames[static_cast<std::size_t>(m.frame_id(f.frame))];
    ab::EqualitySpec e;
    e.name = f.frame;
    e.body = fr.parent == articula::kWorld ? "world" : m.body_names[static_cast<std::size_t>(fr.parent)];
    for (int k = 0; k < 3; ++k) e.anchor[k] = fr.placement.p[k];
    e.weld = f.weld;
    eqs.push_back(e);
  }
  if (!unsupported.empty()) {
    c->peer_skipped = "joint '" + unsupported + "' has a type the peer adapter does not map";
  } else {
    try {
      c->peer = ab::make_mujoco_constrained_peer(p, eqs);
    } catch (const std::exception& e) {
      c->peer_skipped = e.what();
    }
  }
#else
  c->peer_skipped = "not found at configure time (mujoco/mujoco.h + libmujoco)";
#endif
  return c;
}

articula::SolveReport solve(Case& c, std::size_t i, ConstrainedMethod method) {
  return articula::constrained_forward_dynamics(c.model, *c.data, *c.ws, *c.set, c.q[i], c.v[i], c.tau[i], {}, method);
}

// The generated kernel's inputs from the runtime constraints (references captured by a solve).
void generated_inputs(Case& c) {
  c.ref.clear();
  c.kp.clear();
  c.kd.clear();
  for (const auto& f : c.spec->frames) {
    const auto& fc = dynamic_cast<const articula::FrameConstraint&>(c.set->get(f.frame));
    const articula::Transform& X = fc.reference();
    for (int k = 0; k < 3; ++k) c.ref.push_back(X.p[k]);
    for (int k = 0; k < 9; ++k) c.ref.push_back(X.R.data()[k]);
    c.kp.push_back(fc.kp());
    c.kd.push_back(fc.kd());
  }
  c.gen_qdd.resize(c.model.nv);
  c.gen_lambda.resize(c.set->dim());
}

bool solve_generated(Case& c, std::size_t i) {
  return c.spec->generated(c.q[i].data(), c.v[i].data(), c.tau[i].data(), c.ref.data(), c.kp.data(), c.kd.data(),
                           nullptr, c.gen_qdd.data(), c.gen_lambda.data());
}

// ---------------------------------------------------------------- sanity check

void sanity_check(std::vector<std::unique_ptr<Case>>& cases) {
  std::printf("\n## Sanity check over the %zu states\n\n", kStates);
  std::printf(
      "articula: max ‖J v̇ + γ‖∞ (γ with the Baumgarte terms), relative to max |γ|; statuses; "
      "max |v̇ − v̇_kkt|\n\n");
  std::printf("| case | rows | rank | method | max ‖J v̇ + γ‖∞ | (rel) | statuses | max |v̇ − v̇_kkt| |\n");
  std::printf("|---|---:|---:|---|---:|---:|---|---:|\n");
  for (auto& cp : cases) {
    Case& c = *cp;
    std::vector<VectorX> kkt(kStates);
    for (const auto& mr : kMethods) {
      double res = 0.0, gmax = 0.0, dv = 0.0;
      int rank_min = 1 << 30;
      std::map<std::string, int> statuses;
      std::map<std::string, int> used;
      for (std::size_t i = 0; i < kStates; ++i) {
        const articula::SolveReport r = solve(c, i, mr.method);
        const VectorX jr = c.set->J() * c.data->ddq + c.set->gamma();
        res = std::max(res, jr.cwiseAbs().maxCoeff());
        gmax = std::max(gmax, c.set->gamma().cwiseAbs().maxCoeff());
        rank_min = std::min(rank_min, r.rank);
        ++statuses[articula::to_string(r.status)];
        ++used[articula::to_string(r.method)];
        if (mr.method == ConstrainedMethod::Kkt)
          kkt[i] = c.data->ddq;
        else
          dv = std::max(dv, (c.data->ddq - kkt[i]).cwiseAbs().maxCoeff());
      }
      std::string st, meth = mr.tag;
      for (const auto& [k, n] : statuses) st += (st.empty() ? "" : ", ") + k + " " + std::to_string(n);
      if (mr.method == ConstrainedMethod::Auto) {
        meth += " →";
        for (const auto& [k, n] : used) meth += " " + k;
      }
      char dvs[32] = "—";
      if (mr.method != ConstrainedMethod::Kkt) std::snprintf(dvs, sizeof dvs, "%.2e", dv);
      std::printf("| %s | %d | %d | %s | %.2e | %.1e | %s | %s |\n", c.spec->key, c.set->dim(), rank_min, meth.c_str(),
                  res, gmax > 0 ? res / gmax : res, st.c_str(), dvs);
    }
  }
  std::printf(
      "\nGenerated kernels (`articula codegen --hold`, same frames, references and gains) against the range-space "
      "solve:\n\n| case | states solved | max rel |Δv̇| | max rel |Δλ| |\n|---|---:|---:|---:|\n");
  for (auto& cp : cases) {
    Case& c = *cp;
    solve(c, 0, ConstrainedMethod::RangeSpace);  // captures the references
    generated_inputs(c);
    double dq = 0.0, dl = 0.0;
    int ok = 0;
    for (std::size_t i = 0; i < kStates; ++i) {
      solve(c, i, ConstrainedMethod::RangeSpace);
      if (!solve_generated(c, i)) continue;
      ++ok;
      dq = std::max(dq,
                    (c.gen_qdd - c.data->ddq).cwiseAbs().maxCoeff() / std::max(1.0, c.data->ddq.cwiseAbs().maxCoeff()));
      const auto lambda = c.ws->lambda.head(c.set->dim());
      dl = std::max(dl, (c.gen_lambda - lambda).cwiseAbs().maxCoeff() / std::max(1.0, lambda.cwiseAbs().maxCoeff()));
    }
    std::printf("| %s | %d / %zu | %.1e | %.1e |\n", c.spec->key, ok, kStates, dq, dl);
  }
  std::printf(
      "\nMuJoCo (soft equalities): rows instantiated, solver iterations, max |efc_pos| (targets set "
      "per state: ~0), max |J q̈ − a_ref| (the soft constraint's acceleration violation) against the "
      "same with the unconstrained q̈; max |Δq̈| rebuilt model vs the URDF model, equalities off\n\n");
  std::printf(
      "| case | nefc | iterations (max) | max |efc_pos| | max |J q̈ − a_ref| | unconstrained | ratio | model Δq̈ |\n");
  std::printf("|---|---|---:|---:|---:|---:|---:|---:|\n");
  for (auto& cp : cases) {
#ifdef ARTICULA_HAVE_MUJOCO
    if (cp->peer) {
      const ab::ConstrainedPeerCheck k = cp->peer->check();
      std::printf("| %s | %d–%d | %d | %.1e | %.3g | %.3g | %.1e | %.1e |\n", cp->spec->key, k.nefc_min, k.nefc_max,
                  k.iter_max, k.pos_violation, k.acc_gap, k.acc_gap_free,
                  k.acc_gap_free > 0 ? k.acc_gap / k.acc_gap_free : 0.0, k.model_diff);
      continue;
    }
#endif
    std::printf("| %s | SKIPPED: %s |||||||\n", cp->spec->key, cp->peer_skipped.c_str());
  }
  std::printf("\n");
}

// ---------------------------------------------------------------- timing

void register_benchmarks(std::vector<std::unique_ptr<Case>>& cases) {
  for (auto& cp : cases) {
    Case* c = cp.get();
    for (const auto& mr : kMethods) {
      const ConstrainedMethod method = mr.method;
      add_case_benchmark(*c, std::string("articula:") + mr.tag, [c, method](std::size_t i) {
        const articula::SolveReport r = solve(*c, i, method);
        benchmark::DoNotOptimize(r.status);
        benchmark::DoNotOptimize(c->data->ddq.data());
      });
    }
    if (c->ref.empty()) {  // --no_check: capture the references here
      solve(*c, 0, ConstrainedMethod::RangeSpace);
      generated_inputs(*c);
    }
    add_case_benchmark(*c, "articula:codegen",
                       [c](std::size_t i) { benchmark::DoNotOptimize(solve_generated(*c, i)); });
    add_case_benchmark(*c, "articula:aba", [c](std::size_t i) {
      benchmark::DoNotOptimize(articula::aba(c->model, *c->data, c->q[i], c->v[i], c->tau[i]).data());
    });
    // Pieces of the constrained call, to see where its time goes.
    add_case_benchmark(*c, "piece:rows", [c](std::size_t i) {
      c->set->compute_rows(c->model, *c->data, c->q[i], c->v[i]);
      benchmark::DoNotOptimize(c->set->J().data());
    });
    add_case_benchmark(*c, "piece:crba", [c](std::size_t i) {
      benchmark::DoNotOptimize(articula::crba(c->model, *c->data, c->q[i]).data());
    });
    add_case_benchmark(*c, "piece:bias", [c](std::size_t i) {
      benchmark::DoNotOptimize(articula::rnea(c->model, *c->data, c->q[i], c->v[i], c->zero).data());
    });
#ifdef ARTICULA_HAVE_MUJOCO
    if (c->peer) {
      ab::ConstrainedPeer* peer = c->peer.get();
      add_case_benchmark(*c, std::string(peer->key()) + ":mj_forward", [peer](std::size_t i) { peer->run(i); });
    }
#endif
  }
}

std::string fmt_us(double us) { return bench_fmt(us, us < 10 ? "%.2f" : "%.1f", "skipped"); }

void print_summary(const std::vector<std::unique_ptr<Case>>& cases, const Collector& col) {
  const std::string table_header =
      "| case | nv | rows | kkt | range | null | auto | codegen | ABA (no rows) | MuJoCo 2.2.2 soft | "
      "MuJoCo / articula best | " +
      pinocchio_header("constraintDynamics") + " | Pinocchio / articula best | Pinocchio / codegen |\n";
  print_summary_heading("median CPU time per call in µs " + bench_states_cycled(), table_header.c_str(),
                        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const auto& cp : cases) {
    const Case& c = *cp;
    double best = std::nan("");
    std::string cells;
    for (const auto& mr : kMethods) {
      const double t = col.micros(case_bench_name(c, std::string("articula:") + mr.tag));
      bench_keep_min(best, t);
      cells += " " + fmt_us(t) + " |";
    }
    const double gen = col.micros(case_bench_name(c, "articula:codegen"));
    const double aba = col.micros(case_bench_name(c, "articula:aba"));
    const double mj = col.micros(case_bench_name(c, "mujoco:mj_forward"));
    bench_keep_min(best, gen);
    const double pin = pinocchio_us(PinocchioCall::ConstraintDynamics, c.spec->key);
    std::printf("| %s | %d | %d |%s %s | %s | %s | %s | %s | %s | %s |\n", c.spec->key, c.model.nv, c.set->dim(),
                cells.c_str(), fmt_us(gen).c_str(), fmt_us(aba).c_str(), fmt_us(mj).c_str(),
                bench_ratio(mj, best).c_str(), pinocchio_cell(PinocchioCall::ConstraintDynamics, c.spec->key).c_str(),
                bench_ratio(pin, best).c_str(), bench_ratio(pin, gen).c_str());
  }
  std::printf(
      "\nPieces of the articula call (µs): rows = ConstraintSet::compute_rows (kinematics at v̇ = 0, "
      "joint Jacobians, frame rows); crba = M; bias = rnea(q, v, 0)\n\n");
  std::printf(
      "| case | rows | crba | bias | sum | range − sum | null − sum | kkt − sum "
      "|\n|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const auto& cp : cases) {
    const Case& c = *cp;
    const double rows = col.micros(case_bench_name(c, "piece:rows")),
                 crba = col.micros(case_bench_name(c, "piece:crba")),
                 bias = col.micros(case_bench_name(c, "piece:bias"));
    const double sum = rows + crba + bias;
    std::printf("| %s | %s | %s | %s | %s | %s | %s | %s |\n", c.spec->key, fmt_us(rows).c_str(), fmt_us(crba).c_str(),
                fmt_us(bias).c_str(), fmt_us(sum).c_str(),
                fmt_us(col.micros(case_bench_name(c, "articula:range")) - sum).c_str(),
                fmt_us(col.micros(case_bench_name(c, "articula:null")) - sum).c_str(),
                fmt_us(col.micros(case_bench_name(c, "articula:kkt")) - sum).c_str());
  }
  print_includes_heading();
  std::printf(
      "- articula kkt/range/null/auto: constrained_forward_dynamics(model, data, ws, set, q, v, tau, {}, "
      "method) = ConstraintSet::compute_rows (forward kinematics at v̇ = 0, joint Jacobians, frame "
      "rows J, γ + Baumgarte terms) + crba + rnea(q, v, 0) + the method's factorization and solves + "
      "the residual in the report\n");
  std::printf(
      "- articula codegen: the case's generated constrained_dynamics (`articula codegen --hold`, "
      "docs/codegen.md): the same rows, Baumgarte terms and range-space solve as straight-line code; "
      "placements from q, M, h, J, γ, the LᵀDL of M, the Schur complement and its pivot-tested LDLᵀ\n");
  std::printf("- articula aba: aba(model, data, q, v, tau), no constraint (scale)\n");
#ifdef ARTICULA_HAVE_MUJOCO
  for (const auto& cp : cases)
    if (cp->peer) {
      std::printf("- MuJoCo 2.2.2 mj_forward: %s\n", cp->peer->includes().c_str());
      break;
    }
#endif
  std::printf("%s", pinocchio_note("Pinocchio constraintDynamics (exact)").c_str());
  std::printf("ratio > 1: articula's fastest method (codegen included) is faster than that peer.\n");
}

void print_setup(const std::vector<std::unique_ptr<Case>>& cases) {
  print_bench_title("bench_constrained");
  for (const auto& cp : cases) {
    const Case& c = *cp;
    std::printf("%-10s nv %2d rows %2d (", c.spec->key, c.model.nv, c.set->dim());
    for (const auto& f : c.spec->frames) {
      const articula::Frame& fr = c.model.frames[static_cast<std::size_t>(c.model.frame_id(f.frame))];
      std::printf(
          " %s %s on %s", f.frame, f.weld ? "weld" : "point",
          fr.parent == articula::kWorld ? "world" : c.model.body_names[static_cast<std::size_t>(fr.parent)].c_str());
    }
    std::printf(" ); Auto picks %s\n", articula::to_string(articula::choose_method(c.model, c.set->dim())).c_str());
#ifdef ARTICULA_HAVE_MUJOCO
    if (c.peer) {
      std::printf("           %s: %s\n", c.peer->engine(), c.peer->notes().c_str());
      continue;
    }
#endif
    std::printf("           MuJoCo 2.2.2 rows SKIPPED: %s\n", c.peer_skipped.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  return bench_main(
      argc, argv, "bench_constrained", {"--check_only", "--no_check"}, case_specs(), make_case,
      [](const CaseSpec& s) { return std::string("set up ") + s.key; },
      BenchSteps{print_setup, sanity_check, register_benchmarks, print_summary});
}
