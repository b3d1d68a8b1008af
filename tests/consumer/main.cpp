// SPDX-License-Identifier: BSL-1.0
// A program outside the project that uses own through its CMake package.
#include <own/own.hpp>  // every installed header

int main() {
  own::shared_ptr<int> p = own::make_shared<int>(42);
  own::weak_ptr<int> w = p;
  // Counted before locking: the locked temporary is a second owner until the statement ends.
  const bool one_owner = p.use_count() == 1;
  const bool locks = *w.lock() == 42;
  return one_owner && locks ? 0 : 1;
}
