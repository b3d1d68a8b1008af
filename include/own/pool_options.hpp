// SPDX-License-Identifier: BSL-1.0
/// @file
/// Options and statistics shared by own's block pools (own::pool, own::concurrent_pool and the
/// multipools): how a pool grows when it goes upstream for more memory, and what it reports.
///
/// Usage:
///
///     own::pool_options options;
///     options.growth = own::pool_growth::constant;  // every chunk holds 64 blocks
///     options.initial_chunk_blocks = 64;
///     options.name = "messages";                    // checked-mode reports name the pool
///     own::pool pool(48, options);
///     void* p = pool.allocate();
///     own::pool_statistics s = pool.statistics();   // s.blocks_in_use == 1, s.bytes_reserved >= 64 * 48
///     pool.deallocate(p);
#pragma once

#include "detail/cxx17_required.hpp"  // first, so that C++14 gets one error, not hundreds

#include <cstddef>

namespace own {

/// The unit of memory of a pool made with pool_options::findable_by_address: a span, aligned to its
/// size, that starts with the address of the pool, so that the pool is found from any of its blocks by
/// masking the block's address (the way own's default heap finds a page).
inline constexpr std::size_t pool_span = std::size_t{1} << 16;

/// How a pool sizes the chunks it takes from upstream.
enum class pool_growth {
  /// Each chunk twice the previous one, up to max_chunk_blocks.
  geometric,  // each chunk twice the previous one, up to max_chunk_blocks
  /// Every chunk holds initial_chunk_blocks.
  constant,   // every chunk holds initial_chunk_blocks
};

/// How a block pool grows and what it is called; the constructors of pool, concurrent_pool and the
/// multipools take one.
struct pool_options {
  /// Geometric (the default) or constant chunk sizes.
  pool_growth growth = pool_growth::geometric;
  std::size_t initial_chunk_blocks = 16;  ///< blocks in the first chunk (0 counts as 1)
  std::size_t max_chunk_blocks = 4096;    ///< where geometric growth stops
  /// Block alignment, a power of two; 0: the largest power of two dividing the block size, at most
  /// alignof(std::max_align_t).
  std::size_t alignment = 0;
  /// concurrent pools: blocks per thread-cache magazine (a thread keeps at most two); 0: chosen from
  /// the block size (256 for blocks up to 256 bytes, then fewer: 64 KiB per magazine). There is no
  /// "no limit" value: the pool's constructor throws std::bad_alloc if a magazine's size in bytes
  /// (a pointer per block, plus one) does not fit a std::size_t, and a magazine too large for
  /// upstream makes a thread's first allocate() throw what upstream throws.
  std::size_t thread_cache_blocks = 0;
  /// Shown in checked-mode reports ("own::pool 'name' at 0x…"; without one, "unnamed own::pool at
  /// 0x…"); not copied, must outlive the pool.
  const char* name = nullptr;
  /// Whether the pool can be found from its blocks' addresses, so that own::addressed_pool_allocator
  /// can draw from it and own's control blocks then keep no pointer to the pool. Chunks are then runs of
  /// own::pool_span spans, aligned to a span: 1, 2, 4 ... up to 16 spans per upstream request with
  /// geometric growth, one with constant growth (initial_chunk_blocks and max_chunk_blocks are
  /// ignored). Upstream must honour the alignment (every std::pmr resource does; a monotonic arena pads
  /// up to a span per chunk), and the pool's constructor throws std::invalid_argument if a block does
  /// not fit in a span beside the span's header.
  bool findable_by_address = false;
};

/// What a block pool reports: statistics() of pool, concurrent_pool and the multipools.
struct pool_statistics {
  std::size_t blocks_in_use = 0;  ///< handed out and not yet returned
  /// Peak number of blocks ever taken out of chunks since construction or release(). For own::pool
  /// it is the peak of blocks_in_use; a concurrent pool also counts blocks parked in thread caches.
  std::size_t high_water_mark = 0;
  std::size_t bytes_reserved = 0;  ///< bytes of all chunks obtained from upstream
  /// Chunks obtained from upstream and not yet returned.
  std::size_t chunks = 0;
  /// Requests that no block fits (larger than a block, or aligned beyond it; for a multipool, beyond
  /// its largest class), which own::pool_allocator and the memory_resource interface pass to the
  /// upstream resource: how many were made since construction. release() leaves this and the next
  /// count alone, as it leaves those allocations alone: they are the upstream's.
  std::size_t upstream_allocations = 0;
  /// Bytes of those requests not yet deallocated.
  std::size_t upstream_bytes_in_use = 0;
};

}  // namespace own
