// SPDX-License-Identifier: BSL-1.0
#include <own/intrusive_ptr.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory_resource>
#include <set>
#include <sstream>
#include <thread>
#include <type_traits>
#include <unordered_set>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "generic_code_probe.hpp"
#include "test_allocator.hpp"
#include "tracked.hpp"

namespace {

using own::intrusive_ptr;
using own_test::tracked;

// A user's function named like own's internal one, of the same shape, in the namespace of the
// types below: allocate_intrusive, instantiated with those, must not find it by argument-dependent
// lookup (the call would choose it, or be ambiguous).
template <class T>
T* ref_counter_base(T* p) {
  return p;
}
struct not_counted {};
static_assert(!own::detail::has_ref_counter_base<not_counted>::value);  // allocate_intrusive's check

// The example of the header comment, with EXPECT_TRUE for assert.
struct node : own::intrusive_ref_counter<node> {
  explicit node(int v) : value(v) {}
  int value;
  own::intrusive_ptr<node> next;
};

TEST(IntrusivePtrExample, RunsAsDocumented) {
  own::intrusive_ptr<node> list = own::make_intrusive<node>(1);
  list->next = own::allocate_intrusive<node>(std::pmr::new_delete_resource(), 2);
  own::intrusive_ptr<node> second = list->next.get();  // a raw pointer is enough to share
  EXPECT_TRUE(second->use_count() == 2 && list->use_count() == 1);
  EXPECT_EQ(second->value, 2);
}

// A polymorphic hierarchy counted by intrusive_ref_counter; tracked's destructor is virtual.
struct base : own::intrusive_ref_counter<base>, tracked {
  using tracked::tracked;
};
struct derived : base {
  using base::base;
};
struct other : base {};

// A live-object count that each test checks returns to where it started.
class IntrusivePtr : public ::testing::Test {
 protected:
  void TearDown() override { EXPECT_EQ(tracked::live(), live_before_); }

