// Kernels compiled on demand (codegen/compiled.hpp, docs/codegen.md): the same numbers as the
// recursions and solvers, the cache reused, corrupt and stale entries rebuilt, concurrent
// processes, no compiler, and `articula run --compiled` against the runtime run.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include "articula/articula.hpp"
#include "test_models.hpp"
#include "test_support.hpp"

namespace articula {
namespace {
namespace fs = std::filesystem;

Model ur5() { return load_urdf(test::model_path("ur5"), BaseType::Fixed); }

CompileOptions in(const std::string& dir, std::vector<HeldFrame> held = {}) {
  CompileOptions o;
  o.cache_dir = dir;
  o.held_frames = std::move(held);
  return o;
}

// rnea / crba / aba / energy of the kernels against the recursions on random states.
void expect_matches_recursions(const Model& model, const CompiledKernels& k, double tol) {
  std::mt19937 rng(3);
  Data data(model);
  for (int trial = 0; trial < 10; ++trial) {
    const VectorX q = random_configuration(model, rng);
    const VectorX v = test::random_vector(model.nv, rng), a = test::random_vector(model.nv, rng);
    VectorX tau(model.nv), qdd(model.nv);
    k.rnea(q.data(), v.data(), a.data(), tau.data());
    EXPECT_LT(test::rel_err(tau, rnea(model, data, q, v, a)), tol);
    MatrixX M = MatrixX::Zero(model.nv, model.nv);
    k.crba(q.data(), M.data());
    const MatrixX M_ref = crba(model, data, q);
    EXPECT_LT(test::rel_err(M, M_ref.selfadjointView<Eigen::Upper>().toDenseMatrix()), tol);
    k.aba(q.data(), v.data(), tau.data(), qdd.data());
    EXPECT_LT(test::rel_err(qdd, aba(model, data, q, v, tau)), 100 * tol);  // through M⁻¹
    double energies[2];
    k.energy(q.data(), v.data(), energies);
    const double T = kinetic_energy(model, data, q, v), V = potential_energy(model, data, q);
    EXPECT_NEAR(energies[0], T, tol * (1.0 + std::abs(T)));
    EXPECT_NEAR(energies[1], V, tol * (1.0 + std::abs(V)));
  }
}

TEST(CompiledKernels, MatchTheRecursionsThenLoadFromTheCache) {
  const test::ScratchDir dir("compiled_cache");
  const Model model = ur5();
  CompileOptions whole = in(dir.path());
  whole.max_statements = 0;  // one unit per kernel: the units counted below are the kernels
  const auto first = compile_kernels(model, whole);
  EXPECT_FALSE(first->from_cache);
  EXPECT_EQ(first->units, 5);  // rnea, crba, aba, energy, the table
  EXPECT_EQ(first->model_digest, model_digest(model));
  EXPECT_EQ(first->constrained_dynamics, nullptr);
  expect_matches_recursions(model, *first, 1e-10);  // snapped placements: ~1e-11
  const auto again = compile_kernels(model, whole);
  EXPECT_TRUE(again->from_cache);
  EXPECT_EQ(again->library, first->library);
  EXPECT_EQ(again->key, first->key);
  // Other flags, or the kernels with external forces, are another entry.
  CompileOptions o2 = whole;
  o2.flags = "-O1 -march=native";
  EXPECT_NE(compile_kernels(model, o2)->key, first->key);
  CompileOptions o3 = whole;
  o3.external_forces = true;
  const auto forces = compile_kernels(model, o3);
  EXPECT_NE(forces->key, first->key);
  EXPECT_TRUE(forces->external_forces);
  EXPECT_NE(forces->aba_fext, nullptr);
  EXPECT_EQ(first->aba_fext, nullptr);
  // Only what the engine calls: aba_fext and energy (and the table).
  o3.engine_kernels_only = true;
  const auto engine = compile_kernels(model, o3);
  EXPECT_NE(engine->key, forces->key);
  EXPECT_EQ(engine->units, 3);
  EXPECT_NE(engine->aba_fext, nullptr);
  EXPECT_EQ(engine->aba, nullptr);
  EXPECT_EQ(engine->rnea, nullptr);
  EXPECT_EQ(engine->crba, nullptr);
}

TEST(CompiledKernels, HeldFramesMatchTheRangeSpaceSolver) {
  const test::ScratchDir dir("compiled_held");
  const Model model = ur5();
  const auto k = compile_kernels(model, in(dir.path(), {{"tool0", false}}));
  ASSERT_NE(k->constrained_dynamics, nullptr);
  ASSERT_NE(k->velocity_jump, nullptr);
  std::mt19937 rng(8);
  Data data(model);
  for (int trial = 0; trial < 5; ++trial) {
    const VectorX q = random_configuration(model, rng);
    const VectorX v = test::random_vector(model.nv, rng), tau = test::random_vector(model.nv, rng);
    ConstraintSet set(model);
    forward_kinematics(model, data, q);
    const Transform X = frame_placement(model, data, model.frame_id("tool0"));
    const auto& held = set.emplace<FrameConstraint>("held", "tool0", AxisMask::point(), X);
    ConstrainedWorkspace ws(model, set.dim());
    ASSERT_TRUE(constrained_forward_dynamics(model, data, ws, set, q, v, tau, {}, ConstrainedMethod::RangeSpace).ok());
    std::vector<double> ref(12), kp{held.kp()}, kd{held.kd()};  // the same Baumgarte gains
    for (int i = 0; i < 3; ++i) ref[i] = X.p[i];
    for (int i = 0; i < 9; ++i) ref[3 + i] = X.R.data()[i];
    VectorX qdd(model.nv), lambda(3);
    ASSERT_TRUE(k->constrained_dynamics(q.data(), v.data(), tau.data(), ref.data(), kp.data(), kd.data(), nullptr,
                                        qdd.data(), lambda.data()));
    EXPECT_LT(test::rel_err(qdd, data.ddq), 1e-9);
    EXPECT_LT(test::rel_err(lambda, ws.lambda.head(set.dim())), 1e-9);
  }
}

// Kernels cut into parts (CompileOptions::max_statements) compute what the whole kernels do:
// the model with every joint type, a welded frame (its log3 local), a point, and every joint
// locked (the spherical and free-flyer locks' joint_difference locals), in parts of ~150
// statements. And a kernel that returns false from a part (a frame held twice) returns false.
TEST(CompiledKernels, KernelsInPartsEqualTheWholeKernels) {
  const test::ScratchDir dir("compiled_parts");
  Model model = test::mixed_model(true);
  test::add_armature(model);
  CompileOptions o;
  o.cache_dir = dir.path();
  o.held_frames = {{"tip", true}, {"leg", false}};
  o.locked_joints = {"root", "j_sph", "j_prism", "j_cont", "j_rev"};
  o.external_forces = true;
  o.max_statements = 0;
  const auto whole = compile_kernels(model, o);
  o.max_statements = 150;
  const auto parts = compile_kernels(model, o);
  EXPECT_GT(parts->units, whole->units + 10);
  std::mt19937 rng(21);
  const int m = 9 + model.nv;
  for (int trial = 0; trial < 20; ++trial) {
    const VectorX q = random_configuration(model, rng);
    const VectorX v = test::random_vector(model.nv, rng), tau = test::random_vector(model.nv, rng);
    const VectorX f = test::random_vector(6 * model.njoints, rng, 10.0);
    const VectorX q_ref = integrate(model, q, test::random_vector(model.nv, rng, 0.05), 1.0);
    std::vector<double> ref(24 + model.nq, 0.0), kp(7, 3.0), kd(7, 2.0), active(7);
    for (int c = 0; c < 7; ++c) active[c] = (trial >> (c % 5)) & 1;
    for (int f2 = 0; f2 < 2; ++f2) ref[12 * f2 + 3] = ref[12 * f2 + 7] = ref[12 * f2 + 11] = 1.0;
    for (int k = 0; k < model.nq; ++k) ref[24 + k] = q_ref[k];  // the locks in joint order: q's layout
    VectorX a(model.nv), b(model.nv), la(m), lb(m);
    parts->aba(q.data(), v.data(), tau.data(), a.data());
    whole->aba(q.data(), v.data(), tau.data(), b.data());
    EXPECT_LT(test::rel_err(a, b), 1e-12);
    parts->aba_fext(q.data(), v.data(), tau.data(), f.data(), a.data());
    whole->aba_fext(q.data(), v.data(), tau.data(), f.data(), b.data());
    EXPECT_LT(test::rel_err(a, b), 1e-12);
    const bool ok_a = parts->constrained_dynamics_fext(q.data(), v.data(), tau.data(), f.data(), ref.data(), kp.data(),
                                                       kd.data(), active.data(), a.data(), la.data());
    const bool ok_b = whole->constrained_dynamics_fext(q.data(), v.data(), tau.data(), f.data(), ref.data(), kp.data(),
                                                       kd.data(), active.data(), b.data(), lb.data());
    ASSERT_EQ(ok_a, ok_b);
    if (ok_a) {
      EXPECT_LT(test::rel_err(a, b), 1e-12);
      EXPECT_LT(test::rel_err(la, lb), 1e-12);
    }
  }
  o.held_frames = {{"tip", true}, {"tip", false}};  // dependent rows
  o.locked_joints.clear();
  o.external_forces = false;
  const auto twice = compile_kernels(model, o);
  const VectorX q = random_configuration(model, rng), v = VectorX::Zero(model.nv), tau = VectorX::Zero(model.nv);
  std::vector<double> ref(24, 0.0), kp(2, 0.0), kd(2, 0.0);
  for (int f2 = 0; f2 < 2; ++f2) ref[12 * f2 + 3] = ref[12 * f2 + 7] = ref[12 * f2 + 11] = 1.0;
  VectorX out(model.nv), lambda(9);
  EXPECT_FALSE(twice->constrained_dynamics(q.data(), v.data(), tau.data(), ref.data(), kp.data(), kd.data(), nullptr,
                                           out.data(), lambda.data()));
}

std::string manifest_of(const std::string& dir, const std::string& key) { return dir + "/" + key + ".manifest"; }

TEST(CompiledKernels, CorruptOrStaleEntriesAreRebuiltNeverLoaded) {
  const test::ScratchDir dir("compiled_corrupt");
  const Model model = ur5();
  auto k = compile_kernels(model, in(dir.path()));
  const std::string lib = k->library, key = k->key;
  // Entries are immutable once written; the damage below is done with no process holding the
  // library (dlopen of a path already loaded returns the loaded, here damaged, mapping).
  k.reset();
  // A truncated library: its size no longer matches the manifest.
  fs::resize_file(lib, fs::file_size(lib) / 2);
  auto r = compile_kernels(model, in(dir.path()));
  EXPECT_FALSE(r->from_cache);
  expect_matches_recursions(model, *r, 1e-10);
  // The same size with other bytes: the checksum differs.
  const std::string rebuilt = r->library;
  r.reset();
  {
    std::fstream f(rebuilt, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(fs::file_size(rebuilt) / 2));
    f.write("garbage!", 8);
  }
  r = compile_kernels(model, in(dir.path()));
  EXPECT_FALSE(r->from_cache);
  // A manifest of another key (an entry copied over from another model).
  {
    std::ifstream i(manifest_of(dir.path(), key));
    std::stringstream s;
    s << i.rdbuf();
    std::string text = s.str();
    text.replace(text.find(key), key.size(), "0123456789abcdef");
    std::ofstream(manifest_of(dir.path(), key)) << text;
  }
  r = compile_kernels(model, in(dir.path()));
  EXPECT_FALSE(r->from_cache);
  // A manifest that is not one.
  std::ofstream(manifest_of(dir.path(), key)) << "not a manifest";
  r = compile_kernels(model, in(dir.path()));
  EXPECT_FALSE(r->from_cache);
  expect_matches_recursions(model, *r, 1e-10);
  EXPECT_TRUE(compile_kernels(model, in(dir.path()))->from_cache);
}

TEST(CompiledKernels, TwoProcessesCompilingAtOnceLeaveAGoodEntry) {
  const test::ScratchDir dir("compiled_race");
  const Model model = ur5();
  pid_t pids[2];
  for (pid_t& pid : pids) {
    pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      int code = 1;
      try {
        const auto k = compile_kernels(model, in(dir.path()));
        code = k->aba ? 0 : 2;
      } catch (...) {
        code = 3;
      }
      _exit(code);
    }
  }
  for (pid_t pid : pids) {
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  }
  const auto k = compile_kernels(model, in(dir.path()));
  EXPECT_TRUE(k->from_cache);
  expect_matches_recursions(model, *k, 1e-10);
  for (const auto& e : fs::directory_iterator(dir.path()))
    EXPECT_NE(e.path().filename().string().rfind("build-", 0), 0u) << "left behind: " << e.path();
}

TEST(CompiledKernels, NoCompilerIsACompileErrorNamingIt) {
  const test::ScratchDir dir("compiled_nocc");
  CompileOptions o = in(dir.path());
  o.compiler = "/nonexistent/c++";
  try {
    compile_kernels(ur5(), o);
    FAIL() << "no CompileError";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("no C++ compiler: '/nonexistent/c++'"), std::string::npos) << e.what();
  }
  o.compiler = "false";  // runs, fails
  EXPECT_THROW(compile_kernels(ur5(), o), CompileError);
  EXPECT_THROW(compile_kernels(ur5(), in(dir.path(), {{"no_such_frame", true}})), std::invalid_argument);
}

