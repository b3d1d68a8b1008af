// SPDX-License-Identifier: BSL-1.0
#include <own/concurrent_pool.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <memory_resource>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <own/detail/allocator_adapter.hpp>

#include "pool_test_support.hpp"
#include "stress.hpp"
#include "test_allocator.hpp"

namespace {

using own_test::allocation_log;
using own_test::test_resource;

// Runs `body` on a new thread and waits for it to end (its thread caches go back at exit).
template <class Body>
void on_another_thread(Body body) {
  std::thread thread(body);
  thread.join();
}

// A one-shot signal between two threads.
class latch {
 public:
  void open() {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = true;
    changed_.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return open_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool open_ = false;
};

// A bounded single-producer single-consumer queue of pointers.
class spsc_ring {
 public:
  bool try_push(void* p) {
    const std::size_t tail = tail_.load(std::memory_order_relaxed);
    if (tail - head_.load(std::memory_order_acquire) == size) return false;
    slots_[tail % size] = p;
    tail_.store(tail + 1, std::memory_order_release);
    return true;
  }
  void* try_pop() {
    const std::size_t head = head_.load(std::memory_order_relaxed);
    if (head == tail_.load(std::memory_order_acquire)) return nullptr;
    void* p = slots_[head % size];
    head_.store(head + 1, std::memory_order_release);
    return p;
  }

