// SPDX-License-Identifier: BSL-1.0
// Experiment 4: ways of constructing a shared_ptr to a packet (seed: the Chinese blog
// post "几种构造shared_ptr方式的性能比较以及vs2017库代码的一个BUG": at 10 GbE, ~1M packets/s, each packet owned
// by a shared_ptr; it timed make_shared, shared_ptr(new T), shared_ptr over a pooled object,
// allocate_shared with a pool, new/delete and a raw pool, and found a hidden memset in one library's
// allocate_shared).
//
// The reproduction uses a packet with a constructor, as the seed's was (bench/common/packet.hpp:
// constructed_packet), so make_shared runs the constructor and zeroes nothing. The trivial packet stays
// as separate rows, trivial_*, single-threaded: there make_shared / allocate_shared value-initialise (a
// 1508-byte memset, by the standard's rules) while the _for_overwrite forms do not, which is what
// _for_overwrite saves. The pools are locked/thread-safe, as in the seed:
// std::pmr::synchronized_pool_resource for std, own::concurrent_pool for own; and, as the fixed-size
// pool a std user would pick, Boost.Pool's locked singleton pool (impl std_boost_pool:
// boost::singleton_pool for the pooled objects, boost::fast_pool_allocator for allocate_shared;
// bench/common/boost_pools.hpp). Every reproduction row is
// run single-threaded and as a hand-off (made on the benchmark thread, dropped on a second thread
// through an SPSC ring).
//
// Rows: exp4/<case>/<impl>[/handoff]
//   case: make_shared, shared_ptr_new, shared_ptr_pooled, allocate_shared_pool, new_delete, raw_pool
//         (constructed_packet, single and hand-off); trivial_make_shared, trivial_make_shared_for_overwrite,
//         trivial_allocate_shared_pool, trivial_allocate_shared_for_overwrite_pool (packet, single)
//   impl: std | own | floor | std_boost_pool (the pooled cases)
#include <memory>
#include <memory_resource>
#include <cstdint>
#include <new>
#include <string>

#include "bench_common.hpp"
#include "boost_pools.hpp"
#include "floor.hpp"
#include "handoff.hpp"
#include "packet.hpp"

#include "own_headers.hpp"

namespace {

using own_bench::constructed_packet;
using own_bench::packet;

// Room for a packet and any count block housing one.
constexpr std::size_t packet_block = 1600;

std::pmr::synchronized_pool_resource& std_pool() {
  static auto* pool = new std::pmr::synchronized_pool_resource();  // never destroyed: blocks may outlive rows
  return *pool;
}

template <class P>
struct std_ways {
  // Returns a packet to the pool; the deleter of the "pooled" rows.
  struct pool_return {
    void operator()(P* p) const noexcept { std_pool().deallocate(p, sizeof(P), alignof(P)); }
  };
  static P* pool_get() { return ::new (std_pool().allocate(sizeof(P), alignof(P))) P; }
  static std::pmr::polymorphic_allocator<P> allocator() { return std::pmr::polymorphic_allocator<P>(&std_pool()); }

  static auto make_shared() { return std::make_shared<P>(); }
  static auto make_shared_for_overwrite() { return std::make_shared_for_overwrite<P>(); }
  static auto shared_ptr_new() { return std::shared_ptr<P>(new P); }
  static auto shared_ptr_pooled() { return std::shared_ptr<P>(pool_get(), pool_return{}); }
  static auto allocate_shared_pool() { return std::allocate_shared<P>(allocator()); }
  static auto allocate_shared_for_overwrite_pool() { return std::allocate_shared_for_overwrite<P>(allocator()); }
  static auto new_delete() { return std::unique_ptr<P>(new P); }  // the owner is just the delete
  static auto raw_pool() { return std::unique_ptr<P, pool_return>(pool_get()); }
};

// Boost.Pool under std: a packet-sized block from the locked singleton pool, returned as std_ways' are.
template <class P>
struct std_boost_pool_ways {
  using pool = own_bench::boost_singleton_pool<sizeof(P)>;
  struct pool_return {
    void operator()(P* p) const noexcept { pool::free(p); }
  };
  static P* pool_get() { return ::new (pool::malloc()) P; }

