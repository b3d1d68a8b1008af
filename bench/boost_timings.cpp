// SPDX-License-Identifier: BSL-1.0
// Experiment 2: Boost "Smart Pointer Timings" (Gavin Collings, 2000-2001, Boost Smart
// Pointer documentation; cited in bench/data/sources.json).
//
// (a) Initialisation plus n amortised copies: a pointer is made from a raw pointer, copied n times
//     (n/2 copy constructions, n/2 assignments), and every copy and the original are released. As in
//     the seed, allocating the pointee is not timed (it is done in untimed batches) but freeing it is.
//     The renderer fits time = init + n * copy over the set sizes.
//     Rows: exp2/copies/<impl>/<n>
// (b) The container test: fill a std::vector and a std::list with 300,000 pointers to objects holding
//     a random key, then sort by key; each repetition in a fresh process (see container_fill).
//     Rows: exp2/{vector,list}_{fill,sort}/<impl>
// (c) sizeof each pointer (counter "bytes"). Rows: exp2/sizeof/<impl>
//
// The seed's strategies and what plays them here:
//   simple counted  -> std (std::shared_ptr(new)), own (own::shared_ptr(new))
//   special counted -> own_pool (count block from an own::pool), std_pool (from a pmr pool resource),
//                      std_boost_pool (from a boost::pool<>, bench/common/boost_pools.hpp)
//   intrusive       -> own_intrusive, boost_intrusive (both with thread-safe counts)
//   local           -> own_local (own::local_shared_ptr), boost_local (boost::local_shared_ptr)
//   linked          -> linked (bench/common/linked_ptr.hpp: the owners form a doubly linked ring;
//                      bench-only, as neither own nor std nor Boost has one)
//   raw, dumb       -> raw (T*), dumb (a class that copies the pointer and never counts)
//   the floor       -> floor (bench/common/floor.hpp: heap-placed object with one atomic count)
// The seed's "cyclic" strategy has no counterpart and is not run.
// The seed also compared code size: bench/code_size/copy_destroy.cpp (read by scripts/report.sh).
#include <algorithm>
#include <cstdint>
#include <list>
#include <memory>
#include <memory_resource>
#include <new>
#include <random>
#include <string>
#include <vector>

#include <boost/smart_ptr/intrusive_ptr.hpp>
#include <boost/smart_ptr/intrusive_ref_counter.hpp>
#include <boost/smart_ptr/local_shared_ptr.hpp>

#include "bench_common.hpp"
#include "boost_pools.hpp"
#include "floor.hpp"
#include "fresh_process.hpp"
#include "linked_ptr.hpp"

#include "own_headers.hpp"

namespace {

using own_bench::keep;

// The pointee's key: random, from a generator reseeded before each fill so every row sorts the same keys.
std::minstd_rand& key_source() {
  static std::minstd_rand g;
  return g;
}

struct plain_obj {
  std::uint32_t key = static_cast<std::uint32_t>(key_source()());
};

struct boost_obj : boost::intrusive_ref_counter<boost_obj> {
  std::uint32_t key = static_cast<std::uint32_t>(key_source()());
};

#ifdef OWN_BENCH_HAS_INTRUSIVE_PTR
struct own_obj : own::intrusive_ref_counter<own_obj, own::thread_safe_counter> {
  std::uint32_t key = static_cast<std::uint32_t>(key_source()());
};
#endif

// Each strategy: the object type, the pointer type, making a pointer from a fresh raw pointer, and
// what the original owner does last (only raw and dumb pointers free by hand).
template <class Obj, class Ptr>
struct strategy_base {
  using obj = Obj;
  using ptr = Ptr;
  static void finish(Ptr&) noexcept {}
  static const Obj& deref(const Ptr& p) noexcept { return *p; }
};

struct std_strategy : strategy_base<plain_obj, std::shared_ptr<plain_obj>> {
  static ptr make(obj* p) { return ptr(p); }
};

struct std_pool_strategy : strategy_base<plain_obj, std::shared_ptr<plain_obj>> {
  static std::pmr::unsynchronized_pool_resource& pool() {
    static std::pmr::unsynchronized_pool_resource r;
    return r;
  }
  static ptr make(obj* p) {
    return ptr(p, std::default_delete<obj>{}, std::pmr::polymorphic_allocator<obj>(&pool()));
  }
};

struct std_boost_pool_strategy : strategy_base<plain_obj, std::shared_ptr<plain_obj>> {
  static boost::pool<>& pool() {
    static boost::pool<> p(64);
    return p;
  }
  static ptr make(obj* p) {
    return ptr(p, std::default_delete<obj>{}, own_bench::boost_pool_allocator<obj>(&pool()));
  }
};

struct boost_intrusive_strategy : strategy_base<boost_obj, boost::intrusive_ptr<boost_obj>> {
  static ptr make(obj* p) { return ptr(p); }
};

struct boost_local_strategy : strategy_base<plain_obj, boost::local_shared_ptr<plain_obj>> {
  static ptr make(obj* p) { return ptr(p); }
};

struct linked_strategy : strategy_base<plain_obj, own_bench::linked_ptr<plain_obj>> {
  static ptr make(obj* p) { return ptr(p); }
};

struct raw_strategy : strategy_base<plain_obj, plain_obj*> {
  static ptr make(obj* p) { return p; }
  static void finish(ptr& p) noexcept { delete p; }
};

// Acquires and releases nothing: a copy is a pointer copy; the original owner frees by hand.
template <class T>
class dumb_ptr {
 public:
  explicit dumb_ptr(T* p = nullptr) noexcept : p_(p) {}
  dumb_ptr(const dumb_ptr& o) noexcept : p_(o.p_) {}
  dumb_ptr& operator=(const dumb_ptr& o) noexcept {
    p_ = o.p_;
    return *this;
  }
  ~dumb_ptr() {}
  T& operator*() const noexcept { return *p_; }
  T* get() const noexcept { return p_; }

