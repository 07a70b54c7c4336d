#pragma once
/// Kernels compiled on demand: generate_kernels() for one model, built with the system C++
/// compiler for this machine (-march=native) into a cache keyed by what the code depends on,
/// then loaded with dlopen. The next process with the same model loads them from the cache.
/// docs/codegen.md, "Compiled on demand".
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "articula/codegen/kernels.hpp"
#include "articula/model/model.hpp"

namespace articula {

/// No compiler, or the compiler failed: what ran and what it printed.
class CompileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// What to compile (the declarations, as CodegenOptions's) and how.
struct CompileOptions : KernelDeclarations {
  /// Only the kernels a Simulator calls (CodegenOptions::engine_kernels_only); the others'
  /// pointers in CompiledKernels are then null.
  bool engine_kernels_only = false;
  /// "" → $ARTICULA_CACHE_DIR, else $XDG_CACHE_HOME/articula, else $HOME/.cache/articula.
  std::string cache_dir;
  /// "" → $CXX, else "c++" (on PATH).
  std::string compiler;
  /// Optimization flags; part of the cache key. On the kernels' long straight-line functions
  /// g++ 12 compiles faster at -O2 than at -O1 (talos ABA unit: 14–17 s against 24–30 s) and the
  /// code runs faster (solo12 aba: 0.87 against 1.28 µs); benchmarks/README.md, "Compiled on demand".
  std::string flags = "-O2 -march=native";
  /// Parallel compiler processes (the kernels are split into units); 0 → the cores.
  int jobs = 0;
  /// Kernels longer than this many statements are cut into parts of their own units
  /// (CodegenOptions::max_statements; 0: whole); part of the cache key. In parts of 800 (the
  /// default) talos's kernels compile in about half the time of whole ones and its whole runs
  /// are 10–25 % faster; parts of 3 000 or more run slower (docs/codegen.md, "Kernels in parts").
  int max_statements = kDefaultMaxStatements;
};

/// Loaded kernels and the declarations they were compiled for; the library stays loaded while
/// this object (or a GeneratedDynamics made from it) lives. Function pointers are null for
/// kernels that were not generated.
struct CompiledKernels : KernelTable {
  std::string key;               ///< cache key (16 hex digits)
  std::string library;           ///< path of the loaded shared object
  bool from_cache = false;       ///< loaded without compiling
  double seconds = 0.0;          ///< [s] wall time of compile_kernels (generation, compile, load)
  int units = 0;                 ///< translation units compiled (0 from the cache)
  std::shared_ptr<void> handle;  ///< dlopen handle; dlclose when the last owner goes
};

/// The cache folder compile_kernels() uses for `options` (created when needed).
std::string kernel_cache_dir(const CompileOptions& options = {});

/// Loads the model's kernels from the cache, or generates, compiles and caches them first.
/// A cache entry is used only when its manifest, its library's size and checksum and the key
/// compiled into the library all match: a truncated, stale or foreign entry is rebuilt, never
/// loaded. Concurrent processes are safe (each compiles in its own folder; the library and
/// the manifest are published by rename). Throws CompileError when no compiler is found or
/// it fails, std::invalid_argument for bad held frames or locked joints.
std::shared_ptr<const CompiledKernels> compile_kernels(const Model& model, const CompileOptions& options = {});

}  // namespace articula