  static auto shared_ptr_pooled() { return std::shared_ptr<P>(pool_get(), pool_return{}); }
  static auto allocate_shared_pool() { return std::allocate_shared<P>(boost::fast_pool_allocator<P>()); }
  static auto raw_pool() { return std::unique_ptr<P, pool_return>(pool_get()); }
};

template <class P>
struct floor_ways {
  static auto make_shared() { return own_bench::make_floor<P>(); }
  static auto make_shared_for_overwrite() { return own_bench::make_floor_for_overwrite<P>(); }
};

#ifdef OWN_BENCH_HAS_CONCURRENT_POOL
own::concurrent_pool& own_pool() {
  static auto* p = new own::concurrent_pool(packet_block);  // never destroyed: blocks may outlive rows
  return *p;
}

template <class P>
struct own_pool_ways {
  struct pool_return {
    void operator()(P* p) const noexcept { own_pool().deallocate(p); }
  };
  static P* pool_get() { return ::new (own_pool().allocate()) P; }
  static auto raw_pool() { return std::unique_ptr<P, pool_return>(pool_get()); }
};
#endif

#ifdef OWN_BENCH_HAS_SHARED_PTR
template <class P>
struct own_ways {
  static auto make_shared() { return own::make_shared<P>(); }
  static auto make_shared_for_overwrite() { return own::make_shared_for_overwrite<P>(); }
  static auto shared_ptr_new() { return own::shared_ptr<P>(new P); }
#ifdef OWN_BENCH_HAS_CONCURRENT_POOL
  static auto shared_ptr_pooled() {
    return own::shared_ptr<P>(own_pool_ways<P>::pool_get(), typename own_pool_ways<P>::pool_return{});
  }
#ifdef OWN_BENCH_HAS_POOL_ALLOCATOR
  using allocator = own::pool_allocator<P, own::concurrent_pool>;
  static auto allocate_shared_pool() { return own::allocate_shared<P>(allocator(&own_pool())); }
  static auto allocate_shared_for_overwrite_pool() {
    return own::allocate_shared_for_overwrite<P>(allocator(&own_pool()));
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

// Reproduction rows run single-threaded and as a hand-off (the floor's hand-off row is the one-thread
// hand-off floor of bench/common/handoff.hpp); the trivial packet's rows single-threaded only.
enum class handoff_row { none, pipeline, floor };

template <class Make>
void add(const std::string& name, Make make, handoff_row handoff) {
  own_bench::add(name, [make](benchmark::State& s) { single(s, make); });
  if (handoff == handoff_row::none) return;
  own_bench::add_handoff(name + "/handoff", [make, i = std::uint32_t{0}]() mutable {
    auto p = make();
    own_bench::fill_header(*p, i++);
    return p;
  }, handoff == handoff_row::floor);
}

[[maybe_unused]] void add_missing(const std::string& name, const char* header) {
  own_bench::missing(name, header);
  if (name.find("/trivial_") == std::string::npos) own_bench::missing(name + "/handoff/real_time", header);
}

// WAY: the reproduction's row, with the seed's packet (one with a constructor); TRIVIAL: the trivial
// packet's row.
#define WAY(ways, way, impl) \
  add("exp4/" #way "/" impl, [] { return ways<constructed_packet>::way(); }, handoff_row::pipeline)
#define TRIVIAL(ways, way, impl) add("exp4/trivial_" #way "/" impl, [] { return ways<packet>::way(); }, handoff_row::none)

const own_bench::registration registered([] {
  WAY(std_ways, make_shared, "std");
  WAY(std_ways, shared_ptr_new, "std");
  WAY(std_ways, shared_ptr_pooled, "std");
  WAY(std_ways, allocate_shared_pool, "std");
  WAY(std_ways, new_delete, "std");
  WAY(std_ways, raw_pool, "std");
  WAY(std_boost_pool_ways, shared_ptr_pooled, "std_boost_pool");
  WAY(std_boost_pool_ways, allocate_shared_pool, "std_boost_pool");
  WAY(std_boost_pool_ways, raw_pool, "std_boost_pool");
  add("exp4/make_shared/floor", [] { return floor_ways<constructed_packet>::make_shared(); }, handoff_row::floor);
  TRIVIAL(std_ways, make_shared, "std");
  TRIVIAL(std_ways, make_shared_for_overwrite, "std");
  TRIVIAL(std_ways, allocate_shared_pool, "std");
  TRIVIAL(std_ways, allocate_shared_for_overwrite_pool, "std");
  TRIVIAL(floor_ways, make_shared, "floor");
  TRIVIAL(floor_ways, make_shared_for_overwrite, "floor");
#ifdef OWN_BENCH_HAS_CONCURRENT_POOL
  WAY(own_pool_ways, raw_pool, "own");
#else
  add_missing("exp4/raw_pool/own", "own/concurrent_pool.hpp");
#endif
#ifdef OWN_BENCH_HAS_SHARED_PTR
  WAY(own_ways, make_shared, "own");
  WAY(own_ways, shared_ptr_new, "own");
  TRIVIAL(own_ways, make_shared, "own");
  TRIVIAL(own_ways, make_shared_for_overwrite, "own");
#ifdef OWN_BENCH_HAS_CONCURRENT_POOL
  WAY(own_ways, shared_ptr_pooled, "own");
#ifdef OWN_BENCH_HAS_POOL_ALLOCATOR
  WAY(own_ways, allocate_shared_pool, "own");
  TRIVIAL(own_ways, allocate_shared_pool, "own");
  TRIVIAL(own_ways, allocate_shared_for_overwrite_pool, "own");
#else
  for (const char* c : {"allocate_shared_pool", "trivial_allocate_shared_pool", "trivial_allocate_shared_for_overwrite_pool"})
    add_missing(std::string("exp4/") + c + "/own", "own/pool_allocator.hpp");
#endif
#else
  for (const char* c : {"shared_ptr_pooled", "allocate_shared_pool", "trivial_allocate_shared_pool",
                        "trivial_allocate_shared_for_overwrite_pool"})
    add_missing(std::string("exp4/") + c + "/own", "own/concurrent_pool.hpp");
#endif
#else
  for (const char* c : {"make_shared", "shared_ptr_new", "shared_ptr_pooled", "allocate_shared_pool",
                        "trivial_make_shared", "trivial_make_shared_for_overwrite", "trivial_allocate_shared_pool",
                        "trivial_allocate_shared_for_overwrite_pool"})
    add_missing(std::string("exp4/") + c + "/own", "own/shared_ptr.hpp");
#endif
});

}  // namespace
