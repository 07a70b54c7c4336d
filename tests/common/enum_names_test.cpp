// The enum <-> text tables (include/articula/common/enum_names.hpp): canonical names, aliases,
// the parse error's wording, and a round trip through every table of the library.
#include "articula/common/enum_names.hpp"

#include <gtest/gtest.h>

#include "articula/engine/brake.hpp"
#include "articula/engine/robot.hpp"
#include "articula/engine/simulator.hpp"
#include "articula/engine/telemetry.hpp"
#include "articula/model/joint.hpp"
#include "articula/solvers/activation.hpp"
#include "articula/solvers/constrained_dynamics.hpp"

namespace articula {
namespace {

enum class Color { Red, Green, Blue, Unnamed };
constexpr EnumNames<Color, 4> kColors{
    {{Color::Red, "red"}, {Color::Green, "green"}, {Color::Green, "vert"}, {Color::Blue, "blue"}}};

std::string parse_error(std::string_view text) {
  try {
    parse_enum(kColors, text, "color");
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "no error";
}

TEST(EnumNames, CanonicalNamesAliasesAndErrors) {
  EXPECT_EQ(enum_name(kColors, Color::Green), "green");
  EXPECT_EQ(enum_name(kColors, Color::Unnamed), "?");
  EXPECT_EQ(parse_enum(kColors, "vert", "color"), Color::Green);
  EXPECT_EQ(parse_enum(kColors, "blue", "color"), Color::Blue);
  EXPECT_EQ(enum_choices(kColors), "red, green/vert or blue");
  EXPECT_EQ(parse_error("Red"), "unknown color 'Red' (expected red, green/vert or blue)");
  EXPECT_EQ(parse_error(""), "unknown color '' (expected red, green/vert or blue)");
}

template <class E, class Parse>
void round_trip(std::initializer_list<E> values, Parse parse) {
  for (E v : values) {
    EXPECT_NE(to_string(v), "?");
    EXPECT_EQ(parse(std::string(to_string(v))), v) << to_string(v);
  }
}

TEST(EnumNames, EveryLibraryEnumRoundTrips) {
  round_trip({JumpForm::Auto, JumpForm::Full, JumpForm::Range, JumpForm::Projector, JumpForm::Minimal,
              JumpForm::Locks, JumpForm::Naive, JumpForm::None},
             parse_jump_form);
  round_trip({ConstrainedMethod::Auto, ConstrainedMethod::Kkt, ConstrainedMethod::RangeSpace,
              ConstrainedMethod::NullSpace, ConstrainedMethod::Hybrid},
             parse_method);
  round_trip({Integrator::ExplicitEuler, Integrator::SemiImplicitEuler, Integrator::RK4, Integrator::DormandPrince},
             parse_integrator);
  round_trip({SensorType::Encoder, SensorType::Effort, SensorType::Imu, SensorType::ForceTorque, SensorType::Position},
             parse_sensor_type);
  round_trip({BrakeKind::Friction, BrakeKind::Pin}, parse_brake_kind);
  round_trip({LogFormat::Csv, LogFormat::Hdf5}, parse_log_format);
  for (JointType t :
       {JointType::Revolute, JointType::Continuous, JointType::Prismatic, JointType::Spherical, JointType::FreeFlyer})
    EXPECT_NE(to_string(t), "?");
  for (SolveStatus s : {SolveStatus::Ok, SolveStatus::Redundant, SolveStatus::Inconsistent, SolveStatus::Singular,
                        SolveStatus::NonFinite})
    EXPECT_NE(to_string(s), "?");
  for (BrakeState s :
       {BrakeState::Released, BrakeState::Engaging, BrakeState::Slipping, BrakeState::Stuck, BrakeState::Locked})
    EXPECT_NE(to_string(s), "?");
  EXPECT_EQ(to_string(RunStatus::StepTooSmall), "step_too_small");
  EXPECT_EQ(parse_jump_form("consistent"), JumpForm::Auto);
  EXPECT_EQ(parse_method("null_space"), ConstrainedMethod::NullSpace);
  EXPECT_EQ(parse_log_format("h5"), LogFormat::Hdf5);
}

TEST(EnumNames, LibraryErrorsNameTheTextAndTheChoices) {
  auto message = [](auto parse, const std::string& text) {
    try {
      parse(text);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(parse_jump_form, "sideways"),
            "unknown jump form 'sideways' (expected auto/consistent, full, range, projector, minimal, locks, naive "
            "or none)");
  EXPECT_EQ(message(parse_method, "qr"),
            "unknown constrained-dynamics method 'qr' (expected auto, kkt, range/range_space, null/null_space or "
            "hybrid)");
  EXPECT_EQ(message(parse_integrator, "rk45"),
            "unknown integrator 'rk45' (expected euler, semi_implicit_euler, rk4 or dopri5)");
  EXPECT_EQ(message(parse_sensor_type, "lidar"),
            "unknown sensor type 'lidar' (expected encoder, effort, imu, force_torque or position)");
  EXPECT_EQ(message(parse_brake_kind, "disc"), "unknown brake kind 'disc' (expected friction or pin)");
  EXPECT_EQ(message(parse_log_format, "json"), "unknown log format 'json' (expected csv or hdf5/h5)");
}

}  // namespace
}  // namespace articula
