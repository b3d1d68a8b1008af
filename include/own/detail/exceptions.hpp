// SPDX-License-Identifier: BSL-1.0
// Throwing, and cleaning up as an exception passes, in builds with and without exceptions
// (-fno-exceptions), as libstdc++'s __throw_* and __try/__catch do.
//
// Without exceptions, what would throw prints "own: <what()>" to stderr and aborts: every own API
// documented to throw ends the program there instead, and the nothrow forms (weak_ptr::lock,
// try_acquire, the pools' nothrow allocation paths) behave as before. OWN_TRY/OWN_CATCH_ALL compile
// the cleanup away, and OWN_RETHROW marks it unreachable.
#pragma once

#include <utility>

#include "slow_path.hpp"

#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#define OWN_HAS_EXCEPTIONS 1
#define OWN_TRY try
#define OWN_CATCH_ALL catch (...)
#define OWN_RETHROW throw
#else
#define OWN_HAS_EXCEPTIONS 0
#define OWN_TRY if (true)
#define OWN_CATCH_ALL if (false)
#if defined(__GNUC__) || defined(__clang__)
#define OWN_RETHROW __builtin_unreachable()
#else
#define OWN_RETHROW std::abort()
#endif
// Only where nothing is thrown: the report and the abort.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#endif

namespace own::detail {

// Throws E(args...), or, without exceptions, reports it and aborts. Out of line: the throw (or the
// report) is on no fast path.
template <class E, class... Args>
[[noreturn]] OWN_NOINLINE void throw_exception(Args&&... args) {
#if OWN_HAS_EXCEPTIONS
  throw E(std::forward<Args>(args)...);
#else
  const E e(std::forward<Args>(args)...);
  const char* what = e.what();
  const bool owns = std::strncmp(what, "own:", 4) == 0;  // own's messages say so already
  std::fprintf(stderr, "%s%s (thrown with exceptions disabled)\n", owns ? "" : "own: ", what);
  std::abort();
#endif
}

}  // namespace own::detail
