// SPDX-License-Identifier: BSL-1.0
// Which load proxy (load_proxy.hpp) each thread has, when it arms it, and how a writer revokes the
// proxies that stand for a node it unlinked. One proxy per hazard record of hazard_slots' table, in
// load_proxy's table, never freed; a thread uses its record's.
//
// When a thread arms its proxy: in a multi-threaded process, at a load that copied the value of a
// node (still under the load's hazard protection) that this thread's loads found `streak_needed_`
// times in a row, if the proxy is free; its next loads go through it. A thread that loads from
// several atomics in turn keeps its proxy for the first one it armed it for, until a writer
// replaces that node. A single-threaded process never arms one.
//
// A thread also arms it as it writes (store, exchange, a successful compare_exchange), for the node
// it wrote, when its proxy served `worth_arming_on_write` loads of the node it replaced, or its
// loads found that node as many times in a row without the proxy (and no write arming that did not
// pay holds it back: see max_write_skips), the proxy is free (no copy loaded through it before the
// write lives on), and no other thread read that node (its write's scan found no other slot holding
// it and no other proxy standing for it): a thread that reads what it writes, alone, then reads its
// own value through its proxy from its first load on. Not with other readers about: the arming's
// write to the value's count, and the revocations at the next write, then land on lines they use.
// Alone, a writer storing once in 10 operations saves about a fifth of its time (measured in
// atomic_shared_ptr.hpp); beside one reader on 2 cores (x86), arming at every write did not help
// (medians of ten repetitions interleaved with other rows, by the process: 45-55 ns an operation
// with it, 25-51 without). It arms under a guard, once a load of the atomic has protected the node
// it wrote (or a node at the same address, written since: an arming for that one is as sound),
// exactly as a load arms: what follows holds for both.
//
// Why a writer always sees an armed proxy it must revoke: the owner arms the proxy, publishes the
// node in its hazard record (seq_cst), then reads the atomic again (seq_cst); a writer unlinks the
// node (seq_cst), then reads every record (seq_cst). If the owner's second read still found the node,
// the writer's unlinking comes later in the single total order, and its scan sees the record; if it
// did not, the owner revokes the proxy itself. A load that takes a reference on an armed proxy reads
// the atomic (finding the node), then `standing` (finding it set), both seq_cst: the writer clears
// `standing` after unlinking, so the node was the atomic's value when the load read it (a node at the
// same address later is another node, made after the proxy was revoked), and the reference taken
// (an increment that found the count above zero) keeps the proxy, and so the value, alive.
#pragma once

#include <algorithm>
#include <cstddef>
#include <utility>

#include "control_block.hpp"
#include "hazard_slots.hpp"
#include "load_proxy.hpp"
#include "process_wide.hpp"
#include "slow_path.hpp"

namespace own::detail {

static_assert(load_proxy::table_size == hazard_table_size, "a proxy for each record of the table");

class OWN_PROCESS_WIDE load_proxies {
 public:
  // Loads of one node in a row that arm the proxy, at first; an arming that served fewer than
  // `worth_arming` loads before its node went doubles it, up to `max_streak`, and one that served
  // as many brings it back.
  static constexpr unsigned first_streak = 2;
  static constexpr unsigned max_streak = 64;
  static constexpr unsigned worth_arming = 8;
  // A write's arming costs about what a load and its drop cost, and saves the next loads of the
  // node their protection and their writes to the value's count: worth it from a few loads on. One
  // that served fewer has the thread let the next 1, 2, 4 ... up to `max_write_skips` writes pass
  // before it arms at one again (its own series: a load's streak does not hold it back), and one
  // that served as many ends that.
  static constexpr unsigned worth_arming_on_write = 4;
  static constexpr unsigned max_write_skips = 64;

  // For a load that found `node` in the atomic: the calling thread's proxy, if it stands for
  // `node`, with one more reference taken for the caller; else nullptr.
  static load_proxy* share(const void* node) noexcept {
    // (armed_for_ first, on a line of this thread's: a thread that has not armed its proxy for
    // this node reads nothing else.)
    if (node == nullptr || node != armed_for_ || !mine_->share(node)) return nullptr;
    ++served_;
    return mine_;
  }

  // For a load that found `node` without the proxy: whether the thread should arm its proxy for
  // it now (see the file comment).
  static bool streak_reached(const hazard_node* node) noexcept {
    if (armed_for_ != nullptr && node != armed_for_) judge_last_arming();
    if (node != last_seen_) {
      last_seen_ = node;
      streak_ = 1;
      return false;
    }
    return ++streak_ >= streak_needed_ && !process_is_single_threaded() && !exited_;
  }

  // For a thread whose write has just replaced `old` (non-null), which its scan
  // (protection_revoking) found held as `held`, and standing for in another thread's proxy if
  // `others_proxied`: whether it should arm its proxy for the node it wrote (see the file comment).
  // Judges the arming for `old`, if any. (An exiting thread has no arming left, leave() forgot it;
  // a proxy that copies of its last arming still use cannot be armed, so no guard is taken for it.)
  static bool arm_on_write(const hazard_node* old, hazard_slots::held_by held, bool others_proxied) noexcept {
    bool called_for = false;
    if (armed_for_ == old) {
      called_for = served_ >= worth_arming_on_write;
      judge_last_arming();
    } else if (last_seen_ == old && streak_ >= worth_arming_on_write && !process_is_single_threaded() && !exited_) {
      called_for = write_skips_left_ == 0;
      if (!called_for) --write_skips_left_;
    }
    const bool read_elsewhere = others_proxied || held == hazard_slots::held_by::another_reader ||
                                held == hazard_slots::held_by::another_writer;
    return called_for && !read_elsewhere && mine_ != nullptr && mine_->is_free();
  }

