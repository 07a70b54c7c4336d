// The linear feedback controller by signal names (engine/feedback.hpp): signal values against
// the kinematics, the command law u = bias + Σ gain (signal − target), and name errors.
#include "articula/engine/feedback.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "test_support.hpp"

namespace articula {
namespace {

TEST(Feedback, SignalsMatchTheKinematics) {
  Robot robot = Robot::from_urdf(test::model_path("segway"), true);
  const Model& model = robot.model();
  VectorX q = neutral(model), v = VectorX::Zero(model.nv);
  const int axle_q = model.idx_q[model.joint_id("axle")], axle_v = model.idx_v[model.joint_id("axle")];
  q[axle_q] = 0.3;   // the body pitched about +y relative to the upright wheel
  v[axle_v] = -0.7;  // and pitching back
  v[4] = 0.25;       // wheel spin about its (world) y axis
  EXPECT_DOUBLE_EQ(feedback_signal(model, "q.axle", q, v), 0.3);
  EXPECT_DOUBLE_EQ(feedback_signal(model, "v.axle", q, v), -0.7);
  EXPECT_NEAR(feedback_signal(model, "pitch.body", q, v), 0.3, 1e-15);
  EXPECT_NEAR(feedback_signal(model, "roll.body", q, v), 0.0, 1e-15);
  EXPECT_NEAR(feedback_signal(model, "yaw.body", q, v), 0.0, 1e-15);
  EXPECT_NEAR(feedback_signal(model, "rate.wheel.y", q, v), 0.25, 1e-15);
  EXPECT_NEAR(feedback_signal(model, "rate.body.y", q, v), 0.25 - 0.7, 1e-15);
  // Each tilt angle is exact for a rotation about its own axis: base rotated about x, then z.
  for (const auto& [axis, name] : {std::pair{Vector3::UnitX(), "roll"}, std::pair{Vector3::UnitZ(), "yaw"}}) {
    VectorX qr = neutral(model);
    const Quaternion rot(Eigen::AngleAxisd(-0.4, axis));
    qr.segment<4>(3) << rot.x(), rot.y(), rot.z(), rot.w();
    EXPECT_NEAR(feedback_signal(model, std::string(name) + ".wheel", qr, v), -0.4, 1e-14) << name;
  }
}

TEST(Feedback, CommandIsBiasPlusGainTimesError) {
  Robot robot = Robot::from_urdf(test::model_path("pendulum3r"));
  robot.add_motor({.name = "m1", .joint = "joint1"});
  robot.add_motor({.name = "m3", .joint = "joint3"});
  const Controller c = feedback_controller(robot,
                                           {{"m1", "q.joint1", -10.0, 0.5},
                                            {"m1", "v.joint1", -2.0, 0.0},
                                            {"m3", "q.joint2", 3.0, 0.0},
                                            {"m3", "pitch.tip", 1.0, 0.1}},
                                           {{"m3", 0.25}});
  const Model& model = robot.model();
  VectorX q(3), v(3), u = VectorX::Constant(2, 99.0);
  q << 0.2, -0.1, 0.3;
  v << 1.5, 0.0, 0.0;
  ASSERT_TRUE(c(0.0, q, v, VectorX(), u));
  EXPECT_DOUBLE_EQ(u[0], -10.0 * (0.2 - 0.5) - 2.0 * 1.5);
  EXPECT_NEAR(u[1], 0.25 + 3.0 * (-0.1) + feedback_signal(model, "pitch.tip", q, v) - 0.1, 1e-15);
}

TEST(Feedback, UnknownNamesListTheValidOnes) {
  Robot robot = Robot::from_urdf(test::model_path("pendulum3r"));
  robot.add_motor({.name = "m1", .joint = "joint1"});
  auto message = [&](const FeedbackTerm& term) {
    try {
      feedback_controller(robot, {term});
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message({"m1", "q.joint9", 1.0}).find("joint1, joint2, joint3"), std::string::npos);
  EXPECT_NE(message({"m1", "pitch.nowhere", 1.0}).find("frames: "), std::string::npos);
  EXPECT_NE(message({"m1", "rate.tip.w", 1.0}).find(".x, .y or .z"), std::string::npos);
  EXPECT_NE(message({"m1", "speed.joint1", 1.0}).find("unknown kind 'speed'"), std::string::npos);
  EXPECT_NE(message({"m9", "q.joint1", 1.0}).find("m1"), std::string::npos);
  EXPECT_NE(message({"m1", "q.joint1", std::nan("")}).find("finite"), std::string::npos);
}

}  // namespace
}  // namespace articula
