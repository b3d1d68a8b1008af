// SPDX-License-Identifier: BSL-1.0
/// @file
/// own::atomic_shared_ptr<T> and own::atomic_weak_ptr<T>: an own::shared_ptr<T> or own::weak_ptr<T>
/// that threads may load, store, exchange and compare-exchange concurrently, lock-free, with the
/// interface of std::atomic<std::shared_ptr<T>> and std::atomic<std::weak_ptr<T>>. In C++20,
/// std::atomic<own::shared_ptr<T>> and std::atomic<own::weak_ptr<T>> are the same types with the std
/// names.
///
/// Usage:
///
///     own::atomic_shared_ptr<config> current(own::make_shared<config>(defaults));
///
///     // readers, on any thread:
///     own::shared_ptr<config> c = current.load();
///     use(*c);
///
///     // readers that only look, with no write to the count (many readers, rare writers):
///     own::snapshot_ptr<config> s = current.snapshot();
///     use(*s);
///
///     // a writer publishes a new version only if nobody else did meanwhile:
///     own::shared_ptr<config> seen = current.load();
///     own::shared_ptr<config> next = own::make_shared<config>(*seen);
///     next->version++;
///     bool published = current.compare_exchange_strong(seen, next);  // else `seen` is the newer one
///
///     // an observer of the latest version that does not keep an old one alive:
///     own::atomic_weak_ptr<config> latest(current.load());
///     if (own::shared_ptr<config> alive = latest.load().lock()) use(*alive);
///
/// Design: a pointer to an immutable node, read under hazard pointers
///
/// The atomic holds one pointer to a *node*: the stored shared_ptr<T> (element pointer and control
/// block, so aliased pointers need nothing special), and a free function and a link for deferred
/// freeing: 32 bytes from a per-thread free list (detail/recycling_allocator.hpp). Each store makes a
/// new node; nodes never change and are never installed twice. An empty value is the null pointer, with no node.
///
/// Why a node rather than pointing at T's control block: a shared_ptr is two pointers (get() may be
/// anything the owner keeps alive), and a control block cannot say what get() was.
///
/// atomic_weak_ptr is the same atomic with a weak_ptr<T> in its nodes (a weak reference to T's block
/// instead of a shared one; one class, detail::bases::atomic_smart_ptr, serves both). Nothing below depends
/// on which: it needs of the stored value only that copying it runs no user code (one increment on
/// T's block, shared or weak count), so that it can be done under protection, and that it compares
/// by its stored pointer and its block. Below, "shared_ptr" stands for either.
///
///  - load: protect the node with this thread's hazard slot (detail/hazard_slots.hpp: a seq_cst
///    exchange on a cache line only this thread writes, then re-read the pointer), copy its
///    shared_ptr (one relaxed increment on T's block), clear the slot (a plain release store) and
///    read a flag on the same line (set only if a writer deferred a node we were reading). The
///    atomic's own line is only read, so readers on several cores share it instead of passing it
///    around; the one contended line is T's count, which any copy of a shared_ptr touches. An empty
///    atomic costs no read-modify-write.
///    Load proxies (detail/load_proxy.hpp, detail/load_proxies.hpp; atomic_shared_ptr only): in a
///    multi-threaded process, a thread whose loads found the same node twice in a row arms its
///    *proxy* for it, after copying: a control block of the thread's own (one per hazard record, in
///    a static table) that takes one reference to the value and hands out references of its own.
///    The thread's next loads of that node read the pointer and take a reference on the proxy (one
///    increment, taken back if the proxy was released meanwhile, on a line only this thread
///    writes): no hazard protection, nothing written that another thread reads. An arming that
///    served fewer than 8 loads before its node was replaced doubles the run of loads the next one
///    waits for (up to 64), so that a value that keeps changing is not armed for at every change. A
///    thread keeps its proxy from its first arming to its exit, so that arming it again writes only
///    the proxy's line and the value's count.
///    The proxy holds a *standing* reference while it stands
///    for the node; the write that unlinks the node (store, exchange, compare_exchange, the
///    atomic's destructor) finds the proxy in the same scan of hazard records and revokes it
///    (drops the standing reference), so the value is released by that write as before, in the
///    writing thread, unless a loaded copy still uses it. What a proxied copy reports as its owner
///    is the value's block: owner_before, owner_hash, owner_equal, a weak_ptr made from it, get_deleter
///    and the atomics' comparisons are those of an ordinary copy, and use_count() counts what std
///    counts: the value's count holds one reference per proxy, so use_count() reads the proxies in
///    use (while any is) and counts each one's users instead. Measured on 2 cores (x86, medians of
///    three processes, ns per load of all threads on 1 / 2 / 4 threads), a load and its drop went
///    from 21 / 41 / 42 to 12 / 6.5 / 6.4 (Boost's spinlock: 18 / 18 / 23); with a store in 100
///    operations, 19 / 45 / 43 to 13 / 14 / 8. Where the value changes every few loads the arming
///    costs more than it saves: with a store in 10 operations, 19 / 52 / 47 to 23 / 35 / 10, and a
///    load then one compare-exchange, 51 / 61 / 113 to 55 / 63 / 168 per round.
///    A thread that reads the value it replaces, alone, also arms its proxy as it writes (store,
///    exchange, a successful compare_exchange), for the value it wrote: when its proxy served 4
///    loads of the replaced value or its loads found it 4 times in a row, no other thread read it
///    (no other slot held it, no other proxy stood for it), and no copy loaded through the proxy
///    lives on; a write arming that served fewer lets the next 1, 2, 4 ... up to 64 writes pass
///    before the next (detail/load_proxies.hpp). Its loads then go through the proxy from the first
///    on, where the streak would have armed too late to pay: a store in 10 operations on one thread
///    went from 22.9 to 18.3 ns (medians of ten repetitions interleaved with the other rows; Boost's
///    spinlock 17.9), and the 2- and 4-thread rows, where the writer has a reader beside it, stayed
///    within their spread.
///    Readers that alternate (loads that do not go through a proxy: the first loads of a node, a
///    thread whose proxy stands for another atomic's value, threads past the table's 256): two
///    threads loading one atomic in a loop take the count's line from each other at every load. Two loads in a row that find the same node while the count's line
///    is in another core's cache (a timed read of the count, made once in 64 loads, and at every
///    load while it keeps finding so), and the counts moved between them, within microseconds of
///    the last such find, make the second pause after its copy, with nothing protected: 2^k spin
///    hints, k growing with the finds in a row up to 6 (detail/read_backoff.hpp; x86-64 only).
///    Once pausing, a thread goes on while the line stays far, moved counts or not; a thread alone
///    never moves them, so never starts. The other reader finds the line in its own cache and runs
///    on alone, so the two take turns in runs. A load that finds a new node (a writer stored
///    meanwhile) does not pause. Measured on 2 cores (x86), a load and its drop by each of two
///    threads went from 59-66 ns to 30-33 (by each of four, 57-65 to 33-43); one thread's load
///    pays a sampled check (1-2 ns); under a writer, with three readers on two cores, the readers'
///    99th and 99.9th percentile load latencies rose from 0.6-1.1 and 0.8-2.7 us to 1.2-1.7 and
///    2.2-3.4 us (a mutex's p99.9 there: 22-72 us).
///  - store / exchange: make the new node, exchange the pointer, then scan the hazard slots (one
///    cache line per live thread that has loaded from an atomic_shared_ptr or atomic_weak_ptr: about
///    1 ns each on 2-core x86, so 70 ns more per store beside 64 idle threads, where a lock's store
///    costs the same with none; threads that have exited cost nothing, unless a thread still alive
///    took its record after theirs). If no slot holds the old node, its value is
///    moved out and the node freed at once, so the old value is released by the store, as with std.
///    If a reader is copying from it, the old value is copied instead and the node deferred: freed
///    by its last reader as that reader finishes (see hazard_slots), a few nanoseconds later. No user
///    code runs on a reader: the reader drops the node's reference only if it is not the last one
///    (one CAS on T's count). If it is (the writer has already let go of its copy), the node is left
///    to writers: the next store, exchange or compare_exchange of any atomic_shared_ptr or
///    atomic_weak_ptr (hazard_slots::settle), or the destructor of one, releases it, so the value's
///    destructor, deleter and allocator run there, as they would in some thread that drops a
///    shared_ptr. (own's own memory, the nodes, may be freed by readers: they come from
///    detail::recycling_allocator, ::operator delete past its per-thread cache.) If the reader clears
///    its slot at the very moment the writer sets its flag, it can miss the flag; the node then waits
///    for that thread's next load of a non-empty atomic, its exit, or the next write.
///    Writers that alternate: a store, exchange or compare_exchange that finds in the atomic a node
///    of another thread's, although this thread wrote it last, and that within a few microseconds
///    of such a find, first pauses 2^k spin hints, k growing with each such find in a row up to
///    1024 hints (about 20 us; see detail/write_backoff.hpp). The other writer meanwhile finds its
///    own node and runs on, so two threads storing into one atomic take turns in runs, as a lock's
///    holder and waiter do, instead of passing its lines back and forth at every store. Measured on
///    2 cores (x86), a store by each of two threads went from five times its one-thread cost to two
///    or three times with pauses of up to 64 hints, and to its one-thread cost with up to 1024.
///    Writers under readers: the same pause comes before a write whose previous write, to the same
///    atomic, replaced a node another thread was reading (the scan above tells; a snapshot of the
///    writer's own does not count), again only if such finds come within microseconds of each
///    other: readers meanwhile load with no write taking their lines away. Measured on 2 cores
///    (x86), one thread storing while another loads went from 180-240 ns per operation to 50-75 (a
///    load's median latency from 400-540 ns to 70).
///    Writers that collide: a write whose previous write, to the same atomic, replaced the node
///    another thread's compare_exchange was comparing (the scan tells: that thread's record is
///    marked as comparing; it fails or retries) pauses the same way, if such collisions come within
///    about 30 us of each other. Two threads that load, then compare_exchange once, in a loop
///    (publish unless somebody else did) slowed each other so much that their other finds came too
///    far apart to count: measured on 2 cores (x86), such a round went from 13 times its one-thread
///    cost to 1.3 times.
///    A writer alone, writers more than a few microseconds apart, a write that finds the atomic
///    empty and a writer whose readers come rarely never pause.
///  - compare_exchange: protect the current node (marking the record as comparing), compare, then
///    CAS the pointer to a new node; the old node is then retired as by a store. On failure the
///    current value is copied into `expected` (after the slot is cleared, so its destructor runs
///    unprotected). The new node is made before the protection (allocating may run user code, see
///    hazard_slots::guard), kept across retries, and freed unused on failure. A failure that
///    retries the value the thread's previous failure handed back (a CAS loop that lost again)
///    pauses before returning, twice as long at each loss in a row up to 1024 spin hints (x86
///    pause, AArch64 yield; never a system call; see detail/contention_backoff.hpp): the winner's
///    next round then runs alone. Measured on 2 cores (x86), a CAS-loop counter went from 8x its
///    one-thread cost to 1.0-2.9x (by the process) with up to 64 hints, and to 0.8-0.9x in every
///    process with up to 1024. A failing CAS that is not such a retry does not pause for it (it
///    may have paused before comparing, as a write).
///  - wait (C++20): protect the node, compare, and sleep on the pointer (std::atomic<node*>::wait)
///    with the node still protected, so it cannot be freed and its address reused while we sleep:
///    any store changes the pointer, and no notify can be missed.
///
/// Memory orders: every access to the pointer is seq_cst whatever order is asked for (a stronger
/// order is always allowed): the hazard protocol needs the reader's slot write and re-read, and the
/// writer's exchange and scan, in one total order. A node's contents, written before the exchange
/// or CAS that publishes it, are visible to a reader whose re-read saw it; a reader's copy happens
/// before the node is freed because the reader clears its slot with release and the scan that finds
/// it clear acquires.
///
/// Proof sketch (the hazard argument itself is in detail/hazard_slots.hpp).
///  * No node freed while read. A thread reads a node only after its slot holds the node and a
///    re-read of the pointer returned it; the thread that unlinked the node frees it only if a scan
///    after the unlinking found no slot holding it, and a deferred node is freed only by a scan
///    that found it unprotected. By the total order of the four seq_cst accesses, a reader that
///    validated is seen by the unlinker's scan.
///  * No reference lost or doubled. A node owns one reference to the stored value. Exactly one
///    thread unlinks each node (the exchange or the successful CAS that replaced it, or the
///    destructor); it either moves the reference out (no reader: nobody else can reach the node) or
///    copies it and leaves the node's own reference to be dropped when the node is freed, once.
///    Each load adds one reference, by copying. Nodes are never installed twice, so a node is never
///    unlinked twice.
///  * No ABA. A node's address is reused only after the node is freed, which needs every slot clear
///    of it. A pointer that changes and comes back to the same address holds a different node
///    meanwhile; a reader validates what it protects, so it copies whatever node the atomic holds at
///    that moment, and a compare_exchange compares the value inside the node it protected, so an
///    equal address always means the same node, with the same value.
///  * Lock-freedom (x86-64, AArch64: pointer atomics are lock-free, see is_always_lock_free). No
///    operation waits for another: a load retries its protection only because a store changed the
///    pointer, and a strong compare_exchange retries only because another store succeeded. Freeing
///    deferred nodes never waits for a reader: a node still protected is left for later. The
///    back-offs wait a bounded number of spin hints whatever other threads do, never for a thread.
///  * Proxied loads (the argument in detail/load_proxies.hpp). A load through a proxy reads the
///    pointer, then finds the proxy standing for that node: the writer that unlinks a node revokes
///    its proxies only after unlinking it, so the node was the atomic's value when the load read
///    it, and the reference taken on the proxy (an increment that found the count above zero) keeps
///    the proxy's reference to the value. An armed proxy is always revoked by the write that
///    unlinks its node: its owner publishes the node in its hazard record, then reads the pointer
///    again, revoking the proxy itself if the node is gone; otherwise the unlinking write's scan
///    sees the record. Revoking is an exchange of the standing flag, so the standing reference is
///    dropped once. A writer arms its proxy for the node it wrote only as a load arms, under a
///    guard whose protection of that node a re-read validated, so the same holds of its armings. A
///    scan that read a record's earlier node may revoke a later arming early: the proxy is lost to
///    its loads, and if that arming's node was replaced meanwhile, this release may be its value's
///    last (run by this writer, unprotected: a writer, as the file documentation allows). The
///    arming sets the flag with release, so that such a revocation sees its counts and value. While
///    its owner may arm it, the proxy does not look like a sole owner's block (the owner holds a
///    weak reference to it), so its last release always decrements. A load's increment that finds
///    the count at zero (the revocation won) takes itself back and revives nothing: with no
///    reference left, nobody else can copy or release one meanwhile, the release already ran the
///    proxy's disposal, and its weak release cannot free the proxy (only the last weak reference
///    frees it, and the owner holds one while it loads).
///  * Memory bound. A node is deferred only while a reader holds it or has yet to look at its
///    flag, so at most about two per thread that reads (see hazard_slots); the values they hold are
///    released with them, or, held for writers, by the next write.
///  * No user code on readers. A reader releases a node's value only by a CAS that leaves at least
///    one reference (release_*_unless_last); a value whose last reference a node holds is released
///    only by settle(), which only writers and the atomics' destructors call. Hazard records (64
///    bytes per thread) are never freed, but are reused by later threads. A reader drops a proxy's
///    standing reference only while it holds another reference to the proxy (the load that armed
///    it, finding its node gone); a write that armed its thread's proxy and finds its node gone
///    drops it under its guard, where the protected node's reference keeps that release from being
///    the value's last (no user code runs while a slot is held); a writer revokes
///    proxies in its scan, before it retires the node, whose reference then keeps the proxy's
///    release from being the value's last (but for the early revocation above, also a writer's).
///    A thread's exit revokes its proxy before its record stops naming the node, and with the
///    node held in its slot, published before it takes the standing flag: a writer that unlinks
///    the node meanwhile revokes the proxy itself, or finds it revoked and then either the node
///    held (it defers the node) or the slot cleared after the release (its drop comes after it).
///    So the exit never drops a stored value's last reference: that writer or a later write
///    does. (Copies loaded through the proxy that outlive the thread keep the proxy; the last of
///    them releases the value, as any shared_ptr.)
///  * Destruction of the atomic requires, as for any object, that no other operation is running:
///    no slot can hold its current node, which is freed at once. (It also frees deferred nodes that
///    nobody holds any more, which their readers would otherwise free at their next operation.)
///
/// Costs: sizeof(atomic_shared_ptr) == sizeof(atomic_weak_ptr) == 8. Stores allocate a node
/// (recycled per thread, else operator new): store, exchange and a succeeding compare_exchange of a
/// non-empty value terminate the program if that throws (they are noexcept, as std's are); so does a
/// thread's first operation if its hazard slot (64 bytes, once per thread) cannot be allocated.
/// The load proxies are a static table of 256 lines (16 KiB), one per hazard record of the table.
/// Against std::atomic<std::shared_ptr> (libstdc++ 12, a lock bit in its pointer word): the exp6
/// and exp7 atomic rows of docs/benchmarks.md (bench/atomic_shared_ptr_bench.cpp, beyond_seeds.cpp).
#pragma once

