// SPDX-License-Identifier: BSL-1.0
// An object pool given its upstream resource where the creator goes.
// compile-fail expects: own: object_pool<T>: the upstream resource comes after the creator and the resetter: object_pool<T>(n, {}, {}, &upstream)
#include <own/object_pool.hpp>

int main() {
  std::pmr::monotonic_buffer_resource upstream;
  own::object_pool<int> pool(4, &upstream);
  return *pool.acquire();
}
