// SPDX-License-Identifier: BSL-1.0
// Intrusive free lists: a free block stores the link to the next free block in its own first
// bytes, so keeping blocks costs no memory beyond the blocks themselves.
#pragma once

#include <cstddef>
#include <new>

namespace own::detail {

struct free_block {
  free_block* next;
};

// Starts the lifetime of a link object in the (dead) storage of a freed block.
inline free_block* link_block(void* block, free_block* next) noexcept { return ::new (block) free_block{next}; }

// A list with its length: the unit in which blocks move between a thread cache and its pool.
struct block_list {
  free_block* head = nullptr;
  std::size_t count = 0;

  bool empty() const noexcept { return head == nullptr; }
  void push(void* block) noexcept {
    head = link_block(block, head);
    ++count;
  }
  // Precondition: !empty().
  void* pop() noexcept {
    free_block* b = head;
    head = b->next;
    --count;
    return b;
  }
};

}  // namespace own::detail