std::vector<std::vector<double>> read_csv(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);  // header
  std::vector<std::vector<double>> rows;
  while (std::getline(in, line)) {
    std::vector<double> row;
    std::stringstream s(line);
    for (std::string cell; std::getline(s, cell, ',');) row.push_back(std::stod(cell));
    rows.push_back(row);
  }
  return rows;
}

// Two logs of the same run have the same rows and every number within 1e-9 relative.
void expect_same_log(const std::vector<std::vector<double>>& a, const std::vector<std::vector<double>>& b) {
  ASSERT_EQ(a.size(), b.size());
  double worst = 0.0;
  for (std::size_t i = 0; i < b.size(); ++i) {
    ASSERT_EQ(a[i].size(), b[i].size()) << "row " << i;
    for (std::size_t j = 0; j < b[i].size(); ++j)
      worst = std::max(worst, std::abs(a[i][j] - b[i][j]) / std::max(1.0, std::abs(b[i][j])));
  }
  EXPECT_LT(worst, 1e-9);
}

// The run's summary says that every evaluation of the dynamics (more than `at_least`) but
// `on_runtime` was done by the compiled kernels.
void expect_all_on_kernels(const std::string& output, long at_least, long on_runtime = 0) {
  const auto at = output.find("evaluations by the compiled kernels: ");
  ASSERT_NE(at, std::string::npos) << output;
  long by_kernels = 0, total = 0;
  ASSERT_EQ(std::sscanf(output.c_str() + at, "evaluations by the compiled kernels: %ld of %ld", &by_kernels, &total),
            2);
  EXPECT_EQ(by_kernels, total - on_runtime) << output;
  EXPECT_GT(total, at_least) << output;
}

