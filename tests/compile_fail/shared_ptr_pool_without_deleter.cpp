// SPDX-License-Identifier: BSL-1.0
// A pool given where shared_ptr's two-argument constructor takes the deleter.
// compile-fail expects: own: shared_ptr<T>(p, &pool) has no deleter; pass one before the pool: shared_ptr<T>(p, own::default_deleter(), &pool)
#include <own/pool.hpp>
#include <own/shared_ptr.hpp>

int main() {
  own::pool pool(64);
  own::shared_ptr<int> p(new int(42), &pool);
  return *p;
}
