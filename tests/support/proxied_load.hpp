// SPDX-License-Identifier: BSL-1.0
// For tests of atomic_shared_ptr's load proxies (detail/load_proxies.hpp): whether a shared_ptr was
// loaded through a proxy, and a load through the calling thread's proxy. Without GoogleTest, so
// that the programs tests/gdb debugs use them too.
#pragma once

#include <own/atomic_shared_ptr.hpp>

namespace own_test {

// Whether `p` was loaded through a proxy (its block is not its owner).
template <class T>
bool proxied(const own::shared_ptr<T>& p) {
  return own::detail::shared_access::block(p) != own::detail::shared_access::owner(p);
}

// A load through this thread's proxy, after the loads that arm it (as many as the thread's past
// armings call for: at most max_streak in a row, then one); the caller checks that it is proxied
// (only a multi-threaded process arms a proxy, and only a free one).
template <class T>
own::shared_ptr<T> load_until_proxied(const own::atomic_shared_ptr<T>& a) {
  own::shared_ptr<T> p;
  for (unsigned i = 0; i <= own::detail::load_proxies::max_streak + 1 && !proxied(p); ++i) p = a.load();
  return p;
}

}  // namespace own_test
