// SPDX-License-Identifier: BSL-1.0
// managed_ptr(p) deletes p as the type it points to, which must be complete (N1851: "Requires: Y is
// complete"): deleting an incomplete type would skip its destructor.
// compile-fail expects: own::managed_ptr(p) cannot delete an incomplete type
#include <own/managed_ptr.hpp>

struct declared_only;
declared_only* make();

int main() {
  own::managed_ptr<declared_only> m(make());
  return m ? 0 : 1;
}
