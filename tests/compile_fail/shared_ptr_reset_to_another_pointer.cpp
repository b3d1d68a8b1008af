// SPDX-License-Identifier: BSL-1.0
// The same for reset(p): one error, not the list of every reset (51 lines with g++ 12 before).
// compile-fail expects: own: Y* does not convert to T*
#include <own/shared_ptr.hpp>

int main() {
  own::shared_ptr<int> p;
  p.reset(new long(42));
  return p ? 0 : 1;
}
