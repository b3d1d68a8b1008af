// SPDX-License-Identifier: BSL-1.0
// The count a pool keeps of the requests it passes to its upstream resource because no block fits
// them (own::pool_allocator and the memory_resource interface send those there): reported by
// statistics() as upstream_allocations and upstream_bytes_in_use, so that a pool serving nothing
// (a std::map whose nodes outgrow the blocks) shows it. Relaxed atomics: a concurrent pool's
// threads count at once, and the upstream call beside each update costs far more.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory_resource>

namespace own::detail {

class upstream_tally {
 public:
  // upstream->allocate(bytes, alignment), counted if it succeeds.
  void* allocate(std::pmr::memory_resource* upstream, std::size_t bytes, std::size_t alignment) {
    void* p = upstream->allocate(bytes, alignment);
    allocations_.fetch_add(1, std::memory_order_relaxed);
    bytes_in_use_.fetch_add(bytes, std::memory_order_relaxed);
    return p;
  }
  void deallocate(std::pmr::memory_resource* upstream, void* p, std::size_t bytes, std::size_t alignment) noexcept {
    bytes_in_use_.fetch_sub(bytes, std::memory_order_relaxed);
    upstream->deallocate(p, bytes, alignment);
  }

  std::size_t allocations() const noexcept { return allocations_.load(std::memory_order_relaxed); }
  std::size_t bytes_in_use() const noexcept { return bytes_in_use_.load(std::memory_order_relaxed); }

 private:
  std::atomic<std::size_t> allocations_{0};
  std::atomic<std::size_t> bytes_in_use_{0};
};

}  // namespace own::detail
