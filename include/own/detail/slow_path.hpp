// SPDX-License-Identifier: BSL-1.0
// Keeping slow paths out of the fast path's way.
//  - OWN_NOINLINE keeps a slow path out of line, so that the fast path it branches from stays a few
//    instructions with no register saves (inlined, the slow path's register pressure leaks into the
//    fast path's prologue).
//  - OWN_UNLIKELY(condition) marks the branch to a slow path, so that the fast path falls through
//    instead of jumping out of line and back (gcc otherwise lays out a pool's hit path after its
//    miss call: two taken jumps per allocation).
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define OWN_NOINLINE __attribute__((noinline))
#define OWN_UNLIKELY(condition) __builtin_expect(static_cast<bool>(condition), 0)
#else
#define OWN_NOINLINE
#define OWN_UNLIKELY(condition) (condition)
#endif
