#pragma once
// Building a cache entry of compiled kernels (compiled.cpp): the generated units and a
// table unit written to a private folder, compiled in parallel by the system compiler,
// linked, then published in the cache by rename.
#include <cstdint>
#include <filesystem>
#include <string>

#include "articula/codegen/compiled.hpp"
#include "codegen/fnv.hpp"

namespace articula::codegen {

/// The FNV-1a of a file's bytes, in hex ("" when it cannot be read).
std::string file_fnv(const std::filesystem::path& path);

/// The compiler to run: `requested`, else $CXX, else c++; an absolute path, or a name found
/// on PATH. Throws CompileError naming what was looked for.
std::string find_compiler(const std::string& requested);

/// Generates, compiles and publishes the entry `key` in `dir`. Returns the units compiled.
/// Throws CompileError with the compiler's output when it fails.
int build_entry(const Model& model, const CompileOptions& options, const std::string& compiler,
                const std::filesystem::path& dir, const std::string& key);

}  // namespace articula::codegen
