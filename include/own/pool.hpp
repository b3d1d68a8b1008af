// SPDX-License-Identifier: BSL-1.0
/// @file
/// own::pool: a single-threaded pool of fixed-size blocks. allocate() and deallocate() are O(1): they
/// pop and push an intrusive free list, and only go upstream when every chunk is used up. Chunks grow
/// geometrically or stay constant (pool_options) and go back upstream at release() or destruction.
/// The pool is also a std::pmr::memory_resource: requests that fit a block are served from the pool,
/// the others go upstream, so std::pmr containers can use it; own::pool_allocator reaches it with no
/// virtual call (and allocate_shared(&pool, ...) uses that allocator).
///
/// Usage:
///
///     own::pool pool(64);                        // 64-byte blocks, from the default resource
///     void* a = pool.allocate();
///     void* b = pool.allocate();
///     pool.deallocate(a);
///     void* c = pool.allocate();                 // c == a: the last block freed is reused first
///     std::pmr::vector<int> v({1, 2, 3}, &pool);  // 12 bytes: one block
///     // pool.statistics().blocks_in_use == 3
///     pool.deallocate(b);
///     pool.deallocate(c);
///
/// Not thread-safe: use own::concurrent_pool to share a pool between threads.
#pragma once

#include "detail/cxx17_required.hpp"  // first, so that C++14 gets one error, not hundreds

#include <cstddef>
#include <cstdint>
#include <memory_resource>

#include "detail/block_resource.hpp"
#include "detail/chunk_store.hpp"
#include "detail/free_list.hpp"
#include "detail/slow_path.hpp"
#include "pool_allocator.hpp"
#include "pool_options.hpp"

namespace own {

/// A pool of fixed-size blocks for one thread, and a std::pmr::memory_resource (see the file
/// documentation).
class pool : public detail::block_resource<pool> {
 public:
  /// The allocator that reaches this pool with no virtual call (allocate_shared(&pool, ...) uses it).
  using allocator_type = pool_allocator<std::byte, pool>;

  /// Blocks of at least `block_size` bytes (rounded up to a multiple of the alignment, and to at least
  /// a pointer). No memory is taken until the first allocation or reserve(). Throws
  /// std::invalid_argument if options.alignment is not 0 or a power of two, and std::bad_alloc if the
  /// rounded-up block size does not fit a std::size_t.
  /// With options.findable_by_address, also std::invalid_argument if a block does not fit a span.
  explicit pool(std::size_t block_size, pool_options options = {},
                std::pmr::memory_resource* upstream = std::pmr::get_default_resource())
      : pool(block_size, options, upstream, detail::found_at{this}) {}
  /// As above, for a multipool's size class: spans name `found.address` (the multipool) rather than
  /// this pool.
  pool(std::size_t block_size, const pool_options& options, std::pmr::memory_resource* upstream, detail::found_at found)
      : chunks_(detail::block_geometry::make(block_size, sizeof(detail::free_block), options.alignment), options,
                upstream, "own::pool", this, found.address) {}
  pool(const pool&) = delete;
  pool& operator=(const pool&) = delete;
  /// Returns every chunk upstream. Checked mode: aborts, with the count, if blocks are still in use.
  ~pool() override {
#ifdef OWN_CHECKED
    if (const std::size_t in_use = blocks_in_use()) chunks_.misuse("destroyed with blocks still in use", in_use);
#endif
  }

  /// A block of block_size() bytes aligned to block_alignment(). Throws what upstream throws when a
  /// new chunk is needed; the pool is then unchanged.
  /// A findable_by_address pool throws std::invalid_argument if upstream returns a span that is not
  /// aligned as asked.
  [[nodiscard]] void* allocate() {
    if (detail::free_block* block = free_) {
      chunks_.on_allocate(block);  // first: a corrupted link is refused before the pool follows it
      free_ = next_of(block);
      return block;
    }
    return allocate_from_chunks();
  }

