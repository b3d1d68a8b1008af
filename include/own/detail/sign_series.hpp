// SPDX-License-Identifier: BSL-1.0
// The clock and the pacing of atomic_shared_ptr's turn-taking back-offs (write_backoff,
// read_backoff). Each looks for its own sign that the thread is trading an atomic's cache lines with
// another core; what they share is when a sign pauses. Threads that meet by design (a producer and
// a consumer, a store every few microseconds) give signs too, so a sign counts only if it comes less
// than a window after the thread's previous sign ended: a few microseconds (2^12 ticks of x86's
// time-stamp counter, which runs at 1-4 GHz; 2 us of AArch64's virtual counter, by its stated
// frequency). A sign that counts pauses 2^k spin hints, k being the signs that counted in a row
// before it, up to the back-off's bound (doubling_pause); one that does not count starts the series
// again. A pause longer than the window ends the series. Where there is no cheap clock (neither x86
// nor AArch64), nothing pauses.
#pragma once

#include <cstdint>

#include "doubling_pause.hpp"
#include "slow_path.hpp"

namespace own::detail {

// The counter the back-offs read: x86's time-stamp counter, AArch64's virtual counter.
struct tick_clock {
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
  static constexpr bool has_clock = true;
#else
  static constexpr bool has_clock = false;
#endif

  static std::uint64_t ticks() noexcept {
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
    std::uint64_t t;
    __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(t));
    return t;
#else
    return 0;
#endif
  }
};

// WindowLog2Scale: the window is 2^WindowLog2Scale times the one above (and the override's).
template <unsigned MaxDoublings, unsigned WindowLog2Scale = 0>
struct sign_series {
  std::uint64_t sign_ended;
  doubling_pause<MaxDoublings> wait;
  std::uint64_t window_override;  // for tests: the unscaled window in ticks, or 0 for the default

  std::uint64_t window() const noexcept {
    return (window_override != 0 ? window_override : default_window()) << WindowLog2Scale;
  }

  // A sign: a pause if it counts, else the start of a new series.
  OWN_NOINLINE void sign() noexcept {
    if (go_on()) return;
    wait.restart();
    sign_ended = tick_clock::ticks();
  }
  // Weaker evidence, enough to go on with a series but never to start one: a pause if it counts,
  // else nothing at all. Whether it paused.
  OWN_NOINLINE bool go_on() noexcept {
    if (tick_clock::ticks() - sign_ended >= window()) return false;
    wait.pause();
    sign_ended = tick_clock::ticks();
    return true;
  }

 private:
  static std::uint64_t default_window() noexcept {
#if defined(__aarch64__)
    std::uint64_t frequency;
    __asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(frequency));
    return frequency / 500000 + 1;
#else
    return 1u << 12;
#endif
  }
};

}  // namespace own::detail
