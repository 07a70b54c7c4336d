// Kernels compiled on demand (include/articula/codegen/compiled.hpp, docs/codegen.md): the
// cache, its manifests and the checks before a library is loaded. kernel_build.cpp runs the
// compiler.
#include "articula/codegen/compiled.hpp"

#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "articula/model/joint.hpp"
#include "codegen/kernel_build.hpp"

namespace articula {
namespace fs = std::filesystem;
namespace codegen {
namespace {

// What the key is computed from; any change makes another entry (docs/codegen.md, "Compiled on demand").
std::string cache_key(const Model& model, const CompileOptions& o, const std::string& compiler) {
  Fnv h;
  h.text("articula-kernels 1 " ARTICULA_VERSION " " ARTICULA_GENERATOR_DIGEST);
  h.text(model_digest(model));
  // A frame's name and where it is (the model digest leaves the frames out).
  auto frame = [&](const std::string& name) {
    h.text(name.empty() ? "the world" : name);
    if (!model.has_frame(name)) return;
    const Frame& fr = model.frames[model.frame_id(name)];
    h.bytes(&fr.parent, sizeof fr.parent);
    h.bytes(fr.placement.R.data(), sizeof(double) * 9);
    h.bytes(fr.placement.p.data(), sizeof(double) * 3);
  };
  for (const HeldFrame& f : o.held_frames) {
    h.text(f.kind());
    frame(f.frame);
    frame(f.relative_to);
  }
  for (const std::string& j : o.locked_joints) h.text("lock " + j);
  for (const HeldDistance& d : o.distances) {
    h.text("distance");
    frame(d.frame_a);
    frame(d.frame_b);
  }
  for (const HeldWheel& w : o.wheels) {
    h.text("wheel");
    frame(w.frame);
    h.bytes(&w.radius, sizeof w.radius);
    h.bytes(w.axis.data(), sizeof(double) * 3);
    h.bytes(w.normal.data(), sizeof(double) * 3);
    h.bytes(&w.height, sizeof w.height);
  }
  for (const std::string& f : o.state_frames) h.text("state " + f);
  for (const DeclaredContact& c : o.contacts) {
    h.text("contact");
    frame(c.frame);
    for (const Vector3* x : {&c.offset, &c.point, &c.normal}) h.bytes(x->data(), sizeof(double) * 3);
  }
  h.text(o.external_forces ? "external forces" : "no external forces");
  h.text(o.engine_kernels_only ? "engine kernels" : "all kernels");
  h.text(compiler);
  h.text(o.flags);
  h.text("parts of " + std::to_string(o.max_statements));
  return hex(h.value());
}

struct Manifest {
  std::string key, library;
  std::uintmax_t size = 0;
  std::string fnv;
};

std::optional<Manifest> read_manifest(const fs::path& path) {
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::string magic, version;
  Manifest m;
  std::string k1, k2, k3, k4;
  if (!(in >> magic >> version >> k1 >> m.key >> k2 >> m.library >> k3 >> m.size >> k4 >> m.fnv)) return std::nullopt;
  if (magic != "articula-kernels" || version != "1" || k1 != "key" || k2 != "library" || k3 != "size" || k4 != "fnv")
    return std::nullopt;
  if (m.library.find('/') != std::string::npos) return std::nullopt;
  return m;
}

using KeyFn = const char* (*)();
using BindFn = void (*)(void*, void*);
using KernelFn = void* (*)(const char*);

// Loads the entry `key` when every check passes; nothing otherwise (`why` says which failed).
std::shared_ptr<CompiledKernels> load_entry(const fs::path& dir, const std::string& key, std::string& why) {
  const auto m = read_manifest(dir / (key + ".manifest"));
  if (!m) return why = "no manifest", nullptr;
  if (m->key != key) return why = "manifest of another key", nullptr;
  const fs::path lib = dir / m->library;
  std::error_code ec;
  const std::uintmax_t size = fs::file_size(lib, ec);
  if (ec || size != m->size) return why = "library missing or of the wrong size", nullptr;
  if (file_fnv(lib) != m->fnv) return why = "library checksum differs", nullptr;
  void* handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) return why = std::string("dlopen: ") + dlerror(), nullptr;
  std::shared_ptr<void> owner(handle, [](void* h) { dlclose(h); });
  const auto key_fn = reinterpret_cast<KeyFn>(dlsym(handle, "articula_kernels_key"));
  const auto bind_fn = reinterpret_cast<BindFn>(dlsym(handle, "articula_kernels_bind"));
  const auto kernel_fn = reinterpret_cast<KernelFn>(dlsym(handle, "articula_kernel"));
  if (!key_fn || !bind_fn || !kernel_fn) return why = "library without the kernel table", nullptr;
  if (key != key_fn()) return why = "library compiled for another key", nullptr;
  // The constrained kernels call log3 and joint_difference (model/joint.hpp): the host's, so
  // that the library needs no symbol of the program that loads it.
  Vector3 (*log3_fn)(const Matrix3&) = &log3;
  void (*difference_fn)(JointType, const double*, const double*, double*) = &joint_difference;
  bind_fn(reinterpret_cast<void*>(log3_fn), reinterpret_cast<void*>(difference_fn));
  auto out = std::make_shared<CompiledKernels>();
  out->key = key;
  out->library = lib.string();
  out->rnea = reinterpret_cast<RneaKernel>(kernel_fn("rnea"));
  out->crba = reinterpret_cast<CrbaKernel>(kernel_fn("crba"));
  out->aba = reinterpret_cast<AbaKernel>(kernel_fn("aba"));
  out->constrained_dynamics = reinterpret_cast<ConstrainedKernel>(kernel_fn("constrained_dynamics"));
  out->velocity_jump = reinterpret_cast<JumpKernel>(kernel_fn("velocity_jump"));
  out->aba_fext = reinterpret_cast<AbaFextKernel>(kernel_fn("aba_fext"));
  out->constrained_dynamics_fext = reinterpret_cast<ConstrainedFextKernel>(kernel_fn("constrained_dynamics_fext"));
  out->body_states = reinterpret_cast<BodyStatesKernel>(kernel_fn("body_states"));
  out->aba_contacts = reinterpret_cast<AbaContactsKernel>(kernel_fn("aba_contacts"));
  out->energy = reinterpret_cast<EnergyKernel>(kernel_fn("energy"));
  if (!out->aba && !out->aba_fext && !out->aba_contacts) return why = "library without aba", nullptr;
  out->handle = std::move(owner);
  return out;
}

// Every kernel `o` asks for is in the library (an entry without one is stale).
bool has_kernels(const CompiledKernels& k, const CompileOptions& o) {
  return (o.engine_kernels_only || (k.rnea && k.crba && k.aba)) && (!o.external_forces || k.aba_fext) &&
         (o.state_frames.empty() || k.body_states) && (o.contacts.empty() || k.aba_contacts) && k.energy &&
         (!o.constrained() || k.constrained_dynamics || k.constrained_dynamics_fext);
}

}  // namespace
}  // namespace codegen