 private:
  long live_before_ = tracked::live();
};

TEST_F(IntrusivePtr, IsOnePointer) {
  static_assert(sizeof(intrusive_ptr<base>) == sizeof(base*));
  static_assert(std::is_nothrow_move_constructible_v<intrusive_ptr<base>>);
  static_assert(std::is_nothrow_copy_constructible_v<intrusive_ptr<base>>);
  static_assert(!std::is_convertible_v<intrusive_ptr<base>, bool>);
  static_assert(std::is_convertible_v<intrusive_ptr<derived>, intrusive_ptr<base>>);
  static_assert(!std::is_convertible_v<intrusive_ptr<base>, intrusive_ptr<derived>>);
}

TEST_F(IntrusivePtr, DefaultAndNullAreEmpty) {
  intrusive_ptr<base> a;
  intrusive_ptr<base> b(nullptr);
  intrusive_ptr<base> c(nullptr, false);
  EXPECT_EQ(a.get(), nullptr);
  EXPECT_FALSE(b);
  EXPECT_FALSE(c);
}

TEST_F(IntrusivePtr, RawPointerConstructorAddsOrAdoptsAReference) {
  const long destroyed = tracked::destroyed();
  base* raw = new base(1);
  {
    intrusive_ptr<base> p(raw);
    EXPECT_EQ(raw->use_count(), 1u);
    intrusive_ptr<base> q = raw;
    EXPECT_EQ(raw->use_count(), 2u);
    intrusive_ptr_add_ref(raw);  // the hooks of intrusive_ref_counter are found by ADL
    intrusive_ptr<base> adopted(raw, false);
    EXPECT_EQ(raw->use_count(), 3u);
  }
  EXPECT_EQ(tracked::destroyed(), destroyed + 1);
}

TEST_F(IntrusivePtr, CopyAndMoveConstruction) {
  intrusive_ptr<derived> d = own::make_intrusive<derived>(1);
  intrusive_ptr<derived> copy(d);
  EXPECT_EQ(d->use_count(), 2u);
  intrusive_ptr<derived> moved(std::move(copy));
  EXPECT_FALSE(copy);
  EXPECT_EQ(moved, d);
  EXPECT_EQ(d->use_count(), 2u);

  intrusive_ptr<base> converted(d);
  EXPECT_EQ(d->use_count(), 3u);
  intrusive_ptr<base> converted_moved(std::move(moved));
  EXPECT_FALSE(moved);
  EXPECT_EQ(d->use_count(), 3u);
  EXPECT_EQ(converted_moved.get(), d.get());
}

TEST_F(IntrusivePtr, Assignment) {
  intrusive_ptr<derived> d = own::make_intrusive<derived>(1);
  intrusive_ptr<base> b = own::make_intrusive<base>(2);
  const long destroyed = tracked::destroyed();

  intrusive_ptr<base> x;
  x = b;
  EXPECT_EQ(b->use_count(), 2u);
  x = d;  // converting copy: releases b's object
  EXPECT_EQ(b->use_count(), 1u);
  EXPECT_EQ(d->use_count(), 2u);
  x = std::move(b);  // move: b's reference is transferred, d's released
  EXPECT_FALSE(b);
  EXPECT_EQ(x->value(), 2);
  EXPECT_EQ(x->use_count(), 1u);
  EXPECT_EQ(d->use_count(), 1u);
  EXPECT_EQ(tracked::destroyed(), destroyed);

  intrusive_ptr<derived> d2 = d;
  x = std::move(d2);  // converting move destroys the object x held
  EXPECT_FALSE(d2);
  EXPECT_EQ(tracked::destroyed(), destroyed + 1);
  EXPECT_EQ(d->use_count(), 2u);

  x = d.get();  // from a raw pointer: adds a reference
  EXPECT_EQ(d->use_count(), 2u);
  x = nullptr;
  EXPECT_FALSE(x);
  EXPECT_EQ(d->use_count(), 1u);

  intrusive_ptr<derived>& alias = d;
  d = alias;
  d = std::move(alias);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->use_count(), 1u);
  EXPECT_EQ(d->value(), 1);
}

TEST_F(IntrusivePtr, ResetAndDetach) {
  base* raw = new base(1);
  intrusive_ptr<base> p;
  p.reset(raw);
  EXPECT_EQ(raw->use_count(), 1u);
  intrusive_ptr<base> q;
  intrusive_ptr_add_ref(raw);
  q.reset(raw, false);
  EXPECT_EQ(raw->use_count(), 2u);
  q.reset(raw, true);
  EXPECT_EQ(raw->use_count(), 2u);

  base* detached = q.detach();
  EXPECT_EQ(detached, raw);
  EXPECT_FALSE(q);
  EXPECT_EQ(raw->use_count(), 2u);  // the caller now owns that reference
  intrusive_ptr_release(detached);
  q.reset(raw);
  q.detach();  // not [[nodiscard]], as Boost's: this line compiles under -Werror
  EXPECT_EQ(raw->use_count(), 2u);
  intrusive_ptr_release(raw);

  const long destroyed = tracked::destroyed();
  p.reset();
  EXPECT_FALSE(p);
  EXPECT_EQ(tracked::destroyed(), destroyed + 1);
}

TEST_F(IntrusivePtr, Access) {
  const intrusive_ptr<base> p = own::make_intrusive<base>(7);
  EXPECT_EQ((*p).value(), 7);
  EXPECT_EQ(p->value(), 7);
  EXPECT_EQ(&*p, p.get());
  EXPECT_TRUE(p);
  p->set_value(8);  // a const intrusive_ptr still gives a non-const T
  EXPECT_EQ(p->value(), 8);
}

TEST_F(IntrusivePtr, Swap) {
  intrusive_ptr<base> a = own::make_intrusive<base>(1);
  intrusive_ptr<base> b = own::make_intrusive<base>(2);
  a.swap(b);
  EXPECT_EQ(a->value(), 2);
  EXPECT_EQ(b->value(), 1);
  swap(a, b);
  EXPECT_EQ(a->value(), 1);
  std::swap(a, b);
  EXPECT_EQ(a->value(), 2);
  EXPECT_EQ(a->use_count(), 1u);
  EXPECT_EQ(b->use_count(), 1u);
}

