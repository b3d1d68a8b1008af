// SPDX-License-Identifier: BSL-1.0
// The shared part of a concurrent pool: its chunks, and the magazines that carry blocks between
// threads. A magazine is an array of block pointers (Bonwick): moving a magazine between a thread and
// the depot moves `capacity` blocks by swapping one pointer, and neither filling nor emptying one
// touches the blocks' memory, so a block made on one core and freed on another is not dragged back
// and forth by free-list links. The depot keeps full magazines, empty magazines, and loose blocks (an
// intrusive list, for blocks left by exiting threads or spilled when no empty magazine can be had).
// Threads come here once per magazine, under one (adaptive) mutex per pool, off the per-block path.
#pragma once

#include <cstddef>
#include <memory_resource>
#include <mutex>
#include <new>

#include "adaptive_mutex.hpp"
#include "chunk_store.hpp"
#include "exceptions.hpp"
#include "free_list.hpp"

namespace own::detail {

// A magazine's header; `capacity` block pointers follow it.
struct magazine {
  magazine* next;  // in the depot's lists

  void** slots() noexcept { return reinterpret_cast<void**>(this + 1); }

  // A magazine that comes from the depot was last written on another core: asking for all its lines
  // at once overlaps their misses, instead of taking one miss per eight pops or pushes.
  void prefetch([[maybe_unused]] std::size_t count) noexcept {
#if defined(__GNUC__) || defined(__clang__)
    constexpr std::size_t per_line = 64 / sizeof(void*);
    for (std::size_t i = 0; i < count; i += per_line) __builtin_prefetch(&slots()[i], 1);
#endif
  }
};

class pool_depot {
 public:
  // Throws std::bad_alloc if a magazine of options.thread_cache_blocks block pointers would not fit a
  // std::size_t bytes.
  pool_depot(block_geometry geometry, const pool_options& options, std::pmr::memory_resource* upstream,
             const char* kind, const void* owner, const void* found)
      : chunks_(geometry, options, upstream, kind, owner, found),
        capacity_(options.thread_cache_blocks ? checked_capacity(options.thread_cache_blocks)
                                              : default_capacity(geometry.size)) {}
  pool_depot(const pool_depot&) = delete;
  pool_depot& operator=(const pool_depot&) = delete;
  ~pool_depot() {
    free_magazines(full_);
    free_magazines(empty_);
  }

  // Blocks per magazine.
  std::size_t capacity() const noexcept { return capacity_; }

  // An empty magazine: a spare one, else a new one from upstream (which may throw).
  magazine* new_magazine() {
    {
      std::lock_guard<adaptive_mutex> lock(mutex_);
      if (magazine* m = pop(empty_)) return m;
    }
    void* memory = chunks_.upstream()->allocate(magazine_bytes(), alignof(magazine));
    auto* m = ::new (memory) magazine{nullptr};
    for (std::size_t i = 0; i < capacity_; ++i) ::new (&m->slots()[i]) void*(nullptr);
    return m;
  }
  // Keeps an empty magazine for reuse; all go upstream with the depot.
  void delete_magazine(magazine* m) noexcept {
    std::lock_guard<adaptive_mutex> lock(mutex_);
    push(empty_, m);
  }

  // `m` is the caller's empty magazine. Makes it hold blocks and returns how many (at least one):
  // exchanges it for a parked full magazine if there is one, else fills it with loose blocks, else
  // with new ones, going upstream for a chunk only when the chunks are used up. Throws what upstream
  // throws, and then changes nothing.
  std::size_t refill(magazine*& m) {
    std::lock_guard<adaptive_mutex> lock(mutex_);
    if (magazine* full = pop(full_)) {
      --parked_;
      push(empty_, m);
      m = full;
      return capacity_;
    }
    std::size_t n = 0;
    while (n < capacity_ && !loose_.empty()) m->slots()[n++] = loose_.pop();
    if (n == 0 && chunks_.uncarved() == 0) chunks_.grow();
    for (; n < capacity_; ++n) {
      void* block = chunks_.carve();
      if (!block) break;
      m->slots()[n] = block;
    }
    return n;
  }

