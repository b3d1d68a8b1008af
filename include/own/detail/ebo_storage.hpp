// SPDX-License-Identifier: BSL-1.0
// Holds a deleter or an allocator inside a control block, taking no space when its type is empty
// (the empty-base optimisation; [[no_unique_address]] is C++20 only). `Index` tells two members of
// the same type apart.
#pragma once

#include <type_traits>
#include <utility>

namespace own::detail {

template <class T, int Index, bool = std::is_empty_v<T> && !std::is_final_v<T>>
class ebo_storage {
 public:
  template <class U>
  explicit ebo_storage(U&& value) noexcept(std::is_nothrow_constructible_v<T, U&&>) : value_(std::forward<U>(value)) {}
  T& get() noexcept { return value_; }

 private:
  T value_;
};

template <class T, int Index>
class ebo_storage<T, Index, true> : private T {
 public:
  template <class U>
  explicit ebo_storage(U&& value) noexcept(std::is_nothrow_constructible_v<T, U&&>) : T(std::forward<U>(value)) {}
  T& get() noexcept { return *this; }
};

}  // namespace own::detail
