// SPDX-License-Identifier: BSL-1.0
#include <own/pool.hpp>

#include <own/detail/allocator_adapter.hpp>

#include <algorithm>
#include <cstring>
#include <list>
#include <memory_resource>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "pool_test_support.hpp"
#include "test_allocator.hpp"

namespace {

using own_test::allocation_log;
using own_test::test_resource;

TEST(pool, header_example) {
  own::pool pool(64);
  void* a = pool.allocate();
  void* b = pool.allocate();
  pool.deallocate(a);
  void* c = pool.allocate();
  EXPECT_EQ(c, a);
  std::pmr::vector<int> v({1, 2, 3}, &pool);
  EXPECT_EQ(pool.statistics().blocks_in_use, 3u);
  pool.deallocate(b);
  pool.deallocate(c);
}

TEST(pool, block_size_and_alignment) {
  EXPECT_EQ(own::pool(1).block_size(), sizeof(void*));
  EXPECT_EQ(own::pool(1).block_alignment(), alignof(void*));
  EXPECT_EQ(own::pool(24).block_size(), 24u);
  EXPECT_EQ(own::pool(24).block_alignment(), 8u);
  EXPECT_EQ(own::pool(64).block_alignment(), alignof(std::max_align_t));
  EXPECT_EQ(own::pool(20).block_size(), 24u);  // natural alignment of 20 is 4, raised to a pointer's
  own::pool_options aligned;
  aligned.alignment = 64;
  own::pool pool(40, aligned);
  EXPECT_EQ(pool.block_size(), 64u);
  EXPECT_EQ(pool.block_alignment(), 64u);
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(own_test::is_aligned(pool.allocate(), 64));
  pool.release();
  own::pool_options bad;
  bad.alignment = 24;
  EXPECT_THROW(own::pool(8, bad), std::invalid_argument);
}

// A block size whose round-up to the alignment wraps used to give block_size() == 0 and a division
// by zero (SIGFPE) at the first allocate(): it is refused at construction.
TEST(pool, block_size_that_wraps_when_rounded_up_is_refused) {
  constexpr std::size_t max = static_cast<std::size_t>(-1);
  EXPECT_THROW(own::pool{max}, std::bad_alloc);
  own::pool_options huge_alignment;
  huge_alignment.alignment = (max >> 1) + 1;  // 2^63 on 64-bit
  EXPECT_THROW(own::pool(huge_alignment.alignment + 1, huge_alignment), std::bad_alloc);
  // One that does not wrap is still accepted, and refused when a chunk is needed.
  own::pool unwrapped(max - 7);
  EXPECT_EQ(unwrapped.block_size(), max - 7);
  EXPECT_THROW((void)unwrapped.allocate(), std::bad_alloc);
}

TEST(pool, blocks_are_distinct_writable_and_reused_last_in_first_out) {
  own::pool pool(40);
  std::vector<void*> blocks;
  for (int i = 0; i < 1000; ++i) {
    blocks.push_back(pool.allocate());
    EXPECT_TRUE(own_test::is_aligned(blocks.back(), pool.block_alignment()));
    std::memset(blocks.back(), i & 0xff, pool.block_size());
  }
  std::set<void*> unique(blocks.begin(), blocks.end());
  EXPECT_EQ(unique.size(), blocks.size());
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    const auto* bytes = static_cast<unsigned char*>(blocks[i]);
    EXPECT_TRUE(std::all_of(bytes, bytes + pool.block_size(), [&](unsigned char b) { return b == (i & 0xff); }));
  }
  pool.deallocate(blocks[10]);
  pool.deallocate(blocks[20]);
  EXPECT_EQ(pool.allocate(), blocks[20]);
  EXPECT_EQ(pool.allocate(), blocks[10]);
  for (void* b : blocks) pool.deallocate(b);
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
  // Freed blocks are reused before any new one is carved.
  const own::pool_statistics before = pool.statistics();
  std::set<void*> again;
  for (int i = 0; i < 1000; ++i) again.insert(pool.allocate());
  EXPECT_EQ(again, unique);
  EXPECT_EQ(pool.statistics().bytes_reserved, before.bytes_reserved);
  EXPECT_EQ(pool.statistics().high_water_mark, 1000u);
  pool.release();
}

