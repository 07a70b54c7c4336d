// Build-time helper of bench_simulation: writes the generated kernels (articula codegen) of the
// talos_feet robot's model — motors' reflected inertia in the armature — with both soles held,
// as sim_talos_feet.{hpp,cpp} in argv[2]; argv[1] is the models directory.
#include <filesystem>
#include <fstream>
#include <iostream>

#include "talos_feet.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: gen_simulation_kernels MODELS_DIR OUTPUT_DIR\n";
    return 2;
  }
  try {
    articula::Robot robot = articula::Robot::from_urdf(std::string(argv[1]) + "/talos_reduced.urdf", true);
    articula::bench::add_talos_feet(robot);
    const articula::GeneratedKernels k =
        articula::generate_kernels(robot.model(), "sim_talos_feet",
                                   {"talos_reduced.urdf + bench_simulation's motors",
                                    1e-9,
                                    {{"left_sole_link", true}, {"right_sole_link", true}}});
    const std::filesystem::path dir(argv[2]);
    std::filesystem::create_directories(dir);
    std::ofstream(dir / "sim_talos_feet.hpp", std::ios::binary) << k.header;
    std::ofstream(dir / "sim_talos_feet.cpp", std::ios::binary) << k.source;
  } catch (const std::exception& e) {
    std::cerr << "gen_simulation_kernels: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
