// SPDX-License-Identifier: BSL-1.0
// Tests of <own/atomic_shared_ptr.hpp>: std::atomic<std::shared_ptr>'s and std::atomic<std::weak_ptr>'s
// semantics, aliased pointers, and of the free functions for atomic access to a plain shared_ptr
// (atomic_load(&p), ..., from <own/shared_ptr.hpp>); and multi-threaded stress tests of every
// operation that check every object is destroyed exactly once and every allocation returned (run
// them under TSan and ASan).
#include <own/atomic_shared_ptr.hpp>
#include <own/local_shared_ptr.hpp>

#include <gtest/gtest.h>

#include <cassert>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <future>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "proxied_load.hpp"
#include "stress.hpp"
#include "test_allocator.hpp"
#include "tracked.hpp"

using own_test::allocation_log;
using own_test::test_allocator;
using own_test::tracked;

// A user's function named like one of own's internals, called unqualified on own's atomics: the
// atomics' base classes must not bring own::detail into argument-dependent lookup (an ambiguity).
namespace user {
template <class T>
bool equivalent(const T&, const T&) {
  return true;
}
bool same(own::atomic_shared_ptr<int>& a, own::atomic_weak_ptr<int>& b) { return equivalent(a, a) && equivalent(b, b); }
}  // namespace user

namespace {

TEST(AtomicSharedPtr, UnqualifiedCallsFindNoInternals) {
  own::atomic_shared_ptr<int> a;
  own::atomic_weak_ptr<int> b;
  EXPECT_TRUE(user::same(a, b));
}

// Runs `f` on a thread of its own; if it has not returned within two minutes, reports a deadlock
// and aborts (a deadlocked thread cannot be stopped), so that a deadlock fails instead of hanging.
template <class F>
void expect_no_deadlock(F f) {
  std::promise<void> done;
  std::future<void> finished = done.get_future();
  std::thread t([&] {
    f();
    done.set_value();
  });
  if (finished.wait_for(std::chrono::minutes(2)) == std::future_status::timeout) {
    std::fputs("deadlock: the operation has not returned after two minutes\n", stderr);
    std::abort();
  }
  t.join();
}

// compare_exchange_weak may fail spuriously, but not every time: retried a bounded number of times,
// so that a comparison that never succeeds fails the test instead of spinning forever.
template <class Atomic, class Expected, class Desired>
bool weak_exchange_succeeds(Atomic& a, Expected& expected, const Desired& desired) {
  for (int tries = 0; tries != 1000; ++tries) {
    if (a.compare_exchange_weak(expected, desired)) return true;
  }
  return false;
}

struct config {
  int version = 0;
};
void use(const config& c) { EXPECT_GE(c.version, 0); }

TEST(AtomicSharedPtrUsage, HeaderExampleRuns) {
  const config defaults;
  own::atomic_shared_ptr<config> current(own::make_shared<config>(defaults));

  // readers, on any thread:
  own::shared_ptr<config> c = current.load();
  use(*c);

  // readers that only look, with no write to the count (many readers, rare writers):
  own::snapshot_ptr<config> s = current.snapshot();
  use(*s);

  // a writer publishes a new version only if nobody else did meanwhile:
  own::shared_ptr<config> seen = current.load();
  own::shared_ptr<config> next = own::make_shared<config>(*seen);
  next->version++;
  bool published = current.compare_exchange_strong(seen, next);  // else `seen` is the newer one

  // an observer of the latest version that does not keep an old one alive:
  own::atomic_weak_ptr<config> latest(current.load());
  if (own::shared_ptr<config> alive = latest.load().lock()) use(*alive);

  EXPECT_TRUE(published);
  EXPECT_EQ(s->version, 0);  // the version it was taken of
  EXPECT_EQ(current.load()->version, 1);
  EXPECT_EQ(latest.load().lock(), current.load());
}

TEST(AtomicSharedPtrLayout, OneWordAndLockFree) {
  static_assert(sizeof(own::atomic_shared_ptr<int>) == 8);
  static_assert(own::atomic_shared_ptr<int>::is_always_lock_free);
  static_assert(std::is_same_v<own::atomic_shared_ptr<int>::value_type, own::shared_ptr<int>>);
  own::atomic_shared_ptr<int> a;
  EXPECT_TRUE(a.is_lock_free());

  static_assert(sizeof(own::atomic_weak_ptr<int>) == 8);
  static_assert(own::atomic_weak_ptr<int>::is_always_lock_free);
  static_assert(std::is_same_v<own::atomic_weak_ptr<int>::value_type, own::weak_ptr<int>>);
  own::atomic_weak_ptr<int> w;
  EXPECT_TRUE(w.is_lock_free());
}

// ---------------------------------------------------------------------------------------------
// Snapshots

TEST(AtomicSharedPtrSnapshot, EmptyAtomicGivesAnEmptySnapshot) {
  own::atomic_shared_ptr<int> a;
  own::snapshot_ptr<int> s = a.snapshot();
  EXPECT_FALSE(s);
  EXPECT_EQ(s.get(), nullptr);
  EXPECT_FALSE(s.to_shared());
  static_assert(!std::is_copy_constructible_v<own::snapshot_ptr<int>>);
  static_assert(!std::is_copy_assignable_v<own::snapshot_ptr<int>>);
  static_assert(std::is_nothrow_move_constructible_v<own::snapshot_ptr<int>>);
}

TEST(AtomicSharedPtrSnapshot, ReadsTheValueWithoutCountingIt) {
  own::shared_ptr<config> v = own::make_shared<config>();
  v->version = 7;
  own::atomic_shared_ptr<config> a(v);
  EXPECT_EQ(v.use_count(), 2);
  own::snapshot_ptr<config> s = a.snapshot();
  EXPECT_EQ(v.use_count(), 2);  // protected by a hazard slot, not a reference
  EXPECT_TRUE(s);
  EXPECT_EQ(s.get(), v.get());
  EXPECT_EQ(s->version, 7);
  EXPECT_EQ((*s).version, 7);
  own::shared_ptr<config> kept = s.to_shared();
  EXPECT_EQ(kept, v);
  EXPECT_EQ(v.use_count(), 3);
}

TEST(AtomicSharedPtrSnapshot, AliasedValueKeepsItsStoredPointer) {
  auto owner = own::make_shared<std::pair<int, int>>(1, 2);
  own::atomic_shared_ptr<int> a(own::shared_ptr<int>(owner, &owner->second));
  own::snapshot_ptr<int> s = a.snapshot();
  EXPECT_EQ(s.get(), &owner->second);
  EXPECT_EQ(s.to_shared().get(), &owner->second);
  EXPECT_FALSE(s.to_shared().owner_before(owner) || owner.owner_before(s.to_shared()));
}

TEST(AtomicSharedPtrSnapshot, KeepsAReplacedValueAliveUntilItEnds) {
  const long before = tracked::live();
  {
    own::atomic_shared_ptr<tracked> a(own::make_shared<tracked>(1));
    own::snapshot_ptr<tracked> s = a.snapshot();
    a.store(own::make_shared<tracked>(2));
    EXPECT_EQ(tracked::live(), before + 2);
    EXPECT_EQ(s->value(), 1);  // still there
    s.reset();
    EXPECT_FALSE(s);
    // A snapshot's end is a reader's: the value's last reference is left to the next write.
    a.store(own::make_shared<tracked>(3));
    EXPECT_EQ(tracked::live(), before + 1);
  }
  EXPECT_EQ(tracked::live(), before);
}

TEST(AtomicSharedPtrSnapshot, MovesAndMoveAssigns) {
  own::atomic_shared_ptr<int> a(own::make_shared<int>(5));
  own::atomic_shared_ptr<int> b(own::make_shared<int>(6));
  own::snapshot_ptr<int> s = a.snapshot();
  own::snapshot_ptr<int> t(std::move(s));
  EXPECT_FALSE(s);  // NOLINT(bugprone-use-after-move): moved-from is empty
  EXPECT_EQ(*t, 5);
  own::snapshot_ptr<int> u = b.snapshot();
  u = std::move(t);  // u's slot given back, t's taken over
  EXPECT_EQ(*u, 5);
  EXPECT_FALSE(t);  // NOLINT(bugprone-use-after-move)
  own::snapshot_ptr<int>& same = u;
  u = std::move(same);  // self-move leaves it as it was
  EXPECT_EQ(*u, 5);
}

TEST(AtomicSharedPtrSnapshot, PastTheThreadsSlotsASnapshotCountsItsValue) {
  own::shared_ptr<int> v = own::make_shared<int>(1);
  own::atomic_shared_ptr<int> a(v);
  std::vector<own::snapshot_ptr<int>> held;
  for (unsigned i = 0; i < own::detail::hazard_slots::snapshot_slots; ++i) held.push_back(a.snapshot());
  EXPECT_EQ(v.use_count(), 2);
  held.push_back(a.snapshot());  // no slot left: a counted reference
  EXPECT_EQ(v.use_count(), 3);
  EXPECT_EQ(*held.back(), 1);
  held.erase(held.begin());  // a slot given back ...
  held.push_back(a.snapshot());  // ... and taken again
  EXPECT_EQ(v.use_count(), 3);
  held.clear();
  EXPECT_EQ(v.use_count(), 2);
}

TEST(AtomicSharedPtrSnapshot, MayOutliveItsAtomic) {
  const long before = tracked::live();
  own::snapshot_ptr<tracked> s;
  {
    own::atomic_shared_ptr<tracked> a(own::make_shared<tracked>(4));
    s = a.snapshot();
  }
  EXPECT_EQ(s->value(), 4);
  s.reset();
  own::atomic_shared_ptr<int> other;
  other.store(own::make_shared<int>(0));  // any write releases what readers left
  EXPECT_EQ(tracked::live(), before);
}

// ---------------------------------------------------------------------------------------------
// Single-threaded semantics

TEST(AtomicSharedPtr, EmptyByDefault) {
  own::atomic_shared_ptr<int> a;
  own::atomic_shared_ptr<int> b = nullptr;
  EXPECT_FALSE(a.load());
  EXPECT_FALSE(b.load());
  EXPECT_EQ(a.load().use_count(), 0);
}

TEST(AtomicSharedPtr, LoadReturnsACountedCopy) {
  auto p = own::make_shared<tracked>(1);
  own::atomic_shared_ptr<tracked> a(p);
  EXPECT_EQ(p.use_count(), 2);
  {
    own::shared_ptr<tracked> q = a.load();
    own::shared_ptr<tracked> r = a;  // conversion loads
    EXPECT_EQ(q, p);
    EXPECT_TRUE(q.owner_equal(p));
    EXPECT_EQ(p.use_count(), 4);
  }
  EXPECT_EQ(p.use_count(), 2);
  p.reset();
  EXPECT_EQ(tracked::live(), 1);  // the atomic owns it
  EXPECT_EQ(a.load(std::memory_order_acquire)->value(), 1);
  EXPECT_EQ(a.load(std::memory_order_relaxed)->value(), 1);
}

// Load proxies (detail/load_proxies.hpp): in a multi-threaded process, a thread's third load of the
// same value in a row takes its reference on a control block of the thread's own, which stands for
// the value's. What users see of it must be the value's owner.
void make_the_process_multi_threaded() { std::thread([] {}).join(); }

using own_test::proxied;
// A load through this thread's proxy (load_until_proxied), which must have been armed for it.
template <class T>
own::shared_ptr<T> proxied_load(const own::atomic_shared_ptr<T>& a) {
  own::shared_ptr<T> p = own_test::load_until_proxied(a);
  EXPECT_TRUE(proxied(p));
  return p;
}

struct counting_deleter {
  int* calls;
  void operator()(tracked* p) const {
    ++*calls;
    delete p;
  }
};

TEST(AtomicSharedPtrProxiedLoad, IsOwnedByTheValuesOwner) {
  make_the_process_multi_threaded();
  int deletions = 0;
  own::shared_ptr<tracked> p(new tracked(1), counting_deleter{&deletions});
  own::atomic_shared_ptr<tracked> a(p);
  own::shared_ptr<tracked> first = a.load();
  own::shared_ptr<tracked> second = proxied_load(a);
  ASSERT_TRUE(proxied(second));
  EXPECT_EQ(second, p);
  EXPECT_TRUE(second.owner_equal(p));
  EXPECT_TRUE(p.owner_equal(second));
  EXPECT_FALSE(second.owner_before(p));
  EXPECT_FALSE(p.owner_before(second));
  EXPECT_EQ(second.owner_hash(), p.owner_hash());
  ASSERT_NE(own::get_deleter<counting_deleter>(second), nullptr);
  EXPECT_EQ(own::get_deleter<counting_deleter>(second)->calls, &deletions);
  // As many owners as std counts: p, the atomic, first and second.
  EXPECT_EQ(second.use_count(), 4);
  EXPECT_EQ(p.use_count(), 4);

  // A weak_ptr made from it observes the value itself: it outlives the proxy's standing.
  own::weak_ptr<tracked> w = second;
  EXPECT_TRUE(w.owner_equal(p));
  first.reset();
  second.reset();
  a.store(own::make_shared<tracked>(2));
  EXPECT_EQ(w.lock(), p);
  EXPECT_EQ(p.use_count(), 1);  // the proxy was revoked by the store
  p.reset();
  EXPECT_TRUE(w.expired());
  EXPECT_EQ(deletions, 1);
}

TEST(AtomicSharedPtrProxiedLoad, ALocalGroupMadeFromItObservesTheValue) {
  make_the_process_multi_threaded();
  own::shared_ptr<tracked> p = own::make_shared<tracked>(1);
  own::atomic_shared_ptr<tracked> a(p);
  own::shared_ptr<tracked> loaded = proxied_load(a);
  ASSERT_TRUE(proxied(loaded));
  own::local_shared_ptr<tracked> local(std::move(loaded));
  own::local_weak_ptr<tracked> w = local;
  EXPECT_EQ(local.use_count(), 1);
  EXPECT_EQ(p.use_count(), 3);  // p, the atomic, the local group
  local.reset();
  a.store(own::make_shared<tracked>(2));  // revokes the proxy: only p keeps the value now
  EXPECT_FALSE(w.expired()) << "p still owns it";
  own::local_shared_ptr<tracked> again = w.lock();
  ASSERT_TRUE(again);
  EXPECT_EQ(again.get(), p.get());
  again.reset();
  p.reset();
  EXPECT_TRUE(w.expired());
}

TEST(AtomicSharedPtrProxiedLoad, CompareExchangeTakesItAsTheValue) {
  make_the_process_multi_threaded();
  own::atomic_shared_ptr<tracked> a(own::make_shared<tracked>(1));
  own::shared_ptr<tracked> seen = proxied_load(a);
  EXPECT_TRUE(a.compare_exchange_strong(seen, own::make_shared<tracked>(2)));
  EXPECT_EQ(a.load()->value(), 2);
  seen.reset();
  EXPECT_EQ(tracked::live(), 1);
}

// A proxied copy stored back: its loads, proxied on another thread, are still owned by the value's
// owner (a proxy never stands for another proxy).
TEST(AtomicSharedPtrProxiedLoad, StoredBackIsStillTheValue) {
  make_the_process_multi_threaded();
  auto p = own::make_shared<tracked>(1);
  own::atomic_shared_ptr<tracked> a(p);
  a.store(proxied_load(a));
  std::thread([&] {
    own::shared_ptr<tracked> first = a.load();
    own::shared_ptr<tracked> second = proxied_load(a);
    EXPECT_TRUE(second.owner_equal(p));
    EXPECT_EQ(p.use_count(), 4);  // p, the atomic, first, second
  }).join();
  EXPECT_EQ(p.use_count(), 2);
  a.store(nullptr);
  EXPECT_EQ(p.use_count(), 1);
}

// A thread that runs `first`, then idles until the object goes; made once `first` has run.
class idle_after {
 public:
  template <class First>
  explicit idle_after(First first)
      : thread_([this, first] {
          first();
          done_.set_value();
          finish_.get_future().wait();
        }) {
    done_.get_future().wait();
  }
  idle_after(const idle_after&) = delete;
  idle_after& operator=(const idle_after&) = delete;
  ~idle_after() {
    finish_.set_value();
    thread_.join();
  }

