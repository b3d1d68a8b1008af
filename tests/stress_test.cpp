// SPDX-License-Identifier: BSL-1.0
// Thread stress tests (run under TSan in CI): many threads on the same objects, in rounds. Each
// test does at least 10^6 operations in the full run (OWN_STRESS_SCALE shrinks them) and checks
// that every object was destroyed exactly once and every block went back to its allocator.
//
// Shape of a round: thread 0 publishes fresh objects, a barrier, every thread works on them (the
// owners it holds, the shared ones it only reads), a barrier, thread 0 drops its owners while the
// others drop theirs, so the last release happens on any thread; a barrier, thread 0 checks.
#include <own/managed_ptr.hpp>
#include <own/object_pool.hpp>
#include <own/shared_ptr.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "stress.hpp"
#include "test_allocator.hpp"
#include "tracked.hpp"

using own_test::allocation_log;
using own_test::census;
using own_test::rng;
using own_test::run_threads;
using own_test::scaled;
using own_test::spin_barrier;
using own_test::stress_threads;
using own_test::test_allocator;
using own_test::tracked;

namespace {

template <class T>
own::shared_ptr<T> make_counted(allocation_log& log, int value) {
  return own::allocate_shared<T>(test_allocator<T>(&log), value);
}

// Sums per-thread counters into one total the test can check after the threads join.
struct totals {
  std::atomic<long> operations{0};
  std::atomic<long> mismatches{0};  // a pointer that showed the wrong object
};

// ---------------------------------------------------------------------------------------------

TEST(SharedPtrStress, ThreadsCopyAndDestroyTheSameObjects) {
  const int threads = stress_threads();
  const long rounds = scaled(1000);
  constexpr int objects = 8;
  constexpr int steps = 512;  // per thread and round: 2 threads x 1000 x 512 > 10^6
  allocation_log log;
  const census before(log);
  std::vector<own::shared_ptr<tracked>> current(objects);
  spin_barrier barrier(threads);
  totals t;
  run_threads(threads, [&](int me) {
    rng r(static_cast<unsigned long>(me) + 1);
    std::vector<own::shared_ptr<tracked>> mine(objects);
    long ops = 0, bad = 0;
    for (long round = 0; round < rounds; ++round) {
      if (me == 0) {
        for (int i = 0; i < objects; ++i) current[static_cast<std::size_t>(i)] = make_counted<tracked>(log, i);
      }
      barrier.arrive_and_wait();
      for (int k = 0; k < steps; ++k, ++ops) {
        const unsigned i = r.below(objects);
        switch (r.below(4)) {
          case 0: mine[i] = current[i]; break;  // copy from an owner every thread reads
          case 1: {
            own::shared_ptr<tracked> copy(current[i]);
            mine[i] = std::move(copy);
            break;
          }
          case 2: mine[i].reset(); break;
          default: {
            const own::shared_ptr<tracked> copy = mine[i];
            if (copy && copy->value() != static_cast<int>(i)) ++bad;
          }
        }
      }
      for (unsigned i = 0; i < objects; ++i) mine[i] = current[i];
      barrier.arrive_and_wait();
      // Every thread drops its owners at once: the last release of each object races.
      if (me == 0) {
        for (auto& p : current) p.reset();
      }
      for (auto& p : mine) p.reset();
      barrier.arrive_and_wait();
      if (me == 0 && (tracked::live() != 0 || log.blocks_in_use() != 0)) ++bad;
    }
    t.operations += ops;
    t.mismatches += bad;
  });
  EXPECT_EQ(t.mismatches, 0);
  EXPECT_GE(t.operations, scaled(1000000));
  before.expect_balanced("after the copy stress");
}

TEST(WeakPtrStress, LockAndWeakReleaseRaceTheLastRelease) {
  const int threads = stress_threads();
  const long rounds = scaled(4000);
  constexpr int steps = 128;  // lock attempts per thread and round: 2 x 4000 x 128 > 10^6
  allocation_log log;
  const census before(log);
  own::shared_ptr<tracked> current;
  own::weak_ptr<tracked> published;
  spin_barrier barrier(threads);
  totals t;
  std::atomic<long> locked{0}, failed{0};
  run_threads(threads, [&](int me) {
    rng r(static_cast<unsigned long>(me) + 7);
    long ops = 0, bad = 0, ok = 0, expired = 0;
    for (long round = 0; round < rounds; ++round) {
      if (me == 0) {
        current = make_counted<tracked>(log, static_cast<int>(round));
        published = current;
      }
      barrier.arrive_and_wait();
      own::shared_ptr<tracked> owner = me == 0 ? std::move(current) : own::shared_ptr<tracked>();
      own::weak_ptr<tracked> w = published;         // kept all round
      own::weak_ptr<tracked> dropped = published;   // released at a random point
      const unsigned release_at = r.below(steps), drop_at = r.below(steps);
      for (unsigned k = 0; k < steps; ++k, ++ops) {
        if (k == release_at) owner.reset();  // thread 0's: the last shared release
        if (k == drop_at) dropped.reset();
        if (own::shared_ptr<tracked> p = w.lock()) {
          ++ok;
          if (p->value() != static_cast<int>(round)) ++bad;  // a lock that succeeds sees a live object
        } else {
          ++expired;
        }
      }
      barrier.arrive_and_wait();
      if (me == 0) published.reset();
      w.reset();  // weak releases race each other, the object being gone
      barrier.arrive_and_wait();
      if (me == 0 && (tracked::live() != 0 || log.blocks_in_use() != 0)) ++bad;
    }
    t.operations += ops;
    t.mismatches += bad;
    locked += ok;
    failed += expired;
  });
  EXPECT_EQ(t.mismatches, 0);
  EXPECT_GE(t.operations, scaled(1000000));
  EXPECT_GT(locked, 0);  // both outcomes happened: the race was real
  EXPECT_GT(failed, 0);
  before.expect_balanced("after the weak_ptr stress");
}

struct self_aware : tracked, own::enable_shared_from_this<self_aware> {
  explicit self_aware(int v) : tracked(v) {}
};

TEST(EnableSharedFromThisStress, ThreadsTakeOwnersFromTheObject) {
  const int threads = stress_threads();
  const long rounds = scaled(2000);
  constexpr int steps = 256;  // 2 x 2000 x 256 > 10^6
  allocation_log log;
  const census before(log);
  own::shared_ptr<self_aware> current;
  spin_barrier barrier(threads);
  totals t;
  run_threads(threads, [&](int me) {
    rng r(static_cast<unsigned long>(me) + 3);
    long ops = 0, bad = 0;
    for (long round = 0; round < rounds; ++round) {
      if (me == 0) {
        // Both hooks: a housed object, and an adopted pointer with its block from the allocator.
        if (round % 2) {
          current = make_counted<self_aware>(log, static_cast<int>(round));
        } else {
          current = own::shared_ptr<self_aware>(new self_aware(static_cast<int>(round)), own::default_deleter(),
                                                test_allocator<self_aware>(&log));
        }
      }
      barrier.arrive_and_wait();
      own::shared_ptr<self_aware> mine = current;
      self_aware* raw = mine.get();
      std::vector<own::shared_ptr<self_aware>> held;
      for (int k = 0; k < steps; ++k, ++ops) {
        if (r.below(2)) {
          held.push_back(raw->shared_from_this());
          if (held.back() != mine || !held.back().owner_equal(mine)) ++bad;
        } else if (own::shared_ptr<self_aware> p = raw->weak_from_this().lock()) {
          if (p->value() != static_cast<int>(round)) ++bad;
        } else {
          ++bad;  // `mine` keeps it alive
        }
        if (held.size() > 4) held.erase(held.begin());
      }
      barrier.arrive_and_wait();
      if (me == 0) current.reset();
      held.clear();
      mine.reset();
      barrier.arrive_and_wait();
      if (me == 0 && (tracked::live() != 0 || log.blocks_in_use() != 0)) ++bad;
    }
    t.operations += ops;
    t.mismatches += bad;
  });
  EXPECT_EQ(t.mismatches, 0);
  EXPECT_GE(t.operations, scaled(1000000));
  before.expect_balanced("after the enable_shared_from_this stress");
}

// managed_ptrs made from shared_ptrs, by make_managed and from `new`, handed to the next thread,
// which converts them to shared_ptr (the same block back, or one housing block from the allocator)
// and back again, and drops them.
TEST(ManagedPtrStress, ConversionsAcrossThreads) {
  const int threads = stress_threads();
  const long rounds = scaled(500);
  constexpr int batch = 256;  // each item: 4 conversions; 2 x 500 x 256 x 4 > 10^6
  allocation_log log;
  const census before(log);
  std::vector<own::shared_ptr<tracked>> current(8);
  std::vector<std::vector<own::managed_ptr<tracked>>> outbox(static_cast<std::size_t>(threads));
  spin_barrier barrier(threads);
  totals t;
  run_threads(threads, [&](int me) {
    rng r(static_cast<unsigned long>(me) + 11);
    long ops = 0, bad = 0;
    for (long round = 0; round < rounds; ++round) {
      if (me == 0) {
        for (std::size_t i = 0; i < current.size(); ++i) current[i] = make_counted<tracked>(log, static_cast<int>(i));
      }
      barrier.arrive_and_wait();
      auto& out = outbox[static_cast<std::size_t>(me)];
      for (int k = 0; k < batch; ++k) {
        const unsigned i = r.below(8);
        switch (r.below(3)) {
          case 0: out.push_back(own::managed_ptr<tracked>(current[i])); break;  // one more reference
          case 1: out.push_back(own::allocate_managed<tracked>(test_allocator<tracked>(&log), static_cast<int>(i))); break;
          default: out.push_back(own::managed_ptr<tracked>(new tracked(static_cast<int>(i)))); break;
        }
        ++ops;
      }
      barrier.arrive_and_wait();
      auto& in = outbox[static_cast<std::size_t>((me + 1) % threads)];
      for (own::managed_ptr<tracked>& m : in) {
        const int expected = m->value();
        own::shared_ptr<tracked> s(std::move(m), test_allocator<tracked>(&log));  // may house a new-ed object
        own::managed_ptr<tracked> again(s);                                        // a reference
        own::shared_ptr<tracked> back(std::move(again));                            // that reference back
        if (m || again || back != s || back.use_count() < 2 || back->value() != expected) ++bad;
        own::managed_ptr<tracked> last(std::move(back));
        ops += 3;
      }
      in.clear();
      barrier.arrive_and_wait();
      if (me == 0) {
        for (auto& p : current) p.reset();
      }
      barrier.arrive_and_wait();
      if (me == 0 && (tracked::live() != 0 || log.blocks_in_use() != 0)) ++bad;
    }
    t.operations += ops;
    t.mismatches += bad;
  });
  EXPECT_EQ(t.mismatches, 0);
  EXPECT_GE(t.operations, scaled(1000000));
  before.expect_balanced("after the managed_ptr conversion stress");
}

// Both threads acquire from one concurrent_object_pool (managed and shared, with weak observers
// that keep slots out), hand what they got to the other thread, which drops it. Every acquisition
// is reset exactly once on its way back, and every object is back at the end.
TEST(ObjectPoolStress, ConcurrentPoolUsedAndReturnedOnBothThreads) {
  const int threads = stress_threads();
  const long rounds = scaled(1000);
  constexpr int batch = 256;  // acquire + return: 2 x 1000 x 256 x 2 > 10^6
  allocation_log log;
  own_test::test_resource upstream(&log);
  const census before(log);
  std::atomic<long> acquired{0}, resets{0};
  {
    own::concurrent_object_pool<tracked> pool(
        16, own::constructor_args(-1),
        [&resets](tracked& t) {
          if (t.value() < 0) std::abort();  // reset twice without being acquired in between
          t.set_value(-1);
          ++resets;
        },
        &upstream);
    struct handoff {
      std::vector<own::managed_ptr<tracked>> managed;
      std::vector<own::shared_ptr<tracked>> shared;
      std::vector<own::weak_ptr<tracked>> weak;
    };
    std::vector<handoff> outbox(static_cast<std::size_t>(threads));
    spin_barrier barrier(threads);
    totals t;
    run_threads(threads, [&](int me) {
      rng r(static_cast<unsigned long>(me) + 5);
      long ops = 0, bad = 0, got = 0;
      for (long round = 0; round < rounds; ++round) {
        handoff& out = outbox[static_cast<std::size_t>(me)];
        for (int k = 0; k < batch; ++k) {
          switch (r.below(3)) {
            case 0:
              out.managed.push_back(pool.acquire());
              out.managed.back()->set_value(me);
              break;
            case 1:
              out.shared.push_back(pool.acquire_shared());
              out.shared.back()->set_value(me);
              if (r.below(4) == 0) out.weak.push_back(out.shared.back());  // keeps the slot out for a while
              break;
            default:
              if (own::managed_ptr<tracked> m = pool.try_acquire()) {
                m->set_value(me);
                out.shared.push_back(own::shared_ptr<tracked>(std::move(m), test_allocator<tracked>(&log)));
              } else {
                ++bad;  // a growing pool never runs out
              }
          }
          ++got;
        }
        barrier.arrive_and_wait();
        // Drops the other thread's objects while acquiring fresh ones, so that a slot one thread
        // pushes is popped by the other at once (the free list's hand-off, seen by TSan).
        handoff& in = outbox[static_cast<std::size_t>((me + 1) % threads)];
        for (auto& m : in.managed) {
          bad += m->value() != (me + 1) % threads;
          m.reset();
          own::managed_ptr<tracked> fresh = pool.acquire();
          fresh->set_value(me);
          ++got;
        }
        for (auto& s : in.shared) bad += s->value() != (me + 1) % threads;
        ops += static_cast<long>(2 * in.managed.size() + in.shared.size() + in.weak.size());
        in.managed.clear();
        in.shared.clear();
        in.weak.clear();
        ops += batch;
        barrier.arrive_and_wait();
        if (me == 0 && pool.available() != pool.capacity()) ++bad;
        barrier.arrive_and_wait();
      }
      t.operations += ops;
      t.mismatches += bad;
      acquired += got;
    });
    EXPECT_EQ(t.mismatches, 0);
    EXPECT_GE(t.operations, scaled(1000000));
    EXPECT_EQ(resets, acquired);
    EXPECT_EQ(pool.available(), pool.capacity());
    EXPECT_EQ(tracked::live(), static_cast<long>(pool.capacity()));
  }
  before.expect_balanced("after the concurrent object pool stress");
}

// A single-threaded object_pool passes from thread to thread with the rounds (one thread at a
// time, as documented); the barrier is the hand-off, and TSan checks nothing else is shared.
TEST(ObjectPoolStress, SingleThreadedPoolHandedBetweenThreads) {
  const int threads = stress_threads();
  const long rounds = scaled(2000);
  constexpr int batch = 256;  // acquire + return: 2000 x 256 x 2 > 10^6
  allocation_log log;
  own_test::test_resource upstream(&log);
  const census before(log);
  {
    own::object_pool<tracked> pool(8, {}, {}, &upstream);
    spin_barrier barrier(threads);
    totals t;
    run_threads(threads, [&](int me) {
      long ops = 0, bad = 0;
      std::vector<own::managed_ptr<tracked>> held;
      std::vector<own::shared_ptr<tracked>> shared;
      for (long round = 0; round < rounds; ++round) {
        if (round % threads == me) {
          for (int k = 0; k < batch; ++k, ops += 2) {
            if (k % 2) {
              held.push_back(pool.acquire());
            } else {
              shared.push_back(pool.acquire_shared());
            }
            if (held.size() > 8) held.erase(held.begin());
            if (shared.size() > 8) shared.erase(shared.begin());
          }
          held.clear();
          shared.clear();
          if (pool.available() != pool.capacity()) ++bad;
        }
        barrier.arrive_and_wait();
      }
      t.operations += ops;
      t.mismatches += bad;
    });
    EXPECT_EQ(t.mismatches, 0);
    EXPECT_GE(t.operations, scaled(1000000));
    EXPECT_LE(pool.capacity(), 32u);  // objects came back and were reused
  }
  before.expect_balanced("after the object pool hand-off stress");
}

}  // namespace
