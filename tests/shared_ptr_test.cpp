// SPDX-License-Identifier: BSL-1.0
// Tests of <own/shared_ptr.hpp>: std's interface and semantics, N1851's extensions, allocation
// counts, exception safety at every allocation, and checked mode.
#include <own/shared_ptr.hpp>

#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <cassert>
#include <cstring>
#include <map>
#include <memory_resource>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "generic_code_probe.hpp"
#include "test_allocator.hpp"
#include "tracked.hpp"

using own_test::allocation_log;
using own_test::test_allocator;
using own_test::tracked;

namespace {

// ---------------------------------------------------------------------------------------------
// The header's usage example, as written there.

TEST(SharedPtrUsage, HeaderExampleRuns) {
  struct packet {
    int id;
    char payload[1500];
  };

  own::shared_ptr<packet> p = own::make_shared_object<packet>();  // one allocation
  p->id = 7;
  own::shared_ptr<int> id = own::shared_ptr<int>(p, &p->id);  // aliases p's object
  own::weak_ptr<packet> w = p;
  p.reset();
  assert(!w.expired() && *id == 7);  // `id` keeps the packet alive
  id.reset();
  assert(w.expired());

  std::pmr::monotonic_buffer_resource arena;
  own::shared_ptr<int[]> a = own::make_shared_array_with_alloc<int>(&arena, 4);  // zeroed ints

  EXPECT_TRUE(w.expired());
  EXPECT_EQ(a[0] + a[1] + a[2] + a[3], 0);
}

// ---------------------------------------------------------------------------------------------
// Representation

TEST(SharedPtrLayout, TwoPointersAndSixteenByteHeader) {
  static_assert(sizeof(own::shared_ptr<int>) == 2 * sizeof(void*));
  static_assert(sizeof(own::weak_ptr<int>) == 2 * sizeof(void*));
  static_assert(sizeof(own::shared_ptr<int[]>) == 2 * sizeof(void*));
  static_assert(sizeof(own::detail::control_block) == 16);
}

TEST(SharedPtrLayout, HousedBlockAddsOnlyTheObjectAndAllocatorState) {
  allocation_log log;
  {
    auto p = own::allocate_shared<std::int64_t>(test_allocator<std::int64_t>(&log), 1);
    // header + object + the allocator's one pointer of state
    EXPECT_EQ(log.bytes_in_use.load(), 16 + 8 + 8);
  }
  {
    // An empty allocator adds nothing.
    static_assert(sizeof(own::detail::inplace_block<std::int64_t, std::allocator<std::byte>,
                                                    own::detail::construct_with::placement>) == 24);
    static_assert(sizeof(own::detail::pointer_block<int*, own::default_deleter, std::allocator<std::byte>>) == 24);
  }
  EXPECT_EQ(log.blocks_in_use(), 0);
}

// ---------------------------------------------------------------------------------------------
// Construction, ownership, destruction

TEST(SharedPtr, EmptyStates) {
  own::shared_ptr<int> a;
  own::shared_ptr<int> b(nullptr);
  EXPECT_EQ(a.get(), nullptr);
  EXPECT_EQ(a.use_count(), 0);
  EXPECT_FALSE(a);
  EXPECT_EQ(b.use_count(), 0);
  static_assert(std::is_nothrow_default_constructible_v<own::shared_ptr<int>>);
}

TEST(SharedPtr, AdoptsRawPointerAndDeletesOnce) {
  const long destroyed = tracked::destroyed();
  {
    own::shared_ptr<tracked> p(new tracked(5));
    EXPECT_EQ(p.use_count(), 1);
    EXPECT_EQ(p->value(), 5);
    EXPECT_EQ((*p).value(), 5);
    {
      own::shared_ptr<tracked> q = p;
      EXPECT_EQ(p.use_count(), 2);
      EXPECT_EQ(q.get(), p.get());
    }
    EXPECT_EQ(p.use_count(), 1);
    EXPECT_EQ(tracked::destroyed(), destroyed);
  }
  EXPECT_EQ(tracked::destroyed(), destroyed + 1);
  EXPECT_EQ(tracked::live(), 0);
}

TEST(SharedPtr, ArrayOwnershipUsesDeleteArray) {
  {
    own::shared_ptr<tracked[]> a(new tracked[3]);
    EXPECT_EQ(tracked::live(), 3);
    a[1].set_value(9);
    EXPECT_EQ(a.get()[1].value(), 9);
    own::shared_ptr<tracked[3]> b(new tracked[3]);
    EXPECT_EQ(tracked::live(), 6);
  }
  EXPECT_EQ(tracked::live(), 0);
}

TEST(SharedPtr, CustomDeleterRunsOnceWithTheOriginalPointer) {
  int calls = 0;
  int* seen = nullptr;
  int value = 3;
  {
    own::shared_ptr<int> p(&value, [&](int* q) {
      ++calls;
      seen = q;
    });
    own::shared_ptr<int> q = p;
    p.reset();
    EXPECT_EQ(calls, 0);
  }
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(seen, &value);
}

TEST(SharedPtr, MoveOnlyDeleter) {
  struct move_only_deleter {
    std::unique_ptr<int> token = std::make_unique<int>(1);
    move_only_deleter() = default;
    move_only_deleter(move_only_deleter&&) = default;
    void operator()(tracked* p) const {
      EXPECT_TRUE(token);
      delete p;
    }
  };
  {
    own::shared_ptr<tracked> p(new tracked, move_only_deleter());
    EXPECT_NE(own::get_deleter<move_only_deleter>(p), nullptr);
  }
  EXPECT_EQ(tracked::live(), 0);
}

TEST(SharedPtr, NullptrWithDeleterOwnsNull) {
  int calls = 0;
  {
    own::shared_ptr<int> p(nullptr, [&](std::nullptr_t) { ++calls; });
    EXPECT_EQ(p.use_count(), 1);
    EXPECT_EQ(p.get(), nullptr);
    EXPECT_FALSE(p);
  }
  EXPECT_EQ(calls, 1);
}

// Boost's get_pointer(p), p.get(), found by argument-dependent lookup (this file has no using-
// declaration for it), also from generic code; for arrays, a pointer to the first element.
TEST(SharedPtr, GetPointerFoundByArgumentDependentLookup) {
  auto p = own::make_shared<int>(4);
  int* raw = get_pointer(p);
  EXPECT_EQ(raw, p.get());
  static_assert(noexcept(get_pointer(p)));
  own::shared_ptr<const int> c = p;
  static_assert(std::is_same_v<decltype(get_pointer(c)), const int*>);
  EXPECT_EQ(*own_test::generic_code::raw_of(c), 4);
  auto a = own::make_shared<int[3]>(5);
  static_assert(std::is_same_v<decltype(get_pointer(a)), int*>);
  EXPECT_EQ(get_pointer(a)[2], 5);
  own::shared_ptr<void> v = p;
  EXPECT_EQ(get_pointer(v), static_cast<void*>(raw));
  EXPECT_EQ(get_pointer(own::shared_ptr<int>()), nullptr);
}

// Boost's hash_value(p), found by argument-dependent lookup (boost::hash and hash_combine call it):
// std::hash's value, the hash of get(), so equal pointers hash alike across the two.
TEST(SharedPtr, HashValueFoundByArgumentDependentLookup) {
  auto p = own::make_shared<int>(4);
  static_assert(std::is_same_v<decltype(hash_value(p)), std::size_t>);
  static_assert(noexcept(hash_value(p)));
  EXPECT_EQ(hash_value(p), std::hash<own::shared_ptr<int>>()(p));
  EXPECT_EQ(hash_value(p), std::hash<int*>()(p.get()));
  own::shared_ptr<const int> c = p;
  EXPECT_EQ(own_test::generic_code::hash_of(c), std::hash<const int*>()(p.get()));
  own::shared_ptr<void> aliased(c, nullptr);
  EXPECT_EQ(hash_value(aliased), std::hash<void*>()(nullptr));
  auto a = own::make_shared<int[]>(3, 5);
  EXPECT_EQ(hash_value(a), std::hash<int*>()(a.get()));
}

// [util.smartptr.shared.const]: the constraint "d(p) is well-formed" is about the call at hand. A
// generic lambda, whose body cannot take a nullptr_t, is a deleter for the Y* forms: asking whether
// it is one for the nullptr_t forms would instantiate its body with a nullptr_t (a hard error).
TEST(SharedPtr, GenericLambdaDeleterForEveryPointerForm) {
  int deleted = 0;
  auto del = [&](auto p) {
    ++deleted;
    delete p;
  };
  using generic = decltype(del);
  static_assert(std::is_constructible_v<own::shared_ptr<int>, int*, generic>);
  static_assert(std::is_constructible_v<own::shared_ptr<const int>, int*, generic, std::allocator<int>>);
  allocation_log log;
  {
    own::shared_ptr<int> a(new int(1), del);
    a.reset(new int(2), del);
    EXPECT_EQ(deleted, 1);
    own::shared_ptr<int> b(new int(3), del, test_allocator<int>(&log));
    b.reset(new int(4), del, test_allocator<int>(&log));
    EXPECT_EQ(deleted, 2);
    own::shared_ptr<void> c(new int(5), del);
    EXPECT_EQ(*a + *b, 6);
  }
  EXPECT_EQ(deleted, 5);
  EXPECT_EQ(log.blocks_in_use(), 0);
}

// The nullptr_t forms still take a null pointer constant, nullptr or 0, and a deleter callable with
// nullptr (generic or not); one that is not callable so is rejected, not a hard error.
TEST(SharedPtr, NullptrFormsTakeZeroAndGenericDeleters) {
  int calls = 0;
  auto del = [&](auto p) {
    ++calls;
    if constexpr (!std::is_null_pointer_v<decltype(p)>) delete p;
  };
  auto int_only = [&](int*) { ++calls; };
  auto pointers_only = [](auto* p) { delete p; };  // deduction fails for a nullptr_t: no body to check
  using pointer_template_deleter = decltype(pointers_only);
  static_assert(!std::is_constructible_v<own::shared_ptr<int>, std::nullptr_t, pointer_template_deleter>);
  static_assert(!std::is_constructible_v<own::shared_ptr<int>, std::nullptr_t, pointer_template_deleter, std::allocator<int>>);
  allocation_log log;
  {
    own::shared_ptr<int> a(nullptr, del);
    own::shared_ptr<int> b(0, del);
    own::shared_ptr<int> c(nullptr, del, test_allocator<int>(&log));
    own::shared_ptr<int> d(0, int_only);
    own::shared_ptr<int> e(0, int_only, std::allocator<int>());
    EXPECT_EQ(a.use_count() + b.use_count() + c.use_count() + d.use_count() + e.use_count(), 5);
    EXPECT_EQ(a.get(), nullptr);
    EXPECT_EQ(log.blocks_in_use(), 1);
  }
  EXPECT_EQ(calls, 5);
  EXPECT_EQ(log.blocks_in_use(), 0);
}

TEST(SharedPtr, VoidOwnerDestroysTheCompleteType) {
  {
    own::shared_ptr<void> v(new tracked(1));
    own::shared_ptr<void> w = own::make_shared<tracked>(2);
    EXPECT_EQ(tracked::live(), 2);
  }
  EXPECT_EQ(tracked::live(), 0);
}

struct base {
  virtual ~base() = default;
  int b = 1;
};
struct derived : base {
  int d = 2;
};
struct nonpolymorphic_base {
  int x = 0;
};
struct nonvirtual_derived : nonpolymorphic_base {
  tracked t;
};

TEST(SharedPtr, DeletesTheCompleteTypeWithoutAVirtualDestructor) {
  {
    own::shared_ptr<nonpolymorphic_base> p(new nonvirtual_derived);
    EXPECT_EQ(tracked::live(), 1);
  }
  EXPECT_EQ(tracked::live(), 0);
}

TEST(SharedPtr, ConvertingCopyAndMove) {
  own::shared_ptr<derived> d = own::make_shared<derived>();
  own::shared_ptr<base> b = d;
  EXPECT_EQ(d.use_count(), 2);
  own::shared_ptr<const base> cb = std::move(b);
  EXPECT_EQ(b.get(), nullptr);
  EXPECT_EQ(b.use_count(), 0);
  EXPECT_EQ(cb.use_count(), 2);
  own::shared_ptr<derived> moved = std::move(d);
  EXPECT_EQ(d.get(), nullptr);
  EXPECT_EQ(moved.use_count(), 2);
  static_assert(!std::is_convertible_v<own::shared_ptr<base>, own::shared_ptr<derived>>);
  static_assert(std::is_convertible_v<own::shared_ptr<int[3]>, own::shared_ptr<int[]>>);
  static_assert(!std::is_convertible_v<own::shared_ptr<int[]>, own::shared_ptr<int[3]>>);
  static_assert(!std::is_constructible_v<own::shared_ptr<base[]>, derived*>);  // no derived-to-base for arrays
  static_assert(std::is_constructible_v<own::shared_ptr<const base[]>, base*>);
  static_assert(!std::is_constructible_v<own::shared_ptr<int>, const int*>);
}

TEST(SharedPtr, Assignment) {
  auto a = own::make_shared<tracked>(1);
  auto b = own::make_shared<tracked>(2);
  a = b;
  EXPECT_EQ(tracked::live(), 1);
  EXPECT_EQ(a.use_count(), 2);
  own::shared_ptr<tracked>& same = a;
  a = same;  // self-assignment keeps the object
  EXPECT_EQ(a->value(), 2);
  EXPECT_EQ(a.use_count(), 2);
  own::shared_ptr<tracked> c;
  c = std::move(a);
  EXPECT_FALSE(a);
  EXPECT_EQ(c.use_count(), 2);
  c = std::unique_ptr<tracked>(new tracked(3));
  EXPECT_EQ(c->value(), 3);
  EXPECT_EQ(tracked::live(), 2);
  c = nullptr;
  b = nullptr;
  EXPECT_EQ(tracked::live(), 0);
}

// std: reset() is shared_ptr().swap(*this), so a destructor that reassigns the very pointer being
// reset sees a consistent state and nothing is destroyed twice.
struct self_resetting {
  static own::shared_ptr<self_resetting> global;
  ~self_resetting() { global = own::make_shared<self_resetting>(0); }
  explicit self_resetting(int depth) : depth_(depth) {}
  int depth_;
};
own::shared_ptr<self_resetting> self_resetting::global;

struct recursion_victim {
  own::shared_ptr<recursion_victim>* owner;
  tracked t;
  ~recursion_victim() {
    if (owner) *owner = nullptr;  // recursive assignment to the pointer whose reset destroys us
  }
};

TEST(SharedPtr, RecursiveAssignmentFromDestructor) {
  own::shared_ptr<recursion_victim> p(new recursion_victim{nullptr, {}});
  p->owner = &p;
  p.reset();
  EXPECT_FALSE(p);
  EXPECT_EQ(tracked::live(), 0);

  own::shared_ptr<recursion_victim> q = own::make_shared<recursion_victim>(recursion_victim{nullptr, {}});
  q->owner = &q;
  q = own::make_shared<recursion_victim>(recursion_victim{nullptr, {}});  // the old one nulls q: std gives null
  EXPECT_FALSE(q);
  EXPECT_EQ(tracked::live(), 0);
}

TEST(SharedPtr, Swap) {
  auto a = own::make_shared<int>(1);
  auto b = own::make_shared<int>(2);
  swap(a, b);
  EXPECT_EQ(*a, 2);
  EXPECT_EQ(*b, 1);
  a.swap(b);
  EXPECT_EQ(*a, 1);
}

TEST(SharedPtr, ResetForms) {
  own::shared_ptr<tracked> p;
  p.reset(new tracked(1));
  EXPECT_EQ(p->value(), 1);
  int deleted = 0;
  p.reset(new tracked(2), [&](tracked* t) {
    ++deleted;
    delete t;
  });
  EXPECT_EQ(tracked::live(), 1);
  allocation_log log;
  p.reset(new tracked(3), own::default_deleter(), test_allocator<int>(&log));
  EXPECT_EQ(deleted, 1);
  EXPECT_EQ(log.blocks_in_use(), 1);
  p.reset(std::unique_ptr<tracked>(new tracked(4)), test_allocator<int>(&log));
  EXPECT_EQ(p->value(), 4);
  EXPECT_EQ(log.blocks_in_use(), 1);
  p.reset();
  EXPECT_EQ(log.blocks_in_use(), 0);
  EXPECT_EQ(tracked::live(), 0);
}

// ---------------------------------------------------------------------------------------------
// N1851: allocator support

TEST(SharedPtrAllocator, BlockComesFromTheAllocatorAndGoesBack) {
  allocation_log log;
  {
    own::shared_ptr<tracked> p(new tracked, own::default_deleter(), test_allocator<char>(&log));
    EXPECT_EQ(log.allocations.load(), 1);
    own::shared_ptr<tracked> q = p;
    own::weak_ptr<tracked> w = p;
    p.reset();
    q.reset();
    EXPECT_EQ(tracked::live(), 0);
    EXPECT_EQ(log.blocks_in_use(), 1);  // the weak_ptr holds the block
  }
  EXPECT_EQ(log.blocks_in_use(), 0);
  EXPECT_EQ(log.bytes_in_use.load(), 0);
}

TEST(SharedPtrAllocator, MemoryResourcePointer) {
  allocation_log log;
  own_test::test_resource resource(&log);
  {
    own::shared_ptr<tracked> p(new tracked, own::default_deleter(), &resource);
    auto q = own::make_shared_object_with_alloc<tracked>(&resource, 4);
    auto r = own::allocate_shared<tracked>(std::pmr::polymorphic_allocator<tracked>(&resource), 5);
    EXPECT_EQ(log.blocks_in_use(), 3);
    EXPECT_EQ(q->value(), 4);
  }
  EXPECT_EQ(log.blocks_in_use(), 0);
}

// A type that takes its allocator first (std::allocator_arg), as std::tuple does.
struct leading_allocator_user {
  using allocator_type = std::pmr::polymorphic_allocator<char>;
  leading_allocator_user(std::allocator_arg_t, const allocator_type& a, int v) : resource(a.resource()), value(v) {}
  std::pmr::memory_resource* resource;
  int value;
};

// As with a polymorphic_allocator: what uses a pmr allocator is given the resource, trailing or
// leading, and what does not is constructed as it is.
TEST(SharedPtrAllocator, MemoryResourcePointerReachesWhatUsesAnAllocator) {
  allocation_log log;
  own_test::test_resource resource(&log);
  {
    auto s = own::allocate_shared<std::pmr::string>(&resource, "a string longer than any small buffer");
    EXPECT_EQ(s->get_allocator().resource(), &resource);
    EXPECT_EQ(log.blocks_in_use(), 2);  // the block, and the string's characters
    auto l = own::allocate_shared<leading_allocator_user>(&resource, 7);
    EXPECT_EQ(l->resource, &resource);
    EXPECT_EQ(l->value, 7);
    auto v = own::allocate_shared<std::pmr::vector<int>>(&resource, 3, 1);
    EXPECT_EQ(v->get_allocator().resource(), &resource);
    EXPECT_EQ(*v, (std::pmr::vector<int>{1, 1, 1}));
    auto plain = own::allocate_shared<std::string>(&resource, 2, 'x');
    EXPECT_EQ(*plain, "xx");
  }
  EXPECT_EQ(log.blocks_in_use(), 0);
}

TEST(SharedPtrAllocator, HousedBlockSizeIsExactlyWhatAllocateSharedAsksFor) {
  allocation_log log;
  own_test::test_resource resource(&log);
  {
    auto p = own::allocate_shared<tracked>(&resource, 1);
    EXPECT_EQ(log.bytes_in_use.load(), static_cast<long>(own::housed_block_size<tracked, own_test::test_resource*>));
    auto q = own::make_shared_object_with_alloc<std::array<char, 100>>(test_allocator<char>(&log));
    EXPECT_EQ(log.bytes_in_use.load(),
              static_cast<long>(own::housed_block_size<tracked, own_test::test_resource*> +
                                own::housed_block_size<std::array<char, 100>, test_allocator<char>>));
  }
  EXPECT_EQ(log.bytes_in_use.load(), 0);
  // The allocator's state is part of the block: an empty allocator adds nothing.
  static_assert(own::housed_block_size<long, std::allocator<int>> == own::housed_block_size<long>);
  static_assert(own::housed_block_size<long, test_allocator<char>> > own::housed_block_size<long>);
  static_assert(own::housed_block_size<std::array<char, 100>> >= 100);
}

TEST(SharedPtrAllocator, DeleterIsCalledWhenBlockAllocationThrows) {
  allocation_log log;
  int deleted = 0;
  tracked* raw = new tracked;
  log.throw_at = log.attempts + 1;
  EXPECT_THROW((own::shared_ptr<tracked>(raw,
                                         [&](tracked* t) {
                                           ++deleted;
                                           delete t;
                                         },
                                         test_allocator<int>(&log))),
               std::bad_alloc);
  EXPECT_EQ(deleted, 1);
  EXPECT_EQ(tracked::live(), 0);
  EXPECT_EQ(log.blocks_in_use(), 0);
}

// shared_ptr(p) is shared_ptr(p, default deleter, std::allocator): the same path with a throwing allocator.
TEST(SharedPtrAllocator, RawPointerIsDeletedWhenTheBlockCannotBeAllocated) {
  allocation_log log;
  tracked* raw = new tracked;
  log.throw_at = log.attempts + 1;
  EXPECT_THROW((own::shared_ptr<tracked>(raw, own::default_deleter(), test_allocator<int>(&log))), std::bad_alloc);
  EXPECT_EQ(tracked::live(), 0);
  EXPECT_EQ(log.blocks_in_use(), 0);
}

TEST(SharedPtrAllocator, UniquePtrKeepsItsObjectWhenAllocationThrows) {
  allocation_log log;
  int deleted = 0;
  auto deleter = [&](tracked* t) {
    ++deleted;
    delete t;
  };
  std::unique_ptr<tracked, decltype(deleter)> u(new tracked(8), deleter);
  log.throw_at = log.attempts + 1;
  EXPECT_THROW((own::shared_ptr<tracked>(std::move(u), test_allocator<int>(&log))), std::bad_alloc);
  ASSERT_TRUE(u);
  EXPECT_EQ(u->value(), 8);
  EXPECT_EQ(deleted, 0);
  own::shared_ptr<tracked> p(std::move(u), test_allocator<int>(&log));
  EXPECT_FALSE(u);
  EXPECT_EQ(p->value(), 8);
  p.reset();
  EXPECT_EQ(deleted, 1);
  EXPECT_EQ(log.blocks_in_use(), 0);
}

TEST(SharedPtrAllocator, UniquePtrWithReferenceDeleterAndEmptyUniquePtr) {
  struct counting_deleter {
    int calls = 0;
    void operator()(int* p) {
      ++calls;
      delete p;
    }
  };
  counting_deleter d;
  {
    std::unique_ptr<int, counting_deleter&> u(new int(1), d);
    own::shared_ptr<int> p(std::move(u));
    EXPECT_EQ(*p, 1);
    // std stores std::ref(d) for a reference deleter.
    EXPECT_NE(own::get_deleter<std::reference_wrapper<counting_deleter>>(p), nullptr);
  }
  EXPECT_EQ(d.calls, 1);
  {
    // ... and ref() of a reference_wrapper is that wrapper, not one wrapping it (from Microsoft
    // STL's Dev10_722102; libstdc++ 12 wraps it twice).
    std::reference_wrapper<counting_deleter> wrapped(d);
    std::unique_ptr<int, std::reference_wrapper<counting_deleter>&> u(new int(2), wrapped);
    own::shared_ptr<int> p(std::move(u));
    auto* stored = own::get_deleter<std::reference_wrapper<counting_deleter>>(p);
    ASSERT_NE(stored, nullptr);
    EXPECT_EQ(&stored->get(), &d);
    EXPECT_EQ(own::get_deleter<std::reference_wrapper<std::reference_wrapper<counting_deleter>>>(p), nullptr);
  }
  EXPECT_EQ(d.calls, 2);
  own::shared_ptr<int> empty(std::unique_ptr<int>{});
  EXPECT_EQ(empty.use_count(), 0);
}

TEST(SharedPtrAllocator, EveryAllocationFailurePointLeavesNothingBehind) {
  allocation_log log;
  int runs = own_test::for_each_failure_point(log, [&] {
    own::shared_ptr<tracked> p(new tracked(1), own::default_deleter(), test_allocator<int>(&log));
    auto q = own::allocate_shared<tracked>(test_allocator<tracked>(&log), 2);
    auto r = own::allocate_shared<tracked[]>(test_allocator<tracked>(&log), 3);
    auto s = own::make_shared_array_with_alloc<tracked>(test_allocator<int>(&log), 2);
    own::shared_ptr<tracked> u(std::unique_ptr<tracked>(new tracked(4)), test_allocator<int>(&log));
    EXPECT_EQ(tracked::live(), 1 + 1 + 3 + 2 + 1);
  });
  EXPECT_EQ(runs, 6);  // five allocations, each failing once, then a clean run
  EXPECT_EQ(log.blocks_in_use(), 0);
}

TEST(SharedPtrAllocator, ThrowingConstructorsMidArray) {
  allocation_log log;
  int runs = own_test::for_each_throwing_construction(log, [&] {
    auto a = own::allocate_shared<tracked[]>(test_allocator<tracked>(&log), 4, tracked(7));
    auto b = own::allocate_shared<tracked[2][2]>(test_allocator<tracked>(&log));
    auto c = own::make_shared<tracked[]>(3);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(a[i].value(), 7);
  });
  EXPECT_EQ(runs, 1 + 4 + 4 + 3 + 1);  // the prototype, 4 copies, 4 + 3 value-initialised, one clean run
  EXPECT_EQ(log.blocks_in_use(), 0);
}

// An allocator that records construct/destroy calls: allocate_shared must construct through it.
template <class T>
struct constructing_allocator : test_allocator<T> {
  template <class U>
  struct rebind {
    using other = constructing_allocator<U>;
  };
  int* constructs;
  int* destroys;
  constructing_allocator(allocation_log* log, int* c, int* d) : test_allocator<T>(log), constructs(c), destroys(d) {}
  template <class U>
  constructing_allocator(const constructing_allocator<U>& o) : test_allocator<T>(o.log()), constructs(o.constructs), destroys(o.destroys) {}
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ++*constructs;
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
  template <class U>
  void destroy(U* p) {
    ++*destroys;
    p->~U();
  }
};

TEST(SharedPtrAllocator, AllocateSharedConstructsAndDestroysThroughTheAllocator) {
  allocation_log log;
  int constructs = 0, destroys = 0;
  constructing_allocator<int> a(&log, &constructs, &destroys);
  {
    auto p = own::allocate_shared<tracked>(a, 3);
    auto arr = own::allocate_shared<tracked[]>(a, 4);
    auto grid = own::allocate_shared<int[2][3]>(a, {1, 2, 3});
    EXPECT_EQ(grid[1][2], 3);
    EXPECT_EQ(constructs, 1 + 4 + 6);
    auto raw = own::allocate_shared_for_overwrite<int[8]>(a);  // default-init: not through the allocator
    EXPECT_EQ(constructs, 1 + 4 + 6);
  }
  EXPECT_EQ(destroys, 1 + 4 + 6);
  EXPECT_EQ(log.blocks_in_use(), 0);
}

// ---------------------------------------------------------------------------------------------
// Housed objects and arrays

TEST(SharedPtrHoused, MakeSharedIsOneAllocation) {
  allocation_log log;
  auto p = own::allocate_shared<tracked>(test_allocator<tracked>(&log), 9);
  EXPECT_EQ(log.allocations.load(), 1);
  EXPECT_EQ(p->value(), 9);
  EXPECT_EQ(p.use_count(), 1);
  auto q = own::make_shared_object<tracked>(10);
  auto r = own::make_shared<tracked>(11);
  EXPECT_EQ(q->value() + r->value(), 21);
}

TEST(SharedPtrHoused, ObjectOutlivesSharedOwnersNotWeakOnes) {
  allocation_log log;
  own::weak_ptr<tracked> w;
  {
    auto p = own::allocate_shared<tracked>(test_allocator<tracked>(&log));
    w = p;
  }
  EXPECT_EQ(tracked::live(), 0);       // object destroyed with the last shared owner
  EXPECT_EQ(log.blocks_in_use(), 1);   // the block waits for the weak one
  w.reset();
  EXPECT_EQ(log.blocks_in_use(), 0);
}

TEST(SharedPtrHoused, ArraysValueInitialiseAndCopyTheInitialValue) {
  auto a = own::make_shared<int[]>(5);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(a[i], 0);
  auto b = own::make_shared<int[]>(3, 42);
  EXPECT_EQ(b[2], 42);
  auto c = own::make_shared<double[4]>();
  EXPECT_EQ(c[3], 0.0);
  auto d = own::make_shared<long[2]>(7L);
  EXPECT_EQ(d[0] + d[1], 14);
  auto e = own::make_shared<int[][2]>(3, {1, 2});
  EXPECT_EQ(e[0][0] + e[1][1] + e[2][0], 1 + 2 + 1);
  auto f = own::make_shared<int[2][2]>({5, 6});
  EXPECT_EQ(f[1][1], 6);
  auto g = own::make_shared_array<std::string>(2);
  EXPECT_TRUE(g[0].empty());
  auto empty = own::make_shared<int[]>(0);
  EXPECT_NE(empty.get(), nullptr);
  EXPECT_EQ(empty.use_count(), 1);
}

// [util.smartptr.shared.create]: the forms without an initial value value-initialise (allocate_shared:
// allocator_traits::construct(a, p) with no argument) and the _for_overwrite forms default-initialise,
// so neither asks the element type for a copy or a move: std::mutex and std::atomic have neither.
// Every array form and every kind of allocator, including arrays of arrays.
TEST(SharedPtrHoused, ArraysOfNeitherCopyableNorMovableElements) {
  static_assert(!std::is_copy_constructible_v<std::mutex> && !std::is_move_constructible_v<std::atomic<int>>);
  allocation_log log;
  std::pmr::unsynchronized_pool_resource arena;
  auto a = own::make_shared<std::mutex[]>(4);
  auto b = own::make_shared<std::atomic<int>[8]>();
  auto c = own::allocate_shared<std::mutex[]>(std::allocator<std::mutex>(), 4);
  auto d = own::make_shared_for_overwrite<std::mutex[]>(2);
  auto e = own::make_shared_for_overwrite<std::mutex[3]>();
  auto f = own::allocate_shared<std::atomic<int>[]>(test_allocator<int>(&log), 5);
  auto g = own::allocate_shared<std::atomic<int>[5]>(&arena);
  auto h = own::allocate_shared_for_overwrite<std::mutex[]>(test_allocator<int>(&log), 2);
  auto i = own::allocate_shared_for_overwrite<std::mutex[2]>(&arena);
  auto j = own::make_shared_array<std::mutex>(3);
  auto k = own::make_shared_array_with_alloc<std::atomic<int>>(&arena, 3);
  auto l = own::make_shared<std::atomic<int>[][2]>(3);
  auto m = own::allocate_shared<std::atomic<int>[2][2]>(test_allocator<int>(&log));
  EXPECT_EQ(log.blocks_in_use(), 3);
  for (auto* mutexes : {a.get(), c.get(), d.get(), e.get(), h.get(), i.get(), j.get()}) {
    mutexes[0].lock();
    mutexes[1].lock();
    mutexes[1].unlock();
    mutexes[0].unlock();
  }
  // Value-initialised: zero.
  for (std::size_t n = 0; n < 8; ++n) EXPECT_EQ(b[n].load(), 0);
  for (std::size_t n = 0; n < 5; ++n) EXPECT_EQ(f[n].load() + g[n].load(), 0);
  for (std::size_t n = 0; n < 3; ++n) EXPECT_EQ(k[n].load() + l[n][0].load() + l[n][1].load(), 0);
  EXPECT_EQ(m[0][0].load() + m[0][1].load() + m[1][0].load() + m[1][1].load(), 0);
  f.reset();
  h.reset();
  m.reset();
  EXPECT_EQ(log.blocks_in_use(), 0);
}

TEST(SharedPtrHoused, ArrayElementsAreDestroyedInReverseOrder) {
  static std::vector<int> order;
  struct recorder {
    int id;
    recorder() : id(static_cast<int>(order.size() + 100)) { order.push_back(id); }
    ~recorder() { order.push_back(-id); }
  };
  order.clear();
  { auto a = own::make_shared<recorder[]>(3); }
  EXPECT_EQ(order, (std::vector<int>{100, 101, 102, -102, -101, -100}));
}

TEST(SharedPtrHoused, OveralignedObjectsAndElements) {
  struct alignas(64) wide {
    char c = 1;
  };
  auto p = own::make_shared<wide>();
  auto a = own::make_shared<wide[]>(3);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(p.get()) % 64, 0u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(&a[1]) % 64, 0u);
}

