// SPDX-License-Identifier: BSL-1.0
// For test executables that replace the global operator new to count allocations or make them
// fail: own's default heap must send its blocks there. The switch (OWN_DEFAULT_ALLOCATOR, see
// <own/heap.hpp>) is read at the first allocation, so it is set during static initialisation,
// before any test runs. Include this first.
#pragma once

#include <cstdlib>

namespace own_test {
inline const bool default_heap_sends_blocks_to_operator_new = (::setenv("OWN_DEFAULT_ALLOCATOR", "operator_new", 1), true);
}  // namespace own_test