#include "detail/cxx17_required.hpp"  // first, so that C++14 gets one error, not hundreds

#include <atomic>
#include <cstddef>
#include <new>
#include <utility>

#include "detail/contention_backoff.hpp"
#include "detail/hazard_slots.hpp"
#include "detail/load_proxies.hpp"
#include "detail/read_backoff.hpp"
#include "detail/recycling_allocator.hpp"
#include "detail/write_backoff.hpp"
#include "shared_ptr.hpp"

// The atomics' operator= return void, as std::atomic's do; gcc's -Weffc++ would have them return
// *this (a reference to the atomic, which std deliberately does not hand out).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Weffc++"
#endif

namespace own {
namespace detail {
// What a shared_ptr<T> is of (T), for the atomic whose loads go through proxies; weak_ptr's do not.
template <class Pointer>
struct proxied_pointer {
  static constexpr bool value = false;
};
template <class T>
struct proxied_pointer<shared_ptr<T>> {
  static constexpr bool value = true;
  using type = T;
};

// Base classes only (see shared_ptr.hpp): a public base's namespace joins argument-dependent lookup.
namespace bases {

// The atomic of a `Pointer`, shared_ptr<T> or weak_ptr<T>: atomic_shared_ptr and atomic_weak_ptr
// are this with their names, constructors and (for shared_ptr) std's nullptr forms.
template <class Pointer>
class atomic_smart_ptr {
  struct node : hazard_node {
    explicit node(Pointer&& v) noexcept : hazard_node(&atomic_smart_ptr::reclaim), value(std::move(v)) {}
    Pointer value;
  };
  using node_allocator = recycling_allocator<node>;

