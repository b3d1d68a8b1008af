// SPDX-License-Identifier: BSL-1.0
// Tests of <own/local_shared_ptr.hpp>: the shared_ptr interface over non-atomic local counts,
// conversions to and from own::shared_ptr, local_weak_ptr, allocation counts and exception safety.
#include <own/local_shared_ptr.hpp>

#include <gtest/gtest.h>

#include <cassert>
#include <atomic>
#include <memory_resource>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_set>
#include <utility>
#include <vector>

#include "generic_code_probe.hpp"
#include "test_allocator.hpp"
#include "tracked.hpp"

using own_test::allocation_log;
using own_test::test_allocator;
using own_test::tracked;

namespace {

TEST(LocalSharedPtrUsage, HeaderExampleRuns) {
  own::local_shared_ptr<std::string> name = own::make_local_shared<std::string>("sensor-7");
  own::local_shared_ptr<std::string> copy = name;  // a plain increment
  own::local_weak_ptr<std::string> watcher = name;
  own::shared_ptr<std::string> shared = name;  // one atomic increment
  std::thread([shared] { assert(*shared == "sensor-7"); }).join();
  name.reset();
  copy.reset();                                             // the group is gone...
  assert(watcher.lock() && *watcher.lock() == "sensor-7");  // ...but `shared` kept the object

  EXPECT_EQ(*watcher.lock(), "sensor-7");
  shared.reset();
  EXPECT_TRUE(watcher.expired());
}

TEST(LocalSharedPtrLayout, TwoPointersAndOneAllocation) {
  static_assert(sizeof(own::local_shared_ptr<int>) == 2 * sizeof(void*));
  static_assert(sizeof(own::local_weak_ptr<int>) == 2 * sizeof(void*));
  static_assert(sizeof(own::detail::local_counts) == 32);
  allocation_log log;
  {
    auto p = own::allocate_local_shared<std::int64_t>(test_allocator<std::int64_t>(&log), 5);
    EXPECT_EQ(log.allocations.load(), 1);
    // atomic header + local counts + object + the allocator's pointer
    EXPECT_EQ(log.bytes_in_use.load(), 16 + 32 + 8 + 8);
    // What a pool for these blocks is sized by.
    EXPECT_EQ(log.bytes_in_use.load(),
              static_cast<long>(own::local_housed_block_size<std::int64_t, test_allocator<std::int64_t>>));
    EXPECT_EQ(*p, 5);
  }
  EXPECT_EQ(log.blocks_in_use(), 0);
}

// ---------------------------------------------------------------------------------------------
// Local groups

TEST(LocalSharedPtr, EmptyStates) {
  own::local_shared_ptr<int> a;
  own::local_shared_ptr<int> b = nullptr;
  EXPECT_FALSE(a);
  EXPECT_EQ(a.get(), nullptr);
  EXPECT_EQ(a.use_count(), 0);
  EXPECT_TRUE(a == b);
  EXPECT_TRUE(a == nullptr);
  own::shared_ptr<int> s = a;
  EXPECT_FALSE(s);
  EXPECT_EQ(s.use_count(), 0);
}

TEST(LocalSharedPtr, CopiesCountLocallyAndTouchNoAtomicCount) {
  auto a = own::make_local_shared<tracked>(3);
  own::shared_ptr<tracked> global = a;  // the group holds 1, `global` 1
  EXPECT_EQ(global.use_count(), 2);
  {
    std::vector<own::local_shared_ptr<tracked>> copies(10, a);
    EXPECT_EQ(a.use_count(), 11);
    EXPECT_EQ(global.use_count(), 2);  // local copies never reach the atomic count
  }
  EXPECT_EQ(a.use_count(), 1);
  own::local_shared_ptr<tracked> moved = std::move(a);
  EXPECT_FALSE(a);
  EXPECT_EQ(moved.use_count(), 1);
  EXPECT_EQ(moved->value(), 3);
  EXPECT_EQ((*moved).value(), 3);
}

TEST(LocalSharedPtr, DestroysOnceWhenTheLastOwnerGoes) {
  const long destroyed = tracked::destroyed();
  {
    auto a = own::make_local_shared<tracked>(1);
    auto b = a;
    a.reset();
    EXPECT_EQ(tracked::destroyed(), destroyed);
  }
  EXPECT_EQ(tracked::destroyed(), destroyed + 1);
  EXPECT_EQ(tracked::live(), 0);
}

TEST(LocalSharedPtr, SharedPtrMadeFromTheGroupOutlivesIt) {
  own::shared_ptr<tracked> global;
  {
    auto a = own::make_local_shared<tracked>(4);
    global = a;
  }
  EXPECT_EQ(tracked::live(), 1);
  EXPECT_EQ(global.use_count(), 1);
  std::thread([global] { EXPECT_EQ(global->value(), 4); }).join();
  global.reset();
  EXPECT_EQ(tracked::live(), 0);
}

TEST(LocalSharedPtr, FromSharedPtr) {
  allocation_log log;
  auto global = own::allocate_shared<tracked>(test_allocator<tracked>(&log), 6);
  {
    own::local_shared_ptr<tracked> a = global;  // lvalue: one atomic increment
    EXPECT_EQ(global.use_count(), 2);
    own::local_shared_ptr<const tracked> b = own::shared_ptr<tracked>(global);  // rvalue: its reference
    EXPECT_EQ(global.use_count(), 3);
    EXPECT_EQ(a.get(), global.get());
    EXPECT_TRUE(a.owner_equal(global));
    EXPECT_TRUE(b.owner_equal(a));
    EXPECT_FALSE(a.owner_before(b) || b.owner_before(a));
  }
  EXPECT_EQ(global.use_count(), 1);
  own::shared_ptr<tracked> moved_from = global;
  own::local_shared_ptr<tracked> c = std::move(moved_from);
  EXPECT_FALSE(moved_from);
  EXPECT_EQ(global.use_count(), 2);
  c.reset();
  global.reset();
  EXPECT_EQ(log.blocks_in_use(), 0);
  EXPECT_EQ(tracked::live(), 0);
}

TEST(LocalSharedPtr, FromEmptySharedPtrAllocatesNothing) {
  own::shared_ptr<int> empty;
  own::local_shared_ptr<int> a = empty;
  EXPECT_FALSE(a);
  EXPECT_EQ(a.use_count(), 0);
  int x = 0;
  own::shared_ptr<int> aliased_empty(own::shared_ptr<int>(), &x);  // get() != nullptr, no owner
  own::local_shared_ptr<int> b = std::move(aliased_empty);
  EXPECT_EQ(b.get(), &x);
  EXPECT_EQ(b.use_count(), 0);
  own::shared_ptr<int> back = b;
  EXPECT_EQ(back.get(), &x);
  EXPECT_EQ(back.use_count(), 0);
}

TEST(LocalSharedPtr, AdoptsRawPointersWithDeleterAndAllocator) {
  allocation_log log;
  int deletions = 0;
  {
    own::local_shared_ptr<tracked> a(new tracked(1));
    own::local_shared_ptr<tracked> b(new tracked(2), [&](tracked* p) {
      ++deletions;
      delete p;
    });
    own::local_shared_ptr<tracked> c(new tracked(3), own::default_deleter(), test_allocator<int>(&log));
    EXPECT_EQ(log.blocks_in_use(), 1);
    std::pmr::monotonic_buffer_resource arena;
    own::local_shared_ptr<tracked> d(new tracked(4), own::default_deleter(), &arena);
    EXPECT_EQ(tracked::live(), 4);
    EXPECT_EQ(a->value() + b->value() + c->value() + d->value(), 10);
    EXPECT_NE(own::get_deleter<own::default_deleter>(own::shared_ptr<tracked>(c)), nullptr);
  }
  EXPECT_EQ(deletions, 1);
  EXPECT_EQ(log.blocks_in_use(), 0);
  EXPECT_EQ(tracked::live(), 0);
}

// As shared_ptr's: a generic lambda is a deleter for the Y* forms, though it cannot take a nullptr_t.
TEST(LocalSharedPtr, GenericLambdaDeleter) {
  allocation_log log;
  int deleted = 0;
  auto del = [&](auto p) {
    ++deleted;
    delete p;
  };
  static_assert(std::is_constructible_v<own::local_shared_ptr<int>, int*, decltype(del)>);
  // Declared deleted for a short error, but still not constructible: another pointer type, a
  // deleter that cannot take it.
  static_assert(!std::is_constructible_v<own::local_shared_ptr<int>, long*> &&
                !std::is_constructible_v<own::local_shared_ptr<int>, long*, decltype(del)> &&
                !std::is_constructible_v<own::local_shared_ptr<int>, int*, void (*)(long*)> &&
                !std::is_constructible_v<own::local_shared_ptr<int>, int*, void (*)(long*), std::allocator<int>>);
  {
    own::local_shared_ptr<int> l(new int(1), del);
    l.reset(new int(2), del);
    EXPECT_EQ(deleted, 1);
    own::local_shared_ptr<int> m(new int(3), del, test_allocator<int>(&log));
    m.reset(new int(4), del, test_allocator<int>(&log));
    EXPECT_EQ(*l + *m, 6);
  }
  EXPECT_EQ(deleted, 4);
  EXPECT_EQ(log.blocks_in_use(), 0);
}

// Boost's get_pointer(p), p.get(), found by argument-dependent lookup (this file has no using-
// declaration for it), also from generic code.
TEST(LocalSharedPtr, GetPointerFoundByArgumentDependentLookup) {
  auto p = own::make_local_shared<int>(4);
  int* raw = get_pointer(p);
  EXPECT_EQ(raw, p.get());
  static_assert(noexcept(get_pointer(p)));
  own::local_shared_ptr<const int> c = p;
  static_assert(std::is_same_v<decltype(get_pointer(c)), const int*>);
  EXPECT_EQ(*own_test::generic_code::raw_of(c), 4);
  own::local_shared_ptr<int[]> a = own::make_shared<int[]>(3, 5);
  static_assert(std::is_same_v<decltype(get_pointer(a)), int*>);
  EXPECT_EQ(get_pointer(a)[2], 5);
  EXPECT_EQ(get_pointer(own::local_shared_ptr<int>()), nullptr);
}

// Boost's hash_value(p), found by argument-dependent lookup: std::hash's value, the hash of get().
TEST(LocalSharedPtr, HashValueFoundByArgumentDependentLookup) {
  auto p = own::make_local_shared<int>(4);
  static_assert(std::is_same_v<decltype(hash_value(p)), std::size_t>);
  static_assert(noexcept(hash_value(p)));
  EXPECT_EQ(hash_value(p), std::hash<own::local_shared_ptr<int>>()(p));
  EXPECT_EQ(hash_value(p), std::hash<int*>()(p.get()));
  own::local_shared_ptr<const int> c = p;
  EXPECT_EQ(own_test::generic_code::hash_of(c), std::hash<const int*>()(p.get()));
  EXPECT_EQ(hash_value(own::local_shared_ptr<int>()), std::hash<int*>()(nullptr));
}

// [util.smartptr.shared.general]: T may be void (or cv void). The members that would need a void&,
// operator* and operator[], are not there; every other conversion and observer is.
TEST(LocalSharedPtr, VoidOwners) {
  own::local_shared_ptr<void> empty;
  EXPECT_FALSE(empty);
  EXPECT_EQ(empty.use_count(), 0);
  {
    own::local_shared_ptr<void> p = own::make_local_shared<tracked>(1);
    own::local_shared_ptr<const void> c = p;
    own::local_shared_ptr<void> q(new tracked(2));
    own::local_shared_ptr<void> r = own::shared_ptr<void>(own::make_shared<tracked>(3));
    own::local_weak_ptr<void> w = p;
    own::shared_ptr<const void> global = c;
    EXPECT_EQ(p.use_count(), 2);
    EXPECT_EQ(c.get(), p.get());
    EXPECT_EQ(w.lock(), p);
    EXPECT_TRUE(global.owner_equal(own::shared_ptr<void>(p)));
    EXPECT_EQ(own::static_pointer_cast<tracked>(q)->value(), 2);
    EXPECT_EQ(own::static_pointer_cast<const tracked>(r)->value(), 3);
    EXPECT_EQ(tracked::live(), 3);
    p.reset();
    c.reset();
    EXPECT_FALSE(w.expired());  // `global` still owns it
  }
  EXPECT_EQ(tracked::live(), 0);
}

void no_op(int*) {}

// shared_ptr's (nullptr_t, D) and (nullptr_t, D, A) forms ([util.smartptr.shared.const]): a group
// that owns a null pointer, use_count() 1, and calls d(nullptr) once, when the last owner (local or
// made from it) goes. A literal 0 is a null pointer constant too; a deleter that cannot take a
// nullptr_t is rejected.
TEST(LocalSharedPtr, NullptrWithDeleter) {
  allocation_log log;
  int calls = 0;
  auto del = [&](auto p) {
    ++calls;
    if constexpr (!std::is_null_pointer_v<decltype(p)>) delete p;
  };
  auto pointers_only = [](auto* p) { delete p; };
  static_assert(!std::is_constructible_v<own::local_shared_ptr<int>, std::nullptr_t, decltype(pointers_only)>);
  static_assert(
      !std::is_constructible_v<own::local_shared_ptr<int>, std::nullptr_t, decltype(pointers_only), std::allocator<int>>);
  {
    own::local_shared_ptr<int> l(nullptr, no_op);
    EXPECT_EQ(l.use_count(), 1);
    EXPECT_EQ(l.get(), nullptr);
    EXPECT_FALSE(l);
    EXPECT_NE(own::get_deleter<void (*)(int*)>(own::shared_ptr<int>(l)), nullptr);
    own::local_shared_ptr<int> zero(0, del);
    own::local_shared_ptr<void> v(nullptr, del, test_allocator<int>(&log));
    EXPECT_EQ(zero.use_count() + v.use_count(), 2);
    EXPECT_EQ(log.blocks_in_use(), 1);
    own::shared_ptr<int> global = zero;
    zero.reset();
    EXPECT_EQ(calls, 0);  // `global` still owns the null pointer
    global.reset();
    EXPECT_EQ(calls, 1);
  }
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(log.blocks_in_use(), 0);
}

// Boost's local_shared_ptr interface beyond std's shared_ptr: get_deleter, comparison with shared_ptr
// (by get()), operator<< (os << p.get()).
TEST(LocalSharedPtr, GetDeleterFindsTheControlBlocksDeleter) {
  struct counting_deleter {
    int* count;
    void operator()(int* p) const {
      ++*count;
      delete p;
    }
  };
  int deleted = 0;
  {
    own::local_shared_ptr<int> a(new int(1), counting_deleter{&deleted});
    ASSERT_NE(own::get_deleter<counting_deleter>(a), nullptr);
    EXPECT_EQ(own::get_deleter<counting_deleter>(a)->count, &deleted);
    EXPECT_EQ(own::get_deleter<own::default_deleter>(a), nullptr);  // only the exact type
    static_assert(noexcept(own::get_deleter<counting_deleter>(a)));
    own::local_shared_ptr<const void> alias(a, a.get());
    EXPECT_EQ(own::get_deleter<counting_deleter>(alias), own::get_deleter<counting_deleter>(a));
    own::local_shared_ptr<int> from_global = own::shared_ptr<int>(new int(2), counting_deleter{&deleted});
    EXPECT_NE(own::get_deleter<counting_deleter>(from_global), nullptr);
  }
  EXPECT_EQ(deleted, 2);
  EXPECT_EQ(own::get_deleter<counting_deleter>(own::local_shared_ptr<int>()), nullptr);
  EXPECT_EQ(own::get_deleter<own::default_deleter>(own::make_local_shared<int>(3)), nullptr);
}

TEST(LocalSharedPtr, ComparesWithSharedPtrAndStreams) {
  auto a = own::make_local_shared<int>(1);
  own::shared_ptr<const int> global = a;
  auto other = own::make_shared<int>(2);
  EXPECT_TRUE(a == global);
  EXPECT_TRUE(global == a);
  EXPECT_FALSE(a != global);
  EXPECT_FALSE(global != a);
  EXPECT_TRUE(a != other);
  EXPECT_TRUE(other != a);
  EXPECT_TRUE(own::local_shared_ptr<int>() == own::shared_ptr<void>());
#if OWN_THREE_WAY_COMPARISON
  EXPECT_EQ(a <=> global, std::strong_ordering::equal);
  EXPECT_EQ(a <=> other, std::compare_three_way()(a.get(), other.get()));
  EXPECT_EQ(other < a, std::less<>()(other.get(), a.get()));
#endif
  std::ostringstream local_text;
  std::ostringstream global_text;
  local_text << a;
  global_text << global;
  EXPECT_EQ(local_text.str(), global_text.str());
}

// make_shared's array forms ([util.smartptr.shared.create]) for a local group: value-initialised
// elements or copies of an initial value (itself an array for arrays of arrays), default-initialised
// for _for_overwrite, no copy needed without an initial value; one allocation for the elements and
// the group's counts; a shared_ptr made from the group keeps the elements.
TEST(LocalSharedPtr, ArrayFactories) {
  auto a = own::make_local_shared<int[]>(5);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(a[i], 0);
  EXPECT_EQ(a.use_count(), 1);
  auto b = own::make_local_shared<int[]>(3, 42);
  EXPECT_EQ(b[0] + b[2], 84);
  auto c = own::make_local_shared<double[4]>();
  EXPECT_EQ(c[3], 0.0);
  auto d = own::make_local_shared<long[2]>(7L);
  EXPECT_EQ(d[0] + d[1], 14);
  auto e = own::make_local_shared<int[][2]>(3, {1, 2});
  EXPECT_EQ(e[0][0] + e[1][1] + e[2][0], 1 + 2 + 1);
  auto f = own::make_local_shared<int[2][2]>({5, 6});
  EXPECT_EQ(f[1][1], 6);
  auto g = own::make_local_shared<std::mutex[]>(2);
  g[1].lock();
  g[1].unlock();
  auto h = own::make_local_shared_for_overwrite<int[]>(3);
  auto i = own::make_local_shared_for_overwrite<std::mutex[2]>();
  h[2] = 9;
  EXPECT_EQ(h[2], 9);
  i[0].lock();
  i[0].unlock();

  allocation_log log;
  {
    auto j = own::allocate_local_shared<tracked[]>(test_allocator<int>(&log), 3);
    EXPECT_EQ(log.allocations.load(), 1);
    EXPECT_EQ(tracked::live(), 3);
    auto k = own::allocate_local_shared<tracked[2]>(test_allocator<int>(&log), tracked(7));
    EXPECT_EQ(k[0].value() + k[1].value(), 14);
    auto l = own::allocate_local_shared<int[]>(test_allocator<int>(&log), 2, 5);
    auto m = own::allocate_local_shared<std::atomic<int>[3]>(test_allocator<int>(&log));
    EXPECT_EQ(l[1] + m[0].load() + m[2].load(), 5);
    auto n = own::allocate_local_shared_for_overwrite<int[]>(test_allocator<int>(&log), 2);
    auto o = own::allocate_local_shared_for_overwrite<long[2]>(test_allocator<int>(&log));
    n[1] = 1;
    o[1] = 2;
    EXPECT_EQ(n[1] + o[1], 3);
    EXPECT_EQ(log.allocations.load(), 6);
    own::shared_ptr<const tracked[]> global = j;
    j.reset();
    EXPECT_EQ(tracked::live(), 5);  // `global` keeps the three elements
    EXPECT_EQ(global[2].value(), 0);
  }
  EXPECT_EQ(tracked::live(), 0);
  EXPECT_EQ(log.blocks_in_use(), 0);
  // Strong guarantee: a throwing element constructor destroys those made and frees the block.
  EXPECT_EQ(own_test::for_each_throwing_construction(
                log, [&] { own::allocate_local_shared<tracked[]>(test_allocator<int>(&log), 3); }),
            4);
  EXPECT_EQ(own_test::for_each_throwing_construction(log, [&] { own::make_local_shared<tracked[2]>(tracked(1)); }), 4);
}

TEST(LocalSharedPtr, FromUniquePtr) {
  own::local_shared_ptr<tracked> a(std::make_unique<tracked>(8));
  EXPECT_EQ(a->value(), 8);
  own::local_shared_ptr<tracked> empty(std::unique_ptr<tracked>{});
  EXPECT_FALSE(empty);
  a = std::make_unique<tracked>(9);
  EXPECT_EQ(a->value(), 9);
  EXPECT_EQ(tracked::live(), 1);
}

TEST(LocalSharedPtr, ArraysThroughSharedPtr) {
  own::local_shared_ptr<int[]> a = own::make_shared<int[]>(4, 7);
  EXPECT_EQ(a[0] + a[3], 14);
  own::local_shared_ptr<int[]> b(new int[2]{1, 2});
  EXPECT_EQ(b[1], 2);
}

struct outer : tracked {
  explicit outer(int v) : tracked(v), inner(v * 10) {}
  int inner;
};
struct outer_sibling : tracked {};  // what a dynamic cast of an outer must not find

// Boost's local_shared_ptr converts to weak_ptr<Y> wherever it converts to shared_ptr<Y>: the weak_ptr
// observes the object's control block, so it expires only when no owner, local or global, is left.
TEST(LocalSharedPtr, ConvertsToWeakPtr) {
  static_assert(std::is_convertible_v<own::local_shared_ptr<outer>, own::weak_ptr<tracked>>);
  static_assert(noexcept(own::weak_ptr<tracked>(std::declval<const own::local_shared_ptr<outer>&>())));
  static_assert(std::is_convertible_v<own::local_shared_ptr<int>, own::weak_ptr<const void>>);
  static_assert(!std::is_convertible_v<own::local_shared_ptr<tracked>, own::weak_ptr<outer>>);
  static_assert(!std::is_convertible_v<own::local_shared_ptr<int>, own::weak_ptr<long>>);
  own::weak_ptr<tracked> w;
  {
    auto a = own::make_local_shared<outer>(4);
    w = a;
    own::weak_ptr<const void> v(a);
    EXPECT_EQ(w.lock().get(), a.get());
    EXPECT_TRUE(w.owner_equal(v));
    EXPECT_TRUE(a.owner_equal(w.lock()));
    own::shared_ptr<tracked> global = w.lock();
    a.reset();
    EXPECT_FALSE(w.expired());  // `global` owns it
  }
  EXPECT_TRUE(w.expired());
  own::weak_ptr<int> empty = own::local_shared_ptr<int>();
  EXPECT_TRUE(empty.expired());
}

TEST(LocalSharedPtr, AliasingAndCasts) {
  auto o = own::make_local_shared<outer>(2);
  own::local_shared_ptr<int> inner(o, &o->inner);
  EXPECT_EQ(o.use_count(), 2);
  own::local_shared_ptr<tracked> base = o;
  auto back = own::static_pointer_cast<outer>(base);
  auto dyn = own::dynamic_pointer_cast<outer>(base);
  auto konst = own::const_pointer_cast<const outer>(back);
  auto bytes = own::reinterpret_pointer_cast<const char>(o);
  EXPECT_EQ(back.get(), o.get());
  EXPECT_EQ(dyn.get(), o.get());
  EXPECT_EQ(konst.get(), o.get());
  EXPECT_EQ(static_cast<const void*>(bytes.get()), static_cast<const void*>(o.get()));
  o.reset();
  back.reset();
  dyn.reset();
  konst.reset();
  bytes.reset();
  base.reset();
  EXPECT_EQ(*inner, 20);  // `inner` keeps the outer object
  EXPECT_EQ(tracked::live(), 1);
  own::shared_ptr<int> global = inner;  // an aliased group converts with its pointer
  EXPECT_EQ(*global, 20);
  inner.reset();
  own::local_shared_ptr<int> moved(std::move(inner), nullptr);
  EXPECT_FALSE(moved);
  global.reset();
  EXPECT_EQ(tracked::live(), 0);
}

// Boost's rvalue casts: the result takes the source's place in the group (no count change), and a
// failed dynamic cast leaves the source as it was.
TEST(LocalSharedPtr, RvalueCastsMove) {
  auto o = own::make_local_shared<outer>(2);
  own::local_shared_ptr<tracked> base = o;
  EXPECT_EQ(o.local_use_count(), 2);
  auto back = own::static_pointer_cast<outer>(std::move(base));
  EXPECT_FALSE(base);
  EXPECT_EQ(back.get(), o.get());
  EXPECT_EQ(o.use_count(), 2);
  auto konst = own::const_pointer_cast<const outer>(std::move(back));
  EXPECT_FALSE(back);
  auto bytes = own::reinterpret_pointer_cast<const char>(std::move(konst));
  EXPECT_FALSE(konst);
  EXPECT_EQ(static_cast<const void*>(bytes.get()), static_cast<const void*>(o.get()));
  EXPECT_EQ(o.use_count(), 2);
  own::local_shared_ptr<tracked> as_base = o;
  auto failed = own::dynamic_pointer_cast<outer_sibling>(std::move(as_base));
  EXPECT_FALSE(failed);
  EXPECT_EQ(as_base.get(), o.get());  // untouched
  auto dyn = own::dynamic_pointer_cast<outer>(std::move(as_base));
  EXPECT_FALSE(as_base);
  EXPECT_EQ(dyn.get(), o.get());
  EXPECT_EQ(o.use_count(), 3);
  const own::local_shared_ptr<outer> constant = o;
  auto copied = own::static_pointer_cast<tracked>(constant);  // a const source is copied
  EXPECT_EQ(constant.get(), o.get());
  EXPECT_EQ(o.use_count(), 5);
  // The source's type may be named, as with Boost's and std's casts.
  auto named = own::static_pointer_cast<outer, tracked>(std::move(copied));
  EXPECT_FALSE(copied);
  auto named_copy = own::dynamic_pointer_cast<const outer, outer>(constant);
  EXPECT_EQ(named_copy.get(), o.get());
  EXPECT_EQ(o.use_count(), 6);
}

TEST(LocalSharedPtr, BoostNoinitNames) {
  auto a = own::make_local_shared_noinit<int>();
  auto b = own::make_local_shared_noinit<int[]>(3);
  auto c = own::make_local_shared_noinit<long[2]>();
  *a = 1;
  b[2] = 2;
  c[1] = 3;
  EXPECT_EQ(*a + b[2] + c[1], 6);
  allocation_log log;
  {
    auto d = own::allocate_local_shared_noinit<int>(test_allocator<int>(&log));
    auto e = own::allocate_local_shared_noinit<int[]>(test_allocator<int>(&log), 4);
    *d = 4;
    e[3] = 5;
    EXPECT_EQ(*d + e[3], 9);
    EXPECT_EQ(log.allocations.load(), 2);
  }
  EXPECT_EQ(log.deallocations.load(), 2);
}

TEST(LocalSharedPtr, AssignmentSwapReset) {
  auto a = own::make_local_shared<tracked>(1);
  auto b = own::make_local_shared<tracked>(2);
  a = b;
  EXPECT_EQ(tracked::live(), 1);
  EXPECT_EQ(a.use_count(), 2);
  auto c = own::make_local_shared<tracked>(3);
  swap(a, c);
  EXPECT_EQ(a->value(), 3);
  a = std::move(c);
  EXPECT_EQ(a->value(), 2);
  a.reset(new tracked(4));
  EXPECT_EQ(a->value(), 4);
  a.reset(new tracked(5), [](tracked* p) { delete p; });
  allocation_log log;
  a.reset(new tracked(6), own::default_deleter(), test_allocator<int>(&log));
  EXPECT_EQ(log.blocks_in_use(), 1);
  a.reset(b, b.get());
  EXPECT_EQ(log.blocks_in_use(), 0);
  a.reset();
  b.reset();
  c.reset();
  EXPECT_EQ(tracked::live(), 0);
}

TEST(LocalSharedPtr, ComparisonsHashAndOwnerOrder) {
  auto a = own::make_local_shared<int>(1);
  auto b = own::make_local_shared<int>(2);
  EXPECT_TRUE(a == a);
  EXPECT_TRUE(a != b);
  EXPECT_TRUE(a != nullptr);
  EXPECT_EQ((a.get() < b.get()), (a < b));
  std::unordered_set<own::local_shared_ptr<int>> set{a, b, a};
  EXPECT_EQ(set.size(), 2u);
  std::set<own::local_shared_ptr<int>, own::owner_less<>> owners{a, b, a};
  EXPECT_EQ(owners.size(), 2u);
  EXPECT_EQ(a.owner_hash(), own::shared_ptr<int>(a).owner_hash());
}

struct self_aware : own::enable_shared_from_this<self_aware> {};

TEST(LocalSharedPtr, EnableSharedFromThisSeesTheAtomicBlock) {
  auto a = own::make_local_shared<self_aware>();
  own::shared_ptr<self_aware> s = a->shared_from_this();
  EXPECT_TRUE(a.owner_equal(s));
}

TEST(LocalSharedPtr, ForOverwriteAndPools) {
  auto a = own::make_local_shared_for_overwrite<int>();
  *a = 3;
  std::pmr::unsynchronized_pool_resource pool;
  auto b = own::allocate_local_shared<std::pmr::string>(&pool, "a string too long for the small buffer");
  EXPECT_EQ(b->get_allocator().resource(), &pool);  // uses-allocator construction reached the string
  auto c = own::allocate_local_shared_for_overwrite<int>(&pool);
  *c = 4;
  EXPECT_EQ(*a + *c, 7);
}

// ---------------------------------------------------------------------------------------------
// local_weak_ptr

TEST(LocalWeakPtr, LocksWhileTheGroupLives) {
  own::local_weak_ptr<tracked> w;
  EXPECT_TRUE(w.expired());
  EXPECT_FALSE(w.lock());
  {
    auto a = own::make_local_shared<tracked>(1);
    w = a;
    EXPECT_FALSE(w.expired());
    EXPECT_EQ(w.use_count(), 1);
    auto b = w.lock();
    EXPECT_EQ(a.use_count(), 2);
    own::local_shared_ptr<tracked> c(w);
    EXPECT_EQ(c.use_count(), 3);
  }
  EXPECT_EQ(tracked::live(), 0);
  EXPECT_TRUE(w.expired());
  EXPECT_EQ(w.use_count(), 0);
  EXPECT_FALSE(w.lock());
  EXPECT_THROW(own::local_shared_ptr<tracked>{w}, std::bad_weak_ptr);
}

TEST(LocalWeakPtr, RevivesTheGroupWhileASharedPtrOwns) {
  for (bool own_node : {false, true}) {
    own::local_shared_ptr<tracked> a =
        own_node ? own::local_shared_ptr<tracked>(own::make_shared<tracked>(5)) : own::make_local_shared<tracked>(5);
    own::local_weak_ptr<tracked> w = a;
    own::local_weak_ptr<tracked> w2 = w;
    own::shared_ptr<tracked> global = a;
    a.reset();  // the group has no owner now, but the object lives
    EXPECT_EQ(w.use_count(), 0);
    EXPECT_FALSE(w.expired());
    EXPECT_EQ(global.use_count(), 1);
    auto revived = w2.lock();  // one atomic increment; the group owns again
    ASSERT_TRUE(revived);
    EXPECT_EQ(global.use_count(), 2);
    EXPECT_EQ(w.use_count(), 1);
    global.reset();
    EXPECT_EQ(tracked::live(), 1);
    revived.reset();
    EXPECT_EQ(tracked::live(), 0);
    EXPECT_TRUE(w.expired());
    w.reset();
    EXPECT_TRUE(w2.expired());
  }
}

TEST(LocalWeakPtr, OutlivesTheObjectAndFreesTheBlockLast) {
  allocation_log log;
  own::local_weak_ptr<tracked> w;
  {
    auto a = own::allocate_local_shared<tracked>(test_allocator<tracked>(&log), 1);
    w = a;
    own::local_weak_ptr<tracked> moved = own::local_weak_ptr<tracked>(w);
    swap(moved, w);
  }
  EXPECT_EQ(tracked::live(), 0);
  EXPECT_EQ(log.blocks_in_use(), 1);  // the weak reference keeps the block
  w.reset();
  EXPECT_EQ(log.blocks_in_use(), 0);
}

TEST(LocalWeakPtr, OwnerOrder) {
  auto a = own::make_local_shared<int>(1);
  own::local_weak_ptr<int> w = a;
  EXPECT_FALSE(w.owner_before(a) || a.owner_before(w));
}

// ---------------------------------------------------------------------------------------------
// Exception safety

TEST(LocalSharedPtrExceptions, AllocateLocalSharedAtEveryFailurePoint) {
  allocation_log log;
  const int runs = own_test::for_each_failure_point(log, [&] {
    auto p = own::allocate_local_shared<tracked>(test_allocator<tracked>(&log), 1);
    auto q = p;
    EXPECT_EQ(q->value(), 1);
  });
  EXPECT_EQ(runs, 2);
  const int constructions = own_test::for_each_throwing_construction(log, [&] {
    auto p = own::allocate_local_shared<tracked>(test_allocator<tracked>(&log), 1);
  });
  EXPECT_EQ(constructions, 2);
  EXPECT_EQ(log.blocks_in_use(), 0);
}

TEST(LocalSharedPtrExceptions, AdoptingDeletesThePointerWhenTheBlockCannotBeMade) {
  allocation_log log;
  own_test::for_each_failure_point(log, [&] {
    own::local_shared_ptr<tracked> p(new tracked(1), own::default_deleter(), test_allocator<int>(&log));
  });
  EXPECT_EQ(tracked::live(), 0);
}

// ---------------------------------------------------------------------------------------------
// Checked mode

#ifdef OWN_CHECKED
TEST(LocalSharedPtrCheckedDeathTest, DereferencingEmptyAborts) {
  own::local_shared_ptr<int> p;
  EXPECT_DEATH((void)*p, "dereferencing an empty own::local_shared_ptr");
  own::local_shared_ptr<std::pair<int, int>> q;
  EXPECT_DEATH((void)q->first, "dereferencing an empty own::local_shared_ptr");
}
TEST(LocalSharedPtrCheckedDeathTest, IndexOutOfRangeAborts) {
  own::local_shared_ptr<int[4]> a = own::make_shared<int[4]>();
  EXPECT_DEATH((void)a[4], "index 4 out of range");
  own::local_shared_ptr<int[]> e;
  EXPECT_DEATH((void)e[0], "indexing an empty own::local_shared_ptr");
}
#endif

}  // namespace
