// SPDX-License-Identifier: BSL-1.0
// Tests of <own/detail/load_proxy.hpp>, the control block that stands in for a value's on one
// thread's loads from atomic_shared_ptr: its references (the standing one, its users', the owner's
// weak one), who releases the value and when, and what it reports as the owner. Driven by hand, on
// one thread but for a revocation racing loads; atomic_shared_ptr_test drives it through loads and
// stores with real threads.
#include <own/detail/load_proxy.hpp>
#include <own/shared_ptr.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "tracked.hpp"

using own::detail::control_block;
using own::detail::load_proxy;
using own::detail::shared_access;
using own_test::tracked;

namespace {

int node_a, node_b;

// A proxy of the table (use_count() reads the table's): nothing else in this test uses it.
load_proxy& table_proxy() {
  load_proxy::note_used(0);
  return load_proxy::at(0);
}

struct armed : ::testing::Test {
  own::shared_ptr<tracked> value = own::make_shared<tracked>(7);
  control_block* real = shared_access::block(value);
  load_proxy& proxy = table_proxy();
  // The caller's reference that arm() hands out, as a shared_ptr.
  own::shared_ptr<tracked> arm() {
    EXPECT_TRUE(proxy.is_free());
    proxy.arm(&node_a, real, value.get());
    EXPECT_TRUE(proxy.share(&node_a));
    return shared_access::adopt<tracked>(static_cast<tracked*>(const_cast<void*>(proxy.element())), &proxy);
  }
};

TEST_F(armed, HoldsOneReferenceOnTheValueAndTwoOfItsOwn) {
  own::shared_ptr<tracked> loaded = arm();
  EXPECT_EQ(loaded.get(), value.get());
  EXPECT_EQ(real->use_count(), 2);  // value, the proxy
  EXPECT_EQ(proxy.use_count(), 2);  // standing, loaded
  EXPECT_FALSE(proxy.is_free());
  proxy.revoke();
}

TEST_F(armed, SharesOnlyForItsNodeWhileStanding) {
  own::shared_ptr<tracked> loaded = arm();
  EXPECT_FALSE(proxy.share(&node_b));
  ASSERT_TRUE(proxy.share(&node_a));
  own::shared_ptr<tracked> again = shared_access::adopt<tracked>(value.get(), &proxy);
  EXPECT_EQ(proxy.use_count(), 3);
  proxy.revoke();
  EXPECT_FALSE(proxy.share(&node_a)) << "revoked, though users hold it";
  EXPECT_EQ(proxy.use_count(), 2);
}

TEST_F(armed, RevokingDropsTheStandingReferenceOnce) {
  own::shared_ptr<tracked> loaded = arm();
  proxy.revoke();
  proxy.revoke();
  EXPECT_EQ(proxy.use_count(), 1);
  EXPECT_EQ(real->use_count(), 2);
  loaded.reset();  // the last user: the proxy lets go of the value
  EXPECT_EQ(real->use_count(), 1);
  EXPECT_TRUE(proxy.is_free());
}

TEST_F(armed, TheLastReleaseOfTheValueRunsWhereTheProxysLastReferenceGoes) {
  own::shared_ptr<tracked> loaded = arm();
  const long destroyed = tracked::destroyed();
  value.reset();
  loaded.reset();
  EXPECT_EQ(tracked::destroyed(), destroyed) << "the standing reference keeps it";
  proxy.revoke();
  EXPECT_EQ(tracked::destroyed(), destroyed + 1);
  EXPECT_TRUE(proxy.is_free());
}

TEST_F(armed, AnIncrementThatFindsNoReferenceTakesItselfBack) {
  own::shared_ptr<tracked> loaded = arm();
  proxy.revoke();
  loaded.reset();
  const long destroyed = tracked::destroyed();
  ASSERT_EQ(proxy.counts(), control_block::one_weak);
  EXPECT_FALSE(proxy.add_shared_unless_zero());
  EXPECT_EQ(proxy.counts(), control_block::one_weak);
  EXPECT_TRUE(proxy.is_free());
  EXPECT_EQ(real->use_count(), 1);
  EXPECT_EQ(tracked::destroyed(), destroyed);
}

// A writer's revocation racing the owner's loads (the increment that finds the count at zero and
// takes itself back): whatever the interleaving, the value is released once and the proxy ends free.
TEST_F(armed, LoadsRacingARevocationLeaveTheCountsWhole) {
  for (int round = 0; round != 2000; ++round) {
    arm().reset();
    std::atomic<bool> go{false};
    std::thread writer([&] {
      while (!go.load(std::memory_order_acquire)) {
      }
      proxy.revoke();
    });
    go.store(true, std::memory_order_release);
    while (proxy.share(&node_a)) {
      own::shared_ptr<tracked> loaded = shared_access::adopt<tracked>(value.get(), &proxy);
      EXPECT_EQ(loaded->value(), 7);
    }
    writer.join();
    ASSERT_EQ(proxy.counts(), control_block::one_weak) << "round " << round;
    ASSERT_EQ(real->use_count(), 1) << "round " << round;
  }
}

TEST_F(armed, ArmsAgainOnceFree) {
  arm().reset();
  proxy.revoke();
  own::shared_ptr<tracked> loaded = arm();
  EXPECT_EQ(proxy.use_count(), 2);
  proxy.revoke();
}

TEST_F(armed, KeepsOnlyItsOwnersWeakReferenceBetweenArmings) {
  for (int round = 0; round != 3; ++round) {
    own::shared_ptr<tracked> loaded = arm();
    EXPECT_EQ(value.use_count(), 2) << "round " << round;
    proxy.revoke();
    EXPECT_FALSE(proxy.is_free()) << "a user is left";
    loaded.reset();
    EXPECT_EQ(proxy.counts(), control_block::one_weak) << "the owner's weak reference alone";
    EXPECT_EQ(real->use_count(), 1);
  }
}

TEST_F(armed, DisowningAFreeProxyFreesItAtOnce) {
  arm().reset();
  proxy.revoke();
  proxy.disown();
  EXPECT_TRUE(proxy.is_free());
  EXPECT_EQ(real->use_count(), 1);
  // Another owner takes it as a new one.
  own::shared_ptr<tracked> loaded = arm();
  EXPECT_EQ(value.use_count(), 2);
  proxy.revoke();
}

TEST_F(armed, DisowningLeavesTheProxyToItsLastUser) {
  own::shared_ptr<tracked> loaded = arm();
  proxy.disown();
  EXPECT_FALSE(proxy.is_free());
  EXPECT_EQ(loaded->value(), 7);
  loaded.reset();
  EXPECT_TRUE(proxy.is_free());
  EXPECT_EQ(real->use_count(), 1);
}

TEST_F(armed, ReportsTheValuesOwnerCountAndDeleter) {
  own::shared_ptr<tracked> loaded = arm();
  EXPECT_EQ(load_proxy::owner_of(&proxy), real);
  EXPECT_EQ(load_proxy::owner_of(real), real);
  EXPECT_EQ(load_proxy::owner_of(nullptr), nullptr);
  // value and loaded, as std counts: the proxy's standing reference is no user.
  EXPECT_EQ(loaded.use_count(), 2);
  EXPECT_EQ(value.use_count(), 2);
  EXPECT_EQ(load_proxy::users_of(real), 2);
  own::shared_ptr<tracked> copy = loaded;
  EXPECT_EQ(value.use_count(), 3);
  copy.reset();
  loaded.reset();
  EXPECT_EQ(value.use_count(), 1) << "the standing proxy alone";
  ASSERT_TRUE(proxy.share(&node_a));
  loaded = shared_access::adopt<tracked>(value.get(), &proxy);
  EXPECT_TRUE(loaded.owner_equal(value));
  own::weak_ptr<tracked> w = loaded;
  EXPECT_EQ(shared_access::block(w), real);
  proxy.revoke();
}

TEST(LoadProxy, ForwardsGetDeleter) {
  int calls = 0;
  auto deleter = [&calls](int* p) {
    ++calls;
    delete p;
  };
  own::shared_ptr<int> value(new int(1), deleter);
  load_proxy& proxy = table_proxy();
  ASSERT_TRUE(proxy.is_free());
  proxy.arm(&node_a, shared_access::block(value), value.get());
  ASSERT_TRUE(proxy.share(&node_a));
  own::shared_ptr<int> loaded = shared_access::adopt<int>(value.get(), &proxy);
  EXPECT_EQ(own::get_deleter<decltype(deleter)>(loaded), own::get_deleter<decltype(deleter)>(value));
  EXPECT_NE(own::get_deleter<decltype(deleter)>(loaded), nullptr);
  proxy.revoke();
  loaded.reset();
  value.reset();
  EXPECT_EQ(calls, 1);
}

}  // namespace
