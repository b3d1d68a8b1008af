// SPDX-License-Identifier: BSL-1.0
// A deleter that cannot take the pointer given: one error naming the deleted constructor, not a
// list of every constructor.
// compile-fail expects: own: d(p) is ill-formed for this deleter and pointer, or D cannot be moved
#include <own/shared_ptr.hpp>

int main() {
  own::shared_ptr<int> p(new int(42), [](long* q) { delete q; });
  return *p;
}
