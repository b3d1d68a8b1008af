// SPDX-License-Identifier: BSL-1.0
// The same, for the form that also takes an allocator.
// compile-fail expects: own: d(p) is ill-formed for this deleter and pointer, or D cannot be moved
#include <memory>

#include <own/shared_ptr.hpp>

int main() {
  own::shared_ptr<int> p(new int(42), 7, std::allocator<int>());
  return *p;
}
