// SPDX-License-Identifier: BSL-1.0
// The misuse catalogue (docs/misuse.md): each misuse has a documented outcome, a message and an
// abort (a death test) or an exception, never silent corruption. Entries already tested beside the
// feature they concern are named in docs/misuse.md and not repeated here.
#include <own/managed_ptr.hpp>
#include <own/object_pool.hpp>
#include <own/shared_ptr.hpp>

#include <gtest/gtest.h>

#include <stdexcept>

#include "tracked.hpp"

using own_test::tracked;

namespace {

// Death tests fork; "threadsafe" re-executes the binary instead, which is safe even after the
// stress of other tests left threads behind and under TSan.
class Misuse : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};
using MisuseDeathTest = Misuse;

// What std::terminate prints before the message of an uncaught std::runtime_error: libstdc++'s
// verbose handler, or libc++abi's.
#if defined(_LIBCPP_VERSION)
#define OWN_TEST_TERMINATE_RUNTIME_ERROR "terminating due to uncaught exception of type std::runtime_error: "
#else
#define OWN_TEST_TERMINATE_RUNTIME_ERROR "terminate called after throwing an instance of 'std::runtime_error'.*\n.*"
#endif

// ---------------------------------------------------------------------------------------------
// A deleter, disposer or resetter that throws: own calls them from noexcept code, as std does
// (std requires deleters not to throw), so the program terminates with the exception's message
// rather than unwinding through a half-released object.

TEST_F(MisuseDeathTest, SharedPtrDeleterThatThrowsTerminates) {
  EXPECT_DEATH(
      {
        own::shared_ptr<int> p(new int(1), [](int* q) {
          delete q;
          throw std::runtime_error("deleter failed");
        });
        p.reset();
      },
      OWN_TEST_TERMINATE_RUNTIME_ERROR "deleter failed");
}

struct throwing_manager {};
void reclaim_managed_object(throwing_manager*, int* p) {
  delete p;
  throw std::runtime_error("manager failed");
}

TEST_F(MisuseDeathTest, ManagedPtrManagerThatThrowsTerminates) {
  throwing_manager manager;
  EXPECT_DEATH({ own::managed_ptr<int> p(new int(2), &manager); }, "manager failed");
}

TEST_F(MisuseDeathTest, PoolResetterThatThrowsTerminates) {
  EXPECT_DEATH(
      {
        own::object_pool<int> pool(1, {}, [](int&) { throw std::runtime_error("resetter failed"); });
        pool.acquire().reset();
      },
      "resetter failed");
}

// ---------------------------------------------------------------------------------------------
// A pooled object goes back through its slot, which knows its pool: resuming a released pool
// deleter beside some other pointer (a foreign pointer), or with another pool alive, cannot send
// anything to the wrong place.

TEST_F(Misuse, ForeignPointerBesidePoolDeleterReturnsOnlyThePoolsObject) {
  own::object_pool<tracked> a(1, own::fixed_capacity), b(1, own::fixed_capacity);
  tracked foreign(42);
  {
    auto [pooled, deleter] = a.acquire().release();
    own::managed_ptr<tracked> resumed(&foreign, deleter);  // shows `foreign`, owns a's object
    EXPECT_EQ(resumed.get(), &foreign);
    auto from_b = b.acquire();
    EXPECT_EQ(a.available(), 0u);
    EXPECT_NE(pooled, &foreign);
  }
  EXPECT_EQ(a.available(), 1u);  // a's object, to a
  EXPECT_EQ(b.available(), 1u);
  EXPECT_EQ(foreign.value(), 42);  // untouched
}

// ---------------------------------------------------------------------------------------------
// enable_shared_from_this while no shared_ptr owns the object: std::bad_weak_ptr, as in std,
// also inside the constructor (not yet owned) and the destructor (no longer owned).

struct probe : own::enable_shared_from_this<probe> {
  probe() { during_construction = threw_bad_weak_ptr(); }
  ~probe() { *during_destruction = threw_bad_weak_ptr(); }
  bool threw_bad_weak_ptr() {
    try {
      (void)shared_from_this();
    } catch (const std::bad_weak_ptr&) {
      return weak_from_this().expired();
    }
    return false;
  }
  bool during_construction = false;
  bool* during_destruction = nullptr;
};

TEST_F(Misuse, SharedFromThisWhileNotOwnedThrowsBadWeakPtr) {
  bool in_destructor = false;
  {
    auto p = own::make_shared<probe>();
    EXPECT_TRUE(p->during_construction);
    p->during_destruction = &in_destructor;
    EXPECT_EQ(p->shared_from_this(), p);
  }
  EXPECT_TRUE(in_destructor);
}

#ifdef OWN_CHECKED
TEST_F(MisuseDeathTest, AliasingAnEmptyManagedPtrWithAPointerAborts) {
  int x = 0;
  EXPECT_DEATH(
      {
        own::managed_ptr<int> empty;
        own::managed_ptr<int> alias(std::move(empty), &x);
      },
      "own: aliasing an empty own::managed_ptr with a non-null pointer");
}
#endif

}  // namespace
