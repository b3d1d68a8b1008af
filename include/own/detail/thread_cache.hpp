// SPDX-License-Identifier: BSL-1.0
// One thread's cache of one concurrent pool's blocks, after Bonwick's magazines: a "loaded" magazine
// that allocate() pops and deallocate() pushes, and a "previous" one that is either empty or full.
// When loaded runs dry, a full previous takes its place, else the depot refills it; when loaded is
// full, it becomes previous and a full previous is parked in the depot. So a thread visits the depot
// at most once per `capacity` operations, even when it alternates allocate and deallocate around a
// magazine boundary.
//
// The owner thread is the only one to touch the magazines while it lives, so the fast path needs no
// lock and no read-modify-write. The fields that say how many blocks the cache holds are atomics so
// that statistics() may read them from other threads (relaxed loads and stores: plain moves), and
// `top_` also for the check-in below (a CAS). `mutex` guards the two lifetime flags, for the race
// between the owner's exit and the pool's destruction (see thread_cache_registry.hpp), and orders the
// pool side's forget() and counts against the owner's moves of the cache (below).
//
// Checked out: the fast paths keep the loaded magazine's top in the owner's thread-local
// `last_used_top`, and its base and limit in `last_used` (or, for a parked cache, in a slot of
// `parked_tops` and `parked`; thread_cache_registry.hpp), not here, so that a pop or a push
// addresses nothing but constant offsets of the thread pointer: a pointer loaded from thread-local
// storage first (the cache's address) made every pop and push wait for that load, and defeated the
// store-to-load forwarding that the floor's bare thread-local list enjoys; it cost about a third of
// the fast path's time. While checked out, `top_` holds nullptr and `owner_top_` says where the top
// is. The owner checks the cache back in (a CAS of nullptr to its top) before any slow-path work,
// and when it moves the cache between its thread-local slots or evicts it from them. The pool side
// never writes the owner's thread-local storage: release() and destruction only store a new top
// here, under `mutex`, which makes the owner's check-in fail (its copy is stale); the owner's fast
// path no longer matches either: release() gives the pool a new stamp, and a destroyed pool's stamp
// is never given to another pool (see thread_cache_registry.hpp). The owner moves a cache between
// its slots only under `mutex` too, so that such a store never falls between that check-in and the
// check-out after it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>

#include "pool_depot.hpp"

namespace own::detail {

// Cache-line aligned: caches of different threads must not share a line.
class alignas(64) thread_cache {
 public:
  // Takes two empty magazines of `depot`.
  thread_cache(pool_depot& depot, magazine* loaded, magazine* previous) noexcept
      : loaded_(loaded), previous_(previous), depot_(depot), capacity_(depot.capacity()) {
    load(loaded, 0);
  }
  thread_cache(const thread_cache&) = delete;
  thread_cache& operator=(const thread_cache&) = delete;

  // Owner thread, checked in. (Blocks are popped and pushed only while checked out, by the fast
  // paths in thread_cache_registry.hpp.)
  bool loaded_empty() const noexcept {
    return top_.load(std::memory_order_relaxed) == base_.load(std::memory_order_relaxed);
  }
  bool loaded_full() const noexcept { return top_.load(std::memory_order_relaxed) == limit_; }

  // Owner thread, checked in, loaded empty: makes it non-empty. Throws what the depot throws,
  // changing nothing.
  void refill() {
    if (previous_count_.load(std::memory_order_relaxed) != 0) {
      swap_magazines();
      return;
    }
    const std::size_t n = depot_.refill(loaded_);
    loaded_->prefetch(n);
    load(loaded_, n);
  }

  // Owner thread, checked in, loaded full: empties it, parking a full previous magazine in the depot.
  void make_room() noexcept {
    if (previous_count_.load(std::memory_order_relaxed) != 0) {
      depot_.park(previous_);
      previous_->prefetch(capacity_);
      previous_count_.store(0, std::memory_order_relaxed);
    }
    swap_magazines();
  }

