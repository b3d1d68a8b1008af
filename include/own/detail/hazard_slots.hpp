// SPDX-License-Identifier: BSL-1.0
// Hazard pointers (Michael, 2004): how a thread that reads a shared node keeps another thread from
// freeing it meanwhile, without writing to any cache line that other readers write. Used by
// atomic_shared_ptr and atomic_weak_ptr for their nodes; knows nothing of what a node holds.
//
// Each thread that reads gets a *record*: one cache line of its own with one slot for its current
// operation and four for snapshots (atomic_shared_ptr::snapshot(): protections that last as long as
// the caller likes, alongside the thread's operations; the same protocol, slot by slot), a flag
// that tells a writer's scan whether that operation is a compare-exchange (see protection()), and
// the node the thread's load proxy was last armed for (load_proxies.hpp; the same scan finds it). To
// read the node that a shared pointer `src` points to, a thread writes the node's address in its
// slot (a seq_cst exchange), then reads `src` again: if `src` still points there, the node is
// protected until the slot is cleared (a release store). A thread that has unlinked a node (made it
// unreachable from every `src`) scans every slot: if none holds the node, nobody reads it or can
// start to, and the unlinking thread frees it at once; otherwise the node is *deferred*, pushed on
// one global list, and freed later, normally by its last reader as that reader lets go of it.
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
// exits; the first 256 in a static table, side by side, then from operator new, reachable from a
// global list, so leak checkers do not count them). A node stays
// deferred only while a slot holds it or its last reader has yet to look at its flag (which it
// does at the end of every protection), so the list holds at most about two nodes per slot: the
// one it holds and one its thread has not looked for yet. Held nodes wait for the next write.
//
// Which records a scan reads: the table's, by index, from the first to the highest one in use
// (found from a bitmap of those in use: one cache line), then every record past the table. A thread
// claims the table's first free record, so the records of live threads gather at its front, and
// those of threads that have exited are read only where they lie below a live one. (Walking a list
// of every record ever made, a store after a burst of 64 threads that had exited cost 90-170 ns for
// good, against 20 before the burst; with 64 idle threads alive, reading by index lets successive
// records' loads overlap: see the CHANGELOG.) Why a scan sees every reader it must: a thread sets
// its record's bit and raises the high-water mark (both seq_cst) before it first writes a slot, and
// a scan reads them (seq_cst) after the unlinking write, so a reader whose re-read came before the
// unlink in the single total order lies within the range the scan reads. The same holds of the list
// past the table (a seq_cst push, seq_cst loads of its head). A record's bit is cleared only after
// its slots are, with release, so the records of the range not in use hold nothing. What a scan
// still reads for good: the records past the table, once more than 256 threads have used them at
// once; the records below a long-lived thread's, if it took its own during a burst; and, in a child
// of fork(), the records of the parent's other threads (their bits stay set, their slots hold what
// they held at the fork).
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
#include <climits>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "checked.hpp"
#include "log2.hpp"
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

// One thread's hazard slots (see hazard_slots): one cache line, so that a reader's writes to its own
// slots do not disturb other threads' lines. At namespace scope so that hazard_slots can hold a table
// of them as a static data member (a nested class is incomplete for that within its enclosing one).
struct alignas(64) hazard_record {
  // Slots a thread has for snapshots (long-lived protections, alongside its operations' slot).
  static constexpr unsigned snapshot_slots = 4;
  using slot_type = std::atomic<const hazard_node*>;

  slot_type slot{nullptr};  // the current operation's
  slot_type snapshots[snapshot_slots] = {};
  // The node this thread's load proxy (table records only; see load_proxies) was last armed for:
  // a writer that unlinks that node revokes the proxy.
  std::atomic<const hazard_node*> proxied{nullptr};
  // Set by a thread that deferred a node one of these slots held: the owner then frees deferred
  // nodes after clearing the slot.
  std::atomic<bool> reclaim_owed{false};
  // Set while the current operation is one that may write what it protects (write_guard): a hint for
  // writers' back-off, never part of the protection. (A flag, not a slot of its own, so that scans
  // read no more than before.)
  std::atomic<bool> comparing{false};
  // Past the table only (the table's records are claimed by their bits): whether a thread uses this
  // record, and the list's link, set before the record is published, then never changed.
  std::atomic<bool> in_use{false};
  hazard_record* next = nullptr;

