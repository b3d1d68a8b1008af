// SPDX-License-Identifier: BSL-1.0
// Experiment 1: N1851 (Kliatchko, Rocha, 2005), Appendix A, "Performance comparison with
// boost::shared_ptr" (WG21 paper N1851=05-0111; cited in bench/data/sources.json).
//
// The paper timed 5M constructions (and destructions) of a shared pointer: basic constructor
// (p), deleter constructor (p, d) and in-place (the object housed in the count's block), each with no
// pool, a non-threaded pool and a threaded pool for the block, in programs with one and two threads,
// boost::shared_ptr built with BOOST_SP_USE_QUICK_ALLOCATOR. We run that whole grid for own, Boost
// and std. The pools: own::pool / own::concurrent_pool for own (passed as a pool pointer, no virtual
// call); std::pmr::unsynchronized_pool_resource / synchronized_pool_resource (through a
// polymorphic_allocator) for std and Boost; and, as the fixed-size pools a user of std would pick,
// Boost.Pool for std::shared_ptr (impl std_boost_pool: a boost::pool<> per thread when non-threaded,
// boost::fast_pool_allocator when threaded; bench/common/boost_pools.hpp). A non-threaded pool is per
// thread; a threaded one is shared by both threads.
//
// Rows: exp1/<form>[_<pool>]/<impl>/real_time/threads:<1|2>
//   form: basic | deleter | inplace;  pool: nonthreaded_pool | threaded_pool;
//   impl: std | boost | own | std_boost_pool (pooled cases only)
//   ("boost_plain" instead of "boost" in the executable built without the quick allocator).
// And the floor every row is measured against: exp1/floor/floor/real_time/threads:<1|2>.
#include <memory>
#include <memory_resource>

#include <boost/make_shared.hpp>
#include <boost/shared_ptr.hpp>

#include "bench_common.hpp"
#include "boost_pools.hpp"
#include "floor.hpp"
#include "pools.hpp"

#include "own_headers.hpp"

