// SPDX-License-Identifier: BSL-1.0
// Experiment 5: "Stack, Heap, Pool" (Bulldozer00's blog, 2015; cited in
// bench/data/sources.json). The seed timed getting 1000 objects
// of 1 MB (value-initialised, so zeroed) from the stack, the free store and its own Pool (which
// pre-constructs all N objects and finds free ones by linear scan), plus the Pool's construction.
// We add own::object_pool, boost::object_pool (its Boost counterpart, the pool a user would pick) and
// the floor, and run the same at 10,000 small (64-byte) objects, where the seed pool's O(N) scans show.
//
// One iteration = get all N objects, touch each (the seed's processObj), give all N back. The heap
// and the pools hold all N at once; the stack, as in the seed, holds one at a time. The seed's heap
// loop leaked its objects; here they are deleted after the N have been made.
// Rows: exp5/<big|small>_acquire/<stack|std|seed_pool|own|boost_object_pool|floor>
//       (std = the heap: new/delete)
//       exp5/<big|small>_construct/<seed_pool|own>                 (making the pool of N)
// Quick mode uses 100 big objects instead of 1000.
#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include <boost/pool/object_pool.hpp>

#include "bench_common.hpp"
#include "floor.hpp"
#include "seed_pool.hpp"

#include "own_headers.hpp"

namespace {

// The seed's BigObject (1000 * 1024 bytes, zeroed by value-initialisation), and a small one.
template <std::size_t Bytes>
class object {
 public:
  void reset() {}  // required by the seed's Pool
  void set_first_char(char c) { bytes_[0] = c; }

 private:
  std::array<char, Bytes> bytes_{};
};
using big_object = object<1000 * 1024>;
using small_object = object<64>;

template <class Obj>
void process(Obj* obj) {
  obj->set_first_char('a');
  benchmark::DoNotOptimize(obj);
  benchmark::ClobberMemory();
}

template <class Obj>
std::size_t count() {
  if constexpr (sizeof(Obj) > 4096)
    return own_bench::scaled<std::size_t>(1000, 100);
  else
    return 10000;
}

template <class Obj>
void stack(benchmark::State& state) {
  const std::size_t n = count<Obj>();
  for (auto _ : state) {
    for (std::size_t i = 0; i < n; ++i) {
      Obj obj{};
      process(&obj);
    }
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}

template <class Obj>
void heap(benchmark::State& state) {
  const std::size_t n = count<Obj>();
  std::vector<Obj*> held(n);
  for (auto _ : state) {
    for (auto& p : held) {
      p = new Obj{};
      process(p);
    }
    for (Obj* p : held) delete p;
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}

template <class Obj>
void seed(benchmark::State& state) {
  const std::size_t n = count<Obj>();
  own_bench::seed_pool<Obj> pool(n);
  std::vector<Obj*> held(n);
  for (auto _ : state) {
    for (auto& p : held) {
      p = pool.acquire();
      process(p);
    }
    for (Obj* p : held) pool.release(p);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}

// The floor: a bare free list of blocks, objects neither constructed nor reset (like the seed pool's).
template <class Obj>
void floor(benchmark::State& state) {
  using list = own_bench::floor_free_list<sizeof(Obj)>;
  const std::size_t n = count<Obj>();
  std::vector<Obj*> held(n);
  for (auto& p : held) p = ::new (list::allocate()) Obj{};  // warm: the list holds N made objects
  for (Obj* p : held) list::deallocate(p);
  for (auto _ : state) {
    for (auto& p : held) {
      p = static_cast<Obj*>(list::allocate());
      process(p);
    }
    for (Obj* p : held) list::deallocate(p);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}

// boost::object_pool, its blocks taken and given back without constructing (malloc/free), as the seed's
// pool, own's and the floor hand out objects made once (made here in a warm-up, as the floor's are).
// Its free keeps the free list in address order, so giving the N back in the order taken walks it.
template <class Obj>
void boost_object_pool(benchmark::State& state) {
  const std::size_t n = count<Obj>();
  boost::object_pool<Obj> pool(n);
  std::vector<Obj*> held(n);
  for (auto& p : held) p = pool.construct();
  for (Obj* p : held) pool.free(p);
  for (auto _ : state) {
    for (auto& p : held) {
      p = pool.malloc();
      process(p);
    }
    for (Obj* p : held) pool.free(p);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}

template <class Obj>
void seed_construct(benchmark::State& state) {
  const std::size_t n = count<Obj>();
  for (auto _ : state) {
    auto* pool = new own_bench::seed_pool<Obj>(n);
    benchmark::DoNotOptimize(pool);
    state.PauseTiming();
    delete pool;
    state.ResumeTiming();
  }
}

#ifdef OWN_BENCH_HAS_OBJECT_POOL
template <class Obj>
void own_pool(benchmark::State& state) {
  const std::size_t n = count<Obj>();
  own::object_pool<Obj> pool(n);
  std::vector<own::managed_ptr<Obj>> held;
  held.reserve(n);
  for (auto _ : state) {
    for (std::size_t i = 0; i < n; ++i) {
      held.push_back(pool.acquire());
      process(held.back().get());
    }
    held.clear();
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(n));
}

template <class Obj>
void own_construct(benchmark::State& state) {
  const std::size_t n = count<Obj>();
  for (auto _ : state) {
    auto* pool = new own::object_pool<Obj>(n);
    benchmark::DoNotOptimize(pool);
    state.PauseTiming();
    delete pool;
    state.ResumeTiming();
  }
}
#endif

template <class Obj>
void add_size(const std::string& size) {
  const std::string acquire = "exp5/" + size + "_acquire/";
  const std::string construct = "exp5/" + size + "_construct/";
  own_bench::add(acquire + "stack", stack<Obj>);
  own_bench::add(acquire + "std", heap<Obj>);
  own_bench::add(acquire + "seed_pool", seed<Obj>);
#ifdef OWN_BENCH_HAS_OBJECT_POOL
  own_bench::add(acquire + "own", own_pool<Obj>);
#else
  own_bench::missing(acquire + "own", "own/object_pool.hpp");
#endif
  own_bench::add(acquire + "boost_object_pool", boost_object_pool<Obj>);
  own_bench::add(acquire + "floor", floor<Obj>);
  own_bench::add(construct + "seed_pool", seed_construct<Obj>);
#ifdef OWN_BENCH_HAS_OBJECT_POOL
  own_bench::add(construct + "own", own_construct<Obj>);
#else
  own_bench::missing(construct + "own", "own/object_pool.hpp");
#endif
}

const own_bench::registration registered([] {
  add_size<big_object>("big");
  add_size<small_object>("small");
});

}  // namespace
