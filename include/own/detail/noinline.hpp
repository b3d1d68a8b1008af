// OWN_NOINLINE keeps a slow path out of line, so that the fast path it branches from stays a few
// instructions with no register saves (inlined, the slow path's register pressure leaks into the
// fast path's prologue).
#pragma once

#if defined(__GNUC__) || defined(__clang__)
#define OWN_NOINLINE __attribute__((noinline))
#else
#define OWN_NOINLINE
#endif
