// SPDX-License-Identifier: BSL-1.0
// Included first by every public header: below C++17, one error that names the requirement instead
// of hundreds from the code after it (nested namespaces, inline variables, if constexpr...).
#pragma once

// MSVC reports C++98 in __cplusplus unless /Zc:__cplusplus is given; _MSVC_LANG is its real mode.
#if defined(_MSVC_LANG) && _MSVC_LANG > __cplusplus
#define OWN_DETAIL_CPLUSPLUS _MSVC_LANG
#else
#define OWN_DETAIL_CPLUSPLUS __cplusplus
#endif

#if OWN_DETAIL_CPLUSPLUS < 201703L
#error "own needs C++17 or later: compile with -std=c++17 (MSVC: /std:c++17) or a later standard"
// #error does not stop the compiler, and the rest of the header would still report hundreds of
// errors; a missing header does stop it (gcc, clang and MSVC treat it as fatal).
#include "own: stopped compiling, see the error above"
#endif

#undef OWN_DETAIL_CPLUSPLUS