// A whole scenario with --compiled equals the runtime run to 1e-9 (the log's every number).
TEST(CompiledKernels, RunCompiledEqualsTheRuntimeRun) {
  const test::ScratchDir dir("compiled_run");
  const std::string scenario = std::string(ARTICULA_MODELS_DIR) + "/../scenarios/pendulum3r_locking.yaml";
  const test::CliResult a = test::run_cli("run '" + scenario + "' -q --compiled --cache-dir '" + dir.path() +
                                          "/cache' -o '" + dir.path() + "/c'");
  ASSERT_EQ(a.code, 0) << a.output;
  EXPECT_NE(a.output.find("kernels compiled in"), std::string::npos) << a.output;
  expect_all_on_kernels(a.output, 1000);  // the locks too (CodegenOptions::locked_joints)
  const test::CliResult b = test::run_cli("run '" + scenario + "' -q -o '" + dir.path() + "/r'");
  ASSERT_EQ(b.code, 0) << b.output;
  const test::CliResult again = test::run_cli("run '" + scenario + "' -q --compiled --cache-dir '" + dir.path() +
                                              "/cache' -o '" + dir.path() + "/c2'");
  EXPECT_NE(again.output.find("loaded from the cache"), std::string::npos) << again.output;
  std::string log;
  for (const auto& e : fs::directory_iterator(dir.path() + "/r"))
    if (e.path().extension() == ".csv" && e.path().string().find(".events") == std::string::npos)
      log = e.path().filename().string();
  ASSERT_FALSE(log.empty());
  const auto rc = read_csv(dir.path() + "/c/" + log), rr = read_csv(dir.path() + "/r/" + log);
  ASSERT_GT(rr.size(), 10u);
  expect_same_log(rc, rr);
}

