// SPDX-License-Identifier: BSL-1.0
// Experiment 4: ways of constructing a shared_ptr to a packet (seed: the Chinese blog
// post "几种构造shared_ptr方式的性能比较以及vs2017库代码的一个BUG": at 10 GbE, ~1M packets/s, each packet owned
// by a shared_ptr; it timed make_shared, shared_ptr(new T), shared_ptr over a pooled object,
// allocate_shared with a pool, new/delete and a raw pool, and found a hidden memset in one library's
// allocate_shared).
//
// The packet is trivial (bench/common/packet.hpp), so make_shared / allocate_shared value-initialise
// it (a 1500-byte memset, by the standard's rules) while the _for_overwrite forms do not: the seed's
// memset, made visible. The pools are locked/thread-safe, as in the seed: std::pmr::synchronized_pool_resource
// for std, own::concurrent_pool for own. Every row is run single-threaded and as a hand-off (made on
// the benchmark thread, dropped on a second thread through an SPSC ring).
//
// Rows: exp4/<case>/<impl>[/handoff]
//   case: make_shared, make_shared_for_overwrite, shared_ptr_new, shared_ptr_pooled, allocate_shared_pool,
//         allocate_shared_for_overwrite_pool, new_delete, raw_pool;  impl: std | own | floor
#include <memory>
#include <memory_resource>
#include <string>

#include "bench_common.hpp"
#include "floor.hpp"
#include "handoff.hpp"
#include "packet.hpp"

#include "own_headers.hpp"

