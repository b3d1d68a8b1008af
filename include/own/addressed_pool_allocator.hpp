// SPDX-License-Identifier: BSL-1.0
/// @file
/// own::addressed_pool_allocator<T, Pool>: an own::pool_allocator for a pool made with
/// pool_options::findable_by_address, whose pool is found again from the address of any memory it
/// handed out. A control block made through it (allocate_shared, allocate_managed,
/// allocate_local_shared and the _with_alloc forms) keeps no pointer to the pool: 8 bytes less in
/// every pooled block than with own::pool_allocator (housed_block_size<T, A> says how many).
///
/// It differs from pool_allocator in two ways. Its constructor throws std::invalid_argument for a
/// pool that is not findable_by_address. And a request that no block of the pool fits throws
/// std::bad_alloc instead of going upstream, since memory from upstream could not be traced back to
/// the pool: size the pool with housed_block_size (and, for a T aligned beyond
/// alignof(std::max_align_t), set pool_options::alignment to alignof(T)). Two such allocators, and one and a pool_allocator,
/// are equal when they use the same pool.
///
/// Usage:
///
///     struct order { long id; double price; };
///     using alloc = own::addressed_pool_allocator<order, own::pool>;
///     own::pool_options options;
///     options.findable_by_address = true;  // memory in own::pool_span spans, aligned to their size
///     own::pool pool(own::housed_block_size<order, alloc>, options);
///     own::shared_ptr<order> p = own::allocate_shared<order>(alloc(&pool), order{1, 2.5});
///     // own::housed_block_size<order, alloc> == own::housed_block_size<order, own::pool_allocator<order, own::pool>> - 8
///
/// Any allocator type with a `static A from_address(const void* p) noexcept` member that returns an
/// allocator equal to the one whose memory `p` lies in is likewise kept out of own's control blocks.
#pragma once

#include "detail/cxx17_required.hpp"  // first, so that C++14 gets one error, not hundreds

#include <cstddef>
#include <limits>
#include <new>
#include <stdexcept>
#include <type_traits>

#include "detail/chunk_store.hpp"
#include "detail/exceptions.hpp"
#include "pool_allocator.hpp"
#include "pool_options.hpp"

namespace own {

class pool;
class concurrent_pool;
class multipool;
class concurrent_multipool;

/// A pool_allocator whose pool is found from the addresses it handed out (see the file
/// documentation). Pool: own::pool, concurrent_pool, multipool or concurrent_multipool.
template <class T, class Pool>
class addressed_pool_allocator : public pool_allocator<T, Pool> {
 public:
  /// Precondition: `pool` is not null and outlives every allocation made through this allocator.
  /// Throws std::invalid_argument if the pool was not made with pool_options::findable_by_address.
  explicit addressed_pool_allocator(Pool* pool) : pool_allocator<T, Pool>(pool) {
    if (!pool->findable_by_address()) {
      detail::throw_exception<std::invalid_argument>(
          "own::addressed_pool_allocator needs a pool made with pool_options::findable_by_address");
    }
  }
  /// The same pool, for another value type (rebinding).
  template <class U>
  addressed_pool_allocator(const addressed_pool_allocator<U, Pool>& other) noexcept
      : pool_allocator<T, Pool>(other.pool()) {}

  /// A block of the pool. Throws std::bad_array_new_length if n * sizeof(T) overflows, std::bad_alloc
  /// if no block of the pool fits n T (nothing goes upstream), else what the pool throws.
  [[nodiscard]] T* allocate(std::size_t n) {
    // An n too large to multiply is left for pool_allocator::allocate to refuse.
    if (n <= std::numeric_limits<std::size_t>::max() / sizeof(T) && !this->pool()->fits(n * sizeof(T), alignof(T))) {
      detail::throw_exception<std::bad_alloc>();
    }
    return pool_allocator<T, Pool>::allocate(n);
  }

  /// The allocator that handed out the memory `p` lies in. Precondition: it came from allocate() of
  /// an addressed_pool_allocator over a Pool, and is still allocated.
  static addressed_pool_allocator from_address(const void* p) noexcept {
    return addressed_pool_allocator(static_cast<Pool*>(const_cast<void*>(detail::chunk_store::found_from(p))), found{});
  }

 private:
  struct found {};
  addressed_pool_allocator(Pool* pool, found) noexcept : pool_allocator<T, Pool>(pool) {}

  // A span holds the address of the pool as its own class wrote it: from_address() may convert it
  // back only to that class, not to one derived from it.
  static_assert(std::is_same_v<Pool, pool> || std::is_same_v<Pool, concurrent_pool> || std::is_same_v<Pool, multipool> ||
                    std::is_same_v<Pool, concurrent_multipool>,
                "own::addressed_pool_allocator<T, Pool> needs own::pool, concurrent_pool, multipool or "
                "concurrent_multipool itself as Pool (not a class derived from one)");
};

}  // namespace own
