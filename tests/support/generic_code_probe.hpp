// SPDX-License-Identifier: BSL-1.0
// Boost's generic code reaches a smart pointer's raw pointer through an unqualified get_pointer(p),
// and hashes it through an unqualified hash_value(p) (boost::hash), both found by argument-dependent
// lookup: raw_of and hash_of call them so, from a namespace that declares neither.
#pragma once

namespace own_test::generic_code {

template <class P>
auto raw_of(const P& p) noexcept -> decltype(get_pointer(p)) {
  return get_pointer(p);
}

template <class P>
auto hash_of(const P& p) noexcept -> decltype(hash_value(p)) {
  return hash_value(p);
}

}  // namespace own_test::generic_code
