// Registration by name, enable/disable, references, errors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace articula {
namespace {

using ::testing::HasSubstr;

TEST(ConstraintSet, AddRemoveEnableDisableByName) {
  const Model model = load_urdf(test::model_path("ur5"));
  ConstraintSet set(model);
  set.add(std::make_shared<FrameConstraint>("tool", "tool0", AxisMask::point()));
  set.add(std::make_shared<JointLock>("brake", std::vector<std::string>{"elbow_joint", "wrist_1_joint"}), false);
  EXPECT_EQ(set.names(), (std::vector<std::string>{"tool", "brake"}));
  EXPECT_EQ(set.dim(), 3);
  set.enable("brake");
  EXPECT_EQ(set.dim(), 5);
  EXPECT_EQ(set.row_offset("brake"), 3);
  set.disable("tool");
  EXPECT_EQ(set.dim(), 2);
  EXPECT_EQ(set.row_offset("brake"), 0);
  EXPECT_FALSE(set.is_enabled("tool"));
  set.remove("tool");
  EXPECT_FALSE(set.contains("tool"));
  EXPECT_EQ(set.enabled_names(), std::vector<std::string>{"brake"});
}

TEST(ConstraintSet, RowsOfPicksOneConstraintsEntriesOfAStackedVector) {
  const Model model = load_urdf(test::model_path("ur5"));
  ConstraintSet set(model);
  set.add(std::make_shared<FrameConstraint>("tool", "tool0", AxisMask::point()));
  set.add(std::make_shared<JointLock>("brake", std::vector<std::string>{"elbow_joint", "wrist_1_joint"}));
  const VectorX stacked = VectorX::LinSpaced(7, 1.0, 7.0);  // longer than dim() = 5, as a workspace's λ
  EXPECT_EQ(set.rows_of("tool", stacked), Vector3(1.0, 2.0, 3.0));
  EXPECT_EQ(set.rows_of("brake", stacked), Eigen::Vector2d(4.0, 5.0));
  set.disable("tool");
  EXPECT_EQ(set.rows_of("brake", stacked), Eigen::Vector2d(1.0, 2.0));
  try {
    set.rows_of("tool", stacked);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("'tool' is disabled"));
  }
  try {
    set.rows_of("brake", VectorX::Zero(1));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("rows_of('brake')"));
    EXPECT_THAT(e.what(), HasSubstr("1 entries"));
  }
  EXPECT_THROW(set.rows_of("nope", stacked), std::invalid_argument);
}

TEST(ConstraintSet, ErrorsNameTheProblem) {
  const Model model = load_urdf(test::model_path("ur5"));
  ConstraintSet set(model);
  set.add(std::make_shared<FrameConstraint>("tool", "tool0"));
  try {
    set.add(std::make_shared<FrameConstraint>("tool", "ee_link"));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("'tool'"));
  }
  try {
    set.enable("nope");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("'nope'"));
    EXPECT_THAT(e.what(), HasSubstr("tool"));
  }
  try {
    set.add(std::make_shared<FrameConstraint>("bad", "no_such_frame"));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("no_such_frame"));
    EXPECT_THAT(e.what(), HasSubstr("'bad'"));
  }
  try {
    set.add(std::make_shared<JointLock>("lock", std::vector<std::string>{"elbow"}));
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("'elbow'"));
    EXPECT_THAT(e.what(), HasSubstr("elbow_joint"));  // lists the valid names
  }
  EXPECT_THROW(AxisMask::parse("xq"), std::invalid_argument);
  EXPECT_THROW(set.get("tool").set_baumgarte_frequency(-1.0), std::invalid_argument);
  EXPECT_THROW(WheelConstraint("w", "tool0", -0.1, Vector3::UnitY()), std::invalid_argument);
}

