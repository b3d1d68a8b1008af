// SPDX-License-Identifier: BSL-1.0
/// @file
/// Everything in own, for those who prefer one include to several.
///
/// Usage:
///
///     #include <own/own.hpp>
///     auto p = own::make_shared<int>(42);  // and every other own facility
#pragma once

#include "detail/cxx17_required.hpp"  // first, so that C++14 gets one error, not hundreds

#include "addressed_pool_allocator.hpp"
#include "atomic_shared_ptr.hpp"
#include "concurrent_pool.hpp"
#include "heap.hpp"
#include "intrusive_ptr.hpp"
#include "local_shared_ptr.hpp"
#include "managed_ptr.hpp"
#include "multipool.hpp"
#include "object_pool.hpp"
#include "pool.hpp"
#include "pool_allocator.hpp"
#include "shared_ptr.hpp"
#include "version.hpp"
