// SPDX-License-Identifier: BSL-1.0
// Size-class dispatch shared by own::multipool and own::concurrent_multipool: one fixed-size pool
// per class from 8 bytes to the maximum block size; larger or over-aligned requests go upstream. The
// classes are the default heap's (heap_size_classes.hpp: 8-byte steps up to 64, then four per
// doubling, at most 25 % rounding), continued four per doubling past 2 KiB, after an 8-byte class.
#pragma once

#include <cstddef>
#include <limits>
#include <memory>
#include <memory_resource>
#include <optional>

#include "../pool_allocator.hpp"
#include "../pool_options.hpp"
#include "chunk_store.hpp"
#include "heap_size_classes.hpp"
#include "log2.hpp"
#include "upstream_tally.hpp"

namespace own {
template <class T, class Pool>
class addressed_pool_allocator;
}  // namespace own

namespace own::detail {

// The largest class: beyond it the four-per-doubling sizes would overflow.
inline constexpr std::size_t multipool_size_limit = std::size_t{1} << 62;

// The size of class `c`: 8, the heap's classes (16 ... 2048), then 2560, 3072, 3584, 4096, 5120, ...
constexpr std::size_t multipool_class_size(std::size_t c) noexcept {
  if (c == 0) return 8;
  if (c <= heap_class_count) return heap_class_sizes[c - 1];
  const std::size_t beyond = c - heap_class_count - 1;
  return (heap_max_block_size << (beyond / 4)) / 4 * (4 + beyond % 4 + 1);
}

// The smallest class whose blocks hold `n` bytes aligned to `align` (at most 16; a class's pool
// aligns its blocks to the largest power of two dividing its size, up to 16).
inline std::size_t multipool_class_of(std::size_t n, std::size_t align) noexcept {
  if (n <= 8 && align <= 8) return 0;
  if (n <= heap_max_block_size) return heap_class_for(n, align) + 1;
  const std::size_t k = detail::ceil_log2(n) - 1;  // 2^k < n <= 2^(k+1), k >= 11
  const std::size_t step = (std::size_t{1} << k) / 4;
  const std::size_t quarter = (n - (std::size_t{1} << k) + step - 1) / step;  // 1 ... 4
  return heap_class_count + 1 + (k - 11) * 4 + quarter - 1;
}

template <class Pool>
class basic_multipool : public std::pmr::memory_resource {
 public:
  static constexpr std::size_t smallest_block_size = 8;

  // Classes 8, 16, 24, ... up to max_block_size rounded up to a class (at most 2^62); `options` apply
  // to each class's pool, except that options.alignment is only a minimum: a class's blocks keep
  // at least their natural alignment (the largest power of two dividing the class size, up to
  // alignof(std::max_align_t)), because requests are routed to classes by that alignment (a
  // 16-aligned request goes to a class whose size is a multiple of 16). Throws std::bad_alloc, or
  // std::invalid_argument for a bad options.alignment.
  // `self` is the multipool as a whole (the derived object), which a findable_by_address pool's
  // spans name. (Not a pointer to const: gcc 12 takes one, to an object not yet made, for a read.)
  basic_multipool(std::size_t max_block_size, const pool_options& options, std::pmr::memory_resource* upstream,
                  void* self)
      : classes_(detail::multipool_class_of(max_block_size < multipool_size_limit ? max_block_size : multipool_size_limit, 1) + 1),
        pools_(new std::optional<Pool>[classes_]),
        upstream_(upstream) {
    for (std::size_t c = 0; c < classes_; ++c) {
      const std::size_t size = detail::multipool_class_size(c);
      pools_[c].emplace(size, class_options(options, size), upstream, found_at{self});
    }
  }
  basic_multipool(const basic_multipool&) = delete;
  basic_multipool& operator=(const basic_multipool&) = delete;