 public:
  using value_type = Pointer;

  static constexpr bool is_always_lock_free = std::atomic<node*>::is_always_lock_free;

  atomic_smart_ptr(const atomic_smart_ptr&) = delete;
  atomic_smart_ptr& operator=(const atomic_smart_ptr&) = delete;

  // Whether every operation is lock-free: true wherever pointer atomics are (x86-64, AArch64).
  bool is_lock_free() const noexcept { return is_always_lock_free; }

  // The stored value. Lock-free; never blocks a writer, and writes nothing a writer or another
  // reader reads, but T's reference count, or this thread's load proxy's (atomic_shared_ptr only:
  // see the file documentation). A load that keeps meeting another thread's copies of the same
  // value pauses after copying (at most 64 spin hints).
  Pointer load([[maybe_unused]] std::memory_order order = std::memory_order_seq_cst) const noexcept {
    if constexpr (proxied_loads) {
      if (load_proxy* proxy = load_proxies::share(word_.load(std::memory_order_seq_cst))) return shared_from(proxy);
    }
    read_backoff::found seen = read_backoff::found::nothing;
    // (Out of line, so that the proxied path above stays short: gcc 12 inlining this one put its
    // register saves on that path, about 2 ns a proxied load on the host measured.)
    Pointer copy = [&]() OWN_NOINLINE {
      hazard_slots::guard guard;
      node* n = guard.protect(word_);
      if (!n) return Pointer();
      Pointer value = n->value;
      if (const control_block* b = shared_access::block(value)) {
        seen = read_backoff::before_copy(n, [b] { return b->counts(); });
        if constexpr (proxied_loads) {
          if (load_proxies::streak_reached(n)) arm_proxy(n, value, false);
        }
      }
      return value;
    }();
    read_backoff::after_copy(seen);
    return copy;
  }
  operator Pointer() const noexcept { return load(); }

