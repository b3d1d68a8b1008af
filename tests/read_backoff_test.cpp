// SPDX-License-Identifier: BSL-1.0
// Tests of <own/detail/read_backoff.hpp>, the back-off of atomic_shared_ptr's load: a load checks
// where the value's count is once in check_every loads, then at every load while checks find it in
// another core's cache; only such a find at a check right after another on the same node, with the
// counts moved between the two, is a sign; signs pause as write_backoff's do (within the window, doubling to a bound). Driven on one thread with
// a read that takes as long as a line elsewhere would; then through atomic_shared_ptr with real
// threads (under TSan in CI).
#include <own/atomic_shared_ptr.hpp>
#include <own/detail/read_backoff.hpp>

#include <gtest/gtest.h>

#include "stress.hpp"
#include "tracked.hpp"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

using own::detail::read_backoff;
using own::detail::tick_clock;
using found = read_backoff::found;

namespace {

int node_a, node_b;

// The counts a read finds: each of the reads below but the last moves them, as another thread's
// copies would between two loads.
std::uint64_t counts_now = 0;

void spin_past_elsewhere() {
  const std::uint64_t start = tick_clock::ticks();
  while (tick_clock::ticks() - start <= 4 * read_backoff::elsewhere_ticks()) {
  }
}
// A read that takes longer than a line in another core's cache does, and one that takes nothing.
std::uint64_t slow_read() {
  spin_past_elsewhere();
  return ++counts_now;
}
std::uint64_t fast_read() { return ++counts_now; }
// A slow read of counts nobody moved (this thread alone, its line evicted by a neighbour).
std::uint64_t slow_unmoved_read() {
  spin_past_elsewhere();
  return counts_now;
}

class ReadBackoff : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!read_backoff::has_clock || read_backoff::elsewhere_ticks() == read_backoff::never) {
      GTEST_SKIP() << "no cheap fine clock here: loads never pause";
    }
    // valgrind (which preloads its vgpreload_*.so) runs each instruction many times slower, an
    // empty read too: no timing here tells a hit from a miss.
    const char* preload = std::getenv("LD_PRELOAD");
    if (preload != nullptr && std::strstr(preload, "vgpreload") != nullptr) {
      GTEST_SKIP() << "under valgrind, timings tell nothing of where a line is";
    }
    // Milliseconds, so that sanitizers and valgrind, which slow the code between two signs far
    // beyond the default microseconds, still see them come in a row.
    read_backoff::set_window_for_testing(1u << 23);
    leave_checking();
  }
  void TearDown() override { read_backoff::set_window_for_testing(0); }

  // Back to sampling: a check that finds the line here (which the next call may not make).
  static void leave_checking() {
    for (unsigned i = 0; i <= read_backoff::check_every && read_backoff::checking(); ++i) {
      static_cast<void>(read_backoff::before_copy(&node_a, fast_read));
    }
  }
  // Calls before_copy until one checks and finds the line elsewhere: never a sign, as the check
  // before it found the line here.
  static void until_a_slow_check(const void* node) {
    for (unsigned i = 0; i < read_backoff::check_every; ++i) {
      const found f = read_backoff::before_copy(node, slow_read);
      if (read_backoff::checking()) {
        EXPECT_EQ(f, found::nothing);
        return;
      }
    }
    ADD_FAILURE() << "no check in " << read_backoff::check_every << " loads";
  }
};

// Runs `attempt` until it returns true, at most 10 times: a sequence that needs its reads timed
// right (an interrupt can make any read slow) and its signs within the window fails only if this
// thread was interrupted or preempted in the middle of it.
void in_one_of_ten_attempts(const std::function<bool()>& attempt) {
  for (int i = 0; i < 10; ++i) {
    if (attempt()) return;
  }
  ADD_FAILURE() << "the sequence never ran undisturbed in 10 attempts";
}

TEST_F(ReadBackoff, ElsewhereLiesAboveAnEmptyTiming) {
  const std::uint64_t limit = read_backoff::elsewhere_ticks();
  EXPECT_GE(limit, 100u);
  EXPECT_LE(limit, 1100u);  // else it would be `never`
}

TEST_F(ReadBackoff, LoadsCheckOnceInCheckEveryWhileTheLineIsHere) {
  in_one_of_ten_attempts([] {
    leave_checking();
    bool signs = false;
    const auto checks = read_backoff::checks();
    const auto paused = read_backoff::paused_steps();
    for (unsigned i = 0; i < 100 * read_backoff::check_every; ++i) {
      signs = read_backoff::before_copy(&node_a, fast_read) != found::nothing || signs;
    }
    return read_backoff::checks() - checks == 100 && !signs && !read_backoff::checking() &&
           read_backoff::paused_steps() == paused;
  });
}

TEST_F(ReadBackoff, ALineElsewhereMakesEveryLoadCheckUntilItIsHereAgain) {
  in_one_of_ten_attempts([] {
    leave_checking();
    until_a_slow_check(&node_a);
    auto checks = read_backoff::checks();
    for (int i = 0; i < 5; ++i) static_cast<void>(read_backoff::before_copy(&node_a, slow_read));
    if (read_backoff::checks() - checks != 5 || !read_backoff::checking()) return false;
    static_cast<void>(read_backoff::before_copy(&node_a, fast_read));
    if (read_backoff::checking()) return false;
    checks = read_backoff::checks();
    for (unsigned i = 0; i + 1 < read_backoff::check_every; ++i) {
      static_cast<void>(read_backoff::before_copy(&node_a, slow_read));
    }
    return read_backoff::checks() == checks;  // sampling again
  });
}

