// own::atomic_shared_ptr<T>: an own::shared_ptr<T> that threads may load, store, exchange and
// compare-exchange concurrently, lock-free, with std::atomic<std::shared_ptr<T>>'s interface. In
// C++20, std::atomic<own::shared_ptr<T>> is the same type with the std name.
//
// Usage:
//
//   own::atomic_shared_ptr<config> current(own::make_shared<config>(defaults));
//
//   // readers, on any thread:
//   own::shared_ptr<config> c = current.load();
//   use(*c);
//
//   // a writer publishes a new version only if nobody else did meanwhile:
//   own::shared_ptr<config> seen = current.load();
//   own::shared_ptr<config> next = own::make_shared<config>(*seen);
//   next->version++;
//   bool published = current.compare_exchange_strong(seen, next);  // else `seen` is the newer one
//
// Design: split reference counting over one 64-bit word
//
// The atomic holds one word (detail::ticket_word): a 48-bit pointer to a *node* and a 16-bit
// ticket count. A node is a housed own control block whose object is the stored shared_ptr<T>
// (element pointer and control block, so aliased pointers need nothing special). Nodes are
// immutable, made by the store that installs them (32 bytes, from a per-thread free list: see
// detail/recycling_allocator.hpp), and never installed twice. While a node is in the word, the
// word owns W = 65536 of its references (the "word's share": more than the 65535 tickets there
// can be); an empty value is the word 0, with no node.
//
// Why a node rather than pointing the word at T's control block: a shared_ptr is two pointers
// (get() may be anything the owner keeps alive), and a control block cannot say what get() was.
// A node costs an allocation per store (mostly a thread-local free-list pop); loads, the common
// operation, pay only the indirection.
//
//  - load: take a ticket (CAS the count up by one; the ticket keeps the node alive), copy the
//    node's shared_ptr (one relaxed increment on T's block), hand the ticket back (CAS the count
//    down, if the word still holds the node). If the node was replaced meanwhile, the replacing
//    thread has left one node reference for each outstanding ticket, and the loader drops one.
//    3 RMWs (2 on the atomic's line, 1 on T's block); an empty atomic costs one load.
//  - store / exchange: one exchange of the word, after making the new node (whose count starts
//    at the word's share with a plain store, as nobody else can see it). With no ticket on the old
//    node (the common case) the old value is moved out of it and the node freed with no RMW;
//    otherwise one release RMW on the old node drops the word's share less the tickets.
//  - compare_exchange: take a ticket, compare, then CAS the word (with our ticket still counted)
//    to the new node: 2 RMWs on the word on success, 3 RMWs on failure (which also copies the
//    current value into `expected`). The new node is made only once a comparison has succeeded.
//  - wait (C++20): take a ticket, compare, and sleep on the word (std::atomic<uint64_t>::wait)
//    still holding the ticket, so the node cannot be freed and its address reused while asleep:
//    a store always changes the word, and no notify can be missed.
//
// Memory orders (on the operations, no fences, so ThreadSanitizer sees them): taking a ticket is
// an acquire CAS and replacing the word an acq_rel exchange/CAS, so a node's contents, written
// before the release that publishes it, are visible to every reader. Handing a ticket back is a
// release CAS, and the replacing exchange/CAS acquires (every later write to the word is an RMW,
// so release sequences carry it), so a reader's last look at a node happens before the replacer
// frees it. Otherwise the node is freed by whoever brings its count to zero with an acq_rel RMW
// (control_block), after every other holder's release RMW. A seq_cst request makes the word
// operations seq_cst.
//
// Proof sketch.
// Invariant: while a node is in the word its count is exactly W (only the word references it),
// and each ticket in the word's count belongs to one reader that holds no node reference for it.
//  * No reference lost or doubled. A ticket ends in exactly one of two ways, decided by the word
//    that the ticket's CAS and the replacement both modify: either the reader's hand-back CAS
//    succeeds on a word that still holds its node (the ticket is gone, the count untouched), or
//    the word was replaced first, reading a count c that includes the ticket. Then the c readers
//    each drop one reference, and the replacer drops W - c (a compare_exchange that replaced the
//    node excludes its own ticket): W in all, the count ends at zero exactly once, and whoever
//    makes the last decrement frees the node. Because W > c, the readers' decrements alone can
//    never reach zero before the replacer's (the count stays >= W - c + 1 until then), so nobody
//    frees a node that another thread is still reading. A hand-back CAS cannot succeed after the
//    replacement: it compares the whole word, and the word never again holds that node, since
//    nodes are installed once and a node's address comes back (recycled) only after it is
//    freed, which needs every ticket resolved first (no ABA). The stored shared_ptr<T> is owned
//    by the node, so T's references follow: each load copies it once, the node's end releases it
//    once.
//  * Overflow. A ticket is taken by CAS only while the count is below 65535, so the count never
//    wraps. A reader holds at most one ticket per atomic at a time, so the count reaches 65535
//    only with 65535 readers in flight on one atomic; a further reader then yields until one
//    leaves. Below that many threads nothing ever waits.
//  * Lock-freedom (x86-64, AArch64: 64-bit atomics are lock-free, see is_always_lock_free). No
//    operation holds a lock or waits for another thread: each loop retries a CAS only because the
//    word changed, and every change of the word is another operation's progress (a ticket taken
//    or handed back, or a replacement). A load's hand-back loop ends once the word's node changes.
//    Node allocation and T's destructors run outside any window another thread depends on.
//  * Destruction of the atomic requires, as for any object, that no other operation is running:
//    then the count is 0 and the node is freed.
//
// Costs: sizeof(atomic_shared_ptr) == 8. Stores allocate a node (recycled per thread, else
// operator new): store, exchange and a succeeding compare_exchange of a non-empty value terminate
// the program if that throws (they are noexcept, as std's are).
// Against std::atomic<std::shared_ptr> (libstdc++ 12, a lock bit in its pointer word), CPU ns per
// operation in one multi-threaded process on this project's 2-vCPU machine, under load from other
// work (bench/atomic_shared_ptr_bench.cpp; noisy, read as rough): load+destroy 11 vs 14 (one
// thread) and 14 vs 17-19 (two threads); exchange 9-13 vs 5.5 (a node per store);
// load+compare_exchange 28 vs 38.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <utility>

