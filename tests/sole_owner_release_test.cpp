// SPDX-License-Identifier: BSL-1.0
// The last release of a sole owner (no copy and no weak_ptr ever made) destroys the object and frees
// the block in one indirect call, control_block_ops::dispose_and_destroy; every other last release
// disposes and destroys in two steps. Both must destroy the object once and free the block once, for
// every kind of block, whether it came from a pool or from a counting allocator, and the two-step
// fallbacks must still wait for the last weak reference before freeing.
#include <own/concurrent_pool.hpp>
#include <own/managed_ptr.hpp>
#include <own/object_pool.hpp>
#include <own/pool.hpp>
#include <own/shared_ptr.hpp>

#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "block_pool_types.hpp"
#include "test_allocator.hpp"
#include "tracked.hpp"

namespace {

using own_test::allocation_log;
using own_test::test_resource;
using own_test::tracked;

// ---- The ops table: dispose_and_destroy is dispose, then destroy.

struct call_log {
  static inline std::string calls;
};
void log_dispose(own::detail::control_block*) noexcept { call_log::calls += "dispose,"; }
void log_destroy(own::detail::control_block*) noexcept { call_log::calls += "destroy,"; }

TEST(sole_owner_release, block_ops_combines_dispose_then_destroy) {
  constexpr const own::detail::control_block_ops& ops = own::detail::block_ops<&log_dispose, &log_destroy>;
  EXPECT_EQ(ops.dispose, &log_dispose);
  EXPECT_EQ(ops.destroy, &log_destroy);
  EXPECT_EQ(ops.get_deleter, &own::detail::no_deleter);
  call_log::calls.clear();
  ops.dispose_and_destroy(nullptr);
  EXPECT_EQ(call_log::calls, "dispose,destroy,");
}

// ---- Every allocating entry point, from both pools: the sole owner's release and the fallbacks.

template <class Pool>
class pooled_release : public ::testing::Test {
 protected:
  pooled_release() : upstream_(&log_), pool_(64, {}, &upstream_) {}
  ~pooled_release() override {
    EXPECT_EQ(pool_.statistics().blocks_in_use, 0u);
    EXPECT_EQ(tracked::live(), 0);
  }

  std::size_t in_use() const { return pool_.statistics().blocks_in_use; }

