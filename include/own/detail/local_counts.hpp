// SPDX-License-Identifier: BSL-1.0
// The non-atomic counts of a local_shared_ptr group: how many local_shared_ptr and local_weak_ptr
// share one object on one thread. The group as a whole holds references on the object's (atomic)
// control block:
//  - while any local_shared_ptr remains, exactly one shared reference;
//  - while none remains but a local_weak_ptr does, exactly one weak reference.
// So a local copy or destruction touches only `shared_`, and the atomic block is touched when the
// group starts, ends, or is revived by local_weak_ptr::lock.
//
// The counts live either inside the object's block (make_local_shared: one allocation, the block's
// first shared reference is the group's) or in a node of their own (a group made from an
// own::shared_ptr, which takes one shared reference for it; recycled per thread).
//
// Each count is a full word, read and written only at that width, so an increment followed by the
// decrement of a copy forwards from the store buffer.
#pragma once

#include <cstddef>
#include <memory>
#include <type_traits>

#include "control_block.hpp"
#include "recycling_allocator.hpp"

namespace own::detail {

class local_counts {
 public:
  // A group of one local_shared_ptr that holds one shared reference on `global`; `free_node`
  // frees these counts when the group ends (nullptr: they live in the block).
  local_counts(control_block* global, void (*free_node)(local_counts*) noexcept) noexcept
      : global_(global), free_node_(free_node) {}
  local_counts(const local_counts&) = delete;
  local_counts& operator=(const local_counts&) = delete;

  // A node of its own for the shared reference the caller holds on `global` (or will attach),
  // freed by its group's end, or by the node_ptr until the caller releases it. Throws std::bad_alloc.
  struct node_deleter {
    void operator()(local_counts* node) const noexcept { delete_node(node); }
  };
  using node_ptr = std::unique_ptr<local_counts, node_deleter>;
  static node_ptr make_node(control_block* global) {
    recycling_allocator<local_counts> a;
    return node_ptr(::new (static_cast<void*>(a.allocate(1))) local_counts(global, &delete_node));
  }
  void attach(control_block* global) noexcept { global_ = global; }

  void add_shared() noexcept { ++shared_; }
  void release_shared() noexcept {
    if (--shared_ == 0) last_shared_gone();
  }
  void add_weak() noexcept { ++weak_; }
  void release_weak() noexcept {
    if (--weak_ == 0 && shared_ == 0) last_weak_gone();
  }

  // local_weak_ptr::lock: a new local_shared_ptr, reviving the group if the object is still owned
  // elsewhere (by an own::shared_ptr made from this group).
  bool try_add_shared() noexcept {
    if (shared_ != 0) {
      ++shared_;
      return true;
    }
    if (!global_->try_add_shared()) return false;
    shared_ = 1;
    global_->release_weak();  // the group's shared reference now keeps the block
    return true;
  }

  std::size_t use_count() const noexcept { return shared_; }
  bool expired() const noexcept { return shared_ == 0 && global_->expired(); }
  control_block* global() const noexcept { return global_; }

 private:
  // Out of line, so that every local_shared_ptr destructor inlines to a decrement and a branch.
  [[gnu::noinline]] void last_shared_gone() noexcept {
    control_block* global = global_;
    if (weak_ != 0) {
      global->add_weak();  // before the release, so that the block (which may hold *this) stays
      global->release_shared();
      return;
    }
    if (free_node_) free_node_(this);
    global->release_shared();  // may free the block, and *this with it
  }
  [[gnu::noinline]] void last_weak_gone() noexcept {
    control_block* global = global_;
    if (free_node_) free_node_(this);
    global->release_weak();
  }

  std::size_t shared_ = 1;
  std::size_t weak_ = 0;
  // A function, not a flag, so that no `delete` is ever compiled into the path of housed counts.
  static void delete_node(local_counts* node) noexcept {
    static_assert(std::is_trivially_destructible_v<local_counts>);
    recycling_allocator<local_counts>().deallocate(node, 1);
  }

  control_block* global_;
  void (*free_node_)(local_counts*) noexcept;
};

// The base of a make_local_shared block: the atomic header, then the group's counts.
class local_block_header : public control_block {
 public:
  explicit local_block_header(const control_block_ops* ops) noexcept : control_block(ops), local_(this, nullptr) {}
  local_counts& local() noexcept { return local_; }

 private:
  local_counts local_;
};

}  // namespace own::detail
