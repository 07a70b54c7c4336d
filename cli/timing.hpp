#pragma once
/// Median time per call of a function over batches (for `articula bench`).
#include <functional>

namespace articula::cli {

/// Calls f(k) for k = 0, 1, … in batches of `calls` and returns the median over
/// `batches` batches of the per-call time in nanoseconds.
double median_ns_per_call(const std::function<void(int)>& f, int calls, int batches);

}  // namespace articula::cli
