#pragma once
/// Contract macros. ARTICULA_CHECK is always on and throws std::invalid_argument
/// at the API boundary; ARTICULA_ASSERT is for internal invariants (debug only).
#include <cassert>
#include <sstream>
#include <stdexcept>
#include <string>

namespace articula::detail {
[[noreturn]] inline void fail_check(const char* where, const std::string& what) {
  throw std::invalid_argument(std::string(where) + ": " + what);
}
}  // namespace articula::detail

/// Throws std::invalid_argument("<func>: <message>") if cond is false; message is a stream expression.
#define ARTICULA_CHECK(cond, msg)                                         \
  do {                                                                    \
    if (!(cond)) {                                                        \
      std::ostringstream articula_check_os_;                              \
      articula_check_os_ << msg;                                          \
      ::articula::detail::fail_check(__func__, articula_check_os_.str()); \
    }                                                                     \
  } while (false)

/// Checks that vector x has size n (names the argument in the message).
#define ARTICULA_CHECK_SIZE(x, n) \
  ARTICULA_CHECK((x).size() == (n), "argument '" #x "' has size " << (x).size() << ", expected " << (n))

#define ARTICULA_ASSERT(cond) assert(cond)
