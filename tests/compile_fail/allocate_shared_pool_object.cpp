// SPDX-License-Identifier: BSL-1.0
// A pool passed by value where own takes a pool pointer.
// compile-fail expects: own: pass a pointer to the pool or memory resource, not the object: allocate_shared<T>(&pool, args...)
#include <own/pool.hpp>
#include <own/shared_ptr.hpp>

int main() {
  own::pool pool(64);
  own::shared_ptr<int> p = own::allocate_shared<int>(pool, 42);
  return *p;
}
