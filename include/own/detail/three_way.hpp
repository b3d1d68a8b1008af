// SPDX-License-Identifier: BSL-1.0
// Whether own's pointers have operator<=> (C++20), as std's do: the language feature and
// std::compare_three_way. libc++ 16 has the latter but does not yet announce
// __cpp_lib_three_way_comparison (its <compare> is not complete), so it is recognised by version.
#pragma once

#include <cstddef>  // any standard header: defines _LIBCPP_VERSION under libc++

#if __cplusplus >= 202002L && defined(__cpp_impl_three_way_comparison) && __cpp_impl_three_way_comparison >= 201907L
#include <compare>
#if (defined(__cpp_lib_three_way_comparison) && __cpp_lib_three_way_comparison >= 201907L) || \
    (defined(_LIBCPP_VERSION) && _LIBCPP_VERSION >= 16000)
#define OWN_THREE_WAY_COMPARISON 1
#endif
#endif
#ifndef OWN_THREE_WAY_COMPARISON
#define OWN_THREE_WAY_COMPARISON 0
#endif
