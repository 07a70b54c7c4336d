#include "test_support.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

namespace articula::test {

std::string model_path(const std::string& stem) { return std::string(ARTICULA_MODELS_DIR) + "/" + stem + ".urdf"; }

std::vector<ModelCase> all_models() {
  return {{"pendulum3r", model_path("pendulum3r"), BaseType::Fixed},
          {"rx130_standin", model_path("rx130_standin"), BaseType::Fixed},
          {"ur5", model_path("ur5"), BaseType::Fixed},
          {"panda", model_path("panda"), BaseType::Fixed},
          {"solo12", model_path("solo12"), BaseType::Floating},
          {"talos", model_path("talos_reduced"), BaseType::Floating}};
}

Model load(const ModelCase& c) { return load_urdf(c.file, c.base); }

VectorX random_vector(int n, std::mt19937& rng, double scale) {
  std::normal_distribution<double> d(0.0, scale);
  VectorX x(n);
  for (int i = 0; i < n; ++i) x[i] = d(rng);
  return x;
}

double rel_err(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) { return (a - b).norm() / std::max(1.0, b.norm()); }

CliResult run_cli(const std::string& args) {
  const std::string cmd = std::string("'") + ARTICULA_CLI_PATH + "' " + args + " 2>&1";
  CliResult r;
  FILE* pipe = popen(cmd.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 4096> buf;
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) r.output.append(buf.data(), n);
  const int status = pclose(pipe);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

void add_armature(Model& model) {
  for (int k = 0; k < model.nv; ++k) model.armature[k] = 0.01 + 0.09 * k / std::max(1, model.nv - 1);
}

Model load_with_armature(const std::string& name) {
  for (const ModelCase& c : all_models())
    if (c.name == name) {
      Model model = load(c);
      add_armature(model);
      return model;
    }
  throw std::invalid_argument("no bundled test model '" + name + "'");
}

int exit_code_with_file_size_limit(long max_file_bytes, const std::function<int()>& body) {
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    int code = 100;
    try {
      ::signal(SIGXFSZ, SIG_IGN);
      const rlimit limit{static_cast<rlim_t>(max_file_bytes), static_cast<rlim_t>(max_file_bytes)};
      ::setrlimit(RLIMIT_FSIZE, &limit);
      code = body();
    } catch (...) {
    }
    ::_exit(code);
  }
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) return -1;
  return WEXITSTATUS(status);
}

ScratchDir::ScratchDir(const std::string& stem)
    : path_(::testing::TempDir() + stem + "_" + std::to_string(::getpid())) {
  std::filesystem::remove_all(path_);
  std::filesystem::create_directories(path_);
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

StandingHumanoid standing_humanoid() {
  StandingHumanoid h{Robot::from_urdf(model_path("talos_reduced"), true), {}, {}};
  const Model& model = h.robot.model();
  h.q = neutral(model);
  h.q[2] = 1.0;
  for (Index j = 1; j < model.njoints; ++j) {
    h.robot.add_motor(
        {.name = model.joint_names[j], .joint = model.joint_names[j], .gear_ratio = 100, .rotor_inertia = 1e-5});
    h.targets.emplace_back(model.joint_names[j], h.q[model.idx_q[j]]);
  }
  h.robot.constraints().add(std::make_shared<FrameConstraint>("left_foot", "left_sole_link"));
  h.robot.constraints().add(std::make_shared<FrameConstraint>("right_foot", "right_sole_link"));
  return h;
}

}  // namespace articula::test