  /// Precondition: `block` came from allocate() of this pool and was not freed since (checked mode
  /// aborts with a message otherwise).
  void deallocate(void* block) noexcept {
    chunks_.on_deallocate(block);
    free_ = detail::link_block(block, encode(free_));
  }

  /// The memory_resource calls stay available beside the block calls: a request that fits a block
  /// (bytes <= block_size(), alignment <= block_alignment()) takes one, the others go upstream.
  using std::pmr::memory_resource::allocate;
  using std::pmr::memory_resource::deallocate;

  /// Makes sure the next `blocks` calls of allocate() need no upstream allocation: at most one chunk
  /// is added (for a findable_by_address pool, as many spans as hold them). Throws what upstream throws; the pool is then unchanged. O(free blocks).
  void reserve(std::size_t blocks) {
    const std::size_t available = free_count() + chunks_.uncarved();
    if (available < blocks) chunks_.grow(blocks - available);
  }

  /// Returns every chunk upstream: all blocks become invalid, statistics restart from zero.
  void release() noexcept {
    free_ = nullptr;
    chunks_.release();
  }

  /// The size of every block, as rounded up at construction.
  std::size_t block_size() const noexcept { return chunks_.block_size(); }
  /// The alignment of every block.
  std::size_t block_alignment() const noexcept { return chunks_.block_alignment(); }
  /// Whether the pool was made findable_by_address (pool_options), for own::addressed_pool_allocator.
  bool findable_by_address() const noexcept { return chunks_.findable_by_address(); }
  /// Where chunks, and requests larger than a block, come from.
  std::pmr::memory_resource* upstream_resource() const noexcept { return chunks_.upstream(); }

  /// O(free blocks): the pool keeps no count of blocks in use, because a counter updated on every
  /// call would lengthen the fast path's dependency chain by half (blocks in use = blocks carved out of
  /// chunks - blocks on the free list). The high-water mark is the number of blocks carved: the pool
  /// only carves when its free list is empty, that is when every carved block is in use.
  pool_statistics statistics() const noexcept {
    return {blocks_in_use(), chunks_.carved(), chunks_.bytes_reserved(), chunks_.chunks(),
            upstream_requests().allocations(), upstream_requests().bytes_in_use()};
  }

 private:
  OWN_NOINLINE void* allocate_from_chunks() {
    void* block = chunks_.carve();
    if (!block) {
      chunks_.grow();
      block = chunks_.carve();
    }
    chunks_.on_allocate(block);
    return block;
  }

  friend class detail::block_resource<pool>;
  const detail::chunk_store& chunk_memory() const noexcept { return chunks_; }

  // Checked mode stores each free-list link xor-ed with an odd key, so that a free block's first word
  // overwritten after the block was freed (with zero, the commonest value, or most others) decodes
  // to an address that is no block of the pool, which the chunk store refuses before the pool
  // follows it. The key is 0 otherwise: the link is stored as is, and both calls compile to nothing.
  std::uintptr_t link_key() const noexcept {
#ifdef OWN_CHECKED
    return reinterpret_cast<std::uintptr_t>(this) | 1;
#else
    return 0;
#endif
  }
  detail::free_block* encode(detail::free_block* next) const noexcept {
    return reinterpret_cast<detail::free_block*>(reinterpret_cast<std::uintptr_t>(next) ^ link_key());
  }
  detail::free_block* next_of(const detail::free_block* block) const noexcept { return encode(block->next); }

  std::size_t free_count() const noexcept {
    std::size_t n = 0;
    for (const detail::free_block* b = free_; b; b = next_of(b)) {
      chunks_.on_free_list(b);
      ++n;
    }
    return n;
  }
  std::size_t blocks_in_use() const noexcept { return chunks_.carved() - free_count(); }

  detail::free_block* free_ = nullptr;
  detail::chunk_store chunks_;
};

}  // namespace own
