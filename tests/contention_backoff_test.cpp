// SPDX-License-Identifier: BSL-1.0
// Tests of <own/detail/contention_backoff.hpp>, the back-off of atomic_shared_ptr's
// compare_exchange: only a retry that loses again waits, the wait doubles to a bound, and a success
// ends it. Driven on one thread, where a "lost" CAS is made by storing between two attempts; the
// multi-threaded counters that the back-off speeds up are in atomic_shared_ptr_test's stress tests.
#include <own/atomic_shared_ptr.hpp>
#include <own/detail/contention_backoff.hpp>

#include <gtest/gtest.h>

#include <thread>

using own::detail::contention_backoff;
using own::detail::value_identity;

namespace {

TEST(ContentionBackoff, OnlyARetryOfWhatTheLastFailureHandedBackPauses) {
  int a = 0, b = 0, c = 0;
  contention_backoff::after_success();
  const auto paused = contention_backoff::paused_steps();
  contention_backoff::after_failure({&a, nullptr}, {&b, nullptr});  // a first attempt
  EXPECT_EQ(contention_backoff::consecutive_losses(), 0u);
  contention_backoff::after_failure({&a, nullptr}, {&b, nullptr});  // `a` again: not a retry
  EXPECT_EQ(contention_backoff::consecutive_losses(), 0u);
  EXPECT_EQ(contention_backoff::paused_steps(), paused);
  contention_backoff::after_failure({&b, nullptr}, {&c, nullptr});  // retried with `b`, lost again
  EXPECT_EQ(contention_backoff::consecutive_losses(), 1u);
  EXPECT_EQ(contention_backoff::paused_steps(), paused + 1);
  contention_backoff::after_failure({&c, &a}, {&a, nullptr});  // same pointer, another block
  EXPECT_EQ(contention_backoff::consecutive_losses(), 0u);
  EXPECT_EQ(contention_backoff::paused_steps(), paused + 1);
}

TEST(ContentionBackoff, LossesInARowAreBoundedAndASuccessEndsThem) {
  int values[20] = {};
  contention_backoff::after_success();
  contention_backoff::after_failure({&values[0], nullptr}, {&values[1], nullptr});
  unsigned most = 0;
  for (int i = 1; i < 19; ++i) {
    const auto before = contention_backoff::paused_steps();
    const unsigned losses = contention_backoff::consecutive_losses();
    contention_backoff::after_failure({&values[i], nullptr}, {&values[i + 1], nullptr});
    EXPECT_EQ(contention_backoff::paused_steps() - before, 1ull << losses);  // doubling
    EXPECT_GE(contention_backoff::consecutive_losses(), most);
    most = contention_backoff::consecutive_losses();
  }
  static_assert(contention_backoff::max_doublings == 10, "a lost retry pauses at most 1024 hints");
  EXPECT_EQ(most, contention_backoff::max_doublings);  // 18 losses in a row reach the bound
  contention_backoff::after_success();
  EXPECT_EQ(contention_backoff::consecutive_losses(), 0u);
  // After a success, even the value the last failure handed back is a first attempt.
  contention_backoff::after_failure({&values[19], nullptr}, {&values[0], nullptr});
  EXPECT_EQ(contention_backoff::consecutive_losses(), 0u);
}

TEST(ContentionBackoff, EachThreadCountsItsOwn) {
  int a = 0, b = 0, c = 0;
  contention_backoff::after_success();
  contention_backoff::after_failure({&a, nullptr}, {&b, nullptr});
  contention_backoff::after_failure({&b, nullptr}, {&c, nullptr});
  ASSERT_EQ(contention_backoff::consecutive_losses(), 1u);
  unsigned other = 99;
  std::thread([&] {
    contention_backoff::after_failure({&c, nullptr}, {&a, nullptr});  // not this thread's retry
    other = contention_backoff::consecutive_losses();
  }).join();
  EXPECT_EQ(other, 0u);
  EXPECT_EQ(contention_backoff::consecutive_losses(), 1u);
}

TEST(ContentionBackoff, CompareExchangeUsedAsATestNeverWaits) {
  // "Set if empty", failing every time because the atomic holds a value: the expected value passed
  // is the empty one, never the value a failure handed back, so no call waits.
  own::atomic_shared_ptr<int> slot(own::make_shared<int>(1));
  contention_backoff::after_success();
  const auto paused = contention_backoff::paused_steps();
  for (int i = 0; i < 100; ++i) {
    own::shared_ptr<int> empty;
    EXPECT_FALSE(slot.compare_exchange_strong(empty, own::make_shared<int>(2)));
    EXPECT_EQ(contention_backoff::consecutive_losses(), 0u);
  }
  EXPECT_EQ(contention_backoff::paused_steps(), paused);
}

TEST(ContentionBackoff, ACompareExchangeLoopThatKeepsLosingWaitsLonger) {
  // The loop of a counter, with "another thread" storing before each retry: every retry loses.
  own::atomic_shared_ptr<int> counter(own::make_shared<int>(0));
  contention_backoff::after_success();
  own::shared_ptr<int> seen = counter.load();
  const auto paused = contention_backoff::paused_steps();
  for (int round = 1; round <= 4; ++round) {
    counter.store(own::make_shared<int>(100 + round));  // the other thread wins
    EXPECT_FALSE(counter.compare_exchange_weak(seen, own::make_shared<int>(*seen + 1)));
    EXPECT_EQ(*seen, 100 + round);                        // handed back the winner's value
    EXPECT_EQ(contention_backoff::consecutive_losses(), static_cast<unsigned>(round - 1));
  }
  EXPECT_EQ(contention_backoff::paused_steps() - paused, 1u + 2u + 4u);  // rounds 2, 3 and 4
  EXPECT_TRUE(counter.compare_exchange_weak(seen, own::make_shared<int>(*seen + 1)));
  EXPECT_EQ(contention_backoff::consecutive_losses(), 0u);
  EXPECT_EQ(*counter.load(), 105);
}

TEST(ContentionBackoff, AtomicWeakPtrRetriesCountToo) {
  auto one = own::make_shared<int>(1);
  auto two = own::make_shared<int>(2);
  own::atomic_weak_ptr<int> cell(one);
  contention_backoff::after_success();
  own::weak_ptr<int> seen;  // a first attempt with the wrong value
  EXPECT_FALSE(cell.compare_exchange_strong(seen, two));
  EXPECT_EQ(contention_backoff::consecutive_losses(), 0u);
  cell.store(two);  // lost before the retry
  EXPECT_FALSE(cell.compare_exchange_strong(seen, one));
  EXPECT_EQ(contention_backoff::consecutive_losses(), 1u);
  EXPECT_TRUE(cell.compare_exchange_strong(seen, one));
  EXPECT_EQ(contention_backoff::consecutive_losses(), 0u);
}

}  // namespace