 private:
  static constexpr std::size_t size = 256;
  void* slots_[size] = {};
  alignas(64) std::atomic<std::size_t> head_{0};
  alignas(64) std::atomic<std::size_t> tail_{0};
};

TEST(concurrent_pool, header_example) {
  own::concurrent_pool pool(64);
  void* block = pool.allocate();
  std::thread consumer([&] { pool.deallocate(block); });
  consumer.join();
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
}

TEST(concurrent_pool, block_size_and_alignment) {
  EXPECT_EQ(own::concurrent_pool(1).block_size(), sizeof(void*));
  EXPECT_EQ(own::concurrent_pool(24).block_size(), 24u);
  EXPECT_EQ(own::concurrent_pool(24).block_alignment(), 8u);
  own::pool_options aligned;
  aligned.alignment = 128;
  own::concurrent_pool pool(100, aligned);
  EXPECT_EQ(pool.block_size(), 128u);
  std::vector<void*> blocks;
  for (int i = 0; i < 300; ++i) {
    blocks.push_back(pool.allocate());
    EXPECT_TRUE(own_test::is_aligned(blocks.back(), 128));
  }
  for (void* b : blocks) pool.deallocate(b);
}

// A block size whose round-up to the alignment wraps used to give block_size() == 0 and a division
// by zero (SIGFPE) in the constructor: it is refused there.
TEST(concurrent_pool, block_size_that_wraps_when_rounded_up_is_refused) {
  constexpr std::size_t max = static_cast<std::size_t>(-1);
  EXPECT_THROW(own::concurrent_pool{max}, std::bad_alloc);
  own::pool_options huge_alignment;
  huge_alignment.alignment = (max >> 1) + 1;  // 2^63 on 64-bit
  EXPECT_THROW(own::concurrent_pool(huge_alignment.alignment + 1, huge_alignment), std::bad_alloc);
  own::concurrent_pool unwrapped(max - 7);
  EXPECT_EQ(unwrapped.block_size(), max - 7);
}

// thread_cache_blocks near SIZE_MAX used to wrap the magazine's size (8 + n * 8 bytes) to a few
// bytes, and the first allocate() wrote past the end of that magazine: it is refused at construction.
TEST(concurrent_pool, thread_cache_blocks_whose_magazine_size_wraps_is_refused) {
  constexpr std::size_t max = static_cast<std::size_t>(-1);
  for (std::size_t blocks : {max, max - 1, max / sizeof(void*), max / sizeof(void*) + 1}) {
    own::pool_options options;
    options.thread_cache_blocks = blocks;
    EXPECT_THROW(own::concurrent_pool(64, options), std::bad_alloc) << blocks;
  }
  // The largest magazine that fits a std::size_t is accepted; upstream then refuses it.
  own::pool_options largest;
  largest.thread_cache_blocks = (max - sizeof(void*)) / sizeof(void*);
  own::concurrent_pool pool(64, largest, std::pmr::null_memory_resource());
  EXPECT_THROW((void)pool.allocate(), std::bad_alloc);
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
}

TEST(concurrent_pool, single_thread_semantics) {
  own::concurrent_pool pool(48);
  std::vector<void*> blocks;
  for (int i = 0; i < 1000; ++i) {
    blocks.push_back(pool.allocate());
    std::memset(blocks.back(), i & 0xff, pool.block_size());
  }
  EXPECT_EQ(std::set<void*>(blocks.begin(), blocks.end()).size(), blocks.size());
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    EXPECT_EQ(static_cast<unsigned char*>(blocks[i])[pool.block_size() - 1], i & 0xff);
  }
  EXPECT_EQ(pool.statistics().blocks_in_use, 1000u);
  pool.deallocate(blocks[7]);
  pool.deallocate(blocks[3]);
  EXPECT_EQ(pool.allocate(), blocks[3]);  // this thread's cache is last in, first out
  EXPECT_EQ(pool.allocate(), blocks[7]);
  for (void* b : blocks) pool.deallocate(b);
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
  // Every block is reused before a new chunk is needed.
  const own::pool_statistics before = pool.statistics();
  std::set<void*> again;
  for (int i = 0; i < 1000; ++i) again.insert(pool.allocate());
  EXPECT_EQ(again, std::set<void*>(blocks.begin(), blocks.end()));
  EXPECT_EQ(pool.statistics().bytes_reserved, before.bytes_reserved);
  for (void* b : again) pool.deallocate(b);
}

// A thread's fast path finds only the pool it used last; switching pools goes through the slow path's
// table (16 slots, indexed by pool id, so 17 pools share slots) and must still give each pool's blocks
// back to that pool's cache alone.
TEST(concurrent_pool, a_thread_switching_between_pools_keeps_their_blocks_apart) {
  constexpr int pool_count = 17;
  std::vector<std::unique_ptr<own::concurrent_pool>> pools;
  for (int i = 0; i < pool_count; ++i) pools.push_back(std::make_unique<own::concurrent_pool>(32));
  std::vector<std::set<void*>> given(pool_count);
  std::vector<std::vector<void*>> held(pool_count);
  for (int round = 0; round < 50; ++round) {
    for (int i = 0; i < pool_count; ++i) {  // one allocation from each pool in turn, then one free
      void* block = pools[i]->allocate();
      given[i].insert(block);
      held[i].push_back(block);
      if (round % 3 == 2) {
        pools[i]->deallocate(held[i].front());
        held[i].erase(held[i].begin());
      }
    }
  }
  for (int i = 0; i < pool_count; ++i) {
    EXPECT_EQ(pools[i]->statistics().blocks_in_use, held[i].size()) << "pool " << i;
    for (int j = 0; j < i; ++j) {
      for (void* b : given[i]) EXPECT_EQ(given[j].count(b), 0u) << "pools " << i << " and " << j << " shared a block";
    }
  }
  // Freed in the opposite order of the pools, on another thread, which switches pools every call.
  on_another_thread([&] {
    for (int i = pool_count; i-- != 0;) {
      for (void* b : held[i]) pools[i]->deallocate(b);
    }
  });
  for (int i = 0; i < pool_count; ++i) EXPECT_EQ(pools[i]->statistics().blocks_in_use, 0u) << "pool " << i;
}

// The pool used last is destroyed: the next pool this thread uses, even one with the same table
// slot, must not reach the dead pool's cache.
TEST(concurrent_pool, the_last_used_pool_destroyed_then_another_used) {
  auto kept = std::make_unique<own::concurrent_pool>(32);
  void* kept_block = kept->allocate();
  for (int i = 0; i < 20; ++i) {
    auto dying = std::make_unique<own::concurrent_pool>(32);
    dying->deallocate(dying->allocate());  // the last pool used, with a block in its cache
    dying.reset();
    kept->deallocate(kept_block);
    kept_block = kept->allocate();
    EXPECT_EQ(kept->statistics().blocks_in_use, 1u);
  }
  kept->deallocate(kept_block);
  EXPECT_EQ(kept->statistics().blocks_in_use, 0u);
}

// Two pools used in turn keep their caches checked out, one current and one parked, through many
// magazine refills and many promotions of one over the other: their blocks never cross, no block is
// given out twice, and the counts stay exact.
TEST(concurrent_pool, two_pools_used_in_turn_keep_their_blocks_apart) {
  own::pool_options options;
  options.thread_cache_blocks = 8;  // magazines run dry and full often
  own::concurrent_pool a(32, options);
  own::concurrent_pool b(64, options);
  own::concurrent_pool* const pools[] = {&a, &b};
  std::vector<void*> held[2];
  std::set<void*> live[2];
  for (int step = 0; step < 4000; ++step) {
    const bool grow = (step / 150) % 2 == 0;  // up to 150 blocks held in each, then back to none
    for (int i = 0; i < 2; ++i) {
      if (grow) {
        void* block = pools[i]->allocate();
        EXPECT_TRUE(live[i].insert(block).second) << "a block given out twice";
        EXPECT_EQ(live[1 - i].count(block), 0u) << "the pools shared a block";
        held[i].push_back(block);
      } else if (!held[i].empty()) {
        live[i].erase(held[i].back());
        pools[i]->deallocate(held[i].back());
        held[i].pop_back();
      }
    }
    if (step % 50 == 0) {
      EXPECT_EQ(a.statistics().blocks_in_use, held[0].size());
      EXPECT_EQ(b.statistics().blocks_in_use, held[1].size());
    }
  }
  for (int i = 0; i < 2; ++i) {
    for (void* block : held[i]) pools[i]->deallocate(block);
    EXPECT_EQ(pools[i]->statistics().blocks_in_use, 0u);
  }
}

// The cache parked last is the one the fast paths look at second: after pools a, b, c in turn, b
// (not a, parked first) is served from the first parked slot, and being served there moves nothing.
TEST(concurrent_pool, the_pool_used_before_the_current_one_is_parked_first) {
  std::thread([] {  // a fresh thread: no cache checked out yet
    own::concurrent_pool a(32), b(32), c(32);
    void* held[] = {a.allocate(), b.allocate(), c.allocate()};
    std::atomic<void**>& first = own::detail::parked_tops[0];
    void** const top = first.load();
    void* more = b.allocate();
    EXPECT_EQ(first.load(), top - 1) << "b's block did not come from the first parked slot";
    b.deallocate(more);
    EXPECT_EQ(first.load(), top);
    void* from_c = c.allocate();  // still the current one
    EXPECT_EQ(first.load(), top);
    c.deallocate(from_c);
    a.deallocate(held[0]);
    b.deallocate(held[1]);
    c.deallocate(held[2]);
    EXPECT_EQ(a.statistics().blocks_in_use + b.statistics().blocks_in_use + c.statistics().blocks_in_use, 0u);
  }).join();
}

// release() while this thread's cache of the pool is parked: the parked top is stale and must be
// dropped, not used.
TEST(concurrent_pool, a_parked_pool_released_then_used_again) {
  own::concurrent_pool a(32);
  own::concurrent_pool b(32);
  a.deallocate(a.allocate());  // a's cache holds blocks
  void* kept = b.allocate();   // a's cache parked
  a.release();
  EXPECT_EQ(a.statistics().chunks, 0u);
  void* fresh = a.allocate();
  std::memset(fresh, 0xab, 32);  // a block of a released chunk would be a use after free (ASan)
  EXPECT_EQ(a.statistics().chunks, 1u);
  EXPECT_EQ(a.statistics().blocks_in_use, 1u);
  a.deallocate(fresh);
  b.deallocate(kept);
  EXPECT_EQ(a.statistics().blocks_in_use, 0u);
  EXPECT_EQ(b.statistics().blocks_in_use, 0u);
}

// Pools destroyed while their caches are parked here, and new ones built (perhaps at the same
// addresses): the dead caches are deleted and forgotten, never checked in (ASan sees it), and the
// live pool's blocks are untouched.
TEST(concurrent_pool, pools_destroyed_while_their_caches_are_parked) {
  own::concurrent_pool kept(32);
  for (int i = 0; i < 20; ++i) {  // more than the parked slots: evictions meet dead caches
    auto dying = std::make_unique<own::concurrent_pool>(32);
    dying->deallocate(dying->allocate());
    void* block = kept.allocate();  // dying's cache parked
    dying.reset();
    auto reborn = std::make_unique<own::concurrent_pool>(32);
    void* fresh = reborn->allocate();
    std::memset(fresh, 0xab, 32);
    reborn->deallocate(fresh);
    EXPECT_EQ(reborn->statistics().blocks_in_use, 0u);
    kept.deallocate(block);
    EXPECT_EQ(kept.statistics().blocks_in_use, 0u);
  }
}

// A thread that exits with a parked cache gives its blocks back like the current one's.
TEST(concurrent_pool, blocks_in_a_parked_cache_go_back_at_thread_exit) {
  allocation_log log;
  test_resource upstream(&log);
  own::concurrent_pool pool(32, {}, &upstream);
  own::concurrent_pool other(32);
  on_another_thread([&] {
    std::vector<void*> blocks;
    for (int i = 0; i < 100; ++i) blocks.push_back(pool.allocate());
    for (void* b : blocks) pool.deallocate(b);  // all in this thread's cache of `pool`
    other.deallocate(other.allocate());         // which is now parked
  });
  const long chunks = log.allocations;
  std::vector<void*> blocks;
  for (int i = 0; i < 100; ++i) blocks.push_back(pool.allocate());
  EXPECT_EQ(log.allocations, chunks);  // the exited thread's blocks, not new chunks
  for (void* b : blocks) pool.deallocate(b);
}

// statistics() reads an idle thread's parked top where it lives.
TEST(concurrent_pool, a_parked_cache_of_an_idle_thread_is_counted) {
  own::concurrent_pool pool(32);
  own::concurrent_pool other(32);
  latch parked, counted;
  std::thread user([&] {
    void* a = pool.allocate();
    void* b = pool.allocate();
    pool.deallocate(a);  // the cache holds a block; b is in use
    void* c = other.allocate();
    other.deallocate(c);  // pool's cache parked, other's current
    parked.open();
    counted.wait();
    pool.deallocate(b);
  });
  parked.wait();
  EXPECT_EQ(pool.statistics().blocks_in_use, 1u);
  EXPECT_EQ(other.statistics().blocks_in_use, 0u);
  counted.open();
  user.join();
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
}

// Races between a thread moving a pool's cache between its slots and another thread acting on that
// pool, which no thread is using then. Each round: `prepare()` (main thread) gives the pool p; the
// owner thread fills its cache of p (p's cache current, holding blocks, none in use), then uses q,
// which parks p's cache (in the first parked slot), while the main thread calls `act(p)`: release,
// count or destroy. With `move_on`, the owner uses q before the handshake and a third pool r after
// it, whose use moves p's cache on from the first parked slot to another.
// (From the reviews of the parked slots: each of these failed before the moves took the cache's
// mutex.)
template <class Prepare, class Act>
void race_against_parking(long rounds, bool move_on, Prepare prepare, Act act) {
  own::concurrent_pool q(32), r(32);
  std::atomic<own::concurrent_pool*> handed{nullptr};
  std::atomic<long> filled{-1};
  auto jitter = [](std::minstd_rand& rng) {  // a few dozen cycles at random, to move the race window
    for (unsigned n = rng() % 64; n != 0; --n) std::atomic_signal_fence(std::memory_order_seq_cst);
  };
  std::thread owner([&] {
    std::minstd_rand rng(1);
    for (long round = 0; round < rounds; ++round) {
      own::concurrent_pool* p;
      while ((p = handed.exchange(nullptr, std::memory_order_acquire)) == nullptr) std::this_thread::yield();
      void* blocks[4];
      for (void*& b : blocks) {
        b = p->allocate();
        std::memset(b, 0x5a, 32);  // a block of a released chunk would be a use after free
      }
      for (void* b : blocks) p->deallocate(b);
      // Released, so that their next uses make their caches current again, parking the current one.
      q.release();
      r.release();
      if (move_on) q.deallocate(q.allocate());
      filled.store(round, std::memory_order_release);
      jitter(rng);
      own::concurrent_pool& next = move_on ? r : q;
      next.deallocate(next.allocate());
    }
  });
  std::minstd_rand rng(2);
  for (long round = 0; round < rounds; ++round) {
    own::concurrent_pool* p = prepare();
    handed.store(p, std::memory_order_release);
    while (filled.load(std::memory_order_acquire) != round) std::this_thread::yield();
    jitter(rng);
    act(*p);
  }
  owner.join();
}

// Scaled down by OWN_STRESS_SCALE (valgrind runs threads one at a time, and the rounds hand over
// between the two threads).
const long parking_race_rounds = own_test::scaled(50000);

void released_while_a_thread_moves_its_cache(bool move_on) {
  own::concurrent_pool p(32);
  race_against_parking(parking_race_rounds, move_on, [&] { return &p; }, [](own::concurrent_pool& pool) { pool.release(); });
}
TEST(concurrent_pool, released_while_a_thread_parks_its_cache) { released_while_a_thread_moves_its_cache(false); }
TEST(concurrent_pool, released_while_a_thread_moves_its_parked_cache_on) { released_while_a_thread_moves_its_cache(true); }

void counted_while_a_thread_moves_its_cache(bool move_on) {
  own::concurrent_pool p(32);
  long wrong = 0;
  race_against_parking(
      parking_race_rounds, move_on,
      [&] {
        p.release();  // p's next use makes its cache current again
        return &p;
      },
      [&](own::concurrent_pool& pool) { wrong += pool.statistics().blocks_in_use != 0; });
  EXPECT_EQ(wrong, 0) << "statistics() of an idle pool was wrong " << wrong << " times";
}
TEST(concurrent_pool, counted_while_a_thread_parks_its_cache) { counted_while_a_thread_moves_its_cache(false); }
TEST(concurrent_pool, counted_while_a_thread_moves_its_parked_cache_on) { counted_while_a_thread_moves_its_cache(true); }

TEST(concurrent_pool, destroyed_while_a_thread_parks_its_cache) {
  std::unique_ptr<own::concurrent_pool> p;
  race_against_parking(
      parking_race_rounds, false,
      [&] {
        p = std::make_unique<own::concurrent_pool>(32);
        return p.get();
      },
      [&](own::concurrent_pool&) { p.reset(); });  // checked mode aborts if it miscounts the blocks in use
}

// A chain of upstreams used on one thread: P's upstream is the concurrent pool U, whose upstream is
// the concurrent pool V. A thread T in P.reserve() holds P's depot mutex while U and V run their slow
// paths, which park and register caches on T; meanwhile another thread in P.statistics() holds the
// mutexes of P's caches, T's among them, and waits for P's depot. T must not wait for its P cache's
// mutex there. (From the review of the parked slots: T deadlocked moving its parked P cache, and,
// when U and V were new to T, deleting the caches of dead pools in their registrations.)
class forwarding_resource : public std::pmr::memory_resource {  // frees through whoever allocated
 public:
  std::atomic<std::pmr::memory_resource*> to{std::pmr::new_delete_resource()};
  std::function<void()> before_next_allocation;  // called once, then cleared

