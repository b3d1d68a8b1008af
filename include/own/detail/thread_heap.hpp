// SPDX-License-Identifier: BSL-1.0
// The default heap: where own's factories and control blocks get their memory when no allocator is
// given (see <own/heap.hpp> for the contract).
//
// Each thread has a heap in trivial thread_local storage (reached from the thread pointer, no
// guard): per size class, a current page, a list of pages with blocks free and a list of full
// pages. The fast paths touch only the current page:
//  - allocate: pop the page's free list;
//  - free by the owner thread: push, and decrement `used`; one compare sends the rare cases (the
//    page became empty, or it was full) to the slow path;
//  - free by another thread: one CAS pushes the block on the page's `remote` list, which the owner
//    takes whole when its current page runs dry. A page that is not current and has blocks out (on
//    its owner's full list, or available) is armed: the first such free puts it on the owner's
//    reawakened stack (see heap_remote_state), and the owner, on its next slow path (or trim()),
//    takes those blocks back and gives the page back if it is empty.
// Fresh pages are carved in address order, so objects allocated one after another lie side by side,
// as with malloc; a page that becomes empty goes back to the global list (heap_pages.hpp).
//
// A thread's heap is given up when the thread exits (a pthread key's destructor, which runs after
// the thread's C++ thread_local destructors): its empty pages go back, its other pages become
// orphans, whose blocks are freed under the global lock and which go back once empty. A thread that
// allocates after that (from a later key destructor) gets blocks of orphan pages.
//
// Each set-up heap gets a new generation, which its pages record. After fork() the child's threads
// other than the forking one are gone; a new thread may be given the same thread-local storage and
// so match their pages' owner, but never their generation, and the slow paths leave such pages
// alone (their blocks are leaked in the child, never corrupted). A page of the forking thread that
// another thread was reawakening at the fork is set straight in the child (heap_after_fork_in_child).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "cpu_relax.hpp"
#include "exceptions.hpp"
#include "heap_pages.hpp"
#include "heap_size_classes.hpp"
#include "process_wide.hpp"
#include "replaced_operator_new.hpp"
#include "slow_path.hpp"

namespace own::detail {

// Blocks freed into one page another thread owns, linked head ... tail, held back so that a run of
// frees into the same page costs one compare-and-swap on its remote list rather than one each.
struct heap_remote_batch {
  heap_page* page = nullptr;
  heap_block* head = nullptr;
  heap_block* tail = nullptr;
  std::size_t bytes = 0;
};
// A batch is pushed once it holds this many bytes, or this many blocks: what a thread holds back
// is bounded (at most 27 classes x 2 KiB), and the page's owner gets its blocks soon.
inline constexpr std::size_t heap_remote_batch_bytes = 2048;
inline constexpr std::size_t heap_remote_batch_blocks = 32;

struct thread_heap {
  constexpr thread_heap() noexcept {
    for (heap_page*& page : current) page = &heap_empty_page;
  }