  void store(Pointer desired, std::memory_order order = std::memory_order_seq_cst) noexcept {
    exchange(std::move(desired), order);
  }
  void operator=(Pointer desired) noexcept { store(std::move(desired)); }

  // Stores `desired`; returns the previous value.
  Pointer exchange(Pointer desired, [[maybe_unused]] std::memory_order order = std::memory_order_seq_cst) noexcept {
    node* fresh = make_node(std::move(desired));
    write_backoff::before_write(this, word_.load(std::memory_order_relaxed));
    node* old = word_.exchange(fresh, std::memory_order_seq_cst);
    return after_replacing(old, fresh);
  }

  // If the stored value is equivalent to `expected` (the same stored pointer and the same owner, or
  // both empty), stores `desired` and returns true; otherwise copies the stored value into
  // `expected` and returns false. The _weak form may also fail, leaving `expected` unchanged, when
  // another thread changed the value between the comparison and the update. A failed retry of the
  // value a failure handed back pauses briefly first (back-off, see the file documentation).
  bool compare_exchange_weak(Pointer& expected, Pointer desired, std::memory_order, std::memory_order) noexcept {
    return compare_exchange(expected, std::move(desired), true);
  }
  bool compare_exchange_strong(Pointer& expected, Pointer desired, std::memory_order, std::memory_order) noexcept {
    return compare_exchange(expected, std::move(desired), false);
  }
  bool compare_exchange_weak(Pointer& expected, Pointer desired,
                             std::memory_order = std::memory_order_seq_cst) noexcept {
    return compare_exchange(expected, std::move(desired), true);
  }
  bool compare_exchange_strong(Pointer& expected, Pointer desired,
                               std::memory_order = std::memory_order_seq_cst) noexcept {
    return compare_exchange(expected, std::move(desired), false);
  }

#if __cplusplus >= 202002L
  // Blocks until the stored value is not equivalent to `old` (returns at once if it is not) and a
  // notify_* call (or a spurious wake-up) has happened since it changed. Stores do not notify by
  // themselves, as with std. A value replaced while a thread waits on it is released when that
  // thread wakes, or, if that would run its destructor, by the next write.
  void wait(Pointer old, [[maybe_unused]] std::memory_order order = std::memory_order_seq_cst) const noexcept {
    for (;;) {
      hazard_slots::guard guard;
      node* n = guard.protect(word_);
      if (!holds(n, old)) return;
      // Asleep with `n` protected, so its address cannot come back in another node: any store
      // makes the pointer differ from `n`.
      word_.wait(n, std::memory_order_seq_cst);
    }
  }
  void notify_one() noexcept { word_.notify_one(); }
  void notify_all() noexcept { word_.notify_all(); }
#endif

