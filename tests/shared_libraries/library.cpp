// SPDX-License-Identifier: BSL-1.0
// See library.hpp. OWN_TEST_PREFIX (a_ or b_) names this build's functions.
#include "library.hpp"

// Expands OWN_TEST_PREFIX before the declaring macro pastes it.
#define OWN_TEST_DEFINE(declaration, prefix) declaration(prefix)


OWN_TEST_DEFINE(OWN_TEST_LOAD_MANY, OWN_TEST_PREFIX) {
  long sum = 0;
  for (long i = 0; i < n; ++i) {
    if (own::shared_ptr<long> p = a->load()) sum += *p;
  }
  return sum;
}

OWN_TEST_DEFINE(OWN_TEST_STORE_MANY, OWN_TEST_PREFIX) {
  for (long i = 0; i < n; ++i) a->store(own::make_shared<long>(i));
}

OWN_TEST_DEFINE(OWN_TEST_ATOMIC_LOAD_MANY, OWN_TEST_PREFIX) {
  long sum = 0;
  for (long i = 0; i < n; ++i) {
    if (own::shared_ptr<long> v = own::atomic_load(p)) sum += *v;
  }
  return sum;
}

OWN_TEST_DEFINE(OWN_TEST_ATOMIC_STORE_MANY, OWN_TEST_PREFIX) {
  for (long i = 0; i < n; ++i) own::atomic_store(p, own::make_shared<long>(i));
}

OWN_TEST_DEFINE(OWN_TEST_MAKE_POOL, OWN_TEST_PREFIX) { return new own::concurrent_pool(block_size); }

OWN_TEST_DEFINE(OWN_TEST_ALLOCATE, OWN_TEST_PREFIX) { return pool->allocate(); }

OWN_TEST_DEFINE(OWN_TEST_DEALLOCATE, OWN_TEST_PREFIX) { pool->deallocate(block); }

OWN_TEST_DEFINE(OWN_TEST_THREAD_HEAP, OWN_TEST_PREFIX) { return &own::detail::this_thread_heap; }