  // A block of the smallest class that holds `bytes` (at least `alignment`) at that alignment, if
  // there is one: alignment <= alignof(std::max_align_t) and that size rounded up to the alignment
  // <= max_block_size() (so 53 bytes at 16 go upstream when the largest class is 56); otherwise
  // upstream. Throws what the pool or upstream throws.
  [[nodiscard]] void* allocate(std::size_t bytes, std::size_t alignment = 1) {
    const std::size_t c = class_of(bytes, alignment);
    return c < classes_ ? pools_[c]->allocate() : upstream_requests_.allocate(upstream_, bytes, alignment);
  }
  // Precondition: p came from allocate(bytes, alignment) of this multipool, with the same arguments.
  // Checked mode aborts with a message if it did not and p is in a class's chunks, or (through the
  // class pool) if p is bound for a class pool that did not hand it out.
  void deallocate(void* p, std::size_t bytes, std::size_t alignment = 1) noexcept {
    const std::size_t c = class_of(bytes, alignment);
    if (c < classes_) {
      pools_[c]->deallocate(p);
    } else {
#ifdef OWN_CHECKED
      for (std::size_t k = 0; k < classes_; ++k) pools_[k]->check_not_a_block(p, bytes);
#endif
      upstream_requests_.deallocate(upstream_, p, bytes, alignment);
    }
  }

  std::size_t max_block_size() const noexcept { return detail::multipool_class_size(classes_ - 1); }
  std::pmr::memory_resource* upstream_resource() const noexcept { return upstream_; }
  bool findable_by_address() const noexcept { return pools_[0]->findable_by_address(); }

  // Sums over the size classes (the high-water mark is the sum of the classes' marks), and the
  // requests beyond them, which went upstream.
  pool_statistics statistics() const {
    pool_statistics total;
    total.upstream_allocations = upstream_requests_.allocations();
    total.upstream_bytes_in_use = upstream_requests_.bytes_in_use();
    for (std::size_t c = 0; c < classes_; ++c) {
      const pool_statistics s = pools_[c]->statistics();
      total.blocks_in_use += s.blocks_in_use;
      total.high_water_mark += s.high_water_mark;
      total.bytes_reserved += s.bytes_reserved;
      total.chunks += s.chunks;
    }
    return total;
  }

  // Returns every chunk of every class upstream (not the blocks that went upstream directly).
  void release() noexcept {
    for (std::size_t c = 0; c < classes_; ++c) pools_[c]->release();
  }

 protected:
  void* do_allocate(std::size_t bytes, std::size_t alignment) override { return allocate(bytes, alignment); }
  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override { deallocate(p, bytes, alignment); }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override { return this == &other; }

 private:
  template <class, class>
  friend class ::own::pool_allocator;
  template <class, class>
  friend class ::own::addressed_pool_allocator;

  // Whether a class serves the request (else upstream does).
  bool fits(std::size_t bytes, std::size_t alignment) const noexcept { return class_of(bytes, alignment) < classes_; }

  // `options` for the class of `size`: an alignment below the class's natural one becomes 0, which
  // gives the natural one (a bad alignment is left for the pool to refuse).
  static pool_options class_options(pool_options options, std::size_t size) {
    const bool power_of_two = (options.alignment & (options.alignment - 1)) == 0;
    if (power_of_two && options.alignment < block_geometry::make(size, 0, 0).alignment) options.alignment = 0;
    return options;
  }

  // The class index; any index >= classes_ means upstream.
  std::size_t class_of(std::size_t bytes, std::size_t alignment) const noexcept {
    if (alignment > alignof(std::max_align_t)) return std::numeric_limits<std::size_t>::max();
    return detail::multipool_class_of(bytes > alignment ? bytes : alignment, alignment);
  }

  const std::size_t classes_;
  const std::unique_ptr<std::optional<Pool>[]> pools_;
  std::pmr::memory_resource* const upstream_;
  upstream_tally upstream_requests_{};
};

}  // namespace own::detail
