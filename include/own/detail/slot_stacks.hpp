// SPDX-License-Identifier: BSL-1.0
// The free lists of object pools: LIFO stacks of slots linked through the slot's `next` word.
//  - plain_slot_stack: one thread.
//  - atomic_slot_stack: a lock-free Treiber stack for any number of threads. Slots are never freed
//    while the pool lives, so reading a popped slot's link is always safe; ABA (a slot popped and
//    pushed back between another thread's read and its CAS) is caught by a 16-bit tag packed with a
//    48-bit pointer in one 64-bit word, so every operation is a single-word CAS (no cmpxchg16b, no
//    libatomic). A false success needs 65536 operations on the stack inside one CAS window.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace own::detail {

template <class Slot>
class plain_slot_stack {
 public:
  void push(Slot* s) noexcept {
    s->next.store(head_, std::memory_order_relaxed);
    head_ = s;
    ++size_;
  }
  Slot* pop() noexcept {
    Slot* s = head_;
    if (s) {
      head_ = s->next.load(std::memory_order_relaxed);
      --size_;
    }
    return s;
  }
  std::size_t size() const noexcept { return size_; }

 private:
  Slot* head_ = nullptr;
  std::size_t size_ = 0;
};

template <class Slot>
class atomic_slot_stack {
  static constexpr int pointer_bits = 48;
  static constexpr std::uint64_t pointer_mask = (std::uint64_t{1} << pointer_bits) - 1;
  static constexpr std::uint64_t one_tag = std::uint64_t{1} << pointer_bits;

  static Slot* pointer(std::uint64_t word) noexcept { return reinterpret_cast<Slot*>(word & pointer_mask); }
  static std::uint64_t word(Slot* s, std::uint64_t old) noexcept {
    return reinterpret_cast<std::uintptr_t>(s) | ((old & ~pointer_mask) + one_tag);
  }

 public:
  // Publishes the slot's state to the thread that pops it.
  void push(Slot* s) noexcept {
    std::uint64_t old = head_.load(std::memory_order_relaxed);
    do {
      s->next.store(pointer(old), std::memory_order_relaxed);
    } while (!head_.compare_exchange_weak(old, word(s, old), std::memory_order_release, std::memory_order_relaxed));
    size_.fetch_add(1, std::memory_order_relaxed);
  }
  Slot* pop() noexcept {
    std::uint64_t old = head_.load(std::memory_order_acquire);
    for (;;) {
      Slot* s = pointer(old);
      if (!s) return nullptr;
      if (head_.compare_exchange_weak(old, word(s->next.load(std::memory_order_relaxed), old), std::memory_order_acquire,
                                      std::memory_order_acquire)) {
        size_.fetch_sub(1, std::memory_order_relaxed);
        return s;
      }
    }
  }
  // A snapshot: exact when no other thread pushes or pops.
  std::size_t size() const noexcept {
    const std::ptrdiff_t n = size_.load(std::memory_order_relaxed);
    return n > 0 ? static_cast<std::size_t>(n) : 0;
  }

 private:
  std::atomic<std::uint64_t> head_{0};
  std::atomic<std::ptrdiff_t> size_{0};  // may dip below zero between a pop and its decrement's peer
};

}  // namespace own::detail
