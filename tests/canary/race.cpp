// Races on purpose: the tsan configuration expects ThreadSanitizer to report it, which proves the
// stress tests' silence there means something.
//
// The two unsynchronised writes are made one after the other, with the first thread still alive
// at the second: the order is kept by relaxed atomics, which give ThreadSanitizer no happens-before
// edge. (Simultaneous accesses can slip past its shadow check, and a thread that has finished was
// sometimes forgotten; either way the race went unreported now and then on a loaded machine.)
#include <atomic>
#include <thread>

namespace {

void wait_for(const std::atomic<bool>& flag) {
  while (!flag.load(std::memory_order_relaxed)) std::this_thread::yield();
}

}  // namespace

int main() {
  static int shared = 0;
  static std::atomic<bool> first_written{false};
  static std::atomic<bool> second_written{false};
  std::thread first([] {
    shared = 1;
    first_written.store(true, std::memory_order_relaxed);
    wait_for(second_written);
  });
  wait_for(first_written);
  shared = 2;
  second_written.store(true, std::memory_order_relaxed);
  first.join();
  return shared == 2 ? 0 : 1;
}
