// SPDX-License-Identifier: BSL-1.0
// What object_pool and concurrent_object_pool share: slots, chunks, the creator and the resetter.
//
// A slot is a control block with its object inside, constructed once and kept while the pool lives
// (BDE's shared object pool): acquire_shared() hands the slot out as its own control block, with no
// allocation; when the last shared reference goes the object is reset, and when the last weak one
// goes the slot returns to the free list. acquire() hands the object out in a managed_ptr whose
// manager is the slot (reclaim_managed_object below): no counts touched at all. An object that comes
// back lets go of its enable_shared_from_this hook (its owner is gone), so that the hook's weak
// reference neither keeps the slot out of the pool nor keeps another owner's control block.
//
// The creator and the resetter are kept in a pool_callable, not a std::function: in place when
// small, so that a pool of a fixed capacity takes all its memory from its upstream resource.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory_resource>
#include <mutex>
#include <new>
#include <type_traits>
#include <utility>

#include "../shared_ptr.hpp"
#include "checked.hpp"
#include "control_block.hpp"
#include "exceptions.hpp"

namespace own::detail {

// The default resetter: a returned object is left as it is.
struct leave_as_is {};

// A callable an object pool keeps (its creator or resetter), called with Params: in place if it
// fits three pointers (a lambda capturing a few references or values), else in one block from the
// pool's upstream resource, given back with the pool. Neither copied nor moved, as the pool is
// neither; empty when made from leave_as_is.
template <class... Params>
class pool_callable {
 public:
  // Throws what the upstream resource or F's constructor throws (then nothing is kept).
  template <class F>
  pool_callable(F&& f, std::pmr::memory_resource* upstream) {
    using stored = std::decay_t<F>;
    if constexpr (std::is_same_v<stored, leave_as_is>) {
      return;
    } else if constexpr (sizeof(stored) <= sizeof(space_) && alignof(stored) <= alignof(void*)) {
      ::new (static_cast<void*>(space_)) stored(std::forward<F>(f));
      ops_ = &in_place_ops<stored>;
    } else {
      void* memory = upstream->allocate(sizeof(held<stored>), alignof(held<stored>));
      OWN_TRY { ::new (memory) held<stored>{std::forward<F>(f), upstream}; }
      OWN_CATCH_ALL {
        upstream->deallocate(memory, sizeof(held<stored>), alignof(held<stored>));
        OWN_RETHROW;
      }
      ::new (static_cast<void*>(space_)) void*(memory);
      ops_ = &held_ops<stored>;
    }
  }
  pool_callable(const pool_callable&) = delete;
  pool_callable& operator=(const pool_callable&) = delete;
  ~pool_callable() {
    if (ops_) ops_->destroy(space_);
  }

  explicit operator bool() const noexcept { return ops_ != nullptr; }
  // Precondition: not empty. Const, as std::function's call is: the resetter of a concurrent pool
  // runs on any thread, so a callable with state guards it itself.
  void operator()(Params... params) const { ops_->call(space_, params...); }

 private:
  struct ops {
    void (*call)(void* space, Params... params);
    void (*destroy)(void* space) noexcept;
  };
  template <class F>
  struct held {
    F f;
    std::pmr::memory_resource* upstream;
  };
  template <class F>
  static F& in_place(void* space) noexcept { return *std::launder(static_cast<F*>(space)); }
  template <class F>
  static held<F>& out_of_place(void* space) noexcept { return **std::launder(static_cast<held<F>**>(space)); }

  template <class F>
  static constexpr ops in_place_ops = {[](void* space, Params... params) { in_place<F>(space)(params...); },
                                       [](void* space) noexcept { in_place<F>(space).~F(); }};
  template <class F>
  static constexpr ops held_ops = {[](void* space, Params... params) { out_of_place<F>(space).f(params...); },
                                   [](void* space) noexcept {
                                     held<F>& h = out_of_place<F>(space);
                                     std::pmr::memory_resource* upstream = h.upstream;
                                     h.~held<F>();
                                     upstream->deallocate(&h, sizeof(held<F>), alignof(held<F>));
                                   }};

  alignas(void*) mutable unsigned char space_[3 * sizeof(void*)];
  const ops* ops_ = nullptr;
};

template <class T, class Core>
struct object_slot final : control_block {
  explicit object_slot(Core* home) noexcept : control_block(&ops), pool(home) {}

  T* object() noexcept { return std::launder(reinterpret_cast<T*>(&storage)); }

  typename Core::free_link next{};  // the free stack's link (while free: to the next free slot)
  Core* pool;
#ifdef OWN_CHECKED
  // Atomic: two threads may return the same object at once, and exactly one must see it out.
  std::atomic<bool> in_use{false};
#endif
  alignas(T) unsigned char storage[sizeof(T)];

 private:
  static object_slot* self(control_block* b) noexcept { return static_cast<object_slot*>(b); }
  static void dispose(control_block* b) noexcept { self(b)->pool->reset_object(*self(b)->object()); }
  static void destroy(control_block* b) noexcept { self(b)->pool->give_back(self(b)); }
  static constexpr control_block_ops ops = block_ops<&dispose, &destroy>;
};

// The manager protocol of acquire(): the object is reset and its slot goes back.
template <class T, class Core>
void reclaim_managed_object(object_slot<T, Core>* slot, T*) noexcept {
  slot->pool->reset_object(*slot->object());
  slot->pool->give_back(slot);
}

template <class T, template <class> class FreeStack, class GrowthLock>
class object_pool_core {
 public:
  using slot = object_slot<T, object_pool_core>;
  using free_link = typename FreeStack<slot>::link;

