// SPDX-License-Identifier: BSL-1.0
// A pointer that does not convert to T*: one error naming the deleted constructor, not a list of
// every constructor (160 lines with g++ 12 before; std's: 118).
// compile-fail expects: own: Y* does not convert to T*
#include <own/shared_ptr.hpp>

struct base {};
struct derived : base {};

int main() {
  own::shared_ptr<derived> p(new base);
  return p ? 0 : 1;
}
