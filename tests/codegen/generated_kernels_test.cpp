// Generated kernels (articula codegen) against the runtime recursions, with armature, at random
// states: on one model per kind (pendulum3r, ur5, solo12, both mixed models with every joint
// type) by default, on every bundled model with -DARTICULA_TEST_ALL_GENERATED=ON.
#include <gtest/gtest.h>

#include <array>
#include <cctype>
#include <fstream>
#include <map>
#include <vector>

#include "test_mixed_fixed.hpp"
#include "test_mixed_floating.hpp"
#include "test_mixed_locks.hpp"
#include "test_mixed_loops.hpp"
#include "test_mixed_twice.hpp"
#include "test_models.hpp"
#include "test_pendulum3r.hpp"
#include "test_segway.hpp"
#include "test_solo12.hpp"
#include "test_ur5.hpp"
#include "test_ur5_exact.hpp"
#ifdef ARTICULA_TEST_ALL_GENERATED
#include "test_panda.hpp"
#include "test_rx130_standin.hpp"
#include "test_talos.hpp"
#endif

namespace articula {
namespace {

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct Kernels {
  const char* digest;
  RneaKernel rnea;
  CrbaKernel crba;
  AbaKernel aba;
};

#define ARTICULA_KERNELS(ns) \
  Kernels { generated::ns::model_digest, &generated::ns::rnea, &generated::ns::crba, &generated::ns::aba }

struct Case {
  std::string name;
  Model model;
  Kernels kernels;
  double tol = 1e-10;  // snapped placements (CodegenOptions::snap) move results by ~1e-11
};

std::vector<Case> cases() {
  std::vector<Case> out;
  auto with_armature = [](Model m) {
    test::add_armature(m);
    return m;
  };
  for (const auto& c : test::all_models()) {
    Kernels k{};
    if (c.name == "pendulum3r") k = ARTICULA_KERNELS(test_pendulum3r);
    if (c.name == "ur5") k = ARTICULA_KERNELS(test_ur5);
    if (c.name == "solo12") k = ARTICULA_KERNELS(test_solo12);
#ifdef ARTICULA_TEST_ALL_GENERATED
    if (c.name == "rx130_standin") k = ARTICULA_KERNELS(test_rx130_standin);
    if (c.name == "panda") k = ARTICULA_KERNELS(test_panda);
    if (c.name == "talos") k = ARTICULA_KERNELS(test_talos);
#endif
    if (k.rnea != nullptr) out.push_back({c.name, with_armature(test::load(c)), k});
  }
  out.push_back(
      {"ur5 exact", with_armature(test::load(test::all_models()[2])), ARTICULA_KERNELS(test_ur5_exact), 1e-12});
  out.push_back({"mixed_fixed", with_armature(test::mixed_model(false)), ARTICULA_KERNELS(test_mixed_fixed)});
  out.push_back({"mixed_floating", with_armature(test::mixed_model(true)), ARTICULA_KERNELS(test_mixed_floating)});
  return out;
}

TEST(GeneratedKernels, MatchTheRecursionsOnEveryModel) {
  std::mt19937 rng(4242);
  const std::vector<Case> all = cases();
#ifdef ARTICULA_TEST_ALL_GENERATED
  ASSERT_EQ(all.size(), test::all_models().size() + 3);
#else
  ASSERT_EQ(all.size(), 6u);
#endif
  for (const Case& c : all) {
    SCOPED_TRACE(c.name);
    ASSERT_NE(c.kernels.rnea, nullptr) << "no generated kernels for " << c.name;
    EXPECT_EQ(std::string(c.kernels.digest), model_digest(c.model));
    Data data(c.model);
    for (int trial = 0; trial < 20; ++trial) {
      const VectorX q = random_configuration(c.model, rng);
      const VectorX v = test::random_vector(c.model.nv, rng), a = test::random_vector(c.model.nv, rng);
      const VectorX tau_in = test::random_vector(c.model.nv, rng);
      VectorX tau(c.model.nv), qdd(c.model.nv);
      MatrixX M = MatrixX::Zero(c.model.nv, c.model.nv);
      c.kernels.rnea(q.data(), v.data(), a.data(), tau.data());
      c.kernels.crba(q.data(), M.data());
      c.kernels.aba(q.data(), v.data(), tau_in.data(), qdd.data());
      EXPECT_LT(test::rel_err(tau, rnea(c.model, data, q, v, a)), c.tol);
      EXPECT_LT(test::rel_err(M, crba(c.model, data, q)), c.tol);
      EXPECT_LT(test::rel_err(qdd, aba(c.model, data, q, v, tau_in)), 100 * c.tol);
    }
  }
}

TEST(GeneratedKernels, CrbaWritesOnlyTheSparsityPattern) {
  // solo12: the four legs are separate branches, so M has structural zeros; the kernel
  // leaves them as they are (here NaN) and writes every entry of the pattern.
  Model model = test::load(test::all_models()[4]);
  test::add_armature(model);
  ASSERT_EQ(model.nv, generated::test_solo12::nv);
  std::mt19937 rng(7);
  const VectorX q = random_configuration(model, rng);
  MatrixX M = MatrixX::Constant(model.nv, model.nv, std::nan(""));
  generated::test_solo12::crba(q.data(), M.data());
  Data data(model);
  const MatrixX& ref = crba(model, data, q);
  int untouched = 0;
  for (int c = 0; c < model.nv; ++c)
    for (int r = 0; r < model.nv; ++r) {
      if (std::isnan(M(r, c))) {
        ++untouched;
        EXPECT_EQ(ref(r, c), 0.0) << r << "," << c;
      } else {
        EXPECT_NEAR(M(r, c), ref(r, c), 1e-10 * (1.0 + std::abs(ref(r, c))));
      }
    }
  EXPECT_GT(untouched, 0);
}

// The emitter keeps only lines an output depends on (Emitter::take's liveness pass) and emits
// one fast_sincos per angle per function, however often the traced recursions ask for it
// (ADR 0003): every temporary defined is read again, and each function of a model whose
// joints are all revolute calls fast_sincos at most once per joint.
TEST(GeneratedKernels, NoDeadTemporariesAndOneSinCosPerAngle) {
  const Model m = load_urdf(test::model_path("ur5"));
  CodegenOptions o;
  o.held_frames = {{"tool0", false}};
  o.external_forces = true;
  o.max_statements = 0;  // whole kernels: one unit, one function each
  const GeneratedKernels k = generate_kernels(m, "ur5_text", o);
  // rnea, crba, aba, aba_fext, energy, constrained_dynamics, constrained_dynamics_fext, velocity_jump
  ASSERT_EQ(k.units.size(), 8u);
  for (const std::string& unit : k.units) {
    // Each temporary's occurrences as a whole word, and which ones are defined.
    std::map<std::string, int> seen;
    std::vector<std::string> defined;
    auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
    for (std::size_t at = 0; at < unit.size();) {
      if (!ident(unit[at])) {
        ++at;
        continue;
      }
      std::size_t end = at;
      while (end < unit.size() && ident(unit[end])) ++end;
      const std::string word = unit.substr(at, end - at);
      if (word.size() > 1 && word[0] == 't' && std::isdigit(static_cast<unsigned char>(word[1]))) {
        if (++seen[word] == 1 && at >= 13 && unit.compare(at - 13, 13, "const double ") == 0) defined.push_back(word);
      }
      at = end;
    }
    EXPECT_FALSE(defined.empty());
    for (const std::string& name : defined) EXPECT_GE(seen[name], 2) << name << " is defined and never read";
  }
  auto count = [](const std::string& text, const std::string& what) {
    int n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  // At most one per joint in each function (none where no output depends on the angle, e.g.
  // the last joint's for M), although the constrained kernels trace the placements, RNEA and
  // CRBA on the same angles.
  for (std::size_t u = 0; u < k.units.size(); ++u) {
    EXPECT_LE(count(k.units[u], "fast_sincos("), m.njoints) << "unit " << u;
    EXPECT_GE(count(k.units[u], "fast_sincos("), m.njoints - 1) << "unit " << u;
  }
}

TEST(GeneratedKernels, DigestChangesWithTheModel) {
  Model a = test::mixed_model(false), b = a;
  EXPECT_EQ(model_digest(a), model_digest(b));
  b.armature[0] += 1e-3;
  EXPECT_NE(model_digest(a), model_digest(b));
  b = a;
  b.gravity.v.z() = -9.8;
  EXPECT_NE(model_digest(a), model_digest(b));
}

TEST(GeneratedKernels, NameMustBeAnIdentifier) {
  const Model m = test::mixed_model(false);
  for (const char* bad : {"", "1abc", "a-b", "a b", "ns::x"}) {
    try {
      generate_kernels(m, bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("not a C++ identifier"), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(generate_kernels(m, "_ok_9"));
}

TEST(GeneratedKernels, CliWritesBothFiles) {
  test::ScratchDir dir("codegen_cli");
  const auto r = test::run_cli("codegen " + test::model_path("ur5") + " --name ur5_kernels -o " + dir.path() + "/out");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("ur5_kernels.hpp"), std::string::npos) << r.output;
  std::ifstream h(dir.path() + "/out/ur5_kernels.hpp"), s(dir.path() + "/out/ur5_kernels.cpp");
  ASSERT_TRUE(h && s);
  const std::string header((std::istreambuf_iterator<char>(h)), {});
  const std::string source((std::istreambuf_iterator<char>(s)), {});
  EXPECT_NE(header.find(model_digest(load_urdf(test::model_path("ur5")))), std::string::npos);
  EXPECT_NE(header.find("namespace articula::generated::ur5_kernels"), std::string::npos);
  EXPECT_NE(source.find("void aba(const double* q"), std::string::npos);
  const auto bad = test::run_cli("codegen " + test::model_path("ur5") + " --name 9lives -o " + dir.path());
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.output.find("not a C++ identifier"), std::string::npos) << bad.output;
  const auto missing = test::run_cli("codegen " + dir.path() + "/nope.urdf --name x -o " + dir.path());
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.output.find("nope.urdf"), std::string::npos) << missing.output;
}

}  // namespace
}  // namespace articula

namespace articula {
namespace {

struct ConstrainedKernels {
  std::vector<HeldFrame> held;
  ConstrainedKernel dynamics;
  JumpKernel jump;
  std::vector<HeldDistance> distances = {};
  std::vector<HeldWheel> wheels = {};
};

#define ARTICULA_CONSTRAINED(ns) &generated::ns::constrained_dynamics, &generated::ns::velocity_jump

struct ConstrainedCase {
  std::string name;
  Model model;
  ConstrainedKernels kernels;
  bool perturb = true;  // reference pose off the state's (planar pendulum: in its plane only, so none)
  // Relative agreement with the runtime solvers. 1e-12 (issue 17) where the kernels' model is the
  // runtime's exactly; ur5's placements are snapped (CodegenOptions::snap, 1e-9: its near quarter
  // turns become exact), which moves its results by ~5e-11.
  double tol = 1e-12;
};

std::vector<ConstrainedCase> constrained_cases() {
  auto with_armature = [](Model m) {
    test::add_armature(m);
    return m;
  };
  const auto models = test::all_models();
  auto by_name = [&](const std::string& n) {
    for (const auto& c : models)
      if (c.name == n) return with_armature(test::load(c));
    throw std::runtime_error(n);
  };
  std::vector<ConstrainedCase> out = {
      {"solo12",
       by_name("solo12"),
       {{{"FL_FOOT", false}, {"FR_FOOT", false}, {"HL_FOOT", false}, {"HR_FOOT", false}},
        ARTICULA_CONSTRAINED(test_solo12)}},
      {"ur5", by_name("ur5"), {{{"tool0", false}}, ARTICULA_CONSTRAINED(test_ur5)}, true, 1e-10},
      {"pendulum3r", by_name("pendulum3r"), {{{"tip", false}}, ARTICULA_CONSTRAINED(test_pendulum3r)}, false},
      {"mixed_floating",
       with_armature(test::mixed_model(true)),
       {{{"tip", true}, {"leg", false}}, ARTICULA_CONSTRAINED(test_mixed_floating)}},
      // Loops (the tip's point held to the leg, the leg held to a frame on the world on all axes
      // but rz) and a distance (arm2's origin to the leg's).
      {"mixed_loops",
       with_armature(test::mixed_model(true)),
       {{{"tip", false, "leg"}, {"leg", true, "world_mark", "xyzrxry"}},
        ARTICULA_CONSTRAINED(test_mixed_loops),
        {{"arm2", "leg"}}}},
      // A wheel rolling on z = 0, kept in its plane (rx rz held in the world).
      {"segway",
       with_armature(load_urdf(test::model_path("segway"), BaseType::Floating)),
       {{held_frame("wheel", "rxrz")},
        ARTICULA_CONSTRAINED(test_segway),
        {},
        {{"wheel", 0.2, Vector3::UnitY(), Vector3::UnitZ(), 0.0}}}},
  };
#ifdef ARTICULA_TEST_ALL_GENERATED
  out.push_back({"talos",
                 by_name("talos"),
                 {{{"left_sole_link", true}, {"right_sole_link", true}}, ARTICULA_CONSTRAINED(test_talos)},
                 true,
                 1e-10});  // snapped placements, as ur5
  out.push_back({"panda", by_name("panda"), {{{"panda_hand", true}}, ARTICULA_CONSTRAINED(test_panda)}, true, 1e-10});
#endif
  return out;
}

// The held frames as FrameConstraints (LoopConstraints) and the distances as
// DistanceConstraints, with a reference near the state's (so the Baumgarte terms are not zero)
// and a stabilization frequency; returns the kernel's ref, kp, kd inputs.
ConstraintSet make_set(const Model& model, Data& data, const VectorX& q, const ConstrainedKernels& kernels,
                       bool perturb, std::mt19937& rng, std::vector<double>& ref, std::vector<double>& kp,
                       std::vector<double>& kd) {
  const std::vector<HeldFrame>& held = kernels.held;
  ConstraintSet set(model);
  forward_kinematics(model, data, q);
  ref.clear();
  kp.clear();
  kd.clear();
  for (std::size_t f = 0; f < held.size(); ++f) {
    // The pose of the frame in the world, or in the frame it is held to (a loop).
    Transform X = frame_placement(model, data, model.frame_id(held[f].frame));
    if (!held[f].relative_to.empty())
      X = frame_placement(model, data, model.frame_id(held[f].relative_to)).inv_times(X);
    const VectorX d = perturb ? test::random_vector(6, rng, 0.05) : VectorX::Zero(6);
    X.p += d.head<3>();
    X.R = exp3(d.tail<3>()) * X.R;
    auto& c = set.emplace<FramePairConstraint>("held" + std::to_string(f), held[f].frame, held[f].relative_to,
                                               held[f].mask(), X);
    c.set_baumgarte_frequency(2.0 + static_cast<double>(f));
    for (int k = 0; k < 3; ++k) ref.push_back(X.p[k]);
    for (int k = 0; k < 9; ++k) ref.push_back(X.R.data()[k]);  // column-major
    kp.push_back(c.kp());
    kd.push_back(c.kd());
  }
  for (std::size_t i = 0; i < kernels.distances.size(); ++i) {
    const HeldDistance& d = kernels.distances[i];
    const double now = (frame_placement(model, data, model.frame_id(d.frame_a)).p -
                        frame_placement(model, data, model.frame_id(d.frame_b)).p)
                           .norm();
    const double d0 = perturb ? now * (1.0 + test::random_vector(1, rng, 0.05)[0]) : now;
    auto& c = set.emplace<DistanceConstraint>("distance" + std::to_string(i), d.frame_a, d.frame_b, d0);
    c.set_baumgarte_frequency(3.0);
    ref.push_back(d0);
    kp.push_back(c.kp());
    kd.push_back(c.kd());
  }
  for (std::size_t i = 0; i < kernels.wheels.size(); ++i) {
    const HeldWheel& w = kernels.wheels[i];
    auto& c = set.emplace<WheelConstraint>("wheel" + std::to_string(i), w.frame, w.radius, w.axis, w.normal, w.height);
    kp.push_back(c.kp());
    kd.push_back(c.kd());
  }
  return set;
}

TEST(GeneratedKernels, ConstrainedDynamicsAndJumpMatchTheSolvers) {
  std::mt19937 rng(99);
  for (ConstrainedCase& c : constrained_cases()) {
    SCOPED_TRACE(c.name);
    Data data(c.model);
    for (int trial = 0; trial < 10; ++trial) {
      const VectorX q = random_configuration(c.model, rng);
      const VectorX v = test::random_vector(c.model.nv, rng), tau = test::random_vector(c.model.nv, rng);
      std::vector<double> ref, kp, kd;
      ConstraintSet set = make_set(c.model, data, q, c.kernels, c.perturb, rng, ref, kp, kd);
      ConstrainedWorkspace ws(c.model, set.dim());
      const SolveReport report =
          constrained_forward_dynamics(c.model, data, ws, set, q, v, tau, {}, ConstrainedMethod::RangeSpace);
      ASSERT_TRUE(report.ok()) << report.message;
      VectorX qdd(c.model.nv), lambda(set.dim());
      ASSERT_TRUE(c.kernels.dynamics(q.data(), v.data(), tau.data(), ref.data(), kp.data(), kd.data(), nullptr,
                                     qdd.data(), lambda.data()));
      EXPECT_LT(test::rel_err(qdd, data.ddq), c.tol);
      EXPECT_LT(test::rel_err(lambda, ws.lambda.head(set.dim())), c.tol);

      // The plastic jump when the held frames switch on, against velocity_jump's full form.
      crba(c.model, data, q);
      set.compute_jacobian(c.model, data, q, v);
      const MatrixX J = set.J();
      JumpOptions options;
      options.form = JumpForm::Full;
      const JumpResult ref_jump = velocity_jump(c.model, data, MatrixX(0, c.model.nv), J, v, options);
      ASSERT_TRUE(ref_jump.ok()) << ref_jump.message;
      VectorX v_plus(c.model.nv), Lambda(set.dim());
      ASSERT_TRUE(c.kernels.jump(q.data(), v.data(), nullptr, v_plus.data(), Lambda.data()));
      EXPECT_LT(test::rel_err(v_plus, ref_jump.v_plus), c.tol);
      EXPECT_LT(test::rel_err(Lambda, ref_jump.Lambda), c.tol);
      EXPECT_LT((J * v_plus).cwiseAbs().maxCoeff(), 1e-9 * (1.0 + v.norm()));
    }
  }
}

// The kernels with external forces (CodegenOptions::external_forces) against aba() and the
// range-space solver with the same f_ext: random forces on every body, in body frames.
TEST(GeneratedKernels, ExternalForcesMatchTheRecursionsAndTheSolver) {
  struct ForceCase {
    std::string name;
    ConstrainedCase c;
    AbaFextKernel aba;
    ConstrainedFextKernel dynamics;
    AbaKernel aba_plain;
  };
  std::vector<ForceCase> all;
  for (ConstrainedCase& c : constrained_cases()) {
    if (c.name == "solo12")
      all.push_back({c.name, c, &generated::test_solo12::aba_fext, &generated::test_solo12::constrained_dynamics_fext,
                     &generated::test_solo12::aba});
    if (c.name == "mixed_floating")
      all.push_back({c.name, c, &generated::test_mixed_floating::aba_fext,
                     &generated::test_mixed_floating::constrained_dynamics_fext, &generated::test_mixed_floating::aba});
  }
  ASSERT_EQ(all.size(), 2u);
  std::mt19937 rng(7);
  for (ForceCase& fc : all) {
    SCOPED_TRACE(fc.name);
    const Model& model = fc.c.model;
    Data data(model);
    for (int trial = 0; trial < 10; ++trial) {
      const VectorX q = random_configuration(model, rng);
      const VectorX v = test::random_vector(model.nv, rng), tau = test::random_vector(model.nv, rng);
      std::vector<Force> f_ext(static_cast<std::size_t>(model.njoints));
      std::vector<double> packed;
      for (Force& f : f_ext) {
        f = Force::from(test::random_vector(6, rng, 20.0));
        for (int k = 0; k < 6; ++k) packed.push_back(f.vector()[k]);
      }
      VectorX qdd(model.nv), qdd0(model.nv), qdd_plain(model.nv);
      fc.aba(q.data(), v.data(), tau.data(), packed.data(), qdd.data());
      EXPECT_LT(test::rel_err(qdd, aba(model, data, q, v, tau, f_ext)), fc.c.tol);
      const std::vector<double> zeros(packed.size(), 0.0);
      fc.aba(q.data(), v.data(), tau.data(), zeros.data(), qdd0.data());
      fc.aba_plain(q.data(), v.data(), tau.data(), qdd_plain.data());
      EXPECT_LT(test::rel_err(qdd0, qdd_plain), 1e-13);
      EXPECT_GT(test::rel_err(qdd, qdd_plain), 1e-3);  // the forces act

      std::vector<double> ref, kp, kd;
      ConstraintSet set = make_set(model, data, q, fc.c.kernels, fc.c.perturb, rng, ref, kp, kd);
      ConstrainedWorkspace ws(model, set.dim());
      const SolveReport report =
          constrained_forward_dynamics(model, data, ws, set, q, v, tau, f_ext, ConstrainedMethod::RangeSpace);
      ASSERT_TRUE(report.ok()) << report.message;
      VectorX lambda(set.dim());
      ASSERT_TRUE(fc.dynamics(q.data(), v.data(), tau.data(), packed.data(), ref.data(), kp.data(), kd.data(), nullptr,
                              qdd.data(), lambda.data()));
      EXPECT_LT(test::rel_err(qdd, data.ddq), fc.c.tol);
      EXPECT_LT(test::rel_err(lambda, ws.lambda.head(set.dim())), fc.c.tol);
    }
  }
}

TEST(GeneratedKernels, DependentRowsAreReported) {
  // test_mixed_twice holds "tip" as a weld and again as a point: the point's rows repeat the
  // weld's linear rows, J M⁻¹ Jᵀ is singular and both kernels return false.
  Model model = test::mixed_model(true);
  test::add_armature(model);
  ASSERT_EQ(generated::test_mixed_twice::m, 9);
  std::mt19937 rng(5);
  const VectorX q = random_configuration(model, rng);
  const VectorX v = test::random_vector(model.nv, rng), tau = test::random_vector(model.nv, rng);
  std::vector<double> ref(24, 0.0), kp(2, 0.0), kd(2, 0.0);
  for (int f = 0; f < 2; ++f) ref[12 * f + 3] = ref[12 * f + 7] = ref[12 * f + 11] = 1.0;
  VectorX out(model.nv), lambda(9);
  EXPECT_FALSE(generated::test_mixed_twice::constrained_dynamics(q.data(), v.data(), tau.data(), ref.data(), kp.data(),
                                                                 kd.data(), nullptr, out.data(), lambda.data()));
  EXPECT_FALSE(generated::test_mixed_twice::velocity_jump(q.data(), v.data(), nullptr, out.data(), lambda.data()));
}

// test_mixed_locks declares the two frames of mixed_floating and a lock on each of its five
// joints (free flyer, spherical, prismatic, continuous, revolute). Every one of the 2⁷ subsets,
// switched on by `active`, against the range-space solver and velocity_jump's full form with
// only those constraints in the set (alternately with external forces), to 1e-12 relative. Independent rows must
// solve and match; dependent ones (e.g. the tip welded with its whole chain locked) return false.
TEST(GeneratedKernels, AnySubsetOfFramesAndLocksMatchesTheSolvers) {
  namespace g = generated::test_mixed_locks;
  Model model = test::mixed_model(true);
  test::add_armature(model);
  const std::vector<HeldFrame> held = {{"tip", true}, {"leg", false}};
  const std::vector<std::string> locked = {"root", "j_sph", "j_prism", "j_cont", "j_rev"};
  ASSERT_EQ(g::constraints, 7);
  ASSERT_EQ(g::frame_rows, 9);
  ASSERT_EQ(g::m, 9 + model.nv);
  std::mt19937 rng(11);
  Data data(model);
  int solved = 0, dependent = 0;
  double worst = 0.0;
  for (int subset = 0; subset < 128; ++subset) {
    SCOPED_TRACE("subset " + std::to_string(subset));
    const VectorX q = random_configuration(model, rng);
    const VectorX v = test::random_vector(model.nv, rng), tau = test::random_vector(model.nv, rng);
    const VectorX q_ref = integrate(model, q, test::random_vector(model.nv, rng, 0.05), 1.0);
    const bool with_forces = subset % 2 == 1;
    std::vector<Force> f_ext;
    std::vector<double> packed(6 * static_cast<std::size_t>(model.njoints), 0.0);
    if (with_forces)
      for (Index i = 0; i < model.njoints; ++i) {
        f_ext.push_back(Force::from(test::random_vector(6, rng, 20.0)));
        for (int k = 0; k < 6; ++k) packed[static_cast<std::size_t>(6 * i + k)] = f_ext.back().vector()[k];
      }
    // The set of the active ones, in declared order, and the kernel's inputs.
    ConstraintSet set(model);
    forward_kinematics(model, data, q);
    std::vector<double> ref(g::ref_size, 0.0), kp(7, 0.0), kd(7, 0.0), active(7, 0.0);
    std::vector<int> rows(7);  // rows of each declared constraint
    int r0 = 0;
    for (int c = 0; c < 7; ++c) {
      active[c] = (subset >> c) & 1;
      Constraint* made = nullptr;
      if (c < 2) {
        Transform X = frame_placement(model, data, model.frame_id(held[c].frame));
        const VectorX d = test::random_vector(6, rng, 0.05);
        X.p += d.head<3>();
        X.R = exp3(d.tail<3>()) * X.R;
        for (int k = 0; k < 3; ++k) ref[12 * c + k] = X.p[k];
        for (int k = 0; k < 9; ++k) ref[12 * c + 3 + k] = X.R.data()[k];
        rows[c] = held[c].weld ? 6 : 3;
        if (active[c] != 0.0)
          made = &set.emplace<FrameConstraint>("frame" + std::to_string(c), held[c].frame,
                                               held[c].weld ? AxisMask::weld() : AxisMask::point(), X);
      } else {
        const Index j = model.joint_id(locked[c - 2]);
        const VectorX qj = q_ref.segment(model.idx_q[j], model.nq_joint[j]);
        for (int k = 0; k < model.nq_joint[j]; ++k) ref[r0 + k] = qj[k];
        r0 += model.nq_joint[j];
        rows[c] = model.nv_joint[j];
        if (active[c] != 0.0)
          made =
              &set.emplace<JointLock>(model, "lock" + std::to_string(c), std::vector<std::string>{locked[c - 2]}, qj);
      }
      if (c == 1) r0 = 24;
      if (made != nullptr) {
        made->set_baumgarte_frequency(2.0 + c);
        kp[c] = made->kp();
        kd[c] = made->kd();
      }
    }
    VectorX qdd(model.nv), lambda(g::m), v_plus(model.nv), Lambda(g::m);
    const bool ok = with_forces
                        ? g::constrained_dynamics_fext(q.data(), v.data(), tau.data(), packed.data(), ref.data(),
                                                       kp.data(), kd.data(), active.data(), qdd.data(), lambda.data())
                        : g::constrained_dynamics(q.data(), v.data(), tau.data(), ref.data(), kp.data(), kd.data(),
                                                  active.data(), qdd.data(), lambda.data());
    const bool jump_ok = g::velocity_jump(q.data(), v.data(), active.data(), v_plus.data(), Lambda.data());
    if (set.dim() == 0) {  // nothing active: ABA
      ASSERT_TRUE(ok && jump_ok);
      EXPECT_LT(test::rel_err(qdd, aba(model, data, q, v, tau, f_ext)), 1e-12);
      EXPECT_EQ(lambda.cwiseAbs().maxCoeff(), 0.0);
      EXPECT_EQ(v_plus, v);
      continue;
    }
    crba(model, data, q);
    set.compute_jacobian(model, data, q, v);
    const MatrixX J = set.J();
    if (Eigen::FullPivLU<MatrixX>(J).rank() < J.rows()) {
      EXPECT_FALSE(ok);
      EXPECT_FALSE(jump_ok);
      ++dependent;
      continue;
    }
    ASSERT_TRUE(ok && jump_ok);
    ++solved;
    ConstrainedWorkspace ws(model, set.dim());
    const SolveReport report =
        constrained_forward_dynamics(model, data, ws, set, q, v, tau, f_ext, ConstrainedMethod::RangeSpace);
    ASSERT_TRUE(report.ok()) << report.message;
    JumpOptions options;
    options.form = JumpForm::Full;
    const JumpResult jump = velocity_jump(model, data, MatrixX(0, model.nv), J, v, options);
    ASSERT_TRUE(jump.ok()) << jump.message;
    // The set's multipliers at their declared places; zeros for the inactive ones.
    VectorX expect_lambda = VectorX::Zero(g::m), expect_Lambda = VectorX::Zero(g::m);
    for (int c = 0, at = 0, from = 0; c < 7; at += rows[c], ++c)
      if (active[c] != 0.0) {
        expect_lambda.segment(at, rows[c]) = ws.lambda.segment(from, rows[c]);
        expect_Lambda.segment(at, rows[c]) = jump.Lambda.segment(from, rows[c]);
        from += rows[c];
      }
    for (const double e : {test::rel_err(qdd, data.ddq), test::rel_err(lambda, expect_lambda),
                           test::rel_err(v_plus, jump.v_plus), test::rel_err(Lambda, expect_Lambda)})
      worst = std::max(worst, e);
    EXPECT_LT(test::rel_err(qdd, data.ddq), 1e-12);
    EXPECT_LT(test::rel_err(lambda, expect_lambda), 1e-12);
    EXPECT_LT(test::rel_err(v_plus, jump.v_plus), 1e-12);
    EXPECT_LT(test::rel_err(Lambda, expect_Lambda), 1e-12);
    EXPECT_LT((J * v_plus).cwiseAbs().maxCoeff(), 1e-9 * (1.0 + v.norm()));
  }
  EXPECT_GT(solved, 40);
  EXPECT_GT(dependent, 10);
  std::printf("[ info ] %d subsets solved (worst relative difference %.1e), %d dependent\n", solved, worst, dependent);
}

// body_states (CodegenOptions::state_frames) of solo12's four feet: each foot's body placement
// and body-frame velocity as forward_kinematics() gives them.
TEST(GeneratedKernels, BodyStatesMatchForwardKinematics) {
  const Model model = test::load_with_armature("solo12");
  namespace g = generated::test_solo12;
  ASSERT_EQ(g::state_frames, 4);
  const char* feet[] = {"FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"};
  std::mt19937 rng(4);
  Data data(model);
  for (int trial = 0; trial < 10; ++trial) {
    const VectorX q = random_configuration(model, rng), v = test::random_vector(model.nv, rng);
    forward_kinematics(model, data, q, v);
    std::vector<double> out(18 * 4);
    g::body_states(q.data(), v.data(), out.data());
    for (int f = 0; f < 4; ++f) {
      const Index b = model.frames[model.frame_id(feet[f])].parent;
      Eigen::Matrix<double, 18, 1> expect;
      expect << data.oMi[b].R.reshaped(), data.oMi[b].p, data.v[b].v, data.v[b].w;
      EXPECT_LT((Eigen::Map<const Eigen::Matrix<double, 18, 1>>(out.data() + 18 * f) - expect).cwiseAbs().maxCoeff(),
                1e-10 * (1.0 + expect.cwiseAbs().maxCoeff()))
          << feet[f];
    }
  }
  CodegenOptions options;
  options.state_frames = {"world_mark"};
  EXPECT_THROW(generate_kernels(test::mixed_model(true), "bad", options), std::invalid_argument);
  // On the command line.
  const test::ScratchDir dir("codegen_state");
  const auto r =
      test::run_cli("codegen " + test::model_path("ur5") + " --name ur5_state --state tool0 -o " + dir.path());
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string header = file_text(dir.path() + "/ur5_state.hpp");
  EXPECT_NE(header.find("void body_states(const double* q, const double* v, double* out);"), std::string::npos);
  EXPECT_NE(header.find("state_frames = 1;"), std::string::npos);
}

// aba_contacts (CodegenOptions::contacts) of solo12's four feet (one with an offset, one on a
// slope): the forces and accelerations of the runtime's contact_forces() and aba(), with some
// feet pushing and others not, and a refusal naming a bad declaration.
TEST(GeneratedKernels, AbaContactsMatchTheRuntimeContactsAndAba) {
  const Model model = test::load_with_armature("solo12");
  namespace g = generated::test_solo12;
  ASSERT_EQ(g::contacts, 4);
  std::vector<ElasticContact> contacts(4);
  const char* feet[] = {"FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"};
  for (int f = 0; f < 4; ++f) {
    contacts[f].frame = feet[f];
    contacts[f].frame_id = model.frame_id(feet[f]);
    contacts[f].stiffness = 1e4 * (1 + f);
    contacts[f].damping = 30.0 + 10 * f;
    contacts[f].friction = 0.5 + 0.2 * f;
    contacts[f].slip_velocity = 0.01 * (1 + f);
  }
  contacts[0].offset = Vector3(0.01, -0.02, 0.005);
  contacts[1].surface = Surface::plane(Vector3(0, 0, 0.05), Vector3(0.3, 0.1, 1.0).normalized());
  std::vector<double> law;
  for (const ElasticContact& c : contacts) law.insert(law.end(), {c.stiffness, c.damping, c.friction, c.slip_velocity});
  std::mt19937 rng(7);
  Data data(model);
  int pushing = 0, free = 0;
  for (int trial = 0; trial < 40; ++trial) {
    VectorX q = random_configuration(model, rng);
    const VectorX v = test::random_vector(model.nv, rng), tau = test::random_vector(model.nv, rng);
    // The base moved along z so that the feet straddle their planes.
    forward_kinematics(model, data, q);
    std::vector<double> heights;
    for (const ElasticContact& c : contacts) {
      Vector3 n;
      heights.push_back(c.surface.distance(
          data.oMi[model.frames[c.frame_id].parent].act_point(model.frames[c.frame_id].placement.act_point(c.offset)),
          n));
    }
    std::sort(heights.begin(), heights.end());
    q[2] -= 0.5 * (heights[1] + heights[2]) + 0.01 * std::normal_distribution<double>()(rng);
    forward_kinematics(model, data, q, v);
    std::vector<Force> f_ext(static_cast<std::size_t>(model.njoints), Force::Zero());
    VectorX expect_f(12);
    contact_forces(model, data, contacts, f_ext, expect_f);
    const VectorX expect_qdd = aba(model, data, q, v, tau, f_ext);
    VectorX qdd(model.nv), f(12);
    g::aba_contacts(q.data(), v.data(), tau.data(), law.data(), qdd.data(), f.data());
    EXPECT_LT(test::rel_err(qdd, expect_qdd), 1e-12) << trial;
    EXPECT_LT((f - expect_f).cwiseAbs().maxCoeff(), 1e-12 * (1.0 + expect_f.cwiseAbs().maxCoeff())) << trial;
    for (int c = 0; c < 4; ++c) {
      const bool on = expect_f.segment<3>(3 * c).squaredNorm() > 0;
      pushing += on;
      free += !on;
      if (!on) {
        EXPECT_EQ(f.segment<3>(3 * c), Vector3::Zero()) << trial;  // exactly: no force, not a tiny one
      }
    }
  }
  EXPECT_GT(pushing, 20);
  EXPECT_GT(free, 20);
  CodegenOptions options;
  options.contacts = {{"no_such_frame"}};
  EXPECT_THROW(generate_kernels(model, "bad", options), std::invalid_argument);
  options.contacts = {{"FL_FOOT", Vector3::Zero(), Vector3::Zero(), Vector3::Zero()}};
  try {
    generate_kernels(model, "bad", options);
    ADD_FAILURE() << "a zero normal was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("FL_FOOT"), std::string::npos) << e.what();
  }
  // On the command line.
  const test::ScratchDir dir("codegen_contacts");
  const std::string ur5 = "codegen " + test::model_path("ur5") + " -o " + dir.path();
  const auto r = test::run_cli(ur5 + " --name ur5_contacts --contact tool0,0,0,0.01 --contact wrist_3_link");
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string header = file_text(dir.path() + "/ur5_contacts.hpp");
  EXPECT_NE(header.find("void aba_contacts(const double* q, const double* v, const double* tau, const double* law"),
            std::string::npos);
  EXPECT_NE(header.find("contacts = 2;"), std::string::npos);
  const auto bad = test::run_cli(ur5 + " --name ur5_bad --contact tool0,0,0");
  EXPECT_NE(bad.code, 0);
  EXPECT_NE(bad.output.find("--contact 'tool0,0,0'"), std::string::npos) << bad.output;
}

// An unknown or repeated locked joint is refused, naming it.
TEST(GeneratedKernels, ConstrainedLayoutPlacesEachDeclaredConstraint) {
  const Model m = test::mixed_model(true);
  // A weld, a point loop, three locks and two distances.
  const ConstrainedLayout l =
      constrained_layout(m, {{"tip", true}, {"leg", false, "arm2"}}, {"j_sph", "root", "j_prism"},
                         {{"tip", "leg"}, {"arm3", "world_mark"}});
  ASSERT_EQ(l.declared.size(), 7u);
  const std::vector<std::array<int, 4>> expect = {
      {0, 0, 12, 6},  {12, 6, 12, 3}, {24, 9, 4, 3}, {28, 12, 7, 6},
      {35, 18, 1, 1}, {36, 19, 1, 1}, {37, 20, 1, 1}};  // ref, row, nq, rows
  for (std::size_t c = 0; c < expect.size(); ++c) {
    const auto& d = l.declared[c];
    EXPECT_EQ((std::array<int, 4>{d.ref, d.row, d.nq, d.rows}), expect[c]) << c;
  }
  EXPECT_EQ(l.ref_size, 38);
  EXPECT_EQ(l.frame_rows, 9);
  EXPECT_EQ(l.lock_rows, 10);
  EXPECT_EQ(l.m, 21);
  EXPECT_THROW(constrained_layout(m, {}, {}, {{"tip", "tip"}}), std::invalid_argument);  // to itself
  try {  // ur5's base_link and base are both on the world (fixed base)
    constrained_layout(load_urdf(test::model_path("ur5")), {}, {}, {{"base_link", "base"}});
    ADD_FAILURE() << "accepted a distance between two frames on the world";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("both on the world"), std::string::npos) << e.what();
  }
  EXPECT_THROW(constrained_layout(m, {}, {}, {{"tip", "nope"}}), std::invalid_argument);    // unknown
  EXPECT_THROW(constrained_layout(m, {{"tip", false, "tip"}}, {}), std::invalid_argument);  // held to itself
  EXPECT_THROW(constrained_layout(m, {{"world_mark", true}}, {}), std::invalid_argument);   // on the world
  EXPECT_THROW(constrained_layout(m, {}, {"j_rev", "j_rev"}), std::invalid_argument);       // locked twice
  EXPECT_THROW(constrained_layout(m, {{"nope", true}}, {}), std::invalid_argument);
  // Other masks: their axes' rows; a bad axis list is an error naming the frame.
  EXPECT_EQ(constrained_layout(m, {held_frame("tip", "xrz")}, {}).m, 2);
  EXPECT_EQ(held_frame("tip", "xrz").kind(), "xrz");
  EXPECT_EQ(held_frame("tip", "point").kind(), "point");
  try {
    held_frame("tip", "hinge");
    ADD_FAILURE() << "accepted kind 'hinge'";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("'tip'"), std::string::npos) << e.what();
  }
}

TEST(GeneratedKernels, LockedJointsAreChecked) {
  const Model m = test::mixed_model(true);
  CodegenOptions options;
  for (const auto& [joints, expect] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"no_such_joint"}, "no_such_joint"}, {{"j_rev", "j_rev"}, "locked twice"}}) {
    options.locked_joints = joints;
    try {
      generate_kernels(m, "bad", options);
      ADD_FAILURE() << "accepted " << joints[0];
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(expect), std::string::npos) << e.what();
    }
  }
  // On the command line: a lock is declared after the held frame; an unknown joint is named.
  const test::ScratchDir dir("codegen_lock");
  const auto ok = test::run_cli("codegen " + test::model_path("ur5") + " --name ur5_lock --hold point:tool0 --lock " +
                                "shoulder_pan_joint -o " + dir.path());
  ASSERT_EQ(ok.code, 0) << ok.output;
  const std::string header = file_text(dir.path() + "/ur5_lock.hpp");
  EXPECT_NE(header.find("locked_joints = 1;"), std::string::npos) << header;
  EXPECT_NE(header.find("inline constexpr int m = 4;"), std::string::npos) << header;
  EXPECT_NE(header.find("const double* active"), std::string::npos) << header;
  const auto bad = test::run_cli("codegen " + test::model_path("ur5") + " --name x --lock elbow -o " + dir.path());
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.output.find("elbow"), std::string::npos) << bad.output;
}

