// SPDX-License-Identifier: BSL-1.0
// A control block that stands in for another one on one thread's loads from an atomic_shared_ptr,
// so that two threads loading the same value in a loop stop passing its count's cache line back
// and forth: each increments and decrements a count on a line of its own.
//
// A proxy is *armed* by its owner thread for one node of an atomic (the node's value: `real`, its
// stored pointer: `element`): it then holds one shared reference to `real`, and its own shared count
// holds one reference for the arming (the *standing* reference, marked by `standing`) plus one per
// shared_ptr that uses the proxy as its block. A load that finds the atomic still holding that node
// takes a reference on the proxy (an increment, taken back if the count was zero) instead of on
// `real`. Whoever clears `standing` first (the writer that unlinks the node, or the owner) drops the
// standing reference; the proxy's last shared reference releases `real`, and the proxy is free for
// its owner to arm again (the owner keeps a weak reference to it from its first arming until its
// thread exits).
//
// What a proxied shared_ptr means to its users: the proxy is its control block, but the owner it
// reports is `real` (owner_before, owner_hash, owner_equal, a weak_ptr made from it, the atomics'
// equivalence), get_deleter finds `real`'s deleter, and use_count(), of any shared_ptr or weak_ptr
// to `real`, counts each proxy's users instead of its one reference (users_of), so that it is
// what std's would be.
//
// Proxies live in a table beside the hazard records (one per record, never freed), so that a
// writer's scan finds the proxy of a record that stands for the node it unlinked.
#pragma once

#include <atomic>
#include <cstddef>
#include <utility>

#include "control_block.hpp"
#include "process_wide.hpp"
#include "type_key.hpp"

namespace own::detail {

class OWN_PROCESS_WIDE load_proxy : public control_block {
 public:
  constexpr load_proxy() noexcept : control_block(&ops_table) {}

  // For its owner: whether the proxy stands for `node` and took one more reference for the caller.
  bool share(const void* node) noexcept { return node_ == node && standing_.load(std::memory_order_seq_cst) && add_shared_unless_zero(); }
  // For its owner: whether it may be armed (no reference left from its last arming, but the owner's
  // weak one). One load.
  bool is_free() const noexcept { return owner_weak_ ? only_one_weak_left() : !in_use_.load(std::memory_order_acquire); }
  // For its owner, on a free proxy: stands for `node`, whose value's block is `real` (one shared
  // reference taken here) and stored pointer `element`, with the standing reference only (share()
  // takes the others). The owner's first arming also takes a weak reference, which it keeps through
  // its later armings until disown(): its loads take shared ones as weak_ptr::lock does, so the
  // count must not look like a sole owner's (whose last release frees without a read-modify-write),
  // and while it holds that reference the proxy is never destroyed, so that arming again writes
  // nothing but the proxy's line and the value's count.
  void arm(const void* node, control_block* real, const void* element) noexcept {
    real->add_shared();
    real_.store(real, std::memory_order_relaxed);
    element_ = element;
    node_ = node;
    reset_counts(1, 1);
    if (!owner_weak_) {
      owner_weak_ = true;
      in_use_.store(true, std::memory_order_relaxed);
      in_use_count_.fetch_add(1, std::memory_order_relaxed);
    }
    // Release: a writer whose scan read the record's previous node (an arming its owner revoked
    // itself) may yet find this arming standing and revoke it; its exchange must then see the
    // counts and `real` written above, or its release could hit the last arming's counts (lost
    // under reset_counts) and value. (On x86 the same plain store as a relaxed one.)
    standing_.store(true, std::memory_order_release);
  }
  // For its owner: whether it still stands for a node, and which (the last it was armed for).
  bool standing() const noexcept { return standing_.load(std::memory_order_acquire); }
  const void* node() const noexcept { return node_; }
  // For its owner, as its thread exits: revokes, and lets the last user free the proxy.
  void disown() noexcept {
    revoke();
    if (std::exchange(owner_weak_, false)) release_weak();
  }
  // Drops the standing reference unless somebody did: for a writer that unlinked the node, or the
  // owner. May run real's user code (its last release), unless the caller holds a reference.
  void revoke() noexcept {
    // (A record's node may be stale, its proxy long revoked: then one load, no write. Or re-armed
    // since for another node: then that arming goes early; see atomic_shared_ptr.hpp's proof.)
    // (Acquire, so that a writer that finds it revoked by the exiting owner also sees what that
    // owner wrote first: load_proxies::leave.)
    if (standing() && standing_.exchange(false, std::memory_order_acq_rel)) release_shared();
  }
  const void* element() const noexcept { return element_; }

