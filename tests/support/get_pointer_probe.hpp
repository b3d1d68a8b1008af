// SPDX-License-Identifier: BSL-1.0
// Boost's generic code reaches a smart pointer's raw pointer through an unqualified get_pointer(p),
// found by argument-dependent lookup: raw_of calls it so, from a namespace that declares none.
#pragma once

namespace own_test::generic_code {

template <class P>
auto raw_of(const P& p) noexcept -> decltype(get_pointer(p)) {
  return get_pointer(p);
}

}  // namespace own_test::generic_code
