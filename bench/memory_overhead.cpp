// SPDX-License-Identifier: BSL-1.0
// Experiment 3: "Memory and Performance Overhead of Smart Pointers" (Rainer Grimm, Modernes C++
// blog; cited in bench/data/sources.json).
//
// (a) The seed's loop: 100,000,000 times create an int holding i and destroy it (quick mode: 2M), with
//     new/delete, unique_ptr(new), make_unique, shared_ptr(new) and make_shared; std and own; plus
//     own's pooled forms (make_shared_object_with_alloc on an own::pool, allocate_managed on an
//     own::pool, own::object_pool) and own's managed_ptr (make_managed), set beside make_unique, its
//     std counterpart. The pools are sized for what they hold (housed_block_size); own_pool_addressed
//     draws from a findable_by_address pool through own::addressed_pool_allocator, whose blocks keep
//     no pool pointer. Rows: exp3/<form>/<impl>, time per create+destroy.
// (b) Memory overhead: 100,000 live objects made each way; bytes of C heap per object (mallinfo2
//     delta, allocator headers and pool slack included) plus sizeof the pointer.
//     Rows: exp3/bytes_<form>/<impl>, counters heap_per_object, pointer, total.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "bench_common.hpp"
#include "floor.hpp"
#include "memory_probe.hpp"

#include "own_headers.hpp"

namespace {

using own_bench::keep;

std::int64_t loop_count() { return own_bench::scaled<std::int64_t>(100000000, 2000000); }

// A way of making one int: `make(i)` returns the owner; destroying the owner frees it.
struct new_delete {
  class owner {  // the explicit delete, wrapped only so that the benchmark loops can hold one
   public:
    explicit owner(int* p) noexcept : p_(p) {}
    owner(owner&& o) noexcept : p_(o.p_) { o.p_ = nullptr; }
    owner& operator=(owner&&) = delete;
    ~owner() { delete p_; }

