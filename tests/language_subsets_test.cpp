// SPDX-License-Identifier: BSL-1.0
// own as code built with -fno-exceptions and/or -fno-rtti uses it (the language_subsets stage of
// scripts/test.sh builds this file, and the other tests that use neither feature, in each mode; the
// normal builds run it too). Every public header compiles (own.hpp includes them all); the main
// facilities work, get_deleter included (a type key without RTTI); the nothrow paths stay nothrow;
// and, without exceptions, what would throw ends the program with an own: message.
#include <own/own.hpp>

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace {

struct counting_deleter {
  int* calls;
  void operator()(int* p) const noexcept {
    ++*calls;
    delete p;
  }
};

TEST(LanguageSubsets, SharedAndWeakPointers) {
  int deletions = 0;
  {
    own::shared_ptr<int> p(new int(1), counting_deleter{&deletions});
    counting_deleter* d = own::get_deleter<counting_deleter>(p);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->calls, &deletions);
    EXPECT_EQ(own::get_deleter<std::default_delete<int>>(p), nullptr);  // another type: not found
    own::weak_ptr<int> w = p;
    EXPECT_EQ(*w.lock(), 1);
    p.reset();
    EXPECT_FALSE(w.lock());  // nothrow: an empty pointer
  }
  EXPECT_EQ(deletions, 1);
  auto q = own::make_shared<std::vector<int>>(3, 7);
  EXPECT_EQ((*q)[2], 7);
  auto a = own::make_shared<int[]>(4, 2);
  EXPECT_EQ(a[3], 2);
}

TEST(LanguageSubsets, StdInteropRoundTrip) {
  std::shared_ptr<int> s = std::make_shared<int>(5);
  own::shared_ptr<int> o(s);
  std::shared_ptr<int> back = own::to_std(o);  // found by own's get_deleter, with or without RTTI
  EXPECT_FALSE(back.owner_before(s) || s.owner_before(back));
  EXPECT_EQ(*back, 5);
}

TEST(LanguageSubsets, ManagedLocalIntrusiveAndAtomic) {
  own::managed_ptr<int> m = own::make_managed<int>(3);
  own::shared_ptr<int> from_managed = std::move(m);
  EXPECT_EQ(*from_managed, 3);

  own::local_shared_ptr<int> l = own::make_local_shared<int>(4);
  EXPECT_EQ(*l, 4);

  struct node : own::intrusive_ref_counter<node> {
    int v = 6;
  };
  own::intrusive_ptr<node> n = own::make_intrusive<node>();
  EXPECT_EQ(n->v, 6);

  own::atomic_shared_ptr<int> atom(own::make_shared<int>(8));
  atom.store(own::make_shared<int>(9));
  EXPECT_EQ(*atom.load(), 9);
  own::snapshot_ptr<int> s = atom.snapshot();
  EXPECT_EQ(*s, 9);
}

TEST(LanguageSubsets, Pools) {
  own::pool p(32);
  void* b = p.allocate();
  p.deallocate(b);

  own::concurrent_pool cp(48);
  own::shared_ptr<int> from_pool = own::allocate_shared<int>(&cp, 10);
  EXPECT_EQ(*from_pool, 10);

  own::multipool mp(256);
  std::vector<int, own::pool_allocator<int, own::multipool>> v{own::pool_allocator<int, own::multipool>(&mp)};
  v.assign(10, 1);
  EXPECT_EQ(v.size(), 10u);

  own::object_pool<int> objects(1, own::fixed_capacity);
  own::managed_ptr<int> one = objects.try_acquire();
  EXPECT_TRUE(one);
  EXPECT_FALSE(objects.try_acquire());  // nothrow: exhausted is an empty pointer

  std::vector<int, own::heap_allocator<int>> on_heap(100, 1);
  EXPECT_EQ(on_heap[99], 1);
}

#if !defined(__cpp_exceptions)
// What throws with exceptions ends the program here, saying what it would have thrown.
TEST(LanguageSubsetsDeathTest, WhatWouldThrowAbortsWithAMessage) {
  own::weak_ptr<int> expired;
  EXPECT_DEATH(own::shared_ptr<int>{expired}, "own: bad_weak_ptr \\(thrown with exceptions disabled\\)");
  own::object_pool<int> objects(1, own::fixed_capacity);
  own::managed_ptr<int> one = objects.acquire();
  EXPECT_DEATH((void)objects.acquire(), "own: std::bad_alloc \\(thrown with exceptions disabled\\)");
  EXPECT_DEATH(own::pool(32, [] {
                 own::pool_options o;
                 o.alignment = 3;
                 return o;
               }()),
               "own: pool alignment must be a power of two \\(thrown with exceptions disabled\\)");
}
#endif

}  // namespace
