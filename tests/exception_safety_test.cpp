// SPDX-License-Identifier: BSL-1.0
// Exception safety of every allocating entry point: each constructor, factory, conversion and pool
// operation is run with the 1st, 2nd, ... allocation throwing (from a test allocator, from a test
// memory resource, and from the global operator new, which this executable replaces), and with the
// 1st, 2nd, ... construction of its objects throwing (creators too, for pools). After each run:
// nothing leaked, nothing was destroyed twice, and where std gives the strong guarantee the target
// is as it was. Each sweep also asserts how many failure points it found, so a sweep that injects
// nothing fails.
// The operator-new sweeps need the default heap's blocks from operator new: it sends them there in
// a program that replaces operator new, as this one does (heap_test covers the heap's own failures).

#include <own/intrusive_ptr.hpp>
#include <own/local_shared_ptr.hpp>
#include <own/managed_ptr.hpp>
#include <own/multipool.hpp>
#include <own/object_pool.hpp>
#include <own/pool.hpp>
#include <own/concurrent_pool.hpp>
#include <own/shared_ptr.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <type_traits>

#include "test_allocator.hpp"
#include "tracked.hpp"

using own_test::allocation_log;
using own_test::for_each_failure_point;
using own_test::for_each_throwing_construction;
using own_test::test_allocator;
using own_test::test_resource;
using own_test::tracked;

// ---------------------------------------------------------------------------------------------
// The global operator new of this executable counts live allocations and throws at a chosen
// attempt, so that paths with no allocator parameter (make_shared, shared_ptr(new T), ...) are
// swept too. Not under clang's sanitizers, whose static runtimes define operator new themselves:
// there the operator-new sweeps just run their body once (the other configurations sweep them).

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define OWN_TEST_RUNTIME_OWNS_NEW 1
#endif
#endif

namespace {
std::atomic<long> new_attempts{0};
std::atomic<long> new_throw_at{0};  // 0: never
std::atomic<long> new_live{0};

[[maybe_unused]] void* counted_new(std::size_t bytes, std::size_t align) {
  if (++new_attempts == new_throw_at.load()) throw std::bad_alloc();
  if (bytes == 0) bytes = 1;
  void* p = align > alignof(std::max_align_t) ? std::aligned_alloc(align, (bytes + align - 1) / align * align) : std::malloc(bytes);
  if (!p) throw std::bad_alloc();
  ++new_live;
  return p;
}
[[maybe_unused]] void counted_delete(void* p) noexcept {
  if (!p) return;
  --new_live;
  std::free(p);
}
}  // namespace