TEST(SharedPtrHoused, HugeArrayLengthThrowsBadArrayNewLength) {
  EXPECT_THROW(own::make_shared<std::int64_t[]>(std::size_t(-1) / 4), std::bad_array_new_length);
  EXPECT_THROW((own::make_shared<int[][4]>(std::size_t(-1) / 2)), std::bad_array_new_length);
}

// An allocator that hands out memory filled with 0xAB, to see what was written to it.
template <class T>
struct dirty_allocator : test_allocator<T> {
  using test_allocator<T>::test_allocator;
  template <class U>
  dirty_allocator(const dirty_allocator<U>& o) : test_allocator<T>(o.log()) {}
  template <class U>
  struct rebind {
    using other = dirty_allocator<U>;
  };
  T* allocate(std::size_t n) {
    T* p = test_allocator<T>::allocate(n);
    std::memset(static_cast<void*>(p), 0xAB, n * sizeof(T));
    asm volatile("" : : "r"(p) : "memory");  // the fill must happen, whatever is built here next
    return p;
  }
};

// The byte at `p` as memory holds it: the barrier stops the optimiser from assuming what a
// default-initialised object contains.
unsigned char byte_at(const void* p) {
  asm volatile("" : : "r"(p) : "memory");
  unsigned char b;
  std::memcpy(&b, p, 1);
  return b;
}

