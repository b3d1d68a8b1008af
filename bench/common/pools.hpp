// SPDX-License-Identifier: BSL-1.0
// Making a pool for a benchmark, whatever its constructor: own's pools take a block size, the
// std::pmr pool resources are default-constructible.
#pragma once

#include <cstddef>
#include <memory>
#include <type_traits>

namespace own_bench {

template <class Pool>
std::unique_ptr<Pool> make_pool(std::size_t block_size) {
  if constexpr (std::is_constructible_v<Pool, std::size_t>)
    return std::make_unique<Pool>(block_size);
  else
    return std::make_unique<Pool>();
}

// One pool per process, shared by every thread of every row that asks for the same type and size;
// never destroyed (rows on other threads may still hold blocks at exit).
template <class Pool, std::size_t BlockSize>
Pool& shared_pool() {
  static Pool* const pool = make_pool<Pool>(BlockSize).release();
  return *pool;
}

}  // namespace own_bench