  // `m` is the caller's full magazine: parks it and hands back an empty one. If no empty magazine
  // can be had (upstream fails), the blocks are spilled into the loose list and `m` comes back empty.
  void park(magazine*& m) noexcept {
    magazine* empty = nullptr;
    {
      std::lock_guard<adaptive_mutex> lock(mutex_);
      empty = pop(empty_);
    }
    if (!empty) {
      OWN_TRY {
        empty = new_magazine();
      } OWN_CATCH_ALL {
        // Spilled below.
      }
    }
    std::lock_guard<adaptive_mutex> lock(mutex_);
    if (empty) {
      push(full_, m);
      ++parked_;
      m = empty;
    } else {
      spill(m, capacity_);
    }
  }

  // Takes back the first `count` blocks of `m` (an exiting thread's); the magazine stays the
  // caller's.
  void take_back(magazine* m, std::size_t count) noexcept {
    if (count == 0) return;
    std::lock_guard<adaptive_mutex> lock(mutex_);
    spill(m, count);
  }

  // One block, for a thread that has no cache any more (see thread_cache_registry.hpp). Throws what
  // upstream throws, and then changes nothing.
  void* take_one() {
    std::lock_guard<adaptive_mutex> lock(mutex_);
    if (loose_.empty()) {
      if (magazine* full = pop(full_)) {
        --parked_;
        spill(full, capacity_);
        push(empty_, full);
      }
    }
    if (!loose_.empty()) return loose_.pop();
    if (chunks_.uncarved() == 0) chunks_.grow();
    return chunks_.carve();
  }
  void put_one(void* block) noexcept {
    std::lock_guard<adaptive_mutex> lock(mutex_);
    loose_.push(block);
  }

  // Makes sure `blocks` more blocks can be handed out without upstream allocation, counting the
  // free blocks here (not those in thread caches). Throws what upstream throws, changing nothing.
  void reserve(std::size_t blocks) {
    std::lock_guard<adaptive_mutex> lock(mutex_);
    const std::size_t available = free_blocks() + chunks_.uncarved();
    if (available < blocks) chunks_.grow(blocks - available);
  }

  // Forgets every free block and returns every chunk upstream (magazines are kept). Precondition: no
  // thread uses the pool, and thread caches have been emptied.
  void release() noexcept {
    std::lock_guard<adaptive_mutex> lock(mutex_);
    while (magazine* m = pop(full_)) push(empty_, m);
    parked_ = 0;
    loose_ = {};
    chunks_.release();
  }

  // The depot's part of the statistics; call with mutex() held.
  std::size_t free_blocks() const noexcept { return parked_ * capacity_ + loose_.count; }
  const chunk_store& chunks() const noexcept { return chunks_; }
  chunk_store& chunks() noexcept { return chunks_; }
  adaptive_mutex& mutex() const noexcept { return mutex_; }

 private:
  // Enough blocks per magazine to make the trip here rare (a pipeline's two threads both come here
  // once per magazine), few enough that a thread's cache stays small: at most two magazines of
  // 64 KiB of blocks each.
  static std::size_t default_capacity(std::size_t block_size) noexcept {
    const std::size_t by_bytes = 65536 / block_size;
    return by_bytes > 256 ? 256 : by_bytes < 4 ? 4 : by_bytes;
  }

  static std::size_t checked_capacity(std::size_t blocks) {
    if (blocks > (static_cast<std::size_t>(-1) - sizeof(magazine)) / sizeof(void*)) throw_exception<std::bad_alloc>();
    return blocks;
  }

  std::size_t magazine_bytes() const noexcept { return sizeof(magazine) + capacity_ * sizeof(void*); }

  static magazine* pop(magazine*& list) noexcept {
    magazine* m = list;
    if (m) list = m->next;
    return m;
  }
  static void push(magazine*& list, magazine* m) noexcept {
    m->next = list;
    list = m;
  }
  void spill(magazine* m, std::size_t count) noexcept {
    for (std::size_t i = 0; i < count; ++i) loose_.push(m->slots()[i]);
  }
  void free_magazines(magazine* list) noexcept {
    while (magazine* m = pop(list)) chunks_.upstream()->deallocate(m, magazine_bytes(), alignof(magazine));
  }

  mutable adaptive_mutex mutex_{};
  chunk_store chunks_;
  const std::size_t capacity_;
  magazine* full_ = nullptr;
  std::size_t parked_ = 0;  // full magazines
  magazine* empty_ = nullptr;
  block_list loose_{};
};

}  // namespace own::detail
