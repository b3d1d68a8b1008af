// SPDX-License-Identifier: BSL-1.0
// One step of a spin-wait: a hint that the core is waiting for another thread (x86's pause lets
// the sibling hyper-thread run and avoids the memory-order flush on leaving the loop); elsewhere, a
// yield of the thread. And its two halves alone: the yield, for a wait that may be on a preempted
// thread, and the core's hint (spin_pause), for a back-off that must not leave the core.
#pragma once

#include <sched.h>

namespace own::detail {

// What std::this_thread::yield does on POSIX, without <thread> (its header costs every translation
// unit that includes shared_ptr.hpp as much as a third of <memory>).
inline void yield_thread() noexcept { ::sched_yield(); }

// A short wait that never leaves the core: x86's pause, AArch64's yield hint; elsewhere only a
// compiler barrier (so a loop of them still takes a few cycles each). For back-off, where giving
// up the time slice would turn a wait of nanoseconds into one of a scheduler's tick.
inline void spin_pause() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
  __asm__ __volatile__("yield" ::: "memory");
#else
  __asm__ __volatile__("" ::: "memory");
#endif
}

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  spin_pause();
#else
  yield_thread();
#endif
}

}  // namespace own::detail