TEST(SharedPtrHoused, ForOverwriteNeverZeroFills) {
  allocation_log log;
  dirty_allocator<char> a(&log);
  struct packet {
    std::uint32_t length;
    unsigned char payload[1500];
  };
  auto p = own::allocate_shared_for_overwrite<packet>(a);
  EXPECT_EQ(byte_at(&p->payload[0]), 0xAB);
  EXPECT_EQ(byte_at(&p->payload[1499]), 0xAB);
  auto b = own::allocate_shared_for_overwrite<unsigned char[]>(a, 64);
  EXPECT_EQ(byte_at(&b[63]), 0xAB);
  auto c = own::allocate_shared_for_overwrite<unsigned char[64]>(a);
  EXPECT_EQ(byte_at(&c[0]), 0xAB);
  // The value-initialising forms do zero.
  auto z = own::allocate_shared<unsigned char[]>(a, 64);
  EXPECT_EQ(byte_at(&z[63]), 0);
  auto zp = own::allocate_shared<packet>(a);
  EXPECT_EQ(byte_at(&zp->payload[1499]), 0);
  // The std names without an allocator.
  auto q = own::make_shared_for_overwrite<packet>();
  auto r = own::make_shared_for_overwrite<unsigned char[]>(16);
  auto s = own::make_shared_for_overwrite<unsigned char[16]>();
  EXPECT_TRUE(q && r && s);
}