// The log of `articula run SCENARIO -q FLAGS -o OUT` (its rows), after checking the run succeeded.
std::vector<std::vector<double>> run_log(const std::string& scenario, const std::string& flags, const std::string& out,
                                         std::string& output) {
  const test::CliResult r = test::run_cli("run '" + scenario + "' -q " + flags + " -o '" + out + "'");
  output = r.output;
  EXPECT_EQ(r.code, 0) << r.output;
  for (const auto& e : fs::directory_iterator(out))
    if (e.path().extension() == ".csv" && e.path().string().find(".events") == std::string::npos)
      return read_csv(e.path().string());
  ADD_FAILURE() << "no log in " << out;
  return {};
}

// `scenario` run with --compiled (its cache in dir) and on the runtime algorithms: every
// evaluation (more than `at_least`) but `on_runtime` was the kernels', and the two logs agree in
// every number (1e-9). Returns the two runs' outputs (compiled, runtime).
std::pair<std::string, std::string> expect_compiled_run_equals_runtime(const std::string& scenario,
                                                                       const std::string& dir, long at_least,
                                                                       long on_runtime = 0) {
  std::string out_c, out_r;
  const auto rc = run_log(scenario, "--compiled --cache-dir '" + dir + "/cache'", dir + "/c", out_c);
  const auto rr = run_log(scenario, "", dir + "/r", out_r);
  expect_all_on_kernels(out_c, at_least, on_runtime);
  EXPECT_GT(rr.size(), 100u);
  expect_same_log(rc, rr);
  return {out_c, out_r};
}

