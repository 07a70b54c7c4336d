// ModelBuilder (src/model/model_builder.cpp), Model look-ups (src/model/model.cpp) and
// Data sizing (src/model/data.cpp): depth-first numbering, index tables, fixed-link merging,
// frames, and the errors thrown for bad input.
#include <gtest/gtest.h>

#include "test_models.hpp"

namespace articula {
namespace {

using test::asymmetric_inertia;
using test::rot;
using test::throws_with;

const Inertia kBody =
    Inertia::from_com(1.0, Vector3(0.1, 0, 0), Vector3(0.01, 0.02, 0.025).asDiagonal().toDenseMatrix());

TEST(ModelBuilder, NumbersBodiesDepthFirst) {
  // Added out of depth-first order: a, b (both on the world), then a's child c, then c's child d.
  ModelBuilder b("tree");
  b.add_body("a", "", "ja", JointType::Revolute, {}, {0, 0, 1}, kBody);
  b.add_body("b", "", "jb", JointType::Prismatic, {}, {1, 0, 0}, kBody);
  b.add_body("c", "a", "jc", JointType::Spherical, {}, Vector3::Zero(), kBody);
  b.add_body("d", "c", "jd", JointType::Continuous, {}, {0, 1, 0}, kBody);
  const Model m = b.build();
  ASSERT_EQ(m.njoints, 4);
  EXPECT_EQ(m.body_names, (std::vector<std::string>{"a", "c", "d", "b"}));
  EXPECT_EQ(m.joint_names, (std::vector<std::string>{"ja", "jc", "jd", "jb"}));
  EXPECT_EQ(m.parents, (std::vector<Index>{kWorld, 0, 1, kWorld}));
  EXPECT_EQ(m.nq, 1 + 4 + 1 + 1);
  EXPECT_EQ(m.nv, 1 + 3 + 1 + 1);
  EXPECT_EQ(m.idx_q, (std::vector<int>{0, 1, 5, 6}));
  EXPECT_EQ(m.idx_v, (std::vector<int>{0, 1, 4, 5}));
  EXPECT_EQ(m.nq_joint, (std::vector<int>{1, 4, 1, 1}));
  EXPECT_EQ(m.nv_joint, (std::vector<int>{1, 3, 1, 1}));
  EXPECT_EQ(m.subtree_end, (std::vector<Index>{3, 3, 3, 4}));
  // λ(k): the previous dof of the same joint, else the last dof of the parent joint.
  EXPECT_EQ(m.dof_parent, (std::vector<int>{-1, 0, 1, 2, 3, -1}));
  EXPECT_EQ(m.dof_joint, (std::vector<Index>{0, 1, 1, 1, 2, 3}));
  EXPECT_EQ(m.S.rows(), 6);
  EXPECT_EQ(m.S.cols(), m.nv);
  EXPECT_EQ(m.name, "tree");
  // One body frame per body, in body order.
  ASSERT_EQ(m.frames.size(), 4u);
  for (Index i = 0; i < m.njoints; ++i) {
    EXPECT_EQ(m.frames[i].name, m.body_names[i]);
    EXPECT_EQ(m.frames[i].parent, i);
    EXPECT_EQ(m.frames[i].type, FrameType::Body);
  }
  // Parents precede children; a subtree is contiguous.
  for (Index i = 0; i < m.njoints; ++i) {
    EXPECT_LT(m.parents[i], i);
    for (Index j = i + 1; j < m.subtree_end[i]; ++j) {
      Index k = j;
      while (k != kWorld && k != i) k = m.parents[k];
      EXPECT_EQ(k, i) << j << " is not below " << i;
    }
  }
}

TEST(ModelBuilder, LimitsAndDefaults) {
  ModelBuilder b;
  JointLimits lim{-1.0, 2.0, 3.0, 4.0, 0.5, 0.25, 0.125};
  b.add_body("a", "", "ja", JointType::Revolute, {}, {0, 0, 2}, kBody, lim);
  b.add_body("c", "a", "jc", JointType::Continuous, {}, {0, 0, 1}, kBody, lim);
  b.add_body("s", "c", "js", JointType::Spherical, {}, Vector3::Zero(), kBody);
  const Model m = b.build();
  EXPECT_EQ(m.lower[0], -1.0);
  EXPECT_EQ(m.upper[0], 2.0);
  EXPECT_EQ(m.velocity_limit[0], 3.0);
  EXPECT_EQ(m.effort_limit[0], 4.0);
  EXPECT_EQ(m.damping[0], 0.5);
  EXPECT_EQ(m.friction[0], 0.25);
  EXPECT_EQ(m.armature[0], 0.125);
  // The axis is normalized.
  EXPECT_EQ(m.axes[0], Vector3(0, 0, 1));
  // Continuous joints have no position limits whatever was given.
  EXPECT_TRUE(std::isinf(m.lower[1]) && m.lower[1] < 0);
  EXPECT_TRUE(std::isinf(m.upper[1]) && m.upper[1] > 0);
  // Quaternion coordinates are unlimited; defaults are infinite limits and zero damping.
  for (int k = 2; k < 6; ++k) EXPECT_TRUE(std::isinf(m.lower[k]) && std::isinf(m.upper[k]));
  for (int k = 2; k < 5; ++k) {
    EXPECT_TRUE(std::isinf(m.velocity_limit[k]));
    EXPECT_EQ(m.armature[k], 0.0);
    EXPECT_EQ(m.damping[k], 0.0);
  }
  EXPECT_EQ(m.gravity.v, Vector3(0, 0, -9.81));
}

TEST(ModelBuilder, FixedLinksMergeInertiaAndKeepFrames) {
  const Transform Xf{rot(0.5, {0, 1, 0}), {0.3, 0.1, -0.2}};
  const Transform Xc{rot(-0.4, {1, 0, 0}), {0.0, 0.4, 0.0}};
  const Inertia I1 = asymmetric_inertia(2.0, {0.1, 0.0, 0.0});
  const Inertia I2 = asymmetric_inertia(0.5, {0.0, 0.2, 0.0});
  const Inertia I3 = asymmetric_inertia(0.7, {0.0, 0.0, 0.1});
  ModelBuilder b;
  b.add_body("a", "", "ja", JointType::Revolute, {}, {0, 0, 1}, I1);
  b.add_fixed_link("f", "a", "jf", Xf, I2);
  b.add_body("c", "f", "jc", JointType::Revolute, Xc, {1, 0, 0}, I3);
  b.add_frame("user", "f", {rot(0.1, {0, 0, 1}), {0, 0, 1}});
  b.set_gravity({0, 0, -1.62});
  const Model m = b.build();
  ASSERT_EQ(m.njoints, 2);
  EXPECT_EQ(m.parents[1], 0);
  // c's joint placement is expressed in body a: Xf * Xc.
  EXPECT_TRUE(m.joint_placements[1].isApprox(Xf * Xc));
  // a carries f's inertia.
  EXPECT_LT((m.inertias[0].matrix() - (I1 + I2.transformed(Xf)).matrix()).norm(), 1e-14);
  EXPECT_DOUBLE_EQ(m.total_mass(), 3.2);
  EXPECT_EQ(m.gravity.v, Vector3(0, 0, -1.62));
  // Frames: bodies, then the fixed link, then the user frame, placed in their body.
  ASSERT_EQ(m.frames.size(), 4u);
  EXPECT_EQ(m.frames[2].name, "f");
  EXPECT_EQ(m.frames[2].type, FrameType::FixedLink);
  EXPECT_EQ(m.frames[2].parent, 0);
  EXPECT_TRUE(m.frames[2].placement.isApprox(Xf));
  EXPECT_EQ(m.frames[3].name, "user");
  EXPECT_EQ(m.frames[3].type, FrameType::User);
  EXPECT_TRUE(m.frames[3].placement.isApprox(Xf * Transform{rot(0.1, {0, 0, 1}), {0, 0, 1}}));
  EXPECT_EQ(m.frame_id("user"), 3);
  // A fixed link on the world is dropped from the dynamics but kept as a frame on the world.
  ModelBuilder w;
  w.add_fixed_link("ground", "", "", {rot(0.2, {1, 0, 0}), {1, 2, 3}}, I2);
  w.add_body("a", "ground", "ja", JointType::Revolute, {}, {0, 0, 1}, I1);
  const Model mw = w.build();
  EXPECT_DOUBLE_EQ(mw.total_mass(), 2.0);
  EXPECT_EQ(mw.frames[1].parent, kWorld);
  EXPECT_TRUE(mw.joint_placements[0].isApprox(Transform{rot(0.2, {1, 0, 0}), {1, 2, 3}}));
}

TEST(ModelBuilder, MixedModelIsConsistent) {
  for (bool floating : {false, true}) {
    const Model m = test::mixed_model(floating);
    EXPECT_EQ(m.njoints, 5);
    EXPECT_EQ(m.nq, (floating ? 7 : 1) + 4 + 1 + 1 + 1);
    EXPECT_EQ(m.nv, (floating ? 6 : 1) + 3 + 1 + 1 + 1);
    EXPECT_EQ(m.body_names, (std::vector<std::string>{"base", "arm1", "arm2", "arm3", "leg"}));
    EXPECT_TRUE(m.has_frame("tool") && m.has_frame("tip") && m.has_frame("world_mark"));
    EXPECT_EQ(m.frames[m.frame_id("tip")].parent, m.body_id("arm3"));
    EXPECT_EQ(m.frames[m.frame_id("world_mark")].parent, kWorld);
    EXPECT_NEAR(m.total_mass(), 3.0 + 1.5 + 0.8 + 0.3 + 0.5 + 1.2, 1e-14);
  }
}

TEST(ModelBuilder, RejectsBadInput) {
  auto base = [] {
    ModelBuilder b;
    b.add_body("a", "", "ja", JointType::Revolute, {}, {0, 0, 1}, kBody);
    b.add_fixed_link("f", "a", "jf", {}, kBody);
    return b;
  };
  using E = std::invalid_argument;
  EXPECT_TRUE(throws_with<E>(
      [&] {
        base().add_body("a", "", "jx", JointType::Revolute, {}, {0, 0, 1}, kBody);
      },
      {"'a'", "duplicate"}));
  EXPECT_TRUE(throws_with<E>(
      [&] {
        base().add_body("f", "", "jx", JointType::Revolute, {}, {0, 0, 1}, kBody);
      },
      {"'f'", "duplicate"}));
  EXPECT_TRUE(throws_with<E>(
      [&] {
        base().add_body("b", "a", "ja", JointType::Revolute, {}, {0, 0, 1}, kBody);
      },
      {"'ja'", "duplicate"}));
  EXPECT_TRUE(throws_with<E>(
      [&] {
        base().add_body("b", "a", "jf", JointType::Revolute, {}, {0, 0, 1}, kBody);
      },
      {"'jf'", "duplicate"}));
  EXPECT_TRUE(throws_with<E>(
      [&] {
        base().add_body("b", "nobody", "jb", JointType::Revolute, {}, {0, 0, 1}, kBody);
      },
      {"'nobody'", "unknown parent"}));
  EXPECT_TRUE(throws_with<E>(
      [&] {
        base().add_body("b", "a", "jb", JointType::Revolute, {}, {0, 0, 0}, kBody);
      },
      {"'jb'", "axis"}));
  EXPECT_TRUE(throws_with<E>(
      [&] {
        base().add_body("b", "a", "jb", JointType::Prismatic, {}, {0, 0, 0}, kBody);
      },
      {"'jb'", "axis"}));
  EXPECT_TRUE(throws_with<E>(
      [&] {
        base().add_body("b", "a", "jb", JointType::Revolute, {}, {0, std::nan(""), 1}, kBody);
      },
      {"'jb'", "axis"}));
  EXPECT_TRUE(throws_with<E>(
      [&] {
        base().add_body("", "a", "jb", JointType::Revolute, {}, {0, 0, 1}, kBody);
      },
      {"empty"}));
  Inertia neg = kBody;
  neg.m = -1.0;
  EXPECT_TRUE(throws_with<E>(
      [&] {
        base().add_body("b", "a", "jb", JointType::Revolute, {}, {0, 0, 1}, neg);
      },
      {"'b'", "negative mass"}));
  const Inertia tri = Inertia::from_com(1.0, Vector3::Zero(), Vector3(1.0, 1.0, 3.0).asDiagonal().toDenseMatrix());
  EXPECT_TRUE(throws_with<E>(
      [&] {
        base().add_body("b", "a", "jb", JointType::Revolute, {}, {0, 0, 1}, tri);
      },
      {"'b'", "triangle"}));
  EXPECT_TRUE(throws_with<E>([&] { base().add_fixed_link("g", "a", "jg", {}, tri); }, {"'g'", "triangle"}));
  EXPECT_TRUE(throws_with<E>(
      [&] {
        base().add_body("b", "a", "jb", JointType::Revolute, {}, {0, 0, 1}, kBody, JointLimits{1.0, -1.0});
      },
      {"'jb'", "lower limit"}));
  EXPECT_TRUE(throws_with<E>(
      [&] {
        base().add_body("b", "a", "jb", JointType::Revolute, {}, {0, 0, 1}, kBody,
                        JointLimits{-1, 1, 1, 1, 0, 0, -0.1});
      },
      {"'jb'", "negative"}));
  EXPECT_TRUE(throws_with<E>([&] { base().add_fixed_link("a", "a", "jg", {}, kBody); }, {"'a'", "duplicate"}));
  EXPECT_TRUE(throws_with<E>([&] { base().add_fixed_link("g", "nobody", "jg", {}, kBody); }, {"'nobody'"}));
  EXPECT_TRUE(throws_with<E>([&] { base().add_fixed_link("g", "a", "ja", {}, kBody); }, {"'ja'", "duplicate"}));
  EXPECT_TRUE(throws_with<E>([&] { base().add_frame("f", "a", {}); }, {"'f'", "duplicate"}));
  EXPECT_TRUE(throws_with<E>([&] { base().add_frame("g", "nobody", {}); }, {"'nobody'"}));
  Transform bad;
  bad.p.x() = std::numeric_limits<double>::infinity();
  EXPECT_TRUE(throws_with<E>(
      [&] {
        base().add_body("b", "a", "jb", JointType::Revolute, bad, {0, 0, 1}, kBody);
      },
      {"'jb'", "non-finite"}));
}

TEST(InertiaProblem, ClassifiesInertias) {
  EXPECT_EQ(inertia_problem(kBody), "");
  EXPECT_EQ(inertia_problem(Inertia::Zero()), "");
  Inertia I = kBody;
  I.m = -0.5;
  EXPECT_NE(inertia_problem(I).find("negative mass"), std::string::npos);
  I = kBody;
  I.Io(0, 1) += 0.1;
  EXPECT_NE(inertia_problem(I).find("symmetric"), std::string::npos);
  I = Inertia::from_com(1.0, Vector3::Zero(), Vector3(-0.1, 1.0, 1.0).asDiagonal().toDenseMatrix());
  EXPECT_NE(inertia_problem(I).find("positive semi-definite"), std::string::npos);
  I = Inertia::from_com(1.0, Vector3::Zero(), Vector3(0.1, 0.1, 0.5).asDiagonal().toDenseMatrix());
  EXPECT_NE(inertia_problem(I).find("triangle"), std::string::npos);
  I = kBody;
  I.Io(2, 2) = std::nan("");
  EXPECT_NE(inertia_problem(I).find("non-finite"), std::string::npos);
  I = Inertia::Zero();
  I.Io(0, 0) = 1.0;
  EXPECT_NE(inertia_problem(I).find("zero mass"), std::string::npos);
  // A point mass and a thin rod (degenerate but physical) are accepted.
  EXPECT_EQ(inertia_problem(Inertia::from_com(2.0, Vector3(1, 2, 3), Matrix3::Zero())), "");
  EXPECT_EQ(inertia_problem(Inertia::from_com(2.0, Vector3::Zero(), Vector3(0, 1, 1).asDiagonal().toDenseMatrix())),
            "");
}

TEST(Model, LookupsThrowListingValidNames) {
  const Model m = test::mixed_model(true);
  EXPECT_EQ(m.joint_id("j_prism"), 2);
  EXPECT_EQ(m.body_id("leg"), 4);
  EXPECT_TRUE(m.has_joint("j_rev"));
  EXPECT_FALSE(m.has_joint("nope"));
  EXPECT_FALSE(m.has_frame("nope"));
  using E = std::invalid_argument;
  EXPECT_TRUE(
      throws_with<E>([&] { (void)m.joint_id("nope"); }, {"'nope'", "root", "j_sph", "j_prism", "j_cont", "j_rev"}));
  EXPECT_TRUE(throws_with<E>([&] { (void)m.body_id("nope"); }, {"'nope'", "base", "arm1", "leg"}));
  EXPECT_TRUE(throws_with<E>([&] { (void)m.frame_id("nope"); }, {"'nope'", "tip", "tool", "world_mark"}));
}

TEST(Model, SetArmatureAndAddFrame) {
  Model m = test::mixed_model(true);
  m.set_armature("j_sph", 0.3);
  EXPECT_EQ(m.armature.segment(m.idx_v[1], 3), Vector3::Constant(0.3));
  EXPECT_EQ(m.armature[m.idx_v[2]], 0.0);
  EXPECT_THROW(m.set_armature("j_sph", -1.0), std::invalid_argument);
  EXPECT_THROW(m.set_armature("j_sph", std::nan("")), std::invalid_argument);
  EXPECT_THROW(m.set_armature("nope", 1.0), std::invalid_argument);
  const std::size_t n = m.frames.size();
  const Index id = m.add_frame("extra", 2, {rot(0.1, {1, 0, 0}), {0, 0, 0.1}});
  EXPECT_EQ(id, static_cast<Index>(n));
  EXPECT_EQ(m.frame_id("extra"), id);
  EXPECT_EQ(m.frames[id].type, FrameType::User);
  EXPECT_THROW(m.add_frame("extra", 2, {}), std::invalid_argument);
  EXPECT_THROW(m.add_frame("other", 17, {}), std::invalid_argument);
  EXPECT_THROW(m.add_frame("other", -2, {}), std::invalid_argument);
  EXPECT_NO_THROW(m.add_frame("on_world", kWorld, {}));
}

TEST(Data, IsSizedFromTheModel) {
  const Model m = test::mixed_model(true);
  const Data d(m);
  EXPECT_EQ(d.oMi.size(), static_cast<std::size_t>(m.njoints));
  EXPECT_EQ(d.oMf.size(), m.frames.size());
  EXPECT_EQ(d.M.rows(), m.nv);
  EXPECT_EQ(d.M.cols(), m.nv);
  EXPECT_EQ(d.J.rows(), 6);
  EXPECT_EQ(d.J.cols(), m.nv);
  EXPECT_EQ(d.Jcom.cols(), m.nv);
  EXPECT_EQ(d.ddq.size(), m.nv);
  EXPECT_EQ(d.tau.size(), m.nv);
  EXPECT_EQ(d.U.cols(), m.nv);
}

}  // namespace
}  // namespace articula
