// SPDX-License-Identifier: BSL-1.0
// One step of a spin-wait: a hint that the core is waiting for another thread (x86's pause lets
// the sibling hyper-thread run and avoids the memory-order flush on leaving the loop); elsewhere, a
// yield of the thread. And the yield itself, for a wait that may be on a preempted thread.
#pragma once

#include <sched.h>

namespace own::detail {

// What std::this_thread::yield does on POSIX, without <thread> (its header costs every translation
// unit that includes shared_ptr.hpp as much as a third of <memory>).
inline void yield_thread() noexcept { ::sched_yield(); }

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  yield_thread();
#endif
}

}  // namespace own::detail
