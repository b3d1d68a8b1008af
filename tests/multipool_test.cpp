// SPDX-License-Identifier: BSL-1.0
#include <own/multipool.hpp>
#include <own/shared_ptr.hpp>

#include <cstring>
#include <list>
#include <memory_resource>
#include <thread>
#include <unordered_map>
#include <vector>

#include <gtest/gtest.h>
#include <own/detail/allocator_adapter.hpp>

#include "pool_test_support.hpp"
#include "test_allocator.hpp"

namespace {

using own_test::allocation_log;
using own_test::test_resource;

TEST(multipool, header_example) {
  own::multipool pool(256);
  void* p = pool.allocate(24);
  pool.deallocate(p, 24);
  std::pmr::unordered_map<int, int> map(&pool);
  map[1] = 2;
  EXPECT_EQ(map.at(1), 2);
  EXPECT_GE(pool.statistics().blocks_in_use, 1u);
}

TEST(multipool, size_classes) {
  EXPECT_EQ(own::multipool(256).max_block_size(), 256u);
  EXPECT_EQ(own::multipool(200).max_block_size(), 224u);
  EXPECT_EQ(own::multipool(1).max_block_size(), 8u);
  EXPECT_EQ(own::multipool(2049).max_block_size(), 2560u);
  EXPECT_EQ(own::multipool(4097).max_block_size(), 5120u);
  // Four classes per doubling, at most a quarter wasted, up to the largest (2^62).
  for (std::size_t c = 8; c < 200; ++c) {
    const std::size_t size = own::detail::multipool_class_size(c);
    const std::size_t below = own::detail::multipool_class_size(c - 1);
    EXPECT_GT(size, below) << c;
    EXPECT_LE((size - below) * 4, below) << c;
    EXPECT_EQ(own::detail::multipool_class_of(size, 1), c);
    EXPECT_EQ(own::detail::multipool_class_of(below + 1, 1), c);
  }
  EXPECT_EQ(own::detail::multipool_class_size(own::detail::multipool_class_of(own::detail::multipool_size_limit, 1)),
            own::detail::multipool_size_limit);
  EXPECT_EQ(own::detail::ceil_log2(2), 1u);
  EXPECT_EQ(own::detail::ceil_log2(9), 4u);
  EXPECT_EQ(own::detail::ceil_log2(16), 4u);
  EXPECT_EQ(own::detail::ceil_log2(17), 5u);
}

// Two requests share a size class exactly when the second reuses the block the first freed.
TEST(multipool, requests_go_to_the_smallest_class_that_fits) {
  own::multipool pool(1024);
  auto same_class = [&](std::size_t a, std::size_t b) {
    void* p = pool.allocate(a);
    pool.deallocate(p, a);
    void* q = pool.allocate(b);
    pool.deallocate(q, b);
    return p == q;
  };
  EXPECT_TRUE(same_class(1, 8));
  EXPECT_FALSE(same_class(8, 9));
  EXPECT_TRUE(same_class(9, 16));
  EXPECT_TRUE(same_class(17, 24));
  EXPECT_FALSE(same_class(24, 25));
  EXPECT_TRUE(same_class(33, 40));  // not rounded to 64
  EXPECT_TRUE(same_class(81, 96));  // nor to 128
  EXPECT_TRUE(same_class(193, 224));
  EXPECT_FALSE(same_class(224, 225));
  EXPECT_TRUE(same_class(513, 640));
  EXPECT_FALSE(same_class(640, 641));
  // An alignment picks a class whose blocks have it.
  for (std::size_t bytes = 1; bytes <= 1024; bytes = bytes * 3 / 2 + 1) {
    for (std::size_t align : {1, 8, 16}) {
      void* p = pool.allocate(bytes, align);
      std::memset(p, 0xab, bytes);
      EXPECT_TRUE(own_test::is_aligned(p, align < 8 ? 8 : align)) << bytes << " " << align;
      pool.deallocate(p, bytes, align);
    }
  }
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
}

TEST(multipool, large_and_over_aligned_requests_go_upstream) {
  allocation_log log;
  test_resource upstream(&log);
  own::multipool pool(128, {}, &upstream);
  void* small = pool.allocate(100);
  const long chunks = log.allocations;
  void* large = pool.allocate(129);
  EXPECT_EQ(log.allocations, chunks + 1);
  void* aligned = pool.allocate(8, 64);
  EXPECT_EQ(log.allocations, chunks + 2);
  EXPECT_TRUE(own_test::is_aligned(aligned, 64));
  void* aligned16 = pool.allocate(8, 16);  // a 16-byte class block
  EXPECT_EQ(log.allocations, chunks + 3);  // that class's first chunk
  EXPECT_TRUE(own_test::is_aligned(aligned16, 16));
  pool.deallocate(large, 129);
  pool.deallocate(aligned, 8, 64);
  pool.deallocate(aligned16, 8, 16);
  pool.deallocate(small, 100);
  EXPECT_EQ(log.blocks_in_use(), chunks + 1);
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
  EXPECT_EQ(pool.statistics().chunks, 2u);
  pool.release();
  EXPECT_EQ(log.blocks_in_use(), 0);
}

// pool_options::alignment below a class's natural alignment must not break the routing by alignment:
// an upstream that gives exactly the alignment asked for (an arena that starts 8 bytes past a
// 16-byte boundary) shows a class pool that asked for less than its requests need.
template <class Multipool>
void small_option_alignment_still_honours_each_request() {
  struct alignas(16) aligned16 {
    unsigned char bytes[16];
  };
  alignas(64) static unsigned char buffer[1 << 20];  // room for a concurrent pool's magazines too
  std::pmr::monotonic_buffer_resource arena(buffer + 8, sizeof buffer - 8, std::pmr::null_memory_resource());
  own::pool_options options;
  options.alignment = 8;
  Multipool pool(256, options, &arena);
  for (std::size_t bytes = 1; bytes <= 256; bytes += 7) {
    for (std::size_t align : {8, 16}) {
      void* p = pool.allocate(bytes, align);
      EXPECT_TRUE(own_test::is_aligned(p, align)) << bytes << " " << align;
      pool.deallocate(p, bytes, align);
    }
  }
  {
    auto shared = own::allocate_shared<aligned16>(own::pool_allocator<aligned16, Multipool>(&pool));
    EXPECT_TRUE(own_test::is_aligned(shared.get(), 16));
  }
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
}

TEST(multipool, small_option_alignment_still_honours_each_request) {
  small_option_alignment_still_honours_each_request<own::multipool>();
}

TEST(concurrent_multipool, small_option_alignment_still_honours_each_request) {
  small_option_alignment_still_honours_each_request<own::concurrent_multipool>();
}

TEST(multipool, memory_resource_and_pmr_containers) {
  own::multipool pool;
  {
    std::pmr::vector<std::pmr::string> strings(&pool);
    for (int i = 0; i < 1000; ++i) strings.emplace_back(std::string(static_cast<std::size_t>(i % 100), 'x'));
    for (int i = 0; i < 1000; ++i) EXPECT_EQ(strings[static_cast<std::size_t>(i)].size(), static_cast<std::size_t>(i % 100));
    EXPECT_GT(pool.statistics().blocks_in_use, 500u);
  }
  EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
  std::pmr::memory_resource& resource = pool;
  EXPECT_TRUE(resource.is_equal(pool));
  own::multipool other;
  EXPECT_FALSE(resource.is_equal(other));
}

TEST(multipool, declares_its_allocator) {
  static_assert(std::is_same_v<own::detail::adapted_allocator_t<own::multipool*>,
                               own::pool_allocator<std::byte, own::multipool>>);
  static_assert(std::is_same_v<own::detail::adapted_allocator_t<own::concurrent_multipool*>,
                               own::pool_allocator<std::byte, own::concurrent_multipool>>);
  own::multipool pool;
  std::list<int, own::pool_allocator<int, own::multipool>> list{own::pool_allocator<int, own::multipool>(&pool)};
  for (int i = 0; i < 100; ++i) list.push_back(i);
  EXPECT_EQ(pool.statistics().blocks_in_use, 100u);
}

#if defined(__cpp_exceptions)  // (built without exceptions by the language_subsets stage)
TEST(multipool, upstream_failure_leaves_no_leak) {
  allocation_log log;
  test_resource upstream(&log);
  own_test::for_each_failure_point(log, [&] {
    own::multipool pool(64, {}, &upstream);
    std::pmr::vector<std::pmr::vector<int>> vectors(&pool);
    for (int i = 0; i < 50; ++i) vectors.emplace_back(static_cast<std::size_t>(i), i);
  });
}
#endif

TEST(concurrent_multipool, two_threads_with_cross_thread_frees) {
  allocation_log log;
  test_resource upstream(&log);
  {
    own::concurrent_multipool pool(512, {}, &upstream);
    std::vector<std::pair<void*, std::size_t>> made[2];
    auto make = [&](int self) {
      for (std::size_t i = 0; i < 20000; ++i) {
        const std::size_t bytes = 1 + (i * 37) % 700;  // some go upstream
        void* p = pool.allocate(bytes);
        std::memset(p, self, bytes);
        made[self].emplace_back(p, bytes);
      }
    };
    std::thread a(make, 0), b(make, 1);
    a.join();
    b.join();
    auto free_others = [&](int self) {
      for (auto [p, bytes] : made[1 - self]) {
        EXPECT_EQ(*static_cast<unsigned char*>(p), 1 - self);
        pool.deallocate(p, bytes);
      }
    };
    std::thread c(free_others, 0), d(free_others, 1);
    c.join();
    d.join();
    EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
  }
  EXPECT_EQ(log.blocks_in_use(), 0);
}

#ifdef OWN_CHECKED

TEST(multipool_death, freeing_with_the_wrong_size_is_caught_by_the_class_pool) {
  own::multipool pool;
  void* p = pool.allocate(24);  // the 24-byte class
  EXPECT_DEATH(pool.deallocate(p, 64), "own: unnamed own::pool at 0x[0-9a-f]+: .*never handed out");
  pool.deallocate(p, 24);
}

// Too large a size (or alignment) would send the block upstream, which never handed it out as such.
TEST(multipool_death, freeing_a_block_as_a_large_allocation) {
  own::multipool pool(256);
  void* p = pool.allocate(16);
  void* q = pool.allocate(16);
  EXPECT_DEATH(pool.deallocate(p, 1024),
               "own: unnamed own::pool at 0x[0-9a-f]+: deallocate of a 1024-byte allocation that lies in this pool's chunks");
  EXPECT_DEATH(pool.deallocate(q, 16, 64),
               "own: unnamed own::pool at 0x[0-9a-f]+: deallocate of a 16-byte allocation that lies in this pool's chunks");
  std::pmr::memory_resource& resource = pool;
  EXPECT_DEATH(resource.deallocate(p, 300), "own: unnamed own::pool at 0x[0-9a-f]+: deallocate of a 300-byte allocation");
  own::pool_allocator<char, own::multipool> allocator(&pool);
  EXPECT_DEATH(allocator.deallocate(static_cast<char*>(q) + 8, 4096),
               "own: unnamed own::pool at 0x[0-9a-f]+: deallocate of a 4096-byte");
  void* large = pool.allocate(1024);  // a real large allocation still goes upstream
  pool.deallocate(large, 1024);
  pool.deallocate(p, 16);
  pool.deallocate(q, 16);
}

TEST(concurrent_multipool_death, freeing_a_block_as_a_large_allocation) {
  own::concurrent_multipool pool(256);
  void* p = pool.allocate(100);
  EXPECT_DEATH(pool.deallocate(p, 1024),
               "own: unnamed own::concurrent_pool at 0x[0-9a-f]+: deallocate of a 1024-byte allocation that lies in this pool's chunks");
  pool.deallocate(p, 100);
}

#endif  // OWN_CHECKED

}  // namespace