  // For a load that found `node`, whose value's block is `real` (which the caller keeps alive),
  // stored pointer `element`, and whose streak_reached(): the calling thread's proxy, armed for it;
  // or nullptr (no proxy for this thread, or not free yet). The caller must then read the atomic
  // again and revoke the proxy if the node is gone (see the file comment).
  static load_proxy* arm(const hazard_node* node, control_block* real, const void* element, bool at_write) noexcept {
    if (mine_ == nullptr) {
      const std::size_t i = hazard_slots::local_table_index();
      if (i == hazard_slots::npos) return nullptr;
      mine_ = &load_proxy::at(i);
      load_proxy::note_used(i);
      // Revokes the proxy as the thread exits; made after hazard_slots' own (the thread has its
      // record already), so destroyed before it, while the record is still the thread's.
      static thread_local cleaner instance;
      static_cast<void>(instance);
    }
    if (!mine_->is_free()) return nullptr;
    mine_->arm(node, real, element);
    hazard_slots::mark_proxied(node);
    armed_for_ = node;
    armed_at_write_ = at_write;
    served_ = 0;
    return mine_;
  }

  // For a writer that unlinked `node`, in the scan that follows (hazard_slots::protection): who
  // held it, and each proxy armed for it revoked. The node still holds its reference to the value,
  // so the proxy's last release drops one that is not the last; but a proxy whose record the scan
  // read before its owner re-armed it for a later node is revoked too, and that node's value, if
  // it was replaced meanwhile, may then be released here, its user code run in this writer.
  // Sets `others_proxied` if another thread's proxy stood for the node: one still standing (a
  // record's mark may be stale, its proxy revoked long ago and its node's address reused since).
  static hazard_slots::held_by protection_revoking(const hazard_node* node, bool& others_proxied) noexcept {
    return hazard_slots::protection(node, [&others_proxied](std::size_t i) {
      load_proxy& proxy = load_proxy::at(i);
      if (&proxy != mine_ && proxy.standing()) others_proxied = true;
      proxy.revoke();
    });
  }

 private:
  // The last arming is over (its node went): was it worth it? Sets what the next arming of its
  // kind (a load's, a write's) waits for.
  OWN_NOINLINE static void judge_last_arming() noexcept {
    if (armed_at_write_) {
      write_skips_ = served_ >= worth_arming_on_write ? 0 : std::clamp(2 * write_skips_, 1u, max_write_skips);
      write_skips_left_ = write_skips_;
    } else {
      streak_needed_ = served_ >= worth_arming ? first_streak : std::min(2 * streak_needed_, max_streak);
    }
    armed_for_ = nullptr;
  }

  // At the thread's exit: gives the proxy up, never dropping a stored value's last reference here.
  //  - Revoked before the record stops naming its node, so that a writer that unlinks the node
  //    meanwhile finds the mark and revokes the proxy itself, or finds it revoked. (In the other
  //    order, a scan between the two missed the proxy, and the store left the value to this thread.)
  //  - Revoked with its node held in this thread's slot, published before the standing flag is
  //    taken: a writer that finds the proxy revoked here acquires that, and then finds the node held,
  //    so it defers the node, or finds the slot cleared after this release, so its own drop comes
  //    after it. The value is then released by that writer, or by a later write.
  OWN_NOINLINE static void leave() noexcept {
    exited_ = true;
    armed_for_ = nullptr;  // loads from later thread_local destructors: no proxy (mine_ is gone)
    load_proxy* proxy = std::exchange(mine_, nullptr);
    if (proxy->standing()) {  // else no writer can retire its node on its account
      hazard_slots::guard holding;
      holding.hold(static_cast<const hazard_node*>(proxy->node()));
      proxy->revoke();
    }
    proxy->disown();
    hazard_slots::mark_proxied(nullptr);
  }

  struct cleaner {
    cleaner() = default;
    cleaner(const cleaner&) = delete;
    cleaner& operator=(const cleaner&) = delete;
    ~cleaner() { leave(); }
  };

  static inline thread_local load_proxy* mine_ = nullptr;
  static inline thread_local const hazard_node* last_seen_ = nullptr;  // by this thread's last load
  static inline thread_local unsigned streak_ = 0;                      // loads in a row that found it
  static inline thread_local unsigned streak_needed_ = first_streak;
  static inline thread_local const hazard_node* armed_for_ = nullptr;  // by the last arming, until judged
  static inline thread_local unsigned served_ = 0;                      // loads through the proxy since
  static inline thread_local bool armed_at_write_ = false;              // the last arming, by a write?
  static inline thread_local unsigned write_skips_ = 0;       // writes the last unpaid write arming let pass
  static inline thread_local unsigned write_skips_left_ = 0;  // writes still to pass before one arms
  static inline thread_local bool exited_ = false;
};

}  // namespace own::detail
