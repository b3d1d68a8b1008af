// SPDX-License-Identifier: BSL-1.0
// object_pool.hpp's checked mode where threads meet: this executable defines OWN_CHECKED in every
// preset (tests/CMakeLists.txt), so that the ThreadSanitizer build, which is otherwise unchecked,
// runs the checks themselves on several threads.
#include <own/object_pool.hpp>

#include <atomic>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#ifndef OWN_CHECKED
#error "object_pool_checked_test is built with OWN_CHECKED"
#endif

namespace {

// Threads that each take and return their own objects: the checks see every return as the first,
// and add no race of their own.
TEST(ConcurrentObjectPoolChecked, ReturnsFromManyThreadsPassTheCheck) {
  own::concurrent_object_pool<int> pool(4, own::fixed_capacity);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 20000; ++i) {
        own::managed_ptr<int> p = pool.try_acquire();
        if (p) ++*p;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(pool.available(), 4u);
}

// Two threads return the same object at the same moment: whichever comes second must abort with
// the message (and the check itself must not be a data race, which TSan would report instead).
void return_twice_at_once() {
  own::concurrent_object_pool<int> pool(1);
  const own::managed_ptr_deleter deleter = pool.acquire().release().second;
  std::atomic<int> ready{0};
  auto give_back = [&ready, deleter] {
    ready.fetch_add(1);
    while (ready.load() < 2) {
    }
    deleter();
  };
  std::thread a(give_back), b(give_back);
  a.join();
  b.join();
}

TEST(ConcurrentObjectPoolCheckedDeathTest, TwoThreadsReturningOneObjectAtOnceAbort) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  for (int i = 0; i < 20; ++i) EXPECT_DEATH(return_twice_at_once(), "returned twice to object pool");
}

}  // namespace
