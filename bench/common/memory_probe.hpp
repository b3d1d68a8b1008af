// SPDX-License-Identifier: BSL-1.0
// Bytes the heaps hold: glibc's, from mallinfo2 (in-use arena bytes plus mmapped chunks), and own's
// default heap, from its statistics (pages held, so a page's unused tail counts too). The difference
// over many live objects, divided by their number, is the heap cost of one object, allocator headers,
// size-class rounding and padding included. The glibc part is only meaningful under glibc malloc (not
// when another allocator is preloaded), and is 0 where mallinfo2 is unavailable.
#pragma once

#include <cstddef>
#if defined(__GLIBC__)
#include <malloc.h>
#endif
#if __has_include(<own/heap.hpp>)
#include <own/heap.hpp>
#endif

namespace own_bench {

inline std::size_t heap_in_use() noexcept {
  std::size_t bytes = 0;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  const struct mallinfo2 m = mallinfo2();
  bytes += m.uordblks + m.hblkhd;
#endif
#if __has_include(<own/heap.hpp>)
  bytes += own::heap::current_statistics().in_use_bytes;
#endif
  return bytes;
}

}  // namespace own_bench