#ifndef OWN_TEST_RUNTIME_OWNS_NEW
void* operator new(std::size_t n) { return counted_new(n, alignof(std::max_align_t)); }
void* operator new[](std::size_t n) { return counted_new(n, alignof(std::max_align_t)); }
void* operator new(std::size_t n, std::align_val_t a) { return counted_new(n, static_cast<std::size_t>(a)); }
void* operator new[](std::size_t n, std::align_val_t a) { return counted_new(n, static_cast<std::size_t>(a)); }
void operator delete(void* p) noexcept { counted_delete(p); }
void operator delete[](void* p) noexcept { counted_delete(p); }
void operator delete(void* p, std::size_t) noexcept { counted_delete(p); }
void operator delete[](void* p, std::size_t) noexcept { counted_delete(p); }
void operator delete(void* p, std::align_val_t) noexcept { counted_delete(p); }
void operator delete[](void* p, std::align_val_t) noexcept { counted_delete(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { counted_delete(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { counted_delete(p); }
constexpr bool new_is_hooked = true;
#else
constexpr bool new_is_hooked = false;
#endif

namespace {

// for_each_failure_point for the global operator new.
template <class Body>
int for_each_new_failure(Body&& body) {
  for (int n = 1;; ++n) {
    const long live_before = new_live.load();
    const long objects_before = tracked::live();
    new_throw_at = new_attempts.load() + n;
    bool threw = false;
    try {
      body();
    } catch (const std::bad_alloc&) {
      threw = true;
    }
    new_throw_at = 0;
    EXPECT_EQ(new_live.load(), live_before) << "leaked memory with operator new " << n << " throwing";
    EXPECT_EQ(tracked::live(), objects_before) << "leaked objects with operator new " << n << " throwing";
    if (!threw) return n;
    if (n > 10000) {
      ADD_FAILURE() << "body never completed";
      return n;
    }
  }
}

// EXPECT_EQ(for_each_new_failure(body), runs) where operator new is hooked; else just body().
#define EXPECT_NEW_FAILURE_RUNS(runs, ...)                \
  do {                                                    \
    if (new_is_hooked) {                                  \
      EXPECT_EQ(for_each_new_failure(__VA_ARGS__), runs); \
    } else {                                              \
      (__VA_ARGS__)();                                    \
    }                                                     \
  } while (0)

// Runs `op`; if it throws, checks `unchanged()` (the strong guarantee) before passing it on.
template <class Op, class Unchanged>
void strongly(Op&& op, Unchanged&& unchanged) {
  try {
    op();
  } catch (...) {
    unchanged();
    throw;
  }
}

class ExceptionSafety : public ::testing::Test {
 protected:
  void TearDown() override {
    EXPECT_EQ(tracked::live(), 0);
    EXPECT_EQ(tracked::double_destroyed(), 0);
    EXPECT_EQ(log.blocks_in_use(), 0);
  }
  allocation_log log;
};

// ---------------------------------------------------------------------------------------------
// shared_ptr adopting a pointer: if the block cannot be allocated, the pointer is deleted (by the
// deleter) and a reset() target keeps what it had.

TEST_F(ExceptionSafety, SharedPtrAdoptingConstructorsDeleteThePointerOnFailure) {
  int deleted = 0;
  auto deleter = [&deleted](tracked* p) {
    ++deleted;
    delete p;
  };
  EXPECT_NEW_FAILURE_RUNS(3, [&] { own::shared_ptr<tracked> p(new tracked(1)); });  // object, block, done
  // The array is made in a statement of its own: gcc 12 destroys the elements of `new T[n]` a
  // second time when a later part of the same full-expression throws (std::shared_ptr too).
  EXPECT_NEW_FAILURE_RUNS(3, [&] {
    tracked* raw = new tracked[2];
    own::shared_ptr<tracked[]> p(raw);
  });
  deleted = 0;
  EXPECT_NEW_FAILURE_RUNS(3, [&] { own::shared_ptr<tracked> p(new tracked(1), deleter); });
  EXPECT_EQ(deleted, new_is_hooked ? 2 : 1);  // the failed block allocation, and the complete run
  deleted = 0;
  EXPECT_EQ(for_each_failure_point(log, [&] { own::shared_ptr<tracked> p(new tracked(1), deleter, test_allocator<int>(&log)); }), 2);
  EXPECT_EQ(deleted, 2);
  test_resource resource(&log);
  EXPECT_EQ(for_each_failure_point(log, [&] { own::shared_ptr<tracked> p(new tracked(1), deleter, &resource); }), 2);
  int null_deletions = 0;
  EXPECT_EQ(for_each_failure_point(log, [&] {
    own::shared_ptr<tracked> p(nullptr, [&](std::nullptr_t) { ++null_deletions; }, test_allocator<int>(&log));
            }),
            2);
  EXPECT_EQ(null_deletions, 2);
}

// Each body makes its own target, so that every run, failed or not, leaves the world as it found it.
TEST_F(ExceptionSafety, SharedPtrResetIsStrong) {
  const auto unchanged = [](const own::shared_ptr<tracked>& target) {
    EXPECT_TRUE(target && target->value() == 7 && target.use_count() == 1);
  };
  // make_shared's block, the new object, its block; then a clean run.
  EXPECT_NEW_FAILURE_RUNS(4, [&] {
    own::shared_ptr<tracked> target = own::make_shared<tracked>(7);
    strongly([&] { target.reset(new tracked(8)); }, [&] { unchanged(target); });
    EXPECT_EQ(target->value(), 8);
  });
  EXPECT_EQ(for_each_failure_point(log, [&] {
              own::shared_ptr<tracked> target = own::make_shared<tracked>(7);
              strongly([&] { target.reset(new tracked(8), own::default_deleter(), test_allocator<int>(&log)); },
                       [&] { unchanged(target); });
            }),
            2);
  EXPECT_EQ(for_each_failure_point(log, [&] {
              own::shared_ptr<tracked> target = own::make_shared<tracked>(7);
              std::unique_ptr<tracked> u(new tracked(9));
              strongly([&] { target.reset(std::move(u), test_allocator<int>(&log)); },
                       [&] {
                         unchanged(target);
                         EXPECT_TRUE(u && u->value() == 9);  // the unique_ptr keeps its object
                       });
              EXPECT_EQ(u, nullptr);
            }),
            2);
}

TEST_F(ExceptionSafety, ConversionsWithStdSharedPtrAreStrong) {
  // std's block (make_shared), own's block; then a clean run. `s` keeps its object either way.
  EXPECT_NEW_FAILURE_RUNS(3, [&] {
    std::shared_ptr<tracked> s = std::make_shared<tracked>(8);
    strongly([&] { own::shared_ptr<tracked> o(std::move(s)); }, [&] { EXPECT_TRUE(s && s.use_count() == 1 && s->value() == 8); });
  });
  // own's block, std's block (to_std); then a clean run.
  EXPECT_NEW_FAILURE_RUNS(3, [&] {
    own::shared_ptr<tracked> o = own::make_shared<tracked>(9);
    strongly([&] { std::shared_ptr<tracked> s = own::to_std(o); }, [&] { EXPECT_TRUE(o && o.use_count() == 1); });
  });
}

TEST_F(ExceptionSafety, SharedPtrFromUniquePtrAndManagedPtrIsStrong) {
  // The unique_ptr's object, the target's block, the new block; then a clean run.
  EXPECT_NEW_FAILURE_RUNS(4, [&] {
    std::unique_ptr<tracked> u(new tracked(3));
    own::shared_ptr<tracked> target = own::make_shared<tracked>(7);
    strongly([&] { target = std::move(u); }, [&] { EXPECT_TRUE(u && u->value() == 3 && target->value() == 7); });
    EXPECT_EQ(target->value(), 3);
  });
  // A managed_ptr that does not come from a shared_ptr needs a housing block.
  EXPECT_NEW_FAILURE_RUNS(4, [&] {
    own::managed_ptr<tracked> m(new tracked(4));
    own::shared_ptr<tracked> target = own::make_shared<tracked>(7);
    strongly([&] { target = std::move(m); }, [&] { EXPECT_TRUE(m && m->value() == 4 && target->value() == 7); });
    EXPECT_EQ(target->value(), 4);
  });
  EXPECT_EQ(for_each_failure_point(log, [&] {
              own::managed_ptr<tracked> m(new tracked(5));
              strongly([&] { own::shared_ptr<tracked> s(std::move(m), test_allocator<int>(&log)); },
                       [&] { EXPECT_TRUE(m && m->value() == 5); });
            }),
            2);
  // One that does come from a shared_ptr gives its block back: only make_shared allocates.
  EXPECT_NEW_FAILURE_RUNS(2, [&] {
    own::shared_ptr<tracked> target = own::make_shared<tracked>(7);
    own::managed_ptr<tracked> back = target;
    own::shared_ptr<tracked> again(std::move(back));
    EXPECT_EQ(again.use_count(), 2);
  });
}

// ---------------------------------------------------------------------------------------------
// Housed objects and arrays: every factory, at every allocation and every construction.

// Calls every factory of housed objects and arrays once, with `a` where one takes an allocator.
template <class A>
void every_housed_factory(const A& a) {
  auto p1 = own::make_shared<tracked>(1);
  auto p2 = own::make_shared<tracked[]>(2);
  auto p3 = own::make_shared<tracked[2]>();
  auto p4 = own::make_shared<tracked[]>(2, tracked(4));
  auto p5 = own::make_shared<tracked[2]>(tracked(5));
  auto p6 = own::allocate_shared<tracked>(a, 6);
  auto p7 = own::allocate_shared<tracked[]>(a, 2);
  auto p8 = own::allocate_shared<tracked[2]>(a);
  auto p9 = own::allocate_shared<tracked[]>(a, 2, tracked(9));
  auto p10 = own::allocate_shared<tracked[2][2]>(a, {tracked(10), tracked(10)});
  auto p11 = own::make_shared_for_overwrite<tracked>();
  auto p12 = own::make_shared_for_overwrite<tracked[]>(2);
  auto p13 = own::allocate_shared_for_overwrite<tracked[2]>(a);
  auto p14 = own::allocate_shared_for_overwrite<tracked[]>(a, 2);
  auto p15 = own::make_shared_object<tracked>(15);
  auto p16 = own::make_shared_object_with_alloc<tracked>(a, 16);
  auto p17 = own::make_shared_array<tracked>(2);
  auto p18 = own::make_shared_array_with_alloc<tracked>(a, 2);
  own::managed_ptr<tracked> m1 = own::make_managed<tracked>(19);
  own::managed_ptr<tracked> m2 = own::allocate_managed<tracked>(a, 20);
  EXPECT_EQ(p10[1][1].value(), 10);
  EXPECT_EQ(m2->value(), 20);
}

TEST_F(ExceptionSafety, HousedFactoriesAtEveryAllocation) {
  // 20 blocks, 10 of them from `a` (the prototypes of the copying forms are on the stack).
  EXPECT_EQ(for_each_failure_point(log, [&] { every_housed_factory(test_allocator<int>(&log)); }), 11);
  test_resource resource(&log);
  EXPECT_EQ(for_each_failure_point(log, [&] { every_housed_factory(&resource); }), 11);
  // The test allocator gets its memory from operator new too: all 20 fail there.
  EXPECT_NEW_FAILURE_RUNS(21, [&] { every_housed_factory(test_allocator<int>(&log)); });
}

// With an own pool as the allocator: blocks that fit come from the pool's chunks, the others from
// its upstream; either may fail. The pool lives in the body, so its chunks are counted too.
template <class Pool, class... Args>
int housed_factories_from_a_pool(allocation_log& log, Args... args) {
  test_resource upstream(&log);
  return for_each_failure_point(log, [&] {
    Pool pool(args..., own::pool_options{}, &upstream);
    every_housed_factory(&pool);
  });
}

TEST_F(ExceptionSafety, HousedFactoriesFromPoolsAtEveryAllocation) {
  EXPECT_GE(housed_factories_from_a_pool<own::pool>(log, std::size_t{64}), 3);
  EXPECT_GE(housed_factories_from_a_pool<own::concurrent_pool>(log, std::size_t{64}), 3);
  EXPECT_GE(housed_factories_from_a_pool<own::multipool>(log, std::size_t{256}), 3);
}

TEST_F(ExceptionSafety, HousedFactoriesAtEveryConstruction) {
  // Every tracked construction, prototypes included: 1+2+2+(1+2)+(1+2)+1+2+2+(1+2)+(2+4)+1+2+2+2+1+1+2+2+1+1 = 40.
  EXPECT_EQ(for_each_throwing_construction(log, [&] { every_housed_factory(test_allocator<int>(&log)); }), 41);
}

// ---------------------------------------------------------------------------------------------
// intrusive_ptr factories.

struct counted : own::intrusive_ref_counter<counted>, tracked {
  explicit counted(int v) : tracked(v) {}
};

TEST_F(ExceptionSafety, IntrusiveFactories) {
  EXPECT_NEW_FAILURE_RUNS(2, [&] { auto p = own::make_intrusive<counted>(1); });
  EXPECT_EQ(for_each_failure_point(log, [&] { auto p = own::allocate_intrusive<counted>(test_allocator<counted>(&log), 2); }), 2);
  test_resource resource(&log);
  EXPECT_EQ(for_each_failure_point(log, [&] { auto p = own::allocate_intrusive<counted>(&resource, 3); }), 2);
  EXPECT_EQ(for_each_throwing_construction(log, [&] {
              auto p = own::make_intrusive<counted>(1);
              auto q = own::allocate_intrusive<counted>(test_allocator<counted>(&log), 2);
            }),
            3);
}

// ---------------------------------------------------------------------------------------------
// local_shared_ptr: a group made from a pointer, a unique_ptr or a shared_ptr needs a counts node,
// which comes from a per-thread cache of recycled nodes. Each sweep runs on a fresh thread, whose
// cache starts empty (so every node comes from operator new) and is emptied when it exits.

template <class Op>
void on_fresh_thread(Op op) {
  std::exception_ptr error;
  std::thread worker([&] {
    try {
      op();
    } catch (...) {
      error = std::current_exception();
    }
  });
  worker.join();
  if (error) std::rethrow_exception(error);
}

// The operator-new calls that starting a thread makes (libstdc++ one, libc++ three), counted so that
// the sweeps below hold own's count exact in each.
int thread_start_failure_points() {
  return new_is_hooked ? for_each_new_failure([] { on_fresh_thread([] {}); }) - 1 : 0;
}

TEST_F(ExceptionSafety, LocalSharedPtrGroupsAreStrongOrDisposeThePointer) {
  // The thread, then: make_shared; a node (fails: the shared_ptr keeps its object); the adopted
  // object and its block (its node is the first group's, recycled); the unique_ptr's object, its
  // node, its block; make_local_shared. Eight failure points after the thread's, then a clean run.
  EXPECT_NEW_FAILURE_RUNS(thread_start_failure_points() + 9, [&] {
    on_fresh_thread([&] {
      own::shared_ptr<tracked> s = own::make_shared<tracked>(1);
      strongly([&] { own::local_shared_ptr<tracked> group(std::move(s)); },
               [&] { EXPECT_TRUE(s && s.use_count() == 1 && s->value() == 1); });
      own::local_shared_ptr<tracked> adopted(new tracked(2));
      std::unique_ptr<tracked> u(new tracked(3));
      strongly([&] { own::local_shared_ptr<tracked> group(std::move(u)); }, [&] { EXPECT_TRUE(u && u->value() == 3); });
      own::local_shared_ptr<tracked> made = own::make_local_shared<tracked>(4);
      EXPECT_EQ(made.use_count(), 1);
    });
  });
  EXPECT_EQ(for_each_throwing_construction(log, [&] {
              own::local_shared_ptr<tracked> made = own::make_local_shared<tracked>(4);
              own::local_shared_ptr<tracked> housed = own::allocate_local_shared<tracked>(test_allocator<int>(&log), 5);
            }),
            3);
}

// ---------------------------------------------------------------------------------------------
// A thread's first use of a concurrent_pool registers the thread (a cache, and an entry in the
// thread's list of caches). When the pool's upstream is another concurrent_pool that the thread has
// not used yet, making the first cache registers the thread with the second pool inside the first
// registration. A failure anywhere in the pair throws, and the first registration's entry can still
// be added: it must not have been spent on the nested one (std::terminate, in a noexcept add).

TEST_F(ExceptionSafety, NestedThreadRegistrationWithConcurrentPools) {
  own::pool_options options;
  options.thread_cache_blocks = 4;
  options.initial_chunk_blocks = 4;
  const auto first_use = [&] {
    on_fresh_thread([&] {  // the thread's list of caches starts empty, and must grow
      own::concurrent_pool upstream(1024);
      own::concurrent_pool pool(16, options, &upstream);
      void* block = pool.allocate();
      pool.deallocate(block);
    });
  };
  // The thread; for `upstream`, two magazines, the cache, the list's room and a chunk; for `pool`
  // (its magazines and chunk come from `upstream`), the cache and the list's room: seven failure
  // points after the thread's, then a clean run.
  EXPECT_NEW_FAILURE_RUNS(thread_start_failure_points() + 8, first_use);
}

// ---------------------------------------------------------------------------------------------
// Object pools: construction, and every acquisition that grows, fail without changing the pool;
// so do throwing creators.

template <class Pool>
class PoolExceptionSafety : public ExceptionSafety {};
using pool_types = ::testing::Types<own::object_pool<tracked>, own::concurrent_object_pool<tracked>>;
struct pool_names {
  template <class Pool>
  static std::string GetName(int) {
    return std::is_same_v<Pool, own::object_pool<tracked>> ? "object_pool" : "concurrent_object_pool";
  }
};
TYPED_TEST_SUITE(PoolExceptionSafety, pool_types, pool_names);

// Acquires in every way until the pool has had to grow twice; checks a failed acquisition left
// the pool as it was.
template <class Pool>
void acquire_through_growth(Pool& pool, allocation_log& log) {
  own::managed_ptr<tracked> a = pool.acquire();  // the initial object
  const auto keep = [&](auto&& op) {
    const std::size_t capacity = pool.capacity(), available = pool.available();
    strongly(op, [&] { EXPECT_TRUE(pool.capacity() == capacity && pool.available() == available); });
  };
  own::shared_ptr<tracked> b;
  keep([&] { b = pool.acquire_shared(); });  // grows to 2
  own::managed_ptr<tracked> c;
  keep([&] { c = pool.try_acquire(); });  // grows to 4
  own::managed_ptr<tracked> d = pool.acquire();
  own::shared_ptr<tracked> e;
  strongly([&] { e = own::shared_ptr<tracked>(std::move(d), test_allocator<int>(&log)); },  // a housing block
           [&] { EXPECT_TRUE(d); });
  EXPECT_EQ(pool.capacity(), 4u);
}

TYPED_TEST(PoolExceptionSafety, GrowthAtEveryAllocation) {
  test_resource upstream(&this->log);
  // Three chunks from the upstream resource, one housing block, then a clean run.
  EXPECT_EQ(for_each_failure_point(this->log, [&] {
              TypeParam pool(1, {}, {}, &upstream);
              acquire_through_growth(pool, this->log);
            }),
            5);
}

TYPED_TEST(PoolExceptionSafety, GrowthAtEveryConstruction) {
  test_resource upstream(&this->log);
  int made = 0;
  auto creator = [&made] {
    ++made;
    return tracked(100);
  };
  // 1 + 1 + 2 objects made by the creator, each construction failing once, then a clean run.
  EXPECT_EQ(for_each_throwing_construction(this->log, [&] {
              TypeParam pool(1, creator, {}, &upstream);
              acquire_through_growth(pool, this->log);
            }),
            5);
  EXPECT_GT(made, 0);
}

TYPED_TEST(PoolExceptionSafety, FixedPoolConstructionAtEveryFailure) {
  test_resource upstream(&this->log);
  EXPECT_EQ(for_each_failure_point(this->log, [&] { TypeParam pool(3, own::fixed_capacity, {}, {}, &upstream); }), 2);
  EXPECT_EQ(for_each_throwing_construction(this->log, [&] { TypeParam pool(3, own::fixed_capacity, {}, {}, &upstream); }), 4);
}

}  // namespace
