#pragma once
/// Shared helpers for the test suite: the bundled models, random states, tolerances.
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "articula/articula.hpp"

namespace articula::test {

struct ModelCase {
  std::string name;  // file stem, e.g. "ur5"
  std::string file;  // absolute path
  BaseType base;
};

/// Every model in models/ with the base the reference data uses.
std::vector<ModelCase> all_models();
std::string model_path(const std::string& stem);
Model load(const ModelCase& c);
/// Random state (q within limits, v and a standard normal) from a seeded generator.
VectorX random_vector(int n, std::mt19937& rng, double scale = 1.0);
/// Relative difference ‖a − b‖ / max(1, ‖b‖).
double rel_err(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b);
struct CliResult {
  int code = -1;
  std::string output;  // stdout and stderr together
};
/// Runs the built `articula` CLI with the given arguments (shell-quoted by the caller),
/// capturing stdout and stderr together, and returns its exit code.
CliResult run_cli(const std::string& args);

/// Runs `body` in a forked child whose files may not grow past `max_file_bytes` (SIGXFSZ
/// ignored, so that write() fails with EFBIG) and returns the child's exit code: body's return
/// value, 100 if it threw, −1 if the child did not exit normally.
int exit_code_with_file_size_limit(long max_file_bytes, const std::function<int()>& body);

/// A fresh directory under the test temp dir, `<stem>_<pid>`, removed with its contents when
/// the object goes (also when an assertion returns early; a forked child leaves by _exit).
class ScratchDir {
 public:
  explicit ScratchDir(const std::string& stem);
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  ~ScratchDir();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// Gives every dof a distinct positive armature (0.01 … 0.1).
void add_armature(Model& model);
/// The bundled model `name` (test_models) with add_armature: the model the test kernels of
/// gen_kernels.cpp were generated from.
Model load_with_armature(const std::string& name);

/// talos_reduced (floating base at 1 m, neutral posture) with both soles welded ("left_foot",
/// "right_foot") and a geared motor on every joint but the free-flyer (reflected rotor inertia
/// 100² · 1e-5 = 0.1 kg·m²); targets: the posture, for pd_controller().
struct StandingHumanoid {
  Robot robot;
  VectorX q;
  std::vector<std::pair<std::string, double>> targets;
};
StandingHumanoid standing_humanoid();

}  // namespace articula::test
