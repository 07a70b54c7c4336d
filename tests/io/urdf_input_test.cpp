// Hostile and clumsy URDF text (issue 16): each class is rejected by the checks run before
// urdfdom (src/io/urdf_check.cpp) with a message naming the source, the element or attribute
// and the bad text; never a crash, never a silent 0.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <string>

#include "test_models.hpp"

namespace articula {
namespace {

using test::throws_with;

const std::string kInertia = R"(<inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/>)";

std::string robot(const std::string& body) {
  return "<?xml version=\"1.0\"?>\n<robot name=\"r\">\n" + body + "</robot>\n";
}
std::string link(const std::string& name, const std::string& mass = "1", const std::string& origin = "0 0 0") {
  return "<link name=\"" + name + "\"><inertial><origin xyz=\"" + origin + "\"/><mass value=\"" + mass + "\"/>" +
         kInertia + "</inertial></link>\n";
}
std::string joint(const std::string& name, const std::string& axis = "0 0 1", const std::string& lower = "-1") {
  return "<joint name=\"" + name + "\" type=\"revolute\"><parent link=\"a\"/><child link=\"b\"/><axis xyz=\"" + axis +
         "\"/><limit lower=\"" + lower + "\" upper=\"1\" effort=\"1\" velocity=\"1\"/></joint>\n";
}

TEST(UrdfInput, LinksWithoutANameAreRejected) {
  EXPECT_TRUE(
      throws_with<std::runtime_error>([] { (void)load_urdf_string(robot("<link/>"), BaseType::Fixed, "noname.urdf"); },
                                      {"noname.urdf", "<link>", "no name"}));
  EXPECT_TRUE(
      throws_with<std::runtime_error>([] { (void)load_urdf_string(robot(link("")), BaseType::Floating, "empty.urdf"); },
                                      {"empty.urdf", "<link>", "empty name"}));
  EXPECT_TRUE(throws_with<std::runtime_error>(
      [] {
        (void)load_urdf_string(robot(link("a") + link("b") + "<joint name=\"\" type=\"fixed\"/>"), BaseType::Fixed,
                               "j.urdf");
      },
      {"j.urdf", "<joint>", "empty name"}));
  // The builder refuses empty names too (it used to recurse without end on them).
  ModelBuilder b;
  EXPECT_THROW(b.add_fixed_link("", "", "", Transform::Identity(), Inertia::Zero()), std::invalid_argument);
  EXPECT_THROW(b.add_frame("", "", Transform::Identity()), std::invalid_argument);
}

TEST(UrdfInput, PercentSignsNeverReachUrdfdom) {
  for (const std::string& bad : {std::string("%s%s%s%s"), std::string("%n"), std::string("1%")}) {
    EXPECT_TRUE(throws_with<std::runtime_error>(
        [&] { (void)load_urdf_string(robot(link("a", "1", bad)), BaseType::Fixed, "pct.urdf"); },
        {"pct.urdf", "link 'a' <inertial> <origin>", "xyz", bad, "'%'"}));
  }
  EXPECT_TRUE(throws_with<std::runtime_error>(
      [] { (void)load_urdf_string(robot(link("%s%n")), BaseType::Fixed, "pct.urdf"); }, {"pct.urdf", "name", "%s%n"}));
  EXPECT_TRUE(throws_with<std::runtime_error>(
      [] { (void)load_urdf_string(robot(link("a") + "<gazebo>%s%n</gazebo>"), BaseType::Fixed, "pct.urdf"); },
      {"pct.urdf", "<gazebo>", "text", "%s%n"}));
}

TEST(UrdfInput, DeepNestingIsRefusedBeforeParsing) {
  std::string deep;
  for (int i = 0; i < 50000; ++i) deep += "<a>";
  EXPECT_TRUE(throws_with<std::runtime_error>(
      [&] { (void)load_urdf_string(robot(link("a") + deep), BaseType::Fixed, "deep.urdf"); },
      {"deep.urdf", "nested deeper than 100", "<a>"}));
}

TEST(UrdfInput, MalformedNumbersNameTheElementAttributeAndText) {
  struct Case {
    std::string xml, element, attribute, text;
  };
  const std::string two = link("a");
  const std::vector<Case> cases = {
      {robot(link("a", "1.5kg")), "link 'a' <inertial> <mass>", "value", "1.5kg"},
      {robot(link("a", "")), "link 'a' <inertial> <mass>", "value", "''"},
      {robot(link("a", "nan")), "link 'a' <inertial> <mass>", "value", "nan"},
      {robot(link("a", "inf")), "link 'a' <inertial> <mass>", "value", "inf"},
      {robot(link("a", "1e999")), "link 'a' <inertial> <mass>", "value", "1e999"},
      {robot(link("a", "0x10")), "link 'a' <inertial> <mass>", "value", "0x10"},
      {robot(link("a", "1", "0 0")), "link 'a' <inertial> <origin>", "xyz", "0 0"},
      {robot(link("a", "1", "0 zero 0")), "link 'a' <inertial> <origin>", "xyz", "0 zero 0"},
      {robot(two + link("b") + joint("j", "0 0 1 0")), "joint 'j' <axis>", "xyz", "0 0 1 0"},
      {robot(two + link("b") + joint("j", "0 0 1", "-1rad")), "joint 'j' <limit>", "lower", "-1rad"},
  };
  for (const Case& c : cases)
    EXPECT_TRUE(throws_with<std::runtime_error>([&] { (void)load_urdf_string(c.xml, BaseType::Fixed, "num.urdf"); },
                                                {"num.urdf", c.element, "attribute " + c.attribute, c.text}))
        << c.text;
  // Well-formed numbers in every spelling still load.
  EXPECT_NO_THROW((void)load_urdf_string(robot(link("a", "+1.5e0", " 1 -2.  .5 ")), BaseType::Fixed, "ok.urdf"));
}

TEST(UrdfInput, InvalidUtf8AndNulBytesAreRejected) {
  EXPECT_TRUE(throws_with<std::runtime_error>(
      [] {
        (void)load_urdf_string(robot(link("a\xff"
                                          "b")),
                               BaseType::Fixed, "utf.urdf");
      },
      {"utf.urdf", "invalid UTF-8", "\\xff", "line 3", "<link>"}));
  EXPECT_TRUE(throws_with<std::runtime_error>(
      [] { (void)load_urdf_string(robot(link("a\xc0\xaf")), BaseType::Fixed, "overlong.urdf"); },
      {"overlong.urdf", "invalid UTF-8"}));
  EXPECT_TRUE(throws_with<std::runtime_error>(
      [] { (void)load_urdf_string(robot(link(std::string("a\0b", 3))), BaseType::Fixed, "nul.urdf"); },
      {"nul.urdf", "NUL byte", "line 3", "<link>"}));
  EXPECT_NO_THROW((void)load_urdf_string(robot(link("bras_épaule")), BaseType::Fixed, "ok.urdf"));
}

// Loading is linear in the number of links: a 10 000-link chain keeps O(nv) ancestor storage
// (it was nv²/2 ints) and the process grows by far less than 100 MB while loading it.
TEST(UrdfInput, A10000LinkChainLoadsInLinearMemory) {
  const int n = 10000;
  std::string xml = "<robot name=\"chain\">";  // built by += (g++ 12 warns wrongly on "…" + string)
  xml += link("l0");
  for (int i = 1; i <= n; ++i) {
    const std::string id = std::to_string(i), parent = std::to_string(i - 1);
    xml += link("l" + id);
    xml += "<joint name=\"j" + id + "\" type=\"continuous\"><parent link=\"l" + parent + "\"/><child link=\"l" + id +
           "\"/><origin xyz=\"0 0 0.1\"/><axis xyz=\"0 1 0\"/></joint>";
  }
  xml += "</robot>";
  rusage before{}, after{};
  getrusage(RUSAGE_SELF, &before);
  const Model model = load_urdf_string(xml, BaseType::Fixed, "chain.urdf");
  getrusage(RUSAGE_SELF, &after);
  EXPECT_EQ(model.nv, n);
  EXPECT_LE(model.ancestors.size(), static_cast<std::size_t>(n));
  EXPECT_EQ(model.ancestor_count(n - 1), n - 1);
  EXPECT_EQ(model.ancestors_of(n - 1)[0], n - 2);
  EXPECT_EQ(model.ancestors_of(n - 1)[n - 2], 0);
#ifndef __SANITIZE_ADDRESS__  // ASan's shadow memory and quarantine inflate the RSS
  EXPECT_LT(after.ru_maxrss - before.ru_maxrss, 100 * 1024) << "KB";  // ru_maxrss is in KB
#endif
}

}  // namespace
}  // namespace articula
