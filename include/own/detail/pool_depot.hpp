// The shared part of a concurrent pool: its chunks, a stack of full magazines that threads have
// parked, and loose free blocks (left by exiting threads). Threads come here once per magazine
// (dozens of blocks), under one mutex per pool, so the mutex is off the per-block path.
//
// A parked magazine is an intrusive list of exactly `capacity` blocks whose first block also links
// the next magazine (hence concurrent pools' blocks hold at least two pointers).
#pragma once

#include <cstddef>
#include <mutex>

#include "chunk_store.hpp"
#include "free_list.hpp"

namespace own::detail {

class pool_depot {
 public:
  static constexpr std::size_t min_block_size = 2 * sizeof(void*);

  pool_depot(block_geometry geometry, const pool_options& options, std::pmr::memory_resource* upstream,
             const char* kind, const void* owner) noexcept
      : chunks_(geometry, options, upstream, kind, owner),
        capacity_(options.thread_cache_blocks ? options.thread_cache_blocks : default_capacity(geometry.size)) {}

  // Blocks per magazine.
  std::size_t capacity() const noexcept { return capacity_; }

  // Between 1 and `wanted` blocks: a parked magazine if one is there (when loose blocks cannot serve
  // a smaller request), else loose blocks, else new ones, going upstream for a chunk only when the
  // chunks are used up.
  // Throws what upstream throws, and then changes nothing.
  block_list take(std::size_t wanted) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (magazines_ && (wanted >= capacity_ || loose_.empty())) {
      block_list batch{magazines_, capacity_};
      magazines_ = magazines_->next_magazine;
      --parked_;
      while (batch.count > wanted) loose_.push(batch.pop());
      return batch;
    }
    block_list batch;
    while (batch.count < wanted && !loose_.empty()) batch.push(loose_.pop());
    if (batch.empty() && chunks_.uncarved() == 0) chunks_.grow();
    while (batch.count < wanted) {
      void* block = chunks_.carve();
      if (!block) break;
      batch.push(block);
    }
    return batch;
  }

  // Takes blocks back: a full magazine is parked as it is, any other list joins the loose blocks.
  void put(block_list blocks) noexcept {
    if (blocks.empty()) return;
    std::lock_guard<std::mutex> lock(mutex_);
    if (blocks.count == capacity_) {
      free_block* second = blocks.head->next;
      magazines_ = ::new (static_cast<void*>(blocks.head)) magazine{{second}, magazines_};
      ++parked_;
      return;
    }
    while (!blocks.empty()) loose_.push(blocks.pop());
  }

  // Makes sure `blocks` more blocks can be handed out without upstream allocation, counting the
  // free blocks here (not those in thread caches). Throws what upstream throws, changing nothing.
  void reserve(std::size_t blocks) {
    std::lock_guard<std::mutex> lock(mutex_);
    const std::size_t available = free_blocks() + chunks_.uncarved();
    if (available < blocks) chunks_.grow(blocks - available);
  }

  // Precondition: no thread uses the pool, and thread caches have been emptied.
  void release() noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    magazines_ = nullptr;
    parked_ = 0;
    loose_ = {};
    chunks_.release();
  }

  // The depot's part of the statistics; call with `lock()` held.
  std::size_t free_blocks() const noexcept { return parked_ * capacity_ + loose_.count; }
  const chunk_store& chunks() const noexcept { return chunks_; }
  chunk_store& chunks() noexcept { return chunks_; }
  std::mutex& mutex() const noexcept { return mutex_; }

 private:
  struct magazine : free_block {
    magazine* next_magazine;
  };

  // Enough blocks per magazine to make the trip here rare, few enough that two magazines per thread
  // stay small next to the blocks' own size.
  static std::size_t default_capacity(std::size_t block_size) noexcept {
    const std::size_t by_bytes = 16384 / block_size;
    return by_bytes > 64 ? 64 : by_bytes < 4 ? 4 : by_bytes;
  }

  mutable std::mutex mutex_;
  chunk_store chunks_;
  const std::size_t capacity_;
  magazine* magazines_ = nullptr;
  std::size_t parked_ = 0;
  block_list loose_;
};

}  // namespace own::detail
