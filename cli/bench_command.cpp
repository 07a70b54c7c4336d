// `articula bench MODEL.urdf`: median time per call of each algorithm on random states.
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "articula/articula.hpp"
#include "commands.hpp"
#include "timing.hpp"

namespace articula::cli {
namespace {

int run_bench(const std::string& path, bool floating, int states, unsigned seed) {
  require_input_file(path, "model file");
  const Model model = load_urdf(path, floating ? BaseType::Floating : BaseType::Fixed);
  Data data(model);
  std::mt19937 rng(seed);
  std::normal_distribution<double> n01;
  std::vector<VectorX> qs, vs, as;
  for (int k = 0; k < states; ++k) {
    qs.push_back(random_configuration(model, rng));
    vs.push_back(VectorX::NullaryExpr(model.nv, [&] { return n01(rng); }));
    as.push_back(VectorX::NullaryExpr(model.nv, [&] { return n01(rng); }));
  }
  const Index tip = static_cast<Index>(model.frames.size()) - 1;
  MatrixX Jf(6, model.nv);
  struct Row {
    const char* name;
    std::function<void(int)> f;
  };
  auto s = [&](int k) { return k % states; };
  const std::vector<Row> rows = {
      {"forward_kinematics(q, v, a)", [&](int k) { forward_kinematics(model, data, qs[s(k)], vs[s(k)], as[s(k)]); }},
      {"rnea", [&](int k) { rnea(model, data, qs[s(k)], vs[s(k)], as[s(k)]); }},
      {"nonlinear_effects", [&](int k) { nonlinear_effects(model, data, qs[s(k)], vs[s(k)]); }},
      {"crba", [&](int k) { crba(model, data, qs[s(k)]); }},
      {"crba + factorize (LTDL)",
       [&](int k) {
         crba(model, data, qs[s(k)]);
         factorize_mass_matrix(model, data);
       }},
      {"aba", [&](int k) { aba(model, data, qs[s(k)], vs[s(k)], as[s(k)]); }},
      {"joint jacobians + frame",
       [&](int k) {
         compute_joint_jacobians(model, data, qs[s(k)]);
         frame_jacobian(model, data, tip, ReferenceFrame::Local, Jf);
       }},
      {"center_of_mass_jacobian", [&](int k) { center_of_mass_jacobian(model, data, qs[s(k)]); }},
  };
  std::printf("articula bench: %s (nq %d, nv %d), %d random states, seed %u\n", path.c_str(), model.nq, model.nv,
              states, seed);
  std::printf("%-30s %14s\n", "algorithm", "median ns/call");
  for (const Row& r : rows) std::printf("%-30s %14.0f\n", r.name, median_ns_per_call(r.f, 2000, 31));
  return 0;
}

}  // namespace

Command add_bench_command(CLI::App& app) {
  auto* sub = app.add_subcommand("bench", "Time each rigid-body algorithm on random states (median ns per call)");
  auto path = std::make_shared<std::string>();
  auto floating = std::make_shared<bool>(false);
  auto states = std::make_shared<int>(256);
  auto seed = std::make_shared<unsigned>(42);
  sub->add_option("model", *path, "URDF file")->required();
  sub->add_flag("--floating", *floating, "Put a free-flyer joint at the root link");
  sub->add_option("--states", *states, "Number of random states (1 to 1000000)")->check(CLI::Range(1, 1000000));
  sub->add_option("--seed", *seed, "Random seed");
  return [=] { return run_bench(*path, *floating, *states, *seed); };
}

}  // namespace articula::cli