TEST(pool, geometric_growth_doubles_up_to_the_maximum) {
  allocation_log log;
  test_resource upstream(&log);
  own::pool_options options;
  options.initial_chunk_blocks = 4;
  options.max_chunk_blocks = 16;
  own::pool pool(32, options, &upstream);
  EXPECT_EQ(log.allocations, 0);  // nothing taken before the first allocation
  std::vector<void*> blocks;
  auto chunks_after = [&](std::size_t n) {
    while (blocks.size() < n) blocks.push_back(pool.allocate());
    return log.allocations.load();
  };
  EXPECT_EQ(chunks_after(1), 1);
  EXPECT_EQ(chunks_after(4), 1);
  EXPECT_EQ(chunks_after(5), 2);    // 4 + 8
  EXPECT_EQ(chunks_after(12), 2);
  EXPECT_EQ(chunks_after(13), 3);   // + 16
  EXPECT_EQ(chunks_after(28), 3);
  EXPECT_EQ(chunks_after(29), 4);   // + 16: the maximum
  EXPECT_EQ(chunks_after(44), 4);
  EXPECT_EQ(pool.statistics().chunks, 4u);
  EXPECT_GE(pool.statistics().bytes_reserved, 44u * 32);
  EXPECT_EQ(pool.statistics().bytes_reserved, static_cast<std::size_t>(log.bytes_in_use.load()));
  for (void* b : blocks) pool.deallocate(b);
}

TEST(pool, constant_growth) {
  allocation_log log;
  test_resource upstream(&log);
  own::pool_options options;
  options.growth = own::pool_growth::constant;
  options.initial_chunk_blocks = 10;
  own::pool pool(16, options, &upstream);
  std::vector<void*> blocks;
  for (int i = 0; i < 35; ++i) blocks.push_back(pool.allocate());
  EXPECT_EQ(log.allocations, 4);
  for (void* b : blocks) pool.deallocate(b);
}

TEST(pool, reserve_makes_the_next_allocations_need_no_upstream) {
  allocation_log log;
  test_resource upstream(&log);
  own::pool pool(64, {}, &upstream);
  pool.reserve(100);
  EXPECT_EQ(log.allocations, 1);
  pool.reserve(100);  // already there
  EXPECT_EQ(log.allocations, 1);
  std::vector<void*> blocks;
  for (int i = 0; i < 50; ++i) blocks.push_back(pool.allocate());
  // 50 left in the chunk: reserving 80 adds one chunk, and the rest of the first is not lost.
  pool.reserve(80);
  EXPECT_EQ(log.allocations, 2);
  for (int i = 0; i < 80; ++i) blocks.push_back(pool.allocate());
  EXPECT_EQ(log.allocations, 2);
  // Free blocks count too.
  for (void* b : blocks) pool.deallocate(b);
  pool.reserve(130);
  EXPECT_EQ(log.allocations, 2);
}

TEST(pool, release_returns_every_chunk_and_the_pool_stays_usable) {
  allocation_log log;
  test_resource upstream(&log);
  own::pool pool(24, {}, &upstream);
  for (int i = 0; i < 500; ++i) static_cast<void>(pool.allocate());
  EXPECT_GT(log.blocks_in_use(), 1);
  pool.release();
  EXPECT_EQ(log.blocks_in_use(), 0);
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
  EXPECT_EQ(pool.statistics().high_water_mark, 0u);
  EXPECT_EQ(pool.statistics().bytes_reserved, 0u);
  void* p = pool.allocate();
  EXPECT_EQ(log.blocks_in_use(), 1);
  pool.deallocate(p);
}

