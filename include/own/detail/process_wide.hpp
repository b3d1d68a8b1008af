// SPDX-License-Identifier: BSL-1.0
// OWN_PROCESS_WIDE marks state that must exist once per process: the hazard records of
// atomic_shared_ptr, the locks of the shared_ptr atomic free functions, the concurrent pools' id
// counter and per-thread cache tables. A header-only library's inline variables get one definition
// per shared library when that library is built with -fvisibility=hidden; two copies of such state
// would let one library free a node another is reading, or hand a pool's blocks to another pool's
// cache. Default visibility makes the dynamic linker bind every library to one copy.
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define OWN_PROCESS_WIDE __attribute__((visibility("default")))
#else
#define OWN_PROCESS_WIDE
#endif
