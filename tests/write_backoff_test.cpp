// SPDX-License-Identifier: BSL-1.0
// Tests of <own/detail/write_backoff.hpp>, the back-off of atomic_shared_ptr's writes: only a
// write that finds another thread's node in an atomic this thread wrote last, or that follows this
// thread's write to it of a node that replaced one a reader held, soon after such a find, pauses;
// the pause doubles to a bound; a find long after the last one starts again; a write after one that
// replaced the node of another thread's compare-exchange (a collision) counts in a series of its
// own, within a longer window; writers far apart in time, a writer alone and a write that finds the
// atomic empty never pause. Driven on one thread by telling the back-off what a write found or what
// this thread wrote last; then through atomic_shared_ptr, and with real threads (under TSan in CI).
#include <own/atomic_shared_ptr.hpp>
#include <own/detail/write_backoff.hpp>

#include <gtest/gtest.h>

#include "stress.hpp"
#include "tracked.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <thread>
#include <vector>

using own::detail::write_backoff;

namespace {

int atomic_a, atomic_b;
int node_mine, node_theirs;

void require_clock() {
  if (!write_backoff::has_clock) GTEST_SKIP() << "no cheap clock here: writes never pause";
}

// The tests' window: a few milliseconds, so that sanitizers and valgrind, which slow the code between
// two signs far beyond the default microseconds, still see them come in a row.
constexpr std::uint64_t test_window = 1u << 23;

// Longer than this thread's window (or its window for collisions).
void quiet_time(std::uint64_t window = write_backoff::window_ticks()) {
  const std::uint64_t start = write_backoff::ticks();
  while (write_backoff::ticks() - start <= window) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

class WriteBackoff : public ::testing::Test {
 protected:
  void SetUp() override { write_backoff::set_window_for_testing(test_window); }
  void TearDown() override { write_backoff::set_window_for_testing(0); }
};

// This thread's last write was to `atomic`, and its last sign (if any) ended long ago.
void settle_on(const void* atomic) {
  write_backoff::after_write(atomic, &node_mine);
  quiet_time();
}

// A write to atomic_a that found another thread's node, then wrote node_mine.
void write_over_theirs() {
  write_backoff::before_write(&atomic_a, &node_theirs);
  write_backoff::after_write(&atomic_a, &node_mine);
}

// Runs `attempt` until it returns true, at most 10 times: a sequence that needs its signs within
// microseconds of each other fails only if this thread was preempted in the middle of it.
void within_the_window(const std::function<bool()>& attempt) {
  for (int i = 0; i < 10; ++i) {
    if (attempt()) return;
  }
  ADD_FAILURE() << "the sequence of signs never ran within the window in 10 attempts";
}

TEST_F(WriteBackoff, WritesThatFindTheirOwnNodeNeverPause) {
  require_clock();
  settle_on(&atomic_a);
  const auto paused = write_backoff::paused_steps();
  for (int i = 0; i < 1000; ++i) {
    write_backoff::before_write(&atomic_a, &node_mine);
    write_backoff::after_write(&atomic_a, &node_mine);
  }
  EXPECT_EQ(write_backoff::paused_steps(), paused);
}

TEST_F(WriteBackoff, AnotherAtomicOrAnEmptyOneIsNoSign) {
  require_clock();
  settle_on(&atomic_a);
  const auto paused = write_backoff::paused_steps();
  for (int i = 0; i < 100; ++i) {
    write_backoff::before_write(&atomic_b, &node_theirs);  // this thread's last write was to atomic_a
    write_backoff::before_write(&atomic_a, nullptr);       // emptied by another thread
    write_backoff::after_write(&atomic_a, &node_mine);
  }
  EXPECT_EQ(write_backoff::paused_steps(), paused);
}

TEST_F(WriteBackoff, SignsInARowDoubleThePauseToABound) {
  require_clock();
  within_the_window([] {
    settle_on(&atomic_a);
    write_over_theirs();  // the first sign after a quiet time only starts a series
    if (write_backoff::next_doubling() != 0) return false;
    constexpr unsigned most = write_backoff::max_doublings;
    static_assert(most == 10, "a write pauses at most 1024 hints");
    for (unsigned k = 0; k < most + 4; ++k) {
      const auto before = write_backoff::paused_steps();
      write_over_theirs();
      const unsigned expected = k < most ? k : most;
      if (write_backoff::paused_steps() - before != (1ull << expected)) return false;
    }
    return write_backoff::next_doubling() == most;
  });
}

TEST_F(WriteBackoff, ASignLongAfterTheLastStartsAgain) {
  require_clock();
  within_the_window([] {
    settle_on(&atomic_a);
    write_over_theirs();
    write_over_theirs();
    write_over_theirs();
    if (write_backoff::next_doubling() != 2) return false;
    quiet_time();
    const auto before = write_backoff::paused_steps();
    write_over_theirs();  // does not count: no pause, the series starts again
    if (write_backoff::paused_steps() != before || write_backoff::next_doubling() != 0) return false;
    write_over_theirs();
    return write_backoff::paused_steps() - before == 1;
  });
}

// A write to atomic_a whose node replaced one a reader held, or one another thread's compare-exchange
// held.
void write_over_a_read_node() {
  write_backoff::before_write(&atomic_a, &node_mine);
  write_backoff::after_write(&atomic_a, &node_mine, write_backoff::replaced_by::reader);
}
void write_over_a_compared_node() {
  write_backoff::before_write(&atomic_a, &node_mine);
  write_backoff::after_write(&atomic_a, &node_mine, write_backoff::replaced_by::writer);
}

TEST_F(WriteBackoff, AWriteAfterOneThatReplacedAReadNodeIsASign) {
  require_clock();
  within_the_window([] {
    settle_on(&atomic_a);
    const auto before = write_backoff::paused_steps();
    write_over_a_read_node();  // the write before it replaced nothing read: no sign
    write_over_a_read_node();  // a sign, the first of a series
    if (write_backoff::next_doubling() != 0 || write_backoff::paused_steps() != before) return false;
    write_over_a_read_node();
    write_over_a_read_node();
    if (write_backoff::paused_steps() - before != 1 + 2) return false;
    write_backoff::before_write(&atomic_a, &node_mine);  // counts: the last write replaced a read node
    write_backoff::after_write(&atomic_a, &node_mine);   // replaced nothing read
    write_backoff::before_write(&atomic_a, &node_mine);  // no sign
    return write_backoff::paused_steps() - before == 1 + 2 + 4;
  });
}

TEST_F(WriteBackoff, AReadNodeReplacedIsNoSignForAnotherAtomicOrAnEmptyOne) {
  require_clock();
  settle_on(&atomic_a);
  const auto paused = write_backoff::paused_steps();
  for (int i = 0; i < 100; ++i) {
    write_backoff::after_write(&atomic_a, &node_mine, write_backoff::replaced_by::reader);
    write_backoff::before_write(&atomic_b, &node_mine);
    write_backoff::before_write(&atomic_a, nullptr);  // emptied by a consumer meanwhile
  }
  EXPECT_EQ(write_backoff::paused_steps(), paused);
}

// Past both series' windows: the next sign of either starts its series.
void quiet_for_collisions() {
  write_backoff::after_write(&atomic_a, &node_mine);
  quiet_time(write_backoff::collision_window_ticks());
}

TEST_F(WriteBackoff, CollisionsAreASeriesOfTheirOwn) {
  require_clock();
  within_the_window([] {
    quiet_for_collisions();
    const auto before = write_backoff::paused_steps();
    write_over_a_compared_node();  // the write before it replaced nothing: no sign
    write_over_a_compared_node();  // a collision, the first of a series
    if (write_backoff::next_collision_doubling() != 0 || write_backoff::paused_steps() != before) return false;
    write_over_a_compared_node();
    write_over_a_compared_node();
    if (write_backoff::paused_steps() - before != 1 + 2 || write_backoff::next_collision_doubling() != 2) return false;
    write_over_theirs();  // a collision still (the write before it replaced a compared node): pauses 4
    // The other signs make a series of their own, which leaves this one as it was.
    write_over_theirs();  // the first of the other series: no pause
    if (write_backoff::next_doubling() != 0 || write_backoff::paused_steps() - before != 1 + 2 + 4) return false;
    write_over_theirs();           // pauses 1
    write_over_a_compared_node();  // the write before it replaced nothing: no sign
    write_over_a_compared_node();  // a collision: pauses 8
    return write_backoff::paused_steps() - before == 1 + 2 + 4 + 1 + 8 && write_backoff::next_collision_doubling() == 4 &&
           write_backoff::next_doubling() == 1;
  });
}

// A compare-exchange that fails records no write: what the last write replaced stays a sign for
// every attempt until a write succeeds, so a thread that keeps losing keeps making way.
TEST_F(WriteBackoff, WhatAWriteReplacedIsASignUntilTheNextWrite) {
  require_clock();
  for (const auto replaced : {write_backoff::replaced_by::reader, write_backoff::replaced_by::writer}) {
    within_the_window([replaced] {
      quiet_for_collisions();
      write_backoff::after_write(&atomic_a, &node_mine, replaced);
      write_backoff::before_write(&atomic_a, &node_mine);  // starts a series; then the CAS fails
      const auto before = write_backoff::paused_steps();
      write_backoff::before_write(&atomic_a, &node_mine);  // a retry: pauses 1
      write_backoff::before_write(&atomic_a, &node_mine);  // and 2; then succeeds
      write_backoff::after_write(&atomic_a, &node_mine);
      write_backoff::before_write(&atomic_a, &node_mine);  // no sign
      return write_backoff::paused_steps() - before == 1 + 2;
    });
  }
}

// Busy for `ticks`, with the clock as the back-off reads it.
void spin_for(std::uint64_t ticks) {
  const std::uint64_t start = write_backoff::ticks();
  while (write_backoff::ticks() - start <= ticks) {
  }
}

TEST_F(WriteBackoff, CollisionsCountWithinALongerWindow) {
  require_clock();
  constexpr std::uint64_t window = 1u << 20;  // about half a millisecond
  write_backoff::set_window_for_testing(window);
  EXPECT_EQ(write_backoff::window_ticks(), window);
  EXPECT_EQ(write_backoff::collision_window_ticks(), window << write_backoff::collision_window_log2);
  static_assert(write_backoff::collision_window_log2 == 4, "collisions count within 16 times the window");
  within_the_window([] {
    quiet_for_collisions();
    write_over_a_compared_node();
    write_over_a_compared_node();  // starts the collisions' series
    const auto before = write_backoff::paused_steps();
    spin_for(2 * window);
    write_over_a_compared_node();  // twice the window later: counts
    if (write_backoff::paused_steps() - before != 1) return false;
    write_over_theirs();  // a collision still: pauses 2
    write_over_theirs();  // starts the other series
    spin_for(2 * window);
    write_over_theirs();  // twice the window later: starts it again
    return write_backoff::paused_steps() - before == 1 + 2 && write_backoff::next_doubling() == 0;
  });
  write_backoff::set_window_for_testing(window / 64);
  within_the_window([] {
    quiet_for_collisions();
    write_over_a_compared_node();
    write_over_a_compared_node();
    const auto before = write_backoff::paused_steps();
    spin_for(window / 2);  // beyond 16 times the window: starts again
    write_over_a_compared_node();
    return write_backoff::paused_steps() == before && write_backoff::next_collision_doubling() == 0;
  });
}

TEST_F(WriteBackoff, TheDefaultWindowIsMicroseconds) {
  require_clock();
  write_backoff::set_window_for_testing(0);
  const std::uint64_t start = write_backoff::ticks();
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_LT(write_backoff::window_ticks() * 50, write_backoff::ticks() - start);  // under 20 us
  EXPECT_GT(write_backoff::window_ticks(), 0u);
}

TEST_F(WriteBackoff, WritersFarApartInTimeNeverPause) {
  require_clock();
  settle_on(&atomic_a);
  const auto paused = write_backoff::paused_steps();
  for (int i = 0; i < 3; ++i) {
    quiet_time();
    write_over_theirs();  // two writers taking turns every few milliseconds
  }
  EXPECT_EQ(write_backoff::paused_steps(), paused);
}

TEST_F(WriteBackoff, EachThreadCountsItsOwn) {
  require_clock();
  settle_on(&atomic_a);
  write_over_theirs();
  write_over_theirs();
  unsigned long long other_paused = 99;
  std::thread([&] {
    // This thread never wrote atomic_a: finding another node there is no sign.
    write_backoff::before_write(&atomic_a, &node_theirs);
    write_backoff::before_write(&atomic_a, &node_theirs);
    other_paused = write_backoff::paused_steps();
  }).join();
  EXPECT_EQ(other_paused, 0u);
}

// Through atomic_shared_ptr: telling the back-off that this thread last wrote some other node makes
// the atomic's real node look like another thread's.
template <class Atomic>
void store_over_another_writer(Atomic& a, typename Atomic::value_type v) {
  write_backoff::after_write(&a, &node_theirs);
  a.store(std::move(v));
}

// An atomic this thread has written, and the first sign of a series after a quiet time.
void start_a_series(own::atomic_shared_ptr<int>& a) {
  a.store(own::make_shared<int>(1));
  quiet_time();
  store_over_another_writer(a, own::make_shared<int>(2));
}

TEST_F(WriteBackoff, StoreAndExchangePauseOnSigns) {
  require_clock();
  own::atomic_shared_ptr<int> a;
  within_the_window([&] {
    start_a_series(a);
    const auto before = write_backoff::paused_steps();
    store_over_another_writer(a, own::make_shared<int>(3));
    if (write_backoff::paused_steps() - before != 1) return false;
    write_backoff::after_write(&a, &node_theirs);
    static_cast<void>(a.exchange(own::make_shared<int>(4)));
    return write_backoff::paused_steps() - before == 3;
  });
  EXPECT_EQ(*a.load(), 4);
}

TEST_F(WriteBackoff, CompareExchangePausesOnSignsAndRecordsItsWrite) {
  require_clock();
  own::atomic_shared_ptr<int> a;
  within_the_window([&] {
    start_a_series(a);
    const auto before = write_backoff::paused_steps();
    write_backoff::after_write(&a, &node_theirs);
    own::shared_ptr<int> seen = a.load();
    if (!a.compare_exchange_strong(seen, own::make_shared<int>(3))) return false;
    if (write_backoff::paused_steps() - before != 1) return false;  // before comparing
    write_backoff::after_write(&a, &node_theirs);
    seen = own::make_shared<int>(3);  // not the stored one: the CAS fails, having paused
    if (a.compare_exchange_strong(seen, own::make_shared<int>(4)) || *seen != 3) return false;
    if (write_backoff::paused_steps() - before != 1 + 2) return false;
    seen = a.load();  // a failure records no write: the next CAS is a sign again
    if (!a.compare_exchange_strong(seen, own::make_shared<int>(5))) return false;
    if (write_backoff::paused_steps() - before != 1 + 2 + 4) return false;
    seen = a.load();
    if (!a.compare_exchange_strong(seen, own::make_shared<int>(6))) return false;  // finds its own node
    a.store(own::make_shared<int>(7));  // finds the CAS's node: this thread's
    return write_backoff::paused_steps() - before == 1 + 2 + 4;
  });
  EXPECT_EQ(*a.load(), 7);
}

// Another thread, holding a snapshot of an atomic (a reader, for as long as told) while this one
// stores into it.
class snapshot_holder {
 public:
  explicit snapshot_holder(own::atomic_shared_ptr<int>& a) : thread_([this, &a] { run(a); }) {}
  snapshot_holder(const snapshot_holder&) = delete;
  snapshot_holder& operator=(const snapshot_holder&) = delete;
  ~snapshot_holder() {
    tell(stop);
    thread_.join();
  }
  // Returns once the other thread holds a snapshot, of value `*held`.
  void take() {
    tell(take_one);
    wait_for(holding);
  }
  void drop() {
    tell(drop_it);
    wait_for(idle);
  }
  int held() const { return held_; }

 private:
  enum command { idle, take_one, holding, drop_it, stop };
  void tell(command c) { command_.store(c); }
  void wait_for(command c) const {
    while (command_.load() != c) std::this_thread::yield();
  }
  void run(own::atomic_shared_ptr<int>& a) {
    for (;;) {
      const int c = command_.load();
      if (c == stop) return;
      if (c != take_one) {
        std::this_thread::yield();
        continue;
      }
      own::snapshot_ptr<int> s = a.snapshot();
      held_ = *s;
      tell(holding);
      wait_for(drop_it);
      s.reset();
      tell(idle);
    }
  }

  std::atomic<int> command_{idle};
  int held_ = 0;
  std::thread thread_;
};

// A store that replaces the node another thread's snapshot holds tells the next store to the atomic.
TEST_F(WriteBackoff, StoresThatReplaceWhatReadersHoldPause) {
  require_clock();
  // Tens of milliseconds: each store waits for two hand-offs to the reader's thread.
  write_backoff::set_window_for_testing(1u << 26);
  own::atomic_shared_ptr<int> a(own::make_shared<int>(0));
  snapshot_holder reader(a);
  const auto store_under_the_reader = [&](int v) {
    reader.take();
    a.store(own::make_shared<int>(v));
    EXPECT_EQ(reader.held(), v - 1);
    reader.drop();
  };
  within_the_window([&] {
    a.store(own::make_shared<int>(0));
    quiet_time();
    store_under_the_reader(1);
    store_under_the_reader(2);  // the first sign of a series
    const auto before = write_backoff::paused_steps();
    store_under_the_reader(3);
    if (write_backoff::paused_steps() - before != 1) return false;
    a.store(own::make_shared<int>(3));  // pauses, and replaces nothing read
    if (write_backoff::paused_steps() - before != 1 + 2) return false;
    a.store(own::make_shared<int>(3));
    return write_backoff::paused_steps() - before == 1 + 2;
  });
  EXPECT_EQ(*a.load(), 3);
}

// A writer's own snapshot is no reader to make way for: a thread that stores what it computed from
// a snapshot it holds ("read, then replace") never pauses, however fast it goes.
TEST_F(WriteBackoff, AWriterHoldingItsOwnSnapshotNeverPauses) {
  require_clock();
  own::atomic_shared_ptr<int> a(own::make_shared<int>(0));
  a.store(own::make_shared<int>(0));
  const auto paused = write_backoff::paused_steps();
  for (int i = 0; i < 1000; ++i) {
    own::snapshot_ptr<int> s = a.snapshot();
    a.store(own::make_shared<int>(*s + 1));
  }
  EXPECT_EQ(write_backoff::paused_steps(), paused);
  EXPECT_EQ(*a.load(), 1000);
}

TEST_F(WriteBackoff, AnAtomicMadeWhereAnotherEndedIsNew) {
  require_clock();
  quiet_time();
  const auto paused = write_backoff::paused_steps();
  alignas(own::atomic_shared_ptr<int>) unsigned char storage[sizeof(own::atomic_shared_ptr<int>)];
  for (int i = 0; i < 20; ++i) {
    auto* a = ::new (static_cast<void*>(storage)) own::atomic_shared_ptr<int>(own::make_shared<int>(i));
    a->store(own::make_shared<int>(i + 1));  // the constructor's node is nobody's write
    // Had another thread written last (or had the node freed by the destructor not come back in the
    // next constructor), the next atomic here would hold a node this thread did not write.
    write_backoff::after_write(a, &node_theirs);
    a->~atomic_shared_ptr();
  }
  EXPECT_EQ(write_backoff::paused_steps(), paused);
}

TEST_F(WriteBackoff, AtomicWeakPtrWritesPauseToo) {
  require_clock();
  auto v1 = own::make_shared<int>(1), v2 = own::make_shared<int>(2);
  own::atomic_weak_ptr<int> a(v1);
  a.store(v2);
  within_the_window([&] {
    quiet_time();
    store_over_another_writer(a, own::weak_ptr<int>(v1));
    const auto before = write_backoff::paused_steps();
    store_over_another_writer(a, own::weak_ptr<int>(v2));
    return write_backoff::paused_steps() - before == 1;
  });
}

using own_test::tracked;

// Runs write(a, t) on `threads` threads at once, each with its index t, on an atomic that holds
// tracked(-1); then checks that the atomic holds a value one of them wrote, and that every other
// value was released exactly once (by whatever the back-off made the writers wait).
template <class Write>
void writers_lose_nothing(int threads, Write write) {
  {
    own::atomic_shared_ptr<tracked> a(own::make_shared<tracked>(-1));
    std::atomic<int> ready{0};
    std::vector<std::thread> writers;
    for (int t = 0; t < threads; ++t) {
      writers.emplace_back([&, t] {
        ++ready;
        while (ready.load() < threads) std::this_thread::yield();
        write(a, t);
      });
    }
    for (auto& w : writers) w.join();
    EXPECT_EQ(tracked::live(), 1);  // the last value stored
    own::shared_ptr<tracked> last = a.load();
    ASSERT_TRUE(last);
    EXPECT_GE(last->value(), 0);
    EXPECT_LT(last->value(), threads);
  }
  EXPECT_EQ(tracked::live(), 0);
  EXPECT_EQ(tracked::double_destroyed(), 0);
}

// Two threads (and then four, more than this machine's cores) store into one atomic as fast as they
// can: every value is released exactly once, by exchange's caller or by the store that replaced it,
// and no write is lost.
TEST_F(WriteBackoff, WritersStoringInTurnsLoseNothing) {
  const long writes = own_test::scaled(250000);  // per thread: 10^6 writes in all at 4 threads
  for (int threads : {2, 4}) {
    writers_lose_nothing(threads, [writes](own::atomic_shared_ptr<tracked>& a, int t) {
      for (long i = 0; i < writes; ++i) {
        if (i % 2 == 0) {
          a.store(own::make_shared<tracked>(t));
        } else {
          EXPECT_TRUE(a.exchange(own::make_shared<tracked>(t)));  // never empty
        }
      }
    });
  }
}

// One thread stores as fast as it can while the others load (two threads, then four, more than this
// machine's cores): whatever the writer waits for its readers, every value is released exactly once
// and every load sees a value whole.
TEST_F(WriteBackoff, AWriterUnderReadersLosesNothing) {
  for (int threads : {2, 4}) {
    {
      own::atomic_shared_ptr<tracked> a(own::make_shared<tracked>(0));
      std::atomic<int> ready{0};
      std::atomic<bool> done{false};
      const long writes = own_test::scaled(250000);
      std::vector<std::thread> readers;
      for (int t = 1; t < threads; ++t) {
        readers.emplace_back([&] {
          ++ready;
          int last = 0;
          while (!done.load()) {
            own::shared_ptr<tracked> v = a.load();
            ASSERT_TRUE(v);
            EXPECT_GE(v->value(), last);  // values only grow: none seen out of order or torn
            last = v->value();
          }
        });
      }
      while (ready.load() < threads - 1) std::this_thread::yield();
      for (long i = 1; i <= writes; ++i) a.store(own::make_shared<tracked>(static_cast<int>(i)));
      done = true;
      for (auto& r : readers) r.join();
      // A value whose last reference a reader's node held waits for the next write (never for a reader).
      a.store(own::make_shared<tracked>(-2));  // not -1, which ~tracked leaves behind
      EXPECT_EQ(tracked::live(), 1);
      EXPECT_EQ(a.load()->value(), -2);
    }
    EXPECT_EQ(tracked::live(), 0);
    EXPECT_EQ(tracked::double_destroyed(), 0);
  }
}

// Threads that each load, then compare-exchange once, as fast as they can (two, then four, more than
// this machine's cores): every value is released exactly once, and the threads' writes collide (one
// replaces the node another's compare-exchange is comparing) often enough for the collisions'
// series to pause. (Not asserted under valgrind, which runs one thread at a time, or on one core.)
TEST_F(WriteBackoff, CompareExchangesThatCollidePauseAndLoseNothing) {
  const char* preload = std::getenv("LD_PRELOAD");
  const bool threads_overlap = std::thread::hardware_concurrency() > 1 &&
                               (preload == nullptr || std::strstr(preload, "vgpreload") == nullptr);
  const long rounds = own_test::scaled(100000);
  for (int threads : {2, 4}) {
    std::atomic<bool> collided{false};
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    writers_lose_nothing(threads, [&](own::atomic_shared_ptr<tracked>& a, int t) {
      write_backoff::set_window_for_testing(test_window);
      for (long i = 0; i < rounds || (threads_overlap && !collided.load() && std::chrono::steady_clock::now() < deadline); ++i) {
        own::shared_ptr<tracked> seen = a.load();
        if (!a.compare_exchange_strong(seen, own::make_shared<tracked>(t))) {
          EXPECT_TRUE(seen);  // never empty
        }
        if (write_backoff::next_collision_doubling() > 0) collided = true;
      }
    });
    if (threads_overlap) {
      EXPECT_TRUE(collided.load()) << threads << " threads";
    }
  }
}

}  // namespace