  bool holds(const hazard_node* node) const noexcept {
    if (slot.load(std::memory_order_seq_cst) == node) return true;
    for (const slot_type& s : snapshots) {
      if (s.load(std::memory_order_seq_cst) == node) return true;
    }
    return false;
  }
};
static_assert(sizeof(hazard_record) == 64, "a record is one cache line");
// So that their table needs no guard and no destructor at exit (threads may still use it then).
static_assert(std::is_trivially_destructible_v<hazard_record>, "records outlive static destruction");

// The records hazard_slots keeps side by side in a table, and the bits that say which are in use.
inline constexpr std::size_t hazard_table_size = 256;
inline constexpr std::size_t hazard_word_bits = sizeof(std::size_t) * CHAR_BIT;
inline constexpr std::size_t hazard_table_words = hazard_table_size / hazard_word_bits;
static_assert(hazard_table_size % hazard_word_bits == 0, "the bitmap's words cover the table exactly");

// What a scan reads first: which of the table's records are in use (bit i of word i / word bits:
// the table's record i), the high-water mark, and the records past the table. One line, written only
// as threads come and go. (At namespace scope for the same reason as hazard_record.)
struct alignas(64) hazard_directory {
  std::atomic<std::size_t> in_use[hazard_table_words] = {};
  std::atomic<std::size_t> claimed_end{0};          // 1 + the highest index ever claimed
  std::atomic<hazard_record*> past_table{nullptr};  // records from operator new, a list
};

class OWN_PROCESS_WIDE hazard_slots {
 public:
  static constexpr unsigned snapshot_slots = hazard_record::snapshot_slots;
  using slot_type = hazard_record::slot_type;

 private:
  using record = hazard_record;

 public:
  // The calling thread's slot for the duration of one operation, protecting at most one node at a
  // time; `Compares`: the operation may write what it protects (a compare-exchange: write_guard).
  // Code run under a guard must not use another guard on the same thread (it would reuse the slot):
  // no user code (destructors, allocators) may run while a node is protected.
  template <bool Compares>
  class basic_guard {
   public:
    basic_guard() noexcept : record_(local_record_) {
      if (!record_) record_ = attach(borrowed_);
      OWN_CHECK(record_->slot.load(std::memory_order_relaxed) == nullptr,
                "own::atomic_shared_ptr/atomic_weak_ptr: an operation ran inside another's protection on the same thread");
      if constexpr (Compares) record_->comparing.store(true, std::memory_order_relaxed);
    }
    basic_guard(const basic_guard&) = delete;
    basic_guard& operator=(const basic_guard&) = delete;

    // Clears the slot; then, if a node this thread protected was deferred, frees what nobody
    // protects any more.
    ~basic_guard() {
      if constexpr (Compares) record_->comparing.store(false, std::memory_order_relaxed);
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
    // Holds `node` as protect() would, without reading the node or validating it: for a caller
    // that needs a writer's later scan to find it held (load_proxies::leave). The node may already
    // be freed: nothing reads through the slot, and a new node at that address is only deferred
    // until the guard ends.
    void hold(const hazard_node* node) noexcept { record_->slot.exchange(node, std::memory_order_seq_cst); }

   private:
    record* record_;
    bool borrowed_ = false;  // borrowed for this guard only (after the thread's cleaner ran)
  };
  using guard = basic_guard<false>;
  using write_guard = basic_guard<true>;

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
  static bool is_protected(const hazard_node* node) noexcept {
    return any_record([node](const record& r) { return r.holds(node); });
  }

