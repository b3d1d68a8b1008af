// SPDX-License-Identifier: BSL-1.0
// The free functions for atomic access to a plain shared_ptr object (atomic_load(&p),
// atomic_store(&p, r), atomic_exchange, atomic_compare_exchange_*, their _explicit forms and
// atomic_is_lock_free), which std declares for std::shared_ptr in <memory>: included at the end of
// <own/shared_ptr.hpp> (whose declarations it uses), so that code using them compiles with own:: as
// it does with std::, qualified or found by argument-dependent lookup. Deprecated by C++20 in favour
// of std::atomic<shared_ptr<T>> (own::atomic_shared_ptr, lock-free), removed by C++26; not marked
// [[deprecated]] here, as libstdc++ 12 does not mark std's.
//
// A plain shared_ptr is two words that other code reads and writes with ordinary accesses, so these
// functions cannot be lock-free: each holds, for a few instructions, a spinlock chosen by hashing
// the object's address in a process-wide table. compare_exchange holds the locks of both `*p` and
// `*expected`. No user code runs under a lock: copying a shared_ptr is an increment, and a value
// these functions drop (the previous value of `*p` or of `*expected`) is released after the locks
// are, since its destructor may do anything, even call these functions on the same object (which,
// under the lock, would deadlock).
//
// Why spinlocks rather than mutexes: the critical sections are a handful of instructions, and a
// spinlock cannot fail (std says these functions throw nothing), needs no initialisation at run
// time and no destruction (they keep working from static destructors at exit).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "process_wide.hpp"
#include "spinlock.hpp"

namespace own {
namespace detail {

// Whether two shared_ptrs, or two weak_ptrs, are equivalent in the atomics' sense: the same stored
// pointer and the same owner (two empty pointers are).
template <class Pointer>
bool equivalent(const Pointer& a, const Pointer& b) noexcept {
  return shared_access::pointer(a) == shared_access::pointer(b) && shared_access::owner(a) == shared_access::owner(b);
}

// One copy per process (see process_wide.hpp): two copies would let two shared libraries access
// the same shared_ptr under different locks.
class OWN_PROCESS_WIDE shared_ptr_locks {
  static constexpr std::size_t count = 32;

 public:
  // Holds the locks of one or two addresses (`a` and `b`), taking them in table order, so that two
  // threads locking the same pair from opposite ends cannot deadlock; a shared lock is taken once.
  class guard {
   public:
    explicit guard(const void* a, const void* b = nullptr) noexcept : first_(index(a)), second_(b ? index(b) : first_) {
      if (second_ < first_) std::swap(first_, second_);
      table_[first_].lock();
      if (second_ != first_) table_[second_].lock();
    }
    guard(const guard&) = delete;
    guard& operator=(const guard&) = delete;
    ~guard() {
      if (second_ != first_) table_[second_].unlock();
      table_[first_].unlock();
    }

   private:
    std::size_t first_;
    std::size_t second_;
  };

 private:
  // Neighbouring shared_ptrs (16 bytes apart, as in an array) get different locks; higher bits are
  // folded in so that objects at the same offset in different blocks spread too.
  static std::size_t index(const void* p) noexcept {
    const auto address = reinterpret_cast<std::uintptr_t>(p);
    return ((address >> 4) ^ (address >> 12)) % count;
  }

  static inline spinlock table_[count];
};

}  // namespace detail

// Memory orders: every operation is sequentially consistent, whatever order is asked for (the
// locks order them all); std's preconditions on the orders still apply. None of them throws.
// Precondition of each: `p` (and `expected`) point to shared_ptr objects that are accessed
// concurrently only through these functions.

// Always false: the functions take a lock.
template <class T>
bool atomic_is_lock_free(const shared_ptr<T>*) noexcept {
  return false;
}

template <class T>
shared_ptr<T> atomic_load_explicit(const shared_ptr<T>* p, std::memory_order) noexcept {
  detail::shared_ptr_locks::guard lock(p);
  return *p;
}
template <class T>
shared_ptr<T> atomic_load(const shared_ptr<T>* p) noexcept {
  return own::atomic_load_explicit(p, std::memory_order_seq_cst);
}

// Stores `r` in `*p`; returns the previous value.
template <class T>
shared_ptr<T> atomic_exchange_explicit(shared_ptr<T>* p, shared_ptr<T> r, std::memory_order) noexcept {
  detail::shared_ptr_locks::guard lock(p);
  p->swap(r);
  return r;
}
template <class T>
shared_ptr<T> atomic_exchange(shared_ptr<T>* p, shared_ptr<T> r) noexcept {
  return own::atomic_exchange_explicit(p, std::move(r), std::memory_order_seq_cst);
}

// The previous value is released after the lock, by the discarded result of the exchange.
template <class T>
void atomic_store_explicit(shared_ptr<T>* p, shared_ptr<T> r, std::memory_order order) noexcept {
  own::atomic_exchange_explicit(p, std::move(r), order);
}
template <class T>
void atomic_store(shared_ptr<T>* p, shared_ptr<T> r) noexcept {
  own::atomic_store_explicit(p, std::move(r), std::memory_order_seq_cst);
}

// If `*p` is equivalent to `*expected` (the same get() and the same owner, or both empty), stores
// `desired` in `*p` and returns true; otherwise copies `*p` into `*expected` and returns false. The
// _weak forms never fail spuriously here.
template <class T>
bool atomic_compare_exchange_strong_explicit(shared_ptr<T>* p, shared_ptr<T>* expected, shared_ptr<T> desired,
                                             std::memory_order, std::memory_order) noexcept {
  shared_ptr<T> dropped;  // declared before the lock: released after it
  detail::shared_ptr_locks::guard lock(p, expected);
  if (detail::equivalent(*p, *expected)) {
    dropped = std::exchange(*p, std::move(desired));
    return true;
  }
  dropped = std::exchange(*expected, *p);
  return false;
}
template <class T>
bool atomic_compare_exchange_weak_explicit(shared_ptr<T>* p, shared_ptr<T>* expected, shared_ptr<T> desired,
                                           std::memory_order success, std::memory_order failure) noexcept {
  return own::atomic_compare_exchange_strong_explicit(p, expected, std::move(desired), success, failure);
}
template <class T>
bool atomic_compare_exchange_strong(shared_ptr<T>* p, shared_ptr<T>* expected, shared_ptr<T> desired) noexcept {
  return own::atomic_compare_exchange_strong_explicit(p, expected, std::move(desired), std::memory_order_seq_cst,
                                                      std::memory_order_seq_cst);
}
template <class T>
bool atomic_compare_exchange_weak(shared_ptr<T>* p, shared_ptr<T>* expected, shared_ptr<T> desired) noexcept {
  return own::atomic_compare_exchange_strong(p, expected, std::move(desired));
}

}  // namespace own