 protected:
  // The stored value, protected by `slot` (a snapshot slot of this thread's); null if empty.
  const Pointer* protect_value(hazard_slots::slot_type* slot) const noexcept {
    node* n = hazard_slots::protect_snapshot(slot, word_);
    return n ? &n->value : nullptr;
  }

 protected:
  constexpr atomic_smart_ptr() noexcept = default;
  explicit atomic_smart_ptr(Pointer desired) noexcept : word_(make_node(std::move(desired))) {}

  // Precondition: no other operation on *this is running (snapshots of it may live on).
  ~atomic_smart_ptr() {
    write_backoff::forget(this);
    node* last = word_.load(std::memory_order_relaxed);
    bool others_proxied = false;
    static_cast<void>(retire(last, last && protection(last, others_proxied) != hazard_slots::held_by::nobody));
    hazard_slots::settle();
  }

 private:
  // Whether `n` (a protected node, or null for an empty value) holds a value equivalent to `p`.
  static bool holds(const node* n, const Pointer& p) noexcept {
    return n ? detail::equivalent(n->value, p) : detail::equivalent(p, Pointer());
  }

  // For the thread whose write has just replaced `old` (a node, or null) with `written`: tells
  // write_backoff who else held `old` (before retire, which may run a destructor that writes),
  // retires it and settles; arms this thread's proxy for `written` if its loads call for it (see
  // detail/load_proxies.hpp); returns the previous value.
  Pointer after_replacing(node* old, node* written) noexcept {
    bool others_proxied = false;
    const auto held = old ? protection(old, others_proxied) : hazard_slots::held_by::nobody;
    write_backoff::after_write(this, written, replaced_by_whom(held));
    Pointer previous = retire(old, held != hazard_slots::held_by::nobody);
    hazard_slots::settle();
    if constexpr (proxied_loads) {
      if (old && written && load_proxies::arm_on_write(old, held, others_proxied)) arm_proxy_for_written(written);
    }
    return previous;
  }

