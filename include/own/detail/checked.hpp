// Checked mode (OWN_CHECKED): misuse that the library can detect is reported on stderr and ends the
// program, because continuing after a double free or a foreign pointer corrupts memory silently.
// Without OWN_CHECKED, OWN_CHECK expands to nothing and its condition is not evaluated.
#pragma once

#include <cstdio>
#include <cstdlib>

namespace own::detail {

// Prints "own: <message>" on stderr and aborts.
[[noreturn]] inline void checked_failure(const char* message) noexcept {
  std::fprintf(stderr, "own: %s\n", message);
  std::fflush(stderr);
  std::abort();
}

}  // namespace own::detail

#ifdef OWN_CHECKED
#define OWN_CHECK(cond, message) ((cond) ? static_cast<void>(0) : ::own::detail::checked_failure(message))
#else
#define OWN_CHECK(cond, message) static_cast<void>(0)
#endif