 private:
  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    if (auto f = std::exchange(before_next_allocation, nullptr)) f();
    std::pmr::memory_resource* const r = to.load();
    void* p = r->allocate(bytes, alignment);
    std::lock_guard<std::mutex> lock(mutex_);
    from_[p] = r;
    return p;
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override {
    std::pmr::memory_resource* r;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      r = from_.at(p);
      from_.erase(p);
    }
    r->deallocate(p, bytes, alignment);
  }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override { return this == &other; }
  std::mutex mutex_;
  std::map<void*, std::pmr::memory_resource*> from_;
};

void reserve_with_an_upstream_chain_while_counted(bool upstreams_new_to_the_thread) {
  own::pool_options options;
  options.thread_cache_blocks = 4;
  options.initial_chunk_blocks = 4;
  own::concurrent_pool v(1 << 16);
  forwarding_resource to_v;
  to_v.to = &v;
  own::concurrent_pool u(4096, options, &to_v);
  forwarding_resource to_u;  // new_delete for P's first chunk, then u
  own::concurrent_pool p(16, options, &to_u);
  std::atomic<bool> counting{false}, done{false};
  std::thread t([&] {
    std::vector<void*> held_u, held_v;
    auto drain = [](own::concurrent_pool& pool, std::vector<void*>& held) {  // the next use goes upstream
      for (own::pool_statistics s = pool.statistics(); s.high_water_mark != s.blocks_in_use; s = pool.statistics()) {
        held.push_back(pool.allocate());
      }
    };
    if (!upstreams_new_to_the_thread) {
      u.deallocate(u.allocate());
      drain(u, held_u);
      drain(v, held_v);
    }
    p.deallocate(p.allocate());  // T's cache of p, current
    to_u.to = &u;
    to_v.before_next_allocation = [&] {  // T holds p's depot mutex here
      counting = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(300));  // for statistics() to lock T's cache
    };
    p.reserve(100);
    done = true;
    for (void* b : held_u) u.deallocate(b);
    for (void* b : held_v) v.deallocate(b);
  });
  while (!counting) std::this_thread::yield();
  std::thread s([&] { EXPECT_EQ(p.statistics().blocks_in_use, 0u); });
  for (int i = 0; i < 300 && !done; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  if (!done) {
    std::fprintf(stderr, "deadlock: reserve() waits for its thread's cache mutex, statistics() for the depot\n");
    std::_Exit(1);  // the two threads can never be joined
  }
  s.join();
  t.join();
}
TEST(concurrent_pool, reserve_with_an_upstream_chain_while_counted) { reserve_with_an_upstream_chain_while_counted(false); }
TEST(concurrent_pool, reserve_with_an_upstream_chain_new_to_the_thread_while_counted) {
  reserve_with_an_upstream_chain_while_counted(true);
}