  // Whose slots hold `node`: another thread's write_guard (a compare-exchange that must now fail or
  // retry), another thread's other slots (a reader), only the calling thread's, or nobody's. The
  // same scan as is_protected; it stops at the first other thread's write_guard it finds.
  enum class held_by { nobody, this_thread, another_reader, another_writer };
  // The same scan calls on_proxied(index) for each of the table's records whose load proxy was
  // last armed for `node` (see load_proxies), and then reads every record.
  static held_by protection(const hazard_node* node) noexcept {
    return protection(node, nullptr);
  }
  template <class OnProxied>
  static held_by protection(const hazard_node* node, OnProxied on_proxied) noexcept {
    constexpr bool stops_early = std::is_null_pointer_v<OnProxied>;
    held_by found = held_by::nobody;
    any_record([&](record& r) {
      if constexpr (!stops_early) {
        std::size_t index = 0;
        if (r.proxied.load(std::memory_order_seq_cst) == node && in_table(&r, index)) on_proxied(index);
      }
      if (!r.holds(node)) return false;
      if (&r == local_record_) {
        if (found == held_by::nobody) found = held_by::this_thread;
        return false;
      }
      if (r.comparing.load(std::memory_order_relaxed) && r.slot.load(std::memory_order_relaxed) == node) {
        found = held_by::another_writer;
        return stops_early;
      }
      if (found != held_by::another_writer) found = held_by::another_reader;
      return false;
    });
    return found;
  }

  // For a load proxy's owner thread: its record's index in the table, or npos (a record past the
  // table, a borrowed one, or none).
  static constexpr std::size_t npos = hazard_table_size;
  static std::size_t local_table_index() noexcept {
    std::size_t i = npos;
    return local_record_ && in_table(local_record_, i) ? i : npos;
  }
  // For a thread whose record is the table's (local_table_index() != npos): its proxy now stands
  // for `node` (seq_cst: a writer that unlinks `node` later in the single total order sees it).
  static void mark_proxied(const hazard_node* node) noexcept {
    local_record_->proxied.store(node, std::memory_order_seq_cst);
  }

  // For a writer: hands over an unlinked node that is_protected() found protected: it will be freed
  // (with its reclaim function, on some thread) once no slot holds it.
  static void defer(hazard_node* node) noexcept {
    if (!park(node)) reclaim_deferred(false);  // its readers left meanwhile
  }

  // For a writer, outside any guard, where user code may run: frees the deferred nodes that no slot
  // holds and those readers left to writers. Two loads when there are none.
  static void settle() noexcept {
    if (deferred_.load(std::memory_order_seq_cst) != nullptr) reclaim_deferred(false);
    if (held_.load(std::memory_order_acquire) == nullptr) return;
    hazard_node* list = held_.exchange(nullptr, std::memory_order_acquire);
    while (list) {
      hazard_node* node = list;
      list = node->next_deferred;
      node->reclaim(node, false);
    }
  }

  // Records made so far (in use or free), those in use, and those a scan reads now: for tests and
  // diagnostics.
  static std::size_t record_count() noexcept {
    return directory_.claimed_end.load(std::memory_order_relaxed) + count_past_table([](const record&) { return true; });
  }
  static std::size_t records_in_use() noexcept {
    std::size_t n = count_past_table([](const record& r) { return r.in_use.load(std::memory_order_acquire); });
    for (const std::atomic<std::size_t>& word : directory_.in_use) {
      for (std::size_t bits = word.load(std::memory_order_acquire); bits != 0; bits &= bits - 1) ++n;
    }
    return n;
  }
  static std::size_t records_scanned() noexcept {
    return table_records_in_use_end() + count_past_table([](const record&) { return true; });
  }

 private:
  // The table, and what a scan reads first. Why a table: a thread's first allocation comes from its
  // own malloc arena, and glibc's arenas are aligned to 64 MiB, so records that threads allocated
  // for themselves each sat at the same offset in their arena, all in the same few sets of the L1
  // and L2 caches, and each scan missed on every record. Zero-initialized (no bytes in the binary,
  // no guard), touched only as threads come: 16 KiB. Static data members, not an inline function's
  // statics, so that they stay one copy in the process (OWN_PROCESS_WIDE) where each shared library
  // could hide its own copy of those (clang's -fvisibility-inlines-hidden-static-local-var).
  static inline record table_[hazard_table_size];
  static inline hazard_directory directory_;

  // Whether `r` is one of the table's, and which (compared as integers: relational comparison of
  // pointers into different objects is unspecified).
  static bool in_table(const record* r, std::size_t& index) noexcept {
    const std::uintptr_t offset = reinterpret_cast<std::uintptr_t>(r) - reinterpret_cast<std::uintptr_t>(table_);
    index = offset / sizeof(record);
    return offset < sizeof table_;
  }

