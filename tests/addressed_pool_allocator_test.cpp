// SPDX-License-Identifier: BSL-1.0
#include <own/addressed_pool_allocator.hpp>

#include <own/concurrent_pool.hpp>
#include <own/local_shared_ptr.hpp>
#include <own/managed_ptr.hpp>
#include <own/multipool.hpp>
#include <own/pool.hpp>
#include <own/shared_ptr.hpp>

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "pool_test_support.hpp"
#include "test_allocator.hpp"
#include "tracked.hpp"

namespace {

using own_test::allocation_log;
using own_test::test_resource;
using own_test::tracked;

own::pool_options findable() {
  own::pool_options options;
  options.findable_by_address = true;
  return options;
}

TEST(addressed_pool_allocator, header_example) {
  struct order {
    long id;
    double price;
  };
  using alloc = own::addressed_pool_allocator<order, own::pool>;
  own::pool_options options;
  options.findable_by_address = true;
  own::pool pool(own::housed_block_size<order, alloc>, options);
  own::shared_ptr<order> p = own::allocate_shared<order>(alloc(&pool), order{1, 2.5});
  static_assert(own::housed_block_size<order, alloc> ==
                own::housed_block_size<order, own::pool_allocator<order, own::pool>> - 8);
  EXPECT_EQ(p->id, 1);
  EXPECT_EQ(p->price, 2.5);
  EXPECT_EQ(pool.statistics().blocks_in_use, 1u);
  p.reset();
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
}

TEST(addressed_pool_allocator, meets_the_allocator_requirements) {
  using alloc = own::addressed_pool_allocator<int, own::pool>;
  using traits = std::allocator_traits<alloc>;
  static_assert(std::is_same_v<traits::value_type, int>);
  static_assert(std::is_same_v<traits::rebind_alloc<double>, own::addressed_pool_allocator<double, own::pool>>);
  static_assert(traits::propagate_on_container_copy_assignment::value);
  static_assert(!traits::is_always_equal::value);
  static_assert(std::is_nothrow_copy_constructible_v<alloc>);
  static_assert(!std::is_default_constructible_v<alloc>);
  own::pool first(16, findable()), second(16, findable());
  alloc a(&first);
  const own::addressed_pool_allocator<double, own::pool> rebound(a);
  EXPECT_TRUE(a == rebound);
  EXPECT_TRUE((a == own::pool_allocator<long, own::pool>(&first)));  // the same pool: interchangeable
  EXPECT_TRUE(a != alloc(&second));
  int* p = a.allocate(1);
  *p = 7;
  a.deallocate(p, 1);
  EXPECT_EQ(first.statistics().blocks_in_use, 0u);
}

// Control blocks keep no allocator: every kind is smaller by the pool pointer pool_allocator keeps.
TEST(addressed_pool_allocator, blocks_hold_no_pool_pointer) {
  using addressed = own::addressed_pool_allocator<int, own::concurrent_pool>;
  using pointer = own::pool_allocator<int, own::concurrent_pool>;
  static_assert(own::housed_block_size<std::uint64_t, addressed> + sizeof(void*) ==
                own::housed_block_size<std::uint64_t, pointer>);
  static_assert(own::local_housed_block_size<std::uint64_t, addressed> + sizeof(void*) ==
                own::local_housed_block_size<std::uint64_t, pointer>);
  static_assert(own::housed_block_size<std::uint64_t, addressed> == own::housed_block_size<std::uint64_t>,
                "as small as the default heap's, whose allocator is empty");
}

TEST(addressed_pool_allocator, refuses_a_pool_that_is_not_findable) {
  own::pool plain(32);
  EXPECT_THROW((own::addressed_pool_allocator<int, own::pool>(&plain)), std::invalid_argument);
  own::concurrent_multipool multi(256);
  EXPECT_THROW((own::addressed_pool_allocator<int, own::concurrent_multipool>(&multi)), std::invalid_argument);
  EXPECT_FALSE(plain.findable_by_address());
  EXPECT_FALSE(multi.findable_by_address());
}

TEST(addressed_pool_allocator, refuses_blocks_too_large_for_a_span) {
  EXPECT_THROW(own::pool(own::pool_span, findable()), std::invalid_argument);
  EXPECT_THROW(own::concurrent_pool(own::pool_span - 8, findable()), std::invalid_argument);
  EXPECT_THROW(own::multipool(own::pool_span, findable()), std::invalid_argument);
  own::pool largest(own::pool_span / 2, findable());  // one block per span: the header takes the rest
  void* p = largest.allocate();
  EXPECT_EQ((own::addressed_pool_allocator<char, own::pool>::from_address(p).pool()), &largest);
  largest.deallocate(p);
}

// A request no block fits throws, and nothing goes upstream: upstream memory holds no pool address.
TEST(addressed_pool_allocator, a_request_no_block_fits_throws_bad_alloc) {
  allocation_log log;
  test_resource upstream(&log);
  own::pool pool(32, findable(), &upstream);
  own::addressed_pool_allocator<char, own::pool> a(&pool);
  EXPECT_THROW((void)a.allocate(33), std::bad_alloc);
  struct big {
    char bytes[64];
  };
  EXPECT_THROW(own::allocate_shared<big>(a), std::bad_alloc);
  EXPECT_EQ(log.allocations, 0);
  EXPECT_EQ(pool.statistics().upstream_allocations, 0u);

  own::multipool multi(128, findable(), &upstream);
  own::addressed_pool_allocator<char, own::multipool> m(&multi);
  EXPECT_THROW((void)m.allocate(129), std::bad_alloc);
  char* fits = m.allocate(128);
  EXPECT_EQ(multi.statistics().blocks_in_use, 1u);
  m.deallocate(fits, 128);
  EXPECT_EQ(multi.statistics().upstream_allocations, 0u);
}

// Upstream sees only runs of whole spans, aligned to a span (besides a concurrent pool's magazines).
class span_resource : public std::pmr::memory_resource {
 public:
  explicit span_resource(allocation_log* log) : log_(log) {}
  std::vector<std::size_t> runs;  // spans per request

