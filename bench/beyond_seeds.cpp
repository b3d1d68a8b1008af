// SPDX-License-Identifier: BSL-1.0
// Experiment 6: beyond the seeds.
//  (a) create/destroy on one and on two threads at once (each thread its own objects):
//      exp6/create_destroy/<impl>/real_time/threads:<1|2>
//  (b) cross-thread hand-off through an SPSC ring (made on one thread, dropped on the other):
//      exp6/handoff/<impl>/real_time
//  (c) std::pmr pools under std::allocate_shared and own: exp6/pmr_<unsync|sync>/<impl>
//      own takes the pool either as the same polymorphic_allocator (impl own) or as a plain
//      std::pmr::memory_resource* (impl own_resource)
//  In (a), (b) and (c), std_boost_pool is std::allocate_shared with Boost.Pool, the fixed-size pool a
//  user of std would pick (bench/common/boost_pools.hpp): boost::fast_pool_allocator (locked) where
//  threads share the pool, a boost::pool<> of the row's own in pmr_unsync; (c)'s own_pool is own with
//  its own pools (own::pool in pmr_unsync, own::concurrent_pool in pmr_sync).
//  (d) atomic shared pointers, on one and two threads: load, store, and one thread storing while
//      the other loads: exp6/atomic_<load|store|mixed>/<impl>/real_time/threads:<n>
//      std = std::atomic<std::shared_ptr<T>> (libstdc++), boost = boost::atomic_shared_ptr,
//      own = own::atomic_shared_ptr; own_snapshot = its snapshot() read, as a row of the load case.
//  (e) a heap after churn, in a fresh process per repetition (fresh_process.hpp): 300,000 items
//      made, shuffled, nine in ten dropped in that random order (a tenth stays, scattered, as in a
//      long-running program), then 300,000 made again (exp6/churned_refill/<impl>) and read ten
//      times in the order made (exp6/churned_walk/<impl>): whether the blocks an allocator gives
//      out after random-order frees still lie side by side. The ways of (a).
// The floor rows (bench/common/floor.hpp) are the bare minimum for (a), (b) and (c); (b)'s is the
// hand-off's work done on one thread (bench/common/handoff.hpp, run_handoff_floor), and (b)'s
// floor_two_threads the floor's blocks handed off by two threads as the other rows' are.
#include <algorithm>
#include <atomic>
#include <iterator>
#include <memory>
#include <memory_resource>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <boost/smart_ptr/atomic_shared_ptr.hpp>
#include <boost/smart_ptr/make_shared.hpp>

#include "bench_common.hpp"
#include "boost_pools.hpp"
#include "floor.hpp"
#include "fresh_process.hpp"
#include "handoff.hpp"
#include "pools.hpp"

#include "own_headers.hpp"