TEST_F(IntrusivePtr, Comparisons) {
  intrusive_ptr<derived> d = own::make_intrusive<derived>(1);
  intrusive_ptr<base> b = d;
  intrusive_ptr<base> other_object = own::make_intrusive<base>(2);
  intrusive_ptr<base> empty;
  derived* raw = d.get();

  EXPECT_TRUE(b == d);
  EXPECT_FALSE(b != d);
  EXPECT_TRUE(b != other_object);
  EXPECT_TRUE(d == raw);
  EXPECT_TRUE(raw == d);
  EXPECT_TRUE(b == raw);
  EXPECT_TRUE(raw == b);
  EXPECT_TRUE(other_object != raw);
  EXPECT_TRUE(raw != other_object);
  EXPECT_TRUE(empty == nullptr);
  EXPECT_TRUE(nullptr == empty);
  EXPECT_TRUE(b != nullptr);
  EXPECT_TRUE(nullptr != b);

  const bool less = std::less<base*>()(b.get(), other_object.get());
  EXPECT_EQ(b < other_object, less);
  EXPECT_EQ(other_object < b, !less);
  EXPECT_FALSE(b < d);
  std::set<intrusive_ptr<base>> ordered{b, other_object, d};
  EXPECT_EQ(ordered.size(), 2u);

#if __cplusplus > 201703L
  EXPECT_TRUE((b <=> d) == 0);
  EXPECT_TRUE((b <=> other_object) == (b.get() <=> other_object.get()));
  EXPECT_TRUE((b <=> raw) == 0);
  EXPECT_TRUE((raw <=> b) == 0);
  EXPECT_TRUE(b >= raw && raw <= b);
  EXPECT_EQ(b > other_object, !less);
  EXPECT_TRUE((empty <=> nullptr) == 0);
  EXPECT_TRUE((nullptr <=> b) < 0);
  EXPECT_TRUE(b > nullptr);
#endif
}

TEST_F(IntrusivePtr, HashAndStream) {
  intrusive_ptr<base> a = own::make_intrusive<base>(1);
  intrusive_ptr<base> b = own::make_intrusive<base>(2);
  EXPECT_EQ(std::hash<intrusive_ptr<base>>()(a), std::hash<base*>()(a.get()));
  std::unordered_set<intrusive_ptr<base>> set{a, b, a};
  EXPECT_EQ(set.size(), 2u);
  EXPECT_EQ(set.count(a), 1u);

  std::ostringstream printed, expected;
  printed << a;
  expected << static_cast<const void*>(a.get());
  EXPECT_EQ(printed.str(), expected.str());
}

TEST_F(IntrusivePtr, StaticAndConstCasts) {
  intrusive_ptr<base> b = own::make_intrusive<derived>(1);
  intrusive_ptr<derived> d = own::static_pointer_cast<derived>(b);
  EXPECT_EQ(d, b);
  EXPECT_EQ(b->use_count(), 2u);
  intrusive_ptr<derived> moved = own::static_pointer_cast<derived>(std::move(b));
  EXPECT_FALSE(b);
  EXPECT_EQ(moved->use_count(), 2u);

  intrusive_ptr<const derived> c = moved;
  intrusive_ptr<derived> mutable_again = own::const_pointer_cast<derived>(c);
  EXPECT_EQ(mutable_again, moved);
  EXPECT_EQ(moved->use_count(), 4u);
  intrusive_ptr<derived> mutable_moved = own::const_pointer_cast<derived>(std::move(c));
  EXPECT_FALSE(c);
  EXPECT_EQ(moved->use_count(), 4u);

  EXPECT_FALSE(own::static_pointer_cast<derived>(intrusive_ptr<base>()));
}

