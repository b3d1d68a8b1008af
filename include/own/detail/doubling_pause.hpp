// SPDX-License-Identifier: BSL-1.0
// The pause of atomic_shared_ptr's back-offs (contention_backoff; write_backoff and read_backoff,
// through sign_series): 2^k spin hints, k growing by one with each pause in a row, up to a bound
// the back-off chooses. Never a system call. A spin hint took 18.8 ns on the 2-core AMD host
// measured (x86's pause; some Intel cores take 40-140 cycles): 64 hints are about a microsecond,
// enough for another thread's round; 1024 about 20 us, short beside a time slice.
#pragma once

#include "cpu_relax.hpp"

namespace own::detail {

template <unsigned MaxDoublings>
struct doubling_pause {
  static constexpr unsigned max_doublings = MaxDoublings;

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
