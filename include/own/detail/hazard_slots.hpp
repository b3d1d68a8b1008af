// SPDX-License-Identifier: BSL-1.0
// Hazard pointers (Michael, 2004): how a thread that reads a shared node keeps another thread from
// freeing it meanwhile, without writing to any cache line that other readers write. Used by
// atomic_shared_ptr and atomic_weak_ptr for their nodes; knows nothing of what a node holds.
//
// Each thread that reads gets a *record*: one cache line of its own with one slot for its current
// operation and four for snapshots (atomic_shared_ptr::snapshot(): protections that last as long
// as the caller likes, alongside the thread's operations; the same protocol, slot by slot). To read the node
// that a shared pointer `src` points to, a thread writes the node's address in its slot (a seq_cst
// exchange), then reads `src` again: if `src` still points there, the node is protected until the
// slot is cleared (a release store). A thread that has unlinked a node (made it unreachable from
// every `src`) scans every slot: if none holds the node, nobody reads it or can start to, and the
// unlinking thread frees it at once; otherwise the node is *deferred*, pushed on one global list,
// and freed later, normally by its last reader as that reader lets go of it.
//
// Why a protected node cannot be freed (the two seq_cst pairs, no fences, so ThreadSanitizer sees
// them): the reader's slot write precedes its re-read of `src`, and the unlinker's unlinking write
// precedes its scan, all four seq_cst. If the re-read saw the node, it came before the unlink in the
// single total order, so the scan comes after the slot write and sees it (or a later value, which
// the reader writes only once done with the node, with release: the scan acquires it, so the
// reader's last access happens before the free). If the re-read saw the unlink, the reader retries
// without touching the node. A node's address can come back only after it is freed, and a reader
// re-validates whatever it protects, so address reuse (ABA) protects the new node, not the old one.
//
// Who frees a deferred node, without readers paying for it: the thread that defers a node also
// sets a flag on each record whose slot holds it, then looks at the slot again. A reader clears its
// slot with a plain release store and then reads its own flag (a line it owns: no cost); if set,
// it clears the flag and frees every deferred node that no slot holds any more. The reader's look
// may miss a flag set at that very moment (its clear can still be in its store buffer while the
// deferring thread reads the slot), so: if the deferring thread's second look finds the slot clear,
// it frees the node itself; otherwise that look read the slot before the reader's next seq_cst
// write to it (its next protection, or the seq_cst clear when its thread exits), so in the single
// total order the flag was set before that write and the reader's following look sees it. A
// thread that finds a deferred node still protected when it frees the list treats it the same way.
// So a deferred node is freed at the latest by its last reader's next protection (of a non-empty
// source: a null one writes no slot), its exit, or the next writer's settle(), and threads that
// never read a deferred node never look at the list (no contention on it, even while a preempted
// reader keeps a node deferred for long).
//
// No user code on readers: a reader frees a node only as far as that runs no user code (its reclaim
// function is told it is called by a reader, and refuses when dropping the node's value would run a
// destructor, a deleter or an allocator's deallocate). A refused node goes on a second list, `held`,
// which writers empty: settle(), which the atomics call after every store, exchange and
// compare_exchange and in their destructors, frees the deferred nodes nobody holds and the held ones,
// running their user code there.
//
// Memory: records are never freed (at most one per thread alive at once, reused after a thread
// exits; the first 256 in a static table, side by side, then from operator new; all reachable
// from a global list, so leak checkers do not count them). A node stays
// deferred only while a slot holds it or its last reader has yet to look at its flag (which it
// does at the end of every protection), so the list holds at most about two nodes per slot: the
// one it holds and one its thread has not looked for yet. Held nodes wait for the next write.
//
// Lock-freedom: no step waits for another thread. A list push or a record claim retries a CAS only
// because another thread's push or claim succeeded; a reader's validation retries only because a
// writer changed `src`; a node still protected is left deferred, never waited for. (A thread's
// first guard takes a record from the table, or, past its 256, from operator new.)
//
// Records are found through a trivially destructible thread_local pointer (no TLS guard on the
// fast path). A thread_local cleaner gives the record back at thread exit; an operation that runs
// after that (from another thread_local destructor) borrows a record for its own duration.
#pragma once

#include <atomic>
#include <cstddef>

#include "checked.hpp"
#include "process_wide.hpp"