TEST_F(IntrusivePtr, DynamicCasts) {
  intrusive_ptr<base> b = own::make_intrusive<derived>(1);
  intrusive_ptr<derived> d = own::dynamic_pointer_cast<derived>(b);
  EXPECT_EQ(d, b);
  EXPECT_EQ(b->use_count(), 2u);
  EXPECT_FALSE(own::dynamic_pointer_cast<other>(b));
  EXPECT_EQ(b->use_count(), 2u);

  intrusive_ptr<other> failed = own::dynamic_pointer_cast<other>(std::move(b));
  EXPECT_FALSE(failed);
  EXPECT_EQ(b, d);  // a failed cast leaves its argument alone
  EXPECT_EQ(b->use_count(), 2u);

  intrusive_ptr<derived> moved = own::dynamic_pointer_cast<derived>(std::move(b));
  EXPECT_FALSE(b);
  EXPECT_EQ(moved, d);
  EXPECT_EQ(d->use_count(), 2u);

  EXPECT_FALSE(own::dynamic_pointer_cast<derived>(intrusive_ptr<base>()));
}

}  // namespace

// A type with hooks of its own, found by ADL in its namespace.
namespace user {
struct widget : tracked {
  using tracked::tracked;
  int references = 0;
};
void intrusive_ptr_add_ref(widget* w) noexcept { ++w->references; }
void intrusive_ptr_release(widget* w) noexcept {
  if (--w->references == 0) delete w;
}
// How this namespace prints a widget pointer: intrusive_ptr's operator<< must call it, as Boost's
// does (os << p.get()).
std::ostream& operator<<(std::ostream& os, const widget* w) { return os << "widget " << w->value(); }
}  // namespace user

