// `articula info MODEL.urdf [--floating]`: sizes, mass, the joint table and the frames.
#include <cstdio>
#include <iostream>
#include <string>

#include "articula/articula.hpp"
#include "commands.hpp"

namespace articula::cli {
namespace {

std::string limit(double x) {
  if (!std::isfinite(x)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", x);
  return buf;
}

int run_info(const std::string& path, bool floating) {
  require_input_file(path, "model file");
  const Model model = load_urdf(path, floating ? BaseType::Floating : BaseType::Fixed);
  std::printf("model      %s (%s)\n", model.name.c_str(), path.c_str());
  std::printf("base       %s\n", floating ? "floating (free-flyer root_joint)" : "fixed");
  std::printf("nq %d  nv %d  joints %d  frames %zu  total mass %.6g kg\n\n", model.nq, model.nv, model.njoints,
              model.frames.size(), model.total_mass());
  std::printf("%-3s %-28s %-10s %-24s %3s %3s %10s %10s %9s %9s %8s\n", "#", "joint", "type", "parent body", "iq", "iv",
              "lower", "upper", "vel", "effort", "armature");
  for (Index i = 0; i < model.njoints; ++i) {
    const int iq = model.idx_q[i], iv = model.idx_v[i];
    const Index p = model.parents[i];
    std::printf("%-3d %-28s %-10s %-24s %3d %3d %10s %10s %9s %9s %8s\n", i, model.joint_names[i].c_str(),
                std::string(to_string(model.joint_types[i])).c_str(),
                p == kWorld ? "(world)" : model.body_names[p].c_str(), iq, iv, limit(model.lower[iq]).c_str(),
                limit(model.upper[iq]).c_str(), limit(model.velocity_limit[iv]).c_str(),
                limit(model.effort_limit[iv]).c_str(), limit(model.armature[iv]).c_str());
  }
  std::printf("\n%-3s %-30s %-10s %-24s\n", "#", "frame", "kind", "on body");
  for (std::size_t k = 0; k < model.frames.size(); ++k) {
    const Frame& f = model.frames[k];
    const char* kind = f.type == FrameType::Body ? "body" : f.type == FrameType::FixedLink ? "fixed link" : "user";
    std::printf("%-3zu %-30s %-10s %-24s\n", k, f.name.c_str(), kind,
                f.parent == kWorld ? "(world)" : model.body_names[f.parent].c_str());
  }
  return 0;
}

}  // namespace

Command add_info_command(CLI::App& app) {
  auto* sub = app.add_subcommand("info", "Print a model's sizes, mass, joint table and frames");
  auto path = std::make_shared<std::string>();
  auto floating = std::make_shared<bool>(false);
  sub->add_option("model", *path, "URDF file")->required();
  sub->add_flag("--floating", *floating, "Put a free-flyer joint at the root link");
  return [path, floating] { return run_info(*path, *floating); };
}

}  // namespace articula::cli
