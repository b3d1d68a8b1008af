// SPDX-License-Identifier: BSL-1.0
// The free lists of object pools: LIFO stacks of slots linked through the slot's `next` member, whose
// type the stack names (`link`).
//  - plain_slot_stack: one thread; the link is the next slot's address.
//  - atomic_slot_stack: a lock-free Treiber stack for any number of threads. Slots are never freed
//    while the pool lives, so reading a popped slot's link is always safe. The stack works on slot
//    indices rather than addresses, so that the head fits a 32-bit index and a 32-bit tag counting
//    the stack's operations into one 64-bit word: every operation is a single-word CAS (no
//    cmpxchg16b, no libatomic), and ABA (a slot popped and pushed back between another thread's
//    read of the head and its CAS) goes unseen only if a multiple of 2^32 operations complete on
//    the stack inside that one CAS window.
// Both take their slots a chunk at a time (push_chunk), under the pool's growth lock.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>

#include "exceptions.hpp"
#include "log2.hpp"
#include "slow_path.hpp"

namespace own::detail {

template <class Slot>
class plain_slot_stack {
 public:
  using link = std::atomic<Slot*>;

  // Any number of slots fits.
  void check_room(std::size_t) const noexcept {}
  // Pushes first[0 .. count), so that first[0] is popped first.
  void push_chunk(Slot* first, std::size_t count) noexcept {
    for (std::size_t i = count; i-- != 0;) push(first + i);
  }
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

// Index 0 means "no slot". The indices 2^j ... 2^(j+1) - 1 form bucket j; a chunk's slots take
// consecutive indices from a power of two on (a whole number of buckets, the last one perhaps in
// part), so that an index finds its slot with a bit scan and one load from a table of 32 entries.
// The first chunk's slots (a fixed pool's all) skip the bit scan: their origin is loaded beside the
// head, off the pop's chain of dependent loads. A growing pool doubles, which leaves about half the
// index space unused: such a pool holds up to about 2^31 slots, one built at once up to 2^32 - 1.
template <class Slot>
class atomic_slot_stack {
  static constexpr std::uint64_t index_mask = 0xffff'ffff;
  static constexpr std::uint64_t one_tag = index_mask + 1;
  static constexpr std::uint64_t index_limit = one_tag;  // one past the largest index
  static constexpr std::size_t buckets = 32;

 public:
  // A slot's own index (high half, set once by push_chunk) and, while the slot is free, the next
  // free slot's index (low half).
  using link = std::atomic<std::uint64_t>;

  // Throws std::bad_alloc if `count` more slots would run out of indices.
  void check_room(std::size_t count) const {
    if (count > index_limit - chunk_start()) throw_exception<std::bad_alloc>();
  }
  // Gives first[0 .. count) their indices and pushes them with one CAS, first[0] on top.
  // Preconditions: count >= 1 and check_room(count) passed; one thread at a time (the growth lock).
  void push_chunk(Slot* first, std::size_t count) noexcept {
    const std::uint64_t start = chunk_start();
    const std::uint64_t end = start + count;
    // first[i] has index start + i: bucket j's slots are at origin + index * sizeof(Slot), modulo
    // 2^64 (the origin itself is not an address of the chunk).
    const std::uintptr_t origin = reinterpret_cast<std::uintptr_t>(first) - start * sizeof(Slot);
    for (std::size_t j = floor_log2(start); j <= floor_log2(end - 1); ++j) origins_[j].store(origin, std::memory_order_relaxed);
    for (std::uint64_t i = start; i + 1 < end; ++i) first[i - start].next.store((i << 32) | (i + 1), std::memory_order_relaxed);
    next_index_ = end;
    if (start == 1) first_end_.store(end, std::memory_order_relaxed);
    link_on_top(first[count - 1], (end - 1) << 32, start);
    size_.fetch_add(static_cast<std::ptrdiff_t>(count), std::memory_order_relaxed);
  }
  // Publishes the slot's state to the thread that pops it.
  void push(Slot* s) noexcept {
    const std::uint64_t self = s->next.load(std::memory_order_relaxed) & ~index_mask;
    link_on_top(*s, self, self >> 32);
    size_.fetch_add(1, std::memory_order_relaxed);
  }
  Slot* pop() noexcept {
    std::uint64_t old = head_.load(std::memory_order_acquire);
    for (;;) {
      const std::uint64_t top = old & index_mask;
      if (top == 0) return nullptr;
      Slot* s = slot_at(top);
      const std::uint64_t next = s->next.load(std::memory_order_relaxed) & index_mask;
      if (head_.compare_exchange_weak(old, retagged(old, next), std::memory_order_acquire, std::memory_order_acquire)) {
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
  // The head `old` after one more operation, with `index` on top.
  static std::uint64_t retagged(std::uint64_t old, std::uint64_t index) noexcept {
    return ((old & ~index_mask) + one_tag) | index;
  }

  // Links `last` (whose own index is the high half `self`) to the current top and makes `top` the
  // new top: `top` is last's index, or that of the first slot of a run ending with `last`.
  void link_on_top(Slot& last, std::uint64_t self, std::uint64_t top) noexcept {
    std::uint64_t old = head_.load(std::memory_order_relaxed);
    do {
      last.next.store(self | (old & index_mask), std::memory_order_relaxed);
    } while (!head_.compare_exchange_weak(old, retagged(old, top), std::memory_order_release, std::memory_order_relaxed));
  }

  // Precondition: index >= 1 and given out by push_chunk. Relaxed loads suffice: the index came from
  // the head after the push that published it, which followed the stores (a first_end_ not yet
  // seen only sends the index to its bucket).
  Slot* slot_at(std::uint64_t index) const noexcept {
    const std::uintptr_t origin = OWN_UNLIKELY(index >= first_end_.load(std::memory_order_relaxed))
                                      ? origins_[floor_log2(index)].load(std::memory_order_relaxed)
                                      : origins_[0].load(std::memory_order_relaxed);
    return reinterpret_cast<Slot*>(origin + index * sizeof(Slot));
  }

  // Where the next chunk's indices start: the first power of two not below the next free index.
  std::uint64_t chunk_start() const noexcept { return next_index_ == 1 ? 1 : std::uint64_t{1} << ceil_log2(next_index_); }

  std::atomic<std::uint64_t> head_{0};    // tag (high half) and top index (low half; 0: empty)
  std::atomic<std::ptrdiff_t> size_{0};  // may dip below zero between a push's CAS and its increment
  // Written under the growth lock, before the CAS that publishes their slots.
  std::atomic<std::uintptr_t> origins_[buckets]{};  // per bucket
  std::atomic<std::uint64_t> first_end_{0};         // one past the first chunk's indices
  std::uint64_t next_index_ = 1;
};

}  // namespace own::detail
