// SPDX-License-Identifier: BSL-1.0
// A pointer that does not convert to T*: one error naming the deleted constructor, not a list of
// every constructor (82 lines with g++ 12 before; std::unique_ptr's: 71).
// compile-fail expects: own: Y* does not convert to T*
#include <own/managed_ptr.hpp>

struct base {};
struct derived : base {};

int main() {
  own::managed_ptr<derived> p(new base);
  return p ? 0 : 1;
}
