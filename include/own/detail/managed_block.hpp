// SPDX-License-Identifier: BSL-1.0
// The control block that houses a managed_ptr's ownership when it becomes a shared_ptr: the
// managed_ptr's deleter (object, cookie, function) and the allocator the block came from.
#pragma once


#include "block_allocation.hpp"
#include "control_block.hpp"
#include "allocator_storage.hpp"

namespace own::detail {

template <class Deleter, class A>
class managed_block final : public control_block, allocator_storage<A, 0> {
  using allocator_base = allocator_storage<A, 0>;

 public:
  managed_block(const Deleter& d, const A& a) noexcept : control_block(&ops), allocator_base(a), deleter_(d) {}

 private:
  static managed_block* self(control_block* b) noexcept { return static_cast<managed_block*>(b); }
  static void dispose(control_block* b) noexcept { self(b)->deleter_(); }
  static void destroy(control_block* b) noexcept { detail::delete_block(self(b), self(b)->allocator_base::get()); }
  static void* find_deleter(control_block* b, type_key type) noexcept {
    return type == type_key::of<Deleter>() ? &self(b)->deleter_ : nullptr;
  }
  static constexpr control_block_ops ops = block_ops<&dispose, &destroy, &find_deleter>;

  Deleter deleter_;
};

}  // namespace own::detail