// One thread, a random walk over more pools than it keeps checked out: allocate, free, release,
// destroy and rebuild, with exact statistics and no block given out twice.
TEST(concurrent_pool, random_walk_over_many_pools_on_one_thread) {
  constexpr int pool_count = 12;
  own::pool_options options;
  options.thread_cache_blocks = 4;
  std::unique_ptr<own::concurrent_pool> pools[pool_count];
  std::vector<void*> held[pool_count];
  std::set<void*> live;
  for (auto& p : pools) p = std::make_unique<own::concurrent_pool>(32, options);
  std::minstd_rand rng(7);
  const long steps = own_test::scaled(100000);
  for (long step = 0; step < steps; ++step) {
    const int i = static_cast<int>(rng() % (step % 1000 < 500 ? 3 : pool_count));  // 3 pools, then 12
    const unsigned op = rng() % 1000;
    if (op < 2) {  // release, or destroy and rebuild
      for (void* b : held[i]) {
        live.erase(b);
        if (op != 0) pools[i]->deallocate(b);
      }
      held[i].clear();
      if (op == 0) {
        pools[i]->release();
      } else {
        pools[i] = std::make_unique<own::concurrent_pool>(32, options);
      }
    } else if (op < 500 && held[i].size() < 40) {
      void* b = pools[i]->allocate();
      ASSERT_TRUE(live.insert(b).second) << "given out twice, step " << step;
      std::memset(b, i, 32);
      held[i].push_back(b);
    } else if (!held[i].empty()) {
      const std::size_t k = rng() % held[i].size();
      void* b = held[i][k];
      held[i][k] = held[i].back();
      held[i].pop_back();
      ASSERT_EQ(*static_cast<unsigned char*>(b), static_cast<unsigned char>(i));
      live.erase(b);
      pools[i]->deallocate(b);
    }
    if (step % 97 == 0) {
      for (int j = 0; j < pool_count; ++j) ASSERT_EQ(pools[j]->statistics().blocks_in_use, held[j].size()) << step;
    }
  }
  for (int j = 0; j < pool_count; ++j) {
    for (void* b : held[j]) pools[j]->deallocate(b);
    EXPECT_EQ(pools[j]->statistics().blocks_in_use, 0u);
  }
}