 private:
  std::promise<void> done_;
  std::promise<void> finish_;
  std::thread thread_;
};

// A thread whose proxy stands for a value keeps it alive only while the value is stored: the write
// that replaces it releases it, in the writing thread, though the loading thread lives on, idle.
TEST(AtomicSharedPtrProxiedLoad, TheWriteThatReplacesTheValueReleasesIt) {
  const long destroyed = tracked::destroyed();
  own::atomic_shared_ptr<tracked> a(own::make_shared<tracked>(1));
  idle_after reader([&] { EXPECT_EQ(proxied_load(a)->value(), 1); });
  a.store(own::make_shared<tracked>(2));
  EXPECT_EQ(tracked::destroyed(), destroyed + 1);
  EXPECT_EQ(tracked::live(), 1);
}

// What a thread loaded through its proxy may outlive the thread; the proxy then goes with the last
// of it, and a later thread on the same hazard record arms it again.
TEST(AtomicSharedPtrProxiedLoad, OutlivesTheLoadingThread) {
  allocation_log log;
  {
    own::atomic_shared_ptr<tracked> a(own::allocate_shared<tracked>(test_allocator<tracked>(&log), 1));
    own::shared_ptr<tracked> kept;
    std::thread([&] { kept = proxied_load(a); }).join();
    a.store(nullptr);
    EXPECT_EQ(kept->value(), 1);
    EXPECT_EQ(kept.use_count(), 1);
    kept.reset();
    EXPECT_EQ(tracked::live(), 0);
    EXPECT_EQ(log.blocks_in_use(), 0);  // (the proxy is no allocation)
    a.store(own::allocate_shared<tracked>(test_allocator<tracked>(&log), 2));
    std::thread([&] { kept = proxied_load(a); }).join();
    EXPECT_EQ(kept->value(), 2);
    EXPECT_TRUE(proxied(kept));
  }
  EXPECT_EQ(tracked::live(), 0);
  EXPECT_EQ(log.blocks_in_use(), 0);
}

// A thread_local made before the thread armed its proxy is destroyed after the proxy's own clean-up
// at thread exit: its destructor's loads must still work, without the proxy.
struct loads_at_exit {
  const own::atomic_shared_ptr<tracked>* atomic = nullptr;
  int* seen = nullptr;
  loads_at_exit() = default;
  loads_at_exit(const loads_at_exit&) = delete;
  loads_at_exit& operator=(const loads_at_exit&) = delete;
  ~loads_at_exit() {
    if (atomic) {
      for (int i = 0; i < 3; ++i) *seen += atomic->load()->value();
    }
  }
};

TEST(AtomicSharedPtrProxiedLoad, LoadsInThreadExitGoOnWithoutIt) {
  own::atomic_shared_ptr<tracked> a(own::make_shared<tracked>(5));
  int seen = 0;
  std::thread([&] {
    static thread_local loads_at_exit at_exit;
    at_exit.atomic = &a;
    at_exit.seen = &seen;
    EXPECT_EQ(proxied_load(a)->value(), 5);
  }).join();
  EXPECT_EQ(seen, 15);
  EXPECT_EQ(a.load().use_count(), 2);
}

// use_count() counts as std does, though the value's block holds one reference for the proxy
// (never fewer: a sole owner stays alone).
TEST(AtomicSharedPtrProxiedLoad, CountsAsStdDoes) {
  make_the_process_multi_threaded();
  auto p = own::make_shared<tracked>(1);
  own::atomic_shared_ptr<tracked> a(p);
  {
    own::shared_ptr<tracked> first = a.load();
    own::shared_ptr<tracked> second = a.load();
    own::shared_ptr<tracked> third = proxied_load(a);
    EXPECT_EQ(p.use_count(), 5);
    EXPECT_EQ(third.use_count(), 5);
    own::weak_ptr<tracked> w = third;
    EXPECT_EQ(w.use_count(), 5);
  }
  EXPECT_EQ(p.use_count(), 2);  // p, the atomic
  a.store(nullptr);
  EXPECT_EQ(p.use_count(), 1);
}

// A thread that reads the value it replaces (the writer of a read-mostly value) arms its proxy as it
// writes, for the value it wrote: its loads go through the proxy from the first on. Each test runs
// on a thread of its own, whose proxy and streaks start fresh.
constexpr unsigned reads_before_writing = own::detail::load_proxies::worth_arming_on_write + own::detail::load_proxies::first_streak;

template <class T>
void read_in_a_row(const own::atomic_shared_ptr<T>& a, int expected) {
  for (unsigned i = 0; i != reads_before_writing; ++i) ASSERT_EQ(a.load()->value(), expected);
}

TEST(AtomicSharedPtrProxiedLoad, AWriterThatReadsWhatItReplacesArmsItsProxy) {
  own::atomic_shared_ptr<tracked> a(own::make_shared<tracked>(1));
  std::thread([&] {
    read_in_a_row(a, 1);
    auto second = own::make_shared<tracked>(2);
    a.store(second);
    own::shared_ptr<tracked> loaded = a.load();
    EXPECT_TRUE(proxied(loaded));
    EXPECT_TRUE(loaded.owner_equal(second));
    EXPECT_EQ(second.use_count(), 3);  // second, the atomic, loaded
    loaded.reset();
    EXPECT_EQ(second.use_count(), 2);

    // So does a successful compare_exchange, and an exchange.
    read_in_a_row(a, 2);
    own::shared_ptr<tracked> expected = second;
    ASSERT_TRUE(a.compare_exchange_strong(expected, own::make_shared<tracked>(3)));
    EXPECT_TRUE(proxied(a.load()));
    read_in_a_row(a, 3);
    EXPECT_EQ(a.exchange(own::make_shared<tracked>(4))->value(), 3);
    EXPECT_TRUE(proxied(a.load()));

    // The write that replaces the value revokes the proxy: the value goes with it.
    own::weak_ptr<tracked> w = a.load();
    read_in_a_row(a, 4);
    a.store(nullptr);
    EXPECT_TRUE(w.expired());
  }).join();
  EXPECT_EQ(tracked::live(), 0);
}

TEST(AtomicSharedPtrProxiedLoad, AWriterThatDoesNotReadArmsNothing) {
  own::atomic_shared_ptr<tracked> a(own::make_shared<tracked>(1));
  std::thread([&] {
    a.store(own::make_shared<tracked>(2));
    a.store(own::make_shared<tracked>(3));
    EXPECT_FALSE(proxied(a.load()));
    // One load of the value it replaces is not enough either.
    a.store(own::make_shared<tracked>(4));
    EXPECT_FALSE(proxied(a.load()));
  }).join();
  EXPECT_EQ(tracked::live(), 1);
}

// An arming at a write that served fewer loads than it cost is not repeated at the next write.
TEST(AtomicSharedPtrProxiedLoad, AWriteArmingThatServedLittleIsNotRepeated) {
  own::atomic_shared_ptr<tracked> a(own::make_shared<tracked>(1));
  std::thread([&] {
    read_in_a_row(a, 1);
    a.store(own::make_shared<tracked>(2));
    EXPECT_TRUE(proxied(a.load()));  // one load served
    a.store(own::make_shared<tracked>(3));
    EXPECT_FALSE(proxied(a.load()));
  }).join();
}

// Not while another thread reads the value: its proxy stood for it, so the writer does not arm.
TEST(AtomicSharedPtrProxiedLoad, AWriterBesideAnotherReaderDoesNotArm) {
  own::atomic_shared_ptr<tracked> a(own::make_shared<tracked>(1));
  idle_after reader([&] { EXPECT_EQ(proxied_load(a)->value(), 1); });
  std::thread([&] {
    read_in_a_row(a, 1);
    a.store(own::make_shared<tracked>(2));
    EXPECT_FALSE(proxied(a.load()));
  }).join();
}

// A thread whose loads move on to another value before its next write (here, one load of another
// atomic) arms at ever fewer of its writes: each arming that served nothing doubles the writes that
// pass before the next (1, 2, 4 ...: six or so of 40, where its loads' own armings leave room).
// Once its loads use its armings again, it arms at every write again, within max_write_skips writes.
TEST(AtomicSharedPtrProxiedLoad, WriteArmingsThatServeNothingBackOff) {
  own::atomic_shared_ptr<tracked> a(own::make_shared<tracked>(0));
  own::atomic_shared_ptr<tracked> other(own::make_shared<tracked>(-1));
  std::thread([&] {
    std::vector<int> armed_at;
    int value = 0;
    for (int round = 1; round <= 40; ++round) {
      read_in_a_row(a, value);
      a.store(own::make_shared<tracked>(++value));
      if (proxied(a.load())) armed_at.push_back(round);
      EXPECT_EQ(other.load()->value(), -1);
    }
    ASSERT_FALSE(armed_at.empty());
    EXPECT_EQ(armed_at.front(), 1);
    EXPECT_LE(armed_at.size(), 7u);
    for (std::size_t i = 2; i < armed_at.size(); ++i) EXPECT_GE(armed_at[i] - armed_at[i - 1], armed_at[i - 1] - armed_at[i - 2]);
    ASSERT_GE(armed_at.size(), 2u);
    EXPECT_GE(armed_at.back() - armed_at[armed_at.size() - 2], 16);

    std::vector<bool> armed;
    for (unsigned round = 0; round != own::detail::load_proxies::max_write_skips + 20; ++round) {
      armed.push_back(proxied(a.load()));
      read_in_a_row(a, value);
      a.store(own::make_shared<tracked>(++value));
    }
    EXPECT_EQ(std::count(armed.end() - 20, armed.end(), true), 20);
  }).join();
}

// The writer's proxy stands for its value as any load's does: another thread's write releases the
// value while the writer idles.
TEST(AtomicSharedPtrProxiedLoad, AnotherThreadsWriteReleasesAWritersArmedValue) {
  own::atomic_shared_ptr<tracked> a(own::make_shared<tracked>(1));
  idle_after writer([&] {
    read_in_a_row(a, 1);
    a.store(own::make_shared<tracked>(2));
    EXPECT_TRUE(proxied(a.load()));
  });
  const long destroyed = tracked::destroyed();
  a.store(own::make_shared<tracked>(3));
  EXPECT_EQ(tracked::destroyed(), destroyed + 1);
  EXPECT_EQ(tracked::live(), 1);
}

TEST(AtomicSharedPtr, StoreReleasesThePreviousValue) {
  const long destroyed = tracked::destroyed();
  own::atomic_shared_ptr<tracked> a(own::make_shared<tracked>(1));
  a.store(own::make_shared<tracked>(2));
  EXPECT_EQ(tracked::destroyed(), destroyed + 1);
  a = own::make_shared<tracked>(3);
  EXPECT_EQ(a.load()->value(), 3);
  a.store(nullptr, std::memory_order_release);
  EXPECT_FALSE(a.load());
  a = nullptr;
  EXPECT_EQ(tracked::live(), 0);
  EXPECT_EQ(tracked::destroyed(), destroyed + 3);
}

TEST(AtomicSharedPtr, ExchangeReturnsThePreviousValue) {
  auto one = own::make_shared<tracked>(1);
  auto two = own::make_shared<tracked>(2);
  own::atomic_shared_ptr<tracked> a(one);
  own::shared_ptr<tracked> old = a.exchange(two);
  EXPECT_EQ(old, one);
  EXPECT_EQ(one.use_count(), 2);  // `one` and `old`
  EXPECT_EQ(two.use_count(), 2);
  old = a.exchange(nullptr, std::memory_order_acq_rel);
  EXPECT_EQ(old, two);
  EXPECT_FALSE(a.exchange(nullptr));
}

TEST(AtomicSharedPtr, DestructionReleasesTheValue) {
  auto p = own::make_shared<tracked>(1);
  { own::atomic_shared_ptr<tracked> a(p); }
  EXPECT_EQ(p.use_count(), 1);
}

struct pair_of_tracked {
  tracked first{1};
  tracked second{2};
};

TEST(AtomicSharedPtr, CarriesAliasedPointers) {
  allocation_log log;
  auto whole = own::allocate_shared<pair_of_tracked>(test_allocator<pair_of_tracked>(&log));
  own::atomic_shared_ptr<tracked> a(own::shared_ptr<tracked>(whole, &whole->second));
  own::shared_ptr<tracked> second = a.load();
  EXPECT_EQ(second.get(), &whole->second);
  EXPECT_TRUE(second.owner_equal(whole));
  whole.reset();
  second.reset();
  EXPECT_EQ(tracked::live(), 2);  // the atomic keeps the whole pair
  EXPECT_EQ(a.load()->value(), 2);

  // Aliasing into an empty owner: a non-null pointer with no block.
  tracked outside(7);
  a.store(own::shared_ptr<tracked>(own::shared_ptr<tracked>(), &outside));
  EXPECT_EQ(log.blocks_in_use(), 0);
  EXPECT_EQ(a.load().get(), &outside);
  EXPECT_EQ(a.load().use_count(), 0);
}

TEST(AtomicSharedPtr, CompareExchangeSucceedsOnTheSamePointerAndOwner) {
  auto one = own::make_shared<tracked>(1);
  auto two = own::make_shared<tracked>(2);
  own::atomic_shared_ptr<tracked> a(one);
  own::shared_ptr<tracked> expected = one;
  EXPECT_TRUE(a.compare_exchange_strong(expected, two));
  EXPECT_EQ(expected, one);  // unchanged on success
  EXPECT_EQ(a.load(), two);
  EXPECT_EQ(one.use_count(), 2);  // `one` and `expected`: the atomic let go
  EXPECT_TRUE(a.compare_exchange_strong(two, one, std::memory_order_acq_rel, std::memory_order_acquire));
  expected = one;
  EXPECT_TRUE(weak_exchange_succeeds(a, expected, nullptr));
  EXPECT_FALSE(a.load());
  // Both empty: equivalent.
  own::shared_ptr<tracked> empty;
  EXPECT_TRUE(a.compare_exchange_strong(empty, two, std::memory_order_release));
  EXPECT_EQ(a.load(), two);
}

TEST(AtomicSharedPtr, CompareExchangeFailureCopiesTheCurrentValue) {
  auto one = own::make_shared<tracked>(1);
  auto two = own::make_shared<tracked>(2);
  own::atomic_shared_ptr<tracked> a(one);
  own::shared_ptr<tracked> expected = two;
  EXPECT_FALSE(a.compare_exchange_strong(expected, own::make_shared<tracked>(3)));
  EXPECT_EQ(expected, one);
  EXPECT_EQ(one.use_count(), 3);  // `one`, the atomic, `expected`
  EXPECT_EQ(tracked::live(), 2);  // the unused desired value is gone
  expected = two;
  EXPECT_FALSE(a.compare_exchange_weak(expected, nullptr, std::memory_order_acquire, std::memory_order_relaxed));
  EXPECT_EQ(expected, one);

  // An empty atomic and a non-empty expectation.
  a.store(nullptr);
  expected = two;
  EXPECT_FALSE(a.compare_exchange_strong(expected, one));
  EXPECT_FALSE(expected);
  // And the other way round.
  a.store(one);
  EXPECT_FALSE(a.compare_exchange_strong(expected, two));
  EXPECT_EQ(expected, one);
}

TEST(AtomicSharedPtr, CompareExchangeComparesOwnersToo) {
  auto whole = own::make_shared<pair_of_tracked>();
  own::shared_ptr<tracked> first(whole, &whole->first);
  own::atomic_shared_ptr<tracked> a(first);
  // The same pointer with another owner is not equivalent.
  own::shared_ptr<tracked> unowned(own::shared_ptr<tracked>(), &whole->first);
  own::shared_ptr<tracked> expected = unowned;
  EXPECT_FALSE(a.compare_exchange_strong(expected, nullptr));
  EXPECT_TRUE(expected.owner_equal(whole));
  EXPECT_EQ(expected.get(), &whole->first);
  // The same owner with another pointer is not equivalent either.
  expected = own::shared_ptr<tracked>(whole, &whole->second);
  EXPECT_FALSE(a.compare_exchange_strong(expected, nullptr));
  EXPECT_EQ(expected.get(), &whole->first);
  // An owner of a null pointer is not empty.
  auto owns_null = own::shared_ptr<tracked>(nullptr, [](tracked*) {});
  a.store(owns_null);
  own::shared_ptr<tracked> empty;
  EXPECT_FALSE(a.compare_exchange_strong(empty, nullptr));
  EXPECT_TRUE(empty.owner_equal(owns_null));
  EXPECT_TRUE(a.compare_exchange_strong(empty, nullptr));
}

TEST(AtomicSharedPtr, ArraysAndVoid) {
  own::atomic_shared_ptr<int[]> a(own::make_shared<int[]>(3, 7));
  EXPECT_EQ(a.load()[2], 7);
  own::atomic_shared_ptr<void> v(own::make_shared<tracked>(1));
  own::shared_ptr<void> expected = v.load();
  EXPECT_TRUE(v.compare_exchange_strong(expected, nullptr));
  EXPECT_EQ(tracked::live(), 1);  // `expected` still owns it
}

// Nodes are recycled per thread: one made on a thread that has exited, or freed into the list of a
// thread that then exits, must still be freed exactly once (ASan's leak check sees the rest).
TEST(AtomicSharedPtr, NodesOutliveTheThreadsThatMadeOrFreedThem) {
  own::atomic_shared_ptr<tracked> a;
  std::thread([&] {
    for (int i = 0; i < 100; ++i) a.store(own::make_shared<tracked>(i));  // frees 99 nodes here
  }).join();
  EXPECT_EQ(a.load()->value(), 99);
  std::thread([&] { a.store(nullptr); }).join();  // the last node dies on a short-lived thread
  EXPECT_EQ(tracked::live(), 0);
  for (int i = 0; i < 200; ++i) a.store(own::make_shared<tracked>(i));  // more than a list keeps
  a.store(nullptr);
  EXPECT_EQ(tracked::live(), 0);
}

#if __cplusplus >= 202002L
TEST(AtomicSharedPtr, StdAtomicSpecialisation) {
  using atomic_type = std::atomic<own::shared_ptr<int>>;
  static_assert(atomic_type::is_always_lock_free);
  static_assert(std::is_same_v<atomic_type::value_type, own::shared_ptr<int>>);
  constexpr bool constexpr_constructible = std::is_nothrow_default_constructible_v<atomic_type>;
  static_assert(constexpr_constructible);
  atomic_type a(own::make_shared<int>(1));
  atomic_type b;
  EXPECT_TRUE(a.is_lock_free());
  b = a.load();
  EXPECT_EQ(*b.load(), 1);
  b = nullptr;
  own::shared_ptr<int> expected;
  EXPECT_TRUE(b.compare_exchange_strong(expected, own::make_shared<int>(2)));
  EXPECT_EQ(*b.exchange(nullptr), 2);
  own::shared_ptr<int> current = a;
  EXPECT_EQ(*current, 1);
}

TEST(AtomicSharedPtr, WaitReturnsOnceTheValueChanges) {
  auto one = own::make_shared<int>(1);
  own::atomic_shared_ptr<int> a(one);
  a.wait(nullptr);  // not equivalent: returns at once
  a.wait(own::shared_ptr<int>(one, nullptr));
  std::thread waiter([&] {
    a.wait(one);
    EXPECT_EQ(*a.load(), 2);
  });
  a.store(own::make_shared<int>(2));
  a.notify_all();
  waiter.join();
  std::thread waiter_on_empty([&] {
    a.wait(nullptr, std::memory_order_acquire);
    EXPECT_TRUE(a.load());
  });
  a.store(nullptr);
  a.notify_one();
  a.store(one);
  a.notify_one();
  waiter_on_empty.join();
}

#if defined(__linux__)
// True once thread `tid` of this process sleeps in the kernel (state S in /proc). A thread that
// only waits on an atomic sleeps nowhere else: it is then inside the atomic's futex wait.
bool asleep(pid_t tid) {
  std::ifstream stat("/proc/self/task/" + std::to_string(tid) + "/stat");
  const std::string line((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const std::size_t name_end = line.rfind(')');  // the state follows the parenthesised name
  return name_end != std::string::npos && name_end + 2 < line.size() && line[name_end + 2] == 'S';
}

// A value replaced while a thread sleeps in wait() on it stays alive (the waiter protects its node,
// so the store defers it), and is released when the waiter wakes, with no other operation.
TEST(AtomicSharedPtr, WaiterReleasesTheValueReplacedUnderIt) {
  auto one = own::make_shared<tracked>(1);
  own::atomic_shared_ptr<tracked> a(one);
  std::atomic<pid_t> waiter_tid{0};
  std::thread waiter([&, old = one] {
    waiter_tid.store(static_cast<pid_t>(syscall(SYS_gettid)));
    a.wait(old);
  });
  while (waiter_tid.load() == 0) std::this_thread::yield();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!asleep(waiter_tid.load())) {
    ASSERT_LT(std::chrono::steady_clock::now(), deadline) << "the waiter never went to sleep";
    std::this_thread::yield();
  }
  const long held = one.use_count();  // ours, the waiter's, and the atomic's node
  a.store(own::make_shared<tracked>(2));
  EXPECT_EQ(one.use_count(), held);  // the node is protected by the sleeping waiter: deferred
  EXPECT_EQ(tracked::live(), 2);
  a.notify_all();
  waiter.join();
  EXPECT_EQ(one.use_count(), 1);
  EXPECT_EQ(tracked::live(), 2);
}
#endif
#endif

// ---------------------------------------------------------------------------------------------
// atomic_weak_ptr: the same atomic holding a weak reference

TEST(AtomicWeakPtr, EmptyByDefault) {
  own::atomic_weak_ptr<int> a;
  EXPECT_TRUE(a.load().expired());
  EXPECT_FALSE(a.load().lock());
}

// The atomic's reference is weak: it keeps the control block, never the object.
TEST(AtomicWeakPtr, HoldsAWeakReference) {
  allocation_log log;
  auto p = own::allocate_shared<tracked>(test_allocator<tracked>(&log), 1);
  own::atomic_weak_ptr<tracked> a(p);
  EXPECT_EQ(p.use_count(), 1);
  {
    own::weak_ptr<tracked> w = a.load(std::memory_order_acquire);
    own::weak_ptr<tracked> v = a;  // conversion loads
    EXPECT_EQ(w.lock(), p);
    EXPECT_TRUE(v.owner_equal(p));
  }
  p.reset();
  EXPECT_EQ(tracked::live(), 0);
  EXPECT_EQ(log.blocks_in_use(), 1);
  EXPECT_TRUE(a.load().expired());
  a.store(own::weak_ptr<tracked>());
  EXPECT_EQ(log.blocks_in_use(), 0);
}

TEST(AtomicWeakPtr, StoreExchangeAndDestructionReleaseTheirReference) {
  allocation_log log;
  auto one = own::allocate_shared<tracked>(test_allocator<tracked>(&log), 1);
  auto two = own::allocate_shared<tracked>(test_allocator<tracked>(&log), 2);
  {
    own::atomic_weak_ptr<tracked> a(one);
    one.reset();  // expired: the atomic keeps its block
    EXPECT_EQ(log.blocks_in_use(), 2);
    a.store(two, std::memory_order_release);
    EXPECT_EQ(log.blocks_in_use(), 1);
    a = own::weak_ptr<tracked>(two);
    own::weak_ptr<tracked> old = a.exchange(own::weak_ptr<tracked>(), std::memory_order_acq_rel);
    EXPECT_EQ(old.lock(), two);
    EXPECT_TRUE(a.load().expired());
    a = two;
    two.reset();
    old.reset();
    EXPECT_EQ(log.blocks_in_use(), 1);
  }
  EXPECT_EQ(log.blocks_in_use(), 0);
}

// Equivalence is by stored pointer and owner, whether the object is alive or not.
TEST(AtomicWeakPtr, CompareExchangeComparesPointerAndOwnerEvenOnceExpired) {
  auto whole = own::make_shared<pair_of_tracked>();
  const own::weak_ptr<tracked> first(own::shared_ptr<tracked>(whole, &whole->first));
  const own::weak_ptr<tracked> second(own::shared_ptr<tracked>(whole, &whole->second));
  own::atomic_weak_ptr<tracked> a(first);
  // The same owner with another pointer is not equivalent.
  own::weak_ptr<tracked> expected = second;
  EXPECT_FALSE(a.compare_exchange_strong(expected, second));
  EXPECT_EQ(expected.lock().get(), &whole->first);  // the current value, copied
  // The same pointer with no owner is not equivalent either.
  expected = own::shared_ptr<tracked>(own::shared_ptr<tracked>(), &whole->first);
  EXPECT_FALSE(a.compare_exchange_strong(expected, second));
  EXPECT_TRUE(expected.owner_equal(whole));

  whole.reset();  // nothing locks any more; the stored pointers still tell first from second
  expected = second;
  EXPECT_FALSE(a.compare_exchange_strong(expected, second));
  expected = first;
  EXPECT_TRUE(a.compare_exchange_strong(expected, second, std::memory_order_acq_rel, std::memory_order_acquire));
  expected = first;
  EXPECT_FALSE(a.compare_exchange_strong(expected, first));
  expected = second;
  EXPECT_TRUE(weak_exchange_succeeds(a, expected, own::weak_ptr<tracked>()));
  EXPECT_TRUE(expected.owner_equal(first));  // unchanged on success
}

TEST(AtomicWeakPtr, CompareExchangeWithEmptyValues) {
  auto one = own::make_shared<int>(1);
  auto two = own::make_shared<int>(2);
  own::atomic_weak_ptr<int> a;
  own::weak_ptr<int> expected = two;
  EXPECT_FALSE(a.compare_exchange_strong(expected, one));
  EXPECT_TRUE(expected.owner_equal(own::weak_ptr<int>()));  // copied: empty
  EXPECT_TRUE(a.compare_exchange_strong(expected, one));    // both empty: equivalent
  EXPECT_EQ(a.load().lock(), one);
  expected = own::weak_ptr<int>();
  EXPECT_FALSE(a.compare_exchange_weak(expected, two, std::memory_order_acquire, std::memory_order_relaxed));
  EXPECT_EQ(expected.lock(), one);
  // Both hold weak references only.
  EXPECT_EQ(one.use_count(), 1);
  EXPECT_EQ(two.use_count(), 1);
}

#if __cplusplus >= 202002L
TEST(AtomicWeakPtr, StdAtomicSpecialisation) {
  using atomic_type = std::atomic<own::weak_ptr<int>>;
  static_assert(atomic_type::is_always_lock_free);
  static_assert(std::is_same_v<atomic_type::value_type, own::weak_ptr<int>>);
  static_assert(std::is_nothrow_default_constructible_v<atomic_type>);
  static_assert(!std::is_copy_constructible_v<atomic_type> && !std::is_copy_assignable_v<atomic_type>);
  auto sp = own::make_shared<int>(1);
  atomic_type a(sp);
  EXPECT_EQ(*a.load().lock(), 1);
  EXPECT_TRUE(a.is_lock_free());
  atomic_type b;
  b = a.load();
  own::weak_ptr<int> current = b;
  EXPECT_EQ(current.lock(), sp);
  own::weak_ptr<int> expected = sp;
  EXPECT_TRUE(b.compare_exchange_strong(expected, own::weak_ptr<int>()));
  EXPECT_TRUE(b.exchange(sp).expired());
}

TEST(AtomicWeakPtr, WaitReturnsOnceTheValueChanges) {
  auto one = own::make_shared<int>(1);
  auto two = own::make_shared<int>(2);
  own::atomic_weak_ptr<int> a(one);
  a.wait(two);  // not equivalent: returns at once
  expect_no_deadlock([&] {
    std::thread waiter([&, old = own::weak_ptr<int>(one)] {
      a.wait(old, std::memory_order_acquire);
      EXPECT_EQ(a.load().lock(), two);
    });
    one.reset();  // an expired value is waited on as any other
    a.store(two);
    a.notify_one();
    waiter.join();
  });
}
#endif

// ---------------------------------------------------------------------------------------------
// The free functions for atomic access to a plain shared_ptr

TEST(SharedPtrAtomicFunctions, FoundQualifiedAndByArgumentDependentLookup) {
  using sp = own::shared_ptr<int>;
  sp p = own::make_shared<int>(1);
  sp expected = p;
  const auto seq_cst = std::memory_order_seq_cst;
  static_assert(std::is_same_v<decltype(own::atomic_is_lock_free(&p)), bool>);
  static_assert(std::is_same_v<decltype(atomic_is_lock_free(&p)), bool>);
  static_assert(std::is_same_v<decltype(own::atomic_load(&p)), sp>);
  static_assert(std::is_same_v<decltype(atomic_load(&p)), sp>);
  static_assert(std::is_same_v<decltype(own::atomic_load_explicit(&p, seq_cst)), sp>);
  static_assert(std::is_same_v<decltype(atomic_load_explicit(&p, seq_cst)), sp>);
  static_assert(std::is_same_v<decltype(own::atomic_store(&p, p)), void>);
  static_assert(std::is_same_v<decltype(atomic_store(&p, p)), void>);
  static_assert(std::is_same_v<decltype(own::atomic_store_explicit(&p, p, seq_cst)), void>);
  static_assert(std::is_same_v<decltype(atomic_store_explicit(&p, p, seq_cst)), void>);
  static_assert(std::is_same_v<decltype(own::atomic_exchange(&p, p)), sp>);
  static_assert(std::is_same_v<decltype(atomic_exchange(&p, p)), sp>);
  static_assert(std::is_same_v<decltype(own::atomic_exchange_explicit(&p, p, seq_cst)), sp>);
  static_assert(std::is_same_v<decltype(atomic_exchange_explicit(&p, p, seq_cst)), sp>);
  static_assert(std::is_same_v<decltype(own::atomic_compare_exchange_weak(&p, &expected, p)), bool>);
  static_assert(std::is_same_v<decltype(atomic_compare_exchange_weak(&p, &expected, p)), bool>);
  static_assert(std::is_same_v<decltype(own::atomic_compare_exchange_strong(&p, &expected, p)), bool>);
  static_assert(std::is_same_v<decltype(atomic_compare_exchange_strong(&p, &expected, p)), bool>);
  static_assert(std::is_same_v<decltype(own::atomic_compare_exchange_weak_explicit(&p, &expected, p, seq_cst, seq_cst)), bool>);
  static_assert(std::is_same_v<decltype(atomic_compare_exchange_weak_explicit(&p, &expected, p, seq_cst, seq_cst)), bool>);
  static_assert(std::is_same_v<decltype(own::atomic_compare_exchange_strong_explicit(&p, &expected, p, seq_cst, seq_cst)), bool>);
  static_assert(std::is_same_v<decltype(atomic_compare_exchange_strong_explicit(&p, &expected, p, seq_cst, seq_cst)), bool>);
  // They take a lock.
  EXPECT_FALSE(atomic_is_lock_free(&p));
  // The const form of load.
  const sp& constant = p;
  EXPECT_EQ(*atomic_load(&constant), 1);
}

TEST(SharedPtrAtomicFunctions, LoadStoreAndExchange) {
  const long destroyed = tracked::destroyed();
  auto one = own::make_shared<tracked>(1);
  own::shared_ptr<tracked> p = one;
  EXPECT_EQ(own::atomic_load(&p), one);
  EXPECT_EQ(own::atomic_load_explicit(&p, std::memory_order_acquire), one);
  own::atomic_store(&p, own::make_shared<tracked>(2));
  EXPECT_EQ(one.use_count(), 1);
  own::atomic_store_explicit(&p, own::make_shared<tracked>(3), std::memory_order_release);
  EXPECT_EQ(tracked::destroyed(), destroyed + 1);  // 2, replaced
  own::shared_ptr<tracked> old = own::atomic_exchange(&p, one);
  EXPECT_EQ(old->value(), 3);
  EXPECT_EQ(p, one);
  old = own::atomic_exchange_explicit(&p, own::shared_ptr<tracked>(), std::memory_order_acq_rel);
  EXPECT_EQ(old, one);
  EXPECT_FALSE(p);
  EXPECT_EQ(tracked::destroyed(), destroyed + 2);  // and 3
}

TEST(SharedPtrAtomicFunctions, CompareExchangeComparesPointerAndOwner) {
  auto whole = own::make_shared<pair_of_tracked>();
  const own::shared_ptr<tracked> first(whole, &whole->first);
  own::shared_ptr<tracked> p = first;
  // The same pointer with no owner is not equivalent: `expected` gets the current value.
  own::shared_ptr<tracked> expected(own::shared_ptr<tracked>(), &whole->first);
  EXPECT_FALSE(own::atomic_compare_exchange_strong(&p, &expected, own::shared_ptr<tracked>()));
  EXPECT_TRUE(expected.owner_equal(whole));
  // The same owner with another pointer is not equivalent either.
  expected = own::shared_ptr<tracked>(whole, &whole->second);
  EXPECT_FALSE(own::atomic_compare_exchange_weak(&p, &expected, own::shared_ptr<tracked>()));
  EXPECT_EQ(expected.get(), &whole->first);
  EXPECT_EQ(p, first);
  // Equivalent: stored, `expected` unchanged.
  EXPECT_TRUE(own::atomic_compare_exchange_strong_explicit(&p, &expected, own::shared_ptr<tracked>(whole, &whole->second),
                                                           std::memory_order_acq_rel, std::memory_order_acquire));
  EXPECT_EQ(expected, first);
  EXPECT_EQ(p.get(), &whole->second);
  // Both empty: equivalent.
  own::shared_ptr<tracked> empty;
  own::shared_ptr<tracked> q;
  EXPECT_TRUE(own::atomic_compare_exchange_weak_explicit(&q, &empty, first, std::memory_order_release, std::memory_order_relaxed));
  EXPECT_EQ(q, first);
  // `expected` may be `p` itself: always equivalent.
  EXPECT_TRUE(own::atomic_compare_exchange_strong(&q, &q, own::shared_ptr<tracked>()));
  EXPECT_FALSE(q);
  EXPECT_EQ(whole.use_count(), 4);  // whole, first, p, expected
}

// A value whose destructor uses `target` through the free functions: the functions must release
// the values they drop after their locks (with a lock held, the destructor would wait for it
// forever).
struct reenters : tracked {
  reenters(int v, own::shared_ptr<tracked>* target) : tracked(v), target(target) {}
  ~reenters() override {
    seen = own::atomic_load(target);
    own::atomic_store(target, seen);
  }
  own::shared_ptr<tracked>* target;
  inline static own::shared_ptr<tracked> seen;
};

TEST(SharedPtrAtomicFunctions, DroppedValuesAreReleasedOutsideTheLock) {
  expect_no_deadlock([] {
    own::shared_ptr<tracked> p;
    own::shared_ptr<tracked> expected;
    auto three = own::make_shared<tracked>(3);
    // atomic_store drops the previous value of `p`.
    p = own::make_shared<reenters>(1, &p);
    own::atomic_store(&p, own::make_shared<tracked>(2));
    EXPECT_EQ(reenters::seen->value(), 2);
    // A successful compare-exchange drops it too (here `expected` is `p`, so nothing else owns it).
    p = own::make_shared<reenters>(1, &p);
    EXPECT_TRUE(own::atomic_compare_exchange_strong(&p, &p, three));
    EXPECT_EQ(reenters::seen, three);
    // A failing one drops the previous value of `expected`, whose destructor uses either object.
    for (own::shared_ptr<tracked>* target : {&p, &expected}) {
      expected = own::make_shared<reenters>(1, target);
      EXPECT_FALSE(own::atomic_compare_exchange_strong(&p, &expected, own::shared_ptr<tracked>()));
      EXPECT_EQ(reenters::seen, three);
    }
    reenters::seen.reset();
  });
  EXPECT_EQ(tracked::live(), 0);
}

// ---------------------------------------------------------------------------------------------
// Two-thread stress tests: 2 x iterations operations each, bounded in time under TSan.

constexpr int iterations = 500'000;
// Each compare-exchange counter run makes `iterations` increments, each a load and at least one
// compare-exchange: the 10^6 operations the issue asks of every atomic stress test.
static_assert(2 * iterations >= 1'000'000);

// Both threads start `f` together, so that the races the tests aim at happen from the first round.
template <class F>
void on_two_threads(F f) {
  std::atomic<int> ready{0};
  auto start = [&](int thread) {
    ready.fetch_add(1);
    while (ready.load() != 2) std::this_thread::yield();
    f(thread);
  };
  std::thread other(start, 1);
  start(0);
  other.join();
}

// Every tracked object made in a scope is destroyed exactly once by its end, and every block
// from the log is returned.
class stress_accounting {
 public:
  explicit stress_accounting(const allocation_log& log)
      : log_(log), constructed_(tracked::constructed()), destroyed_(tracked::destroyed()) {}
  void check() const {
    EXPECT_EQ(tracked::live(), 0);
    EXPECT_EQ(tracked::constructed() - constructed_, tracked::destroyed() - destroyed_);
    EXPECT_EQ(tracked::double_destroyed(), 0);
    EXPECT_EQ(log_.blocks_in_use(), 0);
    EXPECT_EQ(log_.bytes_in_use.load(), 0);
  }

 private:
  const allocation_log& log_;
  long constructed_;
  long destroyed_;
};

// Its destructor poisons the tag, so that a load through an aliased pointer to the tag can tell a
// live item from a destroyed one (tracked poisons its own value the same way).
struct item : tracked {
  explicit item(int v) : tracked(v), tag(v) {}
  item(const item&) = delete;
  item& operator=(const item&) = delete;
  ~item() override { tag = -1; }
  int tag;
};

TEST(AtomicSharedPtrStress, LoadAgainstStoreWithAliasedPointers) {
  allocation_log log;
  stress_accounting accounting(log);
  {
    // A few long-lived values and, every 64th store, a new one, so that objects die under loads.
    std::vector<own::shared_ptr<item>> values;
    for (int i = 0; i < 4; ++i) values.push_back(own::allocate_shared<item>(test_allocator<item>(&log), i));
    own::atomic_shared_ptr<const int> tag(own::shared_ptr<const int>(values[0], &values[0]->tag));
    own::atomic_shared_ptr<item> whole(values[0]);
    on_two_threads([&](int thread) {
      for (int i = 0; i < iterations; ++i) {
        if (thread == 0) {
          own::shared_ptr<item> v =
              i % 64 == 0 ? own::allocate_shared<item>(test_allocator<item>(&log), i) : values[static_cast<std::size_t>(i % 4)];
          if (i % 2 == 0) {
            tag.store(own::shared_ptr<const int>(v, &v->tag), std::memory_order_release);
          } else {
            whole.store(std::move(v));
          }
        } else {
          own::shared_ptr<const int> t = tag.load(std::memory_order_acquire);
          own::shared_ptr<item> w = whole.load();
          ASSERT_TRUE(t && w);
          ASSERT_GE(*t, 0);  // -1 once the item that owns the tag is destroyed
          ASSERT_GE(w->value(), 0);
          ASSERT_EQ(w->tag, w->value());
        }
      }
    });
    const bool in_whole = whole.load() == values[1];
    const bool in_tag = tag.load().owner_equal(values[1]);
    EXPECT_EQ(values[1].use_count(), 1 + in_whole + in_tag);
  }
  accounting.check();
}

TEST(AtomicSharedPtrStress, ExchangeAgainstExchange) {
  allocation_log log;
  stress_accounting accounting(log);
  {
    auto make = [&](int v) { return own::allocate_shared<item>(test_allocator<item>(&log), v); };
    own::atomic_shared_ptr<item> a(make(0));
    own::shared_ptr<item> held[2] = {make(1), make(2)};
    on_two_threads([&](int thread) {
      own::shared_ptr<item>& mine = held[thread];
      for (int i = 0; i < iterations; ++i) {
        mine = a.exchange(std::move(mine), i % 2 ? std::memory_order_seq_cst : std::memory_order_acq_rel);
        ASSERT_TRUE(mine);
        ASSERT_EQ(mine.use_count(), 1);  // a value is in exactly one place
      }
    });
    own::shared_ptr<item> last = a.load();
    EXPECT_EQ(held[0]->value() + held[1]->value() + last->value(), 0 + 1 + 2);
    EXPECT_EQ(tracked::live(), 3);
  }
  accounting.check();
}

// A counter whose values are aliased pointers into one array: increments by compare-exchange
// (each one a load and at least one compare-exchange), with no allocation but the atomic's nodes.
template <class Cas>
void count_with_compare_exchange(Cas compare_exchange) {
  allocation_log log;
  stress_accounting accounting(log);
  {
    const int increments = iterations / 2;
    auto numbers = own::allocate_shared<int[]>(test_allocator<int>(&log), 2 * increments + 1);
    for (int i = 0; i <= 2 * increments; ++i) numbers[i] = i;
    own::atomic_shared_ptr<int> counter(own::shared_ptr<int>(numbers, &numbers[0]));
    on_two_threads([&](int) {
      for (int i = 0; i < increments; ++i) {
        own::shared_ptr<int> seen = counter.load(std::memory_order_acquire);
        while (!compare_exchange(counter, seen, own::shared_ptr<int>(numbers, seen.get() + 1))) {
        }
      }
    });
    EXPECT_EQ(*counter.load(), 2 * increments);
    EXPECT_EQ(numbers.use_count(), 2);
  }
  accounting.check();
}

TEST(AtomicSharedPtrStress, CompareExchangeStrongCounts) {
  count_with_compare_exchange([](own::atomic_shared_ptr<int>& a, own::shared_ptr<int>& expected, own::shared_ptr<int> desired) {
    return a.compare_exchange_strong(expected, std::move(desired));
  });
}

TEST(AtomicSharedPtrStress, CompareExchangeWeakCounts) {
  count_with_compare_exchange([](own::atomic_shared_ptr<int>& a, own::shared_ptr<int>& expected, own::shared_ptr<int> desired) {
    return a.compare_exchange_weak(expected, std::move(desired), std::memory_order_acq_rel, std::memory_order_acquire);
  });
}

TEST(AtomicSharedPtrStress, CompareExchangeAgainstStoreAndLoad) {
  allocation_log log;
  stress_accounting accounting(log);
  {
    auto make = [&](int v) { return own::allocate_shared<item>(test_allocator<item>(&log), v); };
    std::vector<own::shared_ptr<item>> values = {make(0), make(1), nullptr};
    own::atomic_shared_ptr<item> a(values[0]);
    long successes = 0;
    on_two_threads([&](int thread) {
      for (int i = 0; i < iterations; ++i) {
        const auto& v = values[static_cast<std::size_t>(i % 3)];
        if (thread == 0) {
          if (i % 2) {
            a.store(v);
          } else {
            own::shared_ptr<item> p = a.load();
            ASSERT_TRUE(!p || p->value() >= 0);
          }
        } else {
          own::shared_ptr<item> expected = v;
          if (a.compare_exchange_strong(expected, values[static_cast<std::size_t>((i + 1) % 3)])) {
            ++successes;
          } else {
            ASSERT_TRUE(expected == values[0] || expected == values[1] || expected == values[2]);
          }
        }
      }
    });
    EXPECT_GT(successes, 0);
    const bool held = a.load() != nullptr;
    EXPECT_EQ(values[0].use_count() + values[1].use_count(), 2 + held);
  }
  accounting.check();
}

#if __cplusplus >= 202002L
TEST(AtomicSharedPtrStress, WaitAgainstStoreAndNotify) {
  allocation_log log;
  stress_accounting accounting(log);
  {
    const int rounds = iterations;  // a store and a notify each
    auto numbers = own::allocate_shared<int[]>(test_allocator<int>(&log), rounds + 1);
    for (int i = 0; i <= rounds; ++i) numbers[i] = i;
    own::atomic_shared_ptr<int> a(own::shared_ptr<int>(numbers, &numbers[0]));
    on_two_threads([&](int thread) {
      if (thread == 0) {
        for (int i = 1; i <= rounds; ++i) {
          a.store(own::shared_ptr<int>(numbers, &numbers[i]));
          a.notify_one();
        }
      } else {
        own::shared_ptr<int> seen = a.load();
        while (*seen != rounds) {
          a.wait(seen);
          seen = a.load();
        }
      }
    });
    EXPECT_EQ(numbers.use_count(), 2);
  }
  accounting.check();
}
#endif

// Values replaced while the other thread was reading them are released by the time both threads
// have exited and one more write is made (a value whose last reference a reader would have dropped
// is left to the next write: readers run no user code).
TEST(AtomicSharedPtrStress, NothingLingersPastTheNextWrite) {
  allocation_log log;
  stress_accounting accounting(log);
  {
    own::atomic_shared_ptr<item> a(own::allocate_shared<item>(test_allocator<item>(&log), 0));
    for (int round = 0; round < 20; ++round) {
      std::thread writer([&] {
        for (int i = 1; i <= iterations / 20; ++i) a.store(own::allocate_shared<item>(test_allocator<item>(&log), i));
      });
      std::thread reader([&] {
        for (int i = 0; i < iterations / 20; ++i) ASSERT_GE(a.load()->value(), 0);
      });
      writer.join();
      reader.join();
      a.store(a.load());
      ASSERT_EQ(tracked::live(), 1) << "round " << round;  // the current value only
      ASSERT_EQ(log.blocks_in_use(), 1);
    }
  }
  accounting.check();
}


// Load proxies under turnover: readers that load the same value again and again (arming their
// proxies), keep some of what they loaded past their own exit, and come and go on reused hazard
// records, against a writer that stores and compare-exchanges, and reads its values in runs (arming
// its own proxy as it writes). Every value is destroyed once, and all that stays at the end of a
// round is the atomic's value and what the round kept.
TEST(AtomicSharedPtrStress, ProxiedLoadsAgainstWritesAndThreadTurnover) {
  allocation_log log;
  stress_accounting accounting(log);
  {
    auto make = [&log](int v) { return own::allocate_shared<item>(test_allocator<item>(&log), v); };
    own::atomic_shared_ptr<item> a(make(0));
    for (int round = 0; round < 20; ++round) {
      std::vector<own::shared_ptr<item>> kept[2];
      std::atomic<bool> done{false};
      std::thread readers[2];
      for (int r = 0; r < 2; ++r) {
        readers[r] = std::thread([&, r] {
          for (int i = 0; !done.load(); ++i) {
            own::shared_ptr<item> seen = a.load();
            ASSERT_EQ(seen->tag, seen->value());
            if (i % 1024 == 0) kept[r].push_back(std::move(seen));
          }
        });
      }
      for (int i = 1; i <= iterations / 100; ++i) {
        if (i % 4 == 0) {
          ASSERT_NO_FATAL_FAILURE(read_in_a_row(a, i - 1));
        }
        if (i % 2) {
          a.store(make(i));
        } else {
          own::shared_ptr<item> expected = a.load();
          ASSERT_TRUE(a.compare_exchange_strong(expected, make(i)));
        }
        if (i % 64 == 0) std::this_thread::yield();  // runs of loads of one value
      }
      done = true;
      for (std::thread& t : readers) t.join();
      std::size_t held = kept[0].size() + kept[1].size();
      for (auto& list : kept) {
        for (auto& p : list) ASSERT_GE(p->value(), 0);
      }
      a.store(a.load());  // what the readers' exits left to writers goes with the next write
      ASSERT_LE(tracked::live(), static_cast<long>(held) + 1) << "round " << round;
      for (auto& list : kept) list.clear();
      ASSERT_EQ(tracked::live(), 1) << "round " << round;
      ASSERT_EQ(log.blocks_in_use(), 1);
    }
  }
  accounting.check();
}

// Writers that read their values in runs (arming their proxies as they write, when the other is
// not reading the same value), each on one atomic of two in turn: every value read is one that was
// stored, and every value is destroyed once.
TEST(AtomicSharedPtrStress, WritersThatReadWhatTheyWrite) {
  allocation_log log;
  stress_accounting accounting(log);
  {
    auto make = [&log](int v) { return own::allocate_shared<item>(test_allocator<item>(&log), v); };
    own::atomic_shared_ptr<item> atomics[2] = {own::atomic_shared_ptr<item>(make(0)), own::atomic_shared_ptr<item>(make(0))};
    std::thread writers[2];
    for (int w = 0; w < 2; ++w) {
      writers[w] = std::thread([&, w] {
        for (int i = 1; i <= iterations / 50; ++i) {
          own::atomic_shared_ptr<item>& a = atomics[(i / 64 + w) % 2];
          for (unsigned k = 0; k != reads_before_writing; ++k) {
            own::shared_ptr<item> seen = a.load();
            ASSERT_EQ(seen->tag, seen->value());
          }
          a.store(make(i));
        }
      });
    }
    for (std::thread& t : writers) t.join();
    ASSERT_EQ(tracked::live(), 2);
  }
  accounting.check();
}

#ifdef OWN_CHECKED
class AtomicSharedPtrSnapshotDeathTest : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

TEST_F(AtomicSharedPtrSnapshotDeathTest, DereferencingAnEmptyOneAborts) {
  own::snapshot_ptr<config> s;
  EXPECT_DEATH((void)s->version, "dereferencing an empty own::snapshot_ptr");
}

TEST_F(AtomicSharedPtrSnapshotDeathTest, ReleasingOnAnotherThreadAborts) {
  own::atomic_shared_ptr<int> a(own::make_shared<int>(1));
  EXPECT_DEATH(
      {
        own::snapshot_ptr<int> s = a.snapshot();
        std::thread([&] { s.reset(); }).join();
      },
      "own::snapshot_ptr: released on a thread other than the one that took it");
}

TEST_F(AtomicSharedPtrSnapshotDeathTest, OutlivingItsThreadAborts) {
  own::atomic_shared_ptr<int> a(own::make_shared<int>(1));
  EXPECT_DEATH(
      {
        own::snapshot_ptr<int> s;
        std::thread([&] { s = a.snapshot(); }).join();
      },
      "own::snapshot_ptr: a snapshot outlived the thread that took it");
}
#endif

// Readers take snapshots (several at once, more than their slots) while a writer replaces the value:
// every snapshot sees a whole, live value, and after a last write every value is released once.
TEST(AtomicSharedPtrStress, SnapshotsAgainstStores) {
  allocation_log log;
  stress_accounting accounting(log);
  const long rounds = own_test::scaled(iterations / 5);
  {
    own::atomic_shared_ptr<item> a(own::allocate_shared<item>(test_allocator<item>(&log), 0));
    own_test::run_threads(3, [&](int thread) {
      for (long i = 0; i < rounds; ++i) {
        if (thread == 0) {
          a.store(own::allocate_shared<item>(test_allocator<item>(&log), static_cast<int>(i)));
          continue;
        }
        own::snapshot_ptr<item> s[own::detail::hazard_slots::snapshot_slots + 1];
        for (auto& one : s) {
          one = a.snapshot();
          ASSERT_GE(one->value(), 0);
          ASSERT_EQ(one->tag, one->value());
        }
        if (i % 8 == 0) {
          ASSERT_EQ(s[0].to_shared()->tag, s[0]->value());
        }
      }
    });
    a.store(nullptr);
    EXPECT_EQ(tracked::live(), 0);
  }
  accounting.check();
}

// No user code on readers: with std, a replaced value's destructor runs in the thread that replaced
// it; own's readers must not run it inside load() or wait() (a reader holding a lock around its load
// would deadlock on a destructor that takes it, and a latency-sensitive reader would pay for it).
thread_local bool inside_a_read = false;
std::atomic<long> user_code_inside_a_read{0};

struct reader_watching {
  reader_watching() = default;
  reader_watching(const reader_watching&) = delete;
  reader_watching& operator=(const reader_watching&) = delete;
  ~reader_watching() {
    if (inside_a_read) ++user_code_inside_a_read;
  }
};

// An allocator whose deallocate is watched the same way (atomic_weak_ptr's last weak reference
// frees the control block through it).
template <class T>
struct reader_watching_allocator {
  using value_type = T;
  reader_watching_allocator() = default;
  template <class U>
  reader_watching_allocator(const reader_watching_allocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return std::allocator<T>().allocate(n); }
  void deallocate(T* p, std::size_t n) noexcept {
    if (inside_a_read) ++user_code_inside_a_read;
    std::allocator<T>().deallocate(p, n);
  }
  friend bool operator==(const reader_watching_allocator&, const reader_watching_allocator&) { return true; }
  friend bool operator!=(const reader_watching_allocator&, const reader_watching_allocator&) { return false; }
};

// One thread stores new values as fast as it can while another loads them (`read` does one read
// with the flag set, then drops what it read with the flag clear).
template <class Atomic, class Make, class Read>
void store_against_reads(Atomic& a, Make make, Read read) {
  user_code_inside_a_read = 0;
  std::atomic<bool> done{false};
  std::thread reader([&] {
    while (!done.load()) read();
  });
  for (long i = 0; i < own_test::scaled(300000); ++i) a.store(make());
  done = true;
  reader.join();
  EXPECT_EQ(user_code_inside_a_read.load(), 0);
}

TEST(AtomicSharedPtrStress, ReadersNeverRunAReplacedValuesDestructor) {
  own::atomic_shared_ptr<reader_watching> a(own::make_shared<reader_watching>());
  store_against_reads(a, [] { return own::make_shared<reader_watching>(); }, [&] {
    own::shared_ptr<reader_watching> seen;
    inside_a_read = true;
    seen = a.load();
    inside_a_read = false;
  });
}

TEST(AtomicWeakPtrStress, ReadersNeverRunAReplacedBlocksDeallocate) {
  own::atomic_weak_ptr<int> a;
  store_against_reads(a, [] { return own::weak_ptr<int>(own::allocate_shared<int>(reader_watching_allocator<int>(), 1)); },
                      [&] {
                        own::weak_ptr<int> seen;
                        inside_a_read = true;
                        seen = a.load();
                        inside_a_read = false;
                      });
}

// Readers hold a lock around load(); replaced values' destructors take it. Were a destructor run
// inside a load, its thread would wait for itself: the destructor sees that its thread holds the
// lock (a thread-local flag the readers set) and counts it instead of deadlocking; otherwise it
// takes the lock, waiting for the readers as a writer's destructor may. (No time-out: under valgrind
// on a busy machine a reader may legitimately hold the lock for seconds.)
TEST(AtomicSharedPtrStress, ADestructorMayTakeALockReadersHoldAroundLoad) {
  static std::mutex readers_lock;
  static thread_local bool holds_readers_lock = false;
  static std::atomic<long> would_deadlock{0};
  struct locking {
    locking() = default;
    locking(const locking&) = delete;
    locking& operator=(const locking&) = delete;
    ~locking() {
      if (holds_readers_lock) {
        ++would_deadlock;
        return;
      }
      std::lock_guard<std::mutex> take(readers_lock);
    }
  };
  own::atomic_shared_ptr<locking> a(own::make_shared<locking>());
  store_against_reads(a, [] { return own::make_shared<locking>(); }, [&] {
    own::shared_ptr<locking> seen;
    {
      std::lock_guard<std::mutex> hold(readers_lock);
      holds_readers_lock = true;
      seen = a.load();
      holds_readers_lock = false;
    }
  });
  EXPECT_EQ(would_deadlock.load(), 0);
}

#if __cplusplus >= 202002L
TEST(AtomicSharedPtrStress, WaitersNeverRunAReplacedValuesDestructor) {
  user_code_inside_a_read = 0;
  own::atomic_shared_ptr<reader_watching> a(own::make_shared<reader_watching>());
  std::atomic<bool> done{false};
  std::thread waiter([&] {
    for (;;) {
      own::shared_ptr<reader_watching> seen = a.load();
      if (done.load()) break;
      inside_a_read = true;
      a.wait(seen);
      inside_a_read = false;
    }
  });
  for (long i = 0; i < own_test::scaled(100000); ++i) {
    a.store(own::make_shared<reader_watching>());
    a.notify_all();
  }
  done = true;
  a.store(own::make_shared<reader_watching>());
  a.notify_all();
  waiter.join();
  EXPECT_EQ(user_code_inside_a_read.load(), 0);
}
#endif

// Two writers replace a weak_ptr to objects that die meanwhile (each kept alive by its writer for a
// few rounds), one by store and exchange, one by compare-exchange, while a reader loads and locks
// it: a lock yields a live object or nothing, and every object and control block is released once
// (the atomic's weak references included).
TEST(AtomicWeakPtrStress, StoreAndCompareExchangeAgainstLoadAndLock) {
  allocation_log log;
  stress_accounting accounting(log);
  const long rounds = own_test::scaled(iterations);
  {
    own::atomic_weak_ptr<item> a;
    own_test::run_threads(3, [&](int thread) {
      own::shared_ptr<item> kept[4];
      for (int i = 0; i < rounds; ++i) {
        if (thread == 2) {
          if (own::shared_ptr<item> p = a.load(std::memory_order_acquire).lock()) {
            ASSERT_GE(p->value(), 0);
            ASSERT_EQ(p->tag, p->value());
          }
          continue;
        }
        own::shared_ptr<item>& mine = kept[i % 4];
        mine = own::allocate_shared<item>(test_allocator<item>(&log), i);  // the one made 4 rounds ago dies
        if (thread == 0) {
          if (i % 2) {
            a.store(mine);
          } else {
            own::shared_ptr<item> old = a.exchange(mine).lock();
            ASSERT_TRUE(!old || old->value() >= 0);
          }
        } else {
          own::weak_ptr<item> expected = a.load();
          if (i % 2) {
            a.compare_exchange_strong(expected, mine);
          } else {
            a.compare_exchange_weak(expected, mine, std::memory_order_acq_rel, std::memory_order_acquire);
          }
        }
      }
    });
    // A value whose last weak reference a reader would have dropped waits for the next write
    // (readers run no user code, and freeing a block runs its allocator's): one more write.
    a.store(a.load());
    EXPECT_EQ(tracked::live(), 0);
    EXPECT_EQ(log.blocks_in_use(), 1);  // the last value's, expired, held by the atomic
  }
  accounting.check();
}

// Threads use one plain shared_ptr through the free functions: a writer stores and exchanges,
// another compare-exchanges, a reader loads.
TEST(SharedPtrAtomicFunctionsStress, StoreExchangeAndCompareExchangeAgainstLoad) {
  allocation_log log;
  stress_accounting accounting(log);
  const long rounds = own_test::scaled(iterations);
  {
    auto make = [&](int v) { return own::allocate_shared<item>(test_allocator<item>(&log), v); };
    // A few long-lived values and, every 16th store, a new one, so that objects die under loads.
    const std::vector<own::shared_ptr<item>> values = {make(0), make(1), make(2), nullptr};
    own::shared_ptr<item> p = values[0];
    long successes = 0;
    own_test::run_threads(3, [&](int thread) {
      for (int i = 0; i < rounds; ++i) {
        const own::shared_ptr<item>& value = values[static_cast<std::size_t>(i % 4)];
        if (thread == 0) {
          own::shared_ptr<item> v = i % 16 == 0 ? make(i) : value;
          if (i % 2) {
            own::atomic_store_explicit(&p, std::move(v), std::memory_order_release);
          } else {
            own::shared_ptr<item> old = own::atomic_exchange(&p, std::move(v));
            ASSERT_TRUE(!old || old->value() >= 0);
          }
        } else if (thread == 1) {
          own::shared_ptr<item> expected = own::atomic_load(&p);
          successes += i % 2 ? own::atomic_compare_exchange_strong(&p, &expected, value)
                             : atomic_compare_exchange_weak_explicit(&p, &expected, value, std::memory_order_acq_rel,
                                                                     std::memory_order_acquire);
        } else {
          own::shared_ptr<item> seen = atomic_load_explicit(&p, std::memory_order_acquire);
          ASSERT_TRUE(!seen || (seen->value() >= 0 && seen->tag == seen->value()));
        }
      }
    });
    EXPECT_GT(successes, 0);
  }
  accounting.check();
}

// Two threads compare-exchange two objects, each using the other as `expected`: locking `*p` then
// `*expected` would deadlock them; one order for every pair cannot.
TEST(SharedPtrAtomicFunctionsStress, CompareExchangeLocksBothObjectsInOneOrder) {
  // 32-byte aligned, so that the two are 16 bytes apart in one 4 KiB page: different locks.
  struct alignas(32) two_pointers {
    own::shared_ptr<int> pointer[2];
  } objects{{own::make_shared<int>(0), own::make_shared<int>(1)}};
  const long rounds = own_test::scaled(iterations);
  expect_no_deadlock([&] {
    on_two_threads([&](int thread) {
      own::shared_ptr<int>& mine = objects.pointer[thread];
      own::shared_ptr<int>& other = objects.pointer[1 - thread];
      for (int i = 0; i < rounds; ++i) {
        own::atomic_compare_exchange_strong(&mine, &other, own::atomic_load(&mine));
      }
    });
  });
  // A failed compare-exchange copies one into the other, and a successful one stores a value they
  // already share: once they have met they stay equal.
  EXPECT_EQ(objects.pointer[0], objects.pointer[1]);
  EXPECT_EQ(objects.pointer[0].use_count(), 2);
}

}  // namespace