TEST(pool, destruction_returns_every_chunk) {
  allocation_log log;
  test_resource upstream(&log);
  {
    own::pool pool(24, {}, &upstream);
    std::vector<void*> blocks;
    for (int i = 0; i < 500; ++i) blocks.push_back(pool.allocate());
    for (void* b : blocks) pool.deallocate(b);
  }
  EXPECT_GT(log.allocations, 1);
  EXPECT_EQ(log.blocks_in_use(), 0);
}

TEST(pool, statistics) {
  own::pool pool(32);
  std::vector<void*> blocks;
  for (int i = 0; i < 50; ++i) blocks.push_back(pool.allocate());
  for (int i = 0; i < 30; ++i) {
    pool.deallocate(blocks.back());
    blocks.pop_back();
  }
  for (int i = 0; i < 10; ++i) blocks.push_back(pool.allocate());
  const own::pool_statistics s = pool.statistics();
  EXPECT_EQ(s.blocks_in_use, 30u);
  EXPECT_EQ(s.high_water_mark, 50u);
  EXPECT_GE(s.bytes_reserved, 50u * 32);
  for (void* b : blocks) pool.deallocate(b);
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
  EXPECT_EQ(pool.statistics().high_water_mark, 50u);
}

TEST(pool, memory_resource_serves_fitting_requests_and_sends_the_rest_upstream) {
  allocation_log log;
  test_resource upstream(&log);
  own::pool pool(32, {}, &upstream);
  std::pmr::memory_resource& resource = pool;
  void* small = resource.allocate(32, 8);
  EXPECT_EQ(pool.statistics().blocks_in_use, 1u);
  const long chunks = log.allocations;
  void* big = resource.allocate(33, 8);
  void* over_aligned = resource.allocate(16, 64);
  EXPECT_TRUE(own_test::is_aligned(over_aligned, 64));
  EXPECT_EQ(log.allocations, chunks + 2);
  EXPECT_EQ(pool.statistics().blocks_in_use, 1u);
  resource.deallocate(big, 33, 8);
  resource.deallocate(over_aligned, 16, 64);
  resource.deallocate(small, 32, 8);
  EXPECT_EQ(log.allocations - log.deallocations, chunks);
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
  EXPECT_TRUE(resource.is_equal(pool));
  own::pool other(32);
  EXPECT_FALSE(resource.is_equal(other));
}

TEST(pool, pmr_containers) {
  own::pool pool(64);
  {
    std::pmr::list<int> list(&pool);
    for (int i = 0; i < 1000; ++i) list.push_back(i);
    EXPECT_EQ(pool.statistics().blocks_in_use, 1000u);
    list.remove_if([](int i) { return i % 2 != 0; });
    EXPECT_EQ(pool.statistics().blocks_in_use, 500u);
    int expected = 0;
    for (int i : list) {
      EXPECT_EQ(i, expected);
      expected += 2;
    }
  }
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
}

TEST(pool, declares_its_allocator_for_own_allocating_functions) {
  static_assert(std::is_same_v<own::pool::allocator_type, own::pool_allocator<std::byte, own::pool>>);
  static_assert(
      std::is_same_v<own::detail::adapted_allocator_t<own::pool*>, own::pool_allocator<std::byte, own::pool>>);
  own::pool pool(32);
  auto allocator = own::detail::adapt_allocator(&pool);
  EXPECT_EQ(allocator.pool(), &pool);
  std::byte* p = allocator.allocate(32);
  EXPECT_EQ(pool.statistics().blocks_in_use, 1u);
  allocator.deallocate(p, 32);
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
}

