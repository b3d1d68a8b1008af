// SPDX-License-Identifier: BSL-1.0
#include <own/pool_allocator.hpp>

#include <own/concurrent_pool.hpp>
#include <own/detail/allocator_adapter.hpp>
#include <own/managed_ptr.hpp>
#include <own/multipool.hpp>
#include <own/pool.hpp>
#include <own/shared_ptr.hpp>

#include <list>
#include <map>
#include <memory>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "block_pool_types.hpp"
#include "pool_test_support.hpp"
#include "test_allocator.hpp"
#include "tracked.hpp"

namespace {

using own_test::allocation_log;
using own_test::test_resource;

template <class T>
using list_allocator = own::pool_allocator<T, own::pool>;

TEST(pool_allocator, header_example) {
  allocation_log log;
  test_resource upstream(&log);
  own::pool pool(32, {}, &upstream);
  std::list<int, own::pool_allocator<int, own::pool>> list{own::pool_allocator<int, own::pool>(&pool)};
  list.push_back(1);
  EXPECT_EQ(pool.statistics().blocks_in_use, 1u);
  const long chunks = log.allocations;
  std::vector<int, own::pool_allocator<int, own::pool>> big(100, 0, list.get_allocator());
  EXPECT_EQ(log.allocations, chunks + 1);  // from upstream
  const own::pool_statistics s = pool.statistics();
  EXPECT_EQ(s.blocks_in_use, 1u);
  EXPECT_EQ(s.upstream_allocations, 1u);
  EXPECT_EQ(s.upstream_bytes_in_use, 400u);
}

TEST(pool_allocator, meets_the_allocator_requirements) {
  using alloc = own::pool_allocator<int, own::pool>;
  using traits = std::allocator_traits<alloc>;
  static_assert(std::is_same_v<traits::value_type, int>);
  static_assert(std::is_same_v<traits::rebind_alloc<double>, own::pool_allocator<double, own::pool>>);
  static_assert(traits::propagate_on_container_copy_assignment::value);
  static_assert(traits::propagate_on_container_move_assignment::value);
  static_assert(traits::propagate_on_container_swap::value);
  static_assert(!traits::is_always_equal::value);
  static_assert(std::is_nothrow_copy_constructible_v<alloc>);
  static_assert(!std::is_default_constructible_v<alloc>);
  own::pool first(16), second(16);
  const alloc a(&first);
  const own::pool_allocator<double, own::pool> rebound(a);
  EXPECT_EQ(rebound.pool(), &first);
  EXPECT_TRUE(a == rebound);
  EXPECT_FALSE(a != rebound);
  EXPECT_TRUE(a != alloc(&second));
  EXPECT_TRUE(alloc(rebound) == a);
}

TEST(pool_allocator, fitting_allocations_use_blocks_others_go_upstream) {
  allocation_log log;
  test_resource upstream(&log);
  own::pool pool(16, {}, &upstream);
  own::pool_allocator<std::uint32_t, own::pool> alloc(&pool);
  std::uint32_t* four = alloc.allocate(4);  // 16 bytes: a block
  EXPECT_EQ(pool.statistics().blocks_in_use, 1u);
  const long chunks = log.allocations;
  std::uint32_t* five = alloc.allocate(5);  // 20 bytes: upstream
  EXPECT_EQ(log.allocations, chunks + 1);
  EXPECT_EQ(pool.statistics().blocks_in_use, 1u);
  EXPECT_EQ(pool.statistics().upstream_allocations, 1u);
  EXPECT_EQ(pool.statistics().upstream_bytes_in_use, 20u);
  alloc.deallocate(five, 5);
  alloc.deallocate(four, 4);
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
  EXPECT_EQ(pool.statistics().upstream_allocations, 1u);  // made since construction
  EXPECT_EQ(pool.statistics().upstream_bytes_in_use, 0u);
  EXPECT_EQ(log.blocks_in_use(), chunks);
  EXPECT_THROW(static_cast<void>(alloc.allocate(std::numeric_limits<std::size_t>::max() / 2)),
               std::bad_array_new_length);
}

// The case: a map's nodes outgrow the pool's blocks, so every node goes upstream; the
// statistics say so instead of showing an idle pool.
TEST(pool_allocator, a_container_that_outgrows_the_blocks_shows_in_the_statistics) {
  allocation_log log;
  test_resource upstream(&log);
  own::pool pool(16, {}, &upstream);
  {
    std::map<int, int, std::less<int>, own::pool_allocator<std::pair<const int, int>, own::pool>> map{
        own::pool_allocator<std::pair<const int, int>, own::pool>(&pool)};
    for (int i = 0; i < 3; ++i) map.emplace(i, i);
    const own::pool_statistics s = pool.statistics();
    EXPECT_EQ(s.blocks_in_use, 0u);
    EXPECT_EQ(s.upstream_allocations, 3u);
    EXPECT_GT(s.upstream_bytes_in_use, 3 * sizeof(std::pair<const int, int>));
    pool.release();  // the nodes are the upstream's: release() leaves them, and their count
    EXPECT_EQ(pool.statistics().upstream_allocations, 3u);
    EXPECT_EQ(pool.statistics().upstream_bytes_in_use, s.upstream_bytes_in_use);
  }
  EXPECT_EQ(pool.statistics().upstream_allocations, 3u);
  EXPECT_EQ(pool.statistics().upstream_bytes_in_use, 0u);
  EXPECT_EQ(log.blocks_in_use(), 0);
}

TEST(pool_allocator, over_aligned_types_go_upstream) {
  struct alignas(64) wide {
    char bytes[16];
  };
  allocation_log log;
  test_resource upstream(&log);
  own::pool pool(64, {}, &upstream);  // 16-byte alignment
  own::pool_allocator<wide, own::pool> alloc(&pool);
  wide* w = alloc.allocate(1);
  EXPECT_TRUE(own_test::is_aligned(w, 64));
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
  EXPECT_EQ(pool.statistics().upstream_bytes_in_use, sizeof(wide));
  EXPECT_EQ(log.blocks_in_use(), 1);
  alloc.deallocate(w, 1);
  EXPECT_EQ(log.blocks_in_use(), 0);
}

TEST(pool_allocator, node_containers_and_propagation) {
  own::pool first(64), second(64);
  using map = std::map<int, int, std::less<int>, own::pool_allocator<std::pair<const int, int>, own::pool>>;
  map a{own::pool_allocator<std::pair<const int, int>, own::pool>(&first)};
  map b{own::pool_allocator<std::pair<const int, int>, own::pool>(&second)};
  for (int i = 0; i < 100; ++i) a[i] = i;
  b[1] = 1;
  EXPECT_EQ(first.statistics().blocks_in_use, 100u);
  EXPECT_EQ(second.statistics().blocks_in_use, 1u);
  a.swap(b);  // the allocators travel with the nodes
  EXPECT_EQ(a.get_allocator().pool(), &second);
  b = a;      // copy assignment propagates: b's old nodes go back to `first`, new ones from `second`
  EXPECT_EQ(first.statistics().blocks_in_use, 0u);
  EXPECT_EQ(second.statistics().blocks_in_use, 2u);
  b = map{own::pool_allocator<std::pair<const int, int>, own::pool>(&first)};
  EXPECT_EQ(second.statistics().blocks_in_use, 1u);
}

TEST(pool_allocator, allocate_shared_style_use_of_a_pool_pointer) {
  // What own's allocating functions do with `&pool`: adapt it, rebind to their block type.
  own::pool pool(64);
  auto alloc = own::detail::adapt_allocator(&pool);
  using block_allocator = own::detail::rebind_alloc_t<decltype(alloc), own_test::tracked>;
  block_allocator blocks(alloc);
  own_test::tracked* t = blocks.allocate(1);
  std::allocator_traits<block_allocator>::construct(blocks, t, 7);
  EXPECT_EQ(t->value(), 7);
  EXPECT_EQ(pool.statistics().blocks_in_use, 1u);
  std::allocator_traits<block_allocator>::destroy(blocks, t);
  blocks.deallocate(t, 1);
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
}

TEST(pool_allocator, with_a_concurrent_pool_across_threads) {
  own::concurrent_pool pool(32);
  using alloc = own::pool_allocator<long, own::concurrent_pool>;
  std::vector<long*> made;
  std::thread maker([&] {
    alloc a(&pool);
    for (int i = 0; i < 1000; ++i) made.push_back(a.allocate(1));
  });
  maker.join();
  EXPECT_EQ(pool.statistics().blocks_in_use, 1000u);
  std::thread freer([&] {
    alloc a(&pool);
    for (long* p : made) a.deallocate(p, 1);
  });
  freer.join();
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
}

TEST(pool_allocator, a_concurrent_pool_counts_every_thread_s_upstream_requests) {
  own::concurrent_pool pool(32);
  using alloc = own::pool_allocator<long, own::concurrent_pool>;
  constexpr int per_thread = 1000;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      alloc a(&pool);
      for (int i = 0; i < per_thread; ++i) a.deallocate(a.allocate(5), 5);  // 40 bytes: upstream
    });
  }
  long* kept = alloc(&pool).allocate(6);
  for (std::thread& t : threads) t.join();
  const own::pool_statistics s = pool.statistics();
  EXPECT_EQ(s.upstream_allocations, 4u * per_thread + 1);
  EXPECT_EQ(s.upstream_bytes_in_use, 6 * sizeof(long));
  EXPECT_EQ(s.blocks_in_use, 0u);
  alloc(&pool).deallocate(kept, 6);
  EXPECT_EQ(pool.statistics().upstream_bytes_in_use, 0u);
}

