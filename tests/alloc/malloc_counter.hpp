#pragma once
/// Counts the heap allocations made by the calling thread while a CountAllocations is alive:
/// malloc, calloc, realloc, aligned_alloc, memalign and posix_memalign are replaced (glibc:
/// they forward to __libc_malloc & co.), which also catches operator new and Eigen's
/// aligned_malloc. Linked only into articula_alloc_tests, never with the sanitizers.
namespace articula::test {

class CountAllocations {
 public:
  CountAllocations();
  ~CountAllocations();
  CountAllocations(const CountAllocations&) = delete;
  CountAllocations& operator=(const CountAllocations&) = delete;
  long count() const;

 private:
  long start_;
};

}  // namespace articula::test