namespace {

TEST_F(IntrusivePtr, UsesTheHooksOfTheType) {
  const long destroyed = tracked::destroyed();
  intrusive_ptr<user::widget> w = own::make_intrusive<user::widget>(3);
  intrusive_ptr<user::widget> copy = w;
  EXPECT_EQ(w->references, 2);
  EXPECT_EQ(copy->value(), 3);
  w.reset();
  copy.reset();
  EXPECT_EQ(tracked::destroyed(), destroyed + 1);
}

TEST_F(IntrusivePtr, PrintsWhatTheTypesPointerPrints) {
  intrusive_ptr<user::widget> w = own::make_intrusive<user::widget>(3);
  std::ostringstream printed;
  printed << w;
  EXPECT_EQ(printed.str(), "widget 3");
}

struct single_threaded : own::intrusive_ref_counter<single_threaded, own::thread_unsafe_counter> {
  int value = 0;
};

TEST_F(IntrusivePtr, RefCounterCountIsNotCopied) {
  intrusive_ptr<base> a = own::make_intrusive<base>(1);
  intrusive_ptr<base> a2 = a;
  base copy(*a);
  EXPECT_EQ(copy.use_count(), 0u);
  EXPECT_EQ(copy.value(), 1);
  intrusive_ptr<base> b = own::make_intrusive<base>(2);
  *b = *a;
  EXPECT_EQ(b->use_count(), 1u);
  EXPECT_EQ(a->use_count(), 2u);
  EXPECT_EQ(b->value(), 1);
}

// Records use_count() as its destructor sees it: Boost's counter reads 0 there.
template <class Policy>
struct counts_at_destruction : own::intrusive_ref_counter<counts_at_destruction<Policy>, Policy> {
  explicit counts_at_destruction(unsigned* seen) : seen_(seen) {}
  ~counts_at_destruction() { *seen_ = this->use_count(); }
  unsigned* seen_;
};

template <class Policy>
void expect_zero_in_destructor() {
  unsigned seen = 99;
  intrusive_ptr<counts_at_destruction<Policy>> p = own::make_intrusive<counts_at_destruction<Policy>>(&seen);
  intrusive_ptr<counts_at_destruction<Policy>> q = p;
  p.reset();
  EXPECT_EQ(seen, 99u);
  q.reset();  // the sole owner's release
  EXPECT_EQ(seen, 0u);
  seen = 99;
  { intrusive_ptr<counts_at_destruction<Policy>> only(new counts_at_destruction<Policy>(&seen)); }
  EXPECT_EQ(seen, 0u);
}

TEST_F(IntrusivePtr, UseCountIsZeroInTheDestructor) {
  expect_zero_in_destructor<own::thread_safe_counter>();
  expect_zero_in_destructor<own::thread_unsafe_counter>();
}

TEST_F(IntrusivePtr, RefCounterPolicies) {
  static_assert(sizeof(own::intrusive_ref_counter<single_threaded, own::thread_unsafe_counter>) == 8);
  static_assert(sizeof(own::intrusive_ref_counter<base>) == 8);
  intrusive_ptr<single_threaded> s = own::make_intrusive<single_threaded>();
  intrusive_ptr<single_threaded> t = s;
  EXPECT_EQ(s->use_count(), 2u);
  t.reset();
  EXPECT_EQ(s->use_count(), 1u);

  intrusive_ptr<const base> c = own::make_intrusive<const base>(4);  // hooks take const pointers
  intrusive_ptr<const base> c2 = c;
  EXPECT_EQ(c->use_count(), 2u);
  EXPECT_EQ(c2->value(), 4);
}

TEST_F(IntrusivePtr, RefCounterDeletesThroughAVirtualDestructor) {
  const long destroyed = tracked::destroyed();
  intrusive_ptr<base> b = own::make_intrusive<derived>(1);
  b.reset();
  EXPECT_EQ(tracked::destroyed(), destroyed + 1);
}

// Allocators -----------------------------------------------------------------------------------

// An object allocate_intrusive must destroy as itself: the counted base has no virtual destructor,
// the class is final, and the counter is not at the start of the object.
struct counted_plain : own::intrusive_ref_counter<counted_plain> {
  int id = 0;
};
struct padding {
  std::int64_t words[3] = {};
};
struct leaf final : padding, counted_plain {
  explicit leaf(int v) : payload(v) {}
  tracked payload;
};

// Stands in for an own pool: a pointer to it is read as its `allocator_type`.
struct test_pool : own_test::allocation_log {
  using allocator_type = own_test::test_allocator<std::byte>;
};

struct alignas(64) wide : own::intrusive_ref_counter<wide> {
  char c = 'w';
};

TEST_F(IntrusivePtr, AllocateWithAStandardAllocator) {
  own_test::allocation_log log;
  {
    intrusive_ptr<base> p = own::allocate_intrusive<derived>(own_test::test_allocator<int>(&log), 5);
    EXPECT_EQ(p->value(), 5);
    EXPECT_EQ(p->use_count(), 1u);
    EXPECT_EQ(log.blocks_in_use(), 1);
    intrusive_ptr<base> copy = p;
    p.reset();
    EXPECT_EQ(log.blocks_in_use(), 1);
  }
  EXPECT_EQ(log.allocations.load(), 1);
  EXPECT_EQ(log.blocks_in_use(), 0);
  EXPECT_EQ(log.bytes_in_use.load(), 0);
}

TEST_F(IntrusivePtr, AllocateWithAMemoryResource) {
  own_test::allocation_log log;
  own_test::test_resource resource(&log);
  {
    intrusive_ptr<base> p = own::allocate_intrusive<base>(&resource, 6);
    EXPECT_EQ(p->value(), 6);
    EXPECT_EQ(log.blocks_in_use(), 1);
  }
  EXPECT_EQ(log.blocks_in_use(), 0);
  EXPECT_EQ(log.bytes_in_use.load(), 0);
}

TEST_F(IntrusivePtr, AllocateWithAPool) {
  test_pool pool;
  {
    intrusive_ptr<base> p = own::allocate_intrusive<base>(&pool, 7);
    EXPECT_EQ(p->value(), 7);
    EXPECT_EQ(pool.blocks_in_use(), 1);
  }
  EXPECT_EQ(pool.allocations.load(), 1);
  EXPECT_EQ(pool.blocks_in_use(), 0);
}

TEST_F(IntrusivePtr, AllocatedObjectIsDestroyedAsItsOwnType) {
  own_test::allocation_log log;
  const long destroyed = tracked::destroyed();
  intrusive_ptr<leaf> l = own::allocate_intrusive<leaf>(own_test::test_allocator<int>(&log), 9);
  ASSERT_NE(static_cast<void*>(static_cast<counted_plain*>(l.get())), static_cast<void*>(l.get()));
  intrusive_ptr<counted_plain> as_base = std::move(l);
  EXPECT_EQ(as_base->use_count(), 1u);
  as_base.reset();  // released through counted_plain, which has no virtual destructor
  EXPECT_EQ(tracked::destroyed(), destroyed + 1);
  EXPECT_EQ(log.blocks_in_use(), 0);
}

TEST_F(IntrusivePtr, AllocateOverAligned) {
  own_test::allocation_log log;
  intrusive_ptr<wide> w = own::allocate_intrusive<wide>(own_test::test_allocator<int>(&log));
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(w.get()) % 64, 0u);
  EXPECT_EQ(w->c, 'w');
  w.reset();
  EXPECT_EQ(log.blocks_in_use(), 0);
}