TEST(pool, upstream_failure_leaves_the_pool_unchanged) {
  allocation_log log;
  test_resource upstream(&log);
  own::pool_options options;
  options.initial_chunk_blocks = 2;
  own::pool pool(16, options, &upstream);
  std::vector<void*> blocks;
  for (int round = 0; round < 5; ++round) {
    log.throw_at = log.attempts + 1;  // the next upstream allocation throws
    const long chunks_before = log.blocks_in_use();
    // Allocations succeed while the chunks last; the one that needs a new chunk throws.
    for (bool threw = false; !threw;) {
      const own::pool_statistics before = pool.statistics();
      try {
        blocks.push_back(pool.allocate());
      } catch (const std::bad_alloc&) {
        threw = true;
        own_test::expect_equal(pool.statistics(), before);
      }
    }
    EXPECT_EQ(log.blocks_in_use(), chunks_before);
    EXPECT_EQ(pool.statistics().blocks_in_use, blocks.size());
    log.throw_at = 0;
    blocks.push_back(pool.allocate());  // works again, with one more chunk
    EXPECT_EQ(log.blocks_in_use(), chunks_before + 1);
  }
  for (void* b : blocks) pool.deallocate(b);
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
}

TEST(pool, no_leak_whichever_upstream_allocation_throws) {
  allocation_log log;
  test_resource upstream(&log);
  const int runs = own_test::for_each_failure_point(log, [&] {
    own::pool_options options;
    options.initial_chunk_blocks = 1;
    own::pool pool(32, options, &upstream);
    std::vector<void*> blocks;
    blocks.reserve(20);
    struct give_back {
      own::pool& pool;
      std::vector<void*>& blocks;
      ~give_back() {
        for (void* b : blocks) pool.deallocate(b);
      }
    } guard{pool, blocks};
    for (int i = 0; i < 20; ++i) blocks.push_back(pool.allocate());  // chunks of 1, 2, 4, 8, 16
    pool.reserve(100);
  });
  EXPECT_EQ(runs, 7);
}

TEST(pool, reserve_failure_leaves_the_pool_unchanged) {
  allocation_log log;
  test_resource upstream(&log);
  own::pool pool(32, {}, &upstream);
  void* p = pool.allocate();
  const own::pool_statistics before = pool.statistics();
  log.throw_at = log.attempts + 1;
  EXPECT_THROW(pool.reserve(1000), std::bad_alloc);
  log.throw_at = 0;
  own_test::expect_equal(pool.statistics(), before);
  pool.deallocate(p);
}

#ifdef OWN_CHECKED

using own_test::misuse_pattern;

TEST(pool_death, double_free_names_the_pool_and_the_block) {
  own::pool_options options;
  options.name = "deaths";
  own::pool pool(32, options);
  void* a = pool.allocate();
  void* b = pool.allocate();
  pool.deallocate(a);
  EXPECT_DEATH(pool.deallocate(a), misuse_pattern("own::pool", "deaths", &pool, "block freed twice", a));
  pool.deallocate(b);
}

TEST(pool_death, pointer_the_pool_never_gave_out) {
  own::pool pool(32);
  void* a = pool.allocate();
  int local = 0;
  EXPECT_DEATH(pool.deallocate(&local), misuse_pattern("own::pool", "", &pool, "never handed out", &local));
  void* inside = static_cast<char*>(a) + 8;  // not the start of a block
  EXPECT_DEATH(pool.deallocate(inside), misuse_pattern("own::pool", "", &pool, "never handed out", inside));
  pool.deallocate(a);
}

TEST(pool_death, block_never_allocated_yet) {
  own::pool pool(32);
  void* a = pool.allocate();
  void* neighbour = static_cast<char*>(a) + 32;  // in the chunk, not yet handed out
  EXPECT_DEATH(pool.deallocate(neighbour), misuse_pattern("own::pool", "", &pool, "never allocated", neighbour));
  pool.deallocate(a);
}

TEST(pool_death, block_of_another_pool) {
  own::pool first(32);
  own::pool second(32);
  void* a = first.allocate();
  EXPECT_DEATH(second.deallocate(a), misuse_pattern("own::pool", "", &second, "another pool", a));
  first.deallocate(a);
}

