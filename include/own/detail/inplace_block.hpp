// SPDX-License-Identifier: BSL-1.0
// A control block that houses its object (make_shared, allocate_shared, make_shared_object...):
// one allocation for counts and object. The block adds only the allocator's state, which is
// nothing for an empty allocator.
//
// `How` says how the object is made and destroyed, as std requires for each factory:
//  - construct_with::placement: `::new(pv) T(args...)`, destroyed by `~T()` (make_shared);
//  - construct_with::allocator: allocator_traits::construct / destroy through the allocator
//    rebound to remove_cv_t<T> (allocate_shared);
//  - construct_with::default_init: `::new(pv) T`, no zero-filling, destroyed by `~T()`
//    (the _for_overwrite forms).
//
// `Header` is the block's base: control_block, or a class derived from it that puts more state in
// the same allocation (local_shared_ptr keeps its non-atomic counts there).
#pragma once

#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include "block_allocation.hpp"
#include "control_block.hpp"
#include "allocator_storage.hpp"

namespace own::detail {

enum class construct_with { placement, allocator, default_init };

template <class T, class A, construct_with How, class Header = control_block>
class inplace_block final : public Header, allocator_storage<A, 0> {
  using allocator_base = allocator_storage<A, 0>;
  using object_type = std::remove_cv_t<T>;
  using object_allocator = rebind_alloc_t<A, object_type>;

 public:
  // Constructs the object; if its constructor throws, the block was never a block.
  template <class... Args>
  explicit inplace_block(const A& a, Args&&... args) : Header(&ops), allocator_base(a) {
    if constexpr (How == construct_with::allocator) {
      object_allocator oa(allocator_base::get());
      std::allocator_traits<object_allocator>::construct(oa, storage(), std::forward<Args>(args)...);
    } else if constexpr (How == construct_with::default_init) {
      static_assert(sizeof...(Args) == 0, "_for_overwrite takes no initialiser");
      ::new (static_cast<void*>(storage())) object_type;
    } else {
      ::new (static_cast<void*>(storage())) object_type(std::forward<Args>(args)...);
    }
  }

  T* object() noexcept { return std::launder(storage()); }

 private:
  object_type* storage() noexcept { return reinterpret_cast<object_type*>(&storage_); }

  static inplace_block* self(control_block* b) noexcept { return static_cast<inplace_block*>(b); }
  static void dispose(control_block* b) noexcept {
    object_type* object = std::launder(self(b)->storage());
    if constexpr (How == construct_with::allocator) {
      object_allocator oa(self(b)->allocator_base::get());
      std::allocator_traits<object_allocator>::destroy(oa, object);
    } else {
      object->~object_type();
    }
  }
  static void destroy(control_block* b) noexcept { detail::delete_block(self(b), self(b)->allocator_base::get()); }
  static constexpr control_block_ops ops = block_ops<&dispose, &destroy>;

  alignas(T) unsigned char storage_[sizeof(T)];
};

}  // namespace own::detail
