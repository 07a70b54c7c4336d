// `articula codegen MODEL.urdf --name NAME [-o DIR] [--floating]`: writes DIR/NAME.hpp and
// DIR/NAME.cpp, the model-specific RNEA, CRBA and ABA (docs/codegen.md).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <stdexcept>
#include <vector>

#include "articula/articula.hpp"
#include "articula/codegen/kernels.hpp"
#include "commands.hpp"

namespace articula::cli {
namespace {

void write_file(const std::filesystem::path& path, const std::string& text) {
  // Written beside the target and renamed over it: a build never sees half a file.
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary);
    out << text;
    out.close();
    if (!out) throw std::runtime_error("codegen: cannot write '" + tmp.string() + "'");
  }
  std::filesystem::rename(tmp, path);
}

int run_codegen(const std::string& path, const std::string& name, const std::string& dir, bool floating, bool quiet,
                double snap, const std::vector<std::string>& holds) {
  const Model model = load_urdf(path, floating ? BaseType::Floating : BaseType::Fixed);
  CodegenOptions options;
  options.origin = std::filesystem::path(path).filename().string() + (floating ? " (floating base)" : " (fixed base)");
  options.snap = snap;
  for (const std::string& h : holds) {
    const auto colon = h.find(':');
    const std::string kind = colon == std::string::npos ? "" : h.substr(0, colon);
    if (kind != "weld" && kind != "point")
      throw std::invalid_argument("codegen: --hold '" + h + "': expected weld:FRAME or point:FRAME");
    options.held_frames.push_back({h.substr(colon + 1), kind == "weld"});
  }
  const GeneratedKernels k = generate_kernels(model, name, options);
  const std::filesystem::path out_dir(dir);
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) throw std::runtime_error("codegen: cannot create directory '" + dir + "': " + ec.message());
  write_file(out_dir / (name + ".hpp"), k.header);
  write_file(out_dir / (name + ".cpp"), k.source);
  if (!quiet)
    std::cout << "wrote " << (out_dir / (name + ".hpp")).string() << " and " << (out_dir / (name + ".cpp")).string()
              << " (" << k.lines << " statements; nq " << model.nq << ", nv " << model.nv << ", digest "
              << model_digest(model) << ")\n";
  return 0;
}

}  // namespace

Command add_codegen_command(CLI::App& app) {
  auto* sub = app.add_subcommand("codegen",
                                 "Write C++ source of RNEA, CRBA and ABA specialized to one model "
                                 "(NAME.hpp, NAME.cpp; docs/codegen.md)");
  auto path = std::make_shared<std::string>();
  auto name = std::make_shared<std::string>();
  auto dir = std::make_shared<std::string>(".");
  auto floating = std::make_shared<bool>(false);
  auto quiet = std::make_shared<bool>(false);
  auto snap = std::make_shared<double>(CodegenOptions{}.snap);
  auto holds = std::make_shared<std::vector<std::string>>();
  sub->add_option("model", *path, "URDF file")->required();
  sub->add_option("--name", *name, "C++ namespace articula::generated::NAME and file names")->required();
  sub->add_option("-o,--output-dir", *dir, "Directory for NAME.hpp and NAME.cpp (created if missing)");
  sub->add_flag("--floating", *floating, "Put a free-flyer joint at the root link");
  sub->add_flag("-q,--quiet", *quiet, "Print nothing on success");
  sub->add_option("--snap", *snap,
                  "Take placement rotation entries within this of 0 or +-1 as exact (0 = use the model's numbers)")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1e-3));
  sub->add_option("--hold", *holds,
                  "weld:FRAME or point:FRAME, repeatable: also write constrained_dynamics and velocity_jump "
                  "for these frames held in the world, in this order");
  return [=] { return run_codegen(*path, *name, *dir, *floating, *quiet, *snap, *holds); };
}

}  // namespace articula::cli