// ---------------------------------------------------------------------------------------------
// Aliasing

TEST(SharedPtrAliasing, ConstructorAndResetShareOwnership) {
  struct pair {
    tracked first{1};
    tracked second{2};
  };
  auto whole = own::make_shared<pair>();
  own::shared_ptr<tracked> part(whole, &whole->second);
  EXPECT_EQ(whole.use_count(), 2);
  EXPECT_EQ(part->value(), 2);
  EXPECT_TRUE(part.owner_equal(whole));
  own::shared_ptr<tracked> other;
  other.reset(whole, &whole->first);
  EXPECT_EQ(other->value(), 1);
  EXPECT_EQ(whole.use_count(), 3);
  other.reset(std::move(whole), &part.get()[0]);
  EXPECT_FALSE(whole);
  EXPECT_EQ(other.use_count(), 2);
  part.reset();
  EXPECT_EQ(tracked::live(), 2);
  other.reset();
  EXPECT_EQ(tracked::live(), 0);
}

TEST(SharedPtrAliasing, EmptyOwnerWithNonNullPointerLikeStd) {
  int x = 0;
  own::shared_ptr<int> a(own::shared_ptr<int>(), &x);
  EXPECT_EQ(a.get(), &x);
  EXPECT_EQ(a.use_count(), 0);
}

