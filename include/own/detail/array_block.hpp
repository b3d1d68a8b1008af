// SPDX-License-Identifier: BSL-1.0
// A control block that houses an array (make_shared<U[]>(n), make_shared<U[N]>(),
// make_shared_array...). Arrays of arrays are built as one flat run of their innermost element
// type B; an initial value `u` that is itself an array is repeated across the run.
//
// Layout: the block, then the elements. A run of unknown bound stores its length in the block (it
// is needed to destroy and free it); a U[N] does not. Elements are constructed in order and
// destroyed in reverse; if a constructor throws, those already made are destroyed in reverse.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>

#include "block_allocation.hpp"
#include "control_block.hpp"
#include "allocator_storage.hpp"
#include "exceptions.hpp"
#include "inplace_block.hpp"

namespace own::detail {

template <std::size_t StaticCount>
class array_length {
 protected:
  explicit array_length(std::size_t) noexcept {}
  static constexpr std::size_t length() noexcept { return StaticCount; }
};

template <>
class array_length<0> {
 protected:
  explicit array_length(std::size_t n) noexcept : length_(n) {}
  std::size_t length() const noexcept { return length_; }

 private:
  std::size_t length_;
};

template <class B, class A, class Header>
inline constexpr std::size_t array_block_alignment =
    alignof(Header) > alignof(A) ? (alignof(Header) > alignof(B) ? alignof(Header) : alignof(B))
                                 : (alignof(A) > alignof(B) ? alignof(A) : alignof(B));

// StaticCount: the number of B for a U[N]; 0 for a length known at run time. Header: the block's
// base class, as inplace_block's (local_block_header for make_local_shared's arrays).
template <class B, class A, construct_with How, std::size_t StaticCount, class Header = control_block>
class array_block final : public Header, allocator_storage<A, 0>, array_length<StaticCount> {
  using allocator_base = allocator_storage<A, 0>;
  using element_allocator = rebind_alloc_t<A, B>;

 public:
  // `pattern`: nullptr (a std::nullptr_t), or `pattern_length` values that initialise the elements
  // in turn. Which one is a type, not a value, so that B's copy constructor is instantiated only
  // where there is something to copy: make_shared<std::mutex[]>(n) needs none.
  template <class Pattern>
  array_block(const A& a, std::size_t length, Pattern pattern, std::size_t pattern_length)
      : Header(&ops), allocator_base(a), array_length<StaticCount>(length) {
    std::size_t made = 0;
    OWN_TRY {
      for (; made < length; ++made) construct_element(elements() + made, pattern, made, pattern_length);
    } OWN_CATCH_ALL {
      destroy_elements(made);
      OWN_RETHROW;
    }
  }

  B* elements() noexcept { return std::launder(reinterpret_cast<B*>(reinterpret_cast<unsigned char*>(this) + offset())); }

  // Allocates and builds a block for `length` elements from `a`; strong guarantee.
  template <class Pattern = std::nullptr_t>
  static array_block* make(const A& a, std::size_t length, Pattern pattern = nullptr, std::size_t pattern_length = 0) {
    block_memory<unit, A> memory(a, units_for(length));
    array_block* block = ::new (memory.get()) array_block(a, length, pattern, pattern_length);
    memory.release();
    return block;
  }

 private:
  struct alignas(array_block_alignment<B, A, Header>) unit {
    unsigned char bytes[array_block_alignment<B, A, Header>];
  };
  static constexpr std::size_t offset() noexcept {
    return (sizeof(array_block) + alignof(B) - 1) / alignof(B) * alignof(B);
  }
  static std::size_t units_for(std::size_t length) {
    if (length > (std::size_t(-1) - offset() - sizeof(unit)) / sizeof(B)) {
      throw_exception<std::bad_array_new_length>();
    }
    return (offset() + length * sizeof(B) + sizeof(unit) - 1) / sizeof(unit);
  }

  // Value-initialised (default-initialised for the _for_overwrite forms).
  void construct_element(B* p, std::nullptr_t, std::size_t, std::size_t) {
    if constexpr (How == construct_with::default_init) {
      ::new (static_cast<void*>(p)) B;
    } else if constexpr (How == construct_with::allocator) {
      element_allocator ea(allocator_base::get());
      std::allocator_traits<element_allocator>::construct(ea, p);
    } else {
      ::new (static_cast<void*>(p)) B();
    }
  }
  // A copy of the pattern's value for this index (the _for_overwrite forms take no initial value).
  void construct_element(B* p, const B* pattern, std::size_t index, std::size_t pattern_length) {
    if constexpr (How == construct_with::allocator) {
      element_allocator ea(allocator_base::get());
      std::allocator_traits<element_allocator>::construct(ea, p, pattern[index % pattern_length]);
    } else {
      ::new (static_cast<void*>(p)) B(pattern[index % pattern_length]);
    }
  }

  void destroy_elements(std::size_t count) noexcept {
    element_allocator ea(allocator_base::get());
    B* first = elements();
    while (count != 0) {
      B* p = first + --count;
      if constexpr (How == construct_with::allocator) {
        std::allocator_traits<element_allocator>::destroy(ea, p);
      } else {
        p->~B();
      }
    }
  }

  static array_block* self(control_block* b) noexcept { return static_cast<array_block*>(b); }
  static void dispose(control_block* b) noexcept { self(b)->destroy_elements(self(b)->length()); }
  static void destroy(control_block* b) noexcept {
    array_block* block = self(b);
    rebind_alloc_t<A, unit> ua(block->allocator_base::get());
    const std::size_t units = units_for(block->length());
    block->~array_block();
    detail::deallocate_raw(ua, static_cast<unit*>(static_cast<void*>(block)), units);
  }
  static constexpr control_block_ops ops = block_ops<&dispose, &destroy>;
};

}  // namespace own::detail
