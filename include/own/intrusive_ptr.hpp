// SPDX-License-Identifier: BSL-1.0
/// @file
/// own::intrusive_ptr: a pointer-sized owning pointer for objects that carry their own reference
/// count, with the interface of boost::intrusive_ptr. Use it where a shared_ptr's separate control
/// block is too costly, or where a raw `this` must be able to become an owning pointer again.
///
/// intrusive_ptr<T> never touches the count itself: it calls `intrusive_ptr_add_ref(T*)` and
/// `intrusive_ptr_release(T*)`, found by argument-dependent lookup. Deriving from
/// own::intrusive_ref_counter supplies both; make_intrusive and allocate_intrusive create objects.
///
/// Usage:
///
///     struct node : own::intrusive_ref_counter<node> {
///       explicit node(int v) : value(v) {}
///       int value;
///       own::intrusive_ptr<node> next;
///     };
///
///     own::intrusive_ptr<node> list = own::make_intrusive<node>(1);
///     list->next = own::allocate_intrusive<node>(std::pmr::new_delete_resource(), 2);
///     own::intrusive_ptr<node> second = list->next.get();  // a raw pointer is enough to share
///     assert(second->use_count() == 2 && list->use_count() == 1);
///
/// Design notes
///
/// * Where allocate_intrusive keeps the allocator. The object lives in a block
///   `[allocation_header | allocator copy | object]`; the header holds a pointer to the function
///   that destroys the object and gives the block back, instantiated for the exact allocated type
///   and allocator. The release hook only knows the counter's `Derived`, which may be a base of the
///   allocated type and at any offset inside it, so intrusive_ref_counter records, next to the
///   count, the distance from itself back to the header (0: the object came from `new`).
///   This works for any T: final classes (a wrapper `allocated_object<T, Alloc> : T` could not
///   derive from them), and bases without a virtual destructor (the stored function destroys the
///   most-derived type directly, never through a base pointer). It costs 4 bytes per counted
///   object, so intrusive_ref_counter is 8 bytes where Boost's is 4; the count stays 32 bits.
///
/// * Memory orders of thread_safe_counter. An increment is relaxed: whoever adds a reference already
///   holds one, or a raw pointer that some reference keeps valid, so it publishes nothing. A
///   decrement is acq_rel: release so that this owner's uses of the object happen before its
///   destruction, acquire so that the last owner sees every other owner's uses. (A release decrement
///   plus an acquire fence on the last one would be as correct, but ThreadSanitizer does not model
///   standalone fences, and on x86 both are the same `lock xadd`.)
///   A sole owner skips the read-modify-write, as own::shared_ptr's does: a decrement that loads
///   (acquire) a count of 1 destroys the object after a plain store of 0 (no read-modify-write;
///   the store only lets use_count() read 0 in the destructor, as with Boost). Any holder of a raw T*
///   can add a reference, yet this is sound, because intrusive_ptr_add_ref(p) is only valid while a
///   reference to *p is held and not yet released (else it races with the destruction). So every
///   increment happens before the release of a reference that was counted when it was made, and,
///   following that chain, either before this owner's own release (then the load sees it) or
///   before another owner's decrement that the load must then also see; a load that reads 1 thus
///   sees every other reference already released (their release decrements, all read-modify-
///   writes, form one release sequence that the acquire load synchronizes with), and none can be
///   added any more. The argument breaks for a hook that revives a count from zero ("add a
///   reference unless the count is zero", over a registry of raw pointers): intrusive_ref_counter
///   offers none, and its count is private.
///
/// * No aliasing constructor (an `intrusive_ptr<U>` that owns a T but points at a U inside it, a
///   long-standing Boost request): the pointer to the owner is the only state, by design.
///
/// * With OWN_CHECKED defined, dereferencing an empty intrusive_ptr prints a message to stderr and
///   aborts.
#pragma once

#include "detail/cxx17_required.hpp"  // first, so that C++14 gets one error, not hundreds

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include <own/detail/allocator_adapter.hpp>
#include <own/detail/checked.hpp>
#include <own/detail/exceptions.hpp>
#include <own/detail/std_functional.hpp>
#include <own/detail/three_way.hpp>