// C++20 moves from an rvalue owner; C++17 std has no such overload, so there it copies.
TEST(SharedPtrAliasing, MoveFormLikeTheStandardInForce) {
  auto p = own::make_shared<std::pair<int, int>>(1, 2);
  own::shared_ptr<int> s(std::move(p), &p->second);
  EXPECT_EQ(*s, 2);
#if __cplusplus >= 202002L
  EXPECT_FALSE(p);
  EXPECT_EQ(p.use_count(), 0);
  EXPECT_EQ(s.use_count(), 1);
#else
  EXPECT_TRUE(p);
  EXPECT_EQ(s.use_count(), 2);
#endif
}

// ---------------------------------------------------------------------------------------------
// weak_ptr

TEST(WeakPtr, LockExpiredAndUseCount) {
  own::weak_ptr<tracked> w;
  EXPECT_TRUE(w.expired());
  EXPECT_FALSE(w.lock());
  auto p = own::make_shared<tracked>(3);
  w = p;
  EXPECT_EQ(w.use_count(), 1);
  {
    auto q = w.lock();
    EXPECT_EQ(q->value(), 3);
    EXPECT_EQ(w.use_count(), 2);
  }
  own::weak_ptr<tracked> w2 = w;
  own::weak_ptr<tracked> w3 = std::move(w2);
  EXPECT_TRUE(w2.expired());
  p.reset();
  EXPECT_TRUE(w.expired());
  EXPECT_TRUE(w3.expired());
  EXPECT_FALSE(w.lock());
  EXPECT_EQ(tracked::live(), 0);
}

