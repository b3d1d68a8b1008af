// SPDX-License-Identifier: BSL-1.0
// Who owns a concurrent pool's thread caches, and how a thread finds its cache in O(1).
//
// Finding, in plain thread_local storage (trivial, so access needs no TLS guard):
//  - the fast path compares the pool's stamp with the stamp of the one pool this thread used last
//    (`last_used`), whose cache is checked out there (see thread_cache.hpp): one compare, then a pop
//    or push of the thread-local top. A thread mostly works with one pool at a time, and hashing into
//    a table cost the hit path a dozen instructions more;
//  - on a miss, among the few other caches the thread keeps checked out (`parked`): the fast path
//    tries the one parked last (the pool used before the current one), the slow path searches the
//    others, so a thread that works with two pools in turn stays on the fast path, and one that works
//    with more pays an out-of-line call and a short search, not a CAS;
//  - the slower path (a cache not checked out, or an empty or full magazine) looks in a small
//    direct-mapped table of {pool id, cache} slots, then in the thread's list of caches, parks the
//    current cache and makes the found one current.
// Pool ids and stamps come from one global 64-bit counter, start at 1 and are never reused, so an
// empty slot (id 0) or one left behind by a destroyed pool can never match a live one (even one built
// at the same address): the stale cache pointer is never followed. A pool's id names it for life; its
// stamp is new after each release(), so that no thread's fast path keeps using a top checked out
// before the release.
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
// cache mutex and then the depot mutex. A pool's upstream may be another concurrent pool used on the
// same thread, so a thread may come to its own caches' mutexes with some depot mutex held (a refill,
// reserve()): there it only tries them (move_checked_out, drop_dead), and backs off when contended.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "exceptions.hpp"
#include "pool_depot.hpp"
#include "process_wide.hpp"
#include "slow_path.hpp"
#include "thread_cache.hpp"

