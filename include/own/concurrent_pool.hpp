// SPDX-License-Identifier: BSL-1.0
/// @file
/// own::concurrent_pool: a thread-safe pool of fixed-size blocks with the interface of own::pool.
/// Each thread keeps a small cache of the pool's blocks (two magazines, arrays of up to
/// pool_options::thread_cache_blocks block pointers), so allocate() and deallocate() normally pop or
/// push a thread-local array: no lock, no atomic read-modify-write, no cache line shared with other
/// threads. A block may be freed on any thread: it joins that thread's cache, and full magazines
/// travel between threads through the pool's depot under a mutex, once per magazine rather than per
/// block. So a producer/consumer pipeline (allocate on A, deallocate on B) costs each side a
/// thread-local push or pop plus a share of one mutex trip per magazine, and the consumer never
/// writes into the blocks it frees.
/// A thread keeps the caches of up to eight pools at hand, so that using several in turn (the size
/// classes of a concurrent_multipool, the stages of a pipeline) stays cheap: the pool used last and
/// the one used before it take the inline fast path (the second one compare later), the others an
/// out-of-line search; beyond eight, switching costs a CAS.
/// A thread's cached blocks go back to the pool when the thread exits, and the pool may be destroyed
/// while threads that used it are still running (see detail/thread_cache_registry.hpp).
///
/// Usage:
///
///     own::concurrent_pool pool(64);
///     void* block = pool.allocate();                  // on the producer
///     std::thread consumer([&] { pool.deallocate(block); });
///     consumer.join();                                // its cache went back to the pool at exit
///     // pool.statistics().blocks_in_use == 0
///
/// Like own::pool, it is a std::pmr::memory_resource (requests that do not fit a block go upstream),
/// and own::pool_allocator reaches it with no virtual call.
#pragma once

#include "detail/cxx17_required.hpp"  // first, so that C++14 gets one error, not hundreds

#include <cstddef>
#include <cstdint>
#include <memory_resource>
#include <mutex>

#include "detail/block_resource.hpp"
#include "detail/chunk_store.hpp"
#include "detail/exceptions.hpp"
#include "detail/free_list.hpp"
#include "detail/pool_depot.hpp"
#include "detail/slow_path.hpp"
#include "detail/thread_cache.hpp"
#include "detail/thread_cache_registry.hpp"
#include "pool_allocator.hpp"
#include "pool_options.hpp"

namespace own {

/// A pool of fixed-size blocks for any number of threads, with per-thread caches, and a
/// std::pmr::memory_resource (see the file documentation).
class concurrent_pool : public detail::block_resource<concurrent_pool> {
 public:
  /// The allocator that reaches this pool with no virtual call (allocate_shared(&pool, ...) uses it).
  using allocator_type = pool_allocator<std::byte, concurrent_pool>;

  /// Blocks of at least `block_size` bytes, rounded up to a multiple of the alignment and to at least
  /// a pointer. Chunks and the threads' magazines come from `upstream`, which must be thread-safe if
  /// several threads use the pool. No memory is taken until a thread first uses the pool. Throws
  /// std::invalid_argument if options.alignment is not 0 or a power of two, and std::bad_alloc if the
  /// rounded-up block size, or a magazine of options.thread_cache_blocks blocks, does not fit a
  /// std::size_t.
  /// With options.findable_by_address, also std::invalid_argument if a block does not fit a span.
  explicit concurrent_pool(std::size_t block_size, pool_options options = {},
                           std::pmr::memory_resource* upstream = std::pmr::get_default_resource())
      : concurrent_pool(block_size, options, upstream, detail::found_at{this}) {}
  /// As above, for a multipool's size class: spans name `found.address` (the multipool) rather than
  /// this pool.
  concurrent_pool(std::size_t block_size, const pool_options& options, std::pmr::memory_resource* upstream,
                  detail::found_at found)
      : stamp_(detail::new_pool_id()),
        registry_(depot_, stamp_),
        depot_(detail::block_geometry::make(block_size, sizeof(detail::free_block), options.alignment), options,
               upstream, "own::concurrent_pool", this, found.address) {}
  concurrent_pool(const concurrent_pool&) = delete;
  concurrent_pool& operator=(const concurrent_pool&) = delete;

  /// Precondition: no thread is using the pool or will use it (threads that used it may still run).
  /// Checked mode: aborts, with the count, if blocks are still in use.
  ~concurrent_pool() override {
    [[maybe_unused]] const std::size_t cached = registry_.detach_all();
#ifdef OWN_CHECKED
    std::lock_guard<detail::adaptive_mutex> lock(depot_.mutex());
    const std::size_t in_use = depot_.chunks().carved() - depot_.free_blocks() - cached;
    if (in_use != 0) depot_.chunks().misuse("destroyed with blocks still in use", in_use);
#endif
  }

  /// Thread-safe. A block of block_size() bytes aligned to block_alignment(). Throws what upstream
  /// throws (on a thread's first use, for its magazines; or for a new chunk) or std::bad_alloc, and
  /// then changes nothing.
  /// A findable_by_address pool throws std::invalid_argument if upstream returns a span that is not
  /// aligned as asked.
  [[nodiscard]] void* allocate() {
    void* block;
    if (OWN_UNLIKELY(!detail::pop_last_used(stamp_, block)) && !detail::pop_parked_last(stamp_, block)) {
      return allocate_slow();
    }
    depot_.chunks().on_allocate(block);
    return block;
  }

