// SPDX-License-Identifier: BSL-1.0
// Helpers for the thread stress tests: a size knob, a reusable barrier and a thread runner.
//
// Sizes: every stress test states its full-run operation count (at least 10^6, what CI runs).
// OWN_STRESS_SCALE=0.01 (say) shrinks them all for a quick local run; it never grows them past
// what a test asks for times the scale.
#pragma once

#include <atomic>
#include <cstdlib>
#include <functional>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "test_allocator.hpp"
#include "tracked.hpp"

namespace own_test {

inline double stress_scale() {
  static const double scale = [] {
    const char* text = std::getenv("OWN_STRESS_SCALE");
    const double s = text ? std::atof(text) : 1.0;
    return s > 0 ? s : 1.0;
  }();
  return scale;
}

// `full` scaled by OWN_STRESS_SCALE, at least 1.
inline long scaled(long full) {
  const long n = static_cast<long>(static_cast<double>(full) * stress_scale());
  return n > 0 ? n : 1;
}

// Threads of a stress test; at least two, even on one core.
inline int stress_threads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n < 2 ? 2 : (n > 4 ? 4 : static_cast<int>(n));
}

// A reusable barrier (std::barrier is C++20; the tests build as C++17 too). It spins with yield,
// because rounds are short and the threads few; its atomics order everything before a round's end
// before everything after it, which TSan sees.
class spin_barrier {
 public:
  explicit spin_barrier(int threads) : threads_(threads) {}

  void arrive_and_wait() {
    const long phase = phase_.load(std::memory_order_acquire);
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == threads_) {
      arrived_.store(0, std::memory_order_relaxed);
      phase_.fetch_add(1, std::memory_order_acq_rel);
      return;
    }
    while (phase_.load(std::memory_order_acquire) == phase) std::this_thread::yield();
  }

 private:
  const int threads_;
  std::atomic<int> arrived_{0};
  std::atomic<long> phase_{0};
};

// Runs body(index) on `threads` threads and joins them all.
inline void run_threads(int threads, const std::function<void(int)>& body) {
  std::vector<std::thread> pool;
  pool.reserve(static_cast<std::size_t>(threads));
  for (int i = 0; i < threads; ++i) pool.emplace_back(body, i);
  for (std::thread& t : pool) t.join();
}

// A small, fast, per-thread pseudo-random sequence (xorshift), so threads interleave differently
// without sharing a generator.
class rng {
 public:
  explicit rng(unsigned long seed) : state_(seed * 0x9e3779b97f4a7c15ul + 1) {}
  unsigned long next() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return state_;
  }
  unsigned below(unsigned n) { return static_cast<unsigned>(next() % n); }

 private:
  unsigned long state_;
};

// Every tracked object made since the census began is gone, each exactly once, and every block of
// the log is back.
class census {
 public:
  explicit census(const allocation_log& log)
      : log_(log), destroyed_(tracked::destroyed()), constructed_(tracked::constructed()) {}

  void expect_balanced(const char* where) const {
    EXPECT_EQ(tracked::live(), 0) << where;
    EXPECT_EQ(tracked::destroyed() - destroyed_, tracked::constructed() - constructed_) << where;
    EXPECT_EQ(tracked::double_destroyed(), 0) << where;
    EXPECT_EQ(log_.blocks_in_use(), 0) << where;
    EXPECT_EQ(log_.bytes_in_use.load(), 0) << where;
  }

 private:
  const allocation_log& log_;
  long destroyed_, constructed_;
};

}  // namespace own_test
