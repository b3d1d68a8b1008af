// SPDX-License-Identifier: BSL-1.0
// The two block pools, for typed tests that must hold for both (named "pool" and "concurrent_pool").
#pragma once

#include <string>
#include <type_traits>

#include <gtest/gtest.h>
#include <own/concurrent_pool.hpp>
#include <own/pool.hpp>

namespace own_test {

using block_pools = ::testing::Types<own::pool, own::concurrent_pool>;
struct block_pool_names {
  template <class Pool>
  static std::string GetName(int) {
    return std::is_same_v<Pool, own::pool> ? "pool" : "concurrent_pool";
  }
};

}  // namespace own_test