// The free list's links are encoded in checked mode, so whatever a stray write puts in a free block's
// first word (the link) leads to an address the pool refuses: the report names that address, which is
// not the value written.
TEST(pool_death, write_after_free_that_corrupts_the_free_list) {
  own::pool pool(32);
  void* a = pool.allocate();
  void* b = pool.allocate();
  pool.deallocate(a);
  void* const link = *static_cast<void**>(a);
  *static_cast<void**>(a) = b;  // a raw pointer to b, which is in use
  EXPECT_DEATH(
      {
        static_cast<void>(pool.allocate());
        static_cast<void>(pool.allocate());
      },
      "own: unnamed own::pool at 0x[0-9a-f]+: free list corrupted");
  long local = 0;
  *static_cast<void**>(a) = &local;  // ... or out of the pool
  EXPECT_DEATH(
      {
        static_cast<void>(pool.allocate());
        static_cast<void>(pool.allocate());
      },
      "own: unnamed own::pool at 0x[0-9a-f]+: free list corrupted");
  *static_cast<void**>(a) = link;
  pool.deallocate(b);
}

// Zero, the commonest value written, as in issue #17: a plain link would read as the end of the list
// and silently drop the blocks after it.
TEST(pool_death, write_after_free_that_zeroes_the_link) {
  own::pool pool(32);
  void* a = pool.allocate();
  void* b = pool.allocate();
  void* c = pool.allocate();
  pool.deallocate(c);
  pool.deallocate(b);
  pool.deallocate(a);
  void* const link = *static_cast<void**>(a);
  std::memset(a, 0, sizeof(void*));
  EXPECT_DEATH(
      {
        static_cast<void>(pool.allocate());
        static_cast<void>(pool.allocate());
        static_cast<void>(pool.allocate());
      },
      "own: unnamed own::pool at 0x[0-9a-f]+: free list corrupted");
  // Destroying (or asking for statistics) walks the list: the same report, not "blocks still in use".
  EXPECT_DEATH(static_cast<void>(pool.statistics()), "own: unnamed own::pool at 0x[0-9a-f]+: free list corrupted");
  *static_cast<void**>(a) = link;
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
}

TEST(pool_death, destroyed_with_blocks_in_use_reports_how_many) {
  EXPECT_DEATH(
      {
        own::pool_options options;
        options.name = "leaky";
        own::pool pool(32, options);
        static_cast<void>(pool.allocate());
        static_cast<void>(pool.allocate());
      },
      "own: own::pool 'leaky' at 0x[0-9a-f]+: destroyed with blocks still in use: 2");
}

TEST(pool_death, pmr_deallocate_of_a_foreign_block) {
  own::pool pool(32);
  own::pool other(32);
  void* a = other.allocate();
  std::pmr::memory_resource& resource = pool;
  EXPECT_DEATH(resource.deallocate(a, 32, 8), misuse_pattern("own::pool", "", &pool, "another pool", a));
  other.deallocate(a);
}

TEST(pool_death, block_given_back_as_a_large_allocation) {
  own::pool pool(32);
  void* a = pool.allocate();
  std::pmr::memory_resource& resource = pool;
  EXPECT_DEATH(resource.deallocate(a, 64),
               misuse_pattern("own::pool", "", &pool, "deallocate of a 64-byte allocation that lies in this pool's chunks", a));
  own::pool_allocator<long, own::pool> allocator(&pool);
  EXPECT_DEATH(allocator.deallocate(static_cast<long*>(a), 5), misuse_pattern("own::pool", "", &pool, "40-byte allocation", a));
  void* large = resource.allocate(64);  // from upstream, and back there
  resource.deallocate(large, 64);
  pool.deallocate(a);
}

#endif  // OWN_CHECKED

}  // namespace