// A refill that throws for a pool whose cache was parked and empty: the cache stays checked in, the
// other pool keeps working (through promotions), and the pool works again afterwards.
TEST(concurrent_pool, a_throwing_refill_of_a_parked_cache) {
  allocation_log log;
  test_resource upstream(&log);
  own::pool_options options;
  options.thread_cache_blocks = 4;
  options.initial_chunk_blocks = 4;
  own::concurrent_pool a(32, options, &upstream);
  own::concurrent_pool b(32, options);
  std::vector<void*> held_a;
  for (int i = 0; i < 4; ++i) held_a.push_back(a.allocate());  // a's chunk and cache exhausted
  void* x = b.allocate();                                       // a's cache parked, empty
  log.throw_at = log.attempts + 1;
  EXPECT_THROW((void)a.allocate(), std::bad_alloc);
  log.throw_at = 0;
  for (int i = 0; i < 1000; ++i) b.deallocate(b.allocate());
  EXPECT_EQ(a.statistics().blocks_in_use, 4u);
  for (int i = 0; i < 20; ++i) {
    held_a.push_back(a.allocate());
    b.deallocate(b.allocate());
  }
  EXPECT_EQ(a.statistics().blocks_in_use, 24u);
  b.deallocate(x);
  for (void* p : held_a) a.deallocate(p);
  EXPECT_EQ(a.statistics().blocks_in_use, 0u);
  EXPECT_EQ(b.statistics().blocks_in_use, 0u);
}

// thread_local destructors that use three pools in turn, one run before and one after the thread's
// cache list is destroyed: the counts are exact afterwards.
struct uses_pools_at_exit {
  own::concurrent_pool* pools[3] = {};
  ~uses_pools_at_exit() {
    if (!pools[0]) return;
    for (int round = 0; round < 200; ++round) {
      for (auto* p : pools) p->deallocate(p->allocate());
    }
  }
};
TEST(concurrent_pool, thread_local_destructors_use_pools_around_the_cache_list) {
  own::concurrent_pool pools[3] = {own::concurrent_pool(32), own::concurrent_pool(64), own::concurrent_pool(128)};
  on_another_thread([&] {
    static thread_local uses_pools_at_exit before;  // constructed before the list: destroyed after it
    for (int i = 0; i < 3; ++i) before.pools[i] = &pools[i];
    for (int round = 0; round < 100; ++round) {
      for (auto& p : pools) p.deallocate(p.allocate());
    }
    static thread_local uses_pools_at_exit after;  // destroyed before the list
    for (int i = 0; i < 3; ++i) after.pools[i] = &pools[2 - i];
  });
  for (auto& p : pools) EXPECT_EQ(p.statistics().blocks_in_use, 0u);
}

// A pool whose upstream is another concurrent pool: its slow paths (refill, make_room, reserve,
// registration) call upstream, which uses the other pool on this thread and makes that pool's cache
// current meanwhile; the outer slow path must still check out its own cache.
TEST(concurrent_pool, upstream_that_is_a_concurrent_pool_used_on_the_same_thread) {
  own::concurrent_pool outer_upstream(4096);
  own::pool_options options;
  options.thread_cache_blocks = 4;
  options.initial_chunk_blocks = 4;
  options.growth = own::pool_growth::constant;  // every chunk and magazine a trip to outer_upstream
  own::concurrent_pool pool(16, options, &outer_upstream);
  std::vector<void*> blocks;
  for (int round = 0; round < 3; ++round) {
    pool.reserve(blocks.size() + 100);
    for (int i = 0; i < 2000; ++i) {
      blocks.push_back(pool.allocate());
      std::memset(blocks.back(), round, 16);
    }
    EXPECT_EQ(pool.statistics().blocks_in_use, blocks.size());
    for (std::size_t i = 0; i < blocks.size(); i += 2) pool.deallocate(blocks[i]);
    std::vector<void*> kept;
    for (std::size_t i = 1; i < blocks.size(); i += 2) kept.push_back(blocks[i]);
    blocks = kept;
    EXPECT_EQ(pool.statistics().blocks_in_use, blocks.size());
  }
  for (void* b : blocks) pool.deallocate(b);
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
}

TEST(concurrent_pool, statistics) {
  own::pool_options options;
  options.thread_cache_blocks = 8;
  own::concurrent_pool pool(32, options);
  std::vector<void*> blocks;
  for (int i = 0; i < 100; ++i) blocks.push_back(pool.allocate());
  for (int i = 0; i < 60; ++i) {
    pool.deallocate(blocks.back());
    blocks.pop_back();
  }
  own::pool_statistics s = pool.statistics();
  EXPECT_EQ(s.blocks_in_use, 40u);
  // Blocks leave the chunks a magazine (8) at a time; the mark counts those in the cache too.
  const std::size_t high_water_mark = s.high_water_mark;
  EXPECT_GE(high_water_mark, 100u);
  EXPECT_LT(high_water_mark, 108u);
  EXPECT_GE(s.bytes_reserved, 100u * 32);
  on_another_thread([&] {
    for (void* b : blocks) pool.deallocate(b);
  });
  s = pool.statistics();
  EXPECT_EQ(s.blocks_in_use, 0u);
  EXPECT_EQ(s.high_water_mark, high_water_mark);
}

TEST(concurrent_pool, a_block_freed_on_another_thread_comes_back) {
  own::pool_options options;
  options.thread_cache_blocks = 16;
  own::concurrent_pool pool(64, options);
  std::vector<void*> blocks;
  for (int i = 0; i < 200; ++i) blocks.push_back(pool.allocate());
  const std::set<void*> first(blocks.begin(), blocks.end());
  on_another_thread([&] {
    for (void* b : blocks) pool.deallocate(b);
  });
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
  // The consumer's cached blocks went back at its exit: they are reused, no block is carved.
  const own::pool_statistics before = pool.statistics();
  blocks.clear();
  for (int i = 0; i < 200; ++i) blocks.push_back(pool.allocate());
  const std::set<void*> again(blocks.begin(), blocks.end());
  EXPECT_GE(std::count_if(again.begin(), again.end(), [&](void* b) { return first.count(b) != 0; }), 190);
  EXPECT_EQ(pool.statistics().chunks, before.chunks);
  EXPECT_EQ(pool.statistics().high_water_mark, before.high_water_mark);
  for (void* b : blocks) pool.deallocate(b);
}