namespace own {

namespace detail {

// The first bytes of every block made by allocate_intrusive.
struct allocation_header {
  void (*destroy)(allocation_header*) noexcept;  // destroys the object and frees the block
};

struct intrusive_counter_access;

}  // namespace detail

/// A pointer that owns a reference counted by the object itself, through the hooks
/// intrusive_ptr_add_ref and intrusive_ptr_release (Boost's intrusive_ptr; see the file
/// documentation).
template <class T>
class intrusive_ptr {
 public:
  /// The type pointed to.
  using element_type = T;

  // Requirement on T, for every member: the hooks intrusive_ptr_add_ref(T*) and
  // intrusive_ptr_release(T*) are visible by ADL where the member is instantiated, and do not throw.

  /// Empty.
  constexpr intrusive_ptr() noexcept = default;
  /// Takes a reference to *p (unless add_ref is false: then adopts one that the caller owned).
  intrusive_ptr(T* p, bool add_ref = true) noexcept : p_(p) {
    if (p_ != nullptr && add_ref) intrusive_ptr_add_ref(p_);
  }
  /// Copies take a reference; moves take r's, leaving r empty.
  ///@{
  intrusive_ptr(const intrusive_ptr& r) noexcept : intrusive_ptr(r.p_) {}
  intrusive_ptr(intrusive_ptr&& r) noexcept : p_(r.p_) { r.p_ = nullptr; }
  template <class U, class = std::enable_if_t<std::is_convertible_v<U*, T*>>>
  intrusive_ptr(const intrusive_ptr<U>& r) noexcept : intrusive_ptr(r.get()) {}
  template <class U, class = std::enable_if_t<std::is_convertible_v<U*, T*>>>
  intrusive_ptr(intrusive_ptr<U>&& r) noexcept : p_(r.detach()) {}
  ///@}

  ~intrusive_ptr() {
    if (p_ != nullptr) intrusive_ptr_release(p_);
  }

  /// As the constructors, then swap: the old reference is released last.
  ///@{
  intrusive_ptr& operator=(const intrusive_ptr& r) noexcept {
    intrusive_ptr(r).swap(*this);
    return *this;
  }
  intrusive_ptr& operator=(intrusive_ptr&& r) noexcept {
    intrusive_ptr(std::move(r)).swap(*this);
    return *this;
  }
  template <class U, class = std::enable_if_t<std::is_convertible_v<U*, T*>>>
  intrusive_ptr& operator=(const intrusive_ptr<U>& r) noexcept {
    intrusive_ptr(r).swap(*this);
    return *this;
  }
  template <class U, class = std::enable_if_t<std::is_convertible_v<U*, T*>>>
  intrusive_ptr& operator=(intrusive_ptr<U>&& r) noexcept {
    intrusive_ptr(std::move(r)).swap(*this);
    return *this;
  }
  intrusive_ptr& operator=(T* p) noexcept {
    intrusive_ptr(p).swap(*this);
    return *this;
  }

  ///@}

  /// intrusive_ptr(args...).swap(*this).
  ///@{
  void reset() noexcept { intrusive_ptr().swap(*this); }
  void reset(T* p) noexcept { intrusive_ptr(p).swap(*this); }
  void reset(T* p, bool add_ref) noexcept { intrusive_ptr(p, add_ref).swap(*this); }
  ///@}

  /// Gives up ownership without releasing: the caller now owns the reference (if not null).
  T* detach() noexcept { return std::exchange(p_, nullptr); }

  /// The pointer (null if empty).
  T* get() const noexcept { return p_; }
  /// Precondition: not empty (checked under OWN_CHECKED).
  T& operator*() const noexcept {
    OWN_CHECK(p_ != nullptr, "operator* on an empty own::intrusive_ptr");
    return *p_;
  }
  /// Precondition: not empty (checked under OWN_CHECKED).
  T* operator->() const noexcept {
    OWN_CHECK(p_ != nullptr, "operator-> on an empty own::intrusive_ptr");
    return p_;
  }
  /// Whether get() is not null.
  explicit operator bool() const noexcept { return p_ != nullptr; }

  /// Exchanges the pointers.
  void swap(intrusive_ptr& r) noexcept { std::swap(p_, r.p_); }

