// SPDX-License-Identifier: BSL-1.0
// The two shared libraries of shared_libraries_test.cpp: library.cpp built twice, as
// own_test_library_a and own_test_library_b, each with hidden visibility, so each has its own copy
// of every inline function of own. Each exports its functions under its own prefix (a_ or b_).
#pragma once

#include <cstddef>

#include <own/atomic_shared_ptr.hpp>
#include <own/concurrent_pool.hpp>

#define OWN_TEST_EXPORT extern "C" __attribute__((visibility("default")))

// Loads `n` times; returns the sum of the values seen.
#define OWN_TEST_LOAD_MANY(prefix) OWN_TEST_EXPORT long prefix##load_many(own::atomic_shared_ptr<long>* a, long n)
// Stores 0, 1, ..., n - 1.
#define OWN_TEST_STORE_MANY(prefix) OWN_TEST_EXPORT void prefix##store_many(own::atomic_shared_ptr<long>* a, long n)
// The same through the free functions on a plain shared_ptr (atomic_load(&p), atomic_store(&p, v)).
#define OWN_TEST_ATOMIC_LOAD_MANY(prefix) OWN_TEST_EXPORT long prefix##atomic_load_many(own::shared_ptr<long>* p, long n)
#define OWN_TEST_ATOMIC_STORE_MANY(prefix) OWN_TEST_EXPORT void prefix##atomic_store_many(own::shared_ptr<long>* p, long n)
// A concurrent_pool made in the library, and its allocate and deallocate called from there.
#define OWN_TEST_MAKE_POOL(prefix) OWN_TEST_EXPORT own::concurrent_pool* prefix##make_pool(std::size_t block_size)
#define OWN_TEST_ALLOCATE(prefix) OWN_TEST_EXPORT void* prefix##allocate(own::concurrent_pool* pool)
#define OWN_TEST_DEALLOCATE(prefix) OWN_TEST_EXPORT void prefix##deallocate(own::concurrent_pool* pool, void* block)
// The default heap of the calling thread, as the library's copy of own finds it.
#define OWN_TEST_THREAD_HEAP(prefix) OWN_TEST_EXPORT const void* prefix##thread_heap()

#define OWN_TEST_DECLARE(prefix)      \
  OWN_TEST_LOAD_MANY(prefix);         \
  OWN_TEST_STORE_MANY(prefix);        \
  OWN_TEST_ATOMIC_LOAD_MANY(prefix);  \
  OWN_TEST_ATOMIC_STORE_MANY(prefix); \
  OWN_TEST_MAKE_POOL(prefix);         \
  OWN_TEST_ALLOCATE(prefix);          \
  OWN_TEST_DEALLOCATE(prefix);        \
  OWN_TEST_THREAD_HEAP(prefix)

OWN_TEST_DECLARE(a_);
OWN_TEST_DECLARE(b_);