 private:
  T* p_;
};

struct dumb_strategy : strategy_base<plain_obj, dumb_ptr<plain_obj>> {
  static ptr make(obj* p) { return ptr(p); }
  static void finish(ptr& p) noexcept { delete p.get(); }
};

// The floor places its object itself, so its "raw pointer" is a fresh floor block.
struct floor_strategy : strategy_base<own_bench::floor_object<plain_obj>, own_bench::floor_ptr<plain_obj>> {
  static ptr make(obj* p) { return ptr(p); }
  static obj* create() { return obj::create(); }
  static const plain_obj& deref(const ptr& p) noexcept { return *p; }
};

#ifdef OWN_BENCH_HAS_SHARED_PTR
struct own_strategy : strategy_base<plain_obj, own::shared_ptr<plain_obj>> {
  static ptr make(obj* p) { return ptr(p); }
};
#ifdef OWN_BENCH_HAS_POOL
struct own_pool_strategy : strategy_base<plain_obj, own::shared_ptr<plain_obj>> {
  static own::pool& pool() {
    static own::pool p(64);
    return p;
  }
  static ptr make(obj* p) { return ptr(p, own::default_deleter{}, &pool()); }
};
#endif
#endif
#ifdef OWN_BENCH_HAS_INTRUSIVE_PTR
struct own_intrusive_strategy : strategy_base<own_obj, own::intrusive_ptr<own_obj>> {
  static ptr make(obj* p) { return ptr(p); }
};
#endif
#ifdef OWN_BENCH_HAS_LOCAL_SHARED_PTR
struct own_local_strategy : strategy_base<plain_obj, own::local_shared_ptr<plain_obj>> {
  static ptr make(obj* p) { return ptr(p); }
};
#endif

template <class S>
typename S::obj* create() {
  if constexpr (std::is_same_v<S, floor_strategy>)
    return S::create();
  else
    return new typename S::obj;
}

// (a) One pointer made from `p`, copied n times (n/2 constructions, n/2 assignments), all released.
constexpr int max_copies = 64;

template <class S>
void init_and_copy(typename S::obj* p, int n) {
  using ptr = typename S::ptr;
  alignas(ptr) unsigned char constructed[max_copies / 2][sizeof(ptr)];
  alignas(ptr) unsigned char assigned[max_copies / 2][sizeof(ptr)];
  ptr first = S::make(p);
  const int half = n / 2;
  for (int i = 0; i < half; ++i) ::new (constructed[i]) ptr(first);  // copy construction
  for (int i = 0; i < half; ++i) *::new (assigned[i]) ptr() = first;  // assignment
  keep(constructed);
  keep(assigned);
  for (int i = 0; i < half; ++i) std::launder(reinterpret_cast<ptr*>(assigned[i]))->~ptr();
  for (int i = 0; i < half; ++i) std::launder(reinterpret_cast<ptr*>(constructed[i]))->~ptr();
  S::finish(first);
}

template <class S>
void copies(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  constexpr int batch = 256;
  typename S::obj* objects[batch];
  for (auto& o : objects) o = create<S>();  // one untimed batch first: pools and the heap warm up
  for (auto* o : objects) init_and_copy<S>(o, n);
  while (state.KeepRunningBatch(batch)) {
    state.PauseTiming();  // the pointee's allocation is not timed (its deallocation is)
    for (auto& o : objects) o = create<S>();
    state.ResumeTiming();
    for (auto* o : objects) init_and_copy<S>(o, n);
  }
}

// (b) The container test.
std::size_t container_size() { return own_bench::scaled<std::size_t>(300000, 100000); }

template <class S, class Container>
void fill(Container& c) {
  key_source().seed(42);
  const std::size_t n = container_size();
  for (std::size_t i = 0; i < n; ++i) c.push_back(S::make(create<S>()));
}

template <class S, class Container>
void clear(Container& c) {
  for (auto& p : c) S::finish(p);
  c.clear();
}

template <class S>
bool by_key(const typename S::ptr& a, const typename S::ptr& b) {
  return S::deref(a).key < S::deref(b).key;
}

// A container repetition runs in a fresh process (fresh_process.hpp), one untimed fill and clear
// first, so that the heap has grown to the working size: every row then starts from the same heap.
// In one process a fill would inherit the blocks another row freed, in whatever order: after a sort,
// a random one, which scatters the next fill's blocks over the heap (a fill of this size then took
// 10 times as long, for whichever rows happened to follow a sort of the same allocator's blocks).
// Each returns the thread's CPU time of the timed part, in nanoseconds.
template <class S, class Container>
double container_fill() {
  Container c;
  fill<S>(c);
  clear<S>(c);
  const double start = own_bench::thread_cpu_ns();
  fill<S>(c);
  const double ns = own_bench::thread_cpu_ns() - start;
  clear<S>(c);
  return ns;
}

template <class S, class Container>
double container_sort() {
  Container c;
  fill<S>(c);
  clear<S>(c);
  fill<S>(c);
  const double start = own_bench::thread_cpu_ns();
  if constexpr (std::is_same_v<Container, std::vector<typename S::ptr>>)
    std::sort(c.begin(), c.end(), by_key<S>);
  else
    c.sort(by_key<S>);
  const double ns = own_bench::thread_cpu_ns() - start;
  clear<S>(c);
  return ns;
}

// (c) sizeof.
template <class S>
void size_of(benchmark::State& state) {
  for (auto _ : state) {
  }
  state.counters["bytes"] = static_cast<double>(sizeof(typename S::ptr));
}

template <class S>
void add_strategy(const std::string& impl) {
  own_bench::add("exp2/copies/" + impl, copies<S>)->Arg(0)->Arg(2)->Arg(4)->Arg(8)->Arg(16)->Arg(32)->Arg(64);
  using vec = std::vector<typename S::ptr>;
  using lst = std::list<typename S::ptr>;
  // A container row's repetition is 2-250 ms of work (plus untimed fills) in a process of its own:
  // one iteration per repetition, and the median over the repetitions.
  own_bench::add_fresh_process_row("exp2/vector_fill/" + impl, "vector_fill/" + impl, container_fill<S, vec>);
  own_bench::add_fresh_process_row("exp2/vector_sort/" + impl, "vector_sort/" + impl, container_sort<S, vec>);
  own_bench::add_fresh_process_row("exp2/list_fill/" + impl, "list_fill/" + impl, container_fill<S, lst>);
  own_bench::add_fresh_process_row("exp2/list_sort/" + impl, "list_sort/" + impl, container_sort<S, lst>);
  own_bench::add("exp2/sizeof/" + impl, size_of<S>)->Iterations(1)->Repetitions(1);
}

[[maybe_unused]] void add_missing(const std::string& impl, const char* header) {
  for (int n : {0, 2, 4, 8, 16, 32, 64}) own_bench::missing("exp2/copies/" + impl + "/" + std::to_string(n), header);
  for (const char* c : {"vector_fill", "vector_sort", "list_fill", "list_sort", "sizeof"})
    own_bench::missing(std::string("exp2/") + c + "/" + impl, header);
}

const own_bench::registration registered([] {
  add_strategy<std_strategy>("std");
#ifdef OWN_BENCH_HAS_SHARED_PTR
  add_strategy<own_strategy>("own");
#ifdef OWN_BENCH_HAS_POOL
  add_strategy<own_pool_strategy>("own_pool");
#else
  add_missing("own_pool", "own/pool.hpp");
#endif
#else
  add_missing("own", "own/shared_ptr.hpp");
  add_missing("own_pool", "own/shared_ptr.hpp");
#endif
  add_strategy<std_pool_strategy>("std_pool");
  add_strategy<std_boost_pool_strategy>("std_boost_pool");
#ifdef OWN_BENCH_HAS_INTRUSIVE_PTR
  add_strategy<own_intrusive_strategy>("own_intrusive");
#else
  add_missing("own_intrusive", "own/intrusive_ptr.hpp");
#endif
  add_strategy<boost_intrusive_strategy>("boost_intrusive");
#ifdef OWN_BENCH_HAS_LOCAL_SHARED_PTR
  add_strategy<own_local_strategy>("own_local");
#else
  add_missing("own_local", "own/local_shared_ptr.hpp");
#endif
  add_strategy<boost_local_strategy>("boost_local");
  add_strategy<linked_strategy>("linked");
  add_strategy<raw_strategy>("raw");
  add_strategy<dumb_strategy>("dumb");
  add_strategy<floor_strategy>("floor");
});

}  // namespace

int main(int argc, char** argv) { return own_bench::main_with_fresh_processes(argc, argv); }