 private:
  T* p_ = nullptr;
};

/// a.swap(b).
template <class T>
void swap(intrusive_ptr<T>& a, intrusive_ptr<T>& b) noexcept {
  a.swap(b);
}

/// Comparisons of get() with get(), a raw pointer or nullptr.
///@{
template <class T, class U>
bool operator==(const intrusive_ptr<T>& a, const intrusive_ptr<U>& b) noexcept {
  return a.get() == b.get();
}
template <class T, class U>
bool operator!=(const intrusive_ptr<T>& a, const intrusive_ptr<U>& b) noexcept {
  return a.get() != b.get();
}
template <class T, class U>
bool operator==(const intrusive_ptr<T>& a, U* b) noexcept {
  return a.get() == b;
}
template <class T, class U>
bool operator!=(const intrusive_ptr<T>& a, U* b) noexcept {
  return a.get() != b;
}
template <class T, class U>
bool operator==(T* a, const intrusive_ptr<U>& b) noexcept {
  return a == b.get();
}
template <class T, class U>
bool operator!=(T* a, const intrusive_ptr<U>& b) noexcept {
  return a != b.get();
}
template <class T>
bool operator==(const intrusive_ptr<T>& a, std::nullptr_t) noexcept {
  return !a;
}
template <class T>
bool operator!=(const intrusive_ptr<T>& a, std::nullptr_t) noexcept {
  return static_cast<bool>(a);
}
template <class T>
bool operator==(std::nullptr_t, const intrusive_ptr<T>& b) noexcept {
  return !b;
}
template <class T>
bool operator!=(std::nullptr_t, const intrusive_ptr<T>& b) noexcept {
  return static_cast<bool>(b);
}

///@}

/// A total order (std::less), so that intrusive_ptrs can key ordered containers.
template <class T, class U>
bool operator<(const intrusive_ptr<T>& a, const intrusive_ptr<U>& b) noexcept {
  return std::less<std::common_type_t<T*, U*>>()(a.get(), b.get());
}

#if OWN_THREE_WAY_COMPARISON
/// Three-way comparisons of get() (C++20).
///@{
template <class T, class U>
std::strong_ordering operator<=>(const intrusive_ptr<T>& a, const intrusive_ptr<U>& b) noexcept {
  return std::compare_three_way()(a.get(), b.get());
}
template <class T, class U>
std::strong_ordering operator<=>(const intrusive_ptr<T>& a, U* b) noexcept {
  return std::compare_three_way()(a.get(), b);
}
template <class T>
std::strong_ordering operator<=>(const intrusive_ptr<T>& a, std::nullptr_t) noexcept {
  return std::compare_three_way()(a.get(), static_cast<T*>(nullptr));
}
///@}
#endif

/// os << p.get(), as Boost's: an operator<< the user declared for T* is the one called.
template <class Char, class Traits, class T>
std::basic_ostream<Char, Traits>& operator<<(std::basic_ostream<Char, Traits>& os, const intrusive_ptr<T>& p) {
  return os << p.get();
}

/// Boost's get_pointer, found by argument-dependent lookup: generic code (Boost's bind and mem_fn,
/// and binders like them) reaches the raw pointer of any smart pointer through it.
template <class T>
T* get_pointer(const intrusive_ptr<T>& p) noexcept {
  return p.get();
}

/// Boost's hash_value, found by argument-dependent lookup (boost::hash, hash_combine and Boost's
/// unordered containers hash through it): std::hash<intrusive_ptr<T>>'s value, the hash of get().
template <class T>
std::size_t hash_value(const intrusive_ptr<T>& p) noexcept {
  return std::hash<T*>()(p.get());
}

/// The casts return an empty pointer for an empty argument. The rvalue forms move the reference
/// instead of adding one; a failed dynamic_pointer_cast leaves its argument untouched.
///@{
template <class T, class U>
intrusive_ptr<T> static_pointer_cast(const intrusive_ptr<U>& p) noexcept {
  return intrusive_ptr<T>(static_cast<T*>(p.get()));
}
template <class T, class U>
intrusive_ptr<T> static_pointer_cast(intrusive_ptr<U>&& p) noexcept {
  return intrusive_ptr<T>(static_cast<T*>(p.detach()), false);
}
template <class T, class U>
intrusive_ptr<T> const_pointer_cast(const intrusive_ptr<U>& p) noexcept {
  return intrusive_ptr<T>(const_cast<T*>(p.get()));
}
template <class T, class U>
intrusive_ptr<T> const_pointer_cast(intrusive_ptr<U>&& p) noexcept {
  return intrusive_ptr<T>(const_cast<T*>(p.detach()), false);
}
template <class T, class U>
intrusive_ptr<T> dynamic_pointer_cast(const intrusive_ptr<U>& p) noexcept {
  return intrusive_ptr<T>(dynamic_cast<T*>(p.get()));
}
template <class T, class U>
intrusive_ptr<T> dynamic_pointer_cast(intrusive_ptr<U>&& p) noexcept {
  T* cast = dynamic_cast<T*>(p.get());
  if (cast == nullptr) return intrusive_ptr<T>();
  static_cast<void>(p.detach());
  return intrusive_ptr<T>(cast, false);
}

///@}

// gcc 12's flow warnings follow paths the counts rule out: -Wfree-nonheap-object, when it inlines
// allocate_intrusive and the last release together, sees `delete` (taken only for objects from
// `new`) on a pointer into the allocator's block; -Wuse-after-free, where a plain count's start
// value is unknown, assumes it wrapped around to zero and that the object is gone.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wfree-nonheap-object"
#if __GNUC__ >= 12
#pragma GCC diagnostic ignored "-Wuse-after-free"
#endif
#endif

/// Counter policies for intrusive_ref_counter. `decrement` returns the count after it: 0 when the
/// caller held the last reference.
struct thread_safe_counter {
  /// The counter's type, and its operations for intrusive_ref_counter.
  ///@{
  using type = std::atomic<unsigned int>;
  static unsigned int load(const type& c) noexcept { return c.load(std::memory_order_relaxed); }
  static void increment(type& c) noexcept { c.fetch_add(1, std::memory_order_relaxed); }
  static unsigned int decrement(type& c) noexcept {
    if (c.load(std::memory_order_acquire) == 1) {  // the sole owner: see the design notes
      c.store(0, std::memory_order_relaxed);  // so that use_count() reads 0 in the destructor, as Boost's
      return 0;
    }
    return c.fetch_sub(1, std::memory_order_acq_rel) - 1;
  }
///@}
};

/// The counter policy for objects used by one thread at a time: a plain unsigned int.
struct thread_unsafe_counter {
  /// The counter's type, and its operations for intrusive_ref_counter.
  ///@{
  using type = unsigned int;
  static unsigned int load(const type& c) noexcept { return c; }
  static void increment(type& c) noexcept { ++c; }
  static unsigned int decrement(type& c) noexcept { return --c; }
  ///@}
};

/// Base class that gives Derived a reference count and the two hooks. The last release deletes the
/// object with `delete static_cast<const Derived*>(p)` (so a class deriving from Derived needs a
/// virtual destructor in Derived), unless allocate_intrusive made it: then it goes back to its
/// allocator, destroyed as the type allocate_intrusive constructed.
/// A copy of a counted object is a new object: it starts with no references, and assignment leaves
/// the target's count alone.
template <class Derived, class CounterPolicy = thread_safe_counter>
class intrusive_ref_counter {
 public:
  /// No references: a copy is a new object (see above), and assignment leaves the count alone.
  ///@{
  intrusive_ref_counter() noexcept : count_(0) {}
  intrusive_ref_counter(const intrusive_ref_counter&) noexcept : intrusive_ref_counter() {}
  intrusive_ref_counter& operator=(const intrusive_ref_counter&) noexcept { return *this; }