  // For the thread that unlinked `old`, before it retires it: whose slots hold it (and the load
  // proxies armed for it revoked, for shared_ptr's atomics: `others_proxied` set if another
  // thread's stood for it).
  static hazard_slots::held_by protection(const node* old, [[maybe_unused]] bool& others_proxied) noexcept {
    if constexpr (proxied_loads) {
      return load_proxies::protection_revoking(old, others_proxied);
    } else {
      return hazard_slots::protection(old);
    }
  }

  // What a write that replaced a node tells write_backoff: who else held it. A snapshot of this
  // thread's own is no other reader to make way for.
  static write_backoff::replaced_by replaced_by_whom(hazard_slots::held_by held) noexcept {
    switch (held) {
      case hazard_slots::held_by::another_writer:
        return write_backoff::replaced_by::writer;
      case hazard_slots::held_by::another_reader:
        return write_backoff::replaced_by::reader;
      default:
        return write_backoff::replaced_by::nobody;
    }
  }

  static value_identity identity(const Pointer& p) noexcept { return {shared_access::pointer(p), shared_access::owner(p)}; }

  // Whether loads go through the loading thread's proxy (load_proxies.hpp): shared_ptr's only, as a
  // weak_ptr's copy must not make its value live longer.
  static constexpr bool proxied_loads = proxied_pointer<Pointer>::value;
  // For a load that protects `n` and has copied its value, `copy` (or holds its node's reference
  // in the protection), and whose streak of `n` calls for it: arms this thread's proxy for `n`, for
  // the loads that follow. Under the load's protection, so that `n`'s address cannot come back in
  // another node before the proxy is published or revoked.
  OWN_NOINLINE void arm_proxy(const node* n, const Pointer& copy, bool at_write) const noexcept {
    const void* element = const_cast<const void*>(static_cast<const volatile void*>(shared_access::pointer(copy)));
    // (The value's owner, should the stored value itself be a proxied copy.)
    load_proxy* proxy = load_proxies::arm(n, shared_access::owner(copy), element, at_write);
    // Not the value's last reference: `copy` (or the protected node's) remains.
    if (proxy && word_.load(std::memory_order_seq_cst) != n) proxy->revoke();
  }
  // For a write that stored `written` and whose thread's loads call for it: arms this thread's
  // proxy for it if the atomic still holds it, under a load's protection as arm_proxy requires
  // (`written` may have been replaced and freed since the write; a node the atomic holds at the
  // same address then is another, protected as well, and arming for it is as sound).
  OWN_NOINLINE void arm_proxy_for_written(const node* written) const noexcept {
    hazard_slots::guard guard;
    const node* n = guard.protect(word_);
    // (The node's own reference stands in for the load's copy: it lasts while `n` is protected.)
    if (n == written && shared_access::block(n->value) != nullptr) arm_proxy(n, n->value, true);
  }
  // A shared_ptr taking over one reference the caller holds on `proxy`.
  static Pointer shared_from(load_proxy* proxy) noexcept {
    using element = typename Pointer::element_type;
    return shared_access::adopt<typename proxied_pointer<Pointer>::type>(static_cast<element*>(const_cast<void*>(proxy->element())), proxy);
  }

