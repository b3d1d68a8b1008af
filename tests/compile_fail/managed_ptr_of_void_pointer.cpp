// SPDX-License-Identifier: BSL-1.0
// managed_ptr(p) deletes p as the type it points to: a void* has none.
// compile-fail expects: own::managed_ptr(p) cannot delete a void*
#include <own/managed_ptr.hpp>

int main() {
  void* p = new int(1);
  own::managed_ptr<void> m(p);
  return m ? 0 : 1;
}