#include "detail/control_block.hpp"
#include "detail/recycling_allocator.hpp"
#include "detail/ticket_word.hpp"
#include "shared_ptr.hpp"

namespace own {

template <class T>
class atomic_shared_ptr {
  using word = detail::ticket_word;
  using node_allocator = detail::recycling_allocator<std::byte>;
  using node_block = detail::inplace_block<shared_ptr<T>, node_allocator, detail::construct_with::placement>;

 public:
  using value_type = shared_ptr<T>;

  static constexpr bool is_always_lock_free = std::atomic<std::uint64_t>::is_always_lock_free;

  constexpr atomic_shared_ptr() noexcept = default;
  constexpr atomic_shared_ptr(std::nullptr_t) noexcept {}
  atomic_shared_ptr(shared_ptr<T> desired) noexcept : word_(make_word(std::move(desired))) {}
  atomic_shared_ptr(const atomic_shared_ptr&) = delete;
  atomic_shared_ptr& operator=(const atomic_shared_ptr&) = delete;

  // Precondition: no other operation on *this is running.
  ~atomic_shared_ptr() {
    if (detail::control_block* node = word::block(word_.load(std::memory_order_relaxed))) free_unreachable_node(node);
  }

  // Whether every operation is lock-free: true wherever 64-bit atomics are (x86-64, AArch64).
  bool is_lock_free() const noexcept { return is_always_lock_free; }

  // The stored value. Lock-free; never blocks a writer.
  shared_ptr<T> load(std::memory_order order = std::memory_order_seq_cst) const noexcept {
    const std::uint64_t w = take_ticket(word_.load(acquire_order(order)), order);
    detail::control_block* node = word::block(w);
    if (!node) return shared_ptr<T>();
    shared_ptr<T> result = value(node);
    hand_back(w, node);
    return result;
  }
  operator shared_ptr<T>() const noexcept { return load(); }

  void store(shared_ptr<T> desired, std::memory_order order = std::memory_order_seq_cst) noexcept {
    exchange(std::move(desired), order);
  }
  void operator=(shared_ptr<T> desired) noexcept { store(std::move(desired)); }
  void operator=(std::nullptr_t) noexcept { store(nullptr); }

  // Stores `desired`; returns the previous value.
  shared_ptr<T> exchange(shared_ptr<T> desired, std::memory_order order = std::memory_order_seq_cst) noexcept {
    const std::uint64_t old = word_.exchange(make_word(std::move(desired)), rmw_order(order));
    detail::control_block* node = word::block(old);
    if (!node) return shared_ptr<T>();
    if (word::tickets(old) == 0) {
      // Nobody else can reach the node: take its value rather than copy it.
      shared_ptr<T> result = std::move(value(node));
      free_unreachable_node(node);
      return result;
    }
    shared_ptr<T> result = value(node);
    give_up_node(node, word::tickets(old));
    return result;
  }

