// SPDX-License-Identifier: BSL-1.0
/// @file
/// own::multipool and own::concurrent_multipool: general-purpose allocation in size classes up to a
/// configurable maximum, each class an own::pool (or own::concurrent_pool, for the thread-safe
/// variant); larger or over-aligned requests go to the upstream resource. The classes are the default
/// heap's (<own/heap.hpp>): 8, 16, 24, ... 64 bytes, then four per doubling (80, 96, 112, 128, 160, ...),
/// so a block wastes at most a quarter of its size. The pool_options apply to every class, and
/// options.alignment is a minimum: a class's blocks keep the alignment that requests are routed by
/// (the largest power of two dividing the class size, up to alignof(std::max_align_t)), so a block
/// has the alignment it was asked for whatever the option and the upstream. Call them directly (allocate(bytes) /
/// deallocate(p, bytes), no virtual call), as a std::pmr::memory_resource, or through
/// own::pool_allocator.
///
/// Usage:
///
///     own::multipool pool(256);                    // classes 8 ... 256
///     void* p = pool.allocate(24);                 // a 24-byte block (40 bytes: 40, 100 bytes: 112)
///     pool.deallocate(p, 24);                      // the size must be given back
///     std::pmr::unordered_map<int, int> map(&pool);  // nodes from the pool, buckets upstream if large
///     map[1] = 2;
#pragma once

#include "detail/cxx17_required.hpp"  // first, so that C++14 gets one error, not hundreds

#include <cstddef>
#include <memory_resource>

#include "concurrent_pool.hpp"
#include "detail/basic_multipool.hpp"
#include "pool.hpp"
#include "pool_allocator.hpp"
#include "pool_options.hpp"

namespace own {

/// Single-threaded.
class multipool : public detail::basic_multipool<pool> {
 public:
  /// The allocator that reaches this multipool with no virtual call.
  using allocator_type = pool_allocator<std::byte, multipool>;

  /// Throws std::bad_alloc, or std::invalid_argument for a bad options.alignment (or, with
  /// options.findable_by_address, a max_block_size too large for an own::pool_span).
  explicit multipool(std::size_t max_block_size = 1024, const pool_options& options = {},
                     std::pmr::memory_resource* upstream = std::pmr::get_default_resource())
      : basic_multipool(max_block_size, options, upstream, this) {}
};

/// Thread-safe; a block may be freed on any thread. `upstream` must be thread-safe.
class concurrent_multipool : public detail::basic_multipool<concurrent_pool> {
 public:
  /// The allocator that reaches this multipool with no virtual call.
  using allocator_type = pool_allocator<std::byte, concurrent_multipool>;

  /// Throws std::bad_alloc, or std::invalid_argument for a bad options.alignment (or, with
  /// options.findable_by_address, a max_block_size too large for an own::pool_span).
  explicit concurrent_multipool(std::size_t max_block_size = 1024, const pool_options& options = {},
                                std::pmr::memory_resource* upstream = std::pmr::get_default_resource())
      : basic_multipool(max_block_size, options, upstream, this) {}
};

}  // namespace own
