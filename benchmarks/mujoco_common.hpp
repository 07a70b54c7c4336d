#pragma once
/// Helpers shared by the MuJoCo adapters (peer_mujoco.cpp, peer_mujoco_constrained.cpp):
/// frame conversions between articula's and MuJoCo's free-joint coordinates, and the
/// URDF text with a free joint added. Standard types only (no MuJoCo, no Eigen).
#include <array>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace articula::bench::mjutil {

using Mat3 = std::array<double, 9>;  // row-major

/// world_R_base from articula's quaternion [qx qy qz qw].
inline Mat3 rotation_from_quat(const double* xyzw) {
  const double x = xyzw[0], y = xyzw[1], z = xyzw[2], w = xyzw[3];
  return {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
          2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
          2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
}
inline void mul(const Mat3& R, const double* in, double* out) {  // out = R in
  for (int r = 0; r < 3; ++r) out[r] = R[3 * r] * in[0] + R[3 * r + 1] * in[1] + R[3 * r + 2] * in[2];
}
inline void mul_t(const Mat3& R, const double* in, double* out) {  // out = Rᵀ in
  for (int c = 0; c < 3; ++c) out[c] = R[c] * in[0] + R[3 + c] * in[1] + R[6 + c] * in[2];
}
inline void cross(const double* a, const double* b, double* out) {
  out[0] = a[1] * b[2] - a[2] * b[1];
  out[1] = a[2] * b[0] - a[0] * b[2];
  out[2] = a[0] * b[1] - a[1] * b[0];
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("MuJoCo peer: cannot read " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The URDF text with a free joint world -> root_link: MuJoCo's URDF reader maps
/// a URDF joint of type "floating" to an mjJNT_FREE joint. The added parent link
/// has no inertia and no joint to the world, so MuJoCo fuses it into the world body.
inline std::string add_floating_root(std::string urdf, const std::string& root_link) {
  const auto end = urdf.rfind("</robot>");
  if (end == std::string::npos) throw std::runtime_error("MuJoCo peer: no </robot> in the URDF");
  urdf.insert(end,
              "  <link name=\"articula_bench_world\"/>\n"
              "  <joint name=\"root_joint\" type=\"floating\">\n"
              "    <parent link=\"articula_bench_world\"/>\n"
              "    <child link=\"" +
                  root_link +
                  "\"/>\n"
                  "  </joint>\n");
  return urdf;
}

}  // namespace articula::bench::mjutil
