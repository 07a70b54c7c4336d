// Hostile URDF files through the command line (issue 16), as a child process: every command
// that reads a model (`info`, `run`, `bench`, `codegen`, `estop --model`) exits with 2 and a
// message naming the file, the element or attribute and the bad text; never a signal.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace articula {
namespace {

std::string quoted(const std::string& s) { return "'" + s + "'"; }
bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

const std::string kInertial =
    R"(<inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>)";

struct BadUrdf {
  std::string stem;                // file name without .urdf
  std::string body;                // inside <robot>
  std::vector<std::string> parts;  // what the message must name besides the file
};

// One file per class of issue 16: a link with no name, an empty name, printf conversions in an
// attribute, a malformed number (with unit), NaN, an empty number, and invalid UTF-8.
std::vector<BadUrdf> bad_urdfs() {
  const std::string a = "<link name=\"a\">" + kInertial + "</link>";
  return {
      {"noname", a + "<link>" + kInertial + "</link>", {"<link>", "no name"}},
      {"emptyname", a + "<link name=\"\">" + kInertial + "</link>", {"<link>", "empty name"}},
      {"percent",
       "<link name=\"a\"><inertial><origin xyz=\"%s%s%n\"/><mass value=\"1\"/></inertial></link>",
       {"link 'a'", "<origin>", "xyz", "%s%s%n"}},
      {"unit",
       "<link name=\"a\"><inertial><mass value=\"1.5kg\"/></inertial></link>",
       {"link 'a'", "<mass>", "value", "1.5kg"}},
      {"nan",
       "<link name=\"a\"><inertial><mass value=\"1\"/><inertia ixx=\"nan\"/></inertial></link>",
       {"link 'a'", "<inertia>", "ixx", "nan"}},
      {"empty", "<link name=\"a\"><inertial><mass value=\"\"/></inertial></link>", {"link 'a'", "value", "''"}},
      {"utf8", "<link name=\"a\xfe\">" + kInertial + "</link>", {"invalid UTF-8", "\\xfe"}},
  };
}

class UrdfCli : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const BadUrdf& b : bad_urdfs()) {
      const std::string path = dir_.path() + "/" + b.stem + ".urdf";
      std::ofstream(path, std::ios::binary) << "<?xml version=\"1.0\"?>\n<robot name=\"r\">\n"
                                            << b.body << "\n</robot>\n";
      std::ofstream(dir_.path() + "/" + b.stem + ".yaml") << "model: {urdf: " << b.stem << ".urdf}\nduration: 0.01\n";
    }
  }
  /// Runs `args` and checks exit code 2 with a message holding the file name and `parts`.
  void expect_refused(const std::string& args, const BadUrdf& b) const {
    const test::CliResult r = test::run_cli(args);
    EXPECT_EQ(r.code, 2) << args << "\n" << r.output;
    EXPECT_TRUE(contains(r.output, b.stem + ".urdf")) << args << "\n" << r.output;
    for (const std::string& p : b.parts)
      EXPECT_TRUE(contains(r.output, p)) << args << ": no '" << p << "'\n" << r.output;
  }
  std::string urdf(const BadUrdf& b) const { return quoted(dir_.path() + "/" + b.stem + ".urdf"); }
  test::ScratchDir dir_{"urdf_cli"};
};

TEST_F(UrdfCli, InfoAndBenchExitWith2NamingTheElementAndText) {
  for (const BadUrdf& b : bad_urdfs()) {
    expect_refused("info " + urdf(b), b);
    expect_refused("info --floating " + urdf(b), b);
    expect_refused("bench " + urdf(b) + " --states 1", b);
  }
}

TEST_F(UrdfCli, RunCodegenAndEstopExitWith2NamingTheElementAndText) {
  for (const BadUrdf& b : bad_urdfs()) {
    expect_refused("run " + quoted(dir_.path() + "/" + b.stem + ".yaml") + " -q -o " + quoted(dir_.path() + "/out"), b);
    expect_refused("codegen " + urdf(b) + " --name bad -q -o " + quoted(dir_.path() + "/gen"), b);
    expect_refused("estop --model " + urdf(b) + " -o " + quoted(dir_.path() + "/estop"), b);
  }
}

// 50 000 nested elements (the XML parser used to overflow its stack, in quadratic time): the
// depth check refuses the file before any parser sees it. The bound is loose (a child process
// under the sanitizers); a quadratic pass over 50 000 levels would take minutes there.
TEST_F(UrdfCli, A50000LevelNestedFileIsRefusedFast) {
  const std::string path = dir_.path() + "/deep.urdf";
  {
    std::ofstream out(path);
    out << "<robot name=\"r\"><link name=\"a\"/>";
    for (int i = 0; i < 50000; ++i) out << "<x>";
    for (int i = 0; i < 50000; ++i) out << "</x>";
    out << "</robot>\n";
  }
  const auto start = std::chrono::steady_clock::now();
  const test::CliResult r = test::run_cli("info " + quoted(path));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "deep.urdf")) << r.output;
  EXPECT_TRUE(contains(r.output, "nested deeper than")) << r.output;
  EXPECT_TRUE(contains(r.output, "<x>")) << r.output;
  EXPECT_LT(seconds, 10.0);
}

}  // namespace
}  // namespace articula