  // A node owning `p`, or nullptr for an empty `p`.
  static node* make_node(Pointer&& p) noexcept {
    if (holds(nullptr, p)) return nullptr;  // empty
    node* n = node_allocator().allocate(1);
    return ::new (static_cast<void*>(n)) node(std::move(p));
  }
  static void free_node(node* n) noexcept {
    n->~node();
    node_allocator().deallocate(n, 1);
  }
  // A reader frees a node only if the node's reference to its value is not the last one: dropping
  // the last would run the value's destructor or deleter (or its allocator) on the reader.
  static bool reclaim(hazard_node* h, bool by_reader) noexcept {
    node* n = static_cast<node*>(h);
    if (by_reader && !shared_access::release_unless_last(n->value)) return false;
    free_node(n);
    return true;
  }

  // For the one thread that has just unlinked `old` from the word, once a scan has told whether a
  // slot holds it (`read`): its value, the node freed at once if no reader holds it, else left to
  // hazard_slots (with its own reference to the value).
  static Pointer retire(node* old, bool read) noexcept {
    if (!old) return Pointer();
    if (read) {
      Pointer copy = old->value;  // a reader is copying it too: leave the node intact
      hazard_slots::defer(old);
      return copy;
    }
    Pointer value = std::move(old->value);
    free_node(old);
    return value;
  }

  bool compare_exchange(Pointer& expected, Pointer&& desired, bool weak) noexcept {
    enum class outcome { replaced, differs, raced };
    outcome result;
    // Made before the guard: allocating may run user code (a replaced operator new, a new_handler)
    // that must not run while a node is protected. Freed unused if the comparison fails.
    node* new_node = make_node(std::move(desired));
    write_backoff::before_write(this, word_.load(std::memory_order_relaxed));
    node* n;
    Pointer current;
    {
      hazard_slots::write_guard guard;
      n = guard.protect(word_);
      for (;;) {
        if (!holds(n, expected)) {
          if (n) current = n->value;  // copied while protected; assigned once the slot is clear
          result = outcome::differs;
          break;
        }
        node* seen = n;
        if (word_.compare_exchange_strong(seen, new_node, std::memory_order_seq_cst, std::memory_order_seq_cst)) {
          result = outcome::replaced;
          break;
        }
        if (weak) {
          result = outcome::raced;
          break;
        }
        n = guard.protect(word_);
      }
    }
    // The slot is clear: destructors may run now.
    if (result == outcome::replaced) {
      contention_backoff::after_success();
      static_cast<void>(after_replacing(n, new_node));
      return true;
    }
    if (new_node) free_node(new_node);
    const value_identity tried = identity(expected);
    if (result == outcome::differs) expected = std::move(current);
    contention_backoff::after_failure(tried, identity(expected));
    return false;
  }

  std::atomic<node*> word_{nullptr};
};

}  // namespace bases
}  // namespace detail

/// What atomic_shared_ptr<T>::snapshot() returns: the value the atomic held, kept alive by one of the
/// calling thread's hazard slots instead of a reference count, so that taking and dropping it writes
/// no cache line another thread writes (T's count included). Moves, never copies; dereferences like
/// a pointer; to_shared() gives a shared_ptr sharing ownership, to keep the value beyond it.
///
/// Rules: a thread has hazard_slots::snapshot_slots (4) slots for snapshots; a snapshot taken while
/// they are all held, or during the thread's exit, holds a counted reference instead (one increment,
/// as load()), so nothing fails, only that snapshot costs more. A snapshot must be destroyed, reset
/// or moved-from on the thread that took it, before that thread exits (checked mode aborts with an
/// own: message otherwise). It may outlive the atomic. While it lives, the value it holds is not
/// released: a writer that replaces it leaves the value to the snapshot's end (and to the next write
/// after that, if the snapshot held its last reference).
template <class T>
class snapshot_ptr {
 public:
  /// The type pointed to.
  using element_type = typename shared_ptr<T>::element_type;

  /// Empty.
  constexpr snapshot_ptr() noexcept = default;
  /// Takes other's value (and its slot); other is empty afterwards. Moves never cross threads
  /// (see above).
  ///@{
  snapshot_ptr(snapshot_ptr&& other) noexcept
      : value_(std::exchange(other.value_, nullptr)), slot_(std::exchange(other.slot_, nullptr)), counted_(std::move(other.counted_)) {}
  snapshot_ptr& operator=(snapshot_ptr&& other) noexcept {
    if (this != &other) {
      reset();
      value_ = std::exchange(other.value_, nullptr);
      slot_ = std::exchange(other.slot_, nullptr);
      counted_ = std::move(other.counted_);
    }
    return *this;
  }
  ///@}

  snapshot_ptr(const snapshot_ptr&) = delete;
  snapshot_ptr& operator=(const snapshot_ptr&) = delete;
  ~snapshot_ptr() { reset(); }

