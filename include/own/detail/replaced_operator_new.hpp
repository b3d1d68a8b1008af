// SPDX-License-Identifier: BSL-1.0
// Whether the program itself replaces the global operator new ([replacement.functions]): with a
// definition in its executable, which counts allocations, makes them fail or serves them from an
// arena of its own. The default heap then sends its blocks there, where std's would go.
#pragma once

#include <cstddef>
#include <cstring>
#include <new>

#if defined(__linux__) && defined(__GLIBC__)
#include <dlfcn.h>
#include <errno.h>  // program_invocation_name
#endif

// dladdr and program_invocation_name, GNU extensions (g++ and clang++ define _GNU_SOURCE); dladdr is
// in glibc's libc from 2.34 on (in libdl before: a link flag a header-only library cannot add).
#if defined(__USE_GNU) && defined(__GLIBC__)
#if __GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34)
#define OWN_CAN_LOCATE_OPERATOR_NEW 1
#endif
#endif
#ifndef OWN_CAN_LOCATE_OPERATOR_NEW
#define OWN_CAN_LOCATE_OPERATOR_NEW 0
#endif

// ThreadSanitizer's and MemorySanitizer's runtimes, linked into the executable by clang, define
// operator new there: not the program's, and the heap stays under them.
#if defined(__SANITIZE_THREAD__)
#define OWN_SANITIZER_DEFINES_NEW 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(memory_sanitizer)
#define OWN_SANITIZER_DEFINES_NEW 1
#endif
#endif
#ifndef OWN_SANITIZER_DEFINES_NEW
#define OWN_SANITIZER_DEFINES_NEW 0
#endif

namespace own::detail {

// Whether the dynamic linker resolved operator new(std::size_t) to a definition the executable
// exports: glibc's dladdr names the executable by argv[0], as program_invocation_name does. One a
// shared library brings (tcmalloc, jemalloc, valgrind's preload) is not the program's own. Not seen:
// a static executable, or a libstdc++ linked statically (the executable then exports no operator
// new, replaced or not); OWN_DEFAULT_ALLOCATOR says it there.
inline bool program_replaces_operator_new() noexcept {
#if OWN_CAN_LOCATE_OPERATOR_NEW && !OWN_SANITIZER_DEFINES_NEW
  void* (*const resolved)(std::size_t) = &::operator new;
  void* const address = reinterpret_cast<void*>(resolved);
  Dl_info symbol{};
  if (::dladdr(address, &symbol) == 0 || symbol.dli_saddr != address || symbol.dli_fname == nullptr) return false;
  const char* const program = program_invocation_name;
  return program != nullptr && (symbol.dli_fname == program || std::strcmp(symbol.dli_fname, program) == 0);
#else
  return false;
#endif
}

}  // namespace own::detail
