// SPDX-License-Identifier: BSL-1.0
// A lock for critical sections of a few instructions that cannot fail, needs no initialisation at
// run time and no destruction (it keeps working from static destructors at exit): the shared_ptr
// atomic free functions' lock table and the default heap's process-wide state.
#pragma once

#include <atomic>

#include "cpu_relax.hpp"

namespace own::detail {

// A cache line of its own: threads on different locks do not pass lines back and forth.
class alignas(64) spinlock {
 public:
  void lock() noexcept {
    // Waiters only read while the lock is held, so its line stays shared until it is let go.
    while (locked_.exchange(true, std::memory_order_acquire)) {
      for (unsigned spins = 0; locked_.load(std::memory_order_relaxed); ++spins) {
        // A holder runs a few instructions: a few pauses cover it, unless it was preempted, and
        // then yielding may be what lets it run again.
        if (spins < 64) {
          cpu_relax();
        } else {
          yield_thread();
        }
      }
    }
  }
  void unlock() noexcept { locked_.store(false, std::memory_order_release); }

 private:
  std::atomic<bool> locked_{false};
};

// Holds a spinlock for its scope.
class spinlock_guard {
 public:
  explicit spinlock_guard(spinlock& lock) noexcept : lock_(lock) { lock_.lock(); }
  spinlock_guard(const spinlock_guard&) = delete;
  spinlock_guard& operator=(const spinlock_guard&) = delete;
  ~spinlock_guard() { lock_.unlock(); }

 private:
  spinlock& lock_;
};

}  // namespace own::detail
