// SPDX-License-Identifier: BSL-1.0
// Exponential back-off for a compare-and-swap loop that keeps losing. A thread whose CAS lost to
// another thread's retries at once, and its retry (a re-read of the word, a reference taken on the
// winner's value) pulls the lines the winner is about to use away from it, so that both threads'
// next attempts fail more often: on two cores, a CAS-loop counter spent eight times its one-thread
// cost per increment. Pausing the loser for a time that doubles with each loss lets the winner
// finish its next round alone, as a lock's waiters do.
//
// Only a retry pauses: a CAS whose expected value is the very one the thread's last failed CAS
// handed back (the same stored pointer and block; should that value have died and its memory been
// reused for the value passed now, that counts too, and costs one bounded wait). A CAS used as a
// test ("set if empty") that fails because the value differs passes the same expected value
// again, not the one it got back, and does not wait. The pause is spin_pause (x86's pause,
// AArch64's yield hint), never a system call.
#pragma once

#include "doubling_pause.hpp"

namespace own::detail {

// What a smart pointer value is, for telling a retry: its stored pointer and its control block.
struct value_identity {
  const volatile void* pointer;
  const void* block;
  friend bool operator==(value_identity a, value_identity b) noexcept {
    return a.pointer == b.pointer && a.block == b.block;
  }
};

class contention_backoff {
 public:
  // Up to 1024 spin hints a lost retry, as writers' (write_backoff).
  static constexpr unsigned max_doublings = 10;

  // After a failed CAS that was given `tried` as its expected value and left `current` there.
  static void after_failure(value_identity tried, value_identity current) noexcept {
    state& s = thread_state();
    if (s.has_current && s.current == tried) {
      s.wait.pause();
    } else {
      s.wait.restart();
    }
    s.current = current;
    s.has_current = true;
  }
  static void after_success() noexcept {
    state& s = thread_state();
    s.wait.restart();
    s.has_current = false;
  }
  // This thread's retries lost in a row, which its next lost retry pauses 2^n steps for, and the
  // steps it has paused in all (for tests).
  static unsigned consecutive_losses() noexcept { return thread_state().wait.doublings; }
  static unsigned long long paused_steps() noexcept { return thread_state().wait.paused; }

 private:
  struct state {
    value_identity current;
    bool has_current;
    doubling_pause<max_doublings> wait;  // the losses in a row are its doublings
  };
  static state& thread_state() noexcept {
    static thread_local state s{{nullptr, nullptr}, false, {0, 0}};
    return s;
  }
};

}  // namespace own::detail
