// Who owns a concurrent pool's thread caches, and how a thread finds its cache in O(1).
//
// Finding, in plain thread_local storage (trivial, so access needs no TLS guard):
//  - the fast path compares the pool's id with the one pool this thread used last (`last_used`):
//    one compare, then the cache's own pop or push. A thread mostly works with one pool at a time,
//    and hashing into a table cost the hit path a dozen instructions more;
//  - the slow path (a miss, or an empty or full magazine) looks in a small direct-mapped table of
//    {pool id, cache} slots, then in the thread's list of caches, and remembers what it found in
//    `last_used`, so a thread that alternates between pools pays an out-of-line call, not a search.
// Pool ids come from a global 64-bit counter, start at 1 and are never reused, so an empty slot (id 0)
// or one left behind by a destroyed pool can never match a live one (even one built at the same
// address): the stale cache pointer is never followed.
//
// Owning: a cache is shared by its thread and its pool. Each side, when it goes away, clears its flag
// under the cache's mutex; whichever goes second deletes the cache.
//  - Thread exit (thread_cache_list's destructor): if the pool is alive, the cache's blocks go back
//    to the depot and the cache stays in the pool's registry, for the next new thread to adopt; if
//    not, the thread deletes it.
//  - Pool destruction (cache_registry::detach_all): the pool forgets each cache's blocks (their
//    chunks are going), takes back its magazines, and deletes the caches of exited threads; live
//    threads delete theirs at exit, or earlier when they next register with some pool (drop_dead),
//    so a long-lived thread that uses many short-lived pools does not accumulate them.
// The pool-side lock order is registry mutex, then cache mutex, then depot mutex; a thread takes a
// cache mutex and then the depot mutex; no path takes them in another order.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <mutex>
#include <vector>

#include "pool_depot.hpp"
#include "process_wide.hpp"
#include "thread_cache.hpp"

namespace own::detail {

OWN_PROCESS_WIDE inline std::atomic<std::uint64_t> last_pool_id{0};
inline std::uint64_t new_pool_id() noexcept { return last_pool_id.fetch_add(1, std::memory_order_relaxed) + 1; }

struct cache_slot {
  std::uint64_t pool_id;  // 0: empty
  thread_cache* cache;
};

// The pool this thread used last, and its cache: the only entry the fast paths look at.
OWN_PROCESS_WIDE inline thread_local cache_slot last_used{0, nullptr};
inline constexpr std::size_t cache_slot_count = 16;
OWN_PROCESS_WIDE inline thread_local cache_slot cache_slots[cache_slot_count];
// Set once this thread's thread_cache_list is destroyed: later calls (from other thread_local
// destructors) bypass caches and go to the depot.
OWN_PROCESS_WIDE inline thread_local bool thread_caches_gone = false;

// The fast paths: pop from / push to this thread's cache of pool `pool_id` if that is the pool the
// thread used last. False, with nothing done, on a miss or an empty / full magazine.
inline bool pop_last_used(std::uint64_t pool_id, void*& block) noexcept {
  return last_used.pool_id == pool_id && last_used.cache->pop(block);
}
inline bool push_last_used(std::uint64_t pool_id, void* block) noexcept {
  return last_used.pool_id == pool_id && last_used.cache->push(block);
}

// Makes `entry` the cache the fast paths find first.
inline thread_cache* remember_thread_cache(const cache_slot& entry) noexcept {
  cache_slots[entry.pool_id % cache_slot_count] = entry;
  last_used = entry;
  return entry.cache;
}

// The table's cache of pool `pool_id`, remembered as the last used; nullptr if the table has none.
inline thread_cache* find_thread_cache(std::uint64_t pool_id) noexcept {
  const cache_slot& slot = cache_slots[pool_id % cache_slot_count];
  if (slot.pool_id != pool_id) return nullptr;
  last_used = slot;  // the table already holds it
  return slot.cache;
}

// The caches of one thread, one per pool it has used: the slots' backing store, and the thread's
// half of each cache's ownership.
class thread_cache_list {
 public:
  thread_cache_list() = default;
  thread_cache_list(const thread_cache_list&) = delete;
  thread_cache_list& operator=(const thread_cache_list&) = delete;

  ~thread_cache_list() {
    thread_caches_gone = true;
    last_used = {0, nullptr};
    std::fill(std::begin(cache_slots), std::end(cache_slots), cache_slot{0, nullptr});
    for (const cache_slot& entry : caches_) {
      thread_cache* cache = entry.cache;
      {
        std::lock_guard<std::mutex> lock(cache->mutex);
        if (cache->pool_alive) {
          cache->flush();
          cache->thread_attached = false;
          continue;
        }
      }
      delete cache;
    }
  }