  /// Thread-safe, on any thread. Precondition: `block` came from allocate() of this pool and was not
  /// freed since (checked mode aborts with a message otherwise).
  void deallocate(void* block) noexcept {
    depot_.chunks().on_deallocate(block);
    if (OWN_UNLIKELY(!detail::push_last_used(stamp_, block)) && !detail::push_parked_last(stamp_, block)) {
      deallocate_slow(block);
    }
  }

  /// The memory_resource calls stay available beside the block calls: a request that fits a block
  /// (bytes <= block_size(), alignment <= block_alignment()) takes one, the others go upstream.
  using std::pmr::memory_resource::allocate;
  using std::pmr::memory_resource::deallocate;

  /// Thread-safe. Makes sure `blocks` more blocks can be handed out without upstream allocation (not
  /// counting blocks in thread caches). Throws what upstream throws; the pool is then unchanged.
  void reserve(std::size_t blocks) {
    // Upstream may use a concurrent pool on this thread, whose slow path parks the current cache
    // under that cache's mutex: not while this pool's depot mutex is held (statistics() takes the two
    // in the other order), so it is parked now.
    detail::park_current();
    depot_.reserve(blocks);
  }

  /// Returns every chunk upstream and empties every thread cache: all blocks become invalid.
  /// Precondition: no other thread is using the pool during the call.
  void release() noexcept {
    registry_.forget_all();
    depot_.release();
    stamp_ = detail::new_pool_id();  // tops that threads checked out before are stale
  }

  /// The size of every block, as rounded up at construction.
  std::size_t block_size() const noexcept { return depot_.chunks().block_size(); }
  /// The alignment of every block.
  std::size_t block_alignment() const noexcept { return depot_.chunks().block_alignment(); }
  /// Whether the pool was made findable_by_address (pool_options), for own::addressed_pool_allocator.
  bool findable_by_address() const noexcept { return depot_.chunks().findable_by_address(); }
  /// Where chunks, magazines and requests larger than a block come from.
  std::pmr::memory_resource* upstream_resource() const noexcept { return depot_.chunks().upstream(); }

  /// Thread-safe; exact when no other thread is using the pool (it adds up every thread's cache). The
  /// high-water mark counts blocks in thread caches as well as blocks in use.
  pool_statistics statistics() const {
    std::lock_guard<std::mutex> registry_lock(registry_.mutex());
    return registry_.with_cached_blocks([&](std::size_t cached) {
      std::lock_guard<detail::adaptive_mutex> depot_lock(depot_.mutex());
      const detail::chunk_store& chunks = depot_.chunks();
      const std::size_t idle = depot_.free_blocks() + cached;
      return pool_statistics{chunks.carved() > idle ? chunks.carved() - idle : 0, chunks.carved(),
                             chunks.bytes_reserved(), chunks.chunks(), upstream_requests().allocations(),
                             upstream_requests().bytes_in_use()};
    });
  }

 private:
  /// A miss on the current cache: a parked one (a few instructions, so kept apart from the registry
  /// path, whose register saves it would otherwise pay), else the registry's.
  OWN_NOINLINE void* allocate_slow() {
    void* block;
    if (!detail::pop_parked(stamp_, block)) return allocate_from_registry();
    depot_.chunks().on_allocate(block);
    return block;
  }
  OWN_NOINLINE void deallocate_slow(void* block) noexcept {
    if (!detail::push_parked(stamp_, block)) deallocate_to_registry(block);
  }

  OWN_NOINLINE void* allocate_from_registry() {
    void* block = nullptr;
    if (detail::thread_cache* cache = registry_.this_thread()) {
      // If refill() throws, the cache stays checked in, and the next call comes here again.
      if (cache->loaded_empty()) cache->refill();
      detail::check_out_current(cache, stamp_);
      detail::pop_last_used(stamp_, block);  // cannot miss: checked out for this pool, not empty
    } else {  // an exiting thread: no cache any more
      block = depot_.take_one();
    }
    depot_.chunks().on_allocate(block);
    return block;
  }

  OWN_NOINLINE void deallocate_to_registry(void* block) noexcept {
    detail::thread_cache* cache = nullptr;
    OWN_TRY {
      cache = registry_.this_thread();
    } OWN_CATCH_ALL {
      // No cache for this thread (upstream failed): the block goes straight to the depot below.
    }
    if (cache) {
      if (cache->loaded_full()) cache->make_room();
      detail::check_out_current(cache, stamp_);
      detail::push_last_used(stamp_, block);  // cannot miss: checked out for this pool, not full
      return;
    }
    depot_.put_one(block);
  }

  friend class detail::block_resource<concurrent_pool>;
  const detail::chunk_store& chunk_memory() const noexcept { return depot_.chunks(); }

  /// Every call reads stamp_ (new at each release(); the registry keeps the pool's lifelong id); the
  /// registry, the depot and the base's count of upstream requests are written on slow paths only,
  /// and each on a line of its own, so that those writes never evict stamp_ from other threads' caches.
  alignas(64) std::uint64_t stamp_;
  alignas(64) detail::cache_registry registry_;
  alignas(64) detail::pool_depot depot_;
};

}  // namespace own
