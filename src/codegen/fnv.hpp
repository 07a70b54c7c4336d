#pragma once
// 64-bit FNV-1a (Fowler–Noll–Vo; the published offset basis and prime), for the model digest,
// the cache keys of compiled kernels and their libraries' checksums.
#include <cstdint>
#include <cstdio>
#include <string>

namespace articula::codegen {

struct Fnv {
  std::uint64_t h = 14695981039346656037ull;
  void bytes(const void* data, std::size_t n) {
    const auto* b = static_cast<const unsigned char*>(data);
    for (std::size_t k = 0; k < n; ++k) h = (h ^ b[k]) * 1099511628211ull;
  }
  /// The characters and the terminating NUL (so that "ab","c" differs from "a","bc").
  void text(const std::string& s) { bytes(s.c_str(), s.size() + 1); }
  std::uint64_t value() const { return h; }
};

/// 16 lower-case hex digits.
inline std::string hex(std::uint64_t x) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(x));
  return buf;
}

}  // namespace articula::codegen