  allocation_log log_;
  test_resource upstream_;
  Pool pool_;
};
TYPED_TEST_SUITE(pooled_release, own_test::block_pools, own_test::block_pool_names);

TYPED_TEST(pooled_release, sole_owner_destroys_and_frees_at_once) {
  auto p = own::make_shared_object_with_alloc<tracked>(&this->pool_, 1);
  EXPECT_EQ(this->in_use(), 1u);
  p.reset();
  EXPECT_EQ(tracked::live(), 0);
  EXPECT_EQ(this->in_use(), 0u);
}

TYPED_TEST(pooled_release, each_kind_of_block_as_sole_owner) {
  struct counting_deleter {
    int* calls;
    void operator()(tracked* p) const {
      ++*calls;
      delete p;
    }
  };
  int deleter_calls = 0;
  {
    auto housed = own::make_shared_object_with_alloc<tracked>(&this->pool_, 1);
    own::shared_ptr<tracked> adopted(new tracked(2), counting_deleter{&deleter_calls}, &this->pool_);
    auto array = own::make_shared_array_with_alloc<tracked>(&this->pool_, 2);
    own::shared_ptr<tracked> from_managed(own::managed_ptr<tracked>(new tracked(3)), &this->pool_);
    EXPECT_EQ(this->in_use(), 4u);
    EXPECT_EQ(tracked::live(), 5);
  }
  EXPECT_EQ(deleter_calls, 1);
  EXPECT_EQ(tracked::double_destroyed(), 0);
}

TYPED_TEST(pooled_release, weak_ptr_outstanding_at_the_last_release_keeps_the_block) {
  auto p = own::make_shared_object_with_alloc<tracked>(&this->pool_, 1);
  own::weak_ptr<tracked> w = p;
  p.reset();
  EXPECT_EQ(tracked::live(), 0);    // the object goes with the last shared reference
  EXPECT_EQ(this->in_use(), 1u);    // the counts stay for the weak_ptr
  EXPECT_TRUE(w.expired());
  EXPECT_FALSE(w.lock());
  w.reset();
  EXPECT_EQ(this->in_use(), 0u);
}

TYPED_TEST(pooled_release, a_weak_ptr_made_and_dropped_restores_the_one_call_release) {
  auto p = own::make_shared_object_with_alloc<tracked>(&this->pool_, 1);
  { own::weak_ptr<tracked> w = p; }  // back to one shared reference and no weak one: "fresh" again
  p.reset();
  EXPECT_EQ(tracked::live(), 0);
  EXPECT_EQ(this->in_use(), 0u);
}

TYPED_TEST(pooled_release, copies_and_aliases_release_last) {
  struct holder {
    tracked member{7};
  };
  auto p = own::make_shared_object_with_alloc<holder>(&this->pool_);
  own::shared_ptr<tracked> alias(p, &p->member);
  auto copy = p;
  p.reset();
  copy.reset();
  EXPECT_EQ(alias->value(), 7);
  EXPECT_EQ(this->in_use(), 1u);
  alias.reset();
  EXPECT_EQ(this->in_use(), 0u);
}

struct self_aware : own::enable_shared_from_this<self_aware> {
  tracked t{1};
};

// The object's own weak_ptr counts as a weak reference: its last release takes the two-step path.
TYPED_TEST(pooled_release, enable_shared_from_this_objects) {
  auto p = own::make_shared_object_with_alloc<self_aware>(&this->pool_);
  EXPECT_EQ(p->shared_from_this(), p);
  p.reset();
  EXPECT_EQ(this->in_use(), 0u);

  p = own::make_shared_object_with_alloc<self_aware>(&this->pool_);
  own::weak_ptr<self_aware> w = p->weak_from_this();
  p.reset();
  EXPECT_TRUE(w.expired());
  EXPECT_EQ(this->in_use(), 1u);
  w.reset();
  EXPECT_EQ(this->in_use(), 0u);
}

TYPED_TEST(pooled_release, get_deleter_of_an_adopting_block_from_a_pool) {
  struct named_deleter {
    void operator()(tracked* p) const { delete p; }
  };
  own::shared_ptr<tracked> p(new tracked(1), named_deleter{}, &this->pool_);
  EXPECT_NE(own::get_deleter<named_deleter>(p), nullptr);
  p.reset();
  EXPECT_EQ(this->in_use(), 0u);
}

TYPED_TEST(pooled_release, a_throwing_constructor_gives_the_block_back) {
  tracked::throw_after(1);
  EXPECT_THROW(own::make_shared_object_with_alloc<tracked>(&this->pool_, 1), tracked::construction_error);
  tracked::throw_after(0);
  EXPECT_EQ(this->in_use(), 0u);
  auto p = own::make_shared_object_with_alloc<tracked>(&this->pool_, 2);  // the pool still works
  EXPECT_EQ(this->in_use(), 1u);
}

TEST(sole_owner_release, made_on_one_thread_released_as_sole_owner_on_another) {
  allocation_log log;
  test_resource upstream(&log);
  {
    own::concurrent_pool pool(64, {}, &upstream);
    std::vector<own::shared_ptr<tracked>> made;
    for (int round = 0; round < 4; ++round) {
      for (int i = 0; i < 1000; ++i) made.push_back(own::make_shared_object_with_alloc<tracked>(&pool, i));
      std::thread dropper([&made] { made.clear(); });
      dropper.join();
      EXPECT_EQ(pool.statistics().blocks_in_use, 0u);
      EXPECT_EQ(tracked::live(), 0);
    }
  }
  EXPECT_EQ(log.bytes_in_use, 0);
}

// ---- Counting allocators and object pools take the same paths.

TEST(sole_owner_release, allocator_sees_one_allocation_and_one_deallocation) {
  allocation_log log;
  auto p = own::allocate_shared<tracked>(own_test::test_allocator<tracked>(&log), 1);
  EXPECT_EQ(log.blocks_in_use(), 1);
  p.reset();
  EXPECT_EQ(log.allocations, 1);
  EXPECT_EQ(log.deallocations, 1);
  EXPECT_EQ(tracked::live(), 0);
}

TEST(sole_owner_release, exception_safety_of_allocate_shared) {
  allocation_log log;
  own_test::for_each_failure_point(log, [&] {
    auto p = own::allocate_shared<tracked>(own_test::test_allocator<tracked>(&log), 1);
  });
  own_test::for_each_throwing_construction(log, [&] {
    auto p = own::allocate_shared<tracked>(own_test::test_allocator<tracked>(&log), 1);
  });
  EXPECT_EQ(log.blocks_in_use(), 0);
}

TEST(sole_owner_release, object_pool_slot_comes_back_reset) {
  struct resettable {
    int value = 0;
    void reset() { value = 0; }
  };
  own::object_pool<resettable> pool(1, {}, own::call_reset);
  {
    auto p = pool.acquire_shared();
    p->value = 5;
    EXPECT_EQ(pool.available(), 0u);
  }
  EXPECT_EQ(pool.available(), 1u);
  EXPECT_EQ(pool.acquire_shared()->value, 0);
  {
    auto p = pool.acquire_shared();
    own::weak_ptr<resettable> w = p;
    p.reset();
    EXPECT_EQ(pool.available(), 0u);  // the weak_ptr keeps the slot out of the pool
  }
  EXPECT_EQ(pool.available(), 1u);
}

}  // namespace