namespace own::detail {

// The base of a node that hazard_slots may free later: how to free it, and the deferred list's link
// (so deferring allocates nothing).
struct hazard_node {
  // Frees the node and returns true. Called `by_reader` (inside a reader's operation, where no user
  // code may run), it may instead return false and leave the node whole, if freeing it would run
  // user code: the node is then freed later by a writer.
  using reclaim_function = bool (*)(hazard_node*, bool by_reader) noexcept;

  explicit hazard_node(reclaim_function how) noexcept : reclaim(how) {}

  const reclaim_function reclaim;
  hazard_node* next_deferred = nullptr;
};

class OWN_PROCESS_WIDE hazard_slots {
 public:
  // Slots a thread has for snapshots (long-lived protections, alongside its operations' slot).
  static constexpr unsigned snapshot_slots = 4;
  using slot_type = std::atomic<const hazard_node*>;

 private:
  // 64-byte aligned: a reader's writes to its own slots do not disturb other threads' lines.
  struct alignas(64) record {
    slot_type slot{nullptr};  // the current operation's
    slot_type snapshots[snapshot_slots] = {};
    // Set by a thread that deferred a node one of these slots held: the owner then frees deferred
    // nodes after clearing the slot.
    std::atomic<bool> reclaim_owed{false};
    std::atomic<bool> in_use{false};  // set before the record is published
    record* next = nullptr;  // set before the record is published, then never changed

    bool holds(const hazard_node* node) const noexcept {
      if (slot.load(std::memory_order_seq_cst) == node) return true;
      for (const slot_type& s : snapshots) {
        if (s.load(std::memory_order_seq_cst) == node) return true;
      }
      return false;
    }
  };
  static_assert(sizeof(record) == 64, "a record is one cache line");

 public:
  // The calling thread's slot for the duration of one operation, protecting at most one node at a
  // time. Code run under a guard must not use another guard on the same thread (it would reuse the
  // slot): no user code (destructors, allocators) may run while a node is protected.
  class guard {
   public:
    guard() noexcept : record_(local_record_) {
      if (!record_) record_ = attach(borrowed_);
      OWN_CHECK(record_->slot.load(std::memory_order_relaxed) == nullptr,
                "own::atomic_shared_ptr/atomic_weak_ptr: an operation ran inside another's protection on the same thread");
    }
    guard(const guard&) = delete;
    guard& operator=(const guard&) = delete;

    // Clears the slot; then, if a node this thread protected was deferred, frees what nobody
    // protects any more.
    ~guard() {
      if (borrowed_) {
        give_back(record_);
        return;
      }
      end_protection(record_, record_->slot);
    }

    // The node `src` points to, protected until the guard is destroyed or protects another; nullptr
    // (nothing protected) if `src` is null.
    template <class Node>
    Node* protect(const std::atomic<Node*>& src) noexcept {
      return protect_in(record_->slot, src);
    }

   private:
    record* record_;
    bool borrowed_ = false;  // borrowed for this guard only (after the thread's cleaner ran)
  };

  // One of the calling thread's snapshot slots, for as long as the caller likes (alongside the
  // thread's operations, which use guards), or null if all are taken or the thread is exiting.
  // Precondition for what follows: the slot is used, and given back, on this thread only.
  static slot_type* take_snapshot_slot() noexcept {
    if (snapshots_taken_ == (1u << snapshot_slots) - 1) return nullptr;
    if (!local_record_) {
      if (thread_exited_) return nullptr;
      bool borrowed = false;
      attach(borrowed);
    }
    unsigned i = 0;
    while (snapshots_taken_ & (1u << i)) ++i;
    snapshots_taken_ |= 1u << i;
    return &local_record_->snapshots[i];
  }
  // The node `src` points to, protected by `slot` (from take_snapshot_slot) until give_back_snapshot_slot.
  template <class Node>
  static Node* protect_snapshot(slot_type* slot, const std::atomic<Node*>& src) noexcept {
    return protect_in(*slot, src);
  }
  static void give_back_snapshot_slot(slot_type* slot) noexcept {
    record* r = local_record_;
    OWN_CHECK(r && slot >= r->snapshots && slot < r->snapshots + snapshot_slots,
              "own::snapshot_ptr: released on a thread other than the one that took it, or after that thread's exit");
    end_protection(r, *slot);
    snapshots_taken_ &= ~(1u << (slot - r->snapshots));
  }

