#include "malloc_counter.hpp"

#include <cerrno>
#include <cstddef>
#include <cstring>

extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
}

namespace {
thread_local long g_allocations = 0;
thread_local int g_armed = 0;
inline void note() {
  if (g_armed > 0) ++g_allocations;
}
}  // namespace

extern "C" {
void* malloc(std::size_t n) {
  note();
  return __libc_malloc(n);
}
void* calloc(std::size_t n, std::size_t size) {
  note();
  return __libc_calloc(n, size);
}
void* realloc(void* p, std::size_t n) {
  note();
  return __libc_realloc(p, n);
}
void* memalign(std::size_t alignment, std::size_t n) {
  note();
  return __libc_memalign(alignment, n);
}
void* aligned_alloc(std::size_t alignment, std::size_t n) {
  note();
  return __libc_memalign(alignment, n);
}
int posix_memalign(void** out, std::size_t alignment, std::size_t n) {
  note();
  void* p = __libc_memalign(alignment, n);
  if (p == nullptr) return ENOMEM;
  *out = p;
  return 0;
}
}

namespace articula::test {

CountAllocations::CountAllocations() : start_(g_allocations) { ++g_armed; }
CountAllocations::~CountAllocations() { --g_armed; }
long CountAllocations::count() const { return g_allocations - start_; }

}  // namespace articula::test
