// SPDX-License-Identifier: BSL-1.0
// Checked mode: with OWN_CHECKED defined, misuse that would otherwise be undefined behaviour (an
// empty pointer dereferenced, an index out of range, a block freed twice) prints what happened and
// aborts. Without it, OWN_CHECK costs nothing. Define it the same way in every translation
// unit of a program, like _GLIBCXX_ASSERTIONS.
#pragma once

#include <cstdarg>
#include <cstdio>
#include <cstdlib>

namespace own::detail {

[[noreturn]] __attribute__((format(printf, 1, 2))) inline void checked_failure(const char* format, ...) noexcept {
  std::va_list args;
  va_start(args, format);
  std::fputs("own: ", stderr);
  std::vfprintf(stderr, format, args);
  std::fputc('\n', stderr);
  va_end(args);
  std::fflush(stderr);
  std::abort();
}

}  // namespace own::detail

#ifdef OWN_CHECKED
#define OWN_CHECK(condition, ...) ((condition) ? static_cast<void>(0) : ::own::detail::checked_failure(__VA_ARGS__))
#else
// Unevaluated: costs nothing, yet what only the check would use is not "unused".
#define OWN_CHECK(condition, ...) \
  static_cast<void>(sizeof((condition) ? 0 : (::own::detail::checked_failure(__VA_ARGS__), 0)))
#endif