// Brakes as they are (scenarios/estop_real_brakes.yaml): friction brakes that slip, stick
// (a JointLock switched on) and release, and a pin brake that locks with the jump. --compiled
// declares a lock per braked joint; every subset the stop goes through runs on the one
// constrained kernel, and the run equals the runtime run (1e-9).
TEST(CompiledKernels, RunCompiledWithBrakesEqualsTheRuntimeRun) {
  const test::ScratchDir dir("compiled_brakes");
  const std::string scenario = std::string(ARTICULA_MODELS_DIR) + "/../scenarios/estop_real_brakes.yaml";
  expect_compiled_run_equals_runtime(scenario, dir.path(), 1000);
}

// --compile-in-background: the run starts on the runtime algorithms, switches when the kernels
// are ready (or ends before), says which, and ends where the runtime run ends (1e-9).
TEST(CompiledKernels, RunCompiledInBackgroundEndsAsTheRuntimeRun) {
  const test::ScratchDir dir("compiled_background");
  const std::string scenario = std::string(ARTICULA_MODELS_DIR) + "/../scenarios/pendulum3r_locking.yaml";
  const std::string cache = " --cache-dir '" + dir.path() + "/cache'";
  std::string out, ref_out;
  const auto ref = run_log(scenario, "", dir.path() + "/r", ref_out);
  ASSERT_GT(ref.size(), 10u);
  for (const char* name : {"/cold", "/warm"}) {  // compiled during the run, then from the cache
    const auto rows = run_log(scenario, "--compile-in-background" + cache, dir.path() + name, out);
    EXPECT_NE(out.find("compiling the kernels in the background"), std::string::npos) << out;
    EXPECT_TRUE(out.find("switched to the compiled kernels at t = ") != std::string::npos ||
                out.find("were ready after the run") != std::string::npos)
        << out;
    ASSERT_EQ(rows.size(), ref.size());
    double worst = 0.0;
    for (std::size_t j = 0; j < ref.back().size(); ++j)
      worst = std::max(worst, std::abs(rows.back()[j] - ref.back()[j]) / std::max(1.0, std::abs(ref.back()[j])));
    EXPECT_LT(worst, 1e-9);
  }
}

// Without a compiler ($CXX names none) a background compile fails with the one notice and the
// run is the runtime run, number for number.
TEST(CompiledKernels, RunInBackgroundWithoutACompilerIsTheRuntimeRun) {
  const test::ScratchDir dir("compiled_background_nocc");
  const std::string scenario = std::string(ARTICULA_MODELS_DIR) + "/../scenarios/pendulum3r_locking.yaml";
  std::string out, ref_out;
  const auto ref = run_log(scenario, "", dir.path() + "/r", ref_out);
  const char* cxx = std::getenv("CXX");
  const std::string saved = cxx ? cxx : "";
  ::setenv("CXX", "/nonexistent/c++", 1);
  const auto rows =
      run_log(scenario, "--compile-in-background --cache-dir '" + dir.path() + "/cache'", dir.path() + "/c", out);
  if (cxx)
    ::setenv("CXX", saved.c_str(), 1);
  else
    ::unsetenv("CXX");
  EXPECT_NE(out.find("notice: compile_kernels: no C++ compiler: '/nonexistent/c++'"), std::string::npos) << out;
  EXPECT_NE(out.find("running with the runtime algorithms"), std::string::npos) << out;
  EXPECT_EQ(out.find("switched to the compiled kernels"), std::string::npos) << out;
  ASSERT_EQ(rows.size(), ref.size());
  for (std::size_t i = 0; i < ref.size(); ++i)
    for (std::size_t j = 0; j < ref[i].size(); ++j)  // bit for bit (NaN: a disabled constraint's λ)
      ASSERT_TRUE(rows[i][j] == ref[i][j] || (std::isnan(rows[i][j]) && std::isnan(ref[i][j])))
          << "row " << i << " column " << j;
}

