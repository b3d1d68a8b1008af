// SPDX-License-Identifier: BSL-1.0
// Races on purpose: the tsan configuration expects ThreadSanitizer to report it, which proves the
// stress tests' silence there means something.
//
// In each round two threads write one int without synchronisation, one after the other, the first
// still alive at the second: the order is kept by relaxed atomics, which give ThreadSanitizer no
// happens-before edge. ThreadSanitizer (clang 14) let a single such race through now and then on a
// loaded machine, so there are several rounds, each on its own int: one report is all it takes.
#include <atomic>
#include <thread>

namespace {

constexpr int rounds = 8;

struct round_state {
  int shared = 0;
  std::atomic<bool> first_written{false};
  std::atomic<bool> second_written{false};
};

void wait_for(const std::atomic<bool>& flag) {
  while (!flag.load(std::memory_order_relaxed)) std::this_thread::yield();
}

}  // namespace

int main() {
  static round_state state[rounds];
  int sum = 0;
  for (round_state& r : state) {
    std::thread first([&r] {
      r.shared = 1;
      r.first_written.store(true, std::memory_order_relaxed);
      wait_for(r.second_written);
    });
    wait_for(r.first_written);
    r.shared = 2;
    r.second_written.store(true, std::memory_order_relaxed);
    first.join();
    sum += r.shared;
  }
  return sum == 2 * rounds ? 0 : 1;
}
