// One thread's cache of one concurrent pool's blocks, after Bonwick's magazines: a "loaded" magazine
// that allocate() pops and deallocate() pushes, and a "previous" one that is either empty or full.
// When loaded runs dry, a full previous takes its place, else the depot refills it; when loaded is
// full, it becomes previous and a full previous is parked in the depot. So a thread visits the depot
// at most once per `capacity` operations, even when it alternates allocate and deallocate around a
// magazine boundary.
//
// The owner thread is the only one to touch the magazines while it lives, so the fast path needs no
// lock and no read-modify-write; the counts are atomics only so that statistics() may read them from
// other threads (relaxed loads and stores: plain moves). `mutex` guards the two lifetime flags, for
// the race between the owner's exit and the pool's destruction (see thread_cache_registry.hpp).
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>

#include "pool_depot.hpp"

namespace own::detail {

// Cache-line aligned: caches of different threads must not share a line.
class alignas(64) thread_cache {
 public:
  // Takes two empty magazines of `depot`.
  thread_cache(pool_depot& depot, magazine* loaded, magazine* previous) noexcept
      : loaded_(loaded), previous_(previous), depot_(depot), capacity_(depot.capacity()) {}
  thread_cache(const thread_cache&) = delete;
  thread_cache& operator=(const thread_cache&) = delete;

  // Owner thread. Takes a cached block; false (and nothing done) if loaded is empty. (A bool rather
  // than a null block: the caller then tests the count it has, not the block it must wait for.)
  bool pop(void*& block) noexcept {
    const std::size_t n = loaded_count_.load(std::memory_order_relaxed);
    if (n == 0) return false;
    loaded_count_.store(n - 1, std::memory_order_relaxed);
    block = loaded_->slots()[n - 1];
    return true;
  }

  // Owner thread. False (and nothing done) if loaded is full.
  bool push(void* block) noexcept {
    const std::size_t n = loaded_count_.load(std::memory_order_relaxed);
    if (n == capacity_) return false;
    loaded_->slots()[n] = block;
    loaded_count_.store(n + 1, std::memory_order_relaxed);
    return true;
  }

  // Owner thread, loaded empty: makes it non-empty. Throws what the depot throws, changing nothing.
  void refill() {
    if (previous_count_.load(std::memory_order_relaxed) != 0) {
      swap_magazines();
      return;
    }
    const std::size_t n = depot_.refill(loaded_);
    loaded_->prefetch(n);
    loaded_count_.store(n, std::memory_order_relaxed);
  }

  // Owner thread, loaded full: empties it, parking a full previous magazine in the depot.
  void make_room() noexcept {
    if (previous_count_.load(std::memory_order_relaxed) != 0) {
      depot_.park(previous_);
      previous_->prefetch(capacity_);
      previous_count_.store(0, std::memory_order_relaxed);
    }
    swap_magazines();
  }

  // Blocks held; exact only when the owner is not running.
  std::size_t cached() const noexcept {
    return loaded_count_.load(std::memory_order_relaxed) + previous_count_.load(std::memory_order_relaxed);
  }

  // Gives every block back to the depot (thread exit); the magazines stay, for a thread that adopts
  // this cache.
  void flush() noexcept {
    depot_.take_back(loaded_, loaded_count_.load(std::memory_order_relaxed));
    depot_.take_back(previous_, previous_count_.load(std::memory_order_relaxed));
    forget();
  }

  // Drops every block without returning it (their chunks are being released).
  void forget() noexcept {
    loaded_count_.store(0, std::memory_order_relaxed);
    previous_count_.store(0, std::memory_order_relaxed);
  }

  // Pool destruction: forgets the blocks and gives the magazines back to the depot.
  void surrender() noexcept {
    forget();
    depot_.delete_magazine(loaded_);
    depot_.delete_magazine(previous_);
    loaded_ = previous_ = nullptr;
  }

  std::mutex mutex;
  bool pool_alive = true;        // guarded by mutex; false once the pool is destroyed
  bool thread_attached = true;   // guarded by mutex; false once the owner thread has exited
  thread_cache* next = nullptr;  // the pool's registry list, guarded by the registry's mutex

 private:
  void swap_magazines() noexcept {
    magazine* const m = loaded_;
    const std::size_t count = loaded_count_.load(std::memory_order_relaxed);
    loaded_ = previous_;
    loaded_count_.store(previous_count_.load(std::memory_order_relaxed), std::memory_order_relaxed);
    previous_ = m;
    previous_count_.store(count, std::memory_order_relaxed);
  }

  magazine* loaded_;
  std::atomic<std::size_t> loaded_count_{0};
  magazine* previous_;
  std::atomic<std::size_t> previous_count_{0};
  pool_depot& depot_;
  const std::size_t capacity_;
};

}  // namespace own::detail