// With elastic contacts on the ground --compiled compiles aba_contacts (the contacts' forces
// inside the kernel; with the joint limits' locks, also the kernels with external forces and
// the feet's body_states), the engine calls them for every evaluation, and the run equals the
// runtime run (1e-9).
TEST(CompiledKernels, RunCompiledWithContactsEqualsTheRuntimeRun) {
  const test::ScratchDir dir("compiled_contacts");
  const std::string scenario = std::string(ARTICULA_MODELS_DIR) + "/../scenarios/solo12_stand_lift.yaml";
  const auto [out_c, out_r] = expect_compiled_run_equals_runtime(scenario, dir.path(), 1000);
  // Only the kernels the engine calls are compiled (in parts; MatchTheRecursionsThenLoadFromTheCache
  // counts them whole).
  EXPECT_NE(out_c.find("kernels compiled in"), std::string::npos) << out_c;
  EXPECT_EQ(out_r.find("compiled kernels"), std::string::npos) << out_r;
}

// Loop closures (LoopConstraint) and distances (DistanceConstraint) run on the compiled kernels:
// Solo-12 falling freely with its front feet tied together (a point loop) and its hind feet kept
// at their distance from 0.1 s (with the consistent jump), the front loop let go at 0.2 s and
// tied again at 0.25 s (a new reference, captured then). Every evaluation is the kernels', and
// the run equals the runtime run (1e-9).
TEST(CompiledKernels, RunCompiledWithLoopsAndDistancesEqualsTheRuntimeRun) {
  const test::ScratchDir dir("compiled_loops");
  const std::string scenario = dir.path() + "/solo12_tied_feet.yaml";
  std::ofstream(scenario)
      << "description: Solo-12 falling with its feet tied in pairs (a loop, a distance)\n"
         "model: {urdf: " ARTICULA_MODELS_DIR
         "/solo12.urdf, base: floating}\n"
         "initial:\n"
         "  base: {position: [0, 0, 0.3]}\n"
         "  q: {FL_HFE: 0.8, FL_KFE: -1.6, FR_HFE: 0.8, FR_KFE: -1.6, HL_HFE: -0.8, HL_KFE: 1.6,"
         " HR_HFE: -0.8, HR_KFE: 1.6}\n"
         "  v: {FL_HFE: 2.0, FR_KFE: -1.5, HL_HAA: 1.0, HR_KFE: 2.0}\n"
         "constraints:\n"
         "  - {name: front_feet, type: loop, frame_a: FL_FOOT, frame_b: FR_FOOT, stabilization: 20}\n"
         "  - {name: hind_feet, type: distance, frame_a: HL_FOOT, frame_b: HR_FOOT, enabled: false,"
         " stabilization: 20}\n"
         "integrator: {method: rk4, dt: 0.001}\n"
         "duration: 0.3\n"
         "events:\n"
         "  - {name: tie, at: 0.1, actions: [{enable: hind_feet, jump: consistent}]}\n"
         "  - {name: untie, at: 0.2, actions: [{disable: front_feet}]}\n"
         "  - {name: retie, at: 0.25, actions: [{enable: front_feet}]}\n"
         "output: {csv: true}\n";
  // All of them: the references of the constraints enabled at the start are taken when the run
  // begins, those of the ones enabled later at their events.
  expect_compiled_run_equals_runtime(scenario, dir.path(), 1000);
}

// A wheel (WheelConstraint) and a frame held on two axes (rx rz) run on the compiled kernels:
// the segway of scenarios/segway_balance.yaml balanced for 10 s. Every evaluation is the
// kernels' (the planar frame's reference is taken when the run begins), and the run equals the
// runtime run (1e-9).
TEST(CompiledKernels, RunCompiledWithAWheelEqualsTheRuntimeRun) {
  const test::ScratchDir dir("compiled_wheel");
  const std::string scenario = std::string(ARTICULA_MODELS_DIR) + "/../scenarios/segway_balance.yaml";
  expect_compiled_run_equals_runtime(scenario, dir.path(), 10000);
}

}  // namespace
}  // namespace articula
