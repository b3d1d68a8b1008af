// SPDX-License-Identifier: BSL-1.0
// Helpers shared by the pool tests.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>
#include <own/pool_options.hpp>

namespace own_test {

inline bool is_aligned(const void* p, std::size_t alignment) {
  return reinterpret_cast<std::uintptr_t>(p) % alignment == 0;
}

// The checked-mode report for `what` about `address` by the pool of `kind` named `name` ("": an
// unnamed pool) at `pool`, as a regex (pointers print as hex digits, which need no escaping).
inline std::string misuse_pattern(const char* kind, const char* name, const void* pool, const char* what,
                                  const void* address) {
  char buffer[256];
  if (*name) {
    std::snprintf(buffer, sizeof buffer, "own: %s '%s' at %p: .*%s.*: %p", kind, name, pool, what, address);
  } else {
    std::snprintf(buffer, sizeof buffer, "own: unnamed %s at %p: .*%s.*: %p", kind, pool, what, address);
  }
  return buffer;
}

inline void expect_equal(const own::pool_statistics& actual, const own::pool_statistics& expected) {
  EXPECT_EQ(actual.blocks_in_use, expected.blocks_in_use);
  EXPECT_EQ(actual.high_water_mark, expected.high_water_mark);
  EXPECT_EQ(actual.bytes_reserved, expected.bytes_reserved);
  EXPECT_EQ(actual.chunks, expected.chunks);
  EXPECT_EQ(actual.upstream_allocations, expected.upstream_allocations);
  EXPECT_EQ(actual.upstream_bytes_in_use, expected.upstream_bytes_in_use);
}

}  // namespace own_test
