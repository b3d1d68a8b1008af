// SPDX-License-Identifier: BSL-1.0
// Back-off for writes (atomic_shared_ptr's store, exchange and compare_exchange) that keep
// alternating with another thread's accesses to the same atomic. Each write then takes the atomic's
// line (and the lines of the values' counts) from the other core, and the other core's next access
// takes them back: on two cores a store cost five times its one-thread time, as much as the same
// swap under a std::mutex, whose waiter sleeps and lets the holder run on alone; a load under such
// stores cost seven times its one-thread time.
//
// The signs, any of:
//  - another writer: just before writing, the atomic holds a node (not an empty value) that this
//    thread did not write, although this thread's last write (to any atomic) was to this one;
//  - a reader: this thread's last write was to this atomic, and the node it replaced was being read
//    (a hazard slot held it when the write looked, which it does anyway to know whether it may free
//    the node at once);
//  - a collision: the same, but the slot was that of another thread's compare-exchange (its record
//    marked as comparing: hazard_slots' write_guard): that thread was comparing the very node this
//    one replaced, so the two writes overlapped in time.
// Threads that take turns by design (a producer's store and a consumer's exchange, a store every few
// microseconds by each of two threads, a reader of a value rarely replaced) give the first two signs
// too: such a sign pauses only within microseconds of the thread's previous one (sign_series.hpp,
// whose clock is read only on a sign, beside the cache miss a sign means), 2^k spin hints before
// the write, k growing with the signs in a row up to 10 (max_doublings). The other writer meanwhile
// finds its own node and runs on alone, and the two take turns in runs; a reader meanwhile loads a
// node, a count and a word that no write disturbs. The turns pass both ways: two threads storing
// into one atomic for half a second made 0.75-1.0 as many stores as each other.
// Collisions, which writers taking turns by design rarely make, count in a series of their own,
// within a window 16 times as long (about 30 us). Two threads that each load and then
// compare-exchange in a loop slow each other down so much (about 1.4 us a round each, on 2 cores)
// that their other signs came too far apart to count: such a round cost 13 times its one-thread
// time. With collisions, it costs 1.3 times (2.2 times with four threads on two cores); two
// threads compare-exchanging by design every 3 us each paused 0.1-0.2 spin hints a write on
// average (see the CHANGELOG).
// (Pausing after the write instead would have each thread pause after each of its writes, and both
// would make one write per pause.) A node's address, once freed, may come back as another thread's
// node: the sign is then missed, never made up. An atomic's destructor forgets it, so that one made
// at the same address is new to every writer. Where there is no cheap clock, writes never pause.
#pragma once

#include <cstdint>

#include "sign_series.hpp"
#include "slow_path.hpp"

namespace own::detail {

class write_backoff {
  struct state;

 public:
  static constexpr bool has_clock = tick_clock::has_clock;
  // Up to 1024 spin hints (about 20 us) a write: a writer's turn long enough that switching turns
  // costs little beside it. Measured on 2 cores (AMD, three processes each), a store by each of two
  // threads cost 1.1-1.9x its one-thread cost with 64 hints, the readers' bound, and 0.94-1.04x
  // with 1024; an exchange 0.95-1.5x and 0.83-0.92x.
  static constexpr unsigned max_doublings = 10;
  // Collisions count within 2^4 times the window of the other signs.
  static constexpr unsigned collision_window_log2 = 4;

  // Who held the node a write replaced, besides the writing thread: nobody, a reader, or another
  // thread's compare-exchange (a collision).
  enum class replaced_by { nobody, reader, writer };

  // Before a write to `atomic` (a compare-exchange's too, whether or not it will succeed), whose
  // word holds `seen`: pauses on a sign. A compare-exchange that fails records no write, so what the
  // last write replaced stays a sign for every attempt until one succeeds: a thread that keeps
  // losing keeps making way (measured: letting only the first attempt count it made two threads'
  // load-and-compare-exchange rounds 15-20% slower).
  static void before_write(const void* atomic, const void* seen) noexcept {
    if constexpr (has_clock) {
      state& s = thread_state();
      if (OWN_UNLIKELY(s.atomic == atomic && seen != nullptr && (seen != s.written || s.replaced != replaced_by::nobody))) {
        if (s.replaced == replaced_by::writer) {
          s.collisions.sign();
        } else {
          s.series.sign();
        }
      }
    }
  }
  // After this thread wrote `written` (a node, or null) to `atomic`, by any write (a successful
  // compare-exchange too, so that the next write knows the node as this thread's); `replaced`: who
  // else held the node it replaced (a sign for the next write, if it is to `atomic` again).
  static void after_write(const void* atomic, const void* written, replaced_by replaced = replaced_by::nobody) noexcept {
    if constexpr (has_clock) {
      state& s = thread_state();
      s.atomic = atomic;
      s.written = written;
      s.replaced = replaced;
    }
  }
  // When `atomic` ends: this thread's next write to an atomic at its address is not a sign.
  static void forget(const void* atomic) noexcept {
    if constexpr (has_clock) {
      state& s = thread_state();
      if (s.atomic == atomic) s.atomic = nullptr;
    }
  }

  // For tests: the exponents of this thread's next pauses, for the other signs and for collisions,
  // and the pause steps it has taken; the clock, and this thread's window in its ticks (0: the
  // default; collisions' is 2^collision_window_log2 times as long), widened where instrumentation
  // slows the code between two signs beyond microseconds.
  static unsigned next_doubling() noexcept { return thread_state().series.wait.doublings; }
  static unsigned next_collision_doubling() noexcept { return thread_state().collisions.wait.doublings; }
  static unsigned long long paused_steps() noexcept {
    const state& s = thread_state();
    return s.series.wait.paused + s.collisions.wait.paused;
  }
  static void set_window_for_testing(std::uint64_t ticks) noexcept {
    state& s = thread_state();
    s.series.window_override = ticks;
    s.collisions.window_override = ticks;
  }
  static std::uint64_t window_ticks() noexcept { return thread_state().series.window(); }
  static std::uint64_t collision_window_ticks() noexcept { return thread_state().collisions.window(); }
  static std::uint64_t ticks() noexcept { return tick_clock::ticks(); }

 private:
  struct state {
    const void* atomic;
    const void* written;
    replaced_by replaced;
    sign_series<max_doublings> series;
    sign_series<max_doublings, collision_window_log2> collisions;
  };
  static state& thread_state() noexcept {
    static thread_local state s{nullptr, nullptr, replaced_by::nobody, {0, {0, 0}, 0}, {0, {0, 0}, 0}};
    return s;
  }
};

}  // namespace own::detail
