// SPDX-License-Identifier: BSL-1.0
// pool_allocator over a std::pmr resource, whose allocation functions it cannot call directly.
// compile-fail expects: own::pool_allocator<T, Pool> needs one of own's pools as Pool
// compile-fail expects: use std::pmr::polymorphic_allocator<T>
#include <own/pool_allocator.hpp>

#include <memory_resource>
#include <vector>

int main() {
  using allocator = own::pool_allocator<int, std::pmr::unsynchronized_pool_resource>;
  std::pmr::unsynchronized_pool_resource resource;
  std::vector<int, allocator> v{allocator(&resource)};
  v.push_back(1);
  return v[0];
}
