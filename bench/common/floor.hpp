// "The floor": the least any reference-counted, heap-placed object can cost on this machine.
// A block comes from a bare thread-local free list (malloc only when the list is empty) and carries
// one atomic count; creating stores 1, the last release does one atomic decrement and pushes the
// block back on the releasing thread's list. No type erasure, no deleter, no weak count, no
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
template <std::size_t Size>
class floor_free_list {
  struct node {
    node* next;
  };
  static_assert(Size >= sizeof(node), "a block must hold a link");

 public:
  static void* allocate() {
    node*& head = top();
    if (node* n = head) {
      head = n->next;
      return n;
    }
    void* p = std::malloc(Size);
    if (p == nullptr) throw std::bad_alloc();
    return p;
  }
  static void deallocate(void* p) noexcept {
    node*& head = top();
    head = ::new (p) node{head};
  }

 private:
  static node*& top() noexcept {
    thread_local node* head = nullptr;
    return head;
  }
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

}  // namespace own_bench
