// SPDX-License-Identifier: BSL-1.0
// A stateless Allocator that keeps a few freed blocks of each size per thread and hands them out
// again, for the small fixed-size nodes that atomic_shared_ptr makes on every store (and that a
// local_shared_ptr group made from a shared_ptr needs): a pop or push of a thread-local list instead
// of a round trip through malloc (about 2 ns against 15-20 here). The list is an object pool's
// plain_slot_stack (detail/slot_stacks.hpp), one per thread and block size.
//
// Each thread keeps at most `kept` blocks per size, so memory freed on a consumer thread returns to
// operator delete once its list is full. A thread's list is emptied when the thread exits; blocks
// freed after that (by other thread-local or static destructors) go straight to operator delete.
//
// Only single objects of at most the default new alignment are recycled; anything else goes to
// std::allocator.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <new>

#include "slot_stacks.hpp"

namespace own::detail {

template <std::size_t Size>
class recycled_blocks {
  // A freed block, linked into the thread's list through its first word.
  struct free_block {
    std::atomic<free_block*> next{nullptr};
  };
  static_assert(Size >= sizeof(free_block), "a free block holds the next link");

 public:
  static void* allocate() {
    if (free_block* block = list_.pop()) return block;
    return ::operator new(Size);
  }

  static void deallocate(void* p) noexcept {
    if (list_.size() == kept || closed_) {
      ::operator delete(p);
      return;
    }
    if (list_.size() == 0) register_cleaner();
    list_.push(::new (p) free_block{});
  }

 private:
  static constexpr std::size_t kept = 64;

  // Trivially destructible, so they stay usable until the thread is gone.
  static inline thread_local plain_slot_stack<free_block> list_;
  static inline thread_local bool closed_ = false;

  struct cleaner {
    ~cleaner() {
      closed_ = true;
      while (free_block* block = list_.pop()) ::operator delete(static_cast<void*>(block));
    }
  };
  // Constructing the thread's cleaner registers its destructor for the thread's exit.
  static void register_cleaner() noexcept {
    static thread_local cleaner instance;
    static_cast<void>(instance);
  }
};

template <class T>
class recycling_allocator {
 public:
  using value_type = T;

  recycling_allocator() noexcept = default;
  template <class U>
  recycling_allocator(const recycling_allocator<U>&) noexcept {}

  T* allocate(std::size_t n) {
    if constexpr (recyclable) {
      if (n == 1) return static_cast<T*>(recycled_blocks<sizeof(T)>::allocate());
    }
    return std::allocator<T>().allocate(n);
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if constexpr (recyclable) {
      if (n == 1) return recycled_blocks<sizeof(T)>::deallocate(p);
    }
    std::allocator<T>().deallocate(p, n);
  }

  friend bool operator==(const recycling_allocator&, const recycling_allocator&) noexcept { return true; }
  friend bool operator!=(const recycling_allocator&, const recycling_allocator&) noexcept { return false; }

 private:
  static constexpr bool recyclable = sizeof(T) >= sizeof(void*) && alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__;
};

}  // namespace own::detail
