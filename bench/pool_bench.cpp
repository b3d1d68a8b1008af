// SPDX-License-Identifier: BSL-1.0
// Block pools against the standard library's pools, malloc, and a bare thread-local free list (the
// floor: what a pool's fast path costs when it does nothing else).
//
//   *_pair      allocate then deallocate one block, over and over (the pool fast path);
//   *_batch     allocate 256 blocks, then free them (walks memory, touches more lines);
//   object_pool_pair / _batch  the same with object pools: acquire() an object and drop it (the
//               concurrent pool's lock-free stack, shared by the threads);
//   two_sizes   a pair of 24 bytes, then a pair of 100 bytes, over and over: a thread that uses two
//               pools (or two size classes of one allocator) in turn; time per round of both pairs;
//   threads:2   the same on two threads at once; per-thread time should stay near threads:1;
//   handoff_*   allocate on this thread, deallocate on a consumer thread, through an SPSC ring
//               (the "made on A, dropped on B" pipeline). Time is both threads' CPU per object, which
//               a busy machine distorts less than wall time (the threads yield rather than spin when the
//               ring stalls). Its floor, handoff_floor, is the same work on one thread: allocate from
//               a bare free list, write, push; then pop and free the whole lap. Every hand-off runs
//               at least that work, split over its two threads, so no row's CPU time can be below it. (The ring
//               alone, on two threads, was no floor: with nothing to do between pushes its threads meet
//               at the ring's ends on every object and spend more CPU than rows that do more.)
//
// Boost.Pool is the fixed-size peer a user would pick (bench/common/boost_pools.hpp): boost_pool is a
// boost::pool<> of the row's own (no lock, like own::pool), boost_singleton_pool the locked process-wide
// pool under boost::fast_pool_allocator (like own::concurrent_pool), boost_object_pool a
// boost::object_pool (construct/destroy; its destroy keeps the free list in address order).
//
// To compare with other mallocs, run the malloc benchmarks with LD_PRELOAD=libmimalloc.so (or
// libtcmalloc_minimal.so).
#include <atomic>
#include <cstdlib>
#include <memory>
#include <memory_resource>
#include <thread>
#include <vector>

#include <benchmark/benchmark.h>
#include <boost/pool/object_pool.hpp>
#include <own/concurrent_pool.hpp>
#include <own/multipool.hpp>
#include <own/object_pool.hpp>
#include <own/pool.hpp>

#include "boost_pools.hpp"

