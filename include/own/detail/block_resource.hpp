// SPDX-License-Identifier: BSL-1.0
// The std::pmr::memory_resource face of a fixed-size block pool (own::pool, own::concurrent_pool):
// requests that fit a block (bytes <= block_size(), alignment <= block_alignment()) are served by the
// pool's allocate()/deallocate(), the others by its upstream resource. Checked mode aborts with a
// message when a block of the pool is given back with a size or alignment bound for upstream.
// own::pool_allocator calls these overrides by qualified name, so it reaches the pool with no
// virtual call. The requests that go upstream are counted (upstream_tally.hpp).
#pragma once

#include <cstddef>
#include <memory_resource>

#include "upstream_tally.hpp"

namespace own {
template <class T, class Pool>
class pool_allocator;
template <class T, class Pool>
class addressed_pool_allocator;
}  // namespace own

namespace own::detail {

template <class Pool>
class basic_multipool;

template <class Pool>
class block_resource : public std::pmr::memory_resource {
 protected:
  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    Pool& pool = static_cast<Pool&>(*this);
    if (fits(bytes, alignment)) return pool.allocate();
    return upstream_.allocate(pool.upstream_resource(), bytes, alignment);
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override {
    Pool& pool = static_cast<Pool&>(*this);
    if (fits(bytes, alignment)) {
      pool.deallocate(p);
    } else {
      check_not_a_block(p, bytes);
      upstream_.deallocate(pool.upstream_resource(), p, bytes, alignment);
    }
  }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override { return this == &other; }

  const upstream_tally& upstream_requests() const noexcept { return upstream_; }

 private:
  template <class, class>
  friend class ::own::pool_allocator;
  template <class, class>
  friend class ::own::addressed_pool_allocator;
  template <class>
  friend class basic_multipool;

  // Checked mode: aborts if `p`, given back as `bytes` bytes too many (or too aligned) for a block,
  // lies in the pool's chunks (see chunk_store::on_deallocate_upstream).
  void check_not_a_block(const void* p, std::size_t bytes) const noexcept {
    static_cast<const Pool&>(*this).chunk_memory().on_deallocate_upstream(p, bytes);
  }

  // Every block is aligned to at least a pointer (its free-list link lives in it), so a request for
  // no more than that, known at compile time as pool_allocator's always is, skips the alignment load.
  bool fits(std::size_t bytes, std::size_t alignment) const noexcept {
    const Pool& pool = static_cast<const Pool&>(*this);
    return bytes <= pool.block_size() && (alignment <= alignof(void*) || alignment <= pool.block_alignment());
  }

  upstream_tally upstream_{};
};

}  // namespace own::detail