  // The block that owns what `b` points to: `real` for a proxy, else `b`.
  static control_block* owner_of(control_block* b) noexcept {
    return b != nullptr && b->ops() == &ops_table ? static_cast<load_proxy*>(b)->real_.load(std::memory_order_relaxed) : b;
  }
  // The users of the value whose block is `owner` (not a proxy), as std counts them: its count,
  // with each proxy that holds one reference to it counted as the proxy's users instead (its
  // standing reference is no user). As exact as std's wherever nothing changes meanwhile. Reads
  // the proxies in use only while any is (a proxy is in use from its owner's first arming until
  // its owner's exit and its last user): one load more than the count when none is.
  static long users_of(const control_block* owner) noexcept;

  // The table of proxies (one per hazard record of hazard_slots' table; load_proxies says which
  // thread uses which), and, for its users, that proxy `index` is in use from now on.
  static constexpr std::size_t table_size = 256;
  static load_proxy& at(std::size_t index) noexcept;
  static void note_used(std::size_t index) noexcept {
    std::size_t end = used_end_.load(std::memory_order_relaxed);
    while (end <= index && !used_end_.compare_exchange_weak(end, index + 1, std::memory_order_relaxed)) {
    }
  }

 private:
  static void dispose(control_block* b) noexcept { static_cast<load_proxy*>(b)->real_.load(std::memory_order_relaxed)->release_shared(); }
  static void destroy(control_block* b) noexcept {
    in_use_count_.fetch_sub(1, std::memory_order_relaxed);
    static_cast<load_proxy*>(b)->in_use_.store(false, std::memory_order_release);
  }
  static void* get_deleter(control_block* b, type_key type) noexcept {
    return static_cast<load_proxy*>(b)->real_.load(std::memory_order_relaxed)->get_deleter(type);
  }
  static constexpr control_block_ops ops_table = block_ops<&dispose, &destroy, &get_deleter>;

  // Read by users_of on any thread, so atomic; written by the owner as it arms.
  std::atomic<control_block*> real_{nullptr};
  const void* element_ = nullptr;
  const void* node_ = nullptr;  // the owner's only
  bool owner_weak_ = false;     // the owner's only
  std::atomic<bool> standing_{false};
  std::atomic<bool> in_use_{false};

  static inline std::atomic<long> in_use_count_{0};     // proxies in use (see users_of)
  static inline std::atomic<std::size_t> used_end_{0};  // 1 + the highest index ever used
};

// A line each: a proxy's counts are written by its owner's loads.
struct alignas(64) load_proxy_cell {
  constexpr load_proxy_cell() noexcept : proxy() {}
  load_proxy proxy;
};
// Zero but for each proxy's operations pointer: 16 KiB, constant-initialized (no guard). A static
// member, so that it stays one copy in the process (OWN_PROCESS_WIDE, as hazard_slots' table).
struct OWN_PROCESS_WIDE load_proxy_table {
  static inline load_proxy_cell cells[load_proxy::table_size];
};

inline load_proxy& load_proxy::at(std::size_t index) noexcept { return load_proxy_table::cells[index].proxy; }

inline long load_proxy::users_of(const control_block* owner) noexcept {
  long users = owner->use_count();
  if (users == 0 || in_use_count_.load(std::memory_order_relaxed) == 0) return users;
  for (std::size_t i = 0, end = used_end_.load(std::memory_order_relaxed); i != end; ++i) {
    const load_proxy& p = at(i);
    const long shared = p.use_count();
    if (shared > 0 && p.real_.load(std::memory_order_relaxed) == owner) {
      users += shared - (p.standing_.load(std::memory_order_relaxed) ? 1 : 0) - 1;
    }
  }
  return users > 0 ? users : 1;  // (counts read while they move)
}

}  // namespace own::detail