namespace {

using own_bench::packet;

// Room for a packet and any count block housing one.
constexpr std::size_t packet_block = 1600;

std::pmr::synchronized_pool_resource& std_pool() {
  static auto* pool = new std::pmr::synchronized_pool_resource();  // never destroyed: blocks may outlive rows
  return *pool;
}

// Returns a packet to a pool; the deleter of the "pooled" rows.
struct std_pool_return {
  void operator()(packet* p) const noexcept { std_pool().deallocate(p, sizeof(packet), alignof(packet)); }
};
packet* std_pool_get() { return static_cast<packet*>(std_pool().allocate(sizeof(packet), alignof(packet))); }

struct std_ways {
  static auto make_shared() { return std::make_shared<packet>(); }
  static auto make_shared_for_overwrite() { return std::make_shared_for_overwrite<packet>(); }
  static auto shared_ptr_new() { return std::shared_ptr<packet>(new packet); }
  static auto shared_ptr_pooled() { return std::shared_ptr<packet>(std_pool_get(), std_pool_return{}); }
  static auto allocate_shared_pool() {
    return std::allocate_shared<packet>(std::pmr::polymorphic_allocator<packet>(&std_pool()));
  }
  static auto allocate_shared_for_overwrite_pool() {
    return std::allocate_shared_for_overwrite<packet>(std::pmr::polymorphic_allocator<packet>(&std_pool()));
  }
  static auto new_delete() { return std::unique_ptr<packet>(new packet); }  // the owner is just the delete
  static auto raw_pool() { return std::unique_ptr<packet, std_pool_return>(std_pool_get()); }
};

struct floor_ways {
  static auto make_shared() { return own_bench::make_floor<packet>(); }
  static auto make_shared_for_overwrite() { return own_bench::make_floor_for_overwrite<packet>(); }
};

#ifdef OWN_BENCH_HAS_CONCURRENT_POOL
struct own_pool_ways {
  static own::concurrent_pool& pool() {
    static auto* p = new own::concurrent_pool(packet_block);  // never destroyed: blocks may outlive rows
    return *p;
  }
  struct pool_return {
    void operator()(packet* p) const noexcept { pool().deallocate(p); }
  };
  static packet* pool_get() { return static_cast<packet*>(pool().allocate()); }
  static auto raw_pool() { return std::unique_ptr<packet, pool_return>(pool_get()); }
};
#endif

#ifdef OWN_BENCH_HAS_SHARED_PTR
struct own_ways {
  static auto make_shared() { return own::make_shared<packet>(); }
  static auto make_shared_for_overwrite() { return own::make_shared_for_overwrite<packet>(); }
  static auto shared_ptr_new() { return own::shared_ptr<packet>(new packet); }
#ifdef OWN_BENCH_HAS_CONCURRENT_POOL
  static auto shared_ptr_pooled() {
    return own::shared_ptr<packet>(own_pool_ways::pool_get(), own_pool_ways::pool_return{});
  }
#ifdef OWN_BENCH_HAS_POOL_ALLOCATOR
  using allocator = own::pool_allocator<packet, own::concurrent_pool>;
  static auto allocate_shared_pool() { return own::allocate_shared<packet>(allocator(&own_pool_ways::pool())); }
  static auto allocate_shared_for_overwrite_pool() {
    return own::allocate_shared_for_overwrite<packet>(allocator(&own_pool_ways::pool()));
  }
#endif
#endif
};
#endif

template <class Make>
void single(benchmark::State& state, Make make) {
  std::uint32_t i = 0;
  for (auto _ : state) {
    auto p = make();
    own_bench::fill_header(*p, i++);
    benchmark::DoNotOptimize(p);
  }
  state.SetItemsProcessed(state.iterations());
}

template <class Make>
void handoff(benchmark::State& state, Make make) {
  std::uint32_t i = 0;
  own_bench::run_handoff(state, [&] {
    auto p = make();
    own_bench::fill_header(*p, i++);
    return p;
  });
}

template <class Make>
void add(const std::string& name, Make make) {
  own_bench::add(name, [make](benchmark::State& s) { single(s, make); });
  own_bench::add(name + "/handoff", [make](benchmark::State& s) { handoff(s, make); })
      ->UseRealTime()
      ->Iterations(own_bench::handoff_items());
}

[[maybe_unused]] void add_missing(const std::string& name, const char* header) {
  own_bench::missing(name, header);
  own_bench::missing(name + "/handoff/real_time", header);
}

#define OWN_BENCH_WAY(ways, way, impl) add("exp4/" #way "/" impl, [] { return ways::way(); })

const own_bench::registration registered([] {
  OWN_BENCH_WAY(std_ways, make_shared, "std");
  OWN_BENCH_WAY(std_ways, make_shared_for_overwrite, "std");
  OWN_BENCH_WAY(std_ways, shared_ptr_new, "std");
  OWN_BENCH_WAY(std_ways, shared_ptr_pooled, "std");
  OWN_BENCH_WAY(std_ways, allocate_shared_pool, "std");
  OWN_BENCH_WAY(std_ways, allocate_shared_for_overwrite_pool, "std");
  OWN_BENCH_WAY(std_ways, new_delete, "std");
  OWN_BENCH_WAY(std_ways, raw_pool, "std");
  OWN_BENCH_WAY(floor_ways, make_shared, "floor");
  OWN_BENCH_WAY(floor_ways, make_shared_for_overwrite, "floor");
#ifdef OWN_BENCH_HAS_CONCURRENT_POOL
  OWN_BENCH_WAY(own_pool_ways, raw_pool, "own");
#else
  add_missing("exp4/raw_pool/own", "own/concurrent_pool.hpp");
#endif
#ifdef OWN_BENCH_HAS_SHARED_PTR
  OWN_BENCH_WAY(own_ways, make_shared, "own");
  OWN_BENCH_WAY(own_ways, make_shared_for_overwrite, "own");
  OWN_BENCH_WAY(own_ways, shared_ptr_new, "own");
#ifdef OWN_BENCH_HAS_CONCURRENT_POOL
  OWN_BENCH_WAY(own_ways, shared_ptr_pooled, "own");
#ifdef OWN_BENCH_HAS_POOL_ALLOCATOR
  OWN_BENCH_WAY(own_ways, allocate_shared_pool, "own");
  OWN_BENCH_WAY(own_ways, allocate_shared_for_overwrite_pool, "own");
#else
  add_missing("exp4/allocate_shared_pool/own", "own/pool_allocator.hpp");
  add_missing("exp4/allocate_shared_for_overwrite_pool/own", "own/pool_allocator.hpp");
#endif
#else
  for (const char* c : {"shared_ptr_pooled", "allocate_shared_pool", "allocate_shared_for_overwrite_pool"})
    add_missing(std::string("exp4/") + c + "/own", "own/concurrent_pool.hpp");
#endif
#else
  for (const char* c : {"make_shared", "make_shared_for_overwrite", "shared_ptr_new", "shared_ptr_pooled",
                        "allocate_shared_pool", "allocate_shared_for_overwrite_pool"})
    add_missing(std::string("exp4/") + c + "/own", "own/shared_ptr.hpp");
#endif
});

}  // namespace
