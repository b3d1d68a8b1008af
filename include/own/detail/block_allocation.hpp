// SPDX-License-Identifier: BSL-1.0
// Allocation of control blocks through a (rebound) allocator, fancy pointers included, with the
// memory handed back if the block's constructor throws.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include "allocator_adapter.hpp"

namespace own::detail {

// The raw address a pointer, raw or fancy, holds (C++20's std::to_address, for C++17 too): a
// fancy pointer is followed through its operator->.
template <class P>
auto to_raw_pointer(P p) noexcept {
  if constexpr (std::is_pointer_v<P>) {
    return p;
  } else {
    return detail::to_raw_pointer(p.operator->());
  }
}

// Frees `count` objects' worth of memory at `raw` through `a`, converting back to its pointer type.
template <class A>
void deallocate_raw(A& a, typename std::allocator_traits<A>::value_type* raw, std::size_t count) noexcept {
  using traits = std::allocator_traits<A>;
  traits::deallocate(a, std::pointer_traits<typename traits::pointer>::pointer_to(*raw), count);
}

// Memory for `count` objects of type T from `a` (rebound to T), freed again unless release()d.
template <class T, class Alloc>
class block_memory {
 public:
  using allocator_type = rebind_alloc_t<Alloc, T>;

  block_memory(const Alloc& a, std::size_t count)
      : alloc_(a), count_(count), raw_(detail::to_raw_pointer(std::allocator_traits<allocator_type>::allocate(alloc_, count))) {}
  block_memory(const block_memory&) = delete;
  block_memory& operator=(const block_memory&) = delete;
  ~block_memory() {
    if (raw_ != nullptr) detail::deallocate_raw(alloc_, raw_, count_);
  }

  void* get() const noexcept { return raw_; }
  T* release() noexcept { return std::exchange(raw_, nullptr); }

 private:
  allocator_type alloc_;
  std::size_t count_;
  T* raw_;
};

// Allocates a Block from `a` and constructs it from `args`; strong guarantee.
template <class Block, class Alloc, class... Args>
Block* new_block(const Alloc& a, Args&&... args) {
  block_memory<Block, Alloc> memory(a, 1);
  ::new (memory.get()) Block(std::forward<Args>(args)...);
  return memory.release();
}

// Destroys a Block made by new_block and frees it through its own stored allocator (or one rebuilt
// from the block's address: allocator_storage.hpp).
template <class Block, class Alloc>
void delete_block(Block* block, Alloc&& stored) noexcept {
  rebind_alloc_t<std::remove_reference_t<Alloc>, Block> a(std::move(stored));
  block->~Block();
  detail::deallocate_raw(a, block, 1);
}

}  // namespace own::detail