namespace own::detail {

OWN_PROCESS_WIDE inline std::atomic<std::uint64_t> last_pool_id{0};
inline std::uint64_t new_pool_id() noexcept { return last_pool_id.fetch_add(1, std::memory_order_relaxed) + 1; }

struct cache_slot {
  std::uint64_t pool_id;  // 0: empty
  thread_cache* cache;
};

// The cache this thread used last, and its top while checked out: all that the fast paths read.
struct current_cache {
  // Not 0: `cache` was checked out here for the pool with this stamp, and the thread will try to
  // check it in (the top is stale if the pool has since been released or destroyed).
  std::uint64_t stamp;
  void** base;
  void** limit;
  thread_cache* cache;  // checked out or in; nullptr: none
};
OWN_PROCESS_WIDE inline thread_local current_cache last_used{0, nullptr, nullptr, nullptr};
// The checked-out top. An atomic only for statistics() on other threads (see thread_cache.hpp; its
// stores are releases, plain moves on x86, so that a reader who sees a top stored after a check-in
// also sees the check-in), and a variable of its own: gcc 12 addresses an atomic member of a
// thread_local struct through a register loaded from %fs:0, which cost the fast path an instruction
// and its store-to-load forwarding, but addresses a thread_local atomic directly.
OWN_PROCESS_WIDE inline thread_local std::atomic<void**> last_used_top{nullptr};
inline constexpr std::size_t cache_slot_count = 16;
OWN_PROCESS_WIDE inline thread_local cache_slot cache_slots[cache_slot_count];
// Set once this thread's thread_cache_list is destroyed: later calls (from other thread_local
// destructors) bypass caches and go to the depot.
OWN_PROCESS_WIDE inline thread_local bool thread_caches_gone = false;

// Caches checked out besides the current one. A thread that works with several pools in turn (the
// size classes of a multipool, the stages of a pipeline) keeps each one's cache checked out here, so
// that a switch costs a look at these slots, not a check-in (a CAS) and a check-out. The first slot
// holds the cache parked last, the one used before the current one: the fast paths look there too,
// inline, so that two pools used in turn both stay on them. The others are searched out of line.
// A parked cache becomes the current one when its magazine next runs dry or full (the slow path
// checks it in to refill it anyway), or after some uses out of line (promote below), and the current
// one is parked in the first slot in its place; when every slot is taken, the slots after the first
// are checked in round-robin to make room.
inline constexpr std::size_t parked_count = 7;
OWN_PROCESS_WIDE inline thread_local current_cache parked[parked_count]{};
OWN_PROCESS_WIDE inline thread_local std::atomic<void**> parked_tops[parked_count]{};
OWN_PROCESS_WIDE inline thread_local std::size_t next_parked_eviction = 0;

// The parked slot of the pool stamped `stamp` (0: a free slot; never a pool's stamp), or parked_count.
inline std::size_t find_parked(std::uint64_t stamp) noexcept {
  std::size_t i = 0;
  while (i != parked_count && parked[i].stamp != stamp) ++i;
  return i;
}

// Pop from / push to the cache checked out in `slot` (its top in `top`) if it is the pool stamped
// `stamp`'s. False, with nothing done, on a miss or an empty / full magazine.
inline bool pop_from(const current_cache& slot, std::atomic<void**>& top, std::uint64_t stamp, void*& block) noexcept {
  if (OWN_UNLIKELY(slot.stamp != stamp)) return false;
  void** const t = top.load(std::memory_order_relaxed);
  if (OWN_UNLIKELY(t == slot.base)) return false;
  block = t[-1];
  top.store(t - 1, std::memory_order_release);
  return true;
}
inline bool push_to(const current_cache& slot, std::atomic<void**>& top, std::uint64_t stamp, void* block) noexcept {
  if (OWN_UNLIKELY(slot.stamp != stamp)) return false;
  void** const t = top.load(std::memory_order_relaxed);
  if (OWN_UNLIKELY(t == slot.limit)) return false;
  *t = block;
  top.store(t + 1, std::memory_order_release);
  return true;
}

// The fast paths, and the slow paths once they have checked the cache out: the current cache.
inline bool pop_last_used(std::uint64_t stamp, void*& block) noexcept {
  return pop_from(last_used, last_used_top, stamp, block);
}
inline bool push_last_used(std::uint64_t stamp, void* block) noexcept {
  return push_to(last_used, last_used_top, stamp, block);
}
// The fast paths' second look: the cache parked last.
inline bool pop_parked_last(std::uint64_t stamp, void*& block) noexcept {
  return pop_from(parked[0], parked_tops[0], stamp, block);
}
inline bool push_parked_last(std::uint64_t stamp, void* block) noexcept {
  return push_to(parked[0], parked_tops[0], stamp, block);
}

// Checks the cache checked out in `slot` back in, if there is one, and frees the slot; false if there
// was none, or its top was stale (see thread_cache::check_in).
inline bool check_in(current_cache& slot, std::atomic<void**>& top) noexcept {
  if (slot.stamp == 0) return false;
  slot.stamp = 0;
  return slot.cache->check_in(top.load(std::memory_order_relaxed));
}

// Moves the cache checked out in slot `from` to slot `to` (free, or checked in to make it so): checked
// in, then out again there. The thread is not using that cache's pool now, so on another thread the
// pool may meanwhile forget the cache's blocks (release(), destruction) or count them (statistics());
// all three hold the cache's mutex, and so does the move, so that none of them falls between its
// check-in and check-out (a forget() there would be overwritten, and its stale top checked in later).
// The mutex is only tried: a pool's upstream may be another concurrent pool used on this thread, so
// this can run while a depot mutex is held (a refill or reserve() calling upstream), and statistics()
// of that depot's pool holds its caches' mutexes while it waits for the depot. Contended, the cache is
// only checked in (a CAS, safe without the mutex) and leaves the slots: the thread finds it again
// through its list when it next uses that pool.
inline void move_checked_out(current_cache& from, std::atomic<void**>& from_top, current_cache& to,
                             std::atomic<void**>& to_top) noexcept {
  thread_cache* const cache = from.cache;
  const std::uint64_t stamp = from.stamp;
  check_in(to, to_top);
  to.cache = nullptr;
  std::unique_lock<std::mutex> lock(cache->mutex, std::try_to_lock);
  const bool fresh = check_in(from, from_top);
  from.cache = nullptr;                      // a cache is in one slot at most
  if (!fresh || !lock.owns_lock()) return;  // its top was stale, or the pool side holds the mutex
  to.cache = cache;
  cache->check_out(to_top, to.base, to.limit);
  to.stamp = stamp;
}

// Parks the current cache, if one is checked out, in the first parked slot, whose cache moves on to
// a free slot or to the one evicted next.
inline void park_current() noexcept {
  if (last_used.stamp == 0) return;
  if (parked[0].stamp != 0) {
    std::size_t i = find_parked(0);  // a free slot, after the first
    if (i == parked_count) {
      i = 1 + next_parked_eviction;
      next_parked_eviction = (next_parked_eviction + 1) % (parked_count - 1);
    }
    move_checked_out(parked[0], parked_tops[0], parked[i], parked_tops[i]);
  }
  move_checked_out(last_used, last_used_top, parked[0], parked_tops[0]);
}

// Makes `cache` the current cache, checked in for the caller's slow-path work (from a parked slot if
// it was there); the cache checked out as current so far is parked.
inline thread_cache* make_current(thread_cache* cache) noexcept {
  if (last_used.cache == cache) {
    check_in(last_used, last_used_top);
    return cache;
  }
  for (std::size_t i = 0; i != parked_count; ++i) {
    if (parked[i].stamp != 0 && parked[i].cache == cache) {
      check_in(parked[i], parked_tops[i]);
      break;
    }
  }
  park_current();
  last_used.cache = cache;
  return cache;
}

// After the slow path's work on `cache` (checked in): checks it out as the current cache, to the fast
// paths of the pool stamped `stamp`. That work may have called upstream, which may have used another
// concurrent pool on this thread and made that pool's cache current meanwhile.
inline void check_out_current(thread_cache* cache, std::uint64_t stamp) noexcept {
  if (last_used.cache != cache) make_current(cache);
  cache->check_out(last_used_top, last_used.base, last_used.limit);
  last_used.stamp = stamp;
}

// The slow paths' first try: the parked cache of the pool stamped `stamp`. Every promote_after-th use
// of a parked cache (of any pool: one count per thread) makes the cache used then the current one, so
// that a thread that has gone back to one pool gets the fast path back.
inline constexpr unsigned promote_after = 64;
OWN_PROCESS_WIDE inline thread_local unsigned parked_uses = 0;
inline void promote(std::size_t i) noexcept {
  if (++parked_uses != promote_after) return;
  parked_uses = 0;
  const current_cache moving = parked[i];
  if (check_in(parked[i], parked_tops[i])) check_out_current(moving.cache, moving.stamp);
}
inline bool pop_parked(std::uint64_t stamp, void*& block) noexcept {
  const std::size_t i = find_parked(stamp);
  if (i == parked_count || !pop_from(parked[i], parked_tops[i], stamp, block)) return false;
  promote(i);
  return true;
}
inline bool push_parked(std::uint64_t stamp, void* block) noexcept {
  const std::size_t i = find_parked(stamp);
  if (i == parked_count || !push_to(parked[i], parked_tops[i], stamp, block)) return false;
  promote(i);
  return true;
}

// Thread exit: checks every cache in, current and parked.
inline void check_in_all() noexcept {
  check_in(last_used, last_used_top);
  last_used.cache = nullptr;
  for (std::size_t i = 0; i != parked_count; ++i) {
    check_in(parked[i], parked_tops[i]);
    parked[i].cache = nullptr;
  }
}

// Makes `entry` the current cache and the one the table finds first.
inline thread_cache* remember_thread_cache(const cache_slot& entry) noexcept {
  cache_slots[entry.pool_id % cache_slot_count] = entry;
  return make_current(entry.cache);
}

// The table's cache of pool `pool_id`, made current; nullptr if the table has none.
inline thread_cache* find_thread_cache(std::uint64_t pool_id) noexcept {
  const cache_slot& slot = cache_slots[pool_id % cache_slot_count];
  if (slot.pool_id != pool_id) return nullptr;
  return make_current(slot.cache);  // the table already holds it
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
    check_in_all();
    for (cache_slot& slot : cache_slots) slot = cache_slot{0, nullptr};
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

  // Deletes the caches of destroyed pools; one whose mutex is held (the pool side at work, maybe
  // waiting for a depot mutex this thread holds: see the top of this file) waits for the next time.
  void drop_dead() noexcept {
    auto dead = [](const cache_slot& entry) {
      {
        std::unique_lock<std::mutex> lock(entry.cache->mutex, std::try_to_lock);
        if (!lock.owns_lock() || entry.cache->pool_alive) return false;
      }
      cache_slot& slot = cache_slots[entry.pool_id % cache_slot_count];
      if (slot.cache == entry.cache) slot = {0, nullptr};
      // Nothing to check in: the pool has taken the magazines back.
      if (last_used.cache == entry.cache) last_used = current_cache{0, nullptr, nullptr, nullptr};
      for (current_cache& p : parked) {
        if (p.cache == entry.cache) p = current_cache{0, nullptr, nullptr, nullptr};
      }
      delete entry.cache;
      return true;
    };
    std::size_t kept = 0;  // std::remove_if, without <algorithm>
    for (const cache_slot& entry : caches_) {
      if (!dead(entry)) caches_[kept++] = entry;
    }
    caches_.resize(kept);
  }

 private:
  std::vector<cache_slot> caches_{};
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

  // The calling thread's cache, made current and checked in (the caller checks it out when done; see
  // check_out_current), registering one on first use (adopting an exited thread's cache if there is
  // one); nullptr once the thread's caches are gone (thread exit). Throws std::bad_alloc or
  // what upstream throws (for the magazines), changing nothing.
  thread_cache* this_thread() {
    if (thread_caches_gone) return nullptr;
    if (thread_cache* cache = find_thread_cache(pool_id_)) return cache;
    thread_cache_list& list = this_thread_cache_list();
    if (thread_cache* cache = list.find(pool_id_)) return cache;
    list.drop_dead();
    // The cache before the list's room for it: making a cache calls upstream, which may be another
    // concurrent pool that this thread uses for the first time, and that registration would take a
    // room made before it.
    thread_cache* const cache = attach_cache();
    OWN_TRY {
      list.make_room_for_one();
    } OWN_CATCH_ALL {
      detach_cache(cache);
      OWN_RETHROW;
    }
    return list.add(pool_id_, cache);  // with no lock of this pool held: add() parks the current cache
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

  // Returns f(blocks in all caches), called with every cache's mutex still held, so that a thread
  // exiting meanwhile cannot move its blocks into the depot between the two counts (f reads the
  // depot's): the sum is exact when no thread is using the pool. Call with mutex() held. Holding
  // several cache mutexes at once is safe: no other path holds one while it takes another.
  template <class F>
  auto with_cached_blocks(F f) const {
    struct unlock_taken {
      thread_cache* first;
      thread_cache* end;  // the first cache not locked
      ~unlock_taken() {
        for (thread_cache* cache = first; cache != end; cache = cache->next) cache->mutex.unlock();
      }
    } taken{head_, head_};
    std::size_t held = 0;
    for (thread_cache* cache = head_; cache; cache = cache->next) {
      cache->mutex.lock();
      taken.end = cache->next;
      held += cache->cached();
    }
    return f(held);
  }
  std::mutex& mutex() const noexcept { return mutex_; }

 private:
  // An exited thread's cache, adopted, else a new one: attached to the calling thread. Throws what
  // new_cache() throws, changing nothing.
  thread_cache* attach_cache() {
    std::lock_guard<std::mutex> lock(mutex_);
    for (thread_cache* cache = head_; cache; cache = cache->next) {
      std::lock_guard<std::mutex> cache_lock(cache->mutex);
      if (!cache->thread_attached) {
        cache->thread_attached = true;
        return cache;
      }
    }
    thread_cache* cache = new_cache();
    cache->next = head_;
    head_ = cache;
    return cache;
  }

  // Undoes attach_cache(): the cache stays in the registry, for a thread to adopt.
  void detach_cache(thread_cache* cache) noexcept {
    std::lock_guard<std::mutex> lock(cache->mutex);
    cache->thread_attached = false;
  }

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

  mutable std::mutex mutex_{};
  thread_cache* head_ = nullptr;
  pool_depot& depot_;
  const std::uint64_t pool_id_;
};

}  // namespace own::detail
