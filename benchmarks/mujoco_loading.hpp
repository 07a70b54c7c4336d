#pragma once
/// MuJoCo model loading shared by the MuJoCo adapters (peer_mujoco_constrained.cpp,
/// peer_mujoco_simulation.cpp): owning pointers, loading a URDF/MJCF text through MuJoCo's
/// virtual file system, and writing back the last compiled model as MJCF text.
#include <mujoco/mujoco.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "mujoco_common.hpp"

namespace articula::bench::mjutil {

struct ModelDeleter {
  void operator()(mjModel* m) const { mj_deleteModel(m); }
};
struct DataDeleter {
  void operator()(mjData* d) const { mj_deleteData(d); }
};
using ModelPtr = std::unique_ptr<mjModel, ModelDeleter>;
using DataPtr = std::unique_ptr<mjData, DataDeleter>;

// mj_loadXML on a text (URDF or MJCF) through MuJoCo's virtual file system.
inline ModelPtr load_text(const std::string& text, const char* name, const std::string& what) {
  auto vfs = std::make_unique<mjVFS>();
  mj_defaultVFS(vfs.get());
  if (mj_makeEmptyFileVFS(vfs.get(), name, static_cast<int>(text.size())) != 0)
    throw std::runtime_error("MuJoCo peer: cannot create a VFS file");
  std::memcpy(vfs->filedata[mj_findFileVFS(vfs.get(), name)], text.data(), text.size());
  char error[1024] = "";
  ModelPtr m(mj_loadXML(name, vfs.get(), error, sizeof(error)));
  mj_deleteVFS(vfs.get());
  if (!m) throw std::runtime_error("MuJoCo peer: mj_loadXML(" + what + "): " + error);
  return m;
}

// The model MuJoCo compiled last (here: the URDF), written as MJCF text. MuJoCo 2.2.2
// can only write it to a file: a temporary one, removed at once.
inline std::string last_model_as_mjcf(const mjModel* m) {
  char path[] = "/tmp/articula_bench_mjcf_XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) throw std::runtime_error("MuJoCo peer: cannot create a temporary file");
  close(fd);
  char error[1024] = "";
  const int ok = mj_saveLastXML(path, m, error, sizeof(error));
  std::string text;
  if (ok) text = mjutil::read_file(path);
  std::remove(path);
  if (!ok) throw std::runtime_error(std::string("MuJoCo peer: mj_saveLastXML: ") + error);
  return text;
}

inline std::string fmt(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

}  // namespace articula::bench::mjutil