// Two tracked subobjects, so that construction can fail before or after the first is built.
struct two_parts : own::intrusive_ref_counter<two_parts>, tracked {
  explicit two_parts(int v) : tracked(v), second(v) {}
  tracked second;
};

TEST_F(IntrusivePtr, AllocateLeaksNothingWhenAllocationThrows) {
  own_test::allocation_log log;
  const int runs = own_test::for_each_failure_point(log, [&] {
    intrusive_ptr<two_parts> p = own::allocate_intrusive<two_parts>(own_test::test_allocator<int>(&log), 1);
    EXPECT_EQ(p->second.value(), 1);
  });
  EXPECT_EQ(runs, 2);
  own_test::test_resource resource(&log);
  EXPECT_EQ(own_test::for_each_failure_point(log, [&] { own::allocate_intrusive<two_parts>(&resource, 2); }), 2);
  EXPECT_EQ(log.blocks_in_use(), 0);
}

TEST_F(IntrusivePtr, AllocateLeaksNothingWhenConstructionThrows) {
  own_test::allocation_log log;
  const int runs = own_test::for_each_throwing_construction(
      log, [&] { own::allocate_intrusive<two_parts>(own_test::test_allocator<int>(&log), 1); });
  EXPECT_EQ(runs, 3);
  own_test::test_resource resource(&log);
  EXPECT_EQ(own_test::for_each_throwing_construction(log, [&] { own::allocate_intrusive<two_parts>(&resource, 2); }),
            3);
  EXPECT_EQ(own_test::for_each_throwing_construction(log, [&] { own::make_intrusive<two_parts>(3); }), 3);
  EXPECT_EQ(log.blocks_in_use(), 0);
}

// Boost's interface: `T* get_pointer(intrusive_ptr<T> const& p) noexcept`, returns p.get(), found by
// argument-dependent lookup (this file has no using-declaration for it), also from generic code.
TEST_F(IntrusivePtr, GetPointerFoundByArgumentDependentLookup) {
  intrusive_ptr<node> p(new node(3));
  node* raw = get_pointer(p);
  EXPECT_EQ(raw, p.get());
  static_assert(noexcept(get_pointer(p)));
  const intrusive_ptr<const node> c = p;
  static_assert(std::is_same_v<decltype(get_pointer(c)), const node*>);
  EXPECT_EQ(own_test::generic_code::raw_of(c)->value, 3);
  EXPECT_EQ(get_pointer(intrusive_ptr<base>()), nullptr);
}

