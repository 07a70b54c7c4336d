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

TEST(AxisMask, ParsesNamesAndSubsets) {
  EXPECT_EQ(AxisMask::parse("weld").count(), 6);
  EXPECT_EQ(AxisMask::parse("point").count(), 3);
  EXPECT_EQ(AxisMask::parse("xzry").to_string(), "xzry");
  EXPECT_THROW(AxisMask::parse(""), std::invalid_argument);
  EXPECT_THROW(AxisMask::parse("xx"), std::invalid_argument);
}

}  // namespace
}  // namespace articula
