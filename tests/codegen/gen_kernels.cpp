// Build-time helper of the test suite: writes the generated kernels (articula::generate_kernels)
// of the bundled models, the mixed models (all with armature) and the standing humanoid into
// argv[1]; only those named after it (without the "test_" prefix) if any are named. The test
// executable compiles them and checks them against the runtime recursions
// (generated_kernels_test.cpp).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>

#include "test_models.hpp"

namespace {

void write(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

void generate(const std::filesystem::path& dir, articula::Model model, const std::string& name, double snap = 1e-9,
              std::vector<articula::HeldFrame> held = {}, bool external_forces = false,
              std::vector<std::string> locked = {}, std::vector<std::string> state_frames = {},
              std::vector<articula::HeldDistance> distances = {}, std::vector<articula::HeldWheel> wheels = {},
              std::vector<articula::DeclaredContact> contacts = {}) {
  articula::test::add_armature(model);
  articula::CodegenOptions o;
  o.origin = model.name + " with test armature";
  o.snap = snap;
  o.held_frames = std::move(held);
  o.external_forces = external_forces;
  o.locked_joints = std::move(locked);
  o.max_statements = 0;
  o.state_frames = std::move(state_frames);
  o.distances = std::move(distances);
  o.wheels = std::move(wheels);
  o.contacts = std::move(contacts);
  const articula::GeneratedKernels k = articula::generate_kernels(model, name, o);
  write(dir / (name + ".hpp"), k.header);
  write(dir / (name + ".cpp"), k.source);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: gen_kernels OUTPUT_DIR [NAME...]\n";
    return 2;
  }
  const std::set<std::string> names(argv + 2, argv + argc);
  auto wanted = [&](const std::string& name) { return names.empty() || names.count(name) > 0; };
  try {
    const std::filesystem::path dir(argv[1]);
    std::filesystem::create_directories(dir);
    // The held frames of the constrained kernels: as in bench_constrained (two welded soles,
    // four point feet, a welded hand) and, on the mixed model, a weld and a point.
    const std::map<std::string, std::vector<articula::HeldFrame>> held = {
        {"talos", {{"left_sole_link", true}, {"right_sole_link", true}}},
        {"solo12", {{"FL_FOOT", false}, {"FR_FOOT", false}, {"HL_FOOT", false}, {"HR_FOOT", false}}},
        {"panda", {{"panda_hand", true}}},
        {"ur5", {{"tool0", false}}},
        {"pendulum3r", {{"tip", false}}},  // planar: the out-of-plane row is zero for every q
    };
    for (const auto& c : articula::test::all_models()) {
      if (!wanted(c.name)) continue;
      const auto it = held.find(c.name);
      // solo12 also with external forces, its feet's kinematics and its feet as elastic contacts
      // (the elastic feet of the engine tests; aba_contacts: a foot with an offset, one on a
      // slope, the others on the ground).
      const bool solo = c.name == "solo12";
      std::vector<articula::DeclaredContact> feet;
      if (solo)
        feet = {{"FL_FOOT", articula::Vector3(0.01, -0.02, 0.005)},
                {"FR_FOOT", articula::Vector3::Zero(), articula::Vector3(0, 0, 0.05), articula::Vector3(0.3, 0.1, 1.0)},
                {"HL_FOOT"},
                {"HR_FOOT"}};
      generate(dir, articula::test::load(c), "test_" + c.name, 1e-9,
               it == held.end() ? std::vector<articula::HeldFrame>{} : it->second, solo, {},
               solo ? std::vector<std::string>{"FL_FOOT", "FR_FOOT", "HL_FOOT", "HR_FOOT"} : std::vector<std::string>{},
               {}, {}, feet);
    }
    if (wanted("ur5_exact"))
      generate(dir, articula::test::load(articula::test::all_models()[2]), "test_ur5_exact", 0.0);
    if (wanted("mixed_fixed")) generate(dir, articula::test::mixed_model(false), "test_mixed_fixed");
    if (wanted("mixed_floating"))
      generate(dir, articula::test::mixed_model(true), "test_mixed_floating", 1e-9, {{"tip", true}, {"leg", false}},
               true);
    // Every joint type locked, beside the two frames: any subset of the seven (with external forces).
    if (wanted("mixed_locks"))
      generate(dir, articula::test::mixed_model(true), "test_mixed_locks", 1e-9, {{"tip", true}, {"leg", false}}, true,
               {"root", "j_sph", "j_prism", "j_cont", "j_rev"});
    // Loop closures (the tip's point held to the leg, the leg held to a frame on the world on
    // five axes: all but the rotation about z) and a distance (arm2's origin to the leg's).
    if (wanted("mixed_loops"))
      generate(dir, articula::test::mixed_model(true), "test_mixed_loops", 1e-9,
               {{"tip", false, "leg"}, {"leg", true, "world_mark", "xyzrxry"}}, false, {}, {}, {{"arm2", "leg"}});
    // The segway of scenarios/segway_balance.yaml: its wheel rolling on z = 0 and kept in its
    // plane (no rotation about x and z).
    if (wanted("segway"))
      generate(dir, articula::load_urdf(articula::test::model_path("segway"), articula::BaseType::Floating),
               "test_segway", 1e-9, {articula::held_frame("wheel", "rxrz")}, false, {}, {}, {},
               {{"wheel", 0.2, articula::Vector3::UnitY(), articula::Vector3::UnitZ(), 0.0}});
    if (wanted("mixed_twice"))
      generate(dir, articula::test::mixed_model(true), "test_mixed_twice", 1e-9, {{"tip", true}, {"tip", false}});
    if (!wanted("standing_humanoid")) return 0;
    // The standing humanoid of the engine tests: its Robot's model (motors' reflected inertia in
    // the armature), both soles welded — for Simulator::use_generated.
    const articula::test::StandingHumanoid h = articula::test::standing_humanoid();
    articula::CodegenOptions options;
    options.origin = "test::standing_humanoid()";
    options.held_frames = {{"left_sole_link", true}, {"right_sole_link", true}};
    const articula::GeneratedKernels k = articula::generate_kernels(h.robot.model(), "test_standing_humanoid", options);
    write(dir / "test_standing_humanoid.hpp", k.header);
    write(dir / "test_standing_humanoid.cpp", k.source);
  } catch (const std::exception& e) {
    std::cerr << "gen_kernels: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