  // MakeAt constructs a T at the address it is given; Reset readies a returned T (or is leave_as_is).
  template <class MakeAt, class Reset>
  object_pool_core(std::size_t initial, bool fixed, MakeAt&& make_at, Reset&& reset, std::pmr::memory_resource* upstream)
      : creator_(std::forward<MakeAt>(make_at), upstream),
        resetter_(std::forward<Reset>(reset), upstream),
        upstream_(upstream),
        fixed_(fixed) {
    if (initial) grow(initial);
  }
  object_pool_core(const object_pool_core&) = delete;
  object_pool_core& operator=(const object_pool_core&) = delete;

  ~object_pool_core() {
    const std::size_t out = capacity() - available();
    OWN_CHECK(out == 0, "object pool %p destroyed with %zu object(s) still in use", static_cast<const void*>(this), out);
    while (chunk* c = chunks_) {
      chunks_ = c->next;
      for (std::size_t i = c->count; i-- != 0;) c->slots()[i].object()->~T();
      release_chunk(c);
    }
  }

  // A free slot, or nullptr if the pool is empty and fixed (or cannot grow: then what the upstream
  // resource or the creator threw propagates, and the pool is unchanged).
  slot* take() {
    slot* s = free_.pop();
    while (!s) {
      if (fixed_) return nullptr;
      {
        std::lock_guard<GrowthLock> lock(growth_);
        s = free_.pop();  // another thread may have grown it meanwhile
        if (!s) grow(capacity() ? capacity() : 1);
      }
      if (!s) s = free_.pop();
    }
#ifdef OWN_CHECKED
    s->in_use.store(true, std::memory_order_relaxed);
#endif
    return s;
  }

  void give_back(slot* s) noexcept {
#ifdef OWN_CHECKED
    OWN_CHECK(s->pool == this, "object %p returned to object pool %p, which does not own it",
              static_cast<void*>(s->object()), static_cast<const void*>(this));
    OWN_CHECK(s->in_use.exchange(false, std::memory_order_relaxed), "object %p returned twice to object pool %p",
              static_cast<void*>(s->object()), static_cast<const void*>(this));
#endif
    free_.push(s);
  }

  void reset_object(T& object) noexcept {
    shared_access::forget_shared_from_this(object);
    if (resetter_) resetter_(object);
  }

  std::size_t capacity() const noexcept { return capacity_.load(std::memory_order_relaxed); }
  std::size_t available() const noexcept { return free_.size(); }

 private:
  struct chunk {
    chunk* next;
    std::size_t size;   // slots allocated
    std::size_t count;  // slots built
    slot* slots() noexcept { return std::launder(reinterpret_cast<slot*>(reinterpret_cast<unsigned char*>(this) + offset())); }
    static constexpr std::size_t offset() noexcept { return (sizeof(chunk) + alignof(slot) - 1) / alignof(slot) * alignof(slot); }
    static constexpr std::size_t bytes(std::size_t count) noexcept { return offset() + count * sizeof(slot); }
  };

  // Adds `count` objects; if the upstream resource or the creator throws, the pool is unchanged.
  // Throws std::bad_alloc if the chunk's size in bytes does not fit a std::size_t, or if the free
  // stack has no room for `count` more slots.
  void grow(std::size_t count) {
    if (count > (static_cast<std::size_t>(-1) - chunk::offset()) / sizeof(slot)) throw_exception<std::bad_alloc>();
    free_.check_room(count);
    void* memory = upstream_->allocate(chunk::bytes(count), alignof(slot) > alignof(chunk) ? alignof(slot) : alignof(chunk));
    chunk* c = ::new (memory) chunk{nullptr, count, 0};
    OWN_TRY {
      for (; c->count < count; ++c->count) {
        slot* s = ::new (static_cast<void*>(c->slots() + c->count)) slot(this);
        creator_(s->storage);
      }
    } OWN_CATCH_ALL {
      for (std::size_t i = c->count; i-- != 0;) c->slots()[i].object()->~T();
      release_chunk(c);
      OWN_RETHROW;
    }
    c->next = chunks_;
    chunks_ = c;
    capacity_.store(capacity() + count, std::memory_order_relaxed);
    free_.push_chunk(c->slots(), count);
  }

  void release_chunk(chunk* c) noexcept {
    upstream_->deallocate(c, chunk::bytes(c->size), alignof(slot) > alignof(chunk) ? alignof(slot) : alignof(chunk));
  }

  FreeStack<slot> free_{};
  pool_callable<void*> creator_;
  pool_callable<T&> resetter_;
  std::pmr::memory_resource* upstream_;
  chunk* chunks_ = nullptr;
  std::atomic<std::size_t> capacity_{0};  // written under the growth lock, read anywhere
  GrowthLock growth_{};
  bool fixed_;
};

// Growth of a single-threaded pool needs no lock.
struct no_lock {
  void lock() noexcept {}
  void unlock() noexcept {}
};

}  // namespace own::detail
