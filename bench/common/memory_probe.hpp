// Bytes the C heap holds, from glibc's mallinfo2 (in-use arena bytes plus mmapped chunks). The
// difference over many live objects, divided by their number, is the heap cost of one object,
// allocator headers and padding included. Only meaningful under glibc malloc (not when another
// allocator is preloaded); heap_in_use() returns 0 where mallinfo2 is unavailable.
#pragma once

#include <cstddef>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace own_bench {

inline std::size_t heap_in_use() noexcept {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  const struct mallinfo2 m = mallinfo2();
  return m.uordblks + m.hblkhd;
#else
  return 0;
#endif
}

}  // namespace own_bench
