// SPDX-License-Identifier: BSL-1.0
// Tests of <own/managed_ptr.hpp>: every owner kind, release and resume, aliasing, and the
// conversions to and from shared_ptr, with allocations and references counted.
#include <own/managed_ptr.hpp>

#include <gtest/gtest.h>

#include <cassert>
#include <algorithm>
#include <functional>
#include <memory_resource>
#include <set>
#include <thread>
#include <unordered_set>
#include <vector>

#include "generic_code_probe.hpp"
#include "test_allocator.hpp"
#include "tracked.hpp"

using own_test::allocation_log;
using own_test::test_allocator;
using own_test::tracked;

// ---------------------------------------------------------------------------------------------
// The header's usage example, as written there (at namespace scope, for ADL).

namespace usage {
struct item {
  virtual ~item() = default;
  int id = 0;
};
struct item_pool {
  std::vector<item*> free;
};
void reclaim_managed_object(item_pool* pool, item* p) { pool->free.push_back(p); }

int process(own::managed_ptr<const item> p) { return p->id; }  // takes any owner

void run() {
  item_pool pool;
  item pooled;
  process(own::managed_ptr<item>(&pooled, &pool));  // back to the pool after
  process(own::make_managed<item>());               // deleted after
  own::shared_ptr<item> shared = own::make_shared<item>();
  process(shared);  // one more reference
  own::managed_ptr<item> m = shared;
  own::shared_ptr<item> again = std::move(m);  // the same control block
  assert(pool.free.size() == 1 && again.owner_equal(shared) && shared.use_count() == 2);
  EXPECT_EQ(pool.free.size(), 1u);
  EXPECT_EQ(pool.free[0], &pooled);
  EXPECT_TRUE(again.owner_equal(shared));
  EXPECT_EQ(shared.use_count(), 2);
}
}  // namespace usage

namespace {

TEST(ManagedPtrUsage, HeaderExampleRuns) { usage::run(); }

// ---------------------------------------------------------------------------------------------

// A user's functions named like own's internal ones, of the same shapes, in the namespace of the
// types and the allocator below: own's internals, instantiated with those, must not find them by
// argument-dependent lookup (each call would be ambiguous).
template <class A>
const char* adapt_allocator(const A&) {
  return "adapt_allocator";
}
template <class Block, class A, class... Args>
const char* new_block(const A&, Args&&...) {
  return "new_block";
}
template <class Block, class A>
const char* delete_block(Block*, A&) {
  return "delete_block";
}
template <class Word>
void scalar_word(Word&) {}

template <class T>
struct local_allocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = local_allocator<U>;
  };
  local_allocator() = default;
  template <class U>
  local_allocator(const local_allocator<U>&) noexcept {}
};

struct base {
  int b = 1;
};  // no virtual destructor
struct derived : base {
  tracked t{7};
};