// Boost's `std::size_t hash_value(intrusive_ptr<T> const& p) noexcept`, found by argument-dependent
// lookup (boost::hash calls it): std::hash's value, the hash of get().
TEST_F(IntrusivePtr, HashValueFoundByArgumentDependentLookup) {
  intrusive_ptr<node> p(new node(3));
  static_assert(std::is_same_v<decltype(hash_value(p)), std::size_t>);
  static_assert(noexcept(hash_value(p)));
  EXPECT_EQ(hash_value(p), std::hash<intrusive_ptr<node>>()(p));
  EXPECT_EQ(hash_value(p), std::hash<node*>()(p.get()));
  const intrusive_ptr<const node> c = p;
  EXPECT_EQ(own_test::generic_code::hash_of(c), std::hash<const node*>()(p.get()));
  EXPECT_EQ(hash_value(intrusive_ptr<base>()), std::hash<base*>()(nullptr));
}

#ifdef OWN_CHECKED
TEST(IntrusivePtrDeathTest, DereferencingAnEmptyPointerAborts) {
  intrusive_ptr<base> empty;
  EXPECT_DEATH(static_cast<void>((*empty).value()), "operator\\* on an empty own::intrusive_ptr");
  EXPECT_DEATH(static_cast<void>(empty->value()), "operator-> on an empty own::intrusive_ptr");
}
#endif

// Threads --------------------------------------------------------------------------------------

// Each thread writes its own field of the object; whichever thread destroys it must see both
// writes (the decrement's acq_rel), else the destruction is counted as -1000.
struct shared_object : own::intrusive_ref_counter<shared_object>, tracked {
  static constexpr int final_write = 99;
  explicit shared_object(std::atomic<int>* destructions) : destructions_(destructions) {}
  ~shared_object() override {
    const bool saw_both = last_write[0] == final_write && last_write[1] == final_write;
    destructions_->fetch_add(saw_both ? 1 : -1000, std::memory_order_relaxed);
  }
  std::atomic<int>* destructions_;
  int last_write[2] = {};
};

// Two threads walk the same objects in step, copying and destroying every object's pointer, then
// again, dropping their own references: the last release of each object races between them, and
// often finds the count at 1 and takes the sole-owner path.
TEST_F(IntrusivePtr, TwoThreadsShareObjectsAndEachIsDestroyedOnce) {
  constexpr int objects = 50'000;
  constexpr int copies = 10;  // 2 threads * 50'000 * (10 copies + 10 + 1 releases) = 2.1 million operations
  own_test::allocation_log log;
  std::vector<std::atomic<int>> destructions(objects);
  std::vector<intrusive_ptr<shared_object>> owners;
  owners.reserve(objects);
  for (int i = 0; i < objects; ++i) {
    owners.push_back(i % 2 == 0 ? own::make_intrusive<shared_object>(&destructions[i])
                                : own::allocate_intrusive<shared_object>(own_test::test_allocator<int>(&log),
                                                                         &destructions[i]));
  }
  std::vector<intrusive_ptr<shared_object>> references[2] = {owners, owners};
  owners.clear();

  std::atomic<int> ready{0};
  auto work = [&ready](std::vector<intrusive_ptr<shared_object>>& mine, int thread) {
    ready.fetch_add(1);
    while (ready.load() < 2) {
    }
    for (intrusive_ptr<shared_object>& reference : mine) {
      for (int c = 0; c < copies; ++c) {
        intrusive_ptr<shared_object> copy = reference;
        copy->last_write[thread] = c;
      }
    }
    for (intrusive_ptr<shared_object>& reference : mine) {
      reference->last_write[thread] = shared_object::final_write;
      reference.reset();
    }
  };
  std::thread first(work, std::ref(references[0]), 0);
  std::thread second(work, std::ref(references[1]), 1);
  first.join();
  second.join();

  for (int i = 0; i < objects; ++i) ASSERT_EQ(destructions[i].load(), 1) << "object " << i;
  EXPECT_EQ(log.allocations.load(), objects / 2);
  EXPECT_EQ(log.blocks_in_use(), 0);
  EXPECT_EQ(log.bytes_in_use.load(), 0);
}

}  // namespace
