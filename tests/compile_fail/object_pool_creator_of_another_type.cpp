// SPDX-License-Identifier: BSL-1.0
// An object pool's creator that makes something T cannot be made from (here the old creator form,
// which constructed at an address it was given).
// compile-fail expects: own: object_pool<T>: the creator must return a T (or what T is constructible from) when called with no arguments, or be own::constructor_args(...) with arguments T's constructor takes
#include <own/object_pool.hpp>

#include <new>

struct connection {
  explicit connection(int port) : port(port) {}
  int port;
};

int main() {
  own::object_pool<connection> pool(4, [](void* where) { ::new (where) connection(80); });
  return pool.acquire()->port;
}