  // If the stored value is equivalent to `expected` (the same get() and the same owner, or both
  // empty), stores `desired` and returns true; otherwise copies the stored value into `expected`
  // and returns false. The _weak form may also fail, leaving `expected` unchanged, when another
  // thread changed the value between the comparison and the update.
  bool compare_exchange_weak(shared_ptr<T>& expected, shared_ptr<T> desired, std::memory_order success,
                             std::memory_order failure) noexcept {
    return compare_exchange(expected, std::move(desired), success, failure, true);
  }
  bool compare_exchange_strong(shared_ptr<T>& expected, shared_ptr<T> desired, std::memory_order success,
                               std::memory_order failure) noexcept {
    return compare_exchange(expected, std::move(desired), success, failure, false);
  }
  bool compare_exchange_weak(shared_ptr<T>& expected, shared_ptr<T> desired,
                             std::memory_order order = std::memory_order_seq_cst) noexcept {
    return compare_exchange(expected, std::move(desired), order, failure_order(order), true);
  }
  bool compare_exchange_strong(shared_ptr<T>& expected, shared_ptr<T> desired,
                               std::memory_order order = std::memory_order_seq_cst) noexcept {
    return compare_exchange(expected, std::move(desired), order, failure_order(order), false);
  }

#if __cplusplus >= 202002L
  // Blocks until the stored value is not equivalent to `old` (returns at once if it is not) and a
  // notify_* call (or a spurious wake-up) has happened since it changed. Stores do not notify by
  // themselves, as with std. A waiter counts as a reader in flight (see "Overflow").
  void wait(shared_ptr<T> old, std::memory_order order = std::memory_order_seq_cst) const noexcept {
    for (;;) {
      const std::uint64_t w = take_ticket(word_.load(acquire_order(order)), order);
      detail::control_block* node = word::block(w);
      if (!(node ? equivalent(value(node), old) : is_empty(old))) {
        if (node) hand_back(w, node);
        return;
      }
      // Sleeping with the ticket keeps the node, and so its address, from being reused: any store
      // makes the word differ from `w`. (So does another reader's ticket: then we look again.)
      word_.wait(w, std::memory_order_relaxed);
      if (node) hand_back(w, node);
    }
  }
  void notify_one() noexcept { word_.notify_one(); }
  void notify_all() noexcept { word_.notify_all(); }
#endif

 private:
  static std::memory_order rmw_order(std::memory_order order) noexcept {
    return order == std::memory_order_seq_cst ? std::memory_order_seq_cst : std::memory_order_acq_rel;
  }
  static std::memory_order acquire_order(std::memory_order order) noexcept {
    return order == std::memory_order_seq_cst ? std::memory_order_seq_cst : std::memory_order_acquire;
  }
  static std::memory_order failure_order(std::memory_order order) noexcept {
    if (order == std::memory_order_acq_rel) return std::memory_order_acquire;
    if (order == std::memory_order_release) return std::memory_order_relaxed;
    return order;
  }

  static bool is_empty(const shared_ptr<T>& p) noexcept {
    return p.get() == nullptr && detail::shared_access::block(p) == nullptr;
  }
  static bool equivalent(const shared_ptr<T>& a, const shared_ptr<T>& b) noexcept {
    return a.get() == b.get() && detail::shared_access::block(a) == detail::shared_access::block(b);
  }

  static shared_ptr<T>& value(detail::control_block* node) noexcept { return *static_cast<node_block*>(node)->object(); }

  // The node references the word holds: more than there can be tickets, so that readers dropping
  // the references their tickets became can never bring the count to zero before the thread that
  // removed the node from the word has added its part (see "No reference lost" above).
  static constexpr std::uint32_t word_share = std::uint32_t{word::max_tickets} + 1;

  // A node owning `p`, with the word's share of references, or nullptr for an empty `p`.
  static detail::control_block* make_node(shared_ptr<T>&& p) noexcept {
    if (is_empty(p)) return nullptr;
    shared_ptr<shared_ptr<T>> node =
        detail::make_housed<shared_ptr<T>, detail::construct_with::placement>(node_allocator(), std::move(p));
    detail::control_block* block = detail::shared_access::detach(node);
    block->reset_counts(word_share);  // not yet published: no read-modify-write needed
    return block;
  }
  // Frees a node no other thread can reach (never published, or removed with no ticket on it):
  // no read-modify-write needed.
  static void free_unreachable_node(detail::control_block* node) noexcept {
    node->reset_counts();
    node->release_shared();
  }
  static std::uint64_t make_word(shared_ptr<T>&& p) noexcept { return word::make(make_node(std::move(p))); }

