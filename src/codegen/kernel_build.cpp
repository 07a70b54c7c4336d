// Building one cache entry of compiled kernels (kernel_build.hpp).
#include "codegen/kernel_build.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "codegen/constrained.hpp"

extern char** environ;

namespace articula::codegen {
namespace fs = std::filesystem;
namespace {

void write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out.flush()) throw CompileError("compile_kernels: cannot write '" + path.string() + "'");
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> words(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

// Starts `args` with stdout and stderr into `log`; returns the pid (−1 when it cannot start).
pid_t start(const std::vector<std::string>& args, const fs::path& log) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = -1;
  const int rc = posix_spawnp(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  return rc == 0 ? pid : -1;
}

bool finished_ok(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return false;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

// Waits until one of `pids` ends (polling: waitpid(-1) could reap a child of the host
// program); returns its index and whether it succeeded.
std::pair<std::size_t, bool> finished_any(const std::vector<pid_t>& pids) {
  for (;;) {
    for (std::size_t i = 0; i < pids.size(); ++i) {
      int status = 0;
      const pid_t r = waitpid(pids[i], &status, WNOHANG);
      if (r == pids[i]) return {i, WIFEXITED(status) && WEXITSTATUS(status) == 0};
      if (r < 0 && errno != EINTR) return {i, false};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

std::string joined(const std::vector<std::string>& args) {
  std::string s;
  for (const std::string& a : args) s += (s.empty() ? "" : " ") + a;
  return s;
}

// The folder that holds articula/common/sincos.hpp: $ARTICULA_INCLUDE_DIR, the source tree,
// the install prefix (compile-time paths, src/CMakeLists.txt).
fs::path include_dir() {
  std::vector<fs::path> dirs;
  if (const char* d = std::getenv("ARTICULA_INCLUDE_DIR"); d && *d) dirs.emplace_back(d);
  dirs.emplace_back(ARTICULA_SOURCE_INCLUDE_DIR);
  dirs.emplace_back(ARTICULA_INSTALL_INCLUDE_DIR);
  std::error_code ec;
  std::string list;
  for (const fs::path& d : dirs) {
    if (fs::is_regular_file(d / "articula" / "common" / "sincos.hpp", ec)) return d;
    list += ' ';
    list += d.string();
  }
  throw CompileError("compile_kernels: cannot find articula's headers (looked in" + list +
                     "); set ARTICULA_INCLUDE_DIR");
}

// The unit that exports the kernels: their key, and by name their addresses, and receives
// the host's log3 and joint_difference (the library needs no symbol of the program that loads it).
std::string table_unit(const std::string& name, const std::string& key, const CompileOptions& o) {
  const bool constrained = o.constrained();
  const KernelSelection which = kernel_selection(o, o.engine_kernels_only);
  const bool all = which.jump, plain = which.plain, fext = which.fext;
  const std::string ns = "::articula::generated::" + name;
  std::string s = "// The kernel table of cache entry " + key + " (src/codegen/kernel_build.cpp).\n#include \"" + name +
                  ".hpp\"\n#include <cstring>\n";
  if (constrained)
    s += "#include \"articula/model/joint.hpp\"\nnamespace {\n::articula::Vector3 (*host_log3)(const "
         "::articula::Matrix3&) = nullptr;\nvoid (*host_difference)(::articula::JointType, const double*, const "
         "double*, double*) = nullptr;\n}\nnamespace articula {\nVector3 log3(const Matrix3& R) { return "
         "host_log3(R); }\nvoid joint_difference(JointType t, const double* q0, const double* q1, double* v) {\n  "
         "host_difference(t, q0, q1, v);\n}\n}  // namespace articula\n";
  s += "#define ARTICULA_EXPORT extern \"C\" __attribute__((visibility(\"default\")))\n"
       "ARTICULA_EXPORT const char* articula_kernels_key() { return \"" +
       key + "\"; }\nARTICULA_EXPORT void articula_kernels_bind(void* log3, void* difference) {\n";
  s += constrained ? "  host_log3 = reinterpret_cast<::articula::Vector3 (*)(const ::articula::Matrix3&)>(log3);\n"
                     "  host_difference = reinterpret_cast<void (*)(::articula::JointType, const double*, const "
                     "double*, double*)>(difference);\n"
                   : "  (void)log3, (void)difference;\n";
  s += "}\nARTICULA_EXPORT void* articula_kernel(const char* name) {\n";
  std::vector<std::string> kernels;  // as generate_kernels selects them
  if (all) kernels.insert(kernels.end(), {"rnea", "crba"});
  if (plain) kernels.push_back("aba");
  if (fext) kernels.push_back("aba_fext");
  kernels.push_back("energy");
  if (!o.state_frames.empty()) kernels.push_back("body_states");
  if (!o.contacts.empty()) kernels.push_back("aba_contacts");
  if (constrained && plain) kernels.push_back("constrained_dynamics");
  if (constrained && fext) kernels.push_back("constrained_dynamics_fext");
  if (constrained && all) kernels.push_back("velocity_jump");
  for (const std::string& k : kernels)
    s += "  if (std::strcmp(name, \"" + k + "\") == 0) return reinterpret_cast<void*>(&" + ns + "::" + k + ");\n";
  return s + "  return nullptr;\n}\n";
}

}  // namespace

std::string file_fnv(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  Fnv h;
  char buf[1 << 16];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) h.bytes(buf, static_cast<std::size_t>(in.gcount()));
  return hex(h.value());
}

std::string find_compiler(const std::string& requested) {
  std::string c = requested;
  if (c.empty()) {
    const char* env = std::getenv("CXX");
    c = env && *env ? env : "c++";
  }
  if (c.find('/') != std::string::npos) {
    if (access(c.c_str(), X_OK) == 0) return c;
  } else if (const char* path = std::getenv("PATH")) {
    std::istringstream dirs(path);
    for (std::string d; std::getline(dirs, d, ':');)
      if (!d.empty() && access((fs::path(d) / c).c_str(), X_OK) == 0) return (fs::path(d) / c).string();
  }
  throw CompileError("compile_kernels: no C++ compiler: '" + c +
                     "' is not an executable (set CXX, or install g++); the runtime algorithms are used");
}

int build_entry(const Model& model, const CompileOptions& options, const std::string& compiler, const fs::path& dir,
                const std::string& key) {
  static std::atomic<int> counter{0};
  const fs::path work =
      dir / ("build-" + key + "-" + std::to_string(getpid()) + "-" + std::to_string(counter.fetch_add(1)));
  std::error_code ec;
  fs::remove_all(work, ec);
  fs::create_directories(work, ec);
  if (ec) throw CompileError("compile_kernels: cannot create '" + work.string() + "': " + ec.message());
  struct Cleanup {
    fs::path p;
    ~Cleanup() {
      std::error_code e;
      fs::remove_all(p, e);
    }
  } cleanup{work};

  const std::string name = "k" + key;
  CodegenOptions co;
  co.origin = model.name + " (compile_kernels)";
  static_cast<KernelDeclarations&>(co) = options;
  co.max_statements = options.max_statements;
  co.engine_kernels_only = options.engine_kernels_only;
  const GeneratedKernels g = generate_kernels(model, name, co);
  write_text(work / (name + ".hpp"), g.header);
  std::vector<fs::path> sources;
  for (std::size_t u = 0; u < g.units.size(); ++u) {
    sources.push_back(work / ("unit" + std::to_string(u) + ".cpp"));
    write_text(sources.back(), g.units[u]);
  }
  sources.push_back(work / "table.cpp");
  write_text(sources.back(), table_unit(name, key, options));

  const std::vector<std::string> flags = words(options.flags);
  const std::vector<std::string> common{"-std=c++20",
                                        "-fPIC",
                                        "-fvisibility=hidden",
                                        "-w",
                                        "-I" + work.string(),
                                        "-I" + include_dir().string(),
                                        "-isystem",
                                        ARTICULA_EIGEN_INCLUDE_DIR};
  const int jobs =
      options.jobs > 0 ? options.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // Units, the longest first (longest processing time first: the shortest wall time for
  // `jobs` processes), a new one as soon as any ends.
  std::vector<std::size_t> order(sources.size());
  for (std::size_t u = 0; u < order.size(); ++u) order[u] = u;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto size = [&](std::size_t u) { return u < g.units.size() ? g.units[u].size() : 0; };
    return size(a) > size(b);
  });
  std::vector<pid_t> running;
  std::vector<std::size_t> running_unit;
  std::vector<std::string> objects;
  std::string failure;
  auto reap = [&](std::size_t i, bool ok) {
    if (!ok && failure.empty()) {
      const std::size_t u = running_unit[i];
      failure = "compile_kernels: " + compiler + " failed on " + sources[u].filename().string() + ":\n" +
                read_text(sources[u].string() + ".log");
    }
    running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
    running_unit.erase(running_unit.begin() + static_cast<std::ptrdiff_t>(i));
  };
  for (const std::size_t u : order) {
    if (static_cast<int>(running.size()) == jobs) {
      const auto [i, ok] = finished_any(running);
      reap(i, ok);
    }
    std::vector<std::string> args{compiler};
    args.insert(args.end(), flags.begin(), flags.end());
    args.insert(args.end(), common.begin(), common.end());
    objects.push_back(sources[u].string() + ".o");
    args.insert(args.end(), {"-c", sources[u].string(), "-o", objects.back()});
    const pid_t pid = start(args, sources[u].string() + ".log");
    if (pid < 0) throw CompileError("compile_kernels: cannot run '" + joined(args) + "'");
    running.push_back(pid);
    running_unit.push_back(u);
  }
  while (!running.empty()) {
    const auto [i, ok] = finished_any(running);
    reap(i, ok);
  }
  if (!failure.empty()) throw CompileError(failure);

  const fs::path so = work / "kernels.so";
  std::vector<std::string> link{compiler, "-shared", "-o", so.string()};
  link.insert(link.end(), objects.begin(), objects.end());
  const pid_t pid = start(link, work / "link.log");
  if (pid < 0 || !finished_ok(pid))
    throw CompileError("compile_kernels: linking failed: " + joined(link) + "\n" + read_text(work / "link.log"));

  // Publish: the library under a name with its checksum, then the manifest that names it;
  // each by rename (atomic on one file system), so a reader sees an old or a new entry, whole.
  const std::string fnv = file_fnv(so);
  const std::uintmax_t size = fs::file_size(so);
  const std::string lib_name = key + "-" + fnv + ".so";
  fs::rename(so, dir / lib_name, ec);
  if (ec) throw CompileError("compile_kernels: cannot publish '" + (dir / lib_name).string() + "': " + ec.message());
  write_text(work / "manifest", "articula-kernels 1\nkey " + key + "\nlibrary " + lib_name + "\nsize " +
                                    std::to_string(size) + "\nfnv " + fnv + "\n");
  fs::rename(work / "manifest", dir / (key + ".manifest"), ec);
  if (ec) throw CompileError("compile_kernels: cannot publish the manifest of " + key + ": " + ec.message());
  return static_cast<int>(sources.size());
}

}  // namespace articula::codegen
