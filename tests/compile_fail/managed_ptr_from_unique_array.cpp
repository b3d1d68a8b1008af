// SPDX-License-Identifier: BSL-1.0
// A unique_ptr<U[]> into a managed_ptr<void>: the pointers convert, but managed_ptr deletes one
// object, where the array needs delete[].
// compile-fail expects: own::managed_ptr owns no arrays
#include <memory>

#include <own/managed_ptr.hpp>

int main() {
  own::managed_ptr<void> m(std::unique_ptr<int[]>(new int[4]));
  return m ? 0 : 1;
}
