// Uses the installed articula: loads the URDF given as argument, runs the
// articulated-body algorithm at rest, prints "nv <n>". Exit code 0 if q̈ is finite.
#include <articula/articula.hpp>
#include <exception>
#include <iostream>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: articula_downstream MODEL.urdf\n";
    return 2;
  }
  try {
    const articula::Model model = articula::load_urdf(argv[1]);
    articula::Data data(model);
    const articula::VectorX q = articula::neutral(model);
    const articula::VectorX v = articula::VectorX::Zero(model.nv);
    const articula::VectorX tau = articula::VectorX::Zero(model.nv);
    const articula::VectorX& ddq = articula::aba(model, data, q, v, tau);
    std::cout << "nv " << model.nv << "\n";
    std::cout << "ddq at rest " << ddq.transpose() << "\n";
    return ddq.allFinite() ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "articula_downstream: " << e.what() << "\n";
    return 1;
  }
}