  heap_page* current[heap_class_count]{};
  // Pages with free blocks, in the order they got them: the one that has had longest to gather
  // frees is used first, so that a page does not come back into use for a single freed block.
  heap_page_queue available[heap_class_count]{};
  heap_page* full[heap_class_count]{};
  std::atomic<heap_page*> reawakened{nullptr};  // pages other threads reawakened, linked by reawakened_next
  std::uint64_t generation = 0;                 // 0: not set up on this thread
  // Given up at the thread's exit: what the thread allocates after that (in a later pthread key
  // destructor) comes from orphan pages, as glibc may run no further destructor round to give up a
  // new heap.
  bool given_up = false;
  // Per class, the blocks this thread freed into one page of another thread's, not yet pushed
  // (heap_free_remote).
  heap_remote_batch remote_batches[heap_class_count]{};
};

OWN_PROCESS_WIDE inline thread_local thread_heap this_thread_heap;
OWN_PROCESS_WIDE inline std::atomic<std::uint64_t> last_heap_generation{0};

// ---- the process-wide switch

enum class heap_mode : int { unknown = 0, pages = 1, operator_new = 2 };
OWN_PROCESS_WIDE inline std::atomic<int> heap_mode_setting{0};

// OWN_DEFAULT_ALLOCATOR=operator_new sends every block to ::operator new, =heap forces the pages; by
// default the pages, except where the pages would hide bugs from the tools looking for them
// (AddressSanitizer, valgrind), where there is no mmap, and where the program replaces operator new
// (to count or fail allocations, as tests do, or to serve them its own way).
inline heap_mode heap_mode_from_environment() noexcept {
  if (const char* setting = std::getenv("OWN_DEFAULT_ALLOCATOR")) {
    if (std::strcmp(setting, "operator_new") == 0) return heap_mode::operator_new;
    if (std::strcmp(setting, "heap") == 0) return heap_mode::pages;
    std::fprintf(stderr, "own: OWN_DEFAULT_ALLOCATOR=%s is neither 'heap' nor 'operator_new'; using the default\n",
                 setting);
  }
  if (!OWN_HEAP_POSIX || OWN_HEAP_ASAN) return heap_mode::operator_new;
  // valgrind preloads its vgpreload_*.so into every program it runs.
  const char* preload = std::getenv("LD_PRELOAD");
  if (preload != nullptr && std::strstr(preload, "vgpreload") != nullptr) return heap_mode::operator_new;
  if (detail::program_replaces_operator_new()) return heap_mode::operator_new;
  return heap_mode::pages;
}

inline heap_mode current_heap_mode() noexcept {
  int mode = heap_mode_setting.load(std::memory_order_acquire);
  if (mode == 0) {
    int unknown = 0;
    const int read = static_cast<int>(detail::heap_mode_from_environment());
    mode = heap_mode_setting.compare_exchange_strong(unknown, read, std::memory_order_acq_rel) ? read : unknown;
  }
  return static_cast<heap_mode>(mode);
}

inline void* heap_operator_new(std::size_t size, std::size_t align) {
  if (align > __STDCPP_DEFAULT_NEW_ALIGNMENT__) return ::operator new(size, std::align_val_t(align));
  return ::operator new(size);
}
inline void heap_operator_delete(void* p, std::size_t align) noexcept {
  if (align > __STDCPP_DEFAULT_NEW_ALIGNMENT__) {
    ::operator delete(p, std::align_val_t(align));
  } else {
    ::operator delete(p);
  }
}

// ---- the owner's page work

inline void* heap_pop(heap_page* page) noexcept {
  heap_block* block = page->free;
  page->free = block->next;
  ++page->used;
  detail::heap_unpoison_block(block, page->block_size);
  return block;
}

// Puts blocks other threads freed (a list taken from `remote`) back on the page's free list.
inline void heap_take_back(heap_page* page, heap_block* list) noexcept {
  while (list != nullptr) {
    heap_block* next = list->next;
    list->next = page->free;
    page->free = list;
    --page->used;
    list = next;
  }
}

// Takes the blocks other threads freed into `page` (its state stays); whether there were any.
inline bool heap_collect_remote(heap_page* page) noexcept {
  std::uintptr_t taken = page->remote.load(std::memory_order_relaxed);
  while ((taken & ~remote_state_mask) != 0 &&
         !page->remote.compare_exchange_weak(taken, taken & remote_state_mask, std::memory_order_acquire,
                                             std::memory_order_relaxed)) {
  }
  auto* list = reinterpret_cast<heap_block*>(taken & ~remote_state_mask);
  detail::heap_take_back(page, list);
  return list != nullptr;
}

// Blocks for a page whose free list is empty: up to 16 fresh ones carved in address order, or the
// blocks other threads freed into it. Null if it has neither.
inline void* heap_refill(heap_page* page) noexcept {
  const std::size_t size = page->block_size;
  if (page->bump != page->end) {
    const std::size_t fresh = static_cast<std::size_t>(page->end - page->bump) / size;
    const std::size_t carved = fresh < 16 ? fresh : 16;
    char* first = page->bump;
    page->bump += carved * size;
    heap_block* tail = nullptr;
    for (char* p = page->bump - size; p != first; p -= size) {
      auto* block = reinterpret_cast<heap_block*>(p);
      block->next = tail;
      detail::heap_poison_free_block(block, size);
      tail = block;
    }
    page->free = tail;
    ++page->used;
    return first;
  }
  if (detail::heap_collect_remote(page)) return detail::heap_pop(page);
  return nullptr;
}

// Waits out a remote free that is reawakening `page` (a few instructions, unless it was preempted).
inline std::uintptr_t heap_wait_reawakening(heap_page* page) noexcept {
  std::uintptr_t remote = page->remote.load(std::memory_order_acquire);
  while ((remote & remote_state_mask) == remote_reawakening) {
    yield_thread();
    remote = page->remote.load(std::memory_order_acquire);
  }
  return remote;
}

// Arms `page` (remote state normal -> full): the next free by another thread puts it on the
// reawakened stack. Not if it may be there already (pending: arming it could push it twice). False
// if blocks arrived meanwhile.
inline bool heap_arm(heap_page* page) noexcept {
  if (page->pending || page->armed) return true;
  std::uintptr_t expected = detail::heap_wait_reawakening(page);
  // Release: the reawakening free that reads this writes reawakened_next, which this thread read
  // when it last took the page off the stack.
  if (expected != remote_normal ||
      !page->remote.compare_exchange_strong(expected, remote_full, std::memory_order_release, std::memory_order_relaxed)) {
    return false;
  }
  page->armed = true;
  return true;
}

// Disarms `page` before it becomes current; if another thread reawakened it first, it is (or is
// about to be) on the reawakened stack.
inline void heap_disarm(heap_page* page) noexcept {
  if (!page->armed) return;
  page->armed = false;
  std::uintptr_t remote = page->remote.load(std::memory_order_relaxed);
  for (;;) {
    if ((remote & remote_state_mask) != remote_full) {
      page->pending = true;
      return;
    }
    if (page->remote.compare_exchange_weak(remote, remote & ~remote_state_mask, std::memory_order_relaxed)) return;
  }
}

// A page with no free block left leaves its class's current slot for the full list, armed. False
// (and the page stays current) if another thread freed a block into it meanwhile.
inline bool heap_park_full(thread_heap& heap, heap_page* page) noexcept {
  if (!detail::heap_arm(page)) return false;
  --page->used;  // no longer current
  page->used |= heap_full_bit;
  detail::heap_list_push(heap.full[page->size_class], page);
  return true;
}

// Back to the global list: an empty page that is not current and that no other thread can still
// reach (through the reawakened stack).
inline void heap_give_back_if_idle(thread_heap& heap, heap_page* page) noexcept {
  if (page->pending) return;
  detail::heap_wait_reawakening(page);
  detail::heap_queue_unlink(heap.available[page->size_class], page);
  detail::heap_release_page(page);
}

// A full page that has a free block again goes to the available list.
inline void heap_unpark(thread_heap& heap, heap_page* page) noexcept {
  page->used &= ~heap_full_bit;
  detail::heap_list_unlink(heap.full[page->size_class], page);
  detail::heap_queue_append(heap.available[page->size_class], page);
}

// An available page other threads free into: their blocks taken back, and the page given back if
// that empties it, else armed, so that their next free brings it here again. (Without this, pages a
// consumer thread emptied would wait for their owner to allocate from them again.)
inline void heap_settle(thread_heap& heap, heap_page* page) noexcept {
  do {
    detail::heap_collect_remote(page);
    if (page->used == 0) {
      detail::heap_give_back_if_idle(heap, page);
      return;
    }
  } while (!detail::heap_arm(page));
}

inline void heap_take_reawakened(thread_heap& heap) noexcept {
  if (heap.reawakened.load(std::memory_order_relaxed) == nullptr) return;
  heap_page* page = heap.reawakened.exchange(nullptr, std::memory_order_acquire);
  while (page != nullptr) {
    heap_page* next = page->reawakened_next;
    if (page->generation == heap.generation) {
      page->pending = false;
      page->armed = false;  // the reawakening used the arming up
      if ((page->used & heap_full_bit) != 0) detail::heap_unpark(heap, page);
      if (page != heap.current[page->size_class]) detail::heap_settle(heap, page);
    }
    page = next;
  }
}

// ---- thread exit

inline void heap_give_up_page_locked(heap_lock_section& section, heap_page* page) noexcept {
  page->used &= ~heap_full_bit;
  std::uintptr_t remote = page->remote.load(std::memory_order_acquire);
  for (;;) {
    if ((remote & remote_state_mask) == remote_reawakening) {
      yield_thread();  // the reawakening free takes no lock
      remote = page->remote.load(std::memory_order_acquire);
    } else if (page->remote.compare_exchange_weak(remote, remote_orphaned, std::memory_order_acquire)) {
      break;
    }
  }
  detail::heap_take_back(page, reinterpret_cast<heap_block*>(remote & ~remote_state_mask));
  page->owner.store(nullptr, std::memory_order_relaxed);
  page->pending = false;
  page->armed = false;
  if (page->used == 0) {
    section.give_back(page);
  } else {
    detail::heap_list_push(heap_global.orphans, page);
    ++heap_global.orphan_count;
  }
}

// Calls f(page) for each of `heap`'s pages: the current ones, then those of the available and full
// lists as they were when their class was reached (f may move or give back the page it is given).
template <class F>
void heap_for_each_page(thread_heap& heap, F f) {
  for (std::size_t c = 0; c < heap_class_count; ++c) {
    if (heap.current[c] != &heap_empty_page) f(heap.current[c]);
    for (heap_page* page : {heap.available[c].first, heap.full[c]}) {
      while (page != nullptr) {
        heap_page* next = page->next;
        f(page);
        page = next;
      }
    }
  }
}

inline void heap_push_remote_batches(thread_heap& heap) noexcept;

inline void heap_give_up(thread_heap& heap) noexcept {
  detail::heap_push_remote_batches(heap);  // before the lock: a push into an orphan takes it
  heap_lock_section section;
  section.give_back_resident_of(heap.generation);
  detail::heap_for_each_page(heap, [&heap, &section](heap_page* page) {
    if (page == heap.current[page->size_class]) --page->used;  // no longer current
    detail::heap_give_up_page_locked(section, page);
  });
  for (std::size_t c = 0; c < heap_class_count; ++c) {
    heap.current[c] = &heap_empty_page;
    heap.available[c] = {};
    heap.full[c] = nullptr;
  }
  heap.reawakened.store(nullptr, std::memory_order_relaxed);
  heap.generation = 0;
  heap.given_up = true;
}

// For a thread whose heap is given up: a block from the class's orphan allocation page, under the
// lock (a few allocations at thread exit). The page is pinned (one more in `used`) while it is the
// one allocated from; its blocks are freed as any orphan's.
OWN_NOINLINE inline void* heap_allocate_orphaned(std::size_t size_class) {
  heap_lock_section section;
  heap_page*& page = heap_global.orphan_current[size_class];
  if (page == nullptr || (page->free == nullptr && page->bump == page->end)) {
    heap_page* fresh = detail::heap_acquire_page_locked(size_class);
    fresh->remote.store(remote_orphaned, std::memory_order_relaxed);
    fresh->used = 1;
    detail::heap_list_push(heap_global.orphans, fresh);
    ++heap_global.orphan_count;
    if (page != nullptr && --page->used == 0) {
      detail::heap_list_unlink(heap_global.orphans, page);
      --heap_global.orphan_count;
      section.give_back(page);
    }
    page = fresh;
  }
  if (page->free != nullptr) return detail::heap_pop(page);
  return detail::heap_refill(page);
}

#if OWN_HEAP_POSIX
inline void heap_thread_exit(void* heap) noexcept { detail::heap_give_up(*static_cast<thread_heap*>(heap)); }
inline void heap_before_fork() noexcept { heap_global.lock.lock(); }
inline void heap_after_fork_in_parent() noexcept { heap_global.lock.unlock(); }

// In the child, on the thread that forked (the only one):
//  - every heap of the parent's other threads is dead: their thread-local storage may be reused or
//    unmapped, so a free that would reawaken one of their pages leaves the page alone
//    (dead_generations), and the surviving heap and its pages get a new generation above them;
//  - a page of the surviving heap that another thread was reawakening at the fork stays
//    reawakening for good, and every wait for it would hang: it goes back to normal, off the full
//    list, and counts as perhaps on the reawakened stack (pending; if it is not, it is never given
//    back: a page per thread that was reawakening, at most).
inline void heap_after_fork_in_child() noexcept {
  heap_global.lock.unlock();
  heap_global.dead_generations = last_heap_generation.load(std::memory_order_relaxed);
  thread_heap& heap = this_thread_heap;
  if (heap.generation == 0) return;
  heap.generation = last_heap_generation.fetch_add(1, std::memory_order_relaxed) + 1;
  detail::heap_for_each_page(heap, [&heap](heap_page* page) {
    page->generation = heap.generation;
    const std::uintptr_t remote = page->remote.load(std::memory_order_relaxed);
    if ((remote & remote_state_mask) == remote_reawakening) {
      page->remote.store(remote & ~remote_state_mask, std::memory_order_relaxed);
      page->pending = true;
      page->armed = false;
      if ((page->used & heap_full_bit) != 0) detail::heap_unpark(heap, page);
    }
  });
}

// Registered as the program starts, before any handler a library registers later (and which may
// allocate from the heap in the child), so that the heap's lock is free while those run: prepare
// handlers run in reverse order of registration, the others in order.
// A static member of a class template, odr-used only by heap_require_fork_handlers<T>, so only a
// translation unit that allocates from the heap has the dynamic initializer: one in every
// translation unit that includes shared_ptr.hpp cost it a tenth of <memory>'s compile time. Every
// T instantiates the same member (the argument is always true). Process-wide, like the lock.
template <bool>
struct OWN_PROCESS_WIDE heap_fork_handlers {
  static const bool registered;
};
template <bool Always>
const bool heap_fork_handlers<Always>::registered =
    ::pthread_atfork(&detail::heap_before_fork, &detail::heap_after_fork_in_parent, &detail::heap_after_fork_in_child) == 0;
#endif

// Called where blocks are allocated (heap_allocator<T>::allocate), so that a program that uses the
// heap registers its fork handlers.
template <class T>
inline void heap_require_fork_handlers() noexcept {
#if OWN_HEAP_POSIX
  static_cast<void>(&heap_fork_handlers<sizeof(T) != 0>::registered);
#endif
}

// Arranges for the heap to be given up at this thread's exit, and gives it a generation; false if
// the system refused (no pthread key left).
inline bool heap_hook_thread_exit(thread_heap& heap) noexcept {
#if OWN_HEAP_POSIX
  // The lock only the first time: a thread whose first own free comes in another library's fork
  // prepare handler must not wait for the lock the heap's own handler holds.
  if (!heap_global.thread_exit_hooked.load(std::memory_order_acquire)) {
    spinlock_guard guard(heap_global.lock);
    if (!heap_global.thread_exit_hooked.load(std::memory_order_relaxed)) {
      if (::pthread_key_create(&heap_global.thread_exit_key, &detail::heap_thread_exit) != 0) return false;
      heap_global.thread_exit_hooked.store(true, std::memory_order_release);
    }
  }
  if (::pthread_setspecific(heap_global.thread_exit_key, &heap) != 0) return false;
#endif
  heap.generation = last_heap_generation.fetch_add(1, std::memory_order_relaxed) + 1;
  return true;
}

// Makes this thread's heap ready; false if blocks are to come from ::operator new.
inline bool heap_set_up(thread_heap& heap) {
  if (detail::current_heap_mode() != heap_mode::pages) return false;
  if (!detail::heap_hook_thread_exit(heap)) throw_exception<std::bad_alloc>();
  return true;
}

// ---- the paths

OWN_NOINLINE inline void* heap_allocate_slow(std::size_t size_class, std::size_t size, std::size_t align) {
  thread_heap& heap = this_thread_heap;
  if (heap.generation == 0) {
    if (heap.given_up) return detail::heap_allocate_orphaned(size_class);
    if (!detail::heap_set_up(heap)) return detail::heap_operator_new(size, align);
  }
  detail::heap_take_reawakened(heap);
  // Blocks this thread freed into another thread's page and holds back are still in its cache, and
  // still counted as out by their page: given out again, before this thread's own page is refilled
  // (which would take back blocks another core freed, a cache miss each) or another page is used.
  heap_remote_batch& batch = heap.remote_batches[size_class];
  if (batch.head != nullptr) {
    heap_block* block = batch.head;
    const std::size_t block_size = heap_class_sizes[size_class];  // not from the other thread's page
    if (block == batch.tail) {
      batch = {};
    } else {
      batch.head = block->next;
      batch.bytes -= block_size;
    }
    detail::heap_unpoison_block(block, block_size);
    return block;
  }
  for (;;) {
    heap_page* page = heap.current[size_class];
    if (page != &heap_empty_page) {
      if (page->free != nullptr) return detail::heap_pop(page);
      if (void* block = detail::heap_refill(page)) return block;
      if (!detail::heap_park_full(heap, page)) continue;
      heap.current[size_class] = &heap_empty_page;  // stays so if no page can be had
    }
    page = heap.available[size_class].first;
    if (page != nullptr) {
      detail::heap_queue_unlink(heap.available[size_class], page);
      detail::heap_disarm(page);
    } else {
      page = detail::heap_acquire_page(size_class);
      page->generation = heap.generation;
      page->owner.store(&heap, std::memory_order_relaxed);
    }
    ++page->used;  // current
    heap.current[size_class] = page;
  }
}

// After a free by the owner left `page` empty or found it full.
OWN_NOINLINE inline void heap_free_slow(thread_heap& heap, heap_page* page) noexcept {
  if (page->generation != heap.generation) return;  // inherited across fork(): left alone
  // Unparked, it stays armed: a block another thread frees into it still brings it back here.
  if ((page->used & heap_full_bit) != 0) detail::heap_unpark(heap, page);
  if (page->used == 0) detail::heap_give_back_if_idle(heap, page);
}

OWN_NOINLINE inline void heap_free_orphaned(heap_page* page, heap_block* block) noexcept {
  heap_lock_section section;
  block->next = page->free;
  page->free = block;
  detail::heap_poison_free_block(block, page->block_size);
  heap_page*& allocated_from = heap_global.orphan_current[page->size_class];
  if (allocated_from == page && page->used == 2) {  // its last block, and the pin: nobody needs it
    allocated_from = nullptr;
    --page->used;
  }
  if (--page->used == 0) {
    detail::heap_list_unlink(heap_global.orphans, page);
    --heap_global.orphan_count;
    section.give_back(page);
  }
}

// Pushes the blocks head ... tail (linked) onto `page`'s remote list; the page's owner takes them
// when it next needs blocks. Each block was poisoned before it was linked.
inline void heap_push_remote(heap_page* page, heap_block* head, heap_block* tail) noexcept {
  std::uintptr_t remote = page->remote.load(std::memory_order_relaxed);
  std::uintptr_t state;
  for (;;) {
    state = remote & remote_state_mask;
    if (state == remote_orphaned) {
      while (head != nullptr) {
        heap_block* next = head == tail ? nullptr : head->next;
        detail::heap_free_orphaned(page, head);
        head = next;
      }
      return;
    }
    tail->next = reinterpret_cast<heap_block*>(remote & ~remote_state_mask);
    const std::uintptr_t next_state = state == remote_full ? remote_reawakening : state;
    if (page->remote.compare_exchange_weak(remote, reinterpret_cast<std::uintptr_t>(head) | next_state,
                                           std::memory_order_acq_rel, std::memory_order_relaxed)) {
      break;
    }
  }
  if (state != remote_full) return;
  // This push reawakens the page: its owner waits for the state to leave reawakening before it
  // exits, so it is still there to take the page (unless it is a thread that did not survive a
  // fork into this process: then nobody takes it).
  if (page->generation > heap_global.dead_generations) {
    thread_heap* owner = page->owner.load(std::memory_order_relaxed);
    heap_page* top = owner->reawakened.load(std::memory_order_relaxed);
    do {
      page->reawakened_next = top;
    } while (!owner->reawakened.compare_exchange_weak(top, page, std::memory_order_release, std::memory_order_relaxed));
  }
  remote = page->remote.load(std::memory_order_relaxed);
  while (!page->remote.compare_exchange_weak(remote, remote & ~remote_state_mask, std::memory_order_release,
                                             std::memory_order_relaxed)) {
  }
}

inline void heap_push_remote_batch(heap_remote_batch& batch) noexcept {
  if (batch.page == nullptr) return;
  detail::heap_push_remote(batch.page, batch.head, batch.tail);
  batch = {};
}

// Pushes every block this thread holds back (at its exit, and on trim()).
inline void heap_push_remote_batches(thread_heap& heap) noexcept {
  for (heap_remote_batch& batch : heap.remote_batches) detail::heap_push_remote_batch(batch);
}

// Whether this thread may hold blocks back: only if its exit gives them to their pages, which a
// thread that never allocated from the heap must first arrange (false if it cannot, or where there
// is no exit hook). Known hole: a thread whose first such free comes in the last round of pthread
// key destructors (another library's destructor that set its key again three times) is hooked too
// late for that round, and the blocks it then holds back (2 KiB per class at most) stay out.
inline bool heap_may_batch(thread_heap& heap) noexcept {
#if OWN_HEAP_POSIX
  if (heap.generation != 0) return true;
  if (heap.given_up) return false;
  return detail::heap_hook_thread_exit(heap);
#else
  static_cast<void>(heap);
  return false;
#endif
}

// A free into a page another thread owns. Held back in this thread's batch for its class while the
// frees go to one page; the batch goes to the page when it is full, or when a free of the class goes
// to another page. (A consumer dropping what one producer made frees into one page after another.)
OWN_NOINLINE inline void heap_free_remote(heap_page* page, heap_block* block) noexcept {
  // Before the push: once pushed, the block (and, emptied, the page) may be another's.
  detail::heap_poison_free_block(block, page->block_size);
  thread_heap& heap = this_thread_heap;
  heap_remote_batch& batch = heap.remote_batches[page->size_class];
  // Not for a page whose owner has exited (its frees take the lock; it goes back once they are all
  // in), nor on a thread that cannot be sure to pass them on.
  if (page->owner.load(std::memory_order_relaxed) == nullptr || !detail::heap_may_batch(heap)) {
    if (batch.page == page) detail::heap_push_remote_batch(batch);  // an orphan's: all in, it can go back
    detail::heap_push_remote(page, block, block);
    return;
  }
  if (batch.page != page) {
    detail::heap_push_remote_batch(batch);
    batch.page = page;
    batch.tail = block;
  } else {
    block->next = batch.head;
  }
  batch.head = block;
  batch.bytes += page->block_size;
  if (batch.bytes >= heap_remote_batch_bytes || batch.bytes >= heap_remote_batch_blocks * page->block_size) {
    detail::heap_push_remote_batch(batch);
  }
}

// A block of `size` bytes aligned to `align`, of class `size_class` (< heap_class_count).
inline void* heap_allocate(std::size_t size_class, std::size_t size, std::size_t align) {
  heap_page* page = this_thread_heap.current[size_class];
  if (OWN_UNLIKELY(page->free == nullptr)) return detail::heap_allocate_slow(size_class, size, align);
  return detail::heap_pop(page);
}

inline void heap_deallocate(void* p, std::size_t align) noexcept {
  if (OWN_UNLIKELY(heap_mode_setting.load(std::memory_order_relaxed) == static_cast<int>(heap_mode::operator_new))) {
    detail::heap_operator_delete(p, align);
    return;
  }
  heap_page* page = detail::heap_page_of(p);
  thread_heap& heap = this_thread_heap;
  auto* block = static_cast<heap_block*>(p);
  if (OWN_UNLIKELY(page->owner.load(std::memory_order_relaxed) != &heap)) {
    detail::heap_free_remote(page, block);
    return;
  }
  block->next = page->free;
  page->free = block;
  detail::heap_poison_free_block(block, page->block_size);
  const std::uint32_t left = --page->used;
  if (OWN_UNLIKELY(left - 1 >= heap_full_bit - 1)) detail::heap_free_slow(heap, page);
}

}  // namespace own::detail
