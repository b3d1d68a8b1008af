// SPDX-License-Identifier: BSL-1.0
// An object pool of a type with no default constructor, given no creator: it used to compile and
// throw std::invalid_argument at run time.
// compile-fail expects: own: object_pool<T>: T is not default-constructible; give a creator: object_pool<T>(n, [] { return T(...); }) or object_pool<T>(n, own::constructor_args(...))
#include <own/object_pool.hpp>

struct connection {
  explicit connection(int port) : port(port) {}
  int port;
};

int main() {
  own::object_pool<connection> pool(4);
  return pool.acquire()->port;
}