  ///@}

  /// The number of references.
  unsigned int use_count() const noexcept { return CounterPolicy::load(count_); }

  /// Precondition: a reference to *p is held, by the caller or by someone who releases it only
  /// after this call returns (from a raw pointer too). The count then must stay below 2^32.
  friend void intrusive_ptr_add_ref(const intrusive_ref_counter* p) noexcept { CounterPolicy::increment(p->count_); }

  /// Precondition: the caller owns one reference to *p, which it gives up.
  friend void intrusive_ptr_release(const intrusive_ref_counter* p) noexcept {
    if (CounterPolicy::decrement(p->count_) != 0) return;
    if (p->header_offset_ == 0) {
      delete static_cast<const Derived*>(p);
    } else {
      auto* header =
          reinterpret_cast<detail::allocation_header*>(reinterpret_cast<std::uintptr_t>(p) - p->header_offset_);
      header->destroy(header);
    }
  }

 protected:
  ~intrusive_ref_counter() = default;

 private:
  friend struct detail::intrusive_counter_access;

  mutable typename CounterPolicy::type count_;
  /// Bytes from the allocation_header of allocate_intrusive's block to this subobject; 0 if none.
  /// Written by allocate_intrusive before it hands the object out, read by the last release.
  std::uint32_t header_offset_ = 0;
};

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

namespace detail {

// The intrusive_ref_counter base of an object (ill-formed if it has none or several).
template <class Derived, class Policy>
intrusive_ref_counter<Derived, Policy>* ref_counter_base(intrusive_ref_counter<Derived, Policy>* p) noexcept {
  return p;
}

template <class T, class = void>
struct has_ref_counter_base : std::false_type {};
template <class T>
struct has_ref_counter_base<T, std::void_t<decltype(detail::ref_counter_base(std::declval<T*>()))>> : std::true_type {};

struct intrusive_counter_access {
  template <class Counter>
  static void set_header_offset(Counter& counter, const allocation_header* header) noexcept {
    const auto offset = reinterpret_cast<std::uintptr_t>(&counter) - reinterpret_cast<std::uintptr_t>(header);
    counter.header_offset_ = static_cast<std::uint32_t>(offset);
  }
};

// The block allocate_intrusive makes: header, allocator, object.
template <class T, class Alloc>
class intrusive_block : public allocation_header {
  using block_allocator = rebind_alloc_t<Alloc, intrusive_block>;
  using block_traits = std::allocator_traits<block_allocator>;
  using object_allocator = rebind_alloc_t<Alloc, T>;
  using object_traits = std::allocator_traits<object_allocator>;

