// SPDX-License-Identifier: BSL-1.0
// One step of a spin-wait: a hint that the core is waiting for another thread (x86's pause lets
// the sibling hyper-thread run and avoids the memory-order flush on leaving the loop); elsewhere, a
// yield of the thread.
#pragma once

#include <thread>

namespace own::detail {

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

}  // namespace own::detail