  // Calls visit(record&) on every record whose slots may hold a node (see "Which records a scan
  // reads"), until it returns true; whether it did.
  template <class Visit>
  static bool any_record(Visit visit) noexcept {
    for (record *r = table_, *end = table_ + table_records_in_use_end(); r != end; ++r) {
      if (visit(*r)) return true;
    }
    for (record* r = directory_.past_table.load(std::memory_order_seq_cst); r; r = r->next) {
      if (visit(*r)) return true;
    }
    return false;
  }

  // One past the table's highest record in use. Reads the bitmap's words up to the highest record
  // ever claimed only: one word while no more records than a word has bits were ever in use at once.
  // (seq_cst: see "Which records a scan reads".)
  static std::size_t table_records_in_use_end() noexcept {
    const std::size_t claimed = directory_.claimed_end.load(std::memory_order_seq_cst);
    std::size_t end = 0;
    for (std::size_t w = 0; w * hazard_word_bits < claimed; ++w) {
      const std::size_t bits = directory_.in_use[w].load(std::memory_order_seq_cst);
      if (bits != 0) end = w * hazard_word_bits + floor_log2(bits) + 1;
    }
    return end;
  }

  template <class Predicate>
  static std::size_t count_past_table(Predicate counted) noexcept {
    std::size_t n = 0;
    for (const record* r = directory_.past_table.load(std::memory_order_acquire); r; r = r->next) {
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
    any_record([&](record& r) {
      if (r.holds(node)) {
        r.reclaim_owed.store(true, std::memory_order_seq_cst);
        if (r.holds(node)) protected_still = true;
      }
      return false;
    });
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

  // A free record, claimed: the table's first free one, else a free one past it, else a new one. (A
  // stale first read that shows a word full makes this thread look further than it needs: a record
  // past the table, at worst, never a wrong claim.)
  static record* acquire() noexcept {
    for (std::size_t w = 0; w < hazard_table_words; ++w) {
      std::size_t bits = directory_.in_use[w].load(std::memory_order_relaxed);
      while (~bits != 0) {
        const std::size_t bit = ~bits & (bits + 1);  // the lowest clear one
        bits = directory_.in_use[w].fetch_or(bit, std::memory_order_seq_cst);
        if ((bits & bit) == 0) return claimed_in_table(w * hazard_word_bits + floor_log2(bit));
      }
    }
    // (seq_cst, for the same reason: a later scan reads a head whose list holds the record reused.)
    for (record* r = directory_.past_table.load(std::memory_order_seq_cst); r; r = r->next) {
      if (!r->in_use.load(std::memory_order_relaxed) && !r->in_use.exchange(true, std::memory_order_acquire)) return r;
    }
    record* r = new record;  // termination if it throws, as the operations using guards are noexcept
    r->in_use.store(true, std::memory_order_relaxed);
    r->next = directory_.past_table.load(std::memory_order_relaxed);
    while (!directory_.past_table.compare_exchange_weak(r->next, r, std::memory_order_seq_cst, std::memory_order_relaxed)) {
    }
    return r;
  }
  // Raises the high-water mark that scans read first, before the claiming thread writes a slot. Every
  // access seq_cst, even the read that finds it high enough already: a scan that comes after our
  // first slot write in the single total order then reads a mark at least as high.
  static record* claimed_in_table(std::size_t i) noexcept {
    std::size_t used = directory_.claimed_end.load(std::memory_order_seq_cst);
    while (used <= i && !directory_.claimed_end.compare_exchange_weak(used, i + 1, std::memory_order_seq_cst)) {
    }
    return &table_[i];
  }
  static void release(record* r) noexcept {
    std::size_t i = 0;
    if (in_table(r, i)) {
      directory_.in_use[i / hazard_word_bits].fetch_and(~(std::size_t{1} << (i % hazard_word_bits)), std::memory_order_release);
    } else {
      r->in_use.store(false, std::memory_order_release);
    }
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

  // On a line of its own: deferring and freeing write it, scans read the directory's.
  alignas(64) static inline std::atomic<hazard_node*> deferred_{nullptr};
  // Unprotected nodes a reader could not free without running user code, linked by next_deferred.
  alignas(64) static inline std::atomic<hazard_node*> held_{nullptr};
  static inline thread_local record* local_record_ = nullptr;
  static inline thread_local bool thread_exited_ = false;
  static inline thread_local unsigned snapshots_taken_ = 0;  // bit i: this thread's snapshots[i]
};

}  // namespace own::detail
