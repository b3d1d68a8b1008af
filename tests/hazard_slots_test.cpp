// SPDX-License-Identifier: BSL-1.0
// Tests of <own/detail/hazard_slots.hpp>, the hazard pointers under atomic_shared_ptr: a node
// unlinked while another thread protects it is freed after that thread lets go, never before and
// exactly once, whichever thread exits first; a scan tells a compare-exchange's protection from a
// reader's; and hazard records are reused by later threads.
// The nodes here only count their reclamations (they live in the test), so an early or double
// reclamation shows in a count instead of crashing.
#include <own/detail/hazard_slots.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <memory>
#include <thread>
#include <vector>

#include "stress.hpp"

using own::detail::hazard_node;
using own::detail::hazard_slots;

namespace {

struct counted_node : hazard_node {
  counted_node() noexcept : hazard_node(&count) {}
  static bool count(hazard_node* n, bool) noexcept {
    static_cast<counted_node*>(n)->reclaimed.fetch_add(1);
    return true;
  }
  std::atomic<int> reclaimed{0};
};

// A node whose freeing would run user code: a reader must leave it to a writer.
struct writers_only_node : hazard_node {
  writers_only_node() noexcept : hazard_node(&count) {}
  static bool count(hazard_node* h, bool by_reader) noexcept {
    auto* n = static_cast<writers_only_node*>(h);
    if (by_reader) {
      n->refused.fetch_add(1);
      return false;
    }
    n->reclaimed.fetch_add(1);
    return true;
  }
  std::atomic<int> refused{0};
  std::atomic<int> reclaimed{0};
};

// Nodes that outlive the test: if a broken implementation leaves one on the global deferred list,
// later tests fail instead of following a dangling pointer. (Reachable, so not a leak.)
counted_node* make_nodes(std::size_t n) {
  static auto* all = new std::vector<std::unique_ptr<counted_node[]>>();
  all->push_back(std::make_unique<counted_node[]>(n));
  return all->back().get();
}

// What atomic_shared_ptr does when it replaces a node: unlink it, then free it now if no slot holds
// it, or defer it.
void replace(std::atomic<counted_node*>& src, counted_node* next) {
  counted_node* old = src.exchange(next, std::memory_order_seq_cst);
  if (hazard_slots::is_protected(old)) {
    hazard_slots::defer(old);
  } else {
    old->reclaim(old, false);
  }
}

// A step counter that threads wait on.
class steps {
 public:
  void reach(int step) { step_.store(step); }
  void wait_for(int step) const {
    while (step_.load() < step) std::this_thread::yield();
  }

