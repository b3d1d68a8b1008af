// SPDX-License-Identifier: BSL-1.0
// Back-off for atomic_shared_ptr's loads that keep meeting another reader's copies of the same
// value. Two threads loading one atomic in a loop each increment and then decrement the value's
// count, and each such write takes the count's line from the other core: on two cores a load and
// its drop cost twice their one-thread time, where a lock whose waiter sleeps (Boost's spinlock)
// lets one thread run alone at its one-thread speed.
//
// The sign: two loads in a row find the same node (no write in between, as far as the node's
// address tells), the count's line in another core's cache, and the counts changed between them by
// another thread's copy or drop (or this thread's own, kept: a rare false sign). A load tells where
// the line is by timing a read of the counts (x86's time-stamp counter, read after an lfence before
// and after it). Such a find with the counts unmoved goes on with a series of pauses already
// started, but never starts one. Another reader's copy and drop between two loads leave the counts
// as they were, so a series that needed moved counts at every load would stop at every other one;
// and a thread alone, whose line only looked far (an interrupt, or a neighbour on the same core, a
// hyperthread of another virtual machine, evicting it), never moves them, so never starts one.
// Timing costs about 50 ns on the host measured, so a load checks once in `check_every`; a check
// that finds the line elsewhere makes the thread check every load until one finds it here again,
// and only a load that checks after a load that checked can see a sign. A sign pauses as
// sign_series.hpp says (within microseconds of the previous sign, doubling up to 64 spin hints),
// after the copy, with nothing protected. The other reader meanwhile finds the line in its own
// cache at every load, checks rarely, and runs on alone; the paused reader's next loads find the
// line elsewhere again and pause longer. So the two take turns in runs, as a lock's holder and
// waiter do. A load that finds another node is no sign: a writer stored meanwhile, and writers
// already pause for readers (write_backoff); readers pausing for writers too would have both wait.
// (A writer's nodes come from a per-thread free list, so two stores between two loads can bring
// back the same address: that load can then count as a sign.)
//
// Elsewhere or hit: an empty timing, the least of eight measured at the thread's first check, plus
// 100 ticks (25-100 ns at 1-4 GHz) tells the two apart, and a check over it times an empty interval
// again before it counts (the core may have slowed since: the counter's rate does not change with
// the core's). A hit in the core's own caches takes less; a line in another core's cache more
// (210-300 ticks on the 2.1 GHz host measured, a hit 50-70); a line that fell to the shared cache
// may pass for either, which the changed counts settle. Where reading the counter is slow (a
// hypervisor that traps it: an empty timing over 1000 ticks), loads never check or pause; nor
// anywhere but x86-64 (AArch64's virtual counter ticks too slowly to tell a hit from a miss).
#pragma once

#include <cstdint>

#include "sign_series.hpp"
#include "slow_path.hpp"

namespace own::detail {

class read_backoff {
  struct state;

 public:
#if defined(__x86_64__)
  static constexpr bool has_clock = true;
#else
  static constexpr bool has_clock = false;
#endif
  static constexpr unsigned check_every = 64;
  // Up to 64 spin hints a load: a reader's pause is a load's latency, which readers' users watch.
  static constexpr unsigned max_doublings = 6;
  static constexpr std::uint64_t never = ~std::uint64_t{0};

  // What a load found before its copy: nothing; the line far again on the same node, the counts
  // unmoved (enough to go on with a series of pauses, never to start one); or a sign.
  enum class found { nothing, far, sign };

  // Before copying the value of the protected `node`, whose counts `read()` reads (returning them
  // as an integer): what to pass to after_copy.
  template <class Read>
  static found before_copy(const void* node, Read read) noexcept {
    if constexpr (has_clock) {
      state& s = thread_state();
      if (OWN_UNLIKELY(s.checking || --s.until_check == 0)) return check(s, node, read);
    }
    return found::nothing;
  }
  // After the copy, with nothing protected: pauses if what the load found counts.
  static void after_copy(found f) noexcept {
    if constexpr (has_clock) {
      if (OWN_UNLIKELY(f == found::sign)) {
        thread_state().series.sign();
      } else if (OWN_UNLIKELY(f == found::far)) {
        static_cast<void>(thread_state().series.go_on());
      }
    }
  }

  // For tests: the checks this thread has made; whether it checks every load; the exponent of its
  // next pause and the pause steps it has taken; its window (0: the default); and the ticks beyond
  // which a read is elsewhere (`never` where the counter is too slow), first measured at its
  // first check.
  static unsigned long long checks() noexcept { return thread_state().checks; }
  static bool checking() noexcept { return thread_state().checking; }
  static unsigned next_doubling() noexcept { return thread_state().series.wait.doublings; }
  static unsigned long long paused_steps() noexcept { return thread_state().series.wait.paused; }
  static void set_window_for_testing(std::uint64_t ticks) noexcept { thread_state().series.window_override = ticks; }
  static std::uint64_t elsewhere_ticks() noexcept {
    state& s = thread_state();
    if (s.elsewhere == 0) {
      const std::uint64_t empty = empty_timing(8);
      s.elsewhere = empty > 1000 ? never : empty + margin;
    }
    return s.elsewhere;
  }

 private:
  static constexpr std::uint64_t margin = 100;

#if defined(__x86_64__)
  // The counter, once every instruction before has run; a compiler barrier too.
  static std::uint64_t fenced_ticks() noexcept {
    std::uint32_t low, high;
    __asm__ __volatile__("lfence\n\trdtsc" : "=a"(low), "=d"(high) : : "memory");
    return (std::uint64_t{high} << 32) | low;
  }
  // The least of `n` timings of nothing.
  static std::uint64_t empty_timing(int n) noexcept {
    std::uint64_t least = never;
    for (int i = 0; i < n; ++i) {
      const std::uint64_t start = fenced_ticks();
      const std::uint64_t took = fenced_ticks() - start;
      if (took < least) least = took;
    }
    return least;
  }

  template <class Read>
  OWN_NOINLINE static found check(state& s, const void* node, Read read) noexcept {
    s.until_check = check_every;
    const std::uint64_t limit = elsewhere_ticks();
    if (limit == never) {
      s.until_check = ~0u;  // about four billion loads before the next look at the limit
      return found::nothing;
    }
    ++s.checks;
    const std::uint64_t start = fenced_ticks();
    const std::uint64_t counts = read();
    const std::uint64_t took = fenced_ticks() - start;
    bool elsewhere = took > limit;
    if (elsewhere) {
      s.elsewhere = empty_timing(2) + margin;
      elsewhere = took > s.elsewhere;
    }
    const bool again = elsewhere && s.checking && node == s.last_node;
    const bool moved = counts != s.last_counts;
    s.checking = elsewhere;
    s.last_node = node;
    s.last_counts = counts;
    return !again ? found::nothing : moved ? found::sign : found::far;
  }
#else
  static std::uint64_t empty_timing(int) noexcept { return never; }
  template <class Read>
  static found check(state&, const void*, Read) noexcept {
    return found::nothing;
  }
#endif

  struct state {
    unsigned until_check;
    bool checking;
    const void* last_node;   // at the last check
    std::uint64_t last_counts;  // the counts read then
    std::uint64_t elsewhere;  // 0 until measured
    unsigned long long checks;
    sign_series<max_doublings> series;
  };
  static state& thread_state() noexcept {
    static thread_local state s{check_every, false, nullptr, 0, 0, 0, {0, {0, 0}, 0}};
    return s;
  }
};

}  // namespace own::detail
