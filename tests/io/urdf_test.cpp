// URDF loading (src/io/urdf.cpp): the bundled models, a hand-written URDF with every
// supported element checked against hand computation, and bad files that must throw a
// std::runtime_error naming the file and the offending element (never crash).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "test_models.hpp"

namespace articula {
namespace {

using test::throws_with;

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// A temporary file removed at scope exit.
class TempFile {
 public:
  TempFile(const std::string& stem, const std::string& contents) {
    path_ = (std::filesystem::temp_directory_path() /
             ("articula_urdf_test_" + stem + "_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
              ".urdf"))
                .string();
    std::ofstream(path_) << contents;
  }
  ~TempFile() { std::filesystem::remove(path_); }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

const char* kInertial = R"(<inertial><origin xyz="0 0 0"/><mass value="1"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>)";

/// A robot with the given body between <robot> tags.
std::string robot(const std::string& body) {
  return "<?xml version=\"1.0\"?>\n<robot name=\"r\">\n" + body + "\n</robot>\n";
}
std::string link(const std::string& name, const std::string& inertial = kInertial) {
  return "<link name=\"" + name + "\">" + inertial + "</link>\n";
}
std::string joint(
    const std::string& name, const std::string& type, const std::string& parent, const std::string& child,
    const std::string& extra = "<axis xyz=\"0 0 1\"/><limit lower=\"-1\" upper=\"1\" effort=\"10\" velocity=\"2\"/>") {
  return "<joint name=\"" + name + "\" type=\"" + type + "\"><parent link=\"" + parent + "\"/><child link=\"" + child +
         "\"/>" + extra + "</joint>\n";
}

// ---- the bundled models ----

TEST(Urdf, LoadsEveryBundledModel) {
  struct Expect {
    std::string stem;
    int nv_fixed;
  };
  for (const Expect& e : std::vector<Expect>{
           {"pendulum3r", 3}, {"rx130_standin", 6}, {"ur5", 6}, {"panda", 7}, {"solo12", 12}, {"talos_reduced", 32}}) {
    const std::string path = test::model_path(e.stem);
    const Model fixed = load_urdf(path, BaseType::Fixed);
    EXPECT_EQ(fixed.nv, e.nv_fixed) << e.stem;
    EXPECT_EQ(fixed.nq, e.nv_fixed) << e.stem;
    const Model floating = load_urdf(path, BaseType::Floating);
    EXPECT_EQ(floating.nv, e.nv_fixed + 6) << e.stem;
    EXPECT_EQ(floating.nq, e.nv_fixed + 7) << e.stem;
    EXPECT_EQ(floating.joint_names[0], "root_joint");
    EXPECT_EQ(floating.joint_types[0], JointType::FreeFlyer);
    // Every link is a frame; every non-fixed URDF joint is a model joint, with the file's names.
    const std::string xml = read_file(path);
    const std::regex link_re("<link\\s+name=\"([^\"]+)\"");
    int nlinks = 0;
    for (auto it = std::sregex_iterator(xml.begin(), xml.end(), link_re); it != std::sregex_iterator(); ++it, ++nlinks)
      EXPECT_TRUE(fixed.has_frame((*it)[1])) << e.stem << " link " << (*it)[1];
    EXPECT_GE(fixed.frames.size(), static_cast<std::size_t>(nlinks)) << e.stem;
    const std::regex joint_re("<joint\\s+name=\"([^\"]+)\"\\s+type=\"(revolute|continuous|prismatic)\"");
    int njoints = 0;
    for (auto it = std::sregex_iterator(xml.begin(), xml.end(), joint_re); it != std::sregex_iterator();
         ++it, ++njoints)
      EXPECT_TRUE(fixed.has_joint((*it)[1])) << e.stem << " joint " << (*it)[1];
    EXPECT_EQ(fixed.njoints, njoints) << e.stem;
    // With a floating base nothing is welded to the world: the model carries every link's mass.
    const std::regex mass_re("<mass\\s+value=\"([^\"]+)\"");
    double mass = 0.0;
    for (auto it = std::sregex_iterator(xml.begin(), xml.end(), mass_re); it != std::sregex_iterator(); ++it)
      mass += std::stod((*it)[1]);
    EXPECT_NEAR(floating.total_mass(), mass, 1e-9 * mass) << e.stem;
    // Depth-first order.
    for (Index i = 0; i < fixed.njoints; ++i) EXPECT_LT(fixed.parents[i], i) << e.stem;
    // Limits are read.
    for (int k = 0; k < fixed.nq; ++k) EXPECT_LE(fixed.lower[k], fixed.upper[k]) << e.stem;
  }
}

TEST(Urdf, Ur5JointOrderFollowsTheFile) {
  const Model m = load_urdf(test::model_path("ur5"));
  EXPECT_EQ(m.joint_names, (std::vector<std::string>{"shoulder_pan_joint", "shoulder_lift_joint", "elbow_joint",
                                                     "wrist_1_joint", "wrist_2_joint", "wrist_3_joint"}));
  EXPECT_EQ(m.name, "ur5");
}

TEST(Urdf, StringAndFileGiveTheSameModel) {
  const std::string path = test::model_path("panda");
  const Model a = load_urdf(path);
  const Model b = load_urdf_string(read_file(path));
  EXPECT_EQ(a.joint_names, b.joint_names);
  ASSERT_EQ(a.njoints, b.njoints);
  for (Index i = 0; i < a.njoints; ++i) {
    EXPECT_TRUE(a.joint_placements[i].isApprox(b.joint_placements[i], 0.0));
    EXPECT_EQ(a.inertias[i].matrix(), b.inertias[i].matrix());
  }
}

// ---- a hand-written URDF with every supported element ----

const std::string kGoodUrdf = robot(R"(
  <link name="base">
    <inertial><origin xyz="0 0 0.1"/><mass value="5"/>
      <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.2" iyz="0" izz="0.25"/></inertial>
  </link>
  <joint name="slide" type="prismatic">
    <parent link="base"/><child link="carriage"/>
    <origin xyz="0.1 0.2 0.3" rpy="0.1 0.2 0.3"/>
    <axis xyz="0 0 2"/>
    <limit lower="-0.25" upper="0.5" effort="100" velocity="1.5"/>
    <dynamics damping="0.7" friction="0.2"/>
  </joint>
  <link name="carriage">
    <inertial><origin xyz="0.1 0 0" rpy="0 0 1.5707963267948966"/><mass value="2"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.03" iyz="0" izz="0.035"/></inertial>
  </link>
  <joint name="mount" type="fixed">
    <parent link="carriage"/><child link="bracket"/>
    <origin xyz="0 0.5 0" rpy="0 0 0.5"/>
  </joint>
  <link name="bracket">
    <inertial><origin xyz="0 0 0"/><mass value="0.5"/>
      <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial>
  </link>
  <joint name="spin" type="continuous">
    <parent link="bracket"/><child link="wheel"/>
    <origin xyz="0 0 0.2"/>
    <axis xyz="1 0 0"/>
  </joint>
  <link name="wheel">
    <inertial><mass value="1"/><inertia ixx="0.02" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>
  </link>
  <link name="massless_tip"/>
  <joint name="tip_joint" type="fixed">
    <parent link="wheel"/><child link="massless_tip"/><origin xyz="0.3 0 0"/>
  </joint>
)");

Matrix3 rpy(double r, double p, double y) {
  return (Eigen::AngleAxisd(y, Vector3::UnitZ()) * Eigen::AngleAxisd(p, Vector3::UnitY()) *
          Eigen::AngleAxisd(r, Vector3::UnitX()))
      .toRotationMatrix();
}

TEST(Urdf, ReadsEveryElement) {
  const Model m = load_urdf_string(kGoodUrdf, BaseType::Fixed, "good.urdf");
  EXPECT_EQ(m.name, "r");
  ASSERT_EQ(m.njoints, 2);
  EXPECT_EQ(m.joint_names, (std::vector<std::string>{"slide", "spin"}));
  EXPECT_EQ(m.body_names, (std::vector<std::string>{"carriage", "wheel"}));
  EXPECT_EQ(m.joint_types[0], JointType::Prismatic);
  EXPECT_EQ(m.joint_types[1], JointType::Continuous);
  // Placement: origin xyz + rpy (R = Rz(y) Ry(p) Rx(r)); the axis is normalized.
  EXPECT_TRUE(m.joint_placements[0].isApprox({rpy(0.1, 0.2, 0.3), {0.1, 0.2, 0.3}}, 1e-12));
  EXPECT_LT((m.axes[0] - Vector3(0, 0, 1)).norm(), 1e-15);
  // Through the fixed joint: spin's frame in carriage = mount * spin origin.
  const Transform mount{rpy(0, 0, 0.5), {0, 0.5, 0}};
  EXPECT_TRUE(m.joint_placements[1].isApprox(mount * Transform{Matrix3::Identity(), {0, 0, 0.2}}, 1e-12));
  // Limits and dynamics.
  EXPECT_EQ(m.lower[0], -0.25);
  EXPECT_EQ(m.upper[0], 0.5);
  EXPECT_EQ(m.effort_limit[0], 100.0);
  EXPECT_EQ(m.velocity_limit[0], 1.5);
  EXPECT_EQ(m.damping[0], 0.7);
  EXPECT_EQ(m.friction[0], 0.2);
  EXPECT_EQ(m.armature[0], 0.0);
  EXPECT_TRUE(std::isinf(m.lower[1]) && std::isinf(m.upper[1]));
  // Inertias: the inertial origin (with rotation) is applied; the bracket is merged into the carriage.
  const Matrix3 Rz = rpy(0, 0, M_PI / 2);
  const Inertia carriage =
      Inertia::from_com(2.0, {0.1, 0, 0}, Rz * Vector3(0.01, 0.03, 0.035).asDiagonal() * Rz.transpose());
  const Inertia bracket = Inertia::from_com(0.5, Vector3::Zero(), 0.001 * Matrix3::Identity());
  EXPECT_LT((m.inertias[0].matrix() - (carriage + bracket.transformed(mount)).matrix()).norm(), 1e-12);
  EXPECT_NEAR(m.inertias[1].m, 1.0, 1e-15);
  // The root link of a fixed base is the world: its mass is not in the model.
  EXPECT_NEAR(m.total_mass(), 3.5, 1e-14);
  // Frames: every link.
  for (const char* f : {"base", "carriage", "bracket", "wheel", "massless_tip"}) EXPECT_TRUE(m.has_frame(f)) << f;
  EXPECT_EQ(m.frames[m.frame_id("base")].parent, kWorld);
  EXPECT_EQ(m.frames[m.frame_id("bracket")].parent, 0);
  EXPECT_EQ(m.frames[m.frame_id("massless_tip")].parent, 1);
  EXPECT_TRUE(m.frames[m.frame_id("massless_tip")].placement.isApprox({Matrix3::Identity(), {0.3, 0, 0}}, 1e-15));
  // Forward kinematics of the tip by hand: slide q0 along z of slide's frame, spin q1 about x.
  const VectorX q = Eigen::Vector2d(0.3, 0.8);
  Data d(m);
  forward_kinematics(m, d, q);
  const Transform expected = Transform{rpy(0.1, 0.2, 0.3), {0.1, 0.2, 0.3}} *
                             Transform{Matrix3::Identity(), {0, 0, 0.3}} * mount *
                             Transform{Matrix3::Identity(), {0, 0, 0.2}} *
                             Transform{Eigen::AngleAxisd(0.8, Vector3::UnitX()).toRotationMatrix(), Vector3::Zero()} *
                             Transform{Matrix3::Identity(), {0.3, 0, 0}};
  EXPECT_TRUE(frame_placement(m, d, m.frame_id("massless_tip")).isApprox(expected, 1e-12));
}

TEST(Urdf, FloatingBaseCarriesTheRootLink) {
  const Model m = load_urdf_string(kGoodUrdf, BaseType::Floating);
  ASSERT_EQ(m.njoints, 3);
  EXPECT_EQ(m.joint_names[0], "root_joint");
  EXPECT_EQ(m.body_names[0], "base");
  EXPECT_EQ(m.joint_types[0], JointType::FreeFlyer);
  EXPECT_EQ(m.parents[1], 0);
  EXPECT_NEAR(m.total_mass(), 8.5, 1e-14);
  EXPECT_LT((m.inertias[0].com() - Vector3(0, 0, 0.1)).norm(), 1e-15);
}

// ---- bad files ----

struct BadCase {
  std::string name;
  std::string xml;
  std::vector<std::string> expect;  // substrings of the message besides the source name
};

std::vector<BadCase> bad_cases() {
  const std::string two = link("a") + link("b");
  return {
      {"malformed_xml", "<robot name=\"r\"><link name=\"a\"></robot", {}},
      {"empty", "", {}},
      {"not_a_robot", "<?xml version=\"1.0\"?><model name=\"m\"/>", {}},
      {"unknown_joint_type", robot(two + joint("hinge_j", "hinge", "a", "b")), {"hinge_j"}},
      {"negative_mass",
       robot(
           link("a") +
           link(
               "heavy_neg",
               R"(<inertial><mass value="-1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" iyz="0" izz="0.01"/></inertial>)") +
           joint("j", "revolute", "a", "heavy_neg")),
       {"heavy_neg", "mass"}},
      {"triangle_inequality",
       robot(
           link("a") +
           link("flat_b",
                R"(<inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="3"/></inertial>)") +
           joint("j", "revolute", "a", "flat_b")),
       {"flat_b", "triangle"}},
      {"not_positive_definite",
       robot(
           link("a") +
           link(
               "neg_b",
               R"(<inertial><mass value="1"/><inertia ixx="-0.1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>)") +
           joint("j", "revolute", "a", "neg_b")),
       {"neg_b"}},
      {"bad_root_inertia",
       robot(
           link("root_bad",
                R"(<inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="3"/></inertial>)") +
           link("b") + joint("j", "revolute", "root_bad", "b")),
       {"root_bad"}},
      {"two_parents",
       robot(link("a") + link("b") + link("c") + joint("j1", "revolute", "a", "b") + joint("j2", "revolute", "a", "c") +
             joint("j3", "revolute", "b", "c")),
       {"'c'"}},
      {"loop",
       robot(link("a") + link("b") + link("c") + joint("j1", "revolute", "a", "b") + joint("j2", "revolute", "b", "c") +
             joint("j3", "revolute", "c", "b")),
       {"'b'"}},
      {"duplicate_link",
       robot(link("a") + link("dup_l") + link("dup_l") + joint("j", "revolute", "a", "dup_l")),
       {"dup_l"}},
      {"duplicate_joint",
       robot(link("a") + link("b") + link("c") + joint("dup_j", "revolute", "a", "b") +
             joint("dup_j", "revolute", "b", "c")),
       {"dup_j"}},
      {"revolute_without_limit",
       robot(two + joint("nolim_j", "revolute", "a", "b", "<axis xyz=\"0 0 1\"/>")),
       {"nolim_j"}},
      {"prismatic_without_limit",
       robot(two + joint("nolim_p", "prismatic", "a", "b", "<axis xyz=\"0 0 1\"/>")),
       {"nolim_p"}},
      {"planar", robot(two + joint("planar_j", "planar", "a", "b", "<axis xyz=\"0 0 1\"/>")), {"planar_j", "planar"}},
      {"floating_inside", robot(two + joint("float_j", "floating", "a", "b", "")), {"float_j", "floating"}},
      {"mimic",
       robot(link("a") + link("b") + link("c") + joint("j1", "revolute", "a", "b") +
             joint("mimic_j", "revolute", "b", "c",
                   "<axis xyz=\"0 0 1\"/><limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/><mimic "
                   "joint=\"j1\"/>")),
       {"mimic_j", "mimic"}},
      {"zero_axis",
       robot(two + joint("zero_axis_j", "revolute", "a", "b",
                         "<axis xyz=\"0 0 0\"/><limit lower=\"-1\" upper=\"1\" effort=\"1\" velocity=\"1\"/>")),
       {"zero_axis_j", "axis"}},
      {"unknown_child", robot(link("a") + joint("orphan_j", "revolute", "a", "ghost")), {}},
      {"two_roots", robot(link("a") + link("b") + link("island")), {}},
  };
}

TEST(Urdf, BadStringsThrowNamingSourceAndElement) {
  for (const BadCase& c : bad_cases()) {
    const std::string source = "bad_source_" + c.name;
    bool threw = false;
    try {
      (void)load_urdf_string(c.xml, BaseType::Fixed, source);
    } catch (const std::runtime_error& e) {
      threw = true;
      const std::string what = e.what();
      EXPECT_NE(what.find(source), std::string::npos) << c.name << ": \"" << what << "\"";
      for (const std::string& p : c.expect)
        EXPECT_NE(what.find(p), std::string::npos) << c.name << ": \"" << what << "\" lacks \"" << p << "\"";
    } catch (const std::exception& e) {
      ADD_FAILURE() << c.name << ": wrong exception type: " << e.what();
      threw = true;
    }
    EXPECT_TRUE(threw) << c.name;
  }
}

TEST(Urdf, BadFilesThrowNamingFileAndElement) {
  for (const BadCase& c : bad_cases()) {
    const TempFile f(c.name, c.xml);
    for (BaseType base : {BaseType::Fixed, BaseType::Floating}) {
      bool threw = false;
      try {
        (void)load_urdf(f.path(), base);
      } catch (const std::runtime_error& e) {
        threw = true;
        const std::string what = e.what();
        EXPECT_NE(what.find(f.path()), std::string::npos) << c.name << ": \"" << what << "\"";
        for (const std::string& p : c.expect)
          EXPECT_NE(what.find(p), std::string::npos) << c.name << ": \"" << what << "\" lacks \"" << p << "\"";
      } catch (const std::exception& e) {
        ADD_FAILURE() << c.name << ": wrong exception type: " << e.what();
        threw = true;
      }
      EXPECT_TRUE(threw) << c.name;
    }
  }
}

TEST(Urdf, MissingFileNamesThePath) {
  const std::string path = "/nonexistent/dir/no_such_robot.urdf";
  EXPECT_TRUE(throws_with<std::runtime_error>([&] { (void)load_urdf(path); }, {path, "not found"}));
  const std::string dir = std::filesystem::temp_directory_path().string();
  EXPECT_TRUE(throws_with<std::runtime_error>([&] { (void)load_urdf(dir); }, {dir, "a directory"}));
}

TEST(Urdf, ParseErrorsAreNotPrinted) {
  ::testing::internal::CaptureStderr();
  ::testing::internal::CaptureStdout();
  EXPECT_THROW((void)load_urdf_string(robot(link("a") + link("b") + joint("hinge_j", "hinge", "a", "b"))),
               std::runtime_error);
  const std::string err = ::testing::internal::GetCapturedStderr();
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(err, "");
  EXPECT_EQ(out, "");
}

}  // namespace
}  // namespace articula