 public:
  template <class... Args>
  static T* create(const Alloc& a, Args&&... args) {
    static_assert(sizeof(intrusive_block) <= UINT32_MAX, "the header offset is 32 bits");
    block_allocator block_alloc(a);
    intrusive_block* block = block_traits::allocate(block_alloc, 1);
    ::new (static_cast<void*>(block)) intrusive_block(a);
    object_allocator object_alloc(a);
    OWN_TRY {
      object_traits::construct(object_alloc, reinterpret_cast<T*>(block->storage_), std::forward<Args>(args)...);
    } OWN_CATCH_ALL {
      block->~intrusive_block();
      block_traits::deallocate(block_alloc, block, 1);
      OWN_RETHROW;
    }
    T* object = block->object();
    intrusive_counter_access::set_header_offset(*detail::ref_counter_base(object), block);
    return object;
  }

 private:
  explicit intrusive_block(const Alloc& a) noexcept : allocation_header{&destroy}, alloc_(a) {}

  T* object() noexcept { return std::launder(reinterpret_cast<T*>(storage_)); }

  static void destroy(allocation_header* header) noexcept {
    auto* block = static_cast<intrusive_block*>(header);
    object_allocator object_alloc(block->alloc_);
    object_traits::destroy(object_alloc, block->object());
    block_allocator block_alloc(std::move(block->alloc_));
    block->~intrusive_block();
    block_traits::deallocate(block_alloc, block, 1);
  }

  Alloc alloc_;
  alignas(T) unsigned char storage_[sizeof(T)];
};

}  // namespace detail

/// `new T(args...)`, owned. T may use any hooks. Requires: T's constructor does not release the
/// last reference to itself. Throws what `new` or T's constructor throws.
template <class T, class... Args>
intrusive_ptr<T> make_intrusive(Args&&... args) {
  return intrusive_ptr<T>(new T(std::forward<Args>(args)...));
}

/// A T constructed by `a` (a standard Allocator, a std::pmr::memory_resource*, or a pointer to an
/// own pool) in memory from `a`, given back to a copy of `a` on the last release.
/// Requires: T has one public intrusive_ref_counter base; T's constructor does not release the
/// last reference to itself. Throws what the allocation or T's constructor throws, leaking nothing.
template <class T, class A, class... Args>
intrusive_ptr<T> allocate_intrusive(const A& a, Args&&... args) {
  static_assert(detail::has_ref_counter_base<T>::value,
                "allocate_intrusive needs T to derive from exactly one public own::intrusive_ref_counter");
  using block = detail::intrusive_block<T, detail::adapted_allocator_t<A>>;
  return intrusive_ptr<T>(block::create(detail::adapt_allocator(a), std::forward<Args>(args)...));
}

}  // namespace own

template <class T>
struct std::hash<own::intrusive_ptr<T>> {
  std::size_t operator()(const own::intrusive_ptr<T>& p) const noexcept { return own::hash_value(p); }
};