  // Blocks held; exact when the owner is not running. Call with `mutex` held: a checked-out top is
  // read in the owner's thread-local storage, which the owner's exit cannot free before it has taken
  // `mutex` (to flush this cache).
  std::size_t cached() const noexcept {
    void** top = top_.load(std::memory_order_acquire);
    if (top == nullptr) {
      top = owner_top_.load(std::memory_order_relaxed)->load(std::memory_order_acquire);
      // The owner may have checked this cache in since, and moved on to another pool's cache, whose
      // top we may just have read: that top was stored after the check-in, so top_ now shows it.
      // (An owner switching away and back meanwhile can still pair another pool's top with this
      // cache: it is then using this pool, where the count need not be exact, and the clamp below
      // bounds it.)
      if (void** checked_in = top_.load(std::memory_order_acquire)) top = checked_in;
    }
    // Integers, not pointer arithmetic: a reader that races the owner's magazine swap or pool switch
    // may pair a top with another magazine's base, and must then get a bounded count, not undefined
    // behaviour.
    const auto base = reinterpret_cast<std::uintptr_t>(base_.load(std::memory_order_relaxed));
    const std::size_t loaded = (reinterpret_cast<std::uintptr_t>(top) - base) / sizeof(void*);
    return (loaded <= capacity_ ? loaded : 0) + previous_count_.load(std::memory_order_relaxed);
  }

  // Owner thread, checked in: hands the loaded magazine's top, base and limit to the fast paths (see
  // the top of this file).
  void check_out(std::atomic<void**>& top, void**& base, void**& limit) noexcept {
    top.store(top_.load(std::memory_order_relaxed), std::memory_order_release);
    base = base_.load(std::memory_order_relaxed);
    limit = limit_;
    owner_top_.store(&top, std::memory_order_relaxed);
    top_.store(nullptr, std::memory_order_release);
  }
  // Owner thread, checked out: takes the top back, unless the pool has forgotten this cache's blocks
  // meanwhile (release(), destruction): then `top` is stale and is dropped, and the result is false.
  bool check_in(void** top) noexcept {
    void** expected = nullptr;
    return top_.compare_exchange_strong(expected, top, std::memory_order_acq_rel, std::memory_order_relaxed);
  }

  // Gives every block back to the depot (thread exit); the magazines stay, for a thread that adopts
  // this cache.
  void flush() noexcept {
    depot_.take_back(loaded_, loaded_count());
    depot_.take_back(previous_, previous_count_.load(std::memory_order_relaxed));
    forget();
  }

  // Drops every block without returning it (their chunks are being released); checks the cache in.
  void forget() noexcept {
    top_.store(base_.load(std::memory_order_relaxed), std::memory_order_relaxed);
    previous_count_.store(0, std::memory_order_relaxed);
  }

  // Pool destruction: forgets the blocks and gives the magazines back to the depot.
  void surrender() noexcept {
    forget();
    depot_.delete_magazine(loaded_);
    depot_.delete_magazine(previous_);
    loaded_ = previous_ = nullptr;
  }

 private:
  // One past the loaded magazine's last block (nullptr while checked out), its first slot and its end.
  std::atomic<void**> top_{nullptr};
  std::atomic<void**> base_{nullptr};
  void** limit_ = nullptr;
  std::atomic<const std::atomic<void**>*> owner_top_{nullptr};  // the top, while checked out

 public:
  std::mutex mutex{};
  bool pool_alive = true;        // guarded by mutex; false once the pool is destroyed
  bool thread_attached = true;   // guarded by mutex; false once the owner thread has exited
  thread_cache* next = nullptr;  // the pool's registry list, guarded by the registry's mutex

 private:
  // Makes `m`, holding `count` blocks, the loaded magazine.
  void load(magazine* m, std::size_t count) noexcept {
    void** const base = m->slots();
    loaded_ = m;
    base_.store(base, std::memory_order_relaxed);
    limit_ = base + capacity_;
    top_.store(base + count, std::memory_order_relaxed);
  }

  std::size_t loaded_count() const noexcept {
    return static_cast<std::size_t>(top_.load(std::memory_order_relaxed) - base_.load(std::memory_order_relaxed));
  }

  void swap_magazines() noexcept {
    magazine* const m = loaded_;
    const std::size_t count = loaded_count();
    load(previous_, previous_count_.load(std::memory_order_relaxed));
    previous_ = m;
    previous_count_.store(count, std::memory_order_relaxed);
  }

  magazine* loaded_;
  magazine* previous_;
  std::atomic<std::size_t> previous_count_{0};
  pool_depot& depot_;
  const std::size_t capacity_;
};

}  // namespace own::detail