namespace {

using own_bench::keep;

struct item {
  long a = 1;
  long b = 2;
};

constexpr std::size_t block_size = 64;

// ---- (a) and (b): the ways of making an item
struct std_make {
  static auto make() { return std::make_shared<item>(); }
};
struct floor_make {
  static auto make() { return own_bench::make_floor<item>(); }
};
#ifdef OWN_BENCH_HAS_SHARED_PTR
struct own_make {
  static auto make() { return own::make_shared<item>(); }
};
// The pooled ways find their pool through a reference bound once: shared_pool() is an out-of-line call
// with its own guard, which the unpooled rows (std, own, floor) do not pay per item.
#ifdef OWN_BENCH_HAS_CONCURRENT_POOL
struct own_pool_make {
  // Sized for what it holds, as own's documentation tells users (housed_block_size), as Boost's
  // pool allocator is rebound to exactly std's block: not the pmr rows' 64 bytes.
  static inline own::concurrent_pool& pool =
      own_bench::shared_pool<own::concurrent_pool, own::housed_block_size<item, own::concurrent_pool*>>();
  static auto make() { return own::make_shared_object_with_alloc<item>(&pool); }
};
#endif
#endif
struct std_sync_pool_make {
  static inline std::pmr::synchronized_pool_resource& pool =
      own_bench::shared_pool<std::pmr::synchronized_pool_resource, 0>();
  static auto make() { return std::allocate_shared<item>(std::pmr::polymorphic_allocator<item>(&pool)); }
};

struct std_boost_pool_make {
  static auto make() { return std::allocate_shared<item>(boost::fast_pool_allocator<item>()); }
};

template <class Way>
void create_destroy(benchmark::State& state) {
  for (auto _ : state) keep(Way::make());
  state.SetItemsProcessed(state.iterations());
}

// (e), run in a fresh process: the thread's CPU time, in nanoseconds, of making the items again
// after the churn, or of the ten walks over them (`walk`).
template <class Way>
double after_churn(bool walk) {
  using pointer = decltype(Way::make());
  const std::size_t n = own_bench::scaled<std::size_t>(300000, 100000);
  std::vector<pointer> items;
  items.reserve(n);
  for (std::size_t i = 0; i < n; ++i) items.push_back(Way::make());
  std::shuffle(items.begin(), items.end(), std::minstd_rand(42));
  const std::vector<pointer> kept(std::make_move_iterator(items.begin()), std::make_move_iterator(items.begin() + n / 10));
  items.clear();
  const double start = own_bench::thread_cpu_ns();
  for (std::size_t i = 0; i < n; ++i) items.push_back(Way::make());
  const double made = own_bench::thread_cpu_ns();
  long sum = 0;
  for (int round = 0; round < 10; ++round) {
    for (const pointer& p : items) sum += p->a;
  }
  keep(sum);
  const double walked = own_bench::thread_cpu_ns();
  return walk ? walked - made : made - start;
}

template <class Way>
void add_threads(const std::string& impl) {
  own_bench::add("exp6/create_destroy/" + impl, create_destroy<Way>)->UseRealTime()->Threads(1)->Threads(2);
  own_bench::add_fresh_process_row("exp6/churned_refill/" + impl, "churned_refill/" + impl,
                                   [] { return after_churn<Way>(false); });
  own_bench::add_fresh_process_row("exp6/churned_walk/" + impl, "churned_walk/" + impl,
                                   [] { return after_churn<Way>(true); });
  constexpr bool floor = std::is_same_v<Way, floor_make>;
  own_bench::add_handoff("exp6/handoff/" + impl, [] { return Way::make(); }, floor);
  // The floor's blocks through the same ring on two threads: what the lines that every hand-off
  // moves between the cores cost with the cheapest allocation.
  if (floor) own_bench::add_handoff("exp6/handoff/floor_two_threads", [] { return Way::make(); });
}

[[maybe_unused]] void add_threads_missing(const std::string& impl, const char* header) {
  own_bench::missing("exp6/create_destroy/" + impl + "/real_time/threads:1", header);
  own_bench::missing("exp6/create_destroy/" + impl + "/real_time/threads:2", header);
  own_bench::missing("exp6/handoff/" + impl + "/real_time", header);
  own_bench::missing("exp6/churned_refill/" + impl + "/iterations:1/manual_time", header);
  own_bench::missing("exp6/churned_walk/" + impl + "/iterations:1/manual_time", header);
}

// ---- (c) std::pmr pools, single thread
template <class Resource, class Make>
void pmr_row(benchmark::State& state, Make make) {
  Resource resource;
  for (auto _ : state) keep(make(resource));
  state.SetItemsProcessed(state.iterations());
}

template <class Resource>
void add_pmr(const std::string& kind) {
  const std::string prefix = "exp6/pmr_" + kind + "/";
  own_bench::add(prefix + "std", [](benchmark::State& s) {
    pmr_row<Resource>(s, [](Resource& r) { return std::allocate_shared<item>(std::pmr::polymorphic_allocator<item>(&r)); });
  });
#ifdef OWN_BENCH_HAS_SHARED_PTR
  own_bench::add(prefix + "own", [](benchmark::State& s) {
    pmr_row<Resource>(s, [](Resource& r) { return own::allocate_shared<item>(std::pmr::polymorphic_allocator<item>(&r)); });
  });
  own_bench::add(prefix + "own_resource", [](benchmark::State& s) {
    pmr_row<Resource>(s, [](Resource& r) {
      return own::make_shared_object_with_alloc<item>(static_cast<std::pmr::memory_resource*>(&r));
    });
  });
#else
  own_bench::missing(prefix + "own", "own/shared_ptr.hpp");
  own_bench::missing(prefix + "own_resource", "own/shared_ptr.hpp");
#endif
  own_bench::add(prefix + "floor", create_destroy<floor_make>);
}

// The fixed-size pools each library's user would pick instead, as rows of (c), so that each case holds
// every library's best pool: without a lock, a pool of the row's own (boost::pool<> under std, own::pool
// under own), as unsynchronized_pool_resource is; locked or thread-safe, fast_pool_allocator's singleton
// and own::concurrent_pool, as synchronized_pool_resource is.
void add_pmr_fixed_size() {
  own_bench::add("exp6/pmr_unsync/std_boost_pool", [](benchmark::State& state) {
    boost::pool<> pool(block_size);
    const own_bench::boost_pool_allocator<item> alloc(&pool);
    for (auto _ : state) keep(std::allocate_shared<item>(alloc));
    state.SetItemsProcessed(state.iterations());
  });
  own_bench::add("exp6/pmr_sync/std_boost_pool", create_destroy<std_boost_pool_make>);
#if defined(OWN_BENCH_HAS_SHARED_PTR) && defined(OWN_BENCH_HAS_POOL) && defined(OWN_BENCH_HAS_CONCURRENT_POOL)
  own_bench::add("exp6/pmr_unsync/own_pool", [](benchmark::State& state) {
    own::pool pool(block_size);
    for (auto _ : state) keep(own::make_shared_object_with_alloc<item>(&pool));
    state.SetItemsProcessed(state.iterations());
  });
  own_bench::add("exp6/pmr_sync/own_pool", create_destroy<own_pool_make>);
#else
  own_bench::missing("exp6/pmr_unsync/own_pool", "own/pool.hpp");
  own_bench::missing("exp6/pmr_sync/own_pool", "own/concurrent_pool.hpp");
#endif
}

// ---- (d) atomic shared pointers
template <class Atomic, class Ptr>
struct atomic_cell {
  static Atomic& cell() {
    static Atomic* const a = new Atomic(Ptr(fresh()));  // shared by the threads of a row; never destroyed
    return *a;
  }
  static Ptr& fresh() {
    static Ptr* const p = new Ptr(new item);
    return *p;
  }
};

template <class Cell>
void atomic_load(benchmark::State& state) {
  auto& a = Cell::cell();
  for (auto _ : state) keep(a.load());
  state.SetItemsProcessed(state.iterations());
}

template <class Cell>
void atomic_store(benchmark::State& state) {
  auto& a = Cell::cell();
  const auto p = Cell::fresh();
  for (auto _ : state) a.store(p);
  state.SetItemsProcessed(state.iterations());
}

// Thread 0 stores, the others load.
template <class Cell>
void atomic_mixed(benchmark::State& state) {
  auto& a = Cell::cell();
  const auto p = Cell::fresh();
  if (state.thread_index() == 0) {
    for (auto _ : state) a.store(p);
  } else {
    for (auto _ : state) keep(a.load());
  }
  state.SetItemsProcessed(state.iterations());
}

template <class Cell>
void add_atomic(const std::string& impl) {
  own_bench::add("exp6/atomic_load/" + impl, atomic_load<Cell>)->UseRealTime()->Threads(1)->Threads(2);
  own_bench::add("exp6/atomic_store/" + impl, atomic_store<Cell>)->UseRealTime()->Threads(1)->Threads(2);
  own_bench::add("exp6/atomic_mixed/" + impl, atomic_mixed<Cell>)->UseRealTime()->Threads(2);
}

using std_cell = atomic_cell<std::atomic<std::shared_ptr<item>>, std::shared_ptr<item>>;
using boost_cell = atomic_cell<boost::atomic_shared_ptr<item>, boost::shared_ptr<item>>;
#ifdef OWN_BENCH_HAS_ATOMIC_SHARED_PTR
using own_cell = atomic_cell<own::atomic_shared_ptr<item>, own::shared_ptr<item>>;

// own's other way to read: a snapshot, kept alive by the thread's hazard slot, with no count written
// (a row of the load case: what a reader of a rarely changed value would use instead of load()).
void atomic_snapshot(benchmark::State& state) {
  auto& a = own_cell::cell();
  for (auto _ : state) {
    own::snapshot_ptr<item> s = a.snapshot();
    keep(s->a);
  }
  state.SetItemsProcessed(state.iterations());
}
#endif

const own_bench::registration registered([] {
  add_threads<std_make>("std");
  add_threads<std_sync_pool_make>("std_pmr_pool");
  add_threads<std_boost_pool_make>("std_boost_pool");
#ifdef OWN_BENCH_HAS_SHARED_PTR
  add_threads<own_make>("own");
#ifdef OWN_BENCH_HAS_CONCURRENT_POOL
  add_threads<own_pool_make>("own_pool");
#else
  add_threads_missing("own_pool", "own/concurrent_pool.hpp");
#endif
#else
  add_threads_missing("own", "own/shared_ptr.hpp");
  add_threads_missing("own_pool", "own/shared_ptr.hpp");
#endif
  add_threads<floor_make>("floor");

  add_pmr<std::pmr::unsynchronized_pool_resource>("unsync");
  add_pmr<std::pmr::synchronized_pool_resource>("sync");
  add_pmr_fixed_size();

  add_atomic<std_cell>("std");
  add_atomic<boost_cell>("boost");
#ifdef OWN_BENCH_HAS_ATOMIC_SHARED_PTR
  add_atomic<own_cell>("own");
  own_bench::add("exp6/atomic_load/own_snapshot", atomic_snapshot)->UseRealTime()->Threads(1)->Threads(2);
#else
  for (const char* op : {"atomic_load", "atomic_store"})
    for (const char* t : {"1", "2"})
      own_bench::missing(std::string("exp6/") + op + "/own/real_time/threads:" + t, "own/atomic_shared_ptr.hpp");
  own_bench::missing("exp6/atomic_mixed/own/real_time/threads:2", "own/atomic_shared_ptr.hpp");
#endif
});

}  // namespace

int main(int argc, char** argv) { return own_bench::main_with_fresh_processes(argc, argv); }
