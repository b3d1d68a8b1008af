// SPDX-License-Identifier: BSL-1.0
// Tests of <own/pool_options.hpp>: the header's usage example, options as a pool applies them
// (growth is tested with each pool, in pool_test.cpp and concurrent_pool_test.cpp).
#include <own/pool_options.hpp>

#include <own/pool.hpp>

#include <gtest/gtest.h>

#include <vector>

namespace {

TEST(pool_options, header_example) {
  own::pool_options options;
  options.growth = own::pool_growth::constant;  // every chunk holds 64 blocks
  options.initial_chunk_blocks = 64;
  options.name = "messages";  // checked-mode reports name the pool
  own::pool pool(48, options);
  void* p = pool.allocate();
  own::pool_statistics s = pool.statistics();
  EXPECT_EQ(s.blocks_in_use, 1u);
  EXPECT_GE(s.bytes_reserved, 64u * 48);
  EXPECT_EQ(s.chunks, 1u);
  std::vector<void*> more;
  for (int i = 0; i < 64; ++i) more.push_back(pool.allocate());  // the 65th block needs a second chunk
  EXPECT_EQ(pool.statistics().chunks, 2u);
  EXPECT_EQ(pool.statistics().bytes_reserved, 2 * s.bytes_reserved);  // constant growth: same size
  for (void* q : more) pool.deallocate(q);
  pool.deallocate(p);
}

}  // namespace
