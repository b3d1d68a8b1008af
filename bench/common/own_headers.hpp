// SPDX-License-Identifier: BSL-1.0
// The own headers the benchmarks use, each included if it exists, with OWN_BENCH_HAS_<NAME> defined
// when it does: a row whose header has not landed is still registered, as "not yet available"
// (bench_common.hpp's missing()), so the report names it instead of leaving it out.
#pragma once

#if __has_include(<own/addressed_pool_allocator.hpp>)
#include <own/addressed_pool_allocator.hpp>
#define OWN_BENCH_HAS_ADDRESSED_POOL_ALLOCATOR 1
#endif
#if __has_include(<own/atomic_shared_ptr.hpp>)
#include <own/atomic_shared_ptr.hpp>
#define OWN_BENCH_HAS_ATOMIC_SHARED_PTR 1
#endif
#if __has_include(<own/concurrent_pool.hpp>)
#include <own/concurrent_pool.hpp>
#define OWN_BENCH_HAS_CONCURRENT_POOL 1
#endif
#if __has_include(<own/intrusive_ptr.hpp>)
#include <own/intrusive_ptr.hpp>
#define OWN_BENCH_HAS_INTRUSIVE_PTR 1
#endif
#if __has_include(<own/local_shared_ptr.hpp>)
#include <own/local_shared_ptr.hpp>
#define OWN_BENCH_HAS_LOCAL_SHARED_PTR 1
#endif
#if __has_include(<own/managed_ptr.hpp>)
#include <own/managed_ptr.hpp>
#define OWN_BENCH_HAS_MANAGED_PTR 1
#endif
#if __has_include(<own/object_pool.hpp>)
#include <own/object_pool.hpp>
#define OWN_BENCH_HAS_OBJECT_POOL 1
#endif
#if __has_include(<own/pool.hpp>)
#include <own/pool.hpp>
#define OWN_BENCH_HAS_POOL 1
#endif
#if __has_include(<own/pool_allocator.hpp>)
#include <own/pool_allocator.hpp>
#define OWN_BENCH_HAS_POOL_ALLOCATOR 1
#endif
#if __has_include(<own/shared_ptr.hpp>)
#include <own/shared_ptr.hpp>
#define OWN_BENCH_HAS_SHARED_PTR 1
#endif