TEST(WeakPtr, SharedPtrFromExpiredWeakThrowsBadWeakPtr) {
  own::weak_ptr<int> w;
  EXPECT_THROW(own::shared_ptr<int>{w}, std::bad_weak_ptr);
  {
    auto p = own::make_shared<int>(1);
    w = p;
    own::shared_ptr<int> q(w);
    EXPECT_EQ(q.use_count(), 2);
  }
  EXPECT_THROW(own::shared_ptr<int>{w}, std::bad_weak_ptr);
}

struct vbase {
  virtual ~vbase() = default;
  int v = 5;
};
struct vderived : virtual vbase {
  tracked t;
};

TEST(WeakPtr, ConversionThroughVirtualBaseAfterExpiry) {
  own::weak_ptr<vderived> w;
  {
    auto p = own::make_shared<vderived>();
    w = p;
    own::weak_ptr<vbase> alive = w;
    EXPECT_EQ(alive.lock()->v, 5);
  }
  // The object is gone: the conversion must not read its virtual-base offset (ASan checks).
  own::weak_ptr<vbase> dead = w;
  own::weak_ptr<vbase> moved = std::move(w);
  EXPECT_TRUE(dead.expired());
  EXPECT_TRUE(moved.expired());
  EXPECT_EQ(tracked::live(), 0);
}

TEST(WeakPtr, DeductionGuides) {
  auto p = own::make_shared<int>(1);
  own::weak_ptr w = p;
  own::shared_ptr s(w);
  own::shared_ptr u = std::unique_ptr<int>(new int(2));
  static_assert(std::is_same_v<decltype(w), own::weak_ptr<int>>);
  static_assert(std::is_same_v<decltype(s), own::shared_ptr<int>>);
  static_assert(std::is_same_v<decltype(u), own::shared_ptr<int>>);
  EXPECT_EQ(*s + *u, 3);
}

// ---------------------------------------------------------------------------------------------
// enable_shared_from_this

struct node : own::enable_shared_from_this<node> {
  tracked t;
};
struct derived_node : node {};

TEST(EnableSharedFromThis, EveryOwningConstructorHooksIt) {
  auto a = own::make_shared<node>();
  EXPECT_EQ(a->shared_from_this(), a);
  EXPECT_EQ(a.use_count(), 1);
  own::shared_ptr<node> b(new node);
  EXPECT_EQ(b->shared_from_this().get(), b.get());
  own::shared_ptr<node> c(std::unique_ptr<node>(new node));
  EXPECT_EQ(c->weak_from_this().lock(), c);
  allocation_log log;
  own::shared_ptr<node> d(new node, own::default_deleter(), test_allocator<int>(&log));
  EXPECT_EQ(d->shared_from_this(), d);
  own::shared_ptr<derived_node> e = own::make_shared<derived_node>();
  own::shared_ptr<node> from_base = e->shared_from_this();
  EXPECT_EQ(from_base.get(), e.get());
  const node& cn = *a;
  own::shared_ptr<const node> cp = cn.shared_from_this();
  EXPECT_EQ(cp.get(), a.get());
}

// [util.smartptr.shared.const]/1 enables shared_from_this through const_cast<remove_cv_t<Y>*>(p), so
// a volatile (or const volatile) Y is hooked as a const one is. (libstdc++ 12 and libc++ 16 refuse
// to compile these; MSVC's STL accepts them.)
TEST(EnableSharedFromThis, AVolatileOwnerHooksIt) {
  auto* raw = new node;
  own::shared_ptr<volatile node> v(static_cast<volatile node*>(raw));
  EXPECT_EQ(raw->shared_from_this().get(), raw);
  EXPECT_EQ(v.use_count(), 1);
  auto* raw_cv = new node;
  own::shared_ptr<const volatile node> cv(static_cast<const volatile node*>(raw_cv));
  EXPECT_TRUE(raw_cv->weak_from_this().lock().owner_equal(cv));
  auto made = own::make_shared<volatile node>();
  EXPECT_TRUE(const_cast<node*>(made.get())->shared_from_this().owner_equal(made));
  EXPECT_EQ(tracked::live(), 3);
}

TEST(EnableSharedFromThis, NotOwnedThrowsBadWeakPtrAndWeakIsEmpty) {
  node n;
  EXPECT_THROW(n.shared_from_this(), std::bad_weak_ptr);
  EXPECT_TRUE(n.weak_from_this().expired());
}

TEST(EnableSharedFromThis, ASecondOwnerGroupDoesNotStealIt) {
  auto a = own::make_shared<node>();
  own::shared_ptr<node> b(a.get(), [](node*) {});  // a second, non-owning group (C++17 rule)
  EXPECT_TRUE(a->shared_from_this().owner_equal(a));
}

TEST(EnableSharedFromThis, ObjectsCopyDoesNotCopyTheOwner) {
  auto a = own::make_shared<node>();
  node copy(*a);
  EXPECT_THROW(copy.shared_from_this(), std::bad_weak_ptr);
  *a = copy;
  EXPECT_EQ(a->shared_from_this(), a);
}

// A unique_ptr whose fancy pointer has no operator-> (so no raw address std::to_address could
// find): libstdc++ rejects taking it over; own asks for the address only to hook
// enable_shared_from_this, so it takes over one to a type without that base.
struct arrowless_deleter {
  struct pointer {
    int* raw = nullptr;
    pointer() = default;
    pointer(std::nullptr_t) noexcept {}
    explicit pointer(int* p) noexcept : raw(p) {}
    operator int*() const noexcept { return raw; }
    explicit operator bool() const noexcept { return raw != nullptr; }
    // NullablePointer's comparisons; C++20 rewrites some from others, leaving them unused there.
    [[maybe_unused]] friend bool operator==(pointer a, pointer b) noexcept { return a.raw == b.raw; }
    [[maybe_unused]] friend bool operator!=(pointer a, pointer b) noexcept { return a.raw != b.raw; }
    [[maybe_unused]] friend bool operator==(pointer a, std::nullptr_t) noexcept { return a.raw == nullptr; }
    friend bool operator!=(pointer a, std::nullptr_t) noexcept { return a.raw != nullptr; }
  };
  void operator()(pointer p) const { delete p.raw; }
};

TEST(EnableSharedFromThis, UniquePtrWithAnArrowlessFancyPointerToAnUnhookableType) {
  own::shared_ptr<int> p(std::unique_ptr<int, arrowless_deleter>(arrowless_deleter::pointer(new int(5))));
  EXPECT_EQ(*p, 5);
  EXPECT_NE(own::get_deleter<arrowless_deleter>(p), nullptr);
}

// ---------------------------------------------------------------------------------------------
// Casts, get_deleter, comparisons, hashing, streaming, owner order

TEST(SharedPtrCasts, AllFourCopyAndMoveForms) {
  own::shared_ptr<base> b = own::make_shared<derived>();
  auto d = own::static_pointer_cast<derived>(b);
  EXPECT_EQ(d->d, 2);
  EXPECT_EQ(b.use_count(), 2);
  auto d2 = own::dynamic_pointer_cast<derived>(b);
  EXPECT_EQ(d2.get(), d.get());
  own::shared_ptr<const base> cb = b;
  auto mb = own::const_pointer_cast<base>(cb);
  EXPECT_EQ(mb.get(), b.get());
  auto bytes = own::reinterpret_pointer_cast<unsigned char>(b);
  EXPECT_EQ(static_cast<void*>(bytes.get()), static_cast<void*>(b.get()));
  EXPECT_EQ(b.use_count(), 6);

  // The rvalue forms move the reference in C++20, and copy it in C++17 (as std).
  auto moved = own::static_pointer_cast<derived>(std::move(d));
  auto moved2 = own::const_pointer_cast<base>(std::move(cb));
  auto moved3 = own::reinterpret_pointer_cast<char>(std::move(bytes));
  own::shared_ptr<base> plain = own::make_shared<base>();
  auto failed = own::dynamic_pointer_cast<derived>(std::move(plain));
  EXPECT_FALSE(failed);
  EXPECT_TRUE(plain);  // a failed dynamic cast leaves the source alone
  auto ok = own::dynamic_pointer_cast<derived>(std::move(d2));
  EXPECT_TRUE(ok);
#if __cplusplus >= 202002L
  EXPECT_FALSE(d);
  EXPECT_FALSE(cb);
  EXPECT_FALSE(bytes);
  EXPECT_FALSE(d2);
  EXPECT_EQ(b.use_count(), 6);
#else
  EXPECT_TRUE(d && cb && bytes && d2);
  EXPECT_EQ(b.use_count(), 10);
#endif
}

