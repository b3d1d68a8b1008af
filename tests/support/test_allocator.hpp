// SPDX-License-Identifier: BSL-1.0
// Counting test allocator (BDE's exception-test idea): every allocation is logged in an
// `allocation_log`, and the log can be told to throw std::bad_alloc at its Nth allocation.
// `for_each_failure_point(log, body)` runs `body` with a throw armed at the 1st, 2nd, ...
// allocation until it completes, checking after every run that nothing leaked.
//
//   own_test::allocation_log log;
//   int runs = own_test::for_each_failure_point(log, [&] {
//     auto p = own::allocate_shared<int>(own_test::test_allocator<int>(&log), 1);
//   });
//   // runs == 2: one failed run (allocation 1 threw), one that completed
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory_resource>
#include <new>

#include <gtest/gtest.h>

#include "tracked.hpp"

namespace own_test {

struct allocation_log {
  std::atomic<long> allocations{0};    // successful allocations, ever
  std::atomic<long> deallocations{0};  // deallocations, ever
  std::atomic<long> bytes_in_use{0};
  std::atomic<long> attempts{0};       // allocation calls, including the one that threw
  std::atomic<long> throw_at{0};       // throw when `attempts` reaches this; 0: never

  long blocks_in_use() const { return allocations.load() - deallocations.load(); }

  void* allocate(std::size_t bytes, std::size_t align) {
    [[maybe_unused]] const long n = ++attempts;
#if defined(__cpp_exceptions)
    if (n == throw_at.load()) throw std::bad_alloc();
#endif
    void* p = ::operator new(bytes, std::align_val_t(align));
    ++allocations;
    bytes_in_use += static_cast<long>(bytes);
    return p;
  }
  void deallocate(void* p, std::size_t bytes, std::size_t align) noexcept {
    ++deallocations;
    bytes_in_use -= static_cast<long>(bytes);
    ::operator delete(p, std::align_val_t(align));
  }
};

// A stateful standard Allocator; two compare equal when they share a log.
template <class T>
class test_allocator {
 public:
  using value_type = T;

  explicit test_allocator(allocation_log* log) noexcept : log_(log) {}
  template <class U>
  test_allocator(const test_allocator<U>& other) noexcept : log_(other.log()) {}

  T* allocate(std::size_t n) { return static_cast<T*>(log_->allocate(n * sizeof(T), alignof(T))); }
  void deallocate(T* p, std::size_t n) noexcept { log_->deallocate(p, n * sizeof(T), alignof(T)); }

  allocation_log* log() const noexcept { return log_; }

  friend bool operator==(const test_allocator& a, const test_allocator& b) noexcept { return a.log_ == b.log_; }
  friend bool operator!=(const test_allocator& a, const test_allocator& b) noexcept { return a.log_ != b.log_; }

 private:
  allocation_log* log_;
};

// The same log seen as a std::pmr::memory_resource.
class test_resource : public std::pmr::memory_resource {
 public:
  explicit test_resource(allocation_log* log) noexcept : log_(log) {}

 private:
  void* do_allocate(std::size_t bytes, std::size_t align) override { return log_->allocate(bytes, align); }
  void do_deallocate(void* p, std::size_t bytes, std::size_t align) override { log_->deallocate(p, bytes, align); }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override { return this == &other; }
  allocation_log* log_;
};

#if defined(__cpp_exceptions)  // (the language_subsets tests build without exceptions)
// Runs `body` with the Nth allocation throwing, N = 1, 2, ... until a run completes. After each run,
// every block and every tracked object the run made must be gone. Returns the number of runs.
template <class Body>
int for_each_failure_point(allocation_log& log, Body&& body) {
  for (int n = 1;; ++n) {
    const long blocks_before = log.blocks_in_use();
    const long live_before = tracked::live();
    log.throw_at = log.attempts.load() + n;
    bool threw = false;
    try {
      body();
    } catch (const std::bad_alloc&) {
      threw = true;
    }
    log.throw_at = 0;
    EXPECT_EQ(log.blocks_in_use(), blocks_before) << "leaked blocks with allocation " << n << " throwing";
    EXPECT_EQ(tracked::live(), live_before) << "leaked objects with allocation " << n << " throwing";
    if (!threw) return n;
    if (n > 10000) {
      ADD_FAILURE() << "body never completed";
      return n;
    }
  }
}

// Runs `body` with the Nth tracked construction throwing, N = 1, 2, ... until a run completes,
// checking that every tracked object and every block of `log` made by a failed run is gone.
template <class Body>
int for_each_throwing_construction(allocation_log& log, Body&& body) {
  for (int n = 1;; ++n) {
    const long blocks_before = log.blocks_in_use();
    const long live_before = tracked::live();
    tracked::throw_after(n);
    bool threw = false;
    try {
      body();
    } catch (const tracked::construction_error&) {
      threw = true;
    }
    tracked::throw_after(0);
    EXPECT_EQ(log.blocks_in_use(), blocks_before) << "leaked blocks with construction " << n << " throwing";
    EXPECT_EQ(tracked::live(), live_before) << "leaked objects with construction " << n << " throwing";
    if (!threw) return n;
    if (n > 10000) {
      ADD_FAILURE() << "body never completed";
      return n;
    }
  }
}

#endif

}  // namespace own_test
