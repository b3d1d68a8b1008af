// One thread's cache of one concurrent pool's blocks, after Bonwick's magazines: a "loaded" list
// that allocate() pops and deallocate() pushes, and a "previous" list that is either empty or full.
// When loaded runs dry, a full previous takes its place, else a full magazine comes from the depot;
// when loaded is full, it becomes previous and a full previous goes to the depot. So a thread visits
// the depot at most once per `capacity` operations, even when it alternates allocate and deallocate
// around a magazine boundary.
//
// The owner thread is the only one to touch the lists while it lives, so the fast path needs no lock
// and no read-modify-write; the counts are atomics only so that statistics() may read them from
// other threads (relaxed loads and stores: plain moves). `mutex` guards the two lifetime flags, for
// the race between the owner's exit and the pool's destruction (see thread_cache_registry.hpp).
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>

#include "free_list.hpp"
#include "pool_depot.hpp"

namespace own::detail {

// Cache-line aligned: caches of different threads must not share a line.
class alignas(64) thread_cache {
 public:
  explicit thread_cache(pool_depot& depot) noexcept : depot_(depot), capacity_(depot.capacity()) {}
  thread_cache(const thread_cache&) = delete;
  thread_cache& operator=(const thread_cache&) = delete;

  // Owner thread. A cached block, or nullptr if loaded is empty.
  void* pop() noexcept {
    free_block* block = loaded_;
    if (!block) return nullptr;
    loaded_ = block->next;
    loaded_count_.store(loaded_count_.load(std::memory_order_relaxed) - 1, std::memory_order_relaxed);
    return block;
  }

  // Owner thread. False (and nothing done) if loaded is full.
  bool push(void* block) noexcept {
    const std::size_t n = loaded_count_.load(std::memory_order_relaxed);
    if (n == capacity_) return false;
    loaded_ = link_block(block, loaded_);
    loaded_count_.store(n + 1, std::memory_order_relaxed);
    return true;
  }

  // Owner thread, loaded empty: makes it non-empty. Throws what the depot throws, changing nothing.
  void refill() {
    if (previous_) {
      swap_magazines();
      return;
    }
    const block_list batch = depot_.take(capacity_);
    loaded_ = batch.head;
    loaded_count_.store(batch.count, std::memory_order_relaxed);
  }

  // Owner thread, loaded full: empties it, parking a full previous magazine in the depot.
  void make_room() noexcept {
    if (previous_) depot_.put({previous_, capacity_});
    previous_ = nullptr;
    previous_count_.store(0, std::memory_order_relaxed);
    swap_magazines();
  }

  // Blocks held; exact only when the owner is not running.
  std::size_t cached() const noexcept {
    return loaded_count_.load(std::memory_order_relaxed) + previous_count_.load(std::memory_order_relaxed);
  }

  // Gives every block back to the depot (thread exit).
  void flush() noexcept {
    depot_.put({previous_, previous_count_.load(std::memory_order_relaxed)});
    depot_.put({loaded_, loaded_count_.load(std::memory_order_relaxed)});
    forget();
  }

  // Drops every block without returning it (their chunks are being released).
  void forget() noexcept {
    loaded_ = previous_ = nullptr;
    loaded_count_.store(0, std::memory_order_relaxed);
    previous_count_.store(0, std::memory_order_relaxed);
  }

  std::mutex mutex;
  bool pool_alive = true;       // guarded by mutex; false once the pool is destroyed
  bool thread_attached = true;  // guarded by mutex; false once the owner thread has exited
  thread_cache* next = nullptr;  // the pool's registry list, guarded by the registry's mutex

 private:
  void swap_magazines() noexcept {
    free_block* const head = loaded_;
    const std::size_t count = loaded_count_.load(std::memory_order_relaxed);
    loaded_ = previous_;
    loaded_count_.store(previous_count_.load(std::memory_order_relaxed), std::memory_order_relaxed);
    previous_ = head;
    previous_count_.store(count, std::memory_order_relaxed);
  }

  free_block* loaded_ = nullptr;
  std::atomic<std::size_t> loaded_count_{0};
  free_block* previous_ = nullptr;
  std::atomic<std::size_t> previous_count_{0};
  pool_depot& depot_;
  const std::size_t capacity_;
};

}  // namespace own::detail
