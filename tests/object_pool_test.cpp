// SPDX-License-Identifier: BSL-1.0
// Tests of <own/object_pool.hpp>: acquiring and returning through managed_ptr and shared_ptr,
// fixed and growing capacity, creators (lambdas, constructor arguments; types that cannot be
// default-constructed, moved or copied) and resetters (opt-in), creators that throw, where the pool
// keeps its creator and resetter, allocation counts,
// a two-thread stress test of the concurrent pool, and checked-mode misuse.
#include <own/object_pool.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cassert>
#include <mutex>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "test_allocator.hpp"
#include "tracked.hpp"

using own_test::allocation_log;
using own_test::test_resource;
using own_test::tracked;

namespace {

// ---------------------------------------------------------------------------------------------
// The header's usage example, as written there.

struct buffer {
  std::vector<char> bytes = std::vector<char>(1500);
  void reset() { bytes.assign(bytes.size(), 0); }
};

struct endpoint {
  endpoint(std::string h, int p) : host(std::move(h)), port(p) {}  // no default constructor
  std::string host;
  int port;
};

TEST(ObjectPoolUsage, HeaderExampleRuns) {
  // Never allocates after this; own::call_reset: each buffer that comes back is reset().
  own::object_pool<buffer> pool(64, own::fixed_capacity, {}, own::call_reset);
  {
    own::managed_ptr<buffer> a = pool.acquire();
    own::shared_ptr<buffer> b = pool.acquire_shared();
    a->bytes[0] = 'x';
    assert(pool.available() == 62);
    EXPECT_EQ(pool.available(), 62u);
  }
  assert(pool.available() == 64);  // both back, reset
  EXPECT_EQ(pool.available(), 64u);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(pool.acquire()->bytes[0], 0);  // whichever came back

  own::object_pool<endpoint> made(4, [] { return endpoint("db", 5432); });
  own::object_pool<endpoint> constructed(4, own::constructor_args("db", 5432));
  assert(made.acquire()->port == 5432 && constructed.acquire()->host == "db");
  EXPECT_TRUE(made.acquire()->port == 5432 && constructed.acquire()->host == "db");
}

// ---------------------------------------------------------------------------------------------

template <class Pool>
class ObjectPoolTest : public ::testing::Test {};
using pool_types = ::testing::Types<own::object_pool<tracked>, own::concurrent_object_pool<tracked>>;
struct pool_names {
  template <class Pool>
  static std::string GetName(int) {
    return std::is_same_v<Pool, own::object_pool<tracked>> ? "object_pool" : "concurrent_object_pool";
  }
};
TYPED_TEST_SUITE(ObjectPoolTest, pool_types, pool_names);

TYPED_TEST(ObjectPoolTest, MakesItsObjectsUpFrontAndDestroysThemOnce) {
  {
    TypeParam pool(10);
    EXPECT_EQ(tracked::live(), 10);
    EXPECT_EQ(pool.capacity(), 10u);
    EXPECT_EQ(pool.available(), 10u);
    auto a = pool.acquire();
    auto b = pool.acquire_shared();
    EXPECT_EQ(pool.available(), 8u);
    EXPECT_EQ(tracked::live(), 10);  // handing out makes nothing
  }
  EXPECT_EQ(tracked::live(), 0);
}

TYPED_TEST(ObjectPoolTest, ReturnedObjectsAreReusedLastInFirstOut) {
  TypeParam pool(4);
  tracked* first;
  {
    auto a = pool.acquire();
    first = a.get();
  }
  EXPECT_EQ(pool.acquire().get(), first);
  {
    auto s = pool.acquire_shared();
    first = s.get();
  }
  EXPECT_EQ(pool.acquire_shared().get(), first);
  std::set<tracked*> distinct;
  std::vector<own::managed_ptr<tracked>> out;
  for (int i = 0; i < 4; ++i) {
    out.push_back(pool.acquire());
    distinct.insert(out.back().get());
  }
  EXPECT_EQ(distinct.size(), 4u);
}

TYPED_TEST(ObjectPoolTest, FixedCapacityNeverAllocatesAndRunsOut) {
  allocation_log log;
  test_resource upstream(&log);
  TypeParam pool(3, own::fixed_capacity, {}, {}, &upstream);
  const long allocations = log.allocations;
  for (int round = 0; round < 100; ++round) {
    auto a = pool.acquire();
    auto b = pool.acquire_shared();
    own::weak_ptr<tracked> w = b;
    auto c = pool.try_acquire();
    EXPECT_TRUE(c);
    EXPECT_FALSE(pool.try_acquire());
    EXPECT_THROW(pool.acquire(), std::bad_alloc);
    EXPECT_THROW(pool.acquire_shared(), std::bad_alloc);
  }
  EXPECT_EQ(log.allocations, allocations);
  EXPECT_EQ(pool.capacity(), 3u);
  EXPECT_EQ(pool.available(), 3u);
}

// A count whose chunk size (header + count slots) wraps used to get a few bytes from upstream and
// construct slots past their end: it is refused with std::bad_alloc, growable or fixed.
TYPED_TEST(ObjectPoolTest, CountWhoseChunkSizeWrapsIsRefused) {
  constexpr std::size_t max = static_cast<std::size_t>(-1);
  for (std::size_t count : {(max >> 3) + 1, (max >> 2) + 1, max / 2, max}) {
    EXPECT_THROW({ TypeParam pool(count, own::fixed_capacity); }, std::bad_alloc) << count;
    EXPECT_THROW({ TypeParam pool(count); }, std::bad_alloc) << count;
  }
}

TEST(ObjectPool, HugeCountOfTheIssueIsRefused) {
  EXPECT_THROW({ own::object_pool<int> pool(std::size_t{1} << 61, own::fixed_capacity); }, std::bad_alloc);
  EXPECT_THROW({ own::concurrent_object_pool<int> pool(std::size_t{1} << 61, own::fixed_capacity); }, std::bad_alloc);
  EXPECT_THROW({ own::object_pool<int> pool(std::size_t{1} << 61); }, std::bad_alloc);
  EXPECT_THROW({ own::concurrent_object_pool<int> pool(std::size_t{1} << 61); }, std::bad_alloc);
}

// The concurrent pool's free stack numbers its slots with 32-bit indices: 2^32 objects are refused
// before upstream is asked for their memory (which it might well give, on a large machine; here it
// would refuse too, so what matters is whether it was asked).
TEST(ConcurrentObjectPool, MoreObjectsThanIndicesAreRefusedUpFront) {
  allocation_log log;
  log.throw_at = 1;
  test_resource upstream(&log);
  EXPECT_THROW(
      { own::concurrent_object_pool<char> pool(std::size_t{1} << 32, own::fixed_capacity, {}, {}, &upstream); },
      std::bad_alloc);
  EXPECT_EQ(log.attempts, 0);
  // The single-threaded pool has no such limit: it asks upstream, which here refuses.
  EXPECT_THROW({ own::object_pool<char> pool(std::size_t{1} << 32, own::fixed_capacity, {}, {}, &upstream); },
               std::bad_alloc);
  EXPECT_EQ(log.attempts, 1);
}

TYPED_TEST(ObjectPoolTest, GrowsByDoublingWhenEmpty) {
  allocation_log log;
  test_resource upstream(&log);
  TypeParam pool(2, {}, {}, &upstream);
  std::vector<own::managed_ptr<tracked>> out;
  for (int i = 0; i < 5; ++i) out.push_back(pool.acquire());
  EXPECT_EQ(pool.capacity(), 8u);  // 2, then +2, then +4
  EXPECT_EQ(log.allocations, 3);
  EXPECT_EQ(pool.available(), 3u);
  TypeParam empty_start(0, {}, {}, &upstream);
  EXPECT_EQ(empty_start.capacity(), 0u);
  auto one = empty_start.acquire();
  EXPECT_EQ(empty_start.capacity(), 1u);
}

TYPED_TEST(ObjectPoolTest, ResetterRunsOnEveryReturn) {
  int resets = 0;
  TypeParam pool(
      2, [] { return tracked(5); },
      [&](tracked& t) {
        ++resets;
        t.set_value(5);
      });
  {
    auto a = pool.acquire();
    EXPECT_EQ(a->value(), 5);
    a->set_value(9);
  }
  EXPECT_EQ(resets, 1);
  {
    auto s = pool.acquire_shared();
    EXPECT_EQ(s->value(), 5);
    auto copy = s;
  }
  EXPECT_EQ(resets, 2);
  EXPECT_EQ(pool.acquire()->value(), 5);
}

// ---------------------------------------------------------------------------------------------
// Creators: what users write, kept by the pool.

TYPED_TEST(ObjectPoolTest, CreatorLambdaMakesEveryObject) {
  int calls = 0;
  TypeParam pool(2, [&calls] { return tracked(++calls * 10); });
  EXPECT_EQ(calls, 2);
  std::vector<own::managed_ptr<tracked>> out;
  for (int i = 0; i < 3; ++i) out.push_back(pool.acquire());  // the third grows the pool by 2
  EXPECT_EQ(calls, 4);
  EXPECT_EQ(tracked::live(), 4);  // made in place: no temporary, no copy
  std::multiset<int> values;
  for (auto& p : out) values.insert(p->value());
  EXPECT_EQ(values, (std::multiset<int>{10, 20, 30}));
}

TYPED_TEST(ObjectPoolTest, CreatorMayReturnWhatTIsConstructibleFrom) {
  TypeParam pool(1, own::fixed_capacity, [] { return 7; });  // tracked's explicit constructor from int
  EXPECT_EQ(pool.acquire()->value(), 7);
}

struct labelled {
  labelled(const std::string& text, int n) : label(text + std::to_string(n)) {}
  std::string label;
};

TEST(ObjectPool, ConstructorArgsAreKeptAndGivenToEveryObject) {
  // The string is kept once and passed as a const lvalue: no object moves it away from the next.
  own::object_pool<labelled> pool(3, own::constructor_args(std::string(40, 'a'), 1));
  std::vector<own::managed_ptr<labelled>> out;
  for (int i = 0; i < 5; ++i) out.push_back(pool.acquire());  // 3 made at first, then 3 more
  for (auto& p : out) EXPECT_EQ(p->label, std::string(40, 'a') + "1");
  own::concurrent_object_pool<tracked> trackers(2, own::constructor_args(3));
  EXPECT_EQ(trackers.acquire()->value(), 3);
  own::object_pool<tracked> value_initialised(1, own::constructor_args());
  EXPECT_EQ(value_initialised.acquire()->value(), 0);
}

struct no_default {
  explicit no_default(int v) : value(v) {}
  int value;
};
struct move_only {
  explicit move_only(int v) : value(std::make_unique<int>(v)) {}
  std::unique_ptr<int> value;
};
struct immovable {
  explicit immovable(int v) : value(v) {}
  immovable(const immovable&) = delete;
  immovable& operator=(const immovable&) = delete;
  std::atomic<int> value;
};

// Refused at compile time without a creator (tests/compile_fail/object_pool_without_creator.cpp);
// these are the ways to give one.
template <template <class> class Pool>
void types_without_default_constructor() {
  static_assert(!std::is_default_constructible_v<no_default>);
  Pool<no_default> by_lambda(2, [] { return no_default(42); });
  Pool<no_default> by_args(2, own::fixed_capacity, own::constructor_args(43));
  EXPECT_EQ(by_lambda.acquire()->value, 42);
  EXPECT_EQ(by_args.acquire_shared()->value, 43);
  Pool<move_only> moved(1, [] { return move_only(5); });
  EXPECT_EQ(*moved.acquire()->value, 5);
  Pool<immovable> in_place(1, [] { return immovable(6); });  // C++17: the returned object is made in place
  Pool<immovable> from_args(1, own::constructor_args(7));
  EXPECT_EQ(in_place.acquire()->value, 6);
  EXPECT_EQ(from_args.acquire()->value, 7);
}
TEST(ObjectPool, TypesWithoutDefaultConstructorTakeACreator) { types_without_default_constructor<own::object_pool>(); }
TEST(ConcurrentObjectPool, TypesWithoutDefaultConstructorTakeACreator) {
  types_without_default_constructor<own::concurrent_object_pool>();
}

// The creator throws at its Nth call, for every N until the pool is made: each time the objects
// made so far are destroyed, every block goes back upstream, and the creator itself (and what it
// captured) is destroyed with the pool; a pool whose growth fails keeps what it had.
TYPED_TEST(ObjectPoolTest, CreatorThrowingAtEveryObject) {
  allocation_log log;
  test_resource upstream(&log);
  auto captured = std::make_shared<int>(0);  // a creator's state, to see it go
  constexpr int initial = 4;
  for (int n = 1;; ++n) {
    int calls = 0;
    auto creator = [&calls, n, captured] {
      if (++calls == n) throw std::runtime_error("creator failed");
      return tracked(calls);
    };
    try {
      TypeParam pool(initial, creator, {}, &upstream);
      EXPECT_EQ(n, initial + 1);
      EXPECT_EQ(tracked::live(), initial);
      EXPECT_EQ(captured.use_count(), 3);  // `creator`, and the pool's copy
      break;
    } catch (const std::runtime_error&) {
      EXPECT_LE(n, initial);
      EXPECT_EQ(calls, n);
      EXPECT_EQ(tracked::live(), 0) << n;
      EXPECT_EQ(log.blocks_in_use(), 0) << n;
      EXPECT_EQ(captured.use_count(), 2) << n;  // the pool's copy is gone
    }
  }
  EXPECT_EQ(tracked::live(), 0);
  EXPECT_EQ(log.blocks_in_use(), 0);
  EXPECT_EQ(captured.use_count(), 1);

  for (int n = 1;; ++n) {  // growing from 2 to 4 fails at its nth object
    int calls = 0;
    TypeParam pool(2, [&calls, n] {
      if (++calls == 2 + n) throw std::runtime_error("creator failed");
      return tracked(calls);
    }, {}, &upstream);
    auto a = pool.acquire();
    auto b = pool.acquire();
    const long blocks = log.blocks_in_use();
    try {
      auto c = pool.acquire();
      EXPECT_EQ(n, 3);
      EXPECT_EQ(pool.capacity(), 4u);
      break;
    } catch (const std::runtime_error&) {
      EXPECT_LE(n, 2);
      EXPECT_EQ(pool.capacity(), 2u);
      EXPECT_EQ(pool.available(), 0u);
      EXPECT_EQ(tracked::live(), 2);
      EXPECT_EQ(log.blocks_in_use(), blocks);
    }
  }
  EXPECT_EQ(tracked::live(), 0);
  EXPECT_EQ(log.blocks_in_use(), 0);
}

// A creator or resetter of up to three pointers is kept inside the pool; a larger one takes one
// block from the upstream resource, given back with the pool; both are destroyed once.
TYPED_TEST(ObjectPoolTest, CreatorAndResetterKeptInPlaceOrUpstream) {
  allocation_log log;
  test_resource upstream(&log);
  auto captured = std::make_shared<int>(0);
  {
    TypeParam pool(1, own::fixed_capacity, [captured] { return tracked(1); },
                   [captured](tracked&) {}, &upstream);
    EXPECT_EQ(log.allocations, 1);  // the chunk alone
    EXPECT_EQ(captured.use_count(), 3);
  }
  EXPECT_EQ(captured.use_count(), 1);
  EXPECT_EQ(log.blocks_in_use(), 0);
  {
    const std::shared_ptr<int> a = captured, b = captured, c = captured;  // 6 pointers' worth
    TypeParam pool(1, own::fixed_capacity, [a, b, c] { return tracked(*a + *b + *c); },
                   [a, b, c](tracked&) {}, &upstream);
    EXPECT_EQ(log.allocations, 4);  // the chunk, the creator, the resetter
    EXPECT_EQ(captured.use_count(), 10);
    auto p = pool.acquire();
  }
  EXPECT_EQ(captured.use_count(), 1);
  EXPECT_EQ(log.blocks_in_use(), 0);
  // If the upstream resource refuses the creator's block, nothing is left behind.
  const std::shared_ptr<int> a = captured, b = captured, c = captured;
  EXPECT_EQ(own_test::for_each_failure_point(log, [&] {
              TypeParam pool(1, [a, b, c] { return tracked(1); }, [a, b, c](tracked&) {}, &upstream);
            }),
            4);
  EXPECT_EQ(captured.use_count(), 4);
}

// ---------------------------------------------------------------------------------------------
// Resetters: none by default (a returned object is left as its user left it, reset() or not);
// own::call_reset opts in to reset().

struct resettable {
  int value = 0;
  int resets = 0;
  void reset() {
    value = 0;
    ++resets;
  }
};

TYPED_TEST(ObjectPoolTest, DefaultLeavesReturnedObjectsAsTheyWere) {
  TypeParam pool(1, own::fixed_capacity);
  {
    auto a = pool.acquire();
    a->set_value(3);
  }
  EXPECT_EQ(pool.acquire()->value(), 3);
  {
    auto s = pool.acquire_shared();
    s->set_value(4);
  }
  EXPECT_EQ(pool.acquire_shared()->value(), 4);
}

template <template <class> class Pool>
void reset_is_opt_in() {
  Pool<resettable> untouched(1, own::fixed_capacity);
  {
    auto a = untouched.acquire();
    a->value = 3;
  }
  auto kept = untouched.acquire();
  EXPECT_EQ(kept->value, 3);
  EXPECT_EQ(kept->resets, 0);

  Pool<resettable> reset(1, own::fixed_capacity, {}, own::call_reset);
  {
    auto a = reset.acquire();
    a->value = 3;
  }
  {
    auto s = reset.acquire_shared();
    EXPECT_EQ(s->value, 0);
    EXPECT_EQ(s->resets, 1);
    s->value = 4;
  }
  auto b = reset.acquire();
  EXPECT_EQ(b->value, 0);
  EXPECT_EQ(b->resets, 2);
}
TEST(ObjectPool, ResetIsOptIn) { reset_is_opt_in<own::object_pool>(); }
TEST(ConcurrentObjectPool, ResetIsOptIn) { reset_is_opt_in<own::concurrent_object_pool>(); }

TYPED_TEST(ObjectPoolTest, WeakReferenceKeepsTheSlotOutUntilItGoes) {
  TypeParam pool(1, own::fixed_capacity);
  own::weak_ptr<tracked> w;
  {
    auto s = pool.acquire_shared();
    EXPECT_EQ(s.use_count(), 1);
    w = s;
  }
  EXPECT_TRUE(w.expired());
  EXPECT_EQ(pool.available(), 0u);  // the slot is the weak_ptr's control block
  w.reset();
  EXPECT_EQ(pool.available(), 1u);
  auto again = pool.acquire_shared();
  EXPECT_EQ(again.use_count(), 1);  // counts start afresh
}

TYPED_TEST(ObjectPoolTest, PooledPointersConvertLikeAnyOther) {
  TypeParam pool(2, own::fixed_capacity);
  {
    own::shared_ptr<tracked> s = pool.acquire_shared();
    own::managed_ptr<tracked> m = s;  // one reference on the slot
    own::shared_ptr<tracked> back = std::move(m);
    EXPECT_TRUE(back.owner_equal(s));
    EXPECT_EQ(s.use_count(), 2);
  }
  {
    own::shared_ptr<tracked> housed = pool.acquire();  // housed in one allocation; returns all the same
    EXPECT_EQ(pool.available(), 1u);
  }
  EXPECT_EQ(pool.available(), 2u);
}

TYPED_TEST(ObjectPoolTest, ReleaseKeepsThePoolForLater) {
  TypeParam pool(1, own::fixed_capacity);
  auto [raw, deleter] = pool.acquire().release();
  EXPECT_EQ(pool.available(), 0u);
  own::managed_ptr<tracked> resumed(raw, deleter);
  resumed.reset();
  EXPECT_EQ(pool.available(), 1u);
}

TYPED_TEST(ObjectPoolTest, ThrowingCreatorLeavesThePoolUnchanged) {
  allocation_log log;
  test_resource upstream(&log);
  int runs = own_test::for_each_throwing_construction(log, [&] {
    TypeParam pool(4, {}, {}, &upstream);
    EXPECT_EQ(tracked::live(), 4);
  });
  EXPECT_EQ(runs, 5);
  TypeParam pool(2, {}, {}, &upstream);
  auto a = pool.acquire();
  auto b = pool.acquire();
  tracked::throw_after(2);  // growth to 4 fails at its second object
  EXPECT_THROW(pool.acquire(), tracked::construction_error);
  tracked::throw_after(0);
  EXPECT_EQ(pool.capacity(), 2u);
  EXPECT_EQ(pool.available(), 0u);
  EXPECT_EQ(tracked::live(), 2);
  EXPECT_EQ(log.blocks_in_use(), 1);
  auto c = pool.acquire();  // and it can still grow afterwards
  EXPECT_EQ(pool.capacity(), 4u);
}

TYPED_TEST(ObjectPoolTest, UpstreamFailureLeavesThePoolUnchanged) {
  allocation_log log;
  test_resource upstream(&log);
  int runs = own_test::for_each_failure_point(log, [&] {
    TypeParam pool(1, {}, {}, &upstream);
    auto a = pool.acquire();
    auto b = pool.acquire();  // grows
    auto c = pool.acquire();  // grows
  });
  EXPECT_EQ(runs, 4);
}

// ---------------------------------------------------------------------------------------------
// enable_shared_from_this: acquire_shared() hooks the object as make_shared would; an object that
// comes back lets go of the hook, which keeps neither its slot nor another owner's control block.

struct session : own::enable_shared_from_this<session> {
  int requests = 0;
};

template <template <class> class Pool>
void shared_from_this_of_pooled_objects() {
  Pool<session> pool(1, own::fixed_capacity);
  for (int round = 0; round < 3; ++round) {  // the same object, hooked afresh each time
    own::shared_ptr<session> s = pool.acquire_shared();
    own::shared_ptr<session> self = s->shared_from_this();
    EXPECT_TRUE(self.owner_equal(s));
    EXPECT_EQ(s.use_count(), 2);
    s.reset();
    EXPECT_EQ(pool.available(), 0u);
    self.reset();
    EXPECT_EQ(pool.available(), 1u) << "round " << round;
  }
  {  // acquire(): no shared owner, as for any object no shared_ptr owns
    own::managed_ptr<session> m = pool.acquire();
    EXPECT_THROW(m->shared_from_this(), std::bad_weak_ptr);
    EXPECT_TRUE(m->weak_from_this().expired());
  }
  allocation_log log;
  {  // a managed_ptr made a shared_ptr is housed, and hooked to its housing block
    own::shared_ptr<session> housed(pool.acquire(), own_test::test_allocator<int>(&log));
    EXPECT_TRUE(housed->shared_from_this().owner_equal(housed));
    own::managed_ptr<session> m = housed;  // and back, through the same block
    own::shared_ptr<session> back = std::move(m);
    EXPECT_TRUE(back->shared_from_this().owner_equal(housed));
  }
  EXPECT_EQ(pool.available(), 1u);
  EXPECT_EQ(log.blocks_in_use(), 0);  // the housing block went with its last reference
  own::weak_ptr<session> kept;
  {
    own::shared_ptr<session> s = pool.acquire_shared();
    kept = s->weak_from_this();
    EXPECT_TRUE(own::shared_ptr<session>(kept).owner_equal(s));
  }
  EXPECT_EQ(pool.available(), 0u);  // a weak_ptr the user kept holds the slot, as any weak_ptr does
  kept.reset();
  EXPECT_EQ(pool.available(), 1u);
}

TEST(ObjectPool, SharedFromThisOfPooledObjects) { shared_from_this_of_pooled_objects<own::object_pool>(); }
TEST(ConcurrentObjectPool, SharedFromThisOfPooledObjects) {
  shared_from_this_of_pooled_objects<own::concurrent_object_pool>();
}

// ---------------------------------------------------------------------------------------------
// Threads (TSan in CI): objects made on one thread and dropped on another, and both threads using
// the pool at once.

TEST(ConcurrentObjectPool, TwoThreadsAcquireAndDropAcrossThreads) {
  constexpr int per_thread = 250000;  // 2 threads x (acquire + release) x 250,000 = 10^6 operations
  {
    own::concurrent_object_pool<tracked> pool(64);
    std::atomic<long> checksum{0};
    auto work = [&](int id) {
      std::vector<own::managed_ptr<tracked>> held;
      std::vector<own::shared_ptr<tracked>> shared;
      for (int i = 0; i < per_thread; ++i) {
        if (i % 2) {
          held.push_back(pool.acquire());
          held.back()->set_value(id);
        } else {
          shared.push_back(pool.acquire_shared());
        }
        if (held.size() > 8) held.erase(held.begin());
        if (shared.size() > 8) shared.erase(shared.begin());
      }
      checksum += static_cast<long>(held.size() + shared.size());
    };
    std::thread a(work, 1), b(work, 2);
    a.join();
    b.join();
    EXPECT_EQ(checksum, 32);
    EXPECT_EQ(pool.available(), pool.capacity());
  }
  EXPECT_EQ(tracked::live(), 0);
}

TEST(ConcurrentObjectPool, MadeOnOneThreadDroppedOnAnother) {
  constexpr int count = 100000;
  own::concurrent_object_pool<tracked> pool(16);
  std::vector<own::shared_ptr<tracked>> made;
  std::atomic<bool> done{false};
  std::vector<own::managed_ptr<tracked>> handoff;
  for (int i = 0; i < count; i += 1000) {
    for (int j = 0; j < 1000; ++j) handoff.push_back(pool.acquire());
    std::thread dropper([batch = std::move(handoff)]() mutable { batch.clear(); });
    handoff.clear();
    dropper.join();
    EXPECT_EQ(pool.available(), pool.capacity());
  }
  done = true;
  EXPECT_LE(pool.capacity(), 2048u);  // objects came back and were reused
}

TEST(ConcurrentObjectPool, SharedFromThisAcrossThreads) {
  // Each thread hooks objects through acquire_shared() and shared_from_this(), and drops owners that
  // either thread made: the last owner's thread lets go of the hook, the next acquirer hooks afresh.
  own::concurrent_object_pool<session> pool(8, own::fixed_capacity);
  std::mutex mutex;
  std::vector<own::shared_ptr<session>> passed;
  auto work = [&] {
    for (int i = 0; i < 20000; ++i) {
      own::shared_ptr<session> s = pool.acquire_shared();
      own::shared_ptr<session> self = s->shared_from_this();
      ++self->requests;
      s.reset();
      own::shared_ptr<session> other;
      {
        std::lock_guard<std::mutex> lock(mutex);
        passed.push_back(std::move(self));
        if (passed.size() > 2) {
          other = std::move(passed.front());
          passed.erase(passed.begin());
        }
      }
      if (other) {
        EXPECT_TRUE(other->shared_from_this().owner_equal(other));
      }
    }
  };
  std::thread a(work), b(work);
  a.join();
  b.join();
  passed.clear();
  EXPECT_EQ(pool.available(), 8u);
}

// ---------------------------------------------------------------------------------------------
// Checked mode

#ifdef OWN_CHECKED
void return_twice() {
  own::object_pool<int> pool(1);
  own::managed_ptr_deleter deleter = pool.acquire().release().second;
  deleter();
  deleter();
}
void destroy_with_one_out() {
  auto* pool = new own::object_pool<int>(2);
  own::managed_ptr_deleter kept = pool->acquire().release().second;
  (void)kept;
  delete pool;
}
TEST(ObjectPoolCheckedDeathTest, ReturningTwiceAborts) { EXPECT_DEATH(return_twice(), "returned twice to object pool"); }
TEST(ObjectPoolCheckedDeathTest, DestroyedWithObjectsOutAborts) {
  EXPECT_DEATH(destroy_with_one_out(), "destroyed with 1 object\\(s\\) still in use");
}
#endif

}  // namespace
