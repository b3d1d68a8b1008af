// SPDX-License-Identifier: BSL-1.0
// The pause of atomic_shared_ptr's back-offs (contention_backoff; write_backoff and read_backoff,
// through sign_series): 2^k spin hints, k growing by one with each pause in a row, up to 6: at most
// 64 hints, a few microseconds, enough for another thread's round and short beside a time slice.
// Never a system call.
#pragma once

#include "cpu_relax.hpp"

namespace own::detail {

struct doubling_pause {
  static constexpr unsigned max_doublings = 6;

  unsigned doublings;        // the exponent of the next pause
  unsigned long long paused;  // spin hints paused in all (for tests)

  void pause() noexcept {
    const unsigned steps = 1u << doublings;
    for (unsigned i = 0; i < steps; ++i) spin_pause();
    paused += steps;
    if (doublings < max_doublings) ++doublings;
  }
  void restart() noexcept { doublings = 0; }
};

}  // namespace own::detail