TEST(pool_allocator, with_a_multipool_picks_the_size_class) {
  own::multipool pool(256);
  own::pool_allocator<char, own::multipool> alloc(&pool);
  char* a = alloc.allocate(10);
  char* b = alloc.allocate(200);
  char* c = alloc.allocate(1000);  // upstream
  EXPECT_EQ(pool.statistics().blocks_in_use, 2u);
  EXPECT_EQ(pool.statistics().upstream_allocations, 1u);
  EXPECT_EQ(pool.statistics().upstream_bytes_in_use, 1000u);
  alloc.deallocate(b, 200);
  char* d = alloc.allocate(193);  // the same class as 200 (224 bytes)
  EXPECT_EQ(d, b);
  alloc.deallocate(a, 10);
  alloc.deallocate(c, 1000);
  alloc.deallocate(d, 193);
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
  EXPECT_EQ(pool.statistics().upstream_bytes_in_use, 0u);
}

#ifdef OWN_CHECKED

TEST(pool_allocator_death, null_pool) {
  using allocator = own::pool_allocator<int, own::pool>;
  EXPECT_DEATH(static_cast<void>(allocator(nullptr)), "own: pool_allocator made with a null pool");
}

#endif  // OWN_CHECKED

}  // namespace

// ---------------------------------------------------------------------------------------------
// A pool pointer passed straight to own's allocating functions takes the pool_allocator fast path:
// the control block (and the housed object) come from the pool and go back to it.

