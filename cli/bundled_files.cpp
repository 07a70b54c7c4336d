// The bundled files' lookup (bundled_files.hpp).
#include "bundled_files.hpp"

#include <cctype>
#include <cstdlib>
#include <stdexcept>

namespace articula::cli {
namespace fs = std::filesystem;

std::optional<fs::path> find_bundled_dir(const std::string& kind, const std::string& file,
                                         std::vector<fs::path>* tried) {
  std::vector<fs::path> dirs;
  std::string env_name = "ARTICULA_";
  for (char c : kind) env_name += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  env_name += "_DIR";
  if (const char* env = std::getenv(env_name.c_str()); env && *env) dirs.emplace_back(env);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) dirs.push_back(exe.parent_path().parent_path() / "share" / "articula" / kind);
  // Compile-time folders (cli/CMakeLists.txt): the source tree, then the install prefix.
  dirs.push_back(fs::path(ARTICULA_SOURCE_DIR) / kind);
  dirs.push_back(fs::path(ARTICULA_INSTALL_DATA_DIR) / kind);
  if (tried) *tried = dirs;
  for (const fs::path& d : dirs)
    if (fs::is_regular_file(d / file, ec)) return d;
  return std::nullopt;
}

fs::path bundled_models_dir() {
  std::vector<fs::path> tried;
  if (auto dir = find_bundled_dir("models", "rx130_standin.urdf", &tried)) return *dir;
  std::string list;
  for (const fs::path& p : tried) list += "\n  " + p.string();
  throw std::runtime_error("cannot find the bundled models (rx130_standin.urdf); looked in:" + list +
                           "\nset ARTICULA_MODELS_DIR or give --model");
}

std::optional<fs::path> tool_script(const std::string& script) {
  if (auto dir = find_bundled_dir("tools", script)) return *dir / script;
  return std::nullopt;
}

std::optional<std::string> python_with_matplotlib() {
  for (const char* python : {"python3", "/usr/bin/python3"})
    if (std::system((std::string(python) + " -c 'import matplotlib' >/dev/null 2>&1").c_str()) == 0) return python;
  return std::nullopt;
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace articula::cli
