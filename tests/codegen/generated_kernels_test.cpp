// Generated kernels (articula codegen) against the runtime recursions, on every bundled model
// and both mixed models (every joint type), with armature, at random states.
#include <gtest/gtest.h>

#include <fstream>

#include "test_mixed_fixed.hpp"
#include "test_mixed_floating.hpp"
#include "test_models.hpp"
#include "test_panda.hpp"
#include "test_pendulum3r.hpp"
#include "test_rx130_standin.hpp"
#include "test_solo12.hpp"
#include "test_talos.hpp"
#include "test_ur5.hpp"
#include "test_ur5_exact.hpp"

namespace articula {
namespace {

struct Kernels {
  const char* digest;
  void (*rnea)(const double*, const double*, const double*, double*);
  void (*crba)(const double*, double*);
  void (*aba)(const double*, const double*, const double*, double*);
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
    if (c.name == "rx130_standin") k = ARTICULA_KERNELS(test_rx130_standin);
    if (c.name == "ur5") k = ARTICULA_KERNELS(test_ur5);
    if (c.name == "panda") k = ARTICULA_KERNELS(test_panda);
    if (c.name == "solo12") k = ARTICULA_KERNELS(test_solo12);
    if (c.name == "talos") k = ARTICULA_KERNELS(test_talos);
    out.push_back({c.name, with_armature(test::load(c)), k});
  }
  out.push_back(
      {"ur5 exact", with_armature(test::load(test::all_models()[2])), ARTICULA_KERNELS(test_ur5_exact), 1e-12});
  out.push_back({"mixed_fixed", with_armature(test::mixed_model(false)), ARTICULA_KERNELS(test_mixed_fixed)});
  out.push_back({"mixed_floating", with_armature(test::mixed_model(true)), ARTICULA_KERNELS(test_mixed_floating)});
  return out;
}

TEST(GeneratedKernels, MatchTheRecursionsOnEveryModel) {
  std::mt19937 rng(4242);
  for (const Case& c : cases()) {
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
  // talos: the legs and arms are separate branches, so M has structural zeros; the kernel
  // leaves them as they are (here NaN) and writes every entry of the pattern.
  Model model = test::load(test::all_models().back());
  test::add_armature(model);
  ASSERT_EQ(model.nv, generated::test_talos::nv);
  std::mt19937 rng(7);
  const VectorX q = random_configuration(model, rng);
  MatrixX M = MatrixX::Constant(model.nv, model.nv, std::nan(""));
  generated::test_talos::crba(q.data(), M.data());
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