  // Whether a slot holds `node`. Once `node` is unlinked, false means no thread reads it or can
  // start to. Reads one line per record.
  static bool is_protected(const hazard_node* node) noexcept { return protection(node) != held_by::nobody; }

  // Whose slots hold `node`: another thread's (then whether the caller's do too is not looked at),
  // only the calling thread's, or nobody's. The same scan as is_protected.
  enum class held_by { nobody, this_thread, another_thread };
  static held_by protection(const hazard_node* node) noexcept {
    held_by found = held_by::nobody;
    for (record* r = records_.load(std::memory_order_acquire); r; r = r->next) {
      if (!r->holds(node)) continue;
      if (r != local_record_) return held_by::another_thread;
      found = held_by::this_thread;
    }
    return found;
  }

  // For a writer: hands over an unlinked node that is_protected() found protected: it will be freed
  // (with its reclaim function, on some thread) once no slot holds it.
  static void defer(hazard_node* node) noexcept {
    if (!park(node)) reclaim_deferred(false);  // its readers left meanwhile
  }

  // For a writer, outside any guard, where user code may run: frees the deferred nodes that no slot
  // holds and those readers left to writers. Two loads when there are none.
  static void settle() noexcept {
    reclaim_deferred(false);
    if (held_.load(std::memory_order_acquire) == nullptr) return;
    hazard_node* list = held_.exchange(nullptr, std::memory_order_acquire);
    while (list) {
      hazard_node* node = list;
      list = node->next_deferred;
      node->reclaim(node, false);
    }
  }

  // Records made so far (in use or free), and those in use: for tests and diagnostics.
  static std::size_t record_count() noexcept { return count_records([](const record&) { return true; }); }
  static std::size_t records_in_use() noexcept {
    return count_records([](const record& r) { return r.in_use.load(std::memory_order_acquire); });
  }

 private:
  template <class Predicate>
  static std::size_t count_records(Predicate counted) noexcept {
    std::size_t n = 0;
    for (const record* r = records_.load(std::memory_order_acquire); r; r = r->next) {
      if (counted(*r)) ++n;
    }
    return n;
  }

  // Pushes `node` on the deferred list and tells each thread whose slot holds it to free deferred
  // nodes once done; false if, looking again after telling, no slot holds it any more. (Telling,
  // then looking again, is what lets a reader look at its flag with a plain load; see "Who frees a
  // deferred node".)
  static bool park(hazard_node* node) noexcept {
    push(deferred_, node, std::memory_order_seq_cst);
    bool protected_still = false;
    for (record* r = records_.load(std::memory_order_acquire); r; r = r->next) {
      if (!r->holds(node)) continue;
      r->reclaim_owed.store(true, std::memory_order_seq_cst);
      if (r->holds(node)) protected_still = true;
    }
    return protected_still;
  }

  // Writes `node` in `slot`, then re-reads `src`, until the two agree (see the top of the file).
  template <class Node>
  static Node* protect_in(slot_type& slot, const std::atomic<Node*>& src) noexcept {
    Node* node = src.load(std::memory_order_relaxed);
    while (node) {
      slot.exchange(node, std::memory_order_seq_cst);
      Node* again = src.load(std::memory_order_seq_cst);
      if (again == node) return node;
      node = again;
    }
    return nullptr;
  }

  // Clears one of r's slots (the calling thread's); then, if a node this thread protected was
  // deferred, frees what nobody protects any more.
  static void end_protection(record* r, slot_type& slot) noexcept {
    slot.store(nullptr, std::memory_order_release);
    if (r->reclaim_owed.load(std::memory_order_seq_cst)) pay(r);
  }

  // Frees the deferred nodes that no slot holds (by a reader: those whose freeing runs no user code,
  // the others held for writers). One load when there are none.
  static void reclaim_deferred(bool by_reader) noexcept {
    while (deferred_.load(std::memory_order_seq_cst) != nullptr) {
      hazard_node* list = deferred_.exchange(nullptr, std::memory_order_seq_cst);
      bool left_meanwhile = false;
      while (list) {
        hazard_node* node = list;
        list = node->next_deferred;
        if (is_protected(node)) {
          if (!park(node)) left_meanwhile = true;
        } else if (!node->reclaim(node, by_reader)) {  // may run destructors that use guards: we hold none
          push(held_, node, std::memory_order_release);
        }
      }
      if (!left_meanwhile) return;
    }
  }

