// A mutex that spins briefly before it blocks. The depot's critical sections are a few pointer
// swaps, and in a producer/consumer pipeline both threads visit the depot at the same rate, so they
// collide often: blocking in the kernel for a wait that lasts nanoseconds costs two context
// switches. Spinning is bounded (32 pauses, under a microsecond), so a preempted holder costs a
// waiter little before it sleeps as with std::mutex.
#pragma once

#include <mutex>
#include <thread>

namespace own::detail {

class adaptive_mutex {
 public:
  void lock() {
    for (int i = 0; i < spins; ++i) {
      if (mutex_.try_lock()) return;
      relax();
    }
    mutex_.lock();
  }
  void unlock() { mutex_.unlock(); }

 private:
  static constexpr int spins = 32;

  static void relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#else
    std::this_thread::yield();
#endif
  }

  std::mutex mutex_;
};

}  // namespace own::detail
