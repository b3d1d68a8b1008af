// SPDX-License-Identifier: BSL-1.0
// The three parts of <functional> that shared_ptr.hpp uses: std::reference_wrapper (a unique_ptr's
// reference deleter is kept as one, as std does), std::less (the owner and pointer orders) and
// std::hash (of a pointer). In libstdc++ <functional> brings <unordered_map>, <vector> and the
// algorithms with it (for C++17's searchers), as much again as <memory> costs a translation unit.
// So: libstdc++'s own header for reference_wrapper where there is one; std::less and std::hash come
// with <memory> there (its shared_ptr needs both, and <memory> must declare std::hash). Any other
// library gets <functional>.
#pragma once

#include <memory>

#if defined(__GLIBCXX__) && __has_include(<bits/refwrap.h>) && __has_include(<bits/stl_function.h>) && \
    __has_include(<bits/functional_hash.h>)
#include <bits/functional_hash.h>
#include <bits/refwrap.h>
#include <bits/stl_function.h>
#else
#include <functional>
#endif