 private:
  std::atomic<int> step_{0};
};

TEST(HazardSlots, ProtectReturnsTheCurrentNodeOrNull) {
  counted_node& a = make_nodes(1)[0];
  std::atomic<counted_node*> src{nullptr};
  hazard_slots::guard guard;
  EXPECT_EQ(guard.protect(src), nullptr);
  src = &a;
  EXPECT_EQ(guard.protect(src), &a);
  EXPECT_TRUE(hazard_slots::is_protected(&a));
}

TEST(HazardSlots, UnprotectedNodeIsFreedAtOnce) {
  counted_node& a = make_nodes(1)[0];
  std::atomic<counted_node*> src{&a};
  { hazard_slots::guard guard; }
  EXPECT_FALSE(hazard_slots::is_protected(&a));  // a guard's end clears its slot
  replace(src, nullptr);
  EXPECT_EQ(a.reclaimed, 1);
}

// A thread that protects `node` (current in `src`), reaches step `holding`, checks at step
// `let_go` that `node` was not freed under it, and lets go.
std::thread reader_of(counted_node& node, std::atomic<counted_node*>& src, steps& s, int holding, int let_go) {
  return std::thread([&node, &src, &s, holding, let_go] {
    hazard_slots::guard guard;
    EXPECT_EQ(guard.protect(src), &node);
    s.reach(holding);
    s.wait_for(let_go);
    EXPECT_EQ(node.reclaimed, 0);
  });
}

TEST(HazardSlots, ProtectedNodeIsFreedWhenItsReaderLetsGo) {
  counted_node& a = make_nodes(1)[0];
  counted_node& b = make_nodes(1)[0];
  std::atomic<counted_node*> src{&a};
  steps s;
  std::thread reader = reader_of(a, src, s, 1, 2);
  s.wait_for(1);
  replace(src, &b);
  EXPECT_TRUE(hazard_slots::is_protected(&a));
  EXPECT_EQ(a.reclaimed, 0);
  s.reach(2);
  reader.join();
  EXPECT_EQ(a.reclaimed, 1);  // freed by the reader's guard as it ended
  hazard_slots::settle();
  EXPECT_EQ(a.reclaimed, 1);  // once
  replace(src, nullptr);
  EXPECT_EQ(b.reclaimed, 1);
}

// A compare-exchange's guard (write_guard) protects as a reader's does.
TEST(HazardSlots, AWriteGuardProtectsToo) {
  counted_node& a = make_nodes(1)[0];
  std::atomic<counted_node*> src{&a};
  steps s;
  std::thread writer([&] {
    hazard_slots::write_guard guard;
    EXPECT_EQ(guard.protect(src), &a);
    s.reach(1);
    s.wait_for(2);
    EXPECT_EQ(a.reclaimed, 0);
  });
  s.wait_for(1);
  replace(src, nullptr);
  EXPECT_EQ(a.reclaimed, 0);
  s.reach(2);
  writer.join();
  EXPECT_EQ(a.reclaimed, 1);
}

// A thread that protects the node `src` holds, with a guard or a write_guard, until step `let_go`.
template <class Guard>
std::thread holder_of(std::atomic<counted_node*>& src, steps& s, int holding, int let_go) {
  return std::thread([&src, &s, holding, let_go] {
    Guard guard;
    EXPECT_NE(guard.protect(src), nullptr);
    s.reach(holding);
    s.wait_for(let_go);
  });
}

TEST(HazardSlots, ProtectionTellsAWriterFromAReader) {
  using held_by = hazard_slots::held_by;
  counted_node& a = make_nodes(1)[0];
  std::atomic<counted_node*> src{&a};
  EXPECT_EQ(hazard_slots::protection(&a), held_by::nobody);
  {
    hazard_slots::guard mine;
    ASSERT_EQ(mine.protect(src), &a);
    EXPECT_EQ(hazard_slots::protection(&a), held_by::this_thread);
  }
  {
    hazard_slots::write_guard mine;
    ASSERT_EQ(mine.protect(src), &a);
    EXPECT_EQ(hazard_slots::protection(&a), held_by::this_thread);
  }
  steps s;
  std::thread reader = holder_of<hazard_slots::guard>(src, s, 1, 3);
  s.wait_for(1);
  EXPECT_EQ(hazard_slots::protection(&a), held_by::another_reader);
  std::thread writer = holder_of<hazard_slots::write_guard>(src, s, 2, 4);
  s.wait_for(2);
  {
    hazard_slots::guard mine;
    ASSERT_EQ(mine.protect(src), &a);
    EXPECT_EQ(hazard_slots::protection(&a), held_by::another_writer);  // whoever else reads it
  }
  s.reach(3);
  reader.join();
  EXPECT_EQ(hazard_slots::protection(&a), held_by::another_writer);
  s.reach(4);
  writer.join();
  EXPECT_EQ(hazard_slots::protection(&a), held_by::nobody);
  EXPECT_EQ(a.reclaimed, 0);
}

// The scan a writer makes also finds the records whose load proxy was last armed for the node
// (mark_proxied), by their index in the table, and then reads every record, though another
// thread's compare-exchange holds the node.
TEST(HazardSlots, ProtectionFindsTheRecordsThatProxyTheNode) {
  using held_by = hazard_slots::held_by;
  counted_node* nodes = make_nodes(2);
  std::atomic<counted_node*> src{&nodes[0]};
  std::vector<std::size_t> found;
  auto note = [&found](std::size_t index) { found.push_back(index); };
  std::size_t mine = hazard_slots::npos;
  {
    hazard_slots::guard guard;  // this thread's record, now
    mine = hazard_slots::local_table_index();
  }
  ASSERT_NE(mine, hazard_slots::npos);
  EXPECT_EQ(hazard_slots::protection(&nodes[0], note), held_by::nobody);
  EXPECT_TRUE(found.empty());

  steps s;
  std::size_t theirs = hazard_slots::npos;
  std::thread other([&] {
    hazard_slots::write_guard guard;
    ASSERT_EQ(guard.protect(src), &nodes[0]);
    theirs = hazard_slots::local_table_index();
    hazard_slots::mark_proxied(&nodes[0]);
    s.reach(1);
    s.wait_for(2);
    hazard_slots::mark_proxied(nullptr);
  });
  s.wait_for(1);
  hazard_slots::mark_proxied(&nodes[0]);
  EXPECT_EQ(hazard_slots::protection(&nodes[0], note), held_by::another_writer);
  std::sort(found.begin(), found.end());
  std::vector<std::size_t> expected{mine, theirs};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(found, expected);
  found.clear();
  EXPECT_EQ(hazard_slots::protection(&nodes[1], note), held_by::nobody);
  EXPECT_TRUE(found.empty());
  hazard_slots::mark_proxied(nullptr);
  s.reach(2);
  other.join();
}

TEST(HazardSlots, AReaderLeavesToWritersANodeWhoseFreeingRunsUserCode) {
  static writers_only_node a;  // static: if left on a list by a broken implementation, it stays valid
  std::atomic<writers_only_node*> src{&a};
  {
    hazard_slots::guard guard;
    ASSERT_EQ(guard.protect(src), &a);
    std::thread([&] {
      writers_only_node* old = src.exchange(nullptr);
      ASSERT_TRUE(hazard_slots::is_protected(old));
      hazard_slots::defer(old);
    }).join();
  }
  EXPECT_EQ(a.refused, 1);  // this reader, as its guard ended
  EXPECT_EQ(a.reclaimed, 0);
  { hazard_slots::guard guard; }  // a later reader does not free it either
  EXPECT_EQ(a.reclaimed, 0);
  hazard_slots::settle();  // what a writer calls after its write
  EXPECT_EQ(a.reclaimed, 1);
  hazard_slots::settle();
  EXPECT_EQ(a.reclaimed, 1);  // once
}

TEST(HazardSlots, DeferringThreadMayExitBeforeTheReaderLetsGo) {
  counted_node& a = make_nodes(1)[0];
  std::atomic<counted_node*> src{&a};
  {
    hazard_slots::guard guard;
    ASSERT_EQ(guard.protect(src), &a);
    std::thread([&] { replace(src, nullptr); }).join();
    EXPECT_EQ(a.reclaimed, 0);
  }
  EXPECT_EQ(a.reclaimed, 1);
}

TEST(HazardSlots, SeveralReadersOfOneNode) {
  counted_node& a = make_nodes(1)[0];
  std::atomic<counted_node*> src{&a};
  steps s;
  std::thread first = reader_of(a, src, s, 1, 3);
  s.wait_for(1);
  std::thread second = reader_of(a, src, s, 2, 4);
  s.wait_for(2);
  replace(src, nullptr);
  s.reach(3);
  first.join();
  EXPECT_EQ(a.reclaimed, 0);  // the second reader still holds it
  s.reach(4);
  second.join();
  EXPECT_EQ(a.reclaimed, 1);
}

// Readers check that what they protect was never reclaimed while a writer replaces it as fast as
// it can; once every thread has exited, with nothing run after them, every replaced node has been
// reclaimed exactly once (deferred nodes do not linger after their readers and writer are gone).
TEST(HazardSlotsStress, NoNodeFreedWhileReadNoneLeftBehind) {
  constexpr int replacements = 200'000;
  counted_node* nodes = make_nodes(replacements + 1);
  std::atomic<counted_node*> src{&nodes[0]};
  std::atomic<bool> done{false};
  std::atomic<long> reads{0};
  std::atomic<int> reading{0};  // readers that have read once
  auto reader = [&] {
    long n = 0;
    while (!done.load()) {
      hazard_slots::guard guard;
      counted_node* node = guard.protect(src);
      ASSERT_EQ(node->reclaimed.load(), 0);
      if (++n == 1) ++reading;
    }
    reads += n;
  };
  std::thread readers[2] = {std::thread(reader), std::thread(reader)};
  std::thread writer([&] {
    // Started before the readers ran, the writer once finished all its replacements (14 ms) with
    // no read among them: it waits for both, so that reads and replacements always overlap.
    while (reading.load() < 2) std::this_thread::yield();
    for (int i = 1; i <= replacements; ++i) replace(src, &nodes[static_cast<std::size_t>(i)]);
    done = true;
  });
  writer.join();
  for (std::thread& t : readers) t.join();
  for (int i = 0; i < replacements; ++i) ASSERT_EQ(nodes[static_cast<std::size_t>(i)].reclaimed.load(), 1) << i;
  EXPECT_EQ(nodes[replacements].reclaimed.load(), 0);  // still current
  EXPECT_GT(reads.load(), 0);
}

// Readers that come and go (each a new thread, claiming a record and giving it back at its exit)
// while a writer replaces the node they read: a reader that claims the record another has just
// given back is still seen by every scan after its protection.
TEST(HazardSlotsStress, ReadersThatComeAndGoAreSeen) {
  const auto replacements = static_cast<std::size_t>(own_test::scaled(100'000));
  counted_node* nodes = make_nodes(replacements + 1);
  std::atomic<counted_node*> src{&nodes[0]};
  std::atomic<bool> done{false};
  std::atomic<long> reads{0};
  std::thread writer([&] {
    while (reads.load() == 0) std::this_thread::yield();
    for (std::size_t i = 1; i <= replacements; ++i) replace(src, &nodes[i]);
    done = true;
  });
  auto reader = [&] {
    for (int n = 0; n < 50; ++n) {
      hazard_slots::guard guard;
      ASSERT_EQ(guard.protect(src)->reclaimed.load(), 0);
      ++reads;
    }
  };
  while (!done.load()) {
    std::thread wave[3] = {std::thread(reader), std::thread(reader), std::thread(reader)};
    for (std::thread& t : wave) t.join();
  }
  writer.join();
  for (std::size_t i = 0; i < replacements; ++i) ASSERT_EQ(nodes[i].reclaimed.load(), 1) << i;
  EXPECT_EQ(nodes[replacements].reclaimed.load(), 0);  // still current
}

// A scan reads the records of live threads only (and those below them): once a burst of threads
// has exited, a writer's scan is as short as before the burst, not 64 records longer for good.
TEST(HazardSlots, RecordsOfExitedThreadsAreNotScanned) {
  { hazard_slots::guard guard; }  // this thread's record, claimed before the burst
  const std::size_t before = hazard_slots::records_scanned();
  constexpr std::size_t burst = 64;
  counted_node& a = make_nodes(1)[0];
  std::atomic<counted_node*> src{&a};
  std::atomic<std::size_t> holding{0};
  std::atomic<bool> release{false};
  std::vector<std::thread> team;
  for (std::size_t i = 0; i < burst; ++i) {
    team.emplace_back([&] {
      hazard_slots::guard guard;
      EXPECT_EQ(guard.protect(src), &a);
      ++holding;
      while (!release.load()) std::this_thread::yield();
    });
  }
  while (holding.load() < burst) std::this_thread::yield();
  EXPECT_GE(hazard_slots::records_scanned(), burst);  // all of them, while they live
  EXPECT_TRUE(hazard_slots::is_protected(&a));
  release = true;
  for (std::thread& t : team) t.join();
  EXPECT_LE(hazard_slots::records_scanned(), before);
  EXPECT_FALSE(hazard_slots::is_protected(&a));
  replace(src, nullptr);
  EXPECT_EQ(a.reclaimed, 1);
}

// `threads` threads at once, more than there were records: each gets its own, and the threads of
// `reuse_rounds` later teams reuse them.
void records_are_made_on_demand_and_reused(const std::size_t threads, const int reuse_rounds) {
  counted_node* nodes = make_nodes(threads);
  std::vector<std::atomic<counted_node*>> sources(threads);
  for (std::size_t i = 0; i < threads; ++i) sources[i] = &nodes[i];

  auto all_protecting_at_once = [&] {
    std::atomic<std::size_t> holding{0};
    std::atomic<bool> release{false};
    std::vector<std::thread> team;
    for (std::size_t i = 0; i < threads; ++i) {
      team.emplace_back([&, i] {
        hazard_slots::guard guard;
        EXPECT_EQ(guard.protect(sources[i]), &nodes[i]);
        ++holding;
        while (!release.load()) std::this_thread::yield();
      });
    }
    while (holding.load() < threads) std::this_thread::yield();
    for (std::size_t i = 0; i < threads; ++i) EXPECT_TRUE(hazard_slots::is_protected(&nodes[i]));  // every slot is seen
    release = true;
    for (std::thread& t : team) t.join();
    for (std::size_t i = 0; i < threads; ++i) EXPECT_FALSE(hazard_slots::is_protected(&nodes[i]));  // and cleared
  };

  all_protecting_at_once();
  const std::size_t made = hazard_slots::record_count();
  EXPECT_GE(made, threads);
  for (int round = 0; round < reuse_rounds; ++round) all_protecting_at_once();
  EXPECT_EQ(hazard_slots::record_count(), made);  // the exited threads' records, reused
}

TEST(HazardSlots, RecordsAreMadeOnDemandAndReused) { records_are_made_on_demand_and_reused(12, 3); }

// Past the 256 records of the table that keeps records side by side, records come from operator
// new, and work the same.
TEST(HazardSlots, RecordsPastTheTableWorkTheSame) { records_are_made_on_demand_and_reused(300, 1); }

// A guard used by a thread_local destructor that runs after the thread's record was given back
// borrows a record for its own duration and returns it.
struct late_reader {
  std::atomic<counted_node*>* src = nullptr;
  std::atomic<counted_node*>* result = nullptr;
  ~late_reader() {
    hazard_slots::guard guard;
    result->store(guard.protect(*src));
  }
};

TEST(HazardSlots, GuardsWorkDuringThreadExit) {
  counted_node& a = make_nodes(1)[0];
  std::atomic<counted_node*> src{&a};
  std::atomic<counted_node*> seen_at_exit{nullptr};
  std::thread([&] { { hazard_slots::guard warm_up; } }).join();  // a free record to reuse
  const std::size_t before = hazard_slots::record_count();
  const std::size_t in_use_before = hazard_slots::records_in_use();
  std::thread([&] {
    thread_local late_reader reader;  // made before the thread's first guard: destroyed after its cleaner
    reader.src = &src;
    reader.result = &seen_at_exit;
    hazard_slots::guard guard;
    EXPECT_EQ(guard.protect(src), &a);
  }).join();
  EXPECT_EQ(seen_at_exit.load(), &a);
  EXPECT_FALSE(hazard_slots::is_protected(&a));
  EXPECT_EQ(hazard_slots::record_count(), before);           // the borrowed record was a free one,
  EXPECT_EQ(hazard_slots::records_in_use(), in_use_before);  // given back, not kept
  replace(src, nullptr);
  EXPECT_EQ(a.reclaimed, 1);
}

}  // namespace