  // Pushes `node` on a list of nodes linked by next_deferred (the deferred list or the held one).
  static void push(std::atomic<hazard_node*>& list, hazard_node* node, std::memory_order order) noexcept {
    node->next_deferred = list.load(std::memory_order_relaxed);
    while (!list.compare_exchange_weak(node->next_deferred, node, order, std::memory_order_relaxed)) {
    }
  }

  // For a record's owner told to free deferred nodes: the flag is cleared first, so that a node
  // deferred meanwhile sets it again.
  static void pay(record* r) noexcept {
    r->reclaim_owed.exchange(false, std::memory_order_seq_cst);
    reclaim_deferred(true);
  }

  // Ends a record's use by this thread: a seq_cst clear, so that a deferring thread either sees the
  // slot clear or has set the flag before we look at it (no later operation will look).
  static void give_back(record* r) noexcept {
    r->slot.exchange(nullptr, std::memory_order_seq_cst);
    for (slot_type& snapshot : r->snapshots) {
      OWN_CHECK(snapshot.load(std::memory_order_relaxed) == nullptr,
                "own::snapshot_ptr: a snapshot outlived the thread that took it");
      snapshot.exchange(nullptr, std::memory_order_seq_cst);
    }
    if (r->reclaim_owed.load(std::memory_order_seq_cst)) pay(r);
    release(r);
  }

  // A free record, claimed, or a new one.
  static record* acquire() noexcept {
    for (record* r = records_.load(std::memory_order_acquire); r; r = r->next) {
      if (!r->in_use.load(std::memory_order_relaxed) && !r->in_use.exchange(true, std::memory_order_acquire)) return r;
    }
    record* r = fresh_record();
    r->in_use.store(true, std::memory_order_relaxed);
    r->next = records_.load(std::memory_order_relaxed);
    while (!records_.compare_exchange_weak(r->next, r, std::memory_order_release, std::memory_order_relaxed)) {
    }
    return r;
  }
  static void release(record* r) noexcept { r->in_use.store(false, std::memory_order_release); }

  // A record never used: the next of a process-wide table while it lasts, then one from operator
  // new (termination if that throws, as the operations using guards are noexcept). Why a table: a
  // thread's first allocation comes from its own malloc arena, and glibc's arenas are aligned to
  // 64 MiB, so records that threads allocated for themselves each sat at the same offset in their
  // arena, all in the same few sets of the L1 and L2 caches. With 16 threads' records, each scan
  // missed on every record: a lone thread's exchange cost 96-125 ns, and 632-684 with 64.
  static record* fresh_record() noexcept {
    // Zero-initialized (no bytes in the binary, no guard), touched only as threads come: 16 KiB.
    constexpr std::size_t table_size = 256;
    static record table[table_size];
    static std::atomic<std::size_t> taken{0};
    const std::size_t i = taken.fetch_add(1, std::memory_order_relaxed);
    return i < table_size ? &table[i] : new record;
  }

  // Gives the thread its record for good, or, once the thread's cleaner has run, lends one.
  static record* attach(bool& borrowed) noexcept {
    record* r = acquire();
    if (thread_exited_) {
      borrowed = true;
      return r;
    }
    local_record_ = r;
    static thread_local cleaner instance;  // constructed once per thread: registers its destructor
    static_cast<void>(instance);
    return r;
  }

  struct cleaner {
    cleaner() = default;
    cleaner(const cleaner&) = delete;
    cleaner& operator=(const cleaner&) = delete;
    ~cleaner() {
      thread_exited_ = true;
      record* r = local_record_;
      local_record_ = nullptr;
      give_back(r);
    }
  };

  static inline std::atomic<record*> records_{nullptr};
  // On a line of its own: deferring and freeing write it, scans read records_.
  alignas(64) static inline std::atomic<hazard_node*> deferred_{nullptr};
  // Unprotected nodes a reader could not free without running user code, linked by next_deferred.
  alignas(64) static inline std::atomic<hazard_node*> held_{nullptr};
  static inline thread_local record* local_record_ = nullptr;
  static inline thread_local bool thread_exited_ = false;
  static inline thread_local unsigned snapshots_taken_ = 0;  // bit i: this thread's snapshots[i]
};

}  // namespace own::detail
