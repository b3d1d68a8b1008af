// SPDX-License-Identifier: BSL-1.0
// The default heap's mode in a program that leaves the global operator new alone (heap_test, which
// replaces it, checks the other side): the pages, unless OWN_DEFAULT_ALLOCATOR says otherwise or a
// tool that looks for memory bugs runs (AddressSanitizer, valgrind), where blocks come from
// operator new.
#include <own/heap.hpp>
#include <own/shared_ptr.hpp>

#include <cstdlib>
#include <cstring>
#include <thread>

#include <gtest/gtest.h>

namespace {

// (OWN_HEAP_ASAN: the heap's own reading of the compiler's AddressSanitizer macros.)
bool under_memory_tools() {
  if (OWN_HEAP_ASAN) return true;
  const char* preload = std::getenv("LD_PRELOAD");
  return preload != nullptr && std::strstr(preload, "vgpreload") != nullptr;
}

TEST(HeapDefaultMode, AProgramThatKeepsTheLibrarysOperatorNewGetsThePages) {
  if (std::getenv("OWN_DEFAULT_ALLOCATOR") != nullptr) GTEST_SKIP() << "OWN_DEFAULT_ALLOCATOR chooses the mode";
  EXPECT_FALSE(own::detail::program_replaces_operator_new());
  auto p = own::make_shared<int>(1);
  std::thread([] { own::make_shared<long>(2); }).join();
  if (under_memory_tools()) {
    EXPECT_TRUE(own::heap::uses_operator_new());
  } else {
    EXPECT_FALSE(own::heap::uses_operator_new());
    EXPECT_GT(own::heap::current_statistics().in_use_bytes, 0u);
  }
}

}  // namespace
