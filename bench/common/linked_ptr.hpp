// SPDX-License-Identifier: BSL-1.0
// A reference-linked pointer, for the benchmarks only: the "linked" strategy of exp2's seed (Boost's
// Smart Pointer Timings, after Mark Borgerding's proposal). Instead of a count on the heap, the owners
// of one object form a doubly linked ring through themselves; a copy joins the ring, a destruction
// leaves it, and the owner that leaves an empty ring deletes the object. So making one from a raw
// pointer allocates nothing, at the price of a three-word pointer and copies that write to two other
// owners. Not thread-safe, like the seed's: owners of one object must stay on one thread.
#pragma once

#include <utility>

namespace own_bench {

template <class T>
class linked_ptr {
 public:
  linked_ptr() noexcept = default;
  explicit linked_ptr(T* p) noexcept : p_(p) {}
  linked_ptr(const linked_ptr& other) noexcept : p_(other.p_) { join(other); }
  // A move takes the other's place in the ring, which is left alone and empty.
  linked_ptr(linked_ptr&& other) noexcept : p_(std::exchange(other.p_, nullptr)) { take_place_of(other); }
  linked_ptr& operator=(const linked_ptr& other) noexcept {
    if (this != &other && p_ != other.p_) {
      leave();
      p_ = other.p_;
      join(other);
    }
    return *this;
  }
  linked_ptr& operator=(linked_ptr&& other) noexcept {
    if (this != &other) {
      leave();
      p_ = std::exchange(other.p_, nullptr);
      take_place_of(other);
    }
    return *this;
  }
  ~linked_ptr() { leave(); }

  T& operator*() const noexcept { return *p_; }
  T* operator->() const noexcept { return p_; }
  T* get() const noexcept { return p_; }

 private:
  // Links this (alone) into other's ring, just after other.
  void join(const linked_ptr& other) noexcept {
    prev_ = const_cast<linked_ptr*>(&other);
    next_ = other.next_;
    next_->prev_ = this;
    other.next_ = this;
  }
  // Puts this (alone) where other is in its ring, and leaves other alone.
  void take_place_of(linked_ptr& other) noexcept {
    if (other.next_ != &other) {
      prev_ = other.prev_;
      next_ = other.next_;
      prev_->next_ = this;
      next_->prev_ = this;
      other.prev_ = other.next_ = &other;
    }
  }
  // Unlinks this from its ring, deleting the object if this was its last owner; this is then alone.
  void leave() noexcept {
    if (next_ == this) {
      delete p_;
    } else {
      prev_->next_ = next_;
      next_->prev_ = prev_;
      prev_ = next_ = this;
    }
  }

  T* p_ = nullptr;
  mutable linked_ptr* prev_ = this;  // mutable: a copy links itself into the ring of a const source
  mutable linked_ptr* next_ = this;
};

}  // namespace own_bench
