// SPDX-License-Identifier: BSL-1.0
// own::heap_allocator, the default heap as a standard Allocator (documented with the heap in
// <own/heap.hpp>), apart from the rest of heap.hpp so that shared_ptr.hpp, whose default
// allocator it is, does not bring <chrono> to every translation unit that includes it.
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>

#include "exceptions.hpp"
#include "heap_size_classes.hpp"
#include "thread_heap.hpp"

namespace own {

/// The default heap as a standard Allocator. Stateless; all instances are equal. allocate throws
/// std::bad_alloc (std::bad_array_new_length for a count whose size overflows).
template <class T>
class heap_allocator {
 public:
  /// The standard Allocator's member types: stateless, so every instance is equal.
  ///@{
  using value_type = T;
  using is_always_equal = std::true_type;
  using propagate_on_container_move_assignment = std::true_type;

  ///@}
  /// Allocators of any value type are interchangeable (rebinding).
  ///@{
  constexpr heap_allocator() noexcept = default;
  template <class U>
  constexpr heap_allocator(const heap_allocator<U>&) noexcept {}

  ///@}

  /// Memory for n objects of type T, from the default heap (operator new beyond its largest class).
  [[nodiscard]] T* allocate(std::size_t n) {
    detail::heap_require_fork_handlers<T>();
    if constexpr (class_of_one < detail::heap_class_count) {
      if (n == 1) return static_cast<T*>(detail::heap_allocate(class_of_one, sizeof(T), alignof(T)));
    }
    if (n > std::size_t(-1) / sizeof(T)) detail::throw_exception<std::bad_array_new_length>();
    const std::size_t size = n * sizeof(T);
    const std::size_t c = detail::heap_class_for(size, alignof(T));
    if (c == detail::heap_class_count) return static_cast<T*>(detail::heap_operator_new(size, alignof(T)));
    return static_cast<T*>(detail::heap_allocate(c, size, alignof(T)));
  }

  /// Precondition: p came from allocate(n) of a heap_allocator.
  void deallocate(T* p, std::size_t n) noexcept {
    if constexpr (class_of_one < detail::heap_class_count) {
      if (n == 1) return detail::heap_deallocate(p, alignof(T));
    }
    if (detail::heap_class_for(n * sizeof(T), alignof(T)) == detail::heap_class_count) {
      detail::heap_operator_delete(p, alignof(T));
    } else {
      detail::heap_deallocate(p, alignof(T));
    }
  }

  /// Always true: any instance frees what another allocated.
  template <class U>
  friend constexpr bool operator==(const heap_allocator&, const heap_allocator<U>&) noexcept {
    return true;
  }
  /// Always false.
  template <class U>
  friend constexpr bool operator!=(const heap_allocator&, const heap_allocator<U>&) noexcept {
    return false;
  }

 private:
  static constexpr std::size_t class_of_one = detail::heap_class_search(sizeof(T), alignof(T));
};

namespace detail {
// What own's factories and adopting constructors use when no allocator is given.
using default_allocator = heap_allocator<std::byte>;
}  // namespace detail

}  // namespace own