namespace {

using own_bench::keep;

// The pointee: small, like most objects a shared_ptr manages.
struct item {
  long a = 1;
  long b = 2;
};

// A user-written deleter, for the "deleter constructor" rows.
struct item_deleter {
  void operator()(item* p) const noexcept { delete p; }
};

enum class form { basic, deleter, inplace };
enum class pool_kind { none, nonthreaded, threaded };

// Block size for own's pools: room for any of own's count blocks for an item.
constexpr std::size_t block_size = 64;

// std and Boost take their pools as std::pmr resources, through a polymorphic_allocator.
struct pmr_pools {
  using nonthreaded_pool = std::pmr::unsynchronized_pool_resource;
  using threaded_pool = std::pmr::synchronized_pool_resource;
  template <class Pool>
  static std::pmr::polymorphic_allocator<item> alloc(Pool& pool) {
    return std::pmr::polymorphic_allocator<item>(&pool);
  }
};

// Boost.Pool: the non-threaded pool is a boost::pool<> of the thread's; the threaded one is
// fast_pool_allocator's process-wide singleton, which needs no object (fast_pool stands for it).
struct boost_pools {
  struct fast_pool {};
  using nonthreaded_pool = boost::pool<>;
  using threaded_pool = fast_pool;
  static own_bench::boost_pool_allocator<item> alloc(boost::pool<>& pool) {
    return own_bench::boost_pool_allocator<item>(&pool);
  }
  static boost::fast_pool_allocator<item> alloc(fast_pool&) { return {}; }
};

template <class Pools>
struct std_impl : Pools {
  template <form F>
  static std::shared_ptr<item> make() {
    if constexpr (F == form::basic) return std::shared_ptr<item>(new item);
    if constexpr (F == form::deleter) return std::shared_ptr<item>(new item, item_deleter{});
    if constexpr (F == form::inplace) return std::make_shared<item>();
  }
  template <form F, class A>
  static std::shared_ptr<item> make(const A& a) {
    if constexpr (F == form::basic) return std::shared_ptr<item>(new item, std::default_delete<item>{}, a);
    if constexpr (F == form::deleter) return std::shared_ptr<item>(new item, item_deleter{}, a);
    if constexpr (F == form::inplace) return std::allocate_shared<item>(a);
  }
};

struct boost_impl : pmr_pools {
  template <form F>
  static boost::shared_ptr<item> make() {
    if constexpr (F == form::basic) return boost::shared_ptr<item>(new item);
    if constexpr (F == form::deleter) return boost::shared_ptr<item>(new item, item_deleter{});
    if constexpr (F == form::inplace) return boost::make_shared<item>();
  }
  template <form F, class A>
  static boost::shared_ptr<item> make(const A& a) {
    if constexpr (F == form::basic) return boost::shared_ptr<item>(new item, std::default_delete<item>{}, a);
    if constexpr (F == form::deleter) return boost::shared_ptr<item>(new item, item_deleter{}, a);
    if constexpr (F == form::inplace) return boost::allocate_shared<item>(a);
  }
};

#ifdef OWN_BENCH_HAS_SHARED_PTR
struct own_impl {
#ifdef OWN_BENCH_HAS_POOL
  using nonthreaded_pool = own::pool;
#endif
#ifdef OWN_BENCH_HAS_CONCURRENT_POOL
  using threaded_pool = own::concurrent_pool;
#endif
  template <class Pool>
  static Pool* alloc(Pool& pool) {
    return &pool;  // own takes a pool by pointer and calls it directly
  }
  template <form F>
  static own::shared_ptr<item> make() {
    if constexpr (F == form::basic) return own::shared_ptr<item>(new item);
    if constexpr (F == form::deleter) return own::shared_ptr<item>(new item, item_deleter{});
    if constexpr (F == form::inplace) return own::make_shared_object<item>();
  }
  template <form F, class A>
  static own::shared_ptr<item> make(const A& a) {
    if constexpr (F == form::basic) return own::shared_ptr<item>(new item, own::default_deleter{}, a);
    if constexpr (F == form::deleter) return own::shared_ptr<item>(new item, item_deleter{}, a);
    if constexpr (F == form::inplace) return own::make_shared_object_with_alloc<item>(a);
  }
};
#endif

template <class Impl, form F, pool_kind P>
void construct_destroy(benchmark::State& state) {
  if constexpr (P == pool_kind::none) {
    for (auto _ : state) keep(Impl::template make<F>());
  } else if constexpr (P == pool_kind::nonthreaded) {
    auto pool = own_bench::make_pool<typename Impl::nonthreaded_pool>(block_size);  // one per thread
    const auto a = Impl::alloc(*pool);
    for (auto _ : state) keep(Impl::template make<F>(a));
  } else {
    auto& pool = own_bench::shared_pool<typename Impl::threaded_pool, block_size>();  // shared by the threads
    const auto a = Impl::alloc(pool);
    for (auto _ : state) keep(Impl::template make<F>(a));
  }
  state.SetItemsProcessed(state.iterations());
}

const char* form_name(form f) {
  return f == form::basic ? "basic" : f == form::deleter ? "deleter" : "inplace";
}
std::string case_name(form f, pool_kind p) {
  std::string name = form_name(f);
  if (p == pool_kind::nonthreaded) name += "_nonthreaded_pool";
  if (p == pool_kind::threaded) name += "_threaded_pool";
  return name;
}

template <class Impl, form F, pool_kind P>
void add(const char* impl) {
  own_bench::add("exp1/" + case_name(F, P) + "/" + impl, construct_destroy<Impl, F, P>)
      ->UseRealTime()
      ->Threads(1)
      ->Threads(2);
}

[[maybe_unused]] void add_missing(form f, pool_kind p, const char* header) {
  for (const char* threads : {"/real_time/threads:1", "/real_time/threads:2"})
    own_bench::missing("exp1/" + case_name(f, p) + "/own" + threads, header);
}

template <class Impl, form F>
void add_pooled(const char* impl) {
  add<Impl, F, pool_kind::nonthreaded>(impl);
  add<Impl, F, pool_kind::threaded>(impl);
}

template <class Impl, form F>
void add_forms(const char* impl) {
  add<Impl, F, pool_kind::none>(impl);
  add_pooled<Impl, F>(impl);
}

template <form F>
void add_own() {
#ifdef OWN_BENCH_HAS_SHARED_PTR
  add<own_impl, F, pool_kind::none>("own");
#ifdef OWN_BENCH_HAS_POOL
  add<own_impl, F, pool_kind::nonthreaded>("own");
#else
  add_missing(F, pool_kind::nonthreaded, "own/pool.hpp");
#endif
#ifdef OWN_BENCH_HAS_CONCURRENT_POOL
  add<own_impl, F, pool_kind::threaded>("own");
#else
  add_missing(F, pool_kind::threaded, "own/concurrent_pool.hpp");
#endif
#else
  for (pool_kind p : {pool_kind::none, pool_kind::nonthreaded, pool_kind::threaded})
    add_missing(F, p, "own/shared_ptr.hpp");
#endif
}

#ifdef OWN_BENCH_BOOST_PLAIN
constexpr const char* boost_name = "boost_plain";
#else
constexpr const char* boost_name = "boost";
#endif

// The floor: an item in a block of a thread-local free list, with one atomic count.
void floor_row(benchmark::State& state) {
  for (auto _ : state) keep(own_bench::make_floor<item>());
  state.SetItemsProcessed(state.iterations());
}

const own_bench::registration registered([] {
  own_bench::add("exp1/floor/floor", floor_row)->UseRealTime()->Threads(1)->Threads(2);
  add_forms<std_impl<pmr_pools>, form::basic>("std");
  add_pooled<std_impl<boost_pools>, form::basic>("std_boost_pool");
  add_forms<boost_impl, form::basic>(boost_name);
  add_own<form::basic>();
  add_forms<std_impl<pmr_pools>, form::deleter>("std");
  add_pooled<std_impl<boost_pools>, form::deleter>("std_boost_pool");
  add_forms<boost_impl, form::deleter>(boost_name);
  add_own<form::deleter>();
  add_forms<std_impl<pmr_pools>, form::inplace>("std");
  add_pooled<std_impl<boost_pools>, form::inplace>("std_boost_pool");
  add_forms<boost_impl, form::inplace>(boost_name);
  add_own<form::inplace>();
});

}  // namespace
