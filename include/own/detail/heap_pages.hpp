// SPDX-License-Identifier: BSL-1.0
// The default heap's pages and where they come from.
//
// A page is 64 KiB, aligned to its size, so that a block finds its page by masking its address (no
// per-block header or pointer back). It holds blocks of one size class for one thread (its owner);
// its header sits in its first 256 bytes, on three cache lines by writer (see heap_page).
//
// Pages come from the operating system in regions of 64 (mmap) and are kept by one global list when
// free. A free page goes back to the system (madvise(MADV_DONTNEED), one call per run of adjacent
// pages, outside the lock, keeping its address for reuse) once it has been free for
// `heap_free_page_delay_ms`, as jemalloc's and mimalloc's decay do: a program that frees a large
// structure and builds the next one soon after reuses warm pages instead of faulting them in again.
// The check runs whenever the lock is taken (a page taken or given back, a thread's exit); there is no
// background thread, so a process that goes quiet keeps its free pages until its next page-level
// event. `heap_resident_pages` are kept however old. The pages of a thread that has exited go back at
// once: those free at its exit (with those it freed before, still resident), and the others when
// their last block is freed. own::heap::trim() gives back every free page. Under AddressSanitizer pages come
// from ::operator new, one at a time and kept, so that its leak checker scans them.
//
// Process-wide state sits behind one lock; it is taken only on the slow paths (a page taken or
// given back, a block freed into a page whose thread has exited, a thread's exit). It stays usable
// during static destruction: constant-initialised and trivially destructible.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>

#include "exceptions.hpp"
#include "heap_size_classes.hpp"
#include "process_wide.hpp"
#include "spinlock.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define OWN_HEAP_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define OWN_HEAP_ASAN 1
#endif
#endif
#ifndef OWN_HEAP_ASAN
#define OWN_HEAP_ASAN 0
#endif

#if defined(__unix__) || defined(__APPLE__)
#define OWN_HEAP_POSIX 1
#include <pthread.h>
#include <sys/mman.h>
#include <time.h>
#else
#define OWN_HEAP_POSIX 0
#endif

#if OWN_HEAP_ASAN
#include <sanitizer/asan_interface.h>
#endif

