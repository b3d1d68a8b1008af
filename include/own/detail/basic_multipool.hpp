// Size-class dispatch shared by own::multipool and own::concurrent_multipool: one fixed-size pool
// per power of two from 8 bytes to the maximum block size; larger or over-aligned requests go
// upstream.
#pragma once

#include <cstddef>
#include <limits>
#include <memory>
#include <memory_resource>
#include <optional>

#include "../pool_allocator.hpp"
#include "../pool_options.hpp"

namespace own::detail {

// The smallest k with 2^k >= n. Precondition: n >= 2.
inline std::size_t ceil_log2(std::size_t n) noexcept {
#if defined(__GNUC__)
  return static_cast<std::size_t>(std::numeric_limits<unsigned long long>::digits - __builtin_clzll(n - 1));
#else
  std::size_t k = 1;
  while ((std::size_t{1} << k) < n) ++k;
  return k;
#endif
}

template <class Pool>
class basic_multipool : public std::pmr::memory_resource {
 public:
  static constexpr std::size_t smallest_block_size = 8;

  // Classes 8, 16, ... up to max_block_size rounded up to a power of two; `options` apply to each
  // class's pool. Throws std::bad_alloc, or std::invalid_argument for a bad options.alignment.
  basic_multipool(std::size_t max_block_size, const pool_options& options, std::pmr::memory_resource* upstream)
      : classes_(class_of(max_block_size < smallest_block_size ? smallest_block_size : max_block_size, 1) + 1),
        pools_(new std::optional<Pool>[classes_]),
        upstream_(upstream) {
    for (std::size_t c = 0; c < classes_; ++c) pools_[c].emplace(smallest_block_size << c, options, upstream);
  }
  basic_multipool(const basic_multipool&) = delete;
  basic_multipool& operator=(const basic_multipool&) = delete;

  // bytes <= max_block_size() and alignment <= alignof(std::max_align_t): a block of the smallest
  // class that fits; otherwise upstream. A class's blocks are aligned to min(class size,
  // alignof(std::max_align_t)), enough for any object of `bytes` bytes, hence the default alignment.
  // Throws what the pool or upstream throws.
  [[nodiscard]] void* allocate(std::size_t bytes, std::size_t alignment = 1) {
    const std::size_t c = class_of(bytes, alignment);
    return c < classes_ ? pools_[c]->allocate() : upstream_->allocate(bytes, alignment);
  }
  // Precondition: p came from allocate(bytes, alignment) of this multipool, with the same arguments.
  void deallocate(void* p, std::size_t bytes, std::size_t alignment = 1) noexcept {
    const std::size_t c = class_of(bytes, alignment);
    if (c < classes_) {
      pools_[c]->deallocate(p);
    } else {
      upstream_->deallocate(p, bytes, alignment);
    }
  }

  std::size_t max_block_size() const noexcept { return smallest_block_size << (classes_ - 1); }
  std::pmr::memory_resource* upstream_resource() const noexcept { return upstream_; }

  // Sums over the size classes (the high-water mark is the sum of the classes' marks).
  pool_statistics statistics() const {
    pool_statistics total;
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

  // The class index; any index >= classes_ means upstream.
  std::size_t class_of(std::size_t bytes, std::size_t alignment) const noexcept {
    if (alignment > alignof(std::max_align_t)) return std::numeric_limits<std::size_t>::max();
    // Blocks of a class are aligned to min(size, max_align_t), so a class as large as the alignment
    // serves it.
    const std::size_t n = bytes > alignment ? bytes : alignment;
    return n <= smallest_block_size ? 0 : ceil_log2(n) - 3;
  }

  const std::size_t classes_;
  const std::unique_ptr<std::optional<Pool>[]> pools_;
  std::pmr::memory_resource* const upstream_;
};

}  // namespace own::detail
