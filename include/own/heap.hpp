// SPDX-License-Identifier: BSL-1.0
/// @file
/// <own/heap.hpp>: the default heap, where own gets memory when no allocator is given.
///
/// make_shared, make_shared_for_overwrite, make_shared_object/array and their array forms,
/// make_managed, make_local_shared, and the control blocks of shared_ptr(p), shared_ptr(p, d),
/// shared_ptr(unique_ptr&&) and shared_ptr(managed_ptr&&) take their memory from here; whatever is
/// given an allocator (allocate_shared, shared_ptr(p, d, a), the _with_alloc forms, pools) uses that
/// allocator only. heap_allocator<T> is the same heap as a standard Allocator, for users' containers.
///
/// What it is: per-thread pages of one size class each (27 classes from 16 bytes to 2 KiB, 8-byte
/// steps up to 64, then four per doubling, so a 40-byte block costs 40 and a 200-byte one 224); an
/// allocation and a free by the same thread are a pop and a push on a thread-local list. A thread
/// that frees blocks of another thread's page holds them back, up to 2 KiB or 32 blocks per size
/// class, and passes them on with one CAS when that batch is full, when it frees a block of the class
/// into another page, at its exit, or at trim(); until then, they are the first blocks it allocates
/// of that class once its own page runs dry (still in its cache, and still counted as out by their
/// page). Blocks allocated one after another lie side by side. Larger requests, and alignments
/// above 128, go to ::operator new.
///
/// Memory: a page that becomes empty goes to a process-wide list of free pages, and back to the
/// system (madvise) once it has been free for `free_page_delay` (ten seconds, jemalloc's default
/// decay), so a program that frees a large structure and builds another soon after reuses warm pages
/// instead of faulting them in again. The delay is checked whenever a thread takes or gives back a
/// page; there is no background thread, so a process that goes quiet keeps its free pages until then,
/// or until trim(). 2 MiB of free pages are kept however long. A thread's pages go back at once when it
/// exits: those free then (and those it emptied before), and those still holding blocks when their
/// last block is freed (by any thread). trim() gives back every free page. fork() is safe: the child's
/// heap works; blocks of the parent's other threads are never reused in the child.
///
/// The switch: the environment variable OWN_DEFAULT_ALLOCATOR, read once, at the first allocation:
///  - `operator_new`: every block comes from ::operator new and goes back to ::operator delete (for
///    heap profilers, and a replaced operator new that the default cannot see);
///  - `heap`: the pages, even where they are off by default;
///  - unset: the pages, except under AddressSanitizer and valgrind (so that their use-after-free,
///    leak and bounds reports stay as precise as for new/delete), where there is no mmap, and in a
///    program that replaces operator new itself, as tests that count allocations or make them fail
///    do: its blocks then go where std's would. Seen on glibc 2.34 and later, where the executable
///    exports its operator new (linked dynamically to libstdc++ or libc++); an operator new that a
///    shared library brings (tcmalloc, jemalloc, mimalloc) leaves the pages on.
/// With `heap` under AddressSanitizer, a freed block is poisoned but for its first 8 bytes (its link),
/// so a use after free is reported as use-after-poison; leaks in the heap's blocks are not reported;
/// and free pages stay cached (trim() and the delay give nothing back: the pages come from ASan's
/// operator new, so that it sees every byte, and only it may give them back). The same without mmap.
///
/// Usage example (heap_test runs it):
///
///     #include <own/heap.hpp>
///     #include <own/shared_ptr.hpp>
///
///     std::vector<int, own::heap_allocator<int>> v{1, 2, 3};   // a container on the default heap
///     auto p = own::make_shared<int>(42);                       // from the default heap, no set-up
///     own::heap::statistics s = own::heap::current_statistics();
///     own::heap::trim();                                        // free pages back to the system
#pragma once

#include "detail/cxx17_required.hpp"  // first, so that C++14 gets one error, not hundreds

#include <chrono>
#include <cstddef>

#include "detail/heap_allocator.hpp"
#include "detail/heap_size_classes.hpp"
#include "detail/thread_heap.hpp"

namespace own {

namespace heap {

/// The largest block the heap serves; larger requests go to ::operator new.
inline constexpr std::size_t max_block_size = detail::heap_max_block_size;

/// How long a free page stays resident before it goes back to the system (beyond the 2 MiB kept).
inline constexpr std::chrono::milliseconds free_page_delay{detail::heap_free_page_delay_ms};

/// The bytes a request of `size` bytes aligned to `align` (a power of two) takes: its class's size,
/// or `size` itself where ::operator new serves it. Constant for constant arguments, for sizing pools.
constexpr std::size_t block_size(std::size_t size, std::size_t align = alignof(std::max_align_t)) noexcept {
  const std::size_t c = detail::heap_class_search(size, align);
  return c == detail::heap_class_count ? size : detail::heap_class_sizes[c];
}

/// What current_statistics() reports about the default heap.
struct statistics {
  std::size_t mapped_bytes;    ///< address space taken from the system (never given back)
  std::size_t in_use_bytes;    ///< pages held by threads or by blocks of exited threads
  std::size_t cached_bytes;    ///< free pages resident for reuse (see free_page_delay)
  std::size_t orphaned_pages;  ///< pages whose thread has exited and that still hold blocks
};

/// A consistent snapshot (under the heap's lock).
inline statistics current_statistics() noexcept {
  detail::spinlock_guard guard(detail::heap_global.lock);
  const detail::heap_globals& g = detail::heap_global;
  return {g.mapped_pages * detail::heap_page_size, g.pages_in_use * detail::heap_page_size,
          g.resident_count * detail::heap_page_size, g.orphan_count};
}

/// Gives back to the system every free page kept resident, after giving back the calling thread's
/// pages that other threads have emptied since it last allocated, and passing on the blocks it freed
/// into other threads' pages and still holds back. noexcept; takes the heap's lock.
inline void trim() noexcept {
  detail::thread_heap& heap = detail::this_thread_heap;
  if (heap.generation != 0) {
    detail::heap_push_remote_batches(heap);
    detail::heap_take_reawakened(heap);
  }
  detail::heap_discard_resident();
}

/// Whether the switch sends every block to ::operator new (decides the setting if nothing has yet).
inline bool uses_operator_new() noexcept { return detail::current_heap_mode() == detail::heap_mode::operator_new; }

}  // namespace heap

}  // namespace own
