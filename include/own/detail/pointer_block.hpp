// SPDX-License-Identifier: BSL-1.0
// The control block of a shared_ptr that adopts an existing pointer: the pointer, its deleter and
// the allocator the block came from (which frees it). The deleter stays alive until the block goes,
// so get_deleter works for as long as any shared or weak reference remains.
#pragma once

#include <memory>
#include <utility>

#include "block_allocation.hpp"
#include "control_block.hpp"
#include "allocator_storage.hpp"
#include "ebo_storage.hpp"
#include "exceptions.hpp"

namespace own::detail {

template <class P, class D, class A>
class pointer_block final : public control_block, ebo_storage<D, 0>, allocator_storage<A, 1> {
  using deleter_storage = ebo_storage<D, 0>;
  using allocator_base = allocator_storage<A, 1>;

 public:
  pointer_block(P p, D&& d, const A& a) noexcept
      : control_block(&ops), deleter_storage(std::move(d)), allocator_base(a), ptr_(p) {}
  pointer_block(const pointer_block&) = delete;
  pointer_block& operator=(const pointer_block&) = delete;

 private:
  static pointer_block* self(control_block* b) noexcept { return static_cast<pointer_block*>(b); }
  static void dispose(control_block* b) noexcept { self(b)->deleter_storage::get()(self(b)->ptr_); }
  static void destroy(control_block* b) noexcept { detail::delete_block(self(b), self(b)->allocator_base::get()); }
  static void* find_deleter(control_block* b, type_key type) noexcept {
    // addressof: a deleter may overload or delete unary operator&.
    return type == type_key::of<D>() ? std::addressof(self(b)->deleter_storage::get()) : nullptr;
  }
  static constexpr control_block_ops ops = block_ops<&dispose, &destroy, &find_deleter>;

  P ptr_;
};

// Makes the block that owns `p`. If allocating it throws, `d(p)` is called first (std and N1851).
template <class P, class D, class A>
control_block* make_pointer_block(P p, D& d, const A& a) {
  using block = pointer_block<P, D, A>;
  OWN_TRY {
    return detail::new_block<block>(a, p, std::move(d), a);
  } OWN_CATCH_ALL {
    d(p);
    OWN_RETHROW;
  }
}

}  // namespace own::detail