TEST(concurrent_pool, blocks_cached_by_an_exiting_thread_are_not_lost) {
  allocation_log log;
  test_resource upstream(&log);
  own::concurrent_pool pool(32, {}, &upstream);
  on_another_thread([&] {
    std::vector<void*> blocks;
    for (int i = 0; i < 100; ++i) blocks.push_back(pool.allocate());
    for (void* b : blocks) pool.deallocate(b);  // all in this thread's cache now
  });
  const long chunks = log.allocations;
  const std::size_t carved = pool.statistics().high_water_mark;
  EXPECT_GE(carved, 100u);
  std::vector<void*> blocks;
  for (int i = 0; i < 100; ++i) blocks.push_back(pool.allocate());
  EXPECT_EQ(log.allocations, chunks);
  EXPECT_EQ(pool.statistics().high_water_mark, carved);
  for (void* b : blocks) pool.deallocate(b);
}

TEST(concurrent_pool, many_short_lived_threads) {
  own::pool_options options;
  options.thread_cache_blocks = 4;
  own::concurrent_pool pool(16, options);
  for (int t = 0; t < 40; ++t) {
    on_another_thread([&] {
      std::vector<void*> blocks;
      for (int i = 0; i < 10; ++i) blocks.push_back(pool.allocate());
      for (void* b : blocks) pool.deallocate(b);
    });
  }
  // Each thread reused what the previous ones left: never more than one thread's worth carved.
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
  EXPECT_LE(pool.statistics().high_water_mark, 16u);
}

TEST(concurrent_pool, destroyed_while_a_thread_still_holds_a_cache_for_it) {
  allocation_log log;
  test_resource upstream(&log);
  std::optional<own::concurrent_pool> pool(std::in_place, 32, own::pool_options{}, &upstream);
  latch used, destroyed;
  std::thread user([&] {
    void* p = pool->allocate();
    pool->deallocate(p);  // this thread now caches blocks of `pool`
    used.open();
    destroyed.wait();
    // The dead pool's cache is dropped when this thread registers with another pool, at the latest
    // at exit; it is never touched as a cache of the new pool.
    own::concurrent_pool other(32);
    void* q = other.allocate();
    EXPECT_EQ(other.statistics().blocks_in_use, 1u);
    other.deallocate(q);
  });
  used.wait();
  pool.reset();
  EXPECT_EQ(log.blocks_in_use(), 0);
  destroyed.open();
  user.join();
}

TEST(concurrent_pool, a_new_pool_at_a_dead_pools_address_gets_a_fresh_cache) {
  std::optional<own::concurrent_pool> pool(std::in_place, 32);
  void* old_block = pool->allocate();
  pool->deallocate(old_block);  // cached by this thread
  const void* address = &*pool;
  pool.reset();
  pool.emplace(32);
  ASSERT_EQ(static_cast<const void*>(&*pool), address);
  void* block = pool->allocate();
  EXPECT_EQ(pool->statistics().blocks_in_use, 1u);
  // Carved from the new pool's chunk: the dead pool's cache (and its stale blocks) was not used.
  EXPECT_GE(pool->statistics().high_water_mark, 1u);
  EXPECT_EQ(pool->statistics().chunks, 1u);
  pool->deallocate(block);
}

// The thread's exit (handing its cache back) races with the pool's destruction; ASan and TSan check
// that neither side touches what the other freed.
TEST(concurrent_pool, thread_exits_while_its_pool_is_destroyed) {
  for (int round = 0; round < 20; ++round) {
    std::optional<own::concurrent_pool> pool(std::in_place, 32);
    latch used;
    std::thread user([&] {
      pool->deallocate(pool->allocate());
      used.open();
    });
    used.wait();
    pool.reset();  // races with the thread's exit
    user.join();
  }
}

TEST(concurrent_pool, pool_used_after_this_threads_caches_are_gone) {
  // A thread_local destroyed after the thread's cache list still works, through the depot.
  static own::concurrent_pool pool(32);
  struct late_user {
    void* block = nullptr;
    ~late_user() {
      pool.deallocate(block);
      pool.deallocate(pool.allocate());
    }
  };
  on_another_thread([] {
    static thread_local late_user user;  // constructed before the thread's cache list
    user.block = pool.allocate();
  });
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
}

TEST(concurrent_pool, release_empties_thread_caches_and_returns_every_chunk) {
  allocation_log log;
  test_resource upstream(&log);
  own::concurrent_pool pool(32, {}, &upstream);
  std::vector<void*> blocks;
  for (int i = 0; i < 300; ++i) blocks.push_back(pool.allocate());
  for (void* b : blocks) pool.deallocate(b);
  // Upstream also holds the magazines, which the pool keeps until it is destroyed.
  const long bytes_before = log.bytes_in_use;
  const std::size_t chunk_bytes = pool.statistics().bytes_reserved;
  pool.release();
  EXPECT_EQ(log.bytes_in_use, bytes_before - static_cast<long>(chunk_bytes));
  own_test::expect_equal(pool.statistics(), own::pool_statistics{});
  void* p = pool.allocate();  // from a fresh chunk, not a stale cached block
  EXPECT_EQ(pool.statistics().chunks, 1u);
  EXPECT_EQ(pool.statistics().blocks_in_use, 1u);
  pool.deallocate(p);
}

// A thread that is done with the pool and exits moves its cached blocks into the depot: statistics()
// read meanwhile must count them once, not in the cache and again in the depot.
TEST(concurrent_pool, statistics_stay_exact_while_a_thread_that_used_the_pool_exits) {
  own::pool_options options;
  options.thread_cache_blocks = 64;
  own::concurrent_pool pool(32, options);
  std::vector<void*> held;
  for (int i = 0; i < 10; ++i) held.push_back(pool.allocate());
  int wrong = 0;
  for (int round = 0; round < 300; ++round) {
    std::atomic<bool> done_with_pool{false};
    std::thread exiting([&] {
      std::vector<void*> blocks;
      for (int i = 0; i < 100; ++i) blocks.push_back(pool.allocate());
      for (void* block : blocks) pool.deallocate(block);  // now cached by this thread
      done_with_pool.store(true);
    });
    while (!done_with_pool.load()) std::this_thread::yield();
    for (int i = 0; i < 50; ++i) wrong += pool.statistics().blocks_in_use != held.size();
    exiting.join();
  }
  EXPECT_EQ(wrong, 0);
  for (void* block : held) pool.deallocate(block);
}