// A manager that takes objects back; found by ADL through its namespace.
}  // namespace
namespace managers {
struct recycler {
  std::vector<own_test::tracked*> returned;
};
inline void reclaim_managed_object(recycler* r, own_test::tracked* p) { r->returned.push_back(p); }
}  // namespace managers
namespace {

TEST(ManagedPtr, LayoutAndNoexcept) {
  static_assert(sizeof(own::managed_ptr<int>) <= 4 * sizeof(void*));
  static_assert(std::is_nothrow_default_constructible_v<own::managed_ptr<int>>);
  static_assert(std::is_nothrow_move_constructible_v<own::managed_ptr<int>>);
  static_assert(std::is_nothrow_move_assignable_v<own::managed_ptr<int>>);
  static_assert(!std::is_copy_constructible_v<own::managed_ptr<int>>);
  static_assert(!std::is_copy_assignable_v<own::managed_ptr<int>>);
  static_assert(std::is_nothrow_constructible_v<own::managed_ptr<base>, own::managed_ptr<derived>&&>);
  static_assert(std::is_nothrow_constructible_v<own::managed_ptr<int>, int*>);
  static_assert(!std::is_convertible_v<int*, own::managed_ptr<int>>);  // explicit, like unique_ptr
  static_assert(std::is_convertible_v<own::shared_ptr<int>, own::managed_ptr<const int>>);
  static_assert(std::is_convertible_v<own::managed_ptr<int>&&, own::shared_ptr<const int>>);
  static_assert(!std::is_constructible_v<own::managed_ptr<derived>, own::managed_ptr<base>&&>);
  // Declared deleted for a short error, but still not constructible.
  static_assert(!std::is_constructible_v<own::managed_ptr<derived>, base*> && !std::is_constructible_v<own::managed_ptr<int>, long*>);
  own::managed_ptr<int> p;
  static_assert(noexcept(p.reset()));
  static_assert(noexcept(p.release()));
  static_assert(noexcept(p.swap(p)));
}

TEST(ManagedPtr, EmptyStates) {
  own::managed_ptr<int> a;
  own::managed_ptr<int> b(nullptr);
  EXPECT_FALSE(a);
  EXPECT_EQ(b.get(), nullptr);
  EXPECT_TRUE(a == nullptr);
  EXPECT_TRUE(a == b);
  EXPECT_EQ(a.get_deleter().object(), nullptr);
  EXPECT_EQ(a.get_deleter().function(), nullptr);
}

// Boost's get_pointer(p), p.get(), found by argument-dependent lookup (this file has no using-
// declaration for it), also from generic code.
TEST(ManagedPtr, GetPointerFoundByArgumentDependentLookup) {
  own::managed_ptr<int> p = own::make_managed<int>(4);
  int* raw = get_pointer(p);
  EXPECT_EQ(raw, p.get());
  static_assert(noexcept(get_pointer(p)));
  const own::managed_ptr<const int> c = std::move(p);
  static_assert(std::is_same_v<decltype(get_pointer(c)), const int*>);
  EXPECT_EQ(own_test::generic_code::raw_of(c), raw);
  EXPECT_EQ(*raw, 4);
  EXPECT_EQ(get_pointer(own::managed_ptr<int>()), nullptr);
}

// Boost's hash_value(p), found by argument-dependent lookup: std::hash's value, the hash of get().
TEST(ManagedPtr, HashValueFoundByArgumentDependentLookup) {
  own::managed_ptr<int> p = own::make_managed<int>(4);
  static_assert(std::is_same_v<decltype(hash_value(p)), std::size_t>);
  static_assert(noexcept(hash_value(p)));
  EXPECT_EQ(hash_value(p), std::hash<own::managed_ptr<int>>()(p));
  int* raw = p.get();
  const own::managed_ptr<const int> c = std::move(p);
  EXPECT_EQ(own_test::generic_code::hash_of(c), std::hash<const int*>()(raw));
  EXPECT_EQ(hash_value(own::managed_ptr<int>()), std::hash<int*>()(nullptr));
}

TEST(ManagedPtr, NewedObjectDeletedAsItsCompleteType) {
  {
    own::managed_ptr<base> p(new derived);
    EXPECT_EQ(tracked::live(), 1);
    EXPECT_EQ(p->b, 1);
  }
  EXPECT_EQ(tracked::live(), 0);  // derived's member destroyed although base has no virtual destructor
  own::managed_ptr<int> null_raw(static_cast<int*>(nullptr));
  EXPECT_FALSE(null_raw);
}

TEST(ManagedPtr, ManagerGetsTheObjectBackThroughAdl) {
  managers::recycler recycler;
  tracked object(3);
  {
    own::managed_ptr<const tracked> p(&object, &recycler);
    EXPECT_EQ(p->value(), 3);
    EXPECT_TRUE(recycler.returned.empty());
  }
  ASSERT_EQ(recycler.returned.size(), 1u);
  EXPECT_EQ(recycler.returned[0], &object);
}

void free_with_cookie(tracked* p, int* cookie) {
  ++*cookie;
  delete p;
}

TEST(ManagedPtr, FunctionDeleterWithCookie) {
  int calls = 0;
  {
    own::managed_ptr<tracked> p(new tracked(4), &calls, &free_with_cookie);
    EXPECT_EQ(p->value(), 4);
  }
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(tracked::live(), 0);
}

TEST(ManagedPtr, ConvertingMoveAndUniquePtr) {
  own::managed_ptr<derived> d(new derived);
  own::managed_ptr<base> b = std::move(d);
  EXPECT_FALSE(d);
  EXPECT_TRUE(b);
  own::managed_ptr<const base> cb;
  cb = std::move(b);
  EXPECT_FALSE(b);
  own::managed_ptr<base> u = std::unique_ptr<derived>(new derived);
  EXPECT_EQ(tracked::live(), 2);
  u = std::unique_ptr<derived>(new derived);
  EXPECT_EQ(tracked::live(), 2);
  cb = nullptr;
  u.reset();
  EXPECT_EQ(tracked::live(), 0);
}

// A second base at a non-zero offset, so converting a managed_ptr<two_bases> to managed_ptr<second>
// changes the pointer value.
struct first {
  long f = 1;
};
struct second {
  long s = 2;
};
struct two_bases : first, second {
  tracked t{9};
};

// A moved-from managed_ptr keeps its old pointer word (a move clears only the object word). A
// conversion to a virtual base must not adjust that word: it would read the destroyed object (ASan
// reports it).
struct virtual_root {
  long r = 1;
};
struct virtual_leaf : virtual virtual_root {
  tracked t{4};
};

TEST(ManagedPtr, ConvertingAMovedFromPointerReadsNothing) {
  own::managed_ptr<virtual_leaf> leaf(new virtual_leaf);
  {
    own::managed_ptr<virtual_leaf> taken = std::move(leaf);
    EXPECT_EQ(taken->r, 1);
  }
  EXPECT_EQ(tracked::live(), 0);
  own::managed_ptr<virtual_root> root(std::move(leaf));
  EXPECT_EQ(root.get(), nullptr);
  EXPECT_FALSE(root);
  own::managed_ptr<virtual_root> assigned(new virtual_leaf);
  assigned = std::move(leaf);
  EXPECT_EQ(assigned.get(), nullptr);
  EXPECT_EQ(tracked::live(), 0);
  own::managed_ptr<const virtual_leaf> constant(std::move(leaf));  // a conversion that copies the word
  EXPECT_EQ(constant.get(), nullptr);
#ifndef OWN_CHECKED  // where checked builds abort (ManagedPtrCheckedDeathTest), unchecked ones see null
  EXPECT_EQ(constant.operator->(), nullptr);  // a mistaken use after move, not a stale pointer
#endif
}

// An object whose destructor looks at the managed_ptr that held it, to see when it runs.
struct watcher {
  own::managed_ptr<watcher>* holder = nullptr;
  watcher** seen_by_destructor = nullptr;
  ~watcher() { *seen_by_destructor = holder->get(); }
};

TEST(ManagedPtr, MoveAssignment) {
  {  // the old object is disposed of once, after the target already holds the new one
    watcher* seen = nullptr;
    own::managed_ptr<watcher> target(new watcher);
    target->holder = &target;
    target->seen_by_destructor = &seen;
    auto* incoming = new watcher{&target, &seen};
    own::managed_ptr<watcher> source(incoming);
    target = std::move(source);
    EXPECT_EQ(seen, incoming);
    EXPECT_EQ(target.get(), incoming);
    seen = nullptr;
    source = std::move(target);  // into an empty managed_ptr: nothing is disposed of
    EXPECT_EQ(seen, nullptr);
    incoming->holder = &source;
  }
  {  // self-move keeps the object; moved-from is empty in every observer
    own::managed_ptr<tracked> p(new tracked(3));
    own::managed_ptr<tracked>& alias = p;
    p = std::move(alias);
    ASSERT_TRUE(p);
    EXPECT_EQ(p->value(), 3);
    EXPECT_EQ(tracked::live(), 1);
    own::managed_ptr<tracked> q(std::move(p));
    EXPECT_EQ(p.get(), nullptr);
    EXPECT_FALSE(p);
    EXPECT_EQ(p.get_deleter().object(), nullptr);
    p = std::move(q);
    EXPECT_EQ(q.get(), nullptr);
    EXPECT_EQ(tracked::live(), 1);
  }
  EXPECT_EQ(tracked::live(), 0);
  {  // a converting move adjusts the pointer and still destroys the complete object
    auto* whole = new two_bases;
    own::managed_ptr<two_bases> d(whole);
    own::managed_ptr<second> s;
    s = std::move(d);
    EXPECT_EQ(s.get(), static_cast<second*>(whole));
    EXPECT_NE(static_cast<void*>(s.get()), static_cast<void*>(whole));
    EXPECT_EQ(d.get(), nullptr);
    own::managed_ptr<second> s2(std::move(s));
    EXPECT_EQ(s2->s, 2);
    EXPECT_EQ(tracked::live(), 1);
  }
  EXPECT_EQ(tracked::live(), 0);
  EXPECT_EQ(tracked::double_destroyed(), 0);
}

TEST(ManagedPtr, AliasingDestroysTheOwnerNotTheAlias) {
  struct pair {
    tracked first{1};
    tracked second{2};
  };
  own::managed_ptr<pair> whole(new pair);
  tracked* first = &whole->first;
  tracked* second = &whole->second;
  own::managed_ptr<tracked> part(std::move(whole), second);
  EXPECT_FALSE(whole);
  EXPECT_EQ(part->value(), 2);
  EXPECT_EQ(tracked::live(), 2);
  own::managed_ptr<tracked> other;
  other.reset(std::move(part), first);
  EXPECT_EQ(other->value(), 1);
  other.reset();
  EXPECT_EQ(tracked::live(), 0);
}

#ifndef OWN_CHECKED
// A misuse that checked builds abort on (misuse_test); unchecked ones behave as std::shared_ptr's
// aliasing constructor does.
TEST(ManagedPtr, AliasingAnEmptyPointerShowsThePointerAndOwnsNothing) {
  int x = 3;
  own::managed_ptr<int> empty;
  own::managed_ptr<int> alias(std::move(empty), &x);
  EXPECT_EQ(alias.get(), &x);
  EXPECT_EQ(alias.get_deleter().object(), nullptr);
  own::shared_ptr<int> shared = std::move(alias);
  EXPECT_EQ(shared.get(), &x);
  EXPECT_EQ(shared.use_count(), 0);
}
#endif

TEST(ManagedPtr, ResetForms) {
  own::managed_ptr<tracked> p;
  p.reset(new tracked(1));
  managers::recycler recycler;
  tracked pooled(2);
  p.reset(&pooled, &recycler);
  EXPECT_EQ(tracked::live(), 1);  // the newed one is gone; `pooled` lives on the stack
  int calls = 0;
  p.reset(new tracked(3), &calls, &free_with_cookie);
  EXPECT_EQ(recycler.returned.size(), 1u);
  p.reset();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(tracked::live(), 1);
}

TEST(ManagedPtr, SwapGetDereference) {
  own::managed_ptr<tracked> a(new tracked(1));
  own::managed_ptr<tracked> b(new tracked(2));
  swap(a, b);
  EXPECT_EQ(a->value(), 2);
  EXPECT_EQ((*b).value(), 1);
  a.swap(b);
  EXPECT_EQ(a.get()->value(), 1);
  EXPECT_TRUE(a != b);
}

// As std::unique_ptr's: ordered as std::less orders get() (operator<=> in C++20), nullptr below
// every non-null pointer as std::less has it, and hashed as get(); so a managed_ptr can key a set.
TEST(ManagedPtr, OrderedAndHashedByGet) {
  own::managed_ptr<tracked> a(new tracked(1));
  own::managed_ptr<tracked> b(new tracked(2));
  own::managed_ptr<const tracked> c(new tracked(3));
  own::managed_ptr<tracked> empty;
  const bool a_first = std::less<const tracked*>()(a.get(), b.get());
  EXPECT_EQ(a < b, a_first);
  EXPECT_EQ(b < a, !a_first);
  EXPECT_EQ(a > b, !a_first);
  EXPECT_TRUE(a <= a && a >= a && !(a < a));
  EXPECT_EQ(c < a, std::less<const tracked*>()(c.get(), a.get()));  // mixed types: the common pointer
  EXPECT_EQ(empty < nullptr, false);
  EXPECT_EQ(nullptr < a, std::less<tracked*>()(nullptr, a.get()));
  EXPECT_EQ(a > nullptr, std::less<tracked*>()(nullptr, a.get()));
  EXPECT_TRUE(empty <= nullptr && empty >= nullptr && nullptr <= empty && nullptr >= empty);
#if __cplusplus > 201703L
  EXPECT_TRUE((a <=> a) == 0);
  EXPECT_EQ((a <=> b) < 0, a_first);
  EXPECT_TRUE((empty <=> nullptr) == 0);
#endif
  EXPECT_EQ(std::hash<own::managed_ptr<tracked>>()(a), std::hash<tracked*>()(a.get()));
  EXPECT_EQ(std::hash<own::managed_ptr<tracked>>()(empty), std::hash<tracked*>()(nullptr));

  tracked* const first = a.get();
  std::set<own::managed_ptr<tracked>> ordered;
  ordered.insert(std::move(a));
  ordered.insert(std::move(b));
  EXPECT_EQ(ordered.size(), 2u);
  EXPECT_EQ(ordered.count(own::managed_ptr<tracked>()), 0u);
  std::unordered_set<own::managed_ptr<tracked>> hashed;
  hashed.insert(own::managed_ptr<tracked>(new tracked(4)));
  hashed.insert(own::managed_ptr<tracked>());
  EXPECT_EQ(hashed.size(), 2u);
  EXPECT_EQ(std::count_if(ordered.begin(), ordered.end(), [first](const auto& p) { return p.get() == first; }), 1);
}

TEST(ManagedPtr, ReleaseKeepsTheManagerForLater) {
  managers::recycler recycler;
  tracked pooled(5);
  own::managed_ptr<tracked> p(&pooled, &recycler);
  auto [raw, deleter] = p.release();
  EXPECT_FALSE(p);
  EXPECT_EQ(raw, &pooled);
  EXPECT_TRUE(recycler.returned.empty());
  {
    own::managed_ptr<tracked> resumed(raw, deleter);  // ownership resumed
    EXPECT_EQ(resumed->value(), 5);
  }
  ASSERT_EQ(recycler.returned.size(), 1u);  // returned to its pool, not deleted
  auto [raw2, deleter2] = own::managed_ptr<tracked>(new tracked(6)).release();
  EXPECT_EQ(tracked::live(), 2);
  deleter2();  // or disposed of directly
  EXPECT_EQ(tracked::live(), 1);
  (void)raw2;
  {
    tracked unowned(8);
    own::managed_ptr<tracked> shown(&unowned, own::managed_ptr_deleter());  // resumed with no owner
    EXPECT_EQ(shown.get(), &unowned);
    auto [raw3, deleter3] = shown.release();  // and released again: still no owner
    EXPECT_EQ(raw3, &unowned);
    EXPECT_EQ(deleter3.object(), nullptr);
    own::managed_ptr<tracked> cookie_only(&unowned, own::managed_ptr_deleter(nullptr, &recycler, nullptr));
    EXPECT_EQ(cookie_only.get(), &unowned);  // a deleter with no object owns nothing either
    cookie_only.reset();
    EXPECT_EQ(tracked::live(), 2);  // nothing disposed of
    EXPECT_EQ(recycler.returned.size(), 1u);
  }
}

TEST(ManagedPtr, MakeAndAllocateManaged) {
  auto p = own::make_managed<tracked>(9);
  EXPECT_EQ(p->value(), 9);
  allocation_log log;
  {
    auto a = own::allocate_managed<tracked>(test_allocator<tracked>(&log), 10);
    EXPECT_EQ(log.blocks_in_use(), 1);
    EXPECT_EQ(a->value(), 10);
    own_test::test_resource resource(&log);
    auto r = own::allocate_managed<tracked>(&resource, 11);
    EXPECT_EQ(log.blocks_in_use(), 2);
  }
  EXPECT_EQ(log.blocks_in_use(), 0);
  int runs = own_test::for_each_failure_point(log, [&] { auto q = own::allocate_managed<tracked>(test_allocator<tracked>(&log), 1); });
  EXPECT_EQ(runs, 2);
  runs = own_test::for_each_throwing_construction(log, [&] { auto q = own::allocate_managed<tracked>(test_allocator<tracked>(&log), 1); });
  EXPECT_EQ(runs, 2);
}

// ---------------------------------------------------------------------------------------------
// Conversions with shared_ptr

int use_count_seen(own::managed_ptr<const tracked> p) { return p ? p->value() : -1; }

TEST(ManagedPtrConversion, SharedToManagedTakesOneReferenceAndNoAllocation) {
  allocation_log log;
  auto shared = own::allocate_shared<tracked>(test_allocator<tracked>(&log), 12);
  const long allocations = log.allocations;
  {
    own::managed_ptr<const tracked> m = shared;
    EXPECT_EQ(shared.use_count(), 2);
    EXPECT_EQ(m.get(), shared.get());
    EXPECT_EQ(log.allocations, allocations);
  }
  EXPECT_EQ(shared.use_count(), 1);
  EXPECT_EQ(use_count_seen(shared), 12);  // the implicit conversion at a call
  own::managed_ptr<tracked> moved = std::move(shared);  // moving takes the reference over
  EXPECT_FALSE(shared);
  EXPECT_EQ(log.allocations, allocations);
  moved.reset();
  EXPECT_EQ(tracked::live(), 0);
  EXPECT_EQ(log.blocks_in_use(), 0);
}

TEST(ManagedPtrConversion, RoundTripRecoversTheControlBlock) {
  allocation_log log;
  auto shared = own::allocate_shared<tracked>(test_allocator<tracked>(&log), 13);
  own::weak_ptr<tracked> weak = shared;
  const long allocations = log.allocations;
  own::managed_ptr<tracked> m = shared;
  own::shared_ptr<tracked> back = std::move(m);
  EXPECT_FALSE(m);
  EXPECT_EQ(log.allocations, allocations);  // no allocation
  EXPECT_TRUE(back.owner_equal(shared));    // same owner
  EXPECT_TRUE(back.owner_equal(weak));
  EXPECT_EQ(back.use_count(), 2);           // exactly as one copy
  EXPECT_EQ(back.get(), shared.get());
  own::shared_ptr<tracked> assigned;
  own::managed_ptr<tracked> m2 = std::move(back);
  assigned = std::move(m2);
  EXPECT_EQ(assigned.use_count(), 2);
  shared.reset();
  assigned.reset();
  EXPECT_TRUE(weak.expired());
  weak.reset();
  EXPECT_EQ(log.blocks_in_use(), 0);
}

TEST(ManagedPtrConversion, SharedOwnerOfNullKeepsItsReference) {
  int calls = 0;
  own::shared_ptr<int> s(nullptr, [&](std::nullptr_t) { ++calls; });
  {
    own::managed_ptr<int> m = s;
    EXPECT_FALSE(m);  // shows null, yet holds a reference
    EXPECT_EQ(s.use_count(), 2);
    own::shared_ptr<int> back = std::move(m);
    EXPECT_TRUE(back.owner_equal(s));
    EXPECT_EQ(s.use_count(), 2);
  }
  EXPECT_EQ(s.use_count(), 1);
  s.reset();
  EXPECT_EQ(calls, 1);
}

TEST(ManagedPtrConversion, PointerWithoutOwnerSurvivesBothWays) {
  int value = 7;
  own::shared_ptr<int> unowned(own::shared_ptr<int>(), &value);  // shows a pointer, owns nothing
  allocation_log log;
  own::managed_ptr<int> m = unowned;
  EXPECT_EQ(m.get(), &value);
  EXPECT_TRUE(m);
  EXPECT_EQ(m.get_deleter().object(), nullptr);  // owns nothing, so nothing to hand over
  EXPECT_EQ(m.get_deleter().function(), nullptr);
  own::managed_ptr<int> moved = std::move(m);
  EXPECT_EQ(m.get(), nullptr);
  EXPECT_EQ(moved.get(), &value);
  own::shared_ptr<int> back(std::move(moved), test_allocator<int>(&log));
  EXPECT_EQ(back.get(), &value);
  EXPECT_EQ(back.use_count(), 0);  // still no owner: nothing was housed
  EXPECT_EQ(log.allocations.load(), 0);
}

TEST(ManagedPtrConversion, AliasesSurviveBothWays) {
  auto whole = own::make_shared<std::pair<tracked, tracked>>(tracked(1), tracked(2));
  own::shared_ptr<tracked> second(whole, &whole->second);
  own::managed_ptr<const tracked> m = second;
  EXPECT_EQ(m->value(), 2);
  own::shared_ptr<const tracked> back = std::move(m);
  EXPECT_EQ(back.get(), &whole->second);
  EXPECT_TRUE(back.owner_equal(whole));

  own::managed_ptr<std::pair<tracked, tracked>> owner(new std::pair<tracked, tracked>(tracked(3), tracked(4)));
  tracked* first = &owner->first;
  own::managed_ptr<tracked> alias(std::move(owner), first);
  own::shared_ptr<tracked> housed = std::move(alias);
  EXPECT_EQ(housed->value(), 3);
  EXPECT_EQ(tracked::live(), 4);
  housed.reset();
  EXPECT_EQ(tracked::live(), 2);  // the whole pair went, through its original owner
}

TEST(ManagedPtrConversion, OtherOwnersAreHousedInOneAllocationFromTheAllocator) {
  allocation_log log;
  managers::recycler recycler;
  tracked pooled(8);
  {
    own::managed_ptr<tracked> m(&pooled, &recycler);
    own::shared_ptr<tracked> s(std::move(m), test_allocator<int>(&log));
    EXPECT_EQ(log.allocations, 1);
    EXPECT_EQ(s.use_count(), 1);
    EXPECT_EQ(s.get(), &pooled);
    auto* d = own::get_deleter<own::managed_ptr_deleter>(s);
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(d->cookie(), &recycler);
    own::shared_ptr<tracked> copy = s;
    s.reset();
    EXPECT_TRUE(recycler.returned.empty());
  }
  ASSERT_EQ(recycler.returned.size(), 1u);
  EXPECT_EQ(log.blocks_in_use(), 0);
  own::shared_ptr<tracked> empty = own::managed_ptr<tracked>();
  EXPECT_EQ(empty.use_count(), 0);
}

TEST(ManagedPtrConversion, InternalsFindNoUserFunctionsOfTheSameNames) {
  own::managed_ptr<base> m(new derived);
  own::managed_ptr<base> moved = std::move(m);
  own::shared_ptr<base> s(std::move(moved), local_allocator<int>());
  EXPECT_EQ(s->b, 1);
  EXPECT_EQ(s.use_count(), 1);
}

TEST(ManagedPtrConversion, HousingFailureLeavesTheManagedPtrOwning) {
  allocation_log log;
  own::managed_ptr<tracked> m(new tracked(1));
  tracked* raw = m.get();
  log.throw_at = log.attempts + 1;
  EXPECT_THROW((own::shared_ptr<tracked>(std::move(m), test_allocator<int>(&log))), std::bad_alloc);
  EXPECT_EQ(m.get(), raw);  // unchanged: still owns its object
  EXPECT_EQ(tracked::live(), 1);
  int runs = own_test::for_each_failure_point(log, [&] {
    own::managed_ptr<tracked> local(new tracked(2));
    own::shared_ptr<tracked> s(std::move(local), test_allocator<int>(&log));
  });
  EXPECT_EQ(runs, 2);
  m.reset();
  EXPECT_EQ(tracked::live(), 0);
}

// As from a unique_ptr: the housed object's enable_shared_from_this base learns its owner.
struct self_aware : own::enable_shared_from_this<self_aware>, tracked {
  explicit self_aware(int v) : tracked(v) {}
};

TEST(ManagedPtrConversion, HousedObjectIsHookedToEnableSharedFromThis) {
  own::managed_ptr<self_aware> m(new self_aware(1));
  EXPECT_THROW(m->shared_from_this(), std::bad_weak_ptr);
  own::shared_ptr<self_aware> s = std::move(m);
  own::shared_ptr<self_aware> self = s->shared_from_this();
  EXPECT_TRUE(self.owner_equal(s));
  EXPECT_EQ(s.use_count(), 2);
  own::managed_ptr<tracked> base = s;  // a round trip through a base keeps the hook as it is
  own::shared_ptr<tracked> back = std::move(base);
  EXPECT_TRUE(back.owner_equal(self));
  s.reset();
  self.reset();
  back.reset();
  EXPECT_EQ(tracked::live(), 0);
}

// A managed_ptr made from a shared_ptr gives that block back as it was: an array's element, or an
// object an aliasing shared_ptr points at, is not hooked to it on the way (std never hooks them).
struct hookable : own::enable_shared_from_this<hookable> {};
struct holds_hookable {
  hookable inner;
};

TEST(ManagedPtrConversion, BlockGivenBackHooksNothing) {
  own::shared_ptr<hookable[]> array = own::make_shared<hookable[]>(2);
  own::managed_ptr<hookable> element = own::shared_ptr<hookable>(array, &array[0]);
  own::shared_ptr<hookable> back = std::move(element);
  EXPECT_TRUE(back.owner_equal(array));
  EXPECT_EQ(array.use_count(), 2);
  EXPECT_TRUE(array[0].weak_from_this().expired());
  EXPECT_THROW(array[0].shared_from_this(), std::bad_weak_ptr);

  own::shared_ptr<holds_hookable> outer = own::make_shared<holds_hookable>();
  own::managed_ptr<hookable> inner = own::shared_ptr<hookable>(outer, &outer->inner);
  own::shared_ptr<hookable> again = std::move(inner);
  EXPECT_TRUE(again.owner_equal(outer));
  EXPECT_TRUE(outer->inner.weak_from_this().expired());
}

TEST(ManagedPtrConversion, MakeManagedConvertsToSharedForFree) {
  allocation_log log;
  auto m = own::allocate_managed<tracked>(test_allocator<tracked>(&log), 3);
  own::shared_ptr<tracked> s = std::move(m);
  EXPECT_EQ(log.allocations, 1);
  EXPECT_EQ(s.use_count(), 1);
}

// ---------------------------------------------------------------------------------------------
// Threads: a managed_ptr made on one thread and dropped on another (TSan in CI)

TEST(ManagedPtrThreads, MovedAcrossThreadsDestroyedOnce) {
  constexpr int count = 20000;
  std::vector<own::managed_ptr<tracked>> made;
  auto shared = own::make_shared<tracked>(1);
  for (int i = 0; i < count; ++i) {
    if (i % 2) {
      made.emplace_back(new tracked(i));
    } else {
      made.emplace_back(shared);
    }
  }
  std::thread consumer([batch = std::move(made)]() mutable {
    for (auto& p : batch) {
      own::shared_ptr<tracked> s = std::move(p);  // half round-trip, half housed
      EXPECT_GE(s->value(), 0);
    }
  });
  consumer.join();
  EXPECT_EQ(shared.use_count(), 1);
  shared.reset();
  EXPECT_EQ(tracked::live(), 0);
}

#ifdef OWN_CHECKED
TEST(ManagedPtrCheckedDeathTest, DereferencingEmptyAborts) {
  own::managed_ptr<int> p;
  EXPECT_DEATH((void)*p, "dereferencing an empty own::managed_ptr");
  own::managed_ptr<tracked> q;
  EXPECT_DEATH((void)q->value(), "dereferencing an empty own::managed_ptr");
  own::managed_ptr<tracked> moved_from(new tracked(1));
  own::managed_ptr<tracked> taker = std::move(moved_from);
  EXPECT_DEATH((void)moved_from->value(), "dereferencing an empty own::managed_ptr");
}

void dispose_int(int* p, void*) { delete p; }

TEST(ManagedPtrCheckedDeathTest, NullDeleterFunctionAborts) {
  using function = void (*)(int*, void*);
  void* const no_cookie = nullptr;
  EXPECT_DEATH({ own::managed_ptr<int> p(new int(1), no_cookie, function(nullptr)); },
               "own::managed_ptr: a null deleter function for a non-null pointer");
  int x = 0;
  EXPECT_DEATH({ own::managed_ptr<int> p(&x, own::managed_ptr_deleter(&x, nullptr, nullptr)); },
               "own::managed_ptr: a null deleter function for a non-null pointer");
  // Null pointers with no function, and a real function, are fine.
  own::managed_ptr<int> none(static_cast<int*>(nullptr), no_cookie, function(nullptr));
  EXPECT_FALSE(none);
  own::managed_ptr<int> owned(new int(2), no_cookie, &dispose_int);
  EXPECT_EQ(*owned, 2);
}
#endif

}  // namespace
