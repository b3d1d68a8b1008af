// SPDX-License-Identifier: BSL-1.0
// A pointer that does not convert to T*: one error naming the deleted constructor, not a list of
// every constructor (123 lines with g++ 12 before; Boost's local_shared_ptr: 8).
// compile-fail expects: own: Y* does not convert to T*
#include <own/local_shared_ptr.hpp>

int main() {
  own::local_shared_ptr<int> p(new long(42));
  return p ? 0 : 1;
}
