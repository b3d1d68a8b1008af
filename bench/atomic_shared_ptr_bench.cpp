// own::atomic_shared_ptr against std::atomic<std::shared_ptr> (libstdc++ 12: a spin lock in the
// pointer word), per operation, on one and two threads:
//   exp6/atomic_load_destroy/<impl>/real_time/threads:<n>   load() and drop the copy
//   exp6/atomic_exchange/<impl>/real_time/threads:<n>       exchange() one value for another
//   exp6/atomic_cas/<impl>/real_time/threads:<n>            load(), then compare_exchange_strong()
//   exp6/atomic_load_under_store/<impl>/real_time/threads:2 thread 0 stores, thread 1 loads
// Built as C++20 (std::atomic<std::shared_ptr>). The process is made multi-threaded before any
// row runs: atomics only matter there, and libstdc++ counts non-atomically while a process has
// never started a thread (__libc_single_threaded), which would flatter std's one-thread rows.
#include <atomic>
#include <memory>
#include <thread>

#include "bench_common.hpp"

#include <own/atomic_shared_ptr.hpp>

namespace {

using own_bench::keep;

struct item {
  long a = 1;
};

template <class Atomic, class Ptr>
struct cell {
  static Ptr& value(int i) {
    static Ptr* const values[2] = {new Ptr(new item), new Ptr(new item)};  // never destroyed
    return *values[i];
  }
  static Atomic& atomic() {
    static Atomic* const a = new Atomic(value(0));  // shared by the threads of a row
    return *a;
  }
};
using std_cell = cell<std::atomic<std::shared_ptr<item>>, std::shared_ptr<item>>;
using own_cell = cell<own::atomic_shared_ptr<item>, own::shared_ptr<item>>;

template <class Cell>
void load_destroy(benchmark::State& state) {
  auto& a = Cell::atomic();
  for (auto _ : state) keep(a.load());
  state.SetItemsProcessed(state.iterations());
}

template <class Cell>
void exchange(benchmark::State& state) {
  auto& a = Cell::atomic();
  auto mine = Cell::value(1);
  for (auto _ : state) mine = a.exchange(std::move(mine));
  state.SetItemsProcessed(state.iterations());
}

template <class Cell>
void cas(benchmark::State& state) {
  auto& a = Cell::atomic();
  const int mine = state.thread_index() % 2;
  for (auto _ : state) {
    auto expected = a.load();
    keep(a.compare_exchange_strong(expected, Cell::value(mine)));
  }
  state.SetItemsProcessed(state.iterations());
}

template <class Cell>
void load_under_store(benchmark::State& state) {
  auto& a = Cell::atomic();
  if (state.thread_index() == 0) {
    int i = 0;
    for (auto _ : state) a.store(Cell::value(i ^= 1));
  } else {
    for (auto _ : state) keep(a.load());
  }
  state.SetItemsProcessed(state.iterations());
}

template <class Cell>
void add(const std::string& impl) {
  own_bench::add("exp7/atomic_load_destroy/" + impl, load_destroy<Cell>)->UseRealTime()->Threads(1)->Threads(2);
  own_bench::add("exp7/atomic_exchange/" + impl, exchange<Cell>)->UseRealTime()->Threads(1)->Threads(2);
  own_bench::add("exp7/atomic_cas/" + impl, cas<Cell>)->UseRealTime()->Threads(1)->Threads(2);
  own_bench::add("exp7/atomic_load_under_store/" + impl, load_under_store<Cell>)->UseRealTime()->Threads(2);
}

const own_bench::registration registered([] {
  std::thread([] {}).join();
  add<std_cell>("std");
  add<own_cell>("own");
});

}  // namespace
