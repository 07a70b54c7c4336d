// bench_activation: the velocity jump at constraint activation (docs/activation.md) in each
// of its forms — full KKT (dense LU), range space (tree-sparse LᵀDL of M + Schur complement),
// projector, minimal (Voronets), joint locks, naive — on the robots of
// models/, with the same 256 random states (fixed seed, the states of bench_dynamics, the
// persistent rows' velocities projected so that J₁ v⁻ = 0). See README.md beside this file.
//
// Usage: bench_activation [--check_only] [Google Benchmark flags]
//   --check_only  print the sanity check (agreement of the forms, residuals) and exit.
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
#include "held_solo12.hpp"
#include "held_talos.hpp"
#include "pinocchio_quotes.hpp"

namespace {

using articula::AxisMask;
using articula::BaseType;
using articula::ConstrainedMethod;
using articula::JumpForm;
using articula::MatrixX;
using articula::VectorX;

constexpr std::size_t kStates = BenchStates::kCount;  // the states of bench_common.hpp

enum class Kind { Weld, Point, Lock };

struct Item {
  const char* name;  // frame or joint
  Kind kind;
};

struct CaseSpec {
  const char* key;    // benchmark name part
  const char* label;  // table label
  const char* file;
  BaseType base;
  std::vector<Item> persistent;  // J₁ (enabled before the event; v⁻ satisfies them)
  std::vector<Item> added;       // J₂ (activated)
  // The model whose Pinocchio impulseDynamics figure is quoted (pinocchio_quotes.hpp: the same
  // frames, all rows new), or "" for none.
  const char* pinocchio_model;
  // The generated velocity_jump holding J₁ ∪ J₂ (`articula codegen --hold`, the rows in the same
  // order), or null: the full jump over all rows, which is the same v⁺ when v⁻ satisfies J₁.
  articula::JumpKernel generated = nullptr;
};

const std::vector<CaseSpec>& case_specs() {
  static const std::vector<CaseSpec> specs = {
      {"talos_6+6",
       "talos 2 welds, left persistent",
       "talos_reduced.urdf",
       BaseType::Floating,
       {{"left_sole_link", Kind::Weld}},
       {{"right_sole_link", Kind::Weld}},
       "talos",
       &articula::generated::held_talos::velocity_jump},
      {"talos_0+12",
       "talos 2 welds, both new",
       "talos_reduced.urdf",
       BaseType::Floating,
       {},
       {{"left_sole_link", Kind::Weld}, {"right_sole_link", Kind::Weld}},
       "talos",
       &articula::generated::held_talos::velocity_jump},
      {"solo12_9+3",
       "solo12 4 points, HR new",
       "solo12.urdf",
       BaseType::Floating,
       {{"FL_FOOT", Kind::Point}, {"FR_FOOT", Kind::Point}, {"HL_FOOT", Kind::Point}},
       {{"HR_FOOT", Kind::Point}},
       "solo12",
       &articula::generated::held_solo12::velocity_jump},
      {"solo12_0+12",
       "solo12 4 points, all new",
       "solo12.urdf",
       BaseType::Floating,
       {},
       {{"FL_FOOT", Kind::Point}, {"FR_FOOT", Kind::Point}, {"HL_FOOT", Kind::Point}, {"HR_FOOT", Kind::Point}},
       "solo12",
       &articula::generated::held_solo12::velocity_jump},
      {"panda_0+6",
       "panda hand weld",
       "panda.urdf",
       BaseType::Fixed,
       {},
       {{"panda_hand", Kind::Weld}},
       "panda",
       &articula::generated::held_panda::velocity_jump},
      {"rx130_1+1",
       "rx130 lock j1, then j2",
       "rx130_standin.urdf",
       BaseType::Fixed,
       {{"joint_1", Kind::Lock}},
       {{"joint_2", Kind::Lock}},
       ""},
  };
  return specs;
}

struct FormRow {
  const char* tag;
  JumpForm form;
};
constexpr FormRow kForms[] = {
    {"full", JumpForm::Full},       {"range", JumpForm::Range}, {"projector", JumpForm::Projector},
    {"minimal", JumpForm::Minimal}, {"locks", JumpForm::Locks}, {"naive", JumpForm::Naive},
};
constexpr JumpForm kConsistent[] = {JumpForm::Full, JumpForm::Range, JumpForm::Projector, JumpForm::Minimal,
                                    JumpForm::Locks};

struct Case {
  const CaseSpec* spec = nullptr;
  articula::Model model;
  std::unique_ptr<articula::Data> data;  // the one the timed "with crba + rows" calls use
  // Per state: data.M from crba(q_i) ("without"). Non-const: the range form writes its
  // factorization into Lfact / Dfact / Dinv_fact (never into M).
  std::vector<std::unique_ptr<articula::Data>> pre;
  std::vector<MatrixX> J;  // per state: the stacked rows [J₁; J₂] at q_i
  std::unique_ptr<articula::ConstraintSet> set;
  std::unique_ptr<articula::ConstrainedWorkspace> ws;
  std::vector<VectorX> q, v, tau;  // v: projected on ker J₁(q)
  std::vector<int> locked;         // dofs of the lock rows, J₁'s then J₂'s (all rows are locks), else empty
  int m1 = 0, m2 = 0;
  bool applicable(JumpForm f) const {
    if (f == JumpForm::Locks) return !locked.empty();
    if (f == JumpForm::Projector || f == JumpForm::Minimal) return m1 > 0;  // m₁ = 0: velocity_jump uses Full
    return true;
  }
};

articula::JumpOptions options(JumpForm form, bool diagnostics = false) {
  return articula::JumpOptions{form, 0.0, {}, diagnostics};
}

std::unique_ptr<Case> make_case(const CaseSpec& spec) {
  auto c = std::make_unique<Case>();
  c->spec = &spec;
  c->model = articula::load_urdf(bench_models_dir() + "/" + spec.file, spec.base);
  const articula::Model& m = c->model;
  c->data = std::make_unique<articula::Data>(m);
  c->set = std::make_unique<articula::ConstraintSet>(m);
  bool all_locks = true;
  std::vector<int> locked;
  auto add_items = [&](const std::vector<Item>& items, int& rows) {
    for (const Item& it : items) {
      articula::Constraint* added = nullptr;
      if (it.kind == Kind::Lock) {
        auto& lock = c->set->emplace<articula::JointLock>(m, it.name, std::vector<std::string>{it.name});
        locked.insert(locked.end(), lock.dofs().begin(), lock.dofs().end());
        added = &lock;
      } else {
        all_locks = false;
        added = &c->set->emplace<articula::FrameConstraint>(
            it.name, it.name, it.kind == Kind::Weld ? AxisMask::weld() : AxisMask::point());
      }
      rows += added->dim();
    }
  };
  // Registration order = row order: the persistent rows first, so J₁ = J().topRows(m₁).
  add_items(spec.persistent, c->m1);
  add_items(spec.added, c->m2);
  if (all_locks) c->locked = locked;
  c->ws = std::make_unique<articula::ConstrainedWorkspace>(m, c->m1 + c->m2);

  // The states of bench_dynamics (bench_common.hpp; a is dropped), then v⁻ ← (1 − J₁⁺J₁) v:
  // the Euclidean projection on ker J₁(q) (the persistent rows hold).
  const BenchStates states = bench_states(m);
  for (std::size_t i = 0; i < BenchStates::kCount; ++i) {
    c->q.push_back(states.q[i]);
    VectorX v = states.v[i];
    const VectorX& tau = states.tau[i];
    c->set->compute_rows(m, *c->data, c->q[i], v);
    if (c->m1 > 0) {
      const MatrixX J1 = c->set->J().topRows(c->m1);
      v -= J1.transpose() * (J1 * J1.transpose()).ldlt().solve(J1 * v);
    }
    c->v.push_back(v);
    c->tau.push_back(tau);
    c->J.push_back(c->set->J());
    auto d = std::make_unique<articula::Data>(m);
    articula::crba(m, *d, c->q[i]);
    c->pre.push_back(std::move(d));
  }
  return c;
}

// The timed call "with": rows + crba + the jump, as a user would call it at an event.
articula::JumpResult jump_with(Case& c, std::size_t i, JumpForm form) {
  // As activate_constraints(): J only (placements-only pass for frame rows), M from that pass.
  if (c.set->compute_jacobian(c.model, *c.data, c.q[i], c.v[i]))
    articula::crba_from_kinematics(c.model, *c.data);
  else
    articula::crba(c.model, *c.data, c.q[i]);
  const auto J = c.set->J();
  return articula::velocity_jump(c.model, *c.data, J.topRows(c.m1), J.bottomRows(c.m2), c.v[i], options(form),
                                 c.locked);
}

// The timed call "without": M and the rows precomputed for state i (the range form
// refactorizes M into c.pre[i]->Lfact on every call, as it would at an event).
articula::JumpResult jump_without(Case& c, std::size_t i, JumpForm form, bool diagnostics = false) {
  const MatrixX& J = c.J[i];
  return articula::velocity_jump(c.model, *c.pre[i], J.topRows(c.m1), J.bottomRows(c.m2), c.v[i],
                                 options(form, diagnostics), c.locked);
}

// ---------------------------------------------------------------- sanity check

struct CheckRow {
  double dv_max = 0.0;      // max |v⁺ − v⁺_full|
  double con_res = 0.0;     // max ‖J v⁺‖∞
  double mom_res = 0.0;     // max ‖P_ker J (M Δv − U)‖∞
  double loss_min = 1e300;  // min of T⁻ − T⁺ (Carnot: ≥ 0)
  double mdist = 0.0;       // naive only: max of ‖v⁺ − v⁺_full‖_M² / ‖v⁺_full − v⁻‖_M²
  int rank_min = 1 << 30;
  std::map<std::string, int> statuses;
  std::string used;
};

void sanity_check(const std::vector<std::unique_ptr<Case>>& cases) {
  std::printf("\n## Sanity check over the %zu states (restitution 0, U = 0, diagnostics on)\n\n", kStates);
  std::printf(
      "max |v⁺ − v⁺_full| per form; residuals as JumpResult reports them; T⁻ − T⁺ the kinetic energy "
      "lost (min over states, ≥ 0 by Carnot); v⁻ satisfies the persistent rows to max ‖J₁ v⁻‖∞ given "
      "per case. Naive: ‖v⁺ − v⁺_full‖²_M / ‖Δv_full‖²_M (its excess distance, max)\n\n");
  std::printf(
      "| case | nv | m1+m2 | ‖J₁v⁻‖∞ | form (used) | max |v⁺ − v⁺_full| | max ‖Jv⁺‖∞ | max momentum res. | "
      "min T⁻ − T⁺ | rank | statuses | idempotent |\n");
  std::printf("|---|---:|---|---:|---|---:|---:|---:|---:|---:|---|---:|\n");
  for (const auto& cp : cases) {
    Case& c = *cp;
    double j1v = 0.0;
    for (std::size_t i = 0; i < kStates; ++i)
      if (c.m1 > 0) j1v = std::max(j1v, (c.J[i].topRows(c.m1) * c.v[i]).cwiseAbs().maxCoeff());
    std::vector<VectorX> full(kStates);
    double idem = 0.0;
    for (std::size_t i = 0; i < kStates; ++i) {
      full[i] = jump_without(c, i, JumpForm::Full, true).v_plus;
      // A second jump with every row persistent changes nothing.
      const MatrixX& J = c.J[i];
      const auto again =
          articula::velocity_jump(c.model, *c.pre[i], J, J.bottomRows(0), full[i], options(JumpForm::Full, false), {});
      idem = std::max(idem, (again.v_plus - full[i]).cwiseAbs().maxCoeff());
    }
    bool first = true;
    std::vector<JumpForm> forms(std::begin(kConsistent), std::end(kConsistent));
    forms.push_back(JumpForm::Naive);
    forms.push_back(JumpForm::Auto);
    for (JumpForm f : forms) {
      if (f != JumpForm::Auto && !c.applicable(f)) continue;
      CheckRow r;
      std::map<std::string, int> used;
      for (std::size_t i = 0; i < kStates; ++i) {
        const articula::JumpResult res = jump_without(c, i, f, true);
        const articula::MatrixX& M = c.pre[i]->M;
        r.dv_max = std::max(r.dv_max, (res.v_plus - full[i]).cwiseAbs().maxCoeff());
        r.con_res = std::max(r.con_res, res.constraint_residual);
        r.mom_res = std::max(r.mom_res, res.momentum_residual);
        r.loss_min = std::min(r.loss_min, res.kinetic_before - res.kinetic_after);
        r.rank_min = std::min(r.rank_min, res.rank);
        ++r.statuses[articula::to_string(res.status)];
        ++used[articula::to_string(res.form)];
        const VectorX e = res.v_plus - full[i], d = full[i] - c.v[i];
        const double dd = d.dot(M * d);
        if (dd > 0) r.mdist = std::max(r.mdist, e.dot(M * e) / dd);
      }
      std::string st, name = articula::to_string(f);
      for (const auto& [k, n] : r.statuses) st += (st.empty() ? "" : ", ") + k + " " + std::to_string(n);
      name += " (";
      for (const auto& [k, n] : used) name += k;
      name += ")";
      char dv[48];
      if (f == JumpForm::Naive)
        std::snprintf(dv, sizeof dv, "%.2e (M-excess %.2f)", r.dv_max, r.mdist);
      else
        std::snprintf(dv, sizeof dv, "%.2e", r.dv_max);
      char j1s[32] = "", ids[32] = "";
      if (first) {
        std::snprintf(j1s, sizeof j1s, "%.1e", j1v);
        std::snprintf(ids, sizeof ids, "%.1e", idem);
      }
      std::printf("| %s | %s | %s | %s | %s | %s | %.1e | %.1e | %.2e | %d | %s | %s |\n", first ? c.spec->key : "",
                  first ? std::to_string(c.model.nv).c_str() : "",
                  first ? (std::to_string(c.m1) + "+" + std::to_string(c.m2)).c_str() : "", j1s, name.c_str(), dv,
                  r.con_res, r.mom_res, r.loss_min, r.rank_min, st.c_str(), ids);
      first = false;
    }
  }
  std::printf("\nidempotent: max |v⁺⁺ − v⁺| of a second full jump from v⁺ with all rows persistent.\n");
  std::printf(
      "\nGenerated velocity_jump (`articula codegen --hold`, all rows held) against the full form:\n\n"
      "| case | states solved | max |v⁺ − v⁺_full| |\n|---|---:|---:|\n");
  for (const auto& cp : cases) {
    Case& c = *cp;
    if (!c.spec->generated) continue;
    VectorX v_plus(c.model.nv), Lambda(c.m1 + c.m2);
    double dv = 0.0;
    int ok = 0;
    for (std::size_t i = 0; i < kStates; ++i) {
      if (!c.spec->generated(c.q[i].data(), c.v[i].data(), nullptr, v_plus.data(), Lambda.data())) continue;
      ++ok;
      dv = std::max(dv, (v_plus - jump_without(c, i, JumpForm::Full).v_plus).cwiseAbs().maxCoeff());
    }
    std::printf("| %s | %d / %zu | %.1e |\n", c.spec->key, ok, kStates, dv);
  }
}

// ---------------------------------------------------------------- timing

void register_benchmarks(std::vector<std::unique_ptr<Case>>& cases) {
  for (auto& cp : cases) {
    Case* c = cp.get();
    for (const auto& fr : kForms) {
      if (!c->applicable(fr.form)) continue;
      const JumpForm form = fr.form;
      add_case_benchmark(*c, std::string("with:") + fr.tag, [c, form](std::size_t i) {
        const articula::JumpResult r = jump_with(*c, i, form);
        benchmark::DoNotOptimize(r.v_plus.data());
      });
      add_case_benchmark(*c, std::string("jump:") + fr.tag, [c, form](std::size_t i) {
        const articula::JumpResult r = jump_without(*c, i, form);
        benchmark::DoNotOptimize(r.v_plus.data());
      });
    }
    if (c->spec->generated) {
      auto out = std::make_shared<std::vector<double>>(static_cast<std::size_t>(c->model.nv + c->m1 + c->m2));
      add_case_benchmark(*c, "codegen", [c, out](std::size_t i) {
        benchmark::DoNotOptimize(
            c->spec->generated(c->q[i].data(), c->v[i].data(), nullptr, out->data(), out->data() + c->model.nv));
      });
    }
    add_case_benchmark(*c, "piece:rows+crba", [c](std::size_t i) {
      if (c->set->compute_jacobian(c->model, *c->data, c->q[i], c->v[i]))
        benchmark::DoNotOptimize(articula::crba_from_kinematics(c->model, *c->data).data());
      else
        benchmark::DoNotOptimize(articula::crba(c->model, *c->data, c->q[i]).data());
      benchmark::DoNotOptimize(c->set->J().data());
    });
    add_case_benchmark(*c, "cfd:auto", [c](std::size_t i) {
      const articula::SolveReport r = articula::constrained_forward_dynamics(
          c->model, *c->data, *c->ws, *c->set, c->q[i], c->v[i], c->tau[i], {}, ConstrainedMethod::Auto);
      benchmark::DoNotOptimize(r.status);
      benchmark::DoNotOptimize(c->data->ddq.data());
    });
  }
}

std::string fmt_us(double us) { return bench_fmt(us, us < 10 ? "%.2f" : "%.1f", "—"); }

// The forms that solve the jump (Naive does not): the candidates for "articula best".
bool is_consistent(JumpForm f) {
  return std::find(std::begin(kConsistent), std::end(kConsistent), f) != std::end(kConsistent);
}

JumpForm auto_pick(Case& c) { return jump_without(c, 0, JumpForm::Auto).form; }

void print_summary(const std::vector<std::unique_ptr<Case>>& cases, const Collector& col) {
  print_summary_heading("median CPU time per call in µs " + bench_states_cycled());
  std::printf(
      "Each form cell: with rows + crba / jump alone. \"=full\": velocity_jump runs the full form "
      "when m1 = 0. Pinocchio impulseDynamics (shared/PEERS.md, quoted, not measured here; "
      "all its rows are new, i.e. the m1 = 0 problem) / articula's fastest consistent library form "
      "(full, range, projector, minimal, locks; not naive) with rows + crba.\n\n");
  std::printf(
      "| case | nv | (m1, m2) | full | range | projector | minimal | locks | naive | Auto → | rows+crba | "
      "constrained FD (auto) | codegen | %s | Pinocchio / articula | Pinocchio / codegen |\n",
      pinocchio_header("impulseDynamics").c_str());
  std::printf("|---|---:|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|\n");
  for (const auto& cp : cases) {
    Case& c = *cp;
    double best = std::nan("");
    std::string cells;
    for (const auto& fr : kForms) {
      if (!c.applicable(fr.form)) {
        cells += (fr.form == JumpForm::Locks) ? " — |" : " =full |";
        continue;
      }
      const double w = col.micros(case_bench_name(c, std::string("with:") + fr.tag));
      const double j = col.micros(case_bench_name(c, std::string("jump:") + fr.tag));
      if (is_consistent(fr.form)) bench_keep_min(best, w);
      char cell[64];  // (snprintf: g++ 12 warns falsely [-Wrestrict] on " " + std::string)
      std::snprintf(cell, sizeof cell, " %s / %s |", fmt_us(w).c_str(), fmt_us(j).c_str());
      cells += cell;
    }
    const double pin = pinocchio_us(PinocchioCall::ImpulseDynamics, c.spec->pinocchio_model);
    const double gen = c.spec->generated ? col.micros(case_bench_name(c, "codegen")) : std::nan("");
    std::printf("| %s | %d | (%d, %d) |%s %s | %s | %s | %s | %s | %s | %s |\n", c.spec->key, c.model.nv, c.m1, c.m2,
                cells.c_str(), articula::to_string(auto_pick(c)).c_str(),
                fmt_us(col.micros(case_bench_name(c, "piece:rows+crba"))).c_str(),
                fmt_us(col.micros(case_bench_name(c, "cfd:auto"))).c_str(), fmt_us(gen).c_str(),
                pinocchio_cell(PinocchioCall::ImpulseDynamics, c.spec->pinocchio_model).c_str(),
                bench_ratio(pin, best).c_str(), bench_ratio(pin, gen).c_str());
  }
  print_includes_heading();
  std::printf(
      "- with: ConstraintSet::compute_jacobian(q, v⁻) (placements-only kinematics for frame rows, joint Jacobians, J) "
      "+ M "
      "(crba_from_kinematics on that pass; crba(q) for lock-only rows, as activate_constraints) + "
      "velocity_jump(model, data, J().topRows(m1), J().bottomRows(m2), v⁻, "
      "JumpOptions{form, 0, {}, false}, locked)\n");
  std::printf("- jump: velocity_jump alone, on M and rows precomputed for that state (one Data per state)\n");
  std::printf(
      "- codegen: the generated velocity_jump of the model with all the case's frames held (`articula codegen "
      "--hold`, docs/codegen.md): from (q, v⁻), placements, J, M, its LᵀDL, the Schur complement, v⁺ and Λ\n");
  std::printf(
      "- range: JumpForm::Range, the full system in range-space form (tree-sparse LᵀDL of M, "
      "S = J M⁻¹ Jᵀ, LDLᵀ of S); M is refactorized in every call, also \"alone\"\n");
  std::printf("- rows+crba: compute_jacobian + M (as in \"with\") only\n");
  std::printf(
      "- constrained FD: constrained_forward_dynamics(..., ConstrainedMethod::Auto) with all m1 + m2 rows "
      "enabled (rows + crba + bias forces + solve)\n");
  std::printf("%s", pinocchio_note("Pinocchio impulseDynamics").c_str());
  std::printf("ratio > 1: articula is faster than the quoted Pinocchio figure.\n");
}

void print_setup(const std::vector<std::unique_ptr<Case>>& cases) {
  print_bench_title("bench_activation");
  for (const auto& cp : cases) {
    const Case& c = *cp;
    std::printf("%-12s nv %2d  m1 %2d  m2 %2d  persistent:", c.spec->key, c.model.nv, c.m1, c.m2);
    for (const auto& it : c.spec->persistent) std::printf(" %s", it.name);
    std::printf("  new:");
    for (const auto& it : c.spec->added) std::printf(" %s", it.name);
    if (!c.locked.empty()) {
      std::printf("  locked dofs:");
      for (int d : c.locked) std::printf(" %d", d);
    }
    std::printf("\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  return bench_main(
      argc, argv, "bench_activation", {"--check_only"}, case_specs(), make_case,
      [](const CaseSpec& s) { return std::string("set up ") + s.key; },
      BenchSteps{print_setup, sanity_check, register_benchmarks, print_summary});
}