  // For a thread that has just removed `node` from the word, with `tickets` other readers still
  // holding tickets on it: keeps one node reference for each of them and drops the rest of the
  // word's share, in one release RMW (which also orders this thread's reads of the node before
  // whichever reader frees it).
  static void give_up_node(detail::control_block* node, std::uint32_t tickets) noexcept {
    if (tickets == 0) {
      free_unreachable_node(node);
    } else {
      node->release_shared(word_share - tickets);
    }
  }

  // Takes a ticket on the word's node; returns the word as updated (its node), or an empty-word
  // value (node == nullptr, no ticket) if the atomic is empty. `w`: a recent value of the word.
  std::uint64_t take_ticket(std::uint64_t w, std::memory_order order) const noexcept {
    for (;;) {
      if (word::block(w) == nullptr) return w;
      if (word::tickets(w) == word::max_tickets) {
        std::this_thread::yield();  // 65535 readers in flight: see "Overflow" above
        w = word_.load(std::memory_order_acquire);
        continue;
      }
      if (word_.compare_exchange_weak(w, w + word::one_ticket, acquire_order(order), std::memory_order_acquire)) {
        return w + word::one_ticket;
      }
    }
  }

  // Gives back the ticket taken on `node`; `w` is the word as this thread last saw it.
  void hand_back(std::uint64_t w, detail::control_block* node) const noexcept {
    while (word::block(w) == node) {
      if (word_.compare_exchange_weak(w, w - word::one_ticket, std::memory_order_release, std::memory_order_relaxed)) return;
    }
    node->release_shared();  // replaced meanwhile: the replacer turned the ticket into a reference
  }

  bool compare_exchange(shared_ptr<T>& expected, shared_ptr<T>&& desired, std::memory_order success,
                        std::memory_order failure, bool weak) noexcept {
    detail::control_block* new_node = nullptr;
    bool made = false;  // new_node is made once, when first needed, and kept across retries
    auto ensure_new_node = [&] {
      if (!made) new_node = make_node(std::move(desired));
      made = true;
    };
    auto fail = [&](shared_ptr<T>&& current) {
      if (new_node) free_unreachable_node(new_node);
      expected = std::move(current);  // may run T's destructor: after every ticket is handed back
      return false;
    };

    std::uint64_t w = word_.load(acquire_order(failure));
    for (;;) {
      w = take_ticket(w, failure);
      detail::control_block* node = word::block(w);
      if (!node) {
        if (!is_empty(expected)) return fail(shared_ptr<T>());
        ensure_new_node();
        if (word_.compare_exchange_strong(w, word::make(new_node), rmw_order(success), acquire_order(failure))) return true;
        continue;  // `w` holds the new value
      }
      const shared_ptr<T>& current = value(node);
      if (!equivalent(current, expected)) {
        shared_ptr<T> copy = current;
        hand_back(w, node);
        return fail(std::move(copy));
      }
      ensure_new_node();
      while (word::block(w) == node) {
        if (word_.compare_exchange_weak(w, word::make(new_node), rmw_order(success), std::memory_order_relaxed)) {
          give_up_node(node, word::tickets(w) - 1);  // minus our own ticket
          return true;
        }
      }
      node->release_shared();  // replaced meanwhile; our ticket became a reference
      if (weak) {
        if (new_node) free_unreachable_node(new_node);
        return false;
      }
      w = word_.load(acquire_order(failure));
    }
  }

  mutable std::atomic<std::uint64_t> word_{0};
};

}  // namespace own

#if __cplusplus >= 202002L
// std::atomic<own::shared_ptr<T>>: own::atomic_shared_ptr under the std name, as
// std::atomic<std::shared_ptr<T>> is specified ([util.smartptr.atomic.shared]).
template <class T>
struct std::atomic<own::shared_ptr<T>> : own::atomic_shared_ptr<T> {
  using own::atomic_shared_ptr<T>::atomic_shared_ptr;
  using own::atomic_shared_ptr<T>::operator=;
  constexpr atomic() noexcept = default;
  atomic(const atomic&) = delete;
  void operator=(const atomic&) = delete;
};
#endif