TEST(SharedPtrCasts, ArrayCasts) {
  own::shared_ptr<int[]> a = own::make_shared<int[]>(2, 1);
  auto c = own::const_pointer_cast<const int[]>(a);
  EXPECT_EQ(c[1], 1);
  auto s = own::static_pointer_cast<int[]>(c.use_count() ? a : a);
  EXPECT_EQ(s.get(), a.get());
}

TEST(SharedPtrGetDeleter, OnlyTheExactDeleterType) {
  struct my_deleter {
    int tag = 42;
    void operator()(int* p) const { delete p; }
  };
  own::shared_ptr<int> p(new int, my_deleter());
  ASSERT_NE(own::get_deleter<my_deleter>(p), nullptr);
  EXPECT_EQ(own::get_deleter<my_deleter>(p)->tag, 42);
  EXPECT_EQ(own::get_deleter<own::default_deleter>(p), nullptr);
  EXPECT_EQ(own::get_deleter<my_deleter>(own::make_shared<int>()), nullptr);
  EXPECT_EQ(own::get_deleter<my_deleter>(own::shared_ptr<int>()), nullptr);
  // The deleter lives as long as a weak reference does.
  own::weak_ptr<int> w = p;
  own::shared_ptr<int> alias(p, p.get());
  p.reset();
  EXPECT_NE(own::get_deleter<my_deleter>(alias), nullptr);
}

TEST(SharedPtrCompare, ByGetLikeStd) {
  auto arr = own::make_shared<int[]>(2);
  own::shared_ptr<int> a(arr, &arr[0]);
  own::shared_ptr<int> b(arr, &arr[1]);
  own::shared_ptr<int> n;
  EXPECT_TRUE(a == a);
  EXPECT_TRUE(a != b);
  EXPECT_TRUE(a < b);
  EXPECT_TRUE(b > a);
  EXPECT_TRUE(a <= a && a >= a);
  EXPECT_TRUE(n == nullptr);
  EXPECT_TRUE(nullptr == n);
  EXPECT_TRUE(a != nullptr);
  EXPECT_TRUE(nullptr != a);
  EXPECT_FALSE(a < nullptr);
  EXPECT_TRUE(nullptr < a);
  EXPECT_TRUE(a > nullptr);
  EXPECT_TRUE(a >= nullptr);
  EXPECT_TRUE(nullptr <= a);
  own::shared_ptr<const int> ca = a;
  EXPECT_TRUE(ca == a);
#if __cplusplus >= 202002L
  EXPECT_TRUE((a <=> b) < 0);
  EXPECT_TRUE((a <=> a) == 0);
  EXPECT_TRUE((a <=> nullptr) > 0);
#endif
  std::set<own::shared_ptr<int>> ordered{b, a};
  EXPECT_EQ(*ordered.begin(), a);
}

TEST(SharedPtrHash, HashesGetAndStreamsGet) {
  auto p = own::make_shared<int>(1);
  EXPECT_EQ(std::hash<own::shared_ptr<int>>()(p), std::hash<int*>()(p.get()));
  std::unordered_set<own::shared_ptr<int>> set{p};
  EXPECT_EQ(set.count(p), 1u);
  std::ostringstream a, b;
  a << p;
  b << p.get();
  EXPECT_EQ(a.str(), b.str());
}

TEST(SharedPtrOwner, OwnerBeforeHashAndEqual) {
  auto pair = own::make_shared<std::pair<int, int>>(1, 2);
  own::shared_ptr<int> first(pair, &pair->first);
  own::shared_ptr<int> second(pair, &pair->second);
  auto other = own::make_shared<int>(3);
  own::weak_ptr<int> wfirst = first;
  EXPECT_FALSE(first.owner_before(second));
  EXPECT_FALSE(second.owner_before(first));
  EXPECT_TRUE(first.owner_before(other) != other.owner_before(first));
  EXPECT_TRUE(first.owner_equal(second));
  EXPECT_TRUE(first.owner_equal(wfirst));
  EXPECT_TRUE(wfirst.owner_equal(pair));
  EXPECT_FALSE(first.owner_equal(other));
  EXPECT_EQ(first.owner_hash(), second.owner_hash());
  EXPECT_EQ(first.owner_hash(), wfirst.owner_hash());

  std::map<own::shared_ptr<int>, int, own::owner_less<own::shared_ptr<int>>> by_owner;
  by_owner[first] = 1;
  by_owner[second] = 2;  // same owner: same key
  EXPECT_EQ(by_owner.size(), 1u);
  std::set<own::weak_ptr<int>, own::owner_less<>> weak_set{wfirst, own::weak_ptr<int>(other)};
  EXPECT_EQ(weak_set.size(), 2u);
  EXPECT_EQ(weak_set.count(wfirst), 1u);
  own::owner_less<own::weak_ptr<int>> wl;
  EXPECT_FALSE(wl(wfirst, first));
  std::unordered_set<own::weak_ptr<int>, own::owner_hash, own::owner_equal> weak_hashed{wfirst};
  EXPECT_EQ(weak_hashed.count(own::weak_ptr<int>(second)), 1u);
  by_owner.clear();
  pair.reset();
  first.reset();
  second.reset();
  EXPECT_TRUE(wfirst.expired());
  EXPECT_EQ(weak_hashed.count(wfirst), 1u);  // owner-based keys survive expiry
}

// unique(): C++17's, removed by C++20 but kept there (deprecated) as libstdc++ keeps it.
#if __cplusplus >= 202002L
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
TEST(SharedPtr, Unique) {
  own::shared_ptr<int> empty;
  EXPECT_FALSE(empty.unique());
  auto p = own::make_shared<int>();
  EXPECT_TRUE(p.unique());
  auto q = p;
  EXPECT_FALSE(p.unique());
  q.reset();
  EXPECT_TRUE(p.unique());
}
#if __cplusplus >= 202002L
#pragma GCC diagnostic pop
#endif

// A type that is incomplete where shared_ptr members are declared, like std allows.
struct incomplete;
struct holder {
  own::shared_ptr<incomplete> p;
  own::weak_ptr<incomplete> w;
};
struct incomplete {
  tracked t;
};

TEST(SharedPtr, IncompleteTypeAtDeclaration) {
  {
    holder h;
    h.p = own::make_shared<incomplete>();
    h.w = h.p;
    EXPECT_EQ(tracked::live(), 1);
  }
  EXPECT_EQ(tracked::live(), 0);
}

// ---------------------------------------------------------------------------------------------
// Interoperation with std::shared_ptr (own::shared_ptr(const std::shared_ptr<Y>&), own::to_std)

bool same_owner(const std::shared_ptr<const void>& a, const std::shared_ptr<const void>& b) {
  return !a.owner_before(b) && !b.owner_before(a);
}
template <class T, class U>
bool same_owner(const own::shared_ptr<T>& a, const own::shared_ptr<U>& b) {
  return !a.owner_before(b) && !b.owner_before(a);
}