  /// Lets go of the value; empty afterwards.
  void reset() noexcept {
    if (slot_ != nullptr) detail::hazard_slots::give_back_snapshot_slot(std::exchange(slot_, nullptr));
    value_ = nullptr;
    counted_.reset();
  }

  /// The pointer the value holds (null if empty).
  element_type* get() const noexcept { return value_ ? value_->get() : counted_.get(); }
  ///@{
  /// Precondition: not empty (checked mode aborts).
  element_type& operator*() const noexcept { return *checked_get(); }
  element_type* operator->() const noexcept { return checked_get(); }
  /// Whether get() is not null.
  ///@}
  explicit operator bool() const noexcept { return get() != nullptr; }

  /// A shared_ptr to the value, sharing ownership with whoever else owns it (empty if this is).
  shared_ptr<T> to_shared() const noexcept { return value_ ? *value_ : counted_; }

 private:
  template <class>
  friend class atomic_shared_ptr;

  element_type* checked_get() const noexcept {
    element_type* p = get();
    OWN_CHECK(p != nullptr, "own: dereferencing an empty own::snapshot_ptr");
    return p;
  }

  const shared_ptr<T>* value_ = nullptr;                ///< in the protected node
  detail::hazard_slots::slot_type* slot_ = nullptr;    ///< the slot protecting it
  shared_ptr<T> counted_;                               ///< when no slot was free
};

/// An atomic shared_ptr<T>, as C++20's std::atomic<std::shared_ptr<T>>: lock-free load, store, exchange
/// and compare_exchange (see the file documentation), and snapshot() for readers.
template <class T>
class atomic_shared_ptr : public detail::bases::atomic_smart_ptr<shared_ptr<T>> {
 public:
  /// Empty, or holding `desired`.
  ///@{
  constexpr atomic_shared_ptr() noexcept = default;
  constexpr atomic_shared_ptr(std::nullptr_t) noexcept {}
  atomic_shared_ptr(shared_ptr<T> desired) noexcept : detail::bases::atomic_smart_ptr<shared_ptr<T>>(std::move(desired)) {}

  ///@}

  using detail::bases::atomic_smart_ptr<shared_ptr<T>>::operator=;
  /// store(nullptr).
  void operator=(std::nullptr_t) noexcept { this->store(nullptr); }

  /// The stored value, kept alive by a hazard slot of this thread's (see snapshot_ptr for its rules):
  /// for readers of a value that rarely changes (configuration), no write to T's count. Lock-free.
  snapshot_ptr<T> snapshot() const noexcept {
    snapshot_ptr<T> result;
    if (detail::hazard_slots::slot_type* slot = detail::hazard_slots::take_snapshot_slot()) {
      result.value_ = this->protect_value(slot);
      if (result.value_ != nullptr) {
        result.slot_ = slot;
      } else {
        detail::hazard_slots::give_back_snapshot_slot(slot);
      }
    } else {
      result.counted_ = this->load();
    }
    return result;
  }
};

/// An atomic weak_ptr<T>, as C++20's std::atomic<std::weak_ptr<T>>: lock-free load, store, exchange
/// and compare_exchange (see the file documentation).
template <class T>
class atomic_weak_ptr : public detail::bases::atomic_smart_ptr<weak_ptr<T>> {
 public:
  /// Empty, or holding `desired`.
  ///@{
  constexpr atomic_weak_ptr() noexcept = default;
  atomic_weak_ptr(weak_ptr<T> desired) noexcept : detail::bases::atomic_smart_ptr<weak_ptr<T>>(std::move(desired)) {}

  ///@}

  using detail::bases::atomic_smart_ptr<weak_ptr<T>>::operator=;
};

}  // namespace own

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

#if __cplusplus >= 202002L
/// std::atomic<own::shared_ptr<T>> and std::atomic<own::weak_ptr<T>>: own::atomic_shared_ptr and
/// own::atomic_weak_ptr under the std names, as std::atomic<std::shared_ptr<T>> and
/// std::atomic<std::weak_ptr<T>> are specified ([util.smartptr.atomic]).
template <class T>
struct std::atomic<own::shared_ptr<T>> : own::atomic_shared_ptr<T> {
  using own::atomic_shared_ptr<T>::atomic_shared_ptr;
  using own::atomic_shared_ptr<T>::operator=;
  constexpr atomic() noexcept = default;
  atomic(const atomic&) = delete;
  void operator=(const atomic&) = delete;
};
template <class T>
struct std::atomic<own::weak_ptr<T>> : own::atomic_weak_ptr<T> {
  using own::atomic_weak_ptr<T>::atomic_weak_ptr;
  using own::atomic_weak_ptr<T>::operator=;
  constexpr atomic() noexcept = default;
  atomic(const atomic&) = delete;
  void operator=(const atomic&) = delete;
};
#endif