  thread_cache* find(std::uint64_t pool_id) const noexcept {
    for (const cache_slot& entry : caches_) {
      if (entry.pool_id == pool_id) return remember_thread_cache(entry);
    }
    return nullptr;
  }

  // Strong guarantee: throws std::bad_alloc before anything changes.
  void make_room_for_one() { caches_.reserve(caches_.size() + 1); }
  // Precondition: make_room_for_one() since the last add.
  thread_cache* add(std::uint64_t pool_id, thread_cache* cache) noexcept {
    caches_.push_back({pool_id, cache});
    return remember_thread_cache(caches_.back());
  }

  // Deletes the caches of destroyed pools.
  void drop_dead() noexcept {
    auto dead = [](const cache_slot& entry) {
      {
        std::lock_guard<std::mutex> lock(entry.cache->mutex);
        if (entry.cache->pool_alive) return false;
      }
      cache_slot& slot = cache_slots[entry.pool_id % cache_slot_count];
      if (slot.cache == entry.cache) slot = {0, nullptr};
      if (last_used.cache == entry.cache) last_used = {0, nullptr};
      delete entry.cache;
      return true;
    };
    caches_.erase(std::remove_if(caches_.begin(), caches_.end(), dead), caches_.end());
  }

 private:
  std::vector<cache_slot> caches_;
};

// Constructed on a thread's first registration with any pool (the slow path), destroyed at its exit.
OWN_PROCESS_WIDE inline thread_cache_list& this_thread_cache_list() {
  static thread_local thread_cache_list list;
  return list;
}

// One pool's half: the caches of every thread that has used the pool.
class cache_registry {
 public:
  cache_registry(pool_depot& depot, std::uint64_t pool_id) noexcept : depot_(depot), pool_id_(pool_id) {}
  cache_registry(const cache_registry&) = delete;
  cache_registry& operator=(const cache_registry&) = delete;

  // The calling thread's cache, registering one on first use (adopting an exited thread's cache if
  // there is one); nullptr once the thread's caches are gone (thread exit). Throws std::bad_alloc or
  // what upstream throws (for the magazines), changing nothing.
  thread_cache* this_thread() {
    if (thread_caches_gone) return nullptr;
    if (thread_cache* cache = find_thread_cache(pool_id_)) return cache;
    thread_cache_list& list = this_thread_cache_list();
    if (thread_cache* cache = list.find(pool_id_)) return cache;
    list.drop_dead();
    list.make_room_for_one();
    std::lock_guard<std::mutex> lock(mutex_);
    for (thread_cache* cache = head_; cache; cache = cache->next) {
      std::lock_guard<std::mutex> cache_lock(cache->mutex);
      if (!cache->thread_attached) {
        cache->thread_attached = true;
        return list.add(pool_id_, cache);
      }
    }
    thread_cache* cache = new_cache();
    cache->next = head_;
    head_ = cache;
    return list.add(pool_id_, cache);
  }

  // Pool destruction: forgets every cache (see the top of this file). Returns the blocks they held.
  std::size_t detach_all() noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    std::size_t held = 0;
    for (thread_cache* cache = head_; cache;) {
      thread_cache* const next = cache->next;
      bool orphan;
      {
        std::lock_guard<std::mutex> cache_lock(cache->mutex);
        held += cache->cached();
        cache->surrender();
        cache->pool_alive = false;
        orphan = !cache->thread_attached;
      }
      if (orphan) delete cache;
      cache = next;
    }
    head_ = nullptr;
    return held;
  }

  // release(): empties every cache. Precondition: no thread is using the pool.
  void forget_all() noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    for (thread_cache* cache = head_; cache; cache = cache->next) {
      std::lock_guard<std::mutex> cache_lock(cache->mutex);
      cache->forget();
    }
  }

  // Blocks in all caches; exact when no thread is using the pool. Call with mutex() held.
  std::size_t cached_blocks() const noexcept {
    std::size_t held = 0;
    for (const thread_cache* cache = head_; cache; cache = cache->next) held += cache->cached();
    return held;
  }
  std::mutex& mutex() const noexcept { return mutex_; }

 private:
  // A cache with two empty magazines. Throws what upstream throws, leaving nothing behind.
  thread_cache* new_cache() {
    struct magazine_holder {
      pool_depot& depot;
      magazine* m;
      ~magazine_holder() {
        if (m) depot.delete_magazine(m);
      }
    };
    magazine_holder loaded{depot_, depot_.new_magazine()};
    magazine_holder previous{depot_, depot_.new_magazine()};
    auto* cache = new thread_cache(depot_, loaded.m, previous.m);
    loaded.m = previous.m = nullptr;
    return cache;
  }

  mutable std::mutex mutex_;
  thread_cache* head_ = nullptr;
  pool_depot& depot_;
  const std::uint64_t pool_id_;
};

}  // namespace own::detail
