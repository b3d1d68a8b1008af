// SPDX-License-Identifier: BSL-1.0
// Holds a control block's allocator: as ebo_storage does (nothing for an empty allocator), and also
// nothing for an allocator that can be found again from the block's address, one with
//     static A from_address(const void* p) noexcept;
// returning an allocator equal to the one whose memory p lies in (own::addressed_pool_allocator).
// get() then rebuilds it from the address of the storage, which lies inside the block.
#pragma once

#include <type_traits>
#include <utility>

#include "ebo_storage.hpp"

namespace own::detail {

template <class A, class = void>
struct found_by_address : std::false_type {};
template <class A>
struct found_by_address<A, std::void_t<decltype(A::from_address(std::declval<const void*>()))>>
    : std::bool_constant<std::is_same_v<decltype(A::from_address(std::declval<const void*>())), A> &&
                         noexcept(A::from_address(std::declval<const void*>()))> {};

template <class A, int Index, bool = found_by_address<A>::value>
class allocator_storage : public ebo_storage<A, Index> {
 public:
  using ebo_storage<A, Index>::ebo_storage;
};

template <class A, int Index>
class allocator_storage<A, Index, true> {
 public:
  explicit allocator_storage(const A&) noexcept {}
  A get() const noexcept { return A::from_address(this); }
};

}  // namespace own::detail