TEST_F(ReadBackoff, OnlyTwoChecksInARowOnTheSameNodeMakeASign) {
  in_one_of_ten_attempts([] {
    leave_checking();
    until_a_slow_check(&node_a);  // nothing: the check before found the line here
    return read_backoff::before_copy(&node_a, slow_read) == found::sign &&
           read_backoff::before_copy(&node_b, slow_read) == found::nothing &&  // a writer stored meanwhile
           read_backoff::before_copy(&node_b, slow_read) == found::sign &&
           read_backoff::before_copy(&node_b, fast_read) == found::nothing &&  // the line is here
           !read_backoff::checking();
  });
}

TEST_F(ReadBackoff, CountsNobodyMovedAreOnlyFar) {
  in_one_of_ten_attempts([] {
    leave_checking();
    until_a_slow_check(&node_a);
    return read_backoff::before_copy(&node_a, slow_unmoved_read) == found::far &&
           read_backoff::before_copy(&node_a, slow_unmoved_read) == found::far &&
           read_backoff::before_copy(&node_a, slow_read) == found::sign;
  });
}

// A thread alone, whose count's line looks far at every check, never pauses: far finds never
// start a series.
TEST_F(ReadBackoff, AThreadAloneNeverPauses) {
  const auto paused = read_backoff::paused_steps();
  for (unsigned i = 0; i < 10 * read_backoff::check_every; ++i) {
    read_backoff::after_copy(read_backoff::before_copy(&node_a, slow_unmoved_read));
  }
  EXPECT_EQ(read_backoff::paused_steps(), paused);
}

// Once a sign has started a series, far finds go on with it.
TEST_F(ReadBackoff, FarFindsGoOnWithASeries) {
  in_one_of_ten_attempts([] {
    leave_checking();
    until_a_slow_check(&node_a);
    read_backoff::set_window_for_testing(1);  // so that the next sign starts a new series
    read_backoff::after_copy(read_backoff::before_copy(&node_a, slow_read));
    read_backoff::set_window_for_testing(1u << 23);
    if (read_backoff::next_doubling() != 0) return false;
    const auto before = read_backoff::paused_steps();
    for (int i = 0; i < 3; ++i) {
      read_backoff::after_copy(read_backoff::before_copy(&node_a, slow_unmoved_read));
    }
    return read_backoff::paused_steps() - before == 1 + 2 + 4;
  });
}

TEST_F(ReadBackoff, SignsInARowDoubleThePauseToABound) {
  in_one_of_ten_attempts([] {
    leave_checking();
    until_a_slow_check(&node_a);
    read_backoff::after_copy(read_backoff::before_copy(&node_a, slow_read));  // may start a series
    read_backoff::set_window_for_testing(1);  // so that the next sign starts a new one
    read_backoff::after_copy(read_backoff::before_copy(&node_a, slow_read));
    read_backoff::set_window_for_testing(1u << 23);
    if (read_backoff::next_doubling() != 0) return false;
    constexpr unsigned most = read_backoff::max_doublings;
    static_assert(most == 6, "a load pauses at most 64 hints");
    for (unsigned k = 0; k < most + 4; ++k) {
      const auto before = read_backoff::paused_steps();
      read_backoff::after_copy(read_backoff::before_copy(&node_a, slow_read));
      const unsigned expected = k < most ? k : most;
      if (read_backoff::paused_steps() - before != (1ull << expected)) return false;
    }
    return true;
  });
}

TEST_F(ReadBackoff, NoSignNoPause) {
  const auto paused = read_backoff::paused_steps();
  for (int i = 0; i < 1000; ++i) read_backoff::after_copy(found::nothing);
  EXPECT_EQ(read_backoff::paused_steps(), paused);
}

using own_test::tracked;

// Threads loading one atomic as fast as they can (two, then four on this 2-core machine), with a
// writer replacing the value now and then: whatever the back-off makes them wait, each load sees a
// whole value, and every value is released exactly once. (Where there is no clock, nothing pauses,
// and this still holds.)
TEST(ReadBackoffThreads, ReadersPausingForEachOtherLoseNothing) {
  for (int threads : {2, 4}) {
    {
      own::atomic_shared_ptr<tracked> a(own::make_shared<tracked>(0));
      std::atomic<int> ready{0};
      const long loads = own_test::scaled(400000);
      std::vector<std::thread> readers;
      for (int t = 0; t < threads; ++t) {
        readers.emplace_back([&, t] {
          ++ready;
          while (ready.load() < threads) std::this_thread::yield();
          long last = 0;
          for (long i = 0; i < loads; ++i) {
            if (t == 0 && i % 1000 == 999) a.store(own::make_shared<tracked>(static_cast<int>(i)));
            own::shared_ptr<tracked> v = a.load();
            ASSERT_TRUE(v);
            if (t == 0) {
              EXPECT_GE(v->value(), last);  // the writer's own stores, in order
              last = v->value();
            }
          }
        });
      }
      for (auto& r : readers) r.join();
      a.store(own::make_shared<tracked>(-1));  // releases what a reader left to writers
      EXPECT_EQ(tracked::live(), 1);
    }
    EXPECT_EQ(tracked::live(), 0);
    EXPECT_EQ(tracked::double_destroyed(), 0);
  }
}

}  // namespace
