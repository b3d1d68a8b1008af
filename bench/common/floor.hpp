// SPDX-License-Identifier: BSL-1.0
// "The floor": the least any reference-counted, heap-placed object can cost on this machine.
// A block comes from a bare thread-local free list (malloc only when the list is empty) and carries
// one atomic count; creating stores 1, the last release does one atomic decrement and pushes the
// block back on the releasing thread's list (blocks freed on another thread come back in batches). No type erasure, no deleter, no weak count, no
// allocator: every own row is shown as its distance from this.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>
#include <utility>

namespace own_bench {

// A thread-local LIFO of free blocks of `Size` bytes. Blocks are never returned to malloc: a
// benchmark process is short-lived, and the floor must not pay for trimming.
//
// Made on one thread and freed on another (the hand-off rows), blocks would pile up on the freeing
// thread while the making thread mallocs afresh; so a thread whose list grows past `batch` blocks
// hands the whole list to a global lock-free stack of batches (one CAS), and a thread whose lists are
// empty takes everything on that stack (one exchange, so no ABA). Same-thread use never touches it.
template <std::size_t Size>
class floor_free_list {
  struct node {
    node* next;
  };
  static_assert(Size >= sizeof(node), "a block must hold a link");
  static constexpr unsigned batch = 256;

  struct local_lists {
    node* freed = nullptr;  // blocks freed on this thread, newest first
    node* freed_tail = nullptr;
    unsigned freed_count = 0;
    node* spare = nullptr;  // blocks taken from the global stack
  };

 public:
  static void* allocate() {
    local_lists& l = local();
    if (node* n = l.freed) {
      l.freed = n->next;
      if (--l.freed_count == 0) l.freed_tail = nullptr;
      return n;
    }
    if (l.spare == nullptr) l.spare = shared().exchange(nullptr, std::memory_order_acquire);
    if (node* n = l.spare) {
      l.spare = n->next;
      return n;
    }
    void* p = std::malloc(Size);
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }

  static void deallocate(void* p) noexcept {
    local_lists& l = local();
    node* n = ::new (p) node{l.freed};
    if (l.freed_tail == nullptr) l.freed_tail = n;
    l.freed = n;
    if (++l.freed_count == batch) {
      std::atomic<node*>& top = shared();
      node* head = top.load(std::memory_order_relaxed);
      do {
        l.freed_tail->next = head;
      } while (!top.compare_exchange_weak(head, l.freed, std::memory_order_release, std::memory_order_relaxed));
      l.freed = l.freed_tail = nullptr;
      l.freed_count = 0;
    }
  }

 private:
  static local_lists& local() noexcept {
    thread_local local_lists lists;
    return lists;
  }
  static std::atomic<node*>& shared() noexcept {
    static std::atomic<node*> top{nullptr};
    return top;
  }
};

struct default_init_t {
  explicit default_init_t() = default;
};

// An object of type T with one atomic count in front, placed in a floor_free_list block.
template <class T>
class floor_object {
 public:
  template <class... Args>
  static floor_object* create(Args&&... args) {
    void* p = list::allocate();
    return ::new (p) floor_object(std::forward<Args>(args)...);
  }
  // T default-initialised (a trivial T keeps whatever the block held), like make_shared_for_overwrite.
  static floor_object* create_for_overwrite() {
    void* p = list::allocate();
    return ::new (p) floor_object(default_init_t{});
  }
  void add_ref() noexcept { count_.fetch_add(1, std::memory_order_relaxed); }
  void release() noexcept {
    if (count_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      this->~floor_object();
      list::deallocate(this);
    }
  }
  T& value() noexcept { return value_; }

 private:
  template <class... Args>
  explicit floor_object(Args&&... args) : value_(std::forward<Args>(args)...) {}
  explicit floor_object(default_init_t) {}

  std::atomic<unsigned> count_{1};
  T value_;
  using list = floor_free_list<(sizeof(std::atomic<unsigned>) + sizeof(T) + alignof(std::max_align_t) - 1) /
                               alignof(std::max_align_t) * alignof(std::max_align_t)>;
};

// A minimal owning handle on a floor_object, so floor rows read like the smart-pointer rows.
template <class T>
class floor_ptr {
 public:
  floor_ptr() noexcept = default;
  explicit floor_ptr(floor_object<T>* p) noexcept : p_(p) {}
  floor_ptr(const floor_ptr& o) noexcept : p_(o.p_) {
    if (p_) p_->add_ref();
  }
  floor_ptr(floor_ptr&& o) noexcept : p_(std::exchange(o.p_, nullptr)) {}
  floor_ptr& operator=(floor_ptr o) noexcept {
    std::swap(p_, o.p_);
    return *this;
  }
  ~floor_ptr() {
    if (p_) p_->release();
  }
  T* get() const noexcept { return p_ ? &p_->value() : nullptr; }
  T& operator*() const noexcept { return p_->value(); }
  T* operator->() const noexcept { return &p_->value(); }

 private:
  floor_object<T>* p_ = nullptr;
};

template <class T, class... Args>
floor_ptr<T> make_floor(Args&&... args) {
  return floor_ptr<T>(floor_object<T>::create(std::forward<Args>(args)...));
}

template <class T>
floor_ptr<T> make_floor_for_overwrite() {
  return floor_ptr<T>(floor_object<T>::create_for_overwrite());
}

}  // namespace own_bench
