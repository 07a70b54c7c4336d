// `articula estop --brakes-model pin|friction|ideal` (docs/brakes.md): the pin model with zero
// extra delay and infinite holding torque is the ideal lock (0.0 mm apart), the friction model
// stops elsewhere, bad torques exit 2.
#include <gtest/gtest.h>

#include <filesystem>

#include "test_support.hpp"

namespace articula {
namespace {

std::string out_dir(const std::string& name) {
  return (std::filesystem::path(testing::TempDir()) / "articula_estop_brakes" / name).string();
}

TEST(EstopBrakesModel, PinIsTheIdealLockAndFrictionStopsElsewhere) {
  const test::CliResult pin = test::run_cli("estop --jump consistent --brakes-model pin -o " + out_dir("pin"));
  ASSERT_EQ(pin.code, 0) << pin.output;
  EXPECT_NE(pin.output.find("flange stop poses differ by 0.0 mm"), std::string::npos) << pin.output;
  EXPECT_TRUE(std::filesystem::exists(out_dir("pin") + "/estop_pin.csv"));
  const test::CliResult fr =
      test::run_cli("estop --jump consistent --brakes-model friction --brake-torque 600 -o " + out_dir("friction"));
  ASSERT_EQ(fr.code, 0) << fr.output;
  EXPECT_NE(fr.output.find("brake.joint_2.stick"), std::string::npos) << fr.output;
  EXPECT_EQ(fr.output.find("flange stop poses differ by 0.0 mm"), std::string::npos) << fr.output;
  const test::CliResult bad = test::run_cli("estop --brakes-model friction --brake-torque -3 -o " + out_dir("bad"));
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.output.find("--brake-torque: '-3'"), std::string::npos) << bad.output;
  EXPECT_EQ(test::run_cli("estop --brakes-model disc -o " + out_dir("bad")).code, 2);
}

}  // namespace
}  // namespace articula