namespace {

template <class Pool>
class pool_pointer_fast_path : public ::testing::Test {};
TYPED_TEST_SUITE(pool_pointer_fast_path, own_test::block_pools, own_test::block_pool_names);

TYPED_TEST(pool_pointer_fast_path, every_allocating_entry_point_uses_the_pool) {
  using own_test::tracked;
  static_assert(std::is_same_v<own::detail::adapted_allocator_t<TypeParam*>, own::pool_allocator<std::byte, TypeParam>>);
  allocation_log log;
  test_resource upstream(&log);
  TypeParam pool(64, {}, &upstream);
  {
    auto a = own::make_shared_object_with_alloc<tracked>(&pool, 1);
    auto b = own::allocate_shared<tracked>(&pool, 2);
    own::shared_ptr<tracked> c(new tracked(3), own::default_deleter(), &pool);
    auto d = own::allocate_managed<tracked>(&pool, 4);
    auto e = own::make_shared_array_with_alloc<int>(&pool, 4);
    own::shared_ptr<tracked> f(own::managed_ptr<tracked>(new tracked(5)), &pool);  // housing block
    own::shared_ptr<tracked> g;
    g.reset(new tracked(6), own::default_deleter(), &pool);
    EXPECT_EQ(pool.statistics().blocks_in_use, 7u);
    EXPECT_EQ(a->value() + b->value() + c->value() + d->value() + e[3] + f->value() + g->value(), 21);
    const long upstream_allocations = log.allocations;
    auto big = own::make_shared_array_with_alloc<int>(&pool, 1000);  // larger than a block: upstream
    EXPECT_EQ(pool.statistics().blocks_in_use, 7u);
    EXPECT_EQ(log.allocations, upstream_allocations + 1);
  }
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
  EXPECT_EQ(tracked::live(), 0);
}

TEST(pool_pointer_fast_path_threads, made_on_one_thread_dropped_on_another) {
  using own_test::tracked;
  own::concurrent_pool pool(64);
  std::vector<own::shared_ptr<tracked>> made;
  for (int i = 0; i < 10000; ++i) made.push_back(own::make_shared_object_with_alloc<tracked>(&pool, i));
  std::thread dropper([batch = std::move(made)]() mutable { batch.clear(); });
  dropper.join();
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
  EXPECT_EQ(tracked::live(), 0);
}

}  // namespace