TEST(GeneratedKernels, HeldFramesAreChecked) {
  const Model m = test::mixed_model(true);
  // generate_kernels with `held` throws std::invalid_argument saying `why`.
  auto expect_rejected = [&m](std::vector<HeldFrame> held, const std::string& why) {
    CodegenOptions options;
    options.held_frames = std::move(held);
    try {
      generate_kernels(m, "bad", options);
      ADD_FAILURE() << "accepted, expected: " << why;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  expect_rejected({{"no_such_frame", true}}, "no_such_frame");
  expect_rejected({{"world_mark", true}}, "on the world");
  expect_rejected({{"tip", false, "no_such_frame"}}, "no_such_frame");  // a loop to an unknown frame
  expect_rejected({{"tip", true, "tip"}}, "held to itself");
  const auto r = test::run_cli("codegen " + test::model_path("ur5") + " --name x --hold tool0 -o /tmp");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("expected weld:FRAME, point:FRAME"), std::string::npos) << r.output;
  const auto kind = test::run_cli("codegen " + test::model_path("ur5") + " --name x --hold hinge:tool0 -o /tmp");
  EXPECT_EQ(kind.code, 2);
  EXPECT_NE(kind.output.find("'weld' or 'point' or an axis list"), std::string::npos) << kind.output;
  // A loop from the CLI: FRAME@OTHER.
  test::ScratchDir dir("codegen_loop");
  const auto loop =
      test::run_cli("codegen " + test::model_path("ur5") + " --name x --hold point:tool0@base_link -o " + dir.path());
  ASSERT_EQ(loop.code, 0) << loop.output;
  EXPECT_NE(file_text(dir.path() + "/x.hpp").find("point tool0 to base_link"), std::string::npos);
  // A distance from the CLI: FRAME@OTHER, after the locks.
  const auto dist = test::run_cli("codegen " + test::model_path("ur5") + " --name y --hold weld:tool0 --lock " +
                                  "elbow_joint --distance tool0@upper_arm_link -o " + dir.path());
  ASSERT_EQ(dist.code, 0) << dist.output;
  const std::string hdr = file_text(dir.path() + "/y.hpp");
  EXPECT_NE(hdr.find("weld tool0, lock elbow_joint, distance tool0 to upper_arm_link"), std::string::npos) << hdr;
  EXPECT_NE(hdr.find("inline constexpr int m = 8;"), std::string::npos) << hdr;
  const auto bad = test::run_cli("codegen " + test::model_path("ur5") + " --name z --distance tool0 -o " + dir.path());
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.output.find("expected FRAME@OTHER"), std::string::npos) << bad.output;
}

}  // namespace
}  // namespace articula
