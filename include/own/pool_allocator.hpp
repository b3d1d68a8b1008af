// SPDX-License-Identifier: BSL-1.0
/// @file
/// own::pool_allocator<T, Pool>: a standard Allocator that draws from one of own's pools through a
/// plain pointer, with no virtual call, so node containers and allocate_shared get a pool's speed.
/// An allocation that does not fit the pool's blocks (n * sizeof(T) larger than a block, or an
/// alignment above the block alignment) goes to the pool's upstream resource, and is counted in the
/// pool's statistics() (upstream_allocations, upstream_bytes_in_use): a container whose nodes outgrow
/// the blocks shows there, not as an idle pool. A multipool picks the size class, and counts what is
/// beyond its largest. Two allocators are equal when they use the same pool. Containers propagate the
/// allocator on copy, move and swap, so a container's elements always go back to their own pool.
///
/// Usage:
///
///     own::pool pool(32);
///     std::list<int, own::pool_allocator<int, own::pool>> list{own::pool_allocator<int, own::pool>(&pool)};
///     list.push_back(1);                                   // one block from `pool`
///     std::vector<int, own::pool_allocator<int, own::pool>> big(100, 0, list.get_allocator());
///                                                          // 400 bytes: from the pool's upstream
///     // pool.statistics(): blocks_in_use == 1, upstream_allocations == 1, upstream_bytes_in_use == 400
#pragma once

#include "detail/cxx17_required.hpp"  // first, so that C++14 gets one error, not hundreds

#include <cstddef>
#include <limits>
#include <new>
#include <type_traits>

#include "detail/allocator_adapter.hpp"
#include "detail/checked.hpp"
#include "detail/exceptions.hpp"

namespace own {

/// A standard Allocator over a pointer to one of own's pools, calling the pool with no virtual call
/// (see the file documentation).
template <class T, class Pool>
class pool_allocator {
 public:
  /// The standard Allocator's member types: allocators compare equal when they use the same pool,
  /// and the pool moves with a container's contents.
  ///@{
  using value_type = T;
  using pool_type = Pool;
  using propagate_on_container_copy_assignment = std::true_type;
  using propagate_on_container_move_assignment = std::true_type;
  using propagate_on_container_swap = std::true_type;
  using is_always_equal = std::false_type;

  /// Precondition: `pool` is not null and outlives every allocation made through this allocator.
  ///@}

  explicit pool_allocator(Pool* pool) noexcept : pool_(pool) { OWN_CHECK(pool, "pool_allocator made with a null pool"); }
  /// The same pool, for another value type (rebinding).
  template <class U>
  pool_allocator(const pool_allocator<U, Pool>& other) noexcept : pool_(other.pool()) {}

  /// Throws std::bad_array_new_length if n * sizeof(T) overflows, else what the pool throws.
  [[nodiscard]] T* allocate(std::size_t n) {
    if (n > std::numeric_limits<std::size_t>::max() / sizeof(T)) detail::throw_exception<std::bad_array_new_length>();
    // A qualified call: the pool's own function, not the memory_resource virtual.
    return static_cast<T*>(pool_->Pool::do_allocate(n * sizeof(T), alignof(T)));
  }
  /// Precondition: p came from allocate(n) of an allocator equal to this one. Checked mode aborts with
  /// a message if an n too large for a block is given for a block of the pool.
  void deallocate(T* p, std::size_t n) noexcept { pool_->Pool::do_deallocate(p, n * sizeof(T), alignof(T)); }

  /// The pool this allocator uses.
  Pool* pool() const noexcept { return pool_; }


 private:
  Pool* pool_;

  /// Own's pools name pool_allocator as their allocator_type and let it call them directly. (Last in
  /// the class, so that clang has declared the members above when the assertion fails and reports
  /// nothing else about them.)
  static_assert(detail::has_allocator_type<Pool>::value,
                "own::pool_allocator<T, Pool> needs one of own's pools as Pool (pool, concurrent_pool, multipool, "
                "concurrent_multipool); for any other memory resource use std::pmr::polymorphic_allocator<T>");
};

/// Whether a and b use the same pool (memory from one can be freed by the other).
template <class T, class U, class Pool>
bool operator==(const pool_allocator<T, Pool>& a, const pool_allocator<U, Pool>& b) noexcept {
  return a.pool() == b.pool();
}
/// Whether a and b use different pools.
template <class T, class U, class Pool>
bool operator!=(const pool_allocator<T, Pool>& a, const pool_allocator<U, Pool>& b) noexcept {
  return a.pool() != b.pool();
}

}  // namespace own