TEST(ConstraintSet, ReferenceIsThePoseAtEnable) {
  const Model model = load_urdf(test::model_path("ur5"));
  Data data(model);
  ConstraintSet set(model);
  auto& c = static_cast<FrameConstraint&>(set.add(std::make_shared<FrameConstraint>("tool", "tool0")));
  VectorX q(6);
  q << 0.1, -0.5, 0.7, 0.2, 0.3, -0.4;
  const VectorX v = VectorX::Zero(6);
  set.compute_rows(model, data, q, v);
  EXPECT_LT(set.error().norm(), 1e-12);
  forward_kinematics(model, data, q);
  EXPECT_TRUE(c.reference().isApprox(frame_placement(model, data, model.frame_id("tool0"))));
  // Moving without re-enabling: the error appears.
  VectorX q2 = q;
  q2[0] += 0.01;
  set.compute_rows(model, data, q2, v);
  EXPECT_GT(set.error().norm(), 1e-3);
  // Disable + enable at q2: new reference, zero error.
  set.disable("tool");
  set.enable("tool");
  set.compute_rows(model, data, q2, v);
  EXPECT_LT(set.error().norm(), 1e-12);
}

// compute_jacobian() (the jump's J-only path) writes the J of compute_rows() and leaves γ,
// the drift and the errors of the last compute_rows(); with a distance constraint (no
// placements-only path) it falls back to the velocity-level pass and still agrees.
TEST(ConstraintSet, ComputeJacobianMatchesComputeRowsAndKeepsGamma) {
  const Model model = load_urdf(test::model_path("talos_reduced"), BaseType::Floating);
  for (const bool with_distance : {false, true}) {
    Data data(model);
    ConstraintSet set(model);
    set.add(std::make_shared<FrameConstraint>("left", "left_sole_link"));
    set.add(std::make_shared<FrameConstraint>("right", "right_sole_link", AxisMask::parse("xyzrz")));
    set.add(std::make_shared<LoopConstraint>("hands", "gripper_left_motor_double_link",
                                             "gripper_right_motor_double_link", AxisMask::weld()));
    set.add(std::make_shared<JointLock>("head", std::vector<std::string>{"head_1_joint"}));
    if (with_distance) set.add(std::make_shared<DistanceConstraint>("span", "arm_left_4_link", "arm_right_4_link"));
    std::mt19937 rng(7);
    const VectorX q0 = random_configuration(model, rng);
    const VectorX v0 = VectorX::Random(model.nv);
    set.compute_rows(model, data, q0, v0);  // references at q0
    const VectorX q = random_configuration(model, rng);
    const VectorX v = VectorX::Random(model.nv);
    set.compute_rows(model, data, q, v);
    const MatrixX J = set.J();
    const VectorX gamma = set.gamma(), drift = set.drift(), error = set.error();
    const Matrix3 R_left = data.oMi[model.frames[model.frame_id("left_sole_link")].parent].R;
    // Different placements in data first, so that a stale pass would show.
    forward_kinematics(model, data, random_configuration(model, rng));
    EXPECT_TRUE(set.compute_jacobian(model, data, q, v));
    EXPECT_EQ((set.J() - J).cwiseAbs().maxCoeff(), 0.0);
    EXPECT_EQ(set.gamma(), gamma);
    EXPECT_EQ(set.drift(), drift);
    EXPECT_EQ(set.error(), error);
    EXPECT_TRUE(data.oMi[model.frames[model.frame_id("left_sole_link")].parent].R.isApprox(R_left, 0.0));
  }
}

TEST(AxisMask, ParsesNamesAndSubsets) {
  EXPECT_EQ(AxisMask::parse("weld").count(), 6);
  EXPECT_EQ(AxisMask::parse("point").count(), 3);
  EXPECT_EQ(AxisMask::parse("xzry").to_string(), "xzry");
  EXPECT_THROW(AxisMask::parse(""), std::invalid_argument);
  EXPECT_THROW(AxisMask::parse("xx"), std::invalid_argument);
}

}  // namespace
}  // namespace articula