// The fast paths keep a thread's top in its thread-local storage: statistics() must still see the
// blocks cached by an idle thread, and release() must stop that thread from handing out a block it
// cached before the release (its stale top), whether it uses the pool next or another pool first.
TEST(concurrent_pool, an_idle_threads_cached_blocks_are_counted_and_released) {
  for (const bool other_pool_first : {false, true}) {
    own::concurrent_pool pool(32);
    own::concurrent_pool other(32);
    latch cached, counted, freed, released, checked;
    std::thread user([&] {
      void* a = pool.allocate();
      void* b = pool.allocate();
      pool.deallocate(a);  // this thread's cache now holds blocks of `pool`, and `b` is in use
      cached.open();
      counted.wait();
      pool.deallocate(b);
      freed.open();
      released.wait();
      if (other_pool_first) other.deallocate(other.allocate());
      void* c = pool.allocate();
      EXPECT_EQ(pool.statistics().chunks, 1u);  // from a fresh chunk
      EXPECT_EQ(pool.statistics().blocks_in_use, 1u);
      pool.deallocate(c);
      EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
      checked.open();
    });
    cached.wait();
    EXPECT_EQ(pool.statistics().blocks_in_use, 1u);
    counted.open();
    freed.wait();
    EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
    pool.release();  // no thread uses the pool meanwhile; `user` keeps its cache of it and waits
    own_test::expect_equal(pool.statistics(), own::pool_statistics{});
    released.open();
    checked.wait();
    user.join();
    EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
  }
}

TEST(concurrent_pool, reserve) {
  allocation_log log;
  test_resource upstream(&log);
  own::concurrent_pool pool(32, {}, &upstream);
  pool.reserve(500);
  EXPECT_EQ(log.allocations, 1);
  std::vector<void*> blocks;
  for (int i = 0; i < 500; ++i) blocks.push_back(pool.allocate());
  EXPECT_EQ(pool.statistics().chunks, 1u);
  EXPECT_EQ(log.allocations, 3);  // and this thread's two magazines
  for (void* b : blocks) pool.deallocate(b);
}

TEST(concurrent_pool, upstream_failure_leaves_the_pool_unchanged) {
  allocation_log log;
  test_resource upstream(&log);
  own::pool_options options;
  options.initial_chunk_blocks = 4;
  options.thread_cache_blocks = 4;
  own::concurrent_pool pool(16, options, &upstream);
  std::vector<void*> blocks;
  // Round 0 fails registering the thread (its magazines), the others getting a chunk.
  for (int round = 0; round < 5; ++round) {
    log.throw_at = log.attempts + 1;
    for (bool threw = false; !threw;) {
      const own::pool_statistics before = pool.statistics();
      const long upstream_before = log.blocks_in_use();
      try {
        blocks.push_back(pool.allocate());
      } catch (const std::bad_alloc&) {
        threw = true;
        own_test::expect_equal(pool.statistics(), before);
        EXPECT_EQ(log.blocks_in_use(), upstream_before);
      }
    }
    log.throw_at = 0;
    const std::size_t chunks_before = pool.statistics().chunks;
    blocks.push_back(pool.allocate());
    EXPECT_EQ(pool.statistics().chunks, chunks_before + 1);
  }
  EXPECT_EQ(pool.statistics().blocks_in_use, blocks.size());
  for (void* b : blocks) pool.deallocate(b);
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
}

TEST(concurrent_pool, deallocate_never_fails_when_no_magazine_can_be_had) {
  allocation_log log;
  test_resource upstream(&log);
  own::pool_options options;
  options.thread_cache_blocks = 4;
  own::concurrent_pool pool(16, options, &upstream);
  std::vector<void*> blocks;
  for (int i = 0; i < 12; ++i) blocks.push_back(pool.allocate());
  const own::pool_statistics before = pool.statistics();
  log.throw_at = log.attempts + 1;  // parking a full magazine needs a new empty one: it fails
  for (void* b : blocks) pool.deallocate(b);
  log.throw_at = 0;
  EXPECT_GT(log.attempts, log.allocations);  // the failure did happen
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
  // The spilled blocks are reused: no new chunk.
  for (void*& b : blocks) b = pool.allocate();
  EXPECT_EQ(pool.statistics().chunks, before.chunks);
  EXPECT_EQ(pool.statistics().high_water_mark, before.high_water_mark);
  for (void* b : blocks) pool.deallocate(b);
}

TEST(concurrent_pool, no_leak_whichever_upstream_allocation_throws) {
  allocation_log log;
  test_resource upstream(&log);
  own_test::for_each_failure_point(log, [&] {
    own::pool_options options;
    options.initial_chunk_blocks = 1;
    own::concurrent_pool pool(32, options, &upstream);
    std::vector<void*> blocks;
    blocks.reserve(40);
    struct give_back {
      own::concurrent_pool& pool;
      std::vector<void*>& blocks;
      ~give_back() {
        for (void* b : blocks) pool.deallocate(b);
      }
    } guard{pool, blocks};
    for (int i = 0; i < 40; ++i) blocks.push_back(pool.allocate());
    pool.reserve(100);
  });
}

TEST(concurrent_pool, memory_resource_and_pmr_containers) {
  allocation_log log;
  test_resource upstream(&log);
  own::concurrent_pool pool(64, {}, &upstream);
  {
    std::pmr::list<int> list(&pool);
    for (int i = 0; i < 1000; ++i) list.push_back(i);
    EXPECT_EQ(pool.statistics().blocks_in_use, 1000u);
    const long chunks = log.allocations;
    std::pmr::vector<char> big(1000, 'x', &pool);  // does not fit a block
    EXPECT_EQ(log.allocations, chunks + 1);
    EXPECT_EQ(pool.statistics().blocks_in_use, 1000u);
  }
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
}

