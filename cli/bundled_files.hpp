#pragma once
/// Where the CLI finds the files it ships with (models/, tools/, studies/) and the helpers
/// it runs them with. One lookup order for every kind: $ARTICULA_<KIND>_DIR, then
/// <exe>/../share/articula/<kind> (an install, wherever it was moved), then the source tree
/// and the configured install prefix (compile-time paths).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace articula::cli {

/// kind: "models", "tools" or "studies". Returns the first folder of the lookup order that
/// holds `file`, or nothing; `tried` (when given) receives every folder looked in.
std::optional<std::filesystem::path> find_bundled_dir(const std::string& kind, const std::string& file,
                                                      std::vector<std::filesystem::path>* tried = nullptr);

/// The bundled models/ folder (the one that holds rx130_standin.urdf). Throws
/// std::runtime_error listing the places tried.
std::filesystem::path bundled_models_dir();

/// tools/<script> (plot_log.py, plot_stopping.py), or nothing when it is not found.
std::optional<std::filesystem::path> tool_script(const std::string& script);

/// A python3 that has matplotlib: the one on PATH, else the system's (Debian's
/// python3-matplotlib is installed for /usr/bin/python3, which may not be first on PATH).
std::optional<std::string> python_with_matplotlib();

/// `s` quoted for /bin/sh: in single quotes, with each ' written as '\''.
std::string shell_quote(const std::string& s);

}  // namespace articula::cli