namespace {

constexpr std::size_t block_size = 64;
constexpr int batch = 256;

// The floor: a thread-local intrusive free list with nothing else.
struct bare_free_list {
  struct node {
    node* next;
  };
  node* head = nullptr;
  void* allocate() {
    if (node* n = head) {
      head = n->next;
      return n;
    }
    return std::malloc(block_size);  // warm-up only
  }
  void deallocate(void* p) { head = ::new (p) node{head}; }
};
thread_local bare_free_list floor_list;

struct floor_api {
  void* allocate() { return floor_list.allocate(); }
  void deallocate(void* p) { floor_list.deallocate(p); }
};
struct pool_api {
  own::pool& pool;
  void* allocate() { return pool.allocate(); }
  void deallocate(void* p) { pool.deallocate(p); }
};
struct concurrent_pool_api {
  own::concurrent_pool& pool;
  void* allocate() { return pool.allocate(); }
  void deallocate(void* p) { pool.deallocate(p); }
};
struct resource_api {
  std::pmr::memory_resource& resource;
  void* allocate() { return resource.allocate(block_size, 8); }
  void deallocate(void* p) { resource.deallocate(p, block_size, 8); }
};
struct boost_pool_api {
  boost::pool<>& pool;
  void* allocate() { return pool.malloc(); }
  void deallocate(void* p) { pool.free(p); }
};
struct boost_singleton_pool_api {
  using pool = own_bench::boost_singleton_pool<block_size>;
  void* allocate() { return pool::malloc(); }
  void deallocate(void* p) { pool::free(p); }
};
// An object of a block's size whose construction writes nothing, so construct() costs what the pool does.
struct pool_object {
  pool_object() {}
  unsigned char bytes[block_size];
};
struct boost_object_pool_api {
  boost::object_pool<pool_object>& pool;
  void* allocate() { return pool.construct(); }
  void deallocate(void* p) { pool.destroy(static_cast<pool_object*>(p)); }
};
struct malloc_api {
  void* allocate() { return std::malloc(block_size); }
  void deallocate(void* p) { std::free(p); }
};

// A pool of the row's own is a local whose address nothing takes, so the compiler may keep its
// state in registers across the loop, as no program whose pool other functions share can: it did
// so with boost::pool<>, whose pair then took 0.28 ns, against 0.63 with its address taken (own's
// 0.43 and 0.49). Taking the pool's address (through the api, which refers to it) keeps every
// pool's state in memory.
template <class Api>
void escape(Api& api) {
  benchmark::DoNotOptimize(&api);
}

template <class Api>
void run_pair(benchmark::State& state, Api api) {
  escape(api);
  for (auto _ : state) {
    void* p = api.allocate();
    benchmark::DoNotOptimize(p);
    api.deallocate(p);
  }
  state.SetItemsProcessed(state.iterations());
}

template <class Api>
void run_batch(benchmark::State& state, Api api) {
  escape(api);
  void* blocks[batch];
  for (auto _ : state) {
    for (void*& p : blocks) p = api.allocate();
    benchmark::DoNotOptimize(blocks);
    for (void* p : blocks) api.deallocate(p);
  }
  state.SetItemsProcessed(state.iterations() * batch);
}

// Shared by the benchmark threads of the multi-threaded runs.
own::concurrent_pool& shared_concurrent_pool() {
  static own::concurrent_pool pool(block_size);
  return pool;
}
std::pmr::synchronized_pool_resource& shared_synchronized_pool() {
  static std::pmr::synchronized_pool_resource pool;
  return pool;
}

void floor_pair(benchmark::State& state) { run_pair(state, floor_api{}); }
void pool_pair(benchmark::State& state) {
  own::pool pool(block_size);
  run_pair(state, pool_api{pool});
}
void concurrent_pool_pair(benchmark::State& state) { run_pair(state, concurrent_pool_api{shared_concurrent_pool()}); }
void pmr_unsynchronized_pair(benchmark::State& state) {
  std::pmr::unsynchronized_pool_resource pool;
  run_pair(state, resource_api{pool});
}
void pmr_synchronized_pair(benchmark::State& state) { run_pair(state, resource_api{shared_synchronized_pool()}); }
void malloc_pair(benchmark::State& state) { run_pair(state, malloc_api{}); }
void boost_pool_pair(benchmark::State& state) {
  boost::pool<> pool(block_size);
  run_pair(state, boost_pool_api{pool});
}
void boost_singleton_pool_pair(benchmark::State& state) { run_pair(state, boost_singleton_pool_api{}); }
void boost_object_pool_pair(benchmark::State& state) {
  boost::object_pool<pool_object> pool;
  run_pair(state, boost_object_pool_api{pool});
}

void floor_batch(benchmark::State& state) { run_batch(state, floor_api{}); }
void pool_batch(benchmark::State& state) {
  own::pool pool(block_size);
  run_batch(state, pool_api{pool});
}
void concurrent_pool_batch(benchmark::State& state) { run_batch(state, concurrent_pool_api{shared_concurrent_pool()}); }
void pmr_unsynchronized_batch(benchmark::State& state) {
  std::pmr::unsynchronized_pool_resource pool;
  run_batch(state, resource_api{pool});
}
void pmr_synchronized_batch(benchmark::State& state) { run_batch(state, resource_api{shared_synchronized_pool()}); }
void malloc_batch(benchmark::State& state) { run_batch(state, malloc_api{}); }
void boost_pool_batch(benchmark::State& state) {
  boost::pool<> pool(block_size);
  run_batch(state, boost_pool_api{pool});
}
void boost_singleton_pool_batch(benchmark::State& state) { run_batch(state, boost_singleton_pool_api{}); }
void boost_object_pool_batch(benchmark::State& state) {
  boost::object_pool<pool_object> pool;
  run_batch(state, boost_object_pool_api{pool});
}

BENCHMARK(floor_pair)->Name("exp7/pool_pair/floor")->Threads(1)->Threads(2);
BENCHMARK(pool_pair)->Name("exp7/pool_pair/own_pool")->Threads(1);
BENCHMARK(concurrent_pool_pair)->Name("exp7/pool_pair/own_concurrent_pool")->Threads(1)->Threads(2);
BENCHMARK(pmr_unsynchronized_pair)->Name("exp7/pool_pair/pmr_unsynchronized")->Threads(1);
BENCHMARK(pmr_synchronized_pair)->Name("exp7/pool_pair/pmr_synchronized")->Threads(1)->Threads(2);
BENCHMARK(malloc_pair)->Name("exp7/pool_pair/std")->Threads(1)->Threads(2);
BENCHMARK(boost_pool_pair)->Name("exp7/pool_pair/boost_pool")->Threads(1);
BENCHMARK(boost_singleton_pool_pair)->Name("exp7/pool_pair/boost_singleton_pool")->Threads(1)->Threads(2);
BENCHMARK(boost_object_pool_pair)->Name("exp7/pool_pair/boost_object_pool")->Threads(1);
BENCHMARK(floor_batch)->Name("exp7/pool_batch/floor")->Threads(1)->Threads(2);
BENCHMARK(pool_batch)->Name("exp7/pool_batch/own_pool")->Threads(1);
BENCHMARK(concurrent_pool_batch)->Name("exp7/pool_batch/own_concurrent_pool")->Threads(1)->Threads(2);
BENCHMARK(pmr_unsynchronized_batch)->Name("exp7/pool_batch/pmr_unsynchronized")->Threads(1);
BENCHMARK(pmr_synchronized_batch)->Name("exp7/pool_batch/pmr_synchronized")->Threads(1)->Threads(2);
BENCHMARK(malloc_batch)->Name("exp7/pool_batch/std")->Threads(1)->Threads(2);
BENCHMARK(boost_pool_batch)->Name("exp7/pool_batch/boost_pool")->Threads(1);
BENCHMARK(boost_singleton_pool_batch)->Name("exp7/pool_batch/boost_singleton_pool")->Threads(1)->Threads(2);
BENCHMARK(boost_object_pool_batch)->Name("exp7/pool_batch/boost_object_pool")->Threads(1);

// ---- two sizes in turn
constexpr std::size_t small_size = 24;
constexpr std::size_t large_size = 100;

template <class Allocate, class Deallocate>
void run_two_sizes(benchmark::State& state, Allocate allocate, Deallocate deallocate) {
  for (auto _ : state) {
    void* p = allocate(small_size);
    benchmark::DoNotOptimize(p);
    deallocate(p, small_size);
    void* q = allocate(large_size);
    benchmark::DoNotOptimize(q);
    deallocate(q, large_size);
  }
  state.SetItemsProcessed(2 * state.iterations());
}

// Sized the way a size-class allocator would (a class per power of two), one list per class.
thread_local bare_free_list floor_small_list;
thread_local bare_free_list floor_large_list;
void floor_two_sizes(benchmark::State& state) {
  run_two_sizes(
      state, [](std::size_t n) { return (n == small_size ? floor_small_list : floor_large_list).allocate(); },
      [](void* p, std::size_t n) { (n == small_size ? floor_small_list : floor_large_list).deallocate(p); });
}
// Two concurrent pools, one per size (the stages of a pipeline, each with its pool).
void concurrent_pools_two_sizes(benchmark::State& state) {
  static own::concurrent_pool small(32);
  static own::concurrent_pool large(128);
  run_two_sizes(
      state, [](std::size_t n) { return (n == small_size ? small : large).allocate(); },
      [](void* p, std::size_t n) { (n == small_size ? small : large).deallocate(p); });
}
template <class Resource>
void resource_two_sizes(benchmark::State& state, Resource& resource) {
  run_two_sizes(
      state, [&](std::size_t n) { return resource.allocate(n, 8); },
      [&](void* p, std::size_t n) { resource.deallocate(p, n, 8); });
}
void concurrent_multipool_two_sizes(benchmark::State& state) {
  static own::concurrent_multipool pool;
  resource_two_sizes(state, pool);
}
void multipool_two_sizes(benchmark::State& state) {
  own::multipool pool;
  resource_two_sizes(state, pool);
}
void pmr_unsynchronized_two_sizes(benchmark::State& state) {
  std::pmr::unsynchronized_pool_resource pool;
  resource_two_sizes(state, pool);
}
void pmr_synchronized_two_sizes(benchmark::State& state) { resource_two_sizes(state, shared_synchronized_pool()); }
// Boost's locked singleton pools, one per size, as own's two concurrent pools.
void boost_singleton_pools_two_sizes(benchmark::State& state) {
  using small = own_bench::boost_singleton_pool<32>;
  using large = own_bench::boost_singleton_pool<128>;
  run_two_sizes(
      state, [](std::size_t n) { return n == small_size ? small::malloc() : large::malloc(); },
      [](void* p, std::size_t n) { n == small_size ? small::free(p) : large::free(p); });
}
void malloc_two_sizes(benchmark::State& state) {
  run_two_sizes(state, [](std::size_t n) { return std::malloc(n); }, [](void* p, std::size_t) { std::free(p); });
}

BENCHMARK(floor_two_sizes)->Name("exp7/pool_two_sizes/floor");
BENCHMARK(concurrent_pools_two_sizes)->Name("exp7/pool_two_sizes/own_concurrent_pool");
BENCHMARK(concurrent_multipool_two_sizes)->Name("exp7/pool_two_sizes/own_concurrent_multipool");
BENCHMARK(multipool_two_sizes)->Name("exp7/pool_two_sizes/own_multipool");
BENCHMARK(pmr_unsynchronized_two_sizes)->Name("exp7/pool_two_sizes/pmr_unsynchronized");
BENCHMARK(pmr_synchronized_two_sizes)->Name("exp7/pool_two_sizes/pmr_synchronized");
BENCHMARK(boost_singleton_pools_two_sizes)->Name("exp7/pool_two_sizes/boost_singleton_pool");
BENCHMARK(malloc_two_sizes)->Name("exp7/pool_two_sizes/std");

// Object pools: acquire one object and drop it (the free stack's pop and push), or acquire a batch
// and drop it; the concurrent pool is shared by the benchmark threads, so threads:2 contends on its
// lock-free stack.
struct pooled_object {
  char bytes[block_size];
};
own::concurrent_object_pool<pooled_object>& shared_object_pool() {
  static own::concurrent_object_pool<pooled_object> pool(std::size_t{4} * batch);
  return pool;
}
template <class Pool>
void run_object_pair(benchmark::State& state, Pool& pool) {
  for (auto _ : state) {
    own::managed_ptr<pooled_object> p = pool.acquire();
    benchmark::DoNotOptimize(p.get());
  }
  state.SetItemsProcessed(state.iterations());
}
template <class Pool>
void run_object_batch(benchmark::State& state, Pool& pool) {
  std::vector<own::managed_ptr<pooled_object>> objects(static_cast<std::size_t>(batch));
  for (auto _ : state) {
    for (auto& p : objects) p = pool.acquire();
    benchmark::DoNotOptimize(objects.data());
    for (auto& p : objects) p.reset();
  }
  state.SetItemsProcessed(state.iterations() * batch);
}
void object_pool_pair(benchmark::State& state) {
  own::object_pool<pooled_object> pool(static_cast<std::size_t>(batch));
  run_object_pair(state, pool);
}
void concurrent_object_pool_pair(benchmark::State& state) { run_object_pair(state, shared_object_pool()); }
void object_pool_batch(benchmark::State& state) {
  own::object_pool<pooled_object> pool(static_cast<std::size_t>(batch));
  run_object_batch(state, pool);
}
void concurrent_object_pool_batch(benchmark::State& state) { run_object_batch(state, shared_object_pool()); }

BENCHMARK(object_pool_pair)->Name("exp7/object_pool_pair/own_object_pool")->Threads(1);
BENCHMARK(concurrent_object_pool_pair)->Name("exp7/object_pool_pair/own_concurrent_object_pool")->Threads(1)->Threads(2);
BENCHMARK(object_pool_batch)->Name("exp7/object_pool_batch/own_object_pool")->Threads(1);
BENCHMARK(concurrent_object_pool_batch)->Name("exp7/object_pool_batch/own_concurrent_object_pool")->Threads(1)->Threads(2);

// A bounded single-producer single-consumer ring of pointers.
class spsc_ring {
 public:
  static constexpr std::size_t capacity = 1024;