TEST(concurrent_pool, declares_its_allocator_for_own_allocating_functions) {
  static_assert(std::is_same_v<own::detail::adapted_allocator_t<own::concurrent_pool*>,
                               own::pool_allocator<std::byte, own::concurrent_pool>>);
  own::concurrent_pool pool(32);
  auto allocator = own::detail::adapt_allocator(&pool);
  std::byte* p = allocator.allocate(32);
  EXPECT_EQ(pool.statistics().blocks_in_use, 1u);
  allocator.deallocate(p, 32);
}

// Two threads, 10^6 operations in all: each allocates, writes a stamp, and either frees the block
// itself (after a burst) or hands it to the other thread, which checks the stamp and frees it; with
// one pool, then with two used in turn (so each thread keeps one cache parked, and promotes it now
// and then).
TEST(concurrent_pool, stress_two_threads_with_cross_thread_frees) {
  const long operations_per_thread = own_test::scaled(500000);
  for (const std::size_t pool_count : {1, 2}) {
    allocation_log log;
    test_resource upstream(&log);
    {
      own::pool_options options;
      options.thread_cache_blocks = 16;  // many trips through the depot
      std::vector<std::unique_ptr<own::concurrent_pool>> pools;
      for (std::size_t i = 0; i < pool_count; ++i) {
        pools.push_back(std::make_unique<own::concurrent_pool>(32, options, &upstream));
      }
      spsc_ring rings[2];  // rings[i]: from thread i to the other
      std::atomic<int> done{0};
      auto worker = [&](int self) {
        spsc_ring& out = rings[self];
        spsc_ring& in = rings[1 - self];
        std::vector<void*> burst;
        // A block holds a check word and the index of its pool.
        auto stamp = [](void* p) { return static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(p) * 7 + 1); };
        auto free_block = [&](void* p) {
          auto* words = static_cast<std::uint64_t*>(p);
          EXPECT_EQ(words[0], stamp(p));
          pools[words[1]]->deallocate(p);
        };
        auto drain = [&] {
          while (void* p = in.try_pop()) free_block(p);
        };
        for (int i = 0; i < operations_per_thread; ++i) {
          const std::size_t which = static_cast<std::size_t>(i) % pool_count;
          void* p = pools[which]->allocate();
          static_cast<std::uint64_t*>(p)[0] = stamp(p);
          static_cast<std::uint64_t*>(p)[1] = which;
          if (i % 3 == 0) {
            while (!out.try_push(p)) drain();
          } else {
            burst.push_back(p);
            if (burst.size() == 100) {
              for (void* b : burst) free_block(b);
              burst.clear();
            }
          }
          if (i % 64 == 0) drain();
          if (self == 0 && i % 10000 == 0) {
            for (const auto& pool : pools) {
              const own::pool_statistics s = pool->statistics();  // while the other thread runs
              EXPECT_LE(s.blocks_in_use, s.high_water_mark);
            }
          }
        }
        for (void* b : burst) free_block(b);
        done.fetch_add(1);
        while (done.load() < 2) drain();
        drain();
        // The thread exits with blocks in its caches: they must go back to the pools.
      };
      std::thread a(worker, 0);
      std::thread b(worker, 1);
      a.join();
      b.join();
      for (const auto& pool : pools) {
        const own::pool_statistics s = pool->statistics();
        EXPECT_EQ(s.blocks_in_use, 0u);
        EXPECT_LE(s.high_water_mark, 2 * (100 + 256 + 4 * 16) + 64u);  // bounded by what was live or cached
      }
    }
    EXPECT_EQ(log.blocks_in_use(), 0) << pool_count << " pools";
  }
}

#ifdef OWN_CHECKED

using own_test::misuse_pattern;

TEST(concurrent_pool_death, double_free_names_the_pool_and_the_block) {
  own::pool_options options;
  options.name = "shared";
  own::concurrent_pool pool(32, options);
  void* a = pool.allocate();
  void* b = pool.allocate();
  pool.deallocate(a);
  EXPECT_DEATH(pool.deallocate(a), misuse_pattern("own::concurrent_pool", "shared", &pool, "block freed twice", a));
  pool.deallocate(b);
}

TEST(concurrent_pool_death, double_free_on_two_threads) {
  own::concurrent_pool pool(32);
  void* a = pool.allocate();
  EXPECT_DEATH(
      {
        on_another_thread([&] { pool.deallocate(a); });
        pool.deallocate(a);
      },
      misuse_pattern("own::concurrent_pool", "", &pool, "block freed twice", a));
  pool.deallocate(a);
}

TEST(concurrent_pool_death, foreign_pointer_and_block_of_another_pool) {
  own::concurrent_pool pool(32);
  own::concurrent_pool other(32);
  void* mine = pool.allocate();
  void* theirs = other.allocate();
  long local = 0;
  EXPECT_DEATH(pool.deallocate(&local), misuse_pattern("own::concurrent_pool", "", &pool, "never handed out", &local));
  EXPECT_DEATH(pool.deallocate(theirs), misuse_pattern("own::concurrent_pool", "", &pool, "another pool", theirs));
  pool.deallocate(mine);
  other.deallocate(theirs);
}

TEST(concurrent_pool_death, destroyed_with_blocks_in_use_reports_how_many) {
  EXPECT_DEATH(
      {
        own::pool_options options;
        options.name = "leaky";
        own::concurrent_pool pool(32, options);
        static_cast<void>(pool.allocate());
        on_another_thread([&] {
          static_cast<void>(pool.allocate());
          pool.deallocate(pool.allocate());  // cached, not in use
        });
      },
      "own: own::concurrent_pool 'leaky' at 0x[0-9a-f]+: destroyed with blocks still in use: 2");
}

TEST(concurrent_pool_death, block_given_back_as_a_large_allocation) {
  own::concurrent_pool pool(32);
  void* a = pool.allocate();
  std::pmr::memory_resource& resource = pool;
  EXPECT_DEATH(resource.deallocate(a, 33),
               misuse_pattern("own::concurrent_pool", "", &pool, "33-byte allocation that lies in this pool's chunks", a));
  pool.deallocate(a);
}

#endif  // OWN_CHECKED

}  // namespace
