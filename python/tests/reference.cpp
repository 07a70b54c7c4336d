// The C++ side of the Python bindings' bitwise checks and benchmark (python/tests/test_bitwise.py,
// python/bench/bench_python.py).
//   articula_py_reference eval MODEL.urdf FLOATING < states
//     stdin: the number of states, then per state q (nq), v (nv), tau (nv) as hex floats (%a);
//     stdout, per state: aba v̇, crba M (row-major), then constrained_forward_dynamics v̇ and λ for
//     the set {JointLock "lock" of the first 1-dof joint at 0.1, FrameConstraint "hold" of the last
//     frame (point, reference p = (0.3, 0.1, 0.5))} by kkt, range, null, and for the set {"lock"}
//     by hybrid — all as %a, whitespace separated.
//   articula_py_reference bench MODEL.urdf FLOATING N < state
//     stdin: one state q (nq), v (nv), tau (nv) as numbers (hex floats accepted), the state the
//     Python side times; stdout: the time per call [ns] of aba, rnea, crba on it, the best of 7
//     loops of N / 7 calls (as python/bench/bench_python.py times the Python calls).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "articula/articula.hpp"

using namespace articula;

namespace {

double read_hex(std::istream& in) {
  std::string token;
  if (!(in >> token)) throw std::runtime_error("reference: unexpected end of input");
  return std::strtod(token.c_str(), nullptr);
}

void print(const Eigen::Ref<const MatrixX>& x) {
  for (Eigen::Index i = 0; i < x.rows(); ++i)
    for (Eigen::Index j = 0; j < x.cols(); ++j) std::printf("%a ", x(i, j));
}

std::string first_scalar_joint(const Model& model) {
  for (Index j = 0; j < model.njoints; ++j)
    if (model.nv_joint[j] == 1) return model.joint_names[j];
  throw std::runtime_error("reference: no 1-dof joint");
}

int eval(const Model& model) {
  const std::string lock_joint = first_scalar_joint(model);
  Data data(model);
  ConstrainedWorkspace ws(model);
  ConstraintSet both(model), locks(model);
  both.add(std::make_shared<JointLock>(model, "lock", std::vector<std::string>{lock_joint}, VectorX::Constant(1, 0.1)));
  both.add(std::make_shared<FrameConstraint>("hold", model.frames.back().name, AxisMask::point(),
                                             Transform{Matrix3::Identity(), Vector3(0.3, 0.1, 0.5)}));
  locks.add(
      std::make_shared<JointLock>(model, "lock", std::vector<std::string>{lock_joint}, VectorX::Constant(1, 0.1)));
  const int n = static_cast<int>(read_hex(std::cin));
  for (int s = 0; s < n; ++s) {
    VectorX q(model.nq), v(model.nv), tau(model.nv);
    for (auto* x : {&q, &v, &tau})
      for (Eigen::Index i = 0; i < x->size(); ++i) (*x)[i] = read_hex(std::cin);
    print(aba(model, data, q, v, tau));
    print(crba(model, data, q));
    for (ConstrainedMethod method :
         {ConstrainedMethod::Kkt, ConstrainedMethod::RangeSpace, ConstrainedMethod::NullSpace}) {
      constrained_forward_dynamics(model, data, ws, both, q, v, tau, {}, method);
      print(data.ddq);
      print(VectorX(ws.lambda.head(both.dim())));
    }
    constrained_forward_dynamics(model, data, ws, locks, q, v, tau, {}, ConstrainedMethod::Hybrid);
    print(data.ddq);
    print(VectorX(ws.lambda.head(locks.dim())));
    std::printf("\n");
  }
  return 0;
}

/// The best of 7 loops of n / 7 calls [ns per call] (the machine is shared: the minimum is the
/// least disturbed loop), as python/bench/bench_python.py times the Python side.
template <typename F>
double time_per_call(long n, F&& f) {
  double best = 1e300;
  for (int rep = 0; rep < 7; ++rep) {
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < n / 7; ++i) f();
    best = std::min(
        best, std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / double(n / 7));
  }
  return best;
}

int bench(const Model& model, long n) {
  Data data(model);
  VectorX q(model.nq), v(model.nv), tau(model.nv);
  for (auto* x : {&q, &v, &tau})
    for (Eigen::Index i = 0; i < x->size(); ++i) (*x)[i] = read_hex(std::cin);
  double sink = 0;
  for (int i = 0; i < 1000; ++i) sink += aba(model, data, q, v, tau)[0];  // warm up (caches, clock)
  const double ta = time_per_call(n, [&] { sink += aba(model, data, q, v, tau)[0]; });
  const double tr = time_per_call(n, [&] { sink += rnea(model, data, q, v, tau)[0]; });
  const double tc = time_per_call(n, [&] { sink += crba(model, data, q)(0, 0); });
  std::printf("aba %.1f\nrnea %.1f\ncrba %.1f\n", ta, tr, tc);
  std::fprintf(stderr, "(%g)\n", sink);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s eval|bench MODEL.urdf FLOATING [N]\n", argv[0]);
    return 2;
  }
  try {
    const std::string mode = argv[1];
    const Model model = load_urdf(argv[2], std::string(argv[3]) == "1" ? BaseType::Floating : BaseType::Fixed);
    if (mode == "eval") return eval(model);
    if (mode == "bench") return bench(model, argc > 4 ? std::atol(argv[4]) : 100000);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "articula_py_reference: %s\n", e.what());
    return 1;
  }
  return 2;
}
