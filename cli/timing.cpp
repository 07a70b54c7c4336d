#include "timing.hpp"

#include <algorithm>
#include <chrono>
#include <vector>

namespace articula::cli {

double median_ns_per_call(const std::function<void(int)>& f, int calls, int batches) {
  std::vector<double> per_call;
  per_call.reserve(batches);
  int k = 0;
  for (int i = 0; i < calls; ++i) f(k++);  // warm-up
  for (int b = 0; b < batches; ++b) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) f(k++);
    const auto t1 = std::chrono::steady_clock::now();
    per_call.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / calls);
  }
  std::nth_element(per_call.begin(), per_call.begin() + batches / 2, per_call.end());
  return per_call[batches / 2];
}

}  // namespace articula::cli