 private:
  void* do_allocate(std::size_t bytes, std::size_t align) override {
    if (bytes % own::pool_span == 0) {
      EXPECT_EQ(align, own::pool_span);
      runs.push_back(bytes / own::pool_span);
    }
    return log_->allocate(bytes, align);
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t align) override { log_->deallocate(p, bytes, align); }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override { return this == &other; }
  allocation_log* log_;
};

// Every block, in every span of every run, leads back to the pool from its first and last byte.
template <class Pool>
void expect_found_in_spans(Pool& pool, std::size_t bytes, span_resource& upstream) {
  const std::size_t requests_before = upstream.runs.size();
  own::addressed_pool_allocator<char, Pool> a(&pool);
  std::vector<char*> blocks;
  for (int i = 0; i < 5000; ++i) {
    char* p = a.allocate(bytes);
    p[0] = 1;
    p[bytes - 1] = 2;
    const auto span = reinterpret_cast<std::uintptr_t>(p) & ~(own::pool_span - 1);
    EXPECT_EQ((reinterpret_cast<std::uintptr_t>(p) + bytes - 1) & ~(own::pool_span - 1), span) << "a block crosses a span";
    EXPECT_EQ((own::addressed_pool_allocator<char, Pool>::from_address(p).pool()), &pool);
    EXPECT_EQ((own::addressed_pool_allocator<char, Pool>::from_address(p + bytes - 1).pool()), &pool);
    blocks.push_back(p);
  }
  EXPECT_GE(upstream.runs.size() - requests_before, 2u) << "the blocks come from more than one upstream request";
  EXPECT_EQ(pool.statistics().bytes_reserved % own::pool_span, 0u);
  for (char* p : blocks) a.deallocate(p, bytes);
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
}

TEST(addressed_pool_allocator, every_pool_finds_itself_from_its_blocks) {
  allocation_log log;
  span_resource upstream(&log);
  {
    own::pool pool(40, findable(), &upstream);
    expect_found_in_spans(pool, 40, upstream);
  }
  {
    own::pool_options aligned = findable();
    aligned.alignment = 64;
    own::pool pool(100, aligned, &upstream);
    expect_found_in_spans(pool, 100, upstream);
  }
  {
    own::pool_options page_aligned = findable();
    page_aligned.alignment = 4096;
    own::pool pool(4096, page_aligned, &upstream);  // 14 blocks a span: its header word takes a block's room
    expect_found_in_spans(pool, 4096, upstream);
  }
  {
    own::concurrent_pool pool(24, findable(), &upstream);
    expect_found_in_spans(pool, 24, upstream);
  }
  {
    own::multipool pool(512, findable(), &upstream);
    expect_found_in_spans(pool, 200, upstream);
  }
  {
    own::concurrent_multipool pool(512, findable(), &upstream);
    expect_found_in_spans(pool, 56, upstream);
  }
  EXPECT_EQ(log.blocks_in_use(), 0);
}

// Geometric growth asks upstream for runs of 1, 2, 4 ... 16 spans (so that an upstream which pads
// aligned requests, as glibc's does, pads less per span), constant growth for one span at a time;
// every run goes back in one piece.
TEST(addressed_pool_allocator, spans_come_in_runs_that_grow) {
  for (const own::pool_growth growth : {own::pool_growth::geometric, own::pool_growth::constant}) {
    allocation_log log;
    span_resource upstream(&log);
    {
      own::pool_options options = findable();
      options.growth = growth;
      own::pool pool(4096, options, &upstream);  // 15 blocks a span
      std::vector<void*> blocks;
      for (int i = 0; i < 15 * 40; ++i) blocks.push_back(pool.allocate());
      const std::vector<std::size_t> expected = growth == own::pool_growth::geometric
                                                    ? std::vector<std::size_t>{1, 2, 4, 8, 16, 16}
                                                    : std::vector<std::size_t>(40, 1);
      EXPECT_EQ(upstream.runs, expected);
      EXPECT_EQ(pool.statistics().chunks, expected.size());
      EXPECT_EQ(pool.statistics().bytes_reserved, log.bytes_in_use.load());
      for (void* b : blocks) pool.deallocate(b);
      pool.release();
      EXPECT_EQ(log.blocks_in_use(), 0);
      for (int i = 0; i < 20; ++i) blocks[i] = pool.allocate();  // after release(), growth starts over
      EXPECT_EQ(upstream.runs.size(), expected.size() + 2);
      for (int i = 0; i < 20; ++i) pool.deallocate(blocks[i]);
    }
    EXPECT_EQ(log.blocks_in_use(), 0);
  }
}

// Every control block kind, through every path that stores an allocator, goes back to its pool.
TEST(addressed_pool_allocator, every_control_block_returns_to_its_pool) {
  allocation_log log;
  test_resource upstream(&log);
  own::concurrent_multipool pool(1024, findable(), &upstream);
  using alloc = own::addressed_pool_allocator<int, own::concurrent_multipool>;
  const alloc a(&pool);
  const long live = tracked::live();
  {
    own::shared_ptr<tracked> housed = own::allocate_shared<tracked>(a, 1);
    own::shared_ptr<tracked[]> array = own::allocate_shared<tracked[]>(a, 3, tracked(2));
    own::shared_ptr<tracked[4]> fixed = own::allocate_shared<tracked[4]>(a);
    own::shared_ptr<tracked> adopted(new tracked(3), std::default_delete<tracked>(), a);
    own::managed_ptr<tracked> managed = own::allocate_managed<tracked>(a, 4);
    own::shared_ptr<tracked> from_managed(own::managed_ptr<tracked>(std::unique_ptr<tracked>(new tracked(5))), a);
    own::local_shared_ptr<tracked> local = own::allocate_local_shared<tracked>(a, 6);
    own::local_shared_ptr<tracked[]> local_array = own::allocate_local_shared<tracked[]>(a, 2, tracked(7));
    own::shared_ptr<tracked> overwrite = own::allocate_shared_for_overwrite<tracked>(a);
    EXPECT_EQ(housed->value(), 1);
    EXPECT_EQ(array[2].value(), 2);
    EXPECT_EQ(adopted->value(), 3);
    EXPECT_EQ(managed->value(), 4);
    EXPECT_EQ(from_managed->value(), 5);
    EXPECT_EQ(local->value(), 6);
    EXPECT_EQ(local_array[1].value(), 7);
    EXPECT_EQ(pool.statistics().blocks_in_use, 9u);
    own::weak_ptr<tracked> outlives = housed;
    housed.reset();
    EXPECT_EQ(pool.statistics().blocks_in_use, 9u) << "the weak reference keeps the block";
    outlives.reset();
    EXPECT_EQ(pool.statistics().blocks_in_use, 8u);
  }
  EXPECT_EQ(tracked::live(), live);
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
  EXPECT_EQ(pool.statistics().upstream_allocations, 0u);
}

// BDE's exception test: the Nth upstream allocation throws, for every N; nothing is left behind, and
// the pool is as it was.
TEST(addressed_pool_allocator, strong_under_every_failing_allocation) {
  using alloc = own::addressed_pool_allocator<tracked, own::pool>;
  allocation_log log;
  test_resource upstream(&log);
  const int runs = own_test::for_each_failure_point(log, [&] {
    own::pool pool(own::housed_block_size<tracked, alloc>, findable(), &upstream);
    own::shared_ptr<tracked> first = own::allocate_shared<tracked>(alloc(&pool), 1);
    // reserve() takes every span it needs or none.
    const own::pool_statistics before = pool.statistics();
    try {
      pool.reserve(5000);
    } catch (...) {
      own_test::expect_equal(pool.statistics(), before);
      throw;
    }
    EXPECT_GE(pool.statistics().bytes_reserved, 3 * own::pool_span);
    own::shared_ptr<tracked> second = own::allocate_shared<tracked>(alloc(&pool), 2);
    EXPECT_EQ(pool.statistics().chunks, before.chunks + 1) << "reserve() asked upstream once, for two spans";
  });
  EXPECT_EQ(runs, 3);  // the first span, then the run of two that reserve() adds
}

// An upstream that ignores alignment is caught before a block could lead to a wrong pool.
TEST(addressed_pool_allocator, an_upstream_ignoring_alignment_is_refused) {
  class misaligning : public std::pmr::memory_resource {
    // 16 bytes past an address aligned as asked: never aligned so.
    void* do_allocate(std::size_t bytes, std::size_t align) override {
      return static_cast<char*>(::operator new(bytes + 16, std::align_val_t(align))) + 16;
    }
    void do_deallocate(void* p, std::size_t, std::size_t align) override {
      ::operator delete(static_cast<char*>(p) - 16, std::align_val_t(align));
    }
    bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override { return this == &other; }
  } upstream;
  own::pool pool(32, findable(), &upstream);
  EXPECT_THROW((void)pool.allocate(), std::invalid_argument);
  EXPECT_EQ(pool.statistics().chunks, 0u);
}

// A block made on one thread and dropped on another finds its pool there (TSan sees the hand-off).
TEST(addressed_pool_allocator, blocks_dropped_on_other_threads) {
  own::concurrent_pool pool(own::housed_block_size<int, own::addressed_pool_allocator<int, own::concurrent_pool>>,
                            findable());
  const own::addressed_pool_allocator<int, own::concurrent_pool> a(&pool);
  std::vector<own::shared_ptr<int>> made;
  for (int i = 0; i < 20000; ++i) made.push_back(own::allocate_shared<int>(a, i));
  std::thread dropper([&] {
    long sum = 0;
    for (auto& p : made) sum += *p;
    made.clear();
    EXPECT_EQ(sum, 20000L * 19999 / 2);
  });
  dropper.join();
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
}

}  // namespace