std::string kernel_cache_dir(const CompileOptions& options) {
  if (!options.cache_dir.empty()) return options.cache_dir;
  if (const char* d = std::getenv("ARTICULA_CACHE_DIR"); d && *d) return d;
  if (const char* d = std::getenv("XDG_CACHE_HOME"); d && *d) return (fs::path(d) / "articula").string();
  if (const char* d = std::getenv("HOME"); d && *d) return (fs::path(d) / ".cache" / "articula").string();
  return (fs::temp_directory_path() / "articula-cache").string();
}

std::shared_ptr<const CompiledKernels> compile_kernels(const Model& model, const CompileOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  // The held frames, locked joints and distances, checked as the generator checks them (unknown names listed).
  constrained_layout(model, options.held_frames, options.locked_joints, options.distances, options.wheels);
  for (const std::string& f : options.state_frames)
    if (!model.has_frame(f))
      throw std::invalid_argument("compile_kernels: model '" + model.name + "' has no frame '" + f + "'");
  const std::string compiler = codegen::find_compiler(options.compiler);
  const fs::path dir = kernel_cache_dir(options);
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw CompileError("compile_kernels: cannot create the cache folder '" + dir.string() + "': " + ec.message());
  const std::string key = codegen::cache_key(model, options, compiler);
  std::string why;
  std::shared_ptr<CompiledKernels> k = codegen::load_entry(dir, key, why);
  if (k && !codegen::has_kernels(*k, options)) k.reset();  // stale: rebuilt
  int units = 0;
  if (!k) {
    units = codegen::build_entry(model, options, compiler, dir, key);
    k = codegen::load_entry(dir, key, why);
    if (!k) throw CompileError("compile_kernels: the library just built for key " + key + " does not load: " + why);
  }
  k->from_cache = units == 0;
  k->units = units;
  k->model_digest = model_digest(model);
  static_cast<KernelDeclarations&>(*k) = options;
  if (!codegen::has_kernels(*k, options))
    throw CompileError("compile_kernels: the library just built for key " + key + " lacks kernels its options ask for");
  k->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return k;
}

}  // namespace articula
