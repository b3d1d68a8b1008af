// SPDX-License-Identifier: BSL-1.0
// own's process-wide state (detail/process_wide.hpp) is one copy even when own is compiled into
// several shared libraries with hidden visibility: two libraries built from the same source
// (tests/shared_libraries/) share hazard records, the locks of the shared_ptr atomic free functions,
// and concurrent pools' ids and thread caches.
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <thread>

#include "shared_libraries/library.hpp"

namespace {

// A reader in one library, a writer in the other: with a copy of the hazard records each, the
// writer would free nodes the reader is copying from (AddressSanitizer: heap-use-after-free).
TEST(SharedLibraries, ReaderAndWriterShareHazardRecords) {
  own::atomic_shared_ptr<long> value(own::make_shared<long>(0));
  constexpr long rounds = 200'000;
  std::atomic<bool> writing{true};
  std::thread reader([&] {
    while (writing.load(std::memory_order_relaxed)) EXPECT_GE(a_load_many(&value, 100), 0);
  });
  b_store_many(&value, rounds);
  writing.store(false, std::memory_order_relaxed);
  reader.join();
  EXPECT_EQ(*value.load(), rounds - 1);
}

// The same with a plain shared_ptr and the free functions: with a table of locks each, the two
// libraries would not exclude each other, and the reader would copy a value the writer frees.
TEST(SharedLibraries, ReaderAndWriterShareTheLocksOfTheFreeFunctions) {
  own::shared_ptr<long> value = own::make_shared<long>(0);
  constexpr long rounds = 200'000;
  std::atomic<bool> writing{true};
  std::thread reader([&] {
    while (writing.load(std::memory_order_relaxed)) EXPECT_GE(a_atomic_load_many(&value, 100), 0);
  });
  b_atomic_store_many(&value, rounds);
  writing.store(false, std::memory_order_relaxed);
  reader.join();
  EXPECT_EQ(*value, rounds - 1);
}

// Each library makes its first pool; with an id counter each, both pools would have the same id,
// and library b's per-thread cache table would hand pool a's block out of pool b.
TEST(SharedLibraries, PoolsMadeInDifferentLibrariesKeepTheirBlocks) {
  std::unique_ptr<own::concurrent_pool> pool_a(a_make_pool(64));
  std::unique_ptr<own::concurrent_pool> pool_b(b_make_pool(64));
  void* from_a = b_allocate(pool_a.get());
  b_deallocate(pool_a.get(), from_a);
  void* from_b = b_allocate(pool_b.get());
  EXPECT_NE(from_b, from_a);
  EXPECT_EQ(pool_b->statistics().blocks_in_use, 1u);
  EXPECT_EQ(pool_a->statistics().blocks_in_use, 0u);
  b_deallocate(pool_b.get(), from_b);
}

// One default heap per thread: with a copy per library, a block made by one library and freed by
// another on the same thread would take the cross-thread path, and the libraries' heaps would each
// keep pages of their own.
TEST(SharedLibraries, AThreadHasOneDefaultHeap) {
  EXPECT_EQ(a_thread_heap(), b_thread_heap());
  EXPECT_EQ(a_thread_heap(), static_cast<const void*>(&own::detail::this_thread_heap));
  std::thread([] { EXPECT_EQ(a_thread_heap(), b_thread_heap()); }).join();
}

}  // namespace