TEST(SharedPtrStdInterop, OwnFromStdSharesOwnership) {
  {
    std::shared_ptr<tracked> s = std::make_shared<tracked>(1);
    own::shared_ptr<tracked> o(s);
    EXPECT_EQ(o.get(), s.get());
    EXPECT_EQ(o.use_count(), 1);  // own's owners of its block
    EXPECT_EQ(s.use_count(), 2);  // the block is one more owner on std's side
    own::shared_ptr<tracked> o2 = o;
    EXPECT_EQ(s.use_count(), 2);
    s.reset();
    EXPECT_EQ(tracked::live(), 1);  // own keeps it alive
    EXPECT_EQ(o->value(), 1);
    o.reset();
    o2.reset();
    EXPECT_EQ(tracked::live(), 0);  // and the last owner, own's, destroys it
  }
  static_assert(!std::is_convertible_v<std::shared_ptr<int>, own::shared_ptr<int>>, "explicit, as a conversion between libraries");
  static_assert(std::is_constructible_v<own::shared_ptr<const void>, std::shared_ptr<int>>);
  static_assert(!std::is_constructible_v<own::shared_ptr<int>, std::shared_ptr<long>>);
}

TEST(SharedPtrStdInterop, FromAnRvalueTheStdPointerIsEmptied) {
  std::shared_ptr<int> s = std::make_shared<int>(3);
  std::weak_ptr<int> w = s;
  own::shared_ptr<int> o(std::move(s));
  EXPECT_FALSE(s);  // NOLINT(bugprone-use-after-move): what the constructor promises
  EXPECT_EQ(w.use_count(), 1);  // own's block only
  EXPECT_EQ(*o, 3);
  o.reset();
  EXPECT_TRUE(w.expired());
}

TEST(SharedPtrStdInterop, ToStdSharesOwnership) {
  {
    own::shared_ptr<tracked> o = own::make_shared<tracked>(2);
    std::shared_ptr<tracked> s = own::to_std(o);
    EXPECT_EQ(s.get(), o.get());
    EXPECT_EQ(o.use_count(), 2);  // std's block holds one of o's references
    EXPECT_EQ(s.use_count(), 1);
    o.reset();
    EXPECT_EQ(s->value(), 2);
    std::weak_ptr<tracked> w = s;
    s.reset();
    EXPECT_EQ(tracked::live(), 0);  // released when std's last owner goes, not with its weak_ptr
    EXPECT_TRUE(w.expired());
  }
}

TEST(SharedPtrStdInterop, RoundTripsHandBackTheOriginalBlock) {
  std::shared_ptr<int> s = std::make_shared<int>(4);
  own::shared_ptr<int> o(s);
  std::shared_ptr<int> back = own::to_std(o);
  EXPECT_TRUE(same_owner(back, s));  // std -> own -> std: std's own block again
  EXPECT_EQ(s.use_count(), 3);       // s, back, and own's block

  own::shared_ptr<int> p = own::make_shared<int>(5);
  std::shared_ptr<int> t = own::to_std(p);
  own::shared_ptr<int> again(t);
  EXPECT_TRUE(same_owner(again, p));  // own -> std -> own: own's block again
  EXPECT_EQ(p.use_count(), 3);        // p, again, and std's block

  // And through more conversions, still one block each way.
  own::shared_ptr<const void> erased(own::to_std(own::shared_ptr<int>(s)));
  EXPECT_EQ(erased.get(), static_cast<const void*>(s.get()));
}

TEST(SharedPtrStdInterop, AliasingAndEmptyPointersCarryOver) {
  struct pair_of { int a; int b; };
  std::shared_ptr<pair_of> whole = std::make_shared<pair_of>(pair_of{1, 2});
  std::shared_ptr<int> member(whole, &whole->b);
  own::shared_ptr<int> o(member);
  EXPECT_EQ(o.get(), &whole->b);
  EXPECT_EQ(own::to_std(o).get(), &whole->b);
  EXPECT_TRUE(same_owner(own::to_std(o), whole));

  own::shared_ptr<int> none(std::shared_ptr<int>{});
  EXPECT_FALSE(none);
  EXPECT_EQ(none.use_count(), 0);
  EXPECT_EQ(own::to_std(own::shared_ptr<int>()).use_count(), 0);

  int outside = 0;
  std::shared_ptr<int> unowned(std::shared_ptr<int>(), &outside);  // a pointer with no owner
  own::shared_ptr<int> still_unowned(unowned);
  EXPECT_EQ(still_unowned.get(), &outside);
  EXPECT_EQ(still_unowned.use_count(), 0);

  std::shared_ptr<int> owns_null(static_cast<int*>(nullptr), [](int*) {});  // an owner, no object
  own::shared_ptr<int> o_null(owns_null);
  EXPECT_EQ(o_null.get(), nullptr);
  EXPECT_EQ(o_null.use_count(), 1);
}

TEST(SharedPtrStdInterop, ArraysConvertBothWays) {
  own::shared_ptr<int[]> o = own::make_shared<int[]>(3, 9);
  std::shared_ptr<int[]> s = own::to_std(o);
  EXPECT_EQ(s[2], 9);
  own::shared_ptr<int[]> back(s);
  EXPECT_TRUE(same_owner(back, o));
}

// ---------------------------------------------------------------------------------------------
// Threads (these run under TSan in CI)

TEST(SharedPtrThreads, CopiesAndReleasesFromTwoThreadsDestroyOnce) {
  constexpr int rounds = 2000;
  constexpr int copies = 250;  // 2 threads x 2000 x 250 = 10^6 copy/release pairs
  const long destroyed_before = tracked::destroyed();
  for (int round = 0; round < rounds; ++round) {
    auto p = own::make_shared<tracked>(round);
    own::weak_ptr<tracked> w = p;
    auto work = [](own::shared_ptr<tracked> mine) {
      for (int i = 0; i < copies; ++i) {
        own::shared_ptr<tracked> copy = mine;
        EXPECT_GE(copy->value(), 0);
      }
    };
    std::thread a(work, p);
    std::thread b(work, std::move(p));
    a.join();
    b.join();
    EXPECT_TRUE(w.expired());
  }
  EXPECT_EQ(tracked::destroyed() - destroyed_before, rounds);
  EXPECT_EQ(tracked::live(), 0);
}

TEST(SharedPtrThreads, WeakLockRacesTheLastRelease) {
  constexpr int rounds = 20000;
  allocation_log log;
  int locked_alive = 0;
  for (int round = 0; round < rounds; ++round) {
    auto p = own::allocate_shared<tracked>(test_allocator<tracked>(&log), 1);
    own::weak_ptr<tracked> w = p;
    std::thread locker([&locked_alive, w = std::move(w)] {
      if (auto q = w.lock()) {
        EXPECT_EQ(q->value(), 1);  // a successful lock always sees a live object
        ++locked_alive;
      }
    });
    p.reset();
    locker.join();
    EXPECT_EQ(log.blocks_in_use(), 0);
  }
  EXPECT_EQ(tracked::live(), 0);
  EXPECT_EQ(log.blocks_in_use(), 0);
  RecordProperty("locked_alive", locked_alive);
}

// ---------------------------------------------------------------------------------------------
// Checked mode

#ifdef OWN_CHECKED
TEST(SharedPtrCheckedDeathTest, DereferencingEmptyAborts) {
  own::shared_ptr<int> p;
  EXPECT_DEATH((void)*p, "dereferencing an empty own::shared_ptr");
  own::shared_ptr<std::pair<int, int>> q;
  EXPECT_DEATH((void)q->first, "dereferencing an empty own::shared_ptr");
}
TEST(SharedPtrCheckedDeathTest, IndexOutOfRangeAborts) {
  auto a = own::make_shared<int[4]>();
  EXPECT_DEATH((void)a[4], "index 4 out of range");
  EXPECT_DEATH((void)a[-1], "index -1 out of range");
  own::shared_ptr<int[]> e;
  EXPECT_DEATH((void)e[0], "indexing an empty own::shared_ptr");
}
#endif

}  // namespace