   private:
    int* p_;
  };
  static owner make(int i) { return owner(new int(i)); }
};

struct std_unique_new {
  static std::unique_ptr<int> make(int i) { return std::unique_ptr<int>(new int(i)); }
};
struct std_make_unique {
  static std::unique_ptr<int> make(int i) { return std::make_unique<int>(i); }
};
struct std_shared_new {
  static std::shared_ptr<int> make(int i) { return std::shared_ptr<int>(new int(i)); }
};
struct std_make_shared {
  static std::shared_ptr<int> make(int i) { return std::make_shared<int>(i); }
};
struct floor_make {
  static own_bench::floor_ptr<int> make(int i) { return own_bench::make_floor<int>(i); }
};

// The pooled ways find their pool through a reference bound once, as exp6's do: int_pool() is an
// out-of-line call with its own guard, which the floor, finding its free list by an inlined
// thread-local access, does not pay per object. Each way has a pool of its own (`Way`), so that its
// memory row measures its own chunks, not those another row left in a shared pool.
#ifdef OWN_BENCH_HAS_POOL
template <class Way>
own::pool& int_pool() {
  static own::pool pool(own::housed_block_size<int, own::pool*>);
  return pool;
}
#endif
#ifdef OWN_BENCH_HAS_ADDRESSED_POOL_ALLOCATOR
using addressed_int_allocator = own::addressed_pool_allocator<int, own::pool>;
own::pool& addressed_int_pool() {
  static own::pool pool(own::housed_block_size<int, addressed_int_allocator>, [] {
    own::pool_options options;
    options.findable_by_address = true;
    return options;
  }());
  return pool;
}
#endif

#ifdef OWN_BENCH_HAS_SHARED_PTR
struct own_shared_new {
  static own::shared_ptr<int> make(int i) { return own::shared_ptr<int>(new int(i)); }
};
struct own_make_shared {
  static own::shared_ptr<int> make(int i) { return own::make_shared<int>(i); }
};
#ifdef OWN_BENCH_HAS_POOL
struct own_make_shared_pool {
  static inline own::pool& pool = int_pool<own_make_shared_pool>();
  static own::shared_ptr<int> make(int i) { return own::make_shared_object_with_alloc<int>(&pool, i); }
};
#endif
#ifdef OWN_BENCH_HAS_ADDRESSED_POOL_ALLOCATOR
struct own_make_shared_addressed {
  static inline const addressed_int_allocator alloc{&addressed_int_pool()};
  static own::shared_ptr<int> make(int i) { return own::make_shared_object_with_alloc<int>(alloc, i); }
};
#endif
#endif

#ifdef OWN_BENCH_HAS_MANAGED_PTR
struct own_make_managed {
  static own::managed_ptr<int> make(int i) { return own::make_managed<int>(i); }
};
#ifdef OWN_BENCH_HAS_POOL
struct own_managed_pool {
  static inline own::pool& pool = int_pool<own_managed_pool>();
  static own::managed_ptr<int> make(int i) { return own::allocate_managed<int>(&pool, i); }
};
#endif
#endif

#ifdef OWN_BENCH_HAS_OBJECT_POOL
struct own_object_pool {
  static own::object_pool<int>& make_pool() {
    static own::object_pool<int> p(1024);
    return p;
  }
  static inline own::object_pool<int>& pool = make_pool();
  static own::managed_ptr<int> make(int i) {
    auto p = pool.acquire();
    *p = i;
    return p;
  }
};
#endif

// (a) The seed's loop, a fixed number of iterations as in the seed.
template <class Way>
void create_destroy(benchmark::State& state) {
  int i = 0;
  for (auto _ : state) {
    auto owner = Way::make(i++);
    keep(owner);
  }
  state.SetItemsProcessed(state.iterations());
}

// (b) Bytes per live object.
template <class Way>
void bytes_per_object(benchmark::State& state) {
  using owner = decltype(Way::make(0));
  constexpr std::size_t live = 100000;
  std::vector<owner> owners;
  owners.reserve(live);
  double heap = 0;
  for (auto _ : state) {
    const std::size_t before = own_bench::heap_in_use();
    for (std::size_t i = 0; i < live; ++i) owners.push_back(Way::make(static_cast<int>(i)));
    const std::size_t after = own_bench::heap_in_use();
    heap = (static_cast<double>(after) - static_cast<double>(before)) / live;
    owners.clear();
  }
  state.counters["heap_per_object"] = heap;
  state.counters["pointer"] = static_cast<double>(sizeof(owner));
  state.counters["total"] = heap + static_cast<double>(sizeof(owner));
}

template <class Way>
void add(const std::string& form, const std::string& impl) {
  own_bench::add("exp3/" + form + "/" + impl, create_destroy<Way>)->Iterations(loop_count());
  own_bench::add("exp3/bytes_" + form + "/" + impl, bytes_per_object<Way>)->Iterations(1)->Repetitions(1);
}

[[maybe_unused]] void add_missing(const std::string& form, const std::string& impl, const char* header) {
  own_bench::missing("exp3/" + form + "/" + impl, header);
  own_bench::missing("exp3/bytes_" + form + "/" + impl, header);
}

const own_bench::registration registered([] {
  add<new_delete>("new_delete", "std");
  add<std_unique_new>("unique_ptr_new", "std");
  add<std_make_unique>("make_unique", "std");
#ifdef OWN_BENCH_HAS_MANAGED_PTR
  add<own_make_managed>("make_unique", "own_managed");
#ifdef OWN_BENCH_HAS_POOL
  add<own_managed_pool>("make_unique", "own_managed_pool");
#else
  add_missing("make_unique", "own_managed_pool", "own/pool.hpp");
#endif
#else
  add_missing("make_unique", "own_managed", "own/managed_ptr.hpp");
  add_missing("make_unique", "own_managed_pool", "own/managed_ptr.hpp");
#endif
#ifdef OWN_BENCH_HAS_OBJECT_POOL
  add<own_object_pool>("make_unique", "own_object_pool");
#else
  add_missing("make_unique", "own_object_pool", "own/object_pool.hpp");
#endif
  add<std_shared_new>("shared_ptr_new", "std");
  add<std_make_shared>("make_shared", "std");
#ifdef OWN_BENCH_HAS_SHARED_PTR
  add<own_shared_new>("shared_ptr_new", "own");
  add<own_make_shared>("make_shared", "own");
#ifdef OWN_BENCH_HAS_POOL
  add<own_make_shared_pool>("make_shared", "own_pool");
#else
  add_missing("make_shared", "own_pool", "own/pool.hpp");
#endif
#ifdef OWN_BENCH_HAS_ADDRESSED_POOL_ALLOCATOR
  add<own_make_shared_addressed>("make_shared", "own_pool_addressed");
#else
  add_missing("make_shared", "own_pool_addressed", "own/addressed_pool_allocator.hpp");
#endif
#else
  add_missing("shared_ptr_new", "own", "own/shared_ptr.hpp");
  add_missing("make_shared", "own", "own/shared_ptr.hpp");
  add_missing("make_shared", "own_pool", "own/shared_ptr.hpp");
#endif
  add<floor_make>("make_shared", "floor");
});

}  // namespace
