// SPDX-License-Identifier: BSL-1.0
// A mutex that spins briefly before it blocks. The depot's critical sections are a few pointer
// swaps, and in a producer/consumer pipeline both threads visit the depot at the same rate, so they
// collide often: blocking in the kernel for a wait that lasts nanoseconds costs two context
// switches. Spinning is bounded (32 pauses, under a microsecond), so a preempted holder costs a
// waiter little before it sleeps as with std::mutex.
#pragma once

#include <mutex>

#include "cpu_relax.hpp"

namespace own::detail {

class adaptive_mutex {
 public:
  void lock() {
    for (int i = 0; i < spins; ++i) {
      if (mutex_.try_lock()) return;
      cpu_relax();
    }
    mutex_.lock();
  }
  void unlock() { mutex_.unlock(); }

 private:
  static constexpr int spins = 32;

  std::mutex mutex_{};
};

}  // namespace own::detail