  bool try_push(void* p) {
    const std::size_t tail = tail_.load(std::memory_order_relaxed);
    if (tail - head_cache_ == capacity) {
      head_cache_ = head_.load(std::memory_order_acquire);
      if (tail - head_cache_ == capacity) return false;
    }
    slots_[tail % capacity] = p;
    tail_.store(tail + 1, std::memory_order_release);
    return true;
  }
  void* try_pop() {
    const std::size_t head = head_.load(std::memory_order_relaxed);
    if (head == tail_cache_) {
      tail_cache_ = tail_.load(std::memory_order_acquire);
      if (head == tail_cache_) return nullptr;
    }
    void* p = slots_[head % capacity];
    head_.store(head + 1, std::memory_order_release);
    return p;
  }

 private:
  void* slots_[capacity] = {};
  alignas(64) std::atomic<std::size_t> head_{0};
  std::size_t tail_cache_ = 0;  // consumer's
  alignas(64) std::atomic<std::size_t> tail_{0};
  std::size_t head_cache_ = 0;  // producer's
};

// Allocates on this thread, frees on a consumer thread.
template <class Allocate, class Deallocate>
void run_handoff(benchmark::State& state, Allocate allocate, Deallocate deallocate) {
  auto ring = std::make_unique<spsc_ring>();
  std::atomic<bool> stop{false};
  std::thread consumer([&] {
    for (;;) {
      if (void* p = ring->try_pop()) {
        deallocate(p);
      } else if (stop.load(std::memory_order_acquire)) {
        while (void* rest = ring->try_pop()) deallocate(rest);
        return;
      } else {
        std::this_thread::yield();  // the two threads may share a CPU: spinning would waste its slice
      }
    }
  });
  for (auto _ : state) {
    void* p = allocate();
    *static_cast<int*>(p) = 1;  // a real object is written where it is made
    while (!ring->try_push(p)) std::this_thread::yield();
  }
  stop.store(true, std::memory_order_release);
  consumer.join();
  state.SetItemsProcessed(state.iterations());
}

void handoff_floor(benchmark::State& state) {
  auto ring = std::make_unique<spsc_ring>();
  while (state.KeepRunningBatch(spsc_ring::capacity)) {
    for (std::size_t i = 0; i < spsc_ring::capacity; ++i) {
      void* p = floor_list.allocate();
      *static_cast<int*>(p) = 1;
      ring->try_push(p);  // never full: a lap is the ring's capacity
    }
    while (void* p = ring->try_pop()) floor_list.deallocate(p);
  }
  state.SetItemsProcessed(state.iterations());
}
void handoff_concurrent_pool(benchmark::State& state) {
  own::concurrent_pool pool(block_size);
  run_handoff(state, [&] { return pool.allocate(); }, [&](void* p) { pool.deallocate(p); });
}
void handoff_pmr_synchronized(benchmark::State& state) {
  std::pmr::synchronized_pool_resource pool;
  run_handoff(state, [&] { return pool.allocate(block_size, 8); }, [&](void* p) { pool.deallocate(p, block_size, 8); });
}
void handoff_boost_singleton_pool(benchmark::State& state) {
  run_handoff(state, [] { return boost_singleton_pool_api{}.allocate(); },
              [](void* p) { boost_singleton_pool_api{}.deallocate(p); });
}
void handoff_malloc(benchmark::State& state) {
  run_handoff(state, [] { return std::malloc(block_size); }, [](void* p) { std::free(p); });
}

BENCHMARK(handoff_floor)->Name("exp7/pool_handoff/floor")->UseRealTime()->MeasureProcessCPUTime();
BENCHMARK(handoff_concurrent_pool)->Name("exp7/pool_handoff/own_concurrent_pool")->UseRealTime()->MeasureProcessCPUTime();
BENCHMARK(handoff_pmr_synchronized)->Name("exp7/pool_handoff/pmr_synchronized")->UseRealTime()->MeasureProcessCPUTime();
BENCHMARK(handoff_boost_singleton_pool)->Name("exp7/pool_handoff/boost_singleton_pool")->UseRealTime()->MeasureProcessCPUTime();
BENCHMARK(handoff_malloc)->Name("exp7/pool_handoff/std")->UseRealTime()->MeasureProcessCPUTime();

}  // namespace
