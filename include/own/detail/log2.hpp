// SPDX-License-Identifier: BSL-1.0
// Integer base-2 logarithms, for size classes and index ranges.
#pragma once

#include <climits>
#include <cstddef>

namespace own::detail {

// The largest k with 2^k <= n. Precondition: n >= 1.
inline std::size_t floor_log2(std::size_t n) noexcept {
#if defined(__GNUC__)
  return static_cast<std::size_t>(sizeof(unsigned long long) * CHAR_BIT - 1 - static_cast<std::size_t>(__builtin_clzll(n)));
#else
  std::size_t k = 0;
  while (n >>= 1) ++k;
  return k;
#endif
}

// The smallest k with 2^k >= n. Precondition: n >= 2.
inline std::size_t ceil_log2(std::size_t n) noexcept { return floor_log2(n - 1) + 1; }

}  // namespace own::detail