namespace own::detail {

inline constexpr std::size_t heap_page_size = std::size_t{64} * 1024;
inline constexpr std::size_t heap_region_pages = (OWN_HEAP_POSIX && !OWN_HEAP_ASAN) ? 64 : 1;
inline constexpr std::size_t heap_resident_pages = 32;  // 2 MiB of free pages kept however long
inline constexpr std::int64_t heap_free_page_delay_ms = 10000;  // jemalloc's default decay
inline constexpr std::size_t heap_discard_batch = 32;  // pages per sorted madvise batch

struct heap_block {
  heap_block* next;
};

struct thread_heap;

// `remote` holds the list of blocks other threads freed into the page, with a state in its two low
// bits (blocks are at least 8-aligned):
//  - normal: a remote free pushes its block;
//  - full (armed): the page is on its owner's full list, or on its available list with blocks out;
//    the next remote free pushes and moves the page to reawakening, then puts the page on its
//    owner's `reawakened` stack, then back to normal;
//  - reawakening: as normal for other frees; the owner waits for it to pass before it marks the page
//    full again, gives it back or leaves the thread;
//  - orphaned: the owner thread has exited; frees take the global lock.
enum heap_remote_state : std::uintptr_t { remote_normal = 0, remote_full = 1, remote_reawakening = 2, remote_orphaned = 3 };
inline constexpr std::uintptr_t remote_state_mask = 3;

// `used` counts the blocks out of `free` (handed out, or in the remote list), plus one while the page
// is its class's current page (so that the current page never looks empty), plus heap_full_bit while
// it is on the owner's full list: one compare after a decrement finds both cases the free path must
// look at.
inline constexpr std::uint32_t heap_full_bit = std::uint32_t{1} << 31;

// Three cache lines, by who writes them: a thread that frees a block into another thread's page
// reads the first and writes the third, and never touches the line the owner writes on every
// allocation and free (with `owner` beside `free` and `used`, each remote free's read made the
// owner's next write miss).
struct heap_page {
  // Written only when the page changes hands; read by every free.
  std::atomic<thread_heap*> owner{nullptr};  // null once orphaned; read by any thread (relaxed)
  std::uint32_t block_size = 0;
  std::uint16_t size_class = 0;
  std::uint64_t generation = 0;  // the owner's generation (see thread_heap); read on slow paths only
  // The owner's.
  alignas(64) heap_block* free = nullptr;
  std::uint32_t used = 0;
  bool armed = false;    // the owner set `remote` to full, and no free has reawakened the page since
  bool pending = false;  // may be on (or about to be pushed to) the owner's reawakened stack
  char* bump = nullptr;  // [bump, end): never handed out yet
  char* end = nullptr;
  heap_page* prev = nullptr;  // in the owner's available or full list, or the orphan list
  heap_page* next = nullptr;
  std::int64_t freed_at = 0;  // while free and resident: when it became so (heap_now)
  // Other threads'.
  alignas(64) std::atomic<std::uintptr_t> remote{remote_normal};
  heap_page* reawakened_next = nullptr;
};
// Where a page's blocks start: past its header, on a boundary of the strictest class alignment.
inline constexpr std::size_t heap_page_data_offset = 256;
static_assert(sizeof(heap_page) <= heap_page_data_offset, "a page's header fits before its data");
static_assert(heap_page_data_offset % heap_data_alignment == 0, "a page's data is aligned for every class");

inline heap_page* heap_page_of(const void* block) noexcept {
  return reinterpret_cast<heap_page*>(reinterpret_cast<std::uintptr_t>(block) & ~(heap_page_size - 1));
}

// A doubly linked list of pages.
inline void heap_list_push(heap_page*& head, heap_page* page) noexcept {
  page->prev = nullptr;
  page->next = head;
  if (head != nullptr) head->prev = page;
  head = page;
}
inline void heap_list_unlink(heap_page*& head, heap_page* page) noexcept {
  if (page->prev != nullptr) {
    page->prev->next = page->next;
  } else {
    head = page->next;
  }
  if (page->next != nullptr) page->next->prev = page->prev;
}

// A doubly linked queue of pages: appended at `last`, taken from `first`.
struct heap_page_queue {
  heap_page* first = nullptr;
  heap_page* last = nullptr;
};
inline void heap_queue_append(heap_page_queue& queue, heap_page* page) noexcept {
  page->prev = queue.last;
  page->next = nullptr;
  (queue.last != nullptr ? queue.last->next : queue.first) = page;
  queue.last = page;
}
inline void heap_queue_unlink(heap_page_queue& queue, heap_page* page) noexcept {
  (page->prev != nullptr ? page->prev->next : queue.first) = page->next;
  (page->next != nullptr ? page->next->prev : queue.last) = page->prev;
}

// The sentinel each class's current page is while the thread has none: nothing to hand out, so the
// fast path falls to the slow one without a null check.
OWN_PROCESS_WIDE inline heap_page heap_empty_page{};

struct heap_globals {
  spinlock lock;
  heap_page_queue resident;  // free pages still resident, oldest first
  std::size_t resident_count = 0;
  heap_page** cold = nullptr;  // free pages given back to the system (their memory reads as zero)
  std::size_t cold_count = 0;
  std::size_t cold_capacity = 0;
  char* region_next = nullptr;  // a mapped region's pages not handed out yet
  char* region_end = nullptr;
  heap_page* orphans = nullptr;  // pages with blocks out whose owner thread has exited
  std::size_t orphan_count = 0;
  // Per class, the orphan page that threads whose heap is given up allocate from (under the lock).
  heap_page* orphan_current[heap_class_count] = {};
  // In a child of fork(): every generation up to this one belongs to a thread that did not survive.
  std::uint64_t dead_generations = 0;
  std::size_t mapped_pages = 0;
  std::size_t pages_in_use = 0;  // held by threads
  std::atomic<bool> thread_exit_hooked{false};  // read without the lock once set
#if OWN_HEAP_POSIX
  pthread_key_t thread_exit_key{};
#endif
};
OWN_PROCESS_WIDE inline heap_globals heap_global{};

// ---- AddressSanitizer (with OWN_DEFAULT_ALLOCATOR=heap): a free block is poisoned but for its link

inline void heap_poison_free_block(heap_block* block, std::size_t size) noexcept {
#if OWN_HEAP_ASAN
  ASAN_POISON_MEMORY_REGION(reinterpret_cast<char*>(block) + sizeof(heap_block), size - sizeof(heap_block));
#else
  (void)block;
  (void)size;
#endif
}
inline void heap_unpoison_block(void* block, std::size_t size) noexcept {
#if OWN_HEAP_ASAN
  ASAN_UNPOISON_MEMORY_REGION(block, size);
#else
  (void)block;
  (void)size;
#endif
}

// ---- memory from the system

inline void* heap_map(std::size_t bytes) noexcept {
#if OWN_HEAP_POSIX && !OWN_HEAP_ASAN
  // Over-map by a page and trim both ends, for an address aligned to the page size.
  void* raw = ::mmap(nullptr, bytes + heap_page_size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return nullptr;
  const std::uintptr_t start = reinterpret_cast<std::uintptr_t>(raw);
  const std::uintptr_t aligned = (start + heap_page_size - 1) & ~(heap_page_size - 1);
  if (aligned != start) ::munmap(raw, aligned - start);
  const std::uintptr_t tail = start + bytes + heap_page_size - (aligned + bytes);
  if (tail != 0) ::munmap(reinterpret_cast<void*>(aligned + bytes), tail);
  return reinterpret_cast<void*>(aligned);
#else
  return ::operator new(bytes, std::align_val_t(heap_page_size), std::nothrow);
#endif
}

inline void heap_unmap(void* p, std::size_t bytes) noexcept {
#if OWN_HEAP_POSIX && !OWN_HEAP_ASAN
  ::munmap(p, bytes);
#else
  (void)bytes;
  ::operator delete(p, std::align_val_t(heap_page_size));
#endif
}

// Gives `count` free pages from `first` back to the system, keeping their addresses; reports whether
// it did.
inline bool heap_discard(heap_page* first, std::size_t count) noexcept {
#if OWN_HEAP_POSIX && !OWN_HEAP_ASAN
  return ::madvise(first, count * heap_page_size, MADV_DONTNEED) == 0;
#else
  (void)first;
  (void)count;
  return false;
#endif
}

// ---- free pages (all under heap_global.lock)

// Room for one more cold page in the cold array (itself mapped memory: the default heap never calls
// operator new behind a user's back); false if the system has none.
inline bool heap_reserve_cold_slot_locked() noexcept {
  heap_globals& g = heap_global;
  if (g.cold_count < g.cold_capacity) return true;
  const std::size_t capacity = g.cold_capacity == 0 ? heap_page_size / sizeof(heap_page*) : g.cold_capacity * 2;
  auto** grown = static_cast<heap_page**>(detail::heap_map(capacity * sizeof(heap_page*)));
  if (grown == nullptr) return false;
  for (std::size_t i = 0; i < g.cold_count; ++i) grown[i] = g.cold[i];
  if (g.cold != nullptr) detail::heap_unmap(g.cold, g.cold_capacity * sizeof(heap_page*));
  g.cold = grown;
  g.cold_capacity = capacity;
  return true;
}

// Milliseconds on a monotonic clock. The coarse clock where there is one: a few nanoseconds, and a
// tick of a few milliseconds is fine against a delay of seconds.
inline std::int64_t heap_now() noexcept {
#if defined(CLOCK_MONOTONIC_COARSE)
  constexpr clockid_t clock = CLOCK_MONOTONIC_COARSE;
#else
  constexpr clockid_t clock = CLOCK_MONOTONIC;
#endif
  timespec now{};
  ::clock_gettime(clock, &now);
  return static_cast<std::int64_t>(now.tv_sec) * 1000 + now.tv_nsec / 1000000;
}

inline void heap_keep_resident_locked(heap_page* page) noexcept {
  page->freed_at = detail::heap_now();
  detail::heap_queue_append(heap_global.resident, page);
  ++heap_global.resident_count;
}

inline void heap_unlink_resident_locked(heap_page* page) noexcept {
  detail::heap_queue_unlink(heap_global.resident, page);
  --heap_global.resident_count;
}

// A free page, kept resident (see heap_take_excess_locked).
inline void heap_release_page_locked(heap_page* page) noexcept {
  --heap_global.pages_in_use;
  detail::heap_keep_resident_locked(page);
}

// The resident free pages free for heap_free_page_delay_ms, beyond the heap_resident_pages kept (or all
// of them), oldest first, taken off the resident list and linked through `next`; null if none.
inline heap_page* heap_take_excess_locked(bool all) noexcept {
  heap_globals& g = heap_global;
  const std::size_t keep = all ? 0 : heap_resident_pages;
  if (g.resident_count <= keep) return nullptr;
  const std::int64_t freed_before = all ? INT64_MAX : detail::heap_now() - heap_free_page_delay_ms;
  heap_page* taken = nullptr;
  while (g.resident_count > keep && g.resident.first->freed_at <= freed_before) {
    heap_page* page = g.resident.first;
    detail::heap_unlink_resident_locked(page);
    page->next = taken;
    taken = page;
  }
  return taken;
}

// Gives free pages back to the system outside the lock (madvise is a system call, and takes one
// call per run of adjacent pages, in address order), then files them as given back; a page the
// system did not take, or that finds no room in the cold array, stays resident.
inline void heap_discard_pages(heap_page* pages) noexcept {
  while (pages != nullptr) {
    heap_page* batch[heap_discard_batch];
    std::size_t n = 0;
    for (; n < heap_discard_batch && pages != nullptr; ++n) {
      batch[n] = pages;
      pages = pages->next;
    }
    // Address order, for the runs below; an insertion sort, since n is at most 32 and <algorithm>
    // would cost every includer of shared_ptr.hpp.
    for (std::size_t i = 1; i < n; ++i) {
      heap_page* const page = batch[i];
      std::size_t j = i;
      for (; j > 0 && reinterpret_cast<std::uintptr_t>(page) < reinterpret_cast<std::uintptr_t>(batch[j - 1]); --j) batch[j] = batch[j - 1];
      batch[j] = page;
    }
    bool discarded[heap_discard_batch];
    for (std::size_t run = 0; run < n;) {
      std::size_t end = run + 1;
      while (end < n && reinterpret_cast<char*>(batch[end]) == reinterpret_cast<char*>(batch[end - 1]) + heap_page_size) ++end;
      const bool ok = detail::heap_discard(batch[run], end - run);
      for (std::size_t i = run; i < end; ++i) discarded[i] = ok;
      run = end;
    }
    spinlock_guard guard(heap_global.lock);
    for (std::size_t i = 0; i < n; ++i) {
      if (discarded[i] && detail::heap_reserve_cold_slot_locked()) {
        heap_global.cold[heap_global.cold_count++] = batch[i];
      } else {
        detail::heap_keep_resident_locked(batch[i]);  // (a discarded page's header is rewritten)
      }
    }
  }
}

// Holds the heap's lock for its scope, then gives back to the system, outside the lock, the pages
// given to it and the resident free pages that have waited long enough (all of them for `trim`):
// every section that takes or gives back a page ends this way.
class heap_lock_section {
 public:
  enum trim_t { trim };
  heap_lock_section() noexcept { heap_global.lock.lock(); }
  explicit heap_lock_section(trim_t) noexcept : all_(true) { heap_global.lock.lock(); }
  heap_lock_section(const heap_lock_section&) = delete;
  heap_lock_section& operator=(const heap_lock_section&) = delete;
  ~heap_lock_section() {
    heap_page* waited = detail::heap_take_excess_locked(all_);
    heap_global.lock.unlock();
    detail::heap_discard_pages(waited);
    detail::heap_discard_pages(given_);
  }

  // A page of an exited thread's that has just become free: back to the system now, not kept.
  void give_back(heap_page* page) noexcept {
    --heap_global.pages_in_use;
    page->next = given_;
    given_ = page;
  }
  // The resident free pages last held by the heap of `generation`, whose thread is exiting.
  void give_back_resident_of(std::uint64_t generation) noexcept {
    for (heap_page* page = heap_global.resident.first; page != nullptr;) {
      heap_page* next = page->next;
      if (page->generation == generation) {
        detail::heap_unlink_resident_locked(page);
        page->next = given_;
        given_ = page;
      }
      page = next;
    }
  }

 private:
  bool all_ = false;
  heap_page* given_ = nullptr;
};

inline void heap_release_page(heap_page* page) noexcept {
  heap_lock_section section;
  detail::heap_release_page_locked(page);
}

// A page to fill, set up for `size_class`: a resident free one, a given-back one, a fresh one.
// Throws std::bad_alloc if the system has no memory.
inline heap_page* heap_acquire_page_locked(std::size_t size_class) {
  heap_globals& g = heap_global;
  char* memory = nullptr;
  if (heap_page* newest = g.resident.last) {  // the warmest
    memory = reinterpret_cast<char*>(newest);
    detail::heap_unlink_resident_locked(newest);
  } else if (g.cold_count != 0) {
    memory = reinterpret_cast<char*>(g.cold[--g.cold_count]);
  } else {
    if (g.region_next == g.region_end) {
      g.region_next = static_cast<char*>(detail::heap_map(heap_region_pages * heap_page_size));
      if (g.region_next == nullptr) {
        g.region_end = nullptr;
        throw_exception<std::bad_alloc>();
      }
      g.region_end = g.region_next + heap_region_pages * heap_page_size;
      g.mapped_pages += heap_region_pages;
    }
    memory = g.region_next;
    g.region_next += heap_page_size;
  }
  ++g.pages_in_use;
  detail::heap_unpoison_block(memory, heap_page_size);  // its last class left its free blocks poisoned
  auto* page = ::new (memory) heap_page();
  page->block_size = heap_class_sizes[size_class];
  page->size_class = static_cast<std::uint16_t>(size_class);
  page->bump = memory + heap_page_data_offset;
  page->end = page->bump + (heap_page_size - heap_page_data_offset) / page->block_size * page->block_size;
  return page;
}

inline heap_page* heap_acquire_page(std::size_t size_class) {
  heap_lock_section section;
  return detail::heap_acquire_page_locked(size_class);
}

// Gives every resident free page back to the system.
inline void heap_discard_resident() noexcept {
  heap_lock_section section(heap_lock_section::trim);
}

}  // namespace own::detail
