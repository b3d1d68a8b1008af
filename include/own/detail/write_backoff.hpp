// SPDX-License-Identifier: BSL-1.0
// Back-off for unconditional writes (atomic_shared_ptr's store and exchange) that keep alternating
// with another thread's accesses to the same atomic. Each write then takes the atomic's line (and
// the lines of the values' counts) from the other core, and the other core's next access takes them
// back: on two cores a store cost five times its one-thread time, as much as the same swap under a
// std::mutex, whose waiter sleeps and lets the holder run on alone; a load under such stores cost
// seven times its one-thread time.
//
// The signs, either of:
//  - another writer: just before writing, the atomic holds a node (not an empty value) that this
//    thread did not write, although this thread's last write (to any atomic) was to this one;
//  - a reader: this thread's last write was to this atomic, and the node it replaced was being read
//    (a hazard slot held it when the write looked, which it does anyway to know whether it may free
//    the node at once).
// Threads that take turns by design (a producer's store and a consumer's exchange, a store every few
// microseconds by each of two threads, a reader of a value rarely replaced) see that too, so a sign
// counts only if it comes less than `window` after the thread's previous sign ended: a few
// microseconds (2^12 ticks of x86's time-stamp counter, which runs at 1-4 GHz; 2 us of AArch64's
// virtual counter, by its stated frequency; read only on a sign, beside the cache miss a sign
// means). A sign that counts pauses, before the write, 2^k spin hints, k being the signs that
// counted in a row before it, up to 6; one that does not count starts the series again. The other
// writer meanwhile finds its own node and runs on alone, and the two take turns in runs of up to
// about the window (a pause longer than the window ends the series); a reader meanwhile loads a node,
// a count and a word that no write disturbs.
// (Pausing after the write instead would have each thread pause after each of its writes, and both
// would make one write per pause.) A node's address, once freed, may come back as another thread's
// node: the sign is then missed, never made up. An atomic's destructor forgets it, so that one made
// at the same address is new to every writer. Where there is no cheap clock (neither x86 nor
// AArch64), writes never pause.
#pragma once

#include <cstdint>

#include "doubling_pause.hpp"
#include "slow_path.hpp"

namespace own::detail {

class write_backoff {
  struct state;

 public:
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
  static constexpr bool has_clock = true;
#else
  static constexpr bool has_clock = false;
#endif

  // Before an unconditional write to `atomic`, whose word holds `seen`: pauses on a sign.
  static void before_write(const void* atomic, const void* seen) noexcept {
    if constexpr (has_clock) {
      state& s = thread_state();
      if (OWN_UNLIKELY(s.atomic == atomic && seen != nullptr && (seen != s.written || s.replaced_read))) sign(s);
    }
  }
  // After this thread wrote `written` (a node, or null) to `atomic`, by any write (a successful
  // compare-exchange too, so that the next store knows the node as this thread's); `replaced_read`:
  // the node it replaced was being read (a sign for the next write, if it is to `atomic` again).
  static void after_write(const void* atomic, const void* written, bool replaced_read = false) noexcept {
    if constexpr (has_clock) {
      state& s = thread_state();
      s.atomic = atomic;
      s.written = written;
      s.replaced_read = replaced_read;
    }
  }
  // When `atomic` ends: this thread's next write to an atomic at its address is not a sign.
  static void forget(const void* atomic) noexcept {
    if constexpr (has_clock) {
      state& s = thread_state();
      if (s.atomic == atomic) s.atomic = nullptr;
    }
  }

  // For tests: the exponent of this thread's next pause and the pause steps it has taken; the clock,
  // and this thread's window in its ticks (0: the default), widened where instrumentation slows
  // the code between two signs beyond microseconds.
  static unsigned next_doubling() noexcept { return thread_state().wait.doublings; }
  static unsigned long long paused_steps() noexcept { return thread_state().wait.paused; }
  static void set_window_for_testing(std::uint64_t ticks) noexcept { thread_state().window_override = ticks; }
  static std::uint64_t window_ticks() noexcept {
    const std::uint64_t w = thread_state().window_override;
    return w != 0 ? w : default_window();
  }
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

 private:
  OWN_NOINLINE static void sign(state& s) noexcept {
    if (ticks() - s.sign_ended < window_ticks()) {
      s.wait.pause();
    } else {
      s.wait.restart();
    }
    s.sign_ended = ticks();
  }

  static std::uint64_t default_window() noexcept {
#if defined(__aarch64__)
    std::uint64_t frequency;
    __asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(frequency));
    return frequency / 500000 + 1;
#else
    return 1u << 12;
#endif
  }

  struct state {
    const void* atomic;
    const void* written;
    bool replaced_read;
    std::uint64_t sign_ended;
    doubling_pause wait;
    std::uint64_t window_override;
  };
  static state& thread_state() noexcept {
    static thread_local state s{nullptr, nullptr, false, 0, {0, 0}, 0};
    return s;
  }
};

}  // namespace own::detail
