// SPDX-License-Identifier: BSL-1.0
// own::atomic_shared_ptr against what a user could write instead, per operation (real time per
// thread: throughput of all threads = threads / time), on 1, 2 and 4 threads (4 oversubscribes this
// 2-core machine, where a preempted lock holder stalls everyone):
//   exp7/atomic_load_destroy/<impl>        load() and drop the copy
//   exp7/atomic_store/<impl>               store() one of two values
//   exp7/atomic_exchange/<impl>            exchange() one value for another
//   exp7/atomic_cas/<impl>                 load(), then compare_exchange_strong() to one of two values
//   exp7/atomic_cas_counter/<impl>         a counter incremented by a compare_exchange_weak loop,
//                                          each new value made with the impl's make_shared
//   exp7/atomic_read_mostly_<1|10>/<impl>  loads, and stores by thread 0 once in 100 (10) operations
//   exp7/atomic_load_under_store/<impl>    thread 0 stores, the others load (2 and 4 threads); the
//                                          loaders time every 8th load: counters p50_ns, p99_ns and
//                                          p999_ns, the loaders' percentiles (averaged over them)
//   exp7/atomic_store_idle_readers/<impl>/<n>  store() on one thread while n other threads, which
//                                          have each loaded once, sleep (a thread pool between
//                                          requests): own's writers look at every reader's record
// Impls: std = std::atomic<std::shared_ptr> (libstdc++ 12: a spin lock in the pointer word), own,
// boost = boost::atomic_shared_ptr (a spinlock that sleeps once it has spun), mutex =
// std::shared_ptr guarded by a std::mutex, shared_mutex = the same under a std::shared_mutex (reads
// share it; read-mostly rows only), own_snapshot = own's snapshot() for the reads (load rows).
// Built as C++20 (std::atomic<std::shared_ptr>). The process is made multi-threaded before any
// row runs: atomics only matter there, and libstdc++ counts non-atomically while a process has
// never started a thread (__libc_single_threaded), which would flatter std's one-thread rows.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include <boost/make_shared.hpp>
#include <boost/smart_ptr/atomic_shared_ptr.hpp>

#include "bench_common.hpp"

#include <own/atomic_shared_ptr.hpp>

namespace {

using own_bench::keep;

struct item {
  long a = 1;
};

// std::shared_ptr behind a lock, as a user would guard it: values a write drops are released
// after the lock, and reads share a shared_mutex.
template <class Mutex>
class locked {
 public:
  using pointer = std::shared_ptr<item>;
  explicit locked(pointer p) : p_(std::move(p)) {}

  pointer load() const {
    if constexpr (std::is_same_v<Mutex, std::shared_mutex>) {
      std::shared_lock<Mutex> lock(m_);
      return p_;
    } else {
      std::lock_guard<Mutex> lock(m_);
      return p_;
    }
  }
  void store(pointer p) { keep(exchange(std::move(p))); }
  pointer exchange(pointer p) {
    std::lock_guard<Mutex> lock(m_);
    p_.swap(p);
    return p;
  }
  bool compare_exchange_strong(pointer& expected, pointer desired) {
    pointer dropped;  // declared before the lock: released after it
    std::lock_guard<Mutex> lock(m_);
    if (p_ == expected && !p_.owner_before(expected) && !expected.owner_before(p_)) {
      dropped = std::exchange(p_, std::move(desired));
      return true;
    }
    dropped = std::exchange(expected, p_);
    return false;
  }
  bool compare_exchange_weak(pointer& expected, pointer desired) {
    return compare_exchange_strong(expected, std::move(desired));
  }

 private:
  mutable Mutex m_;
  pointer p_;
};

template <class T>
std::shared_ptr<T> std_make() {
  return std::make_shared<T>();
}
template <class T>
boost::shared_ptr<T> boost_make() {
  return boost::make_shared<T>();
}
template <class T>
own::shared_ptr<T> own_make() {
  return own::make_shared<T>();
}

// One implementation: its atomic (shared by the threads of a row), two fixed values, how it makes
// a new one, and how a reader reads.
template <class Atomic, class Ptr, Ptr (*Make)()>
struct cell {
  using atomic_type = Atomic;
  static Ptr& value(int i) {
    static Ptr* const values[2] = {new Ptr(Make()), new Ptr(Make())};  // never destroyed
    return *values[i];
  }
  static Atomic& atomic() {
    static Atomic* const a = new Atomic(value(0));
    return *a;
  }
  static Ptr make(long v) {
    Ptr p = Make();
    p->a = v;
    return p;
  }
  static void read(const Atomic& a) { keep(a.load()); }
};
using std_cell = cell<std::atomic<std::shared_ptr<item>>, std::shared_ptr<item>, std_make<item>>;
using own_cell = cell<own::atomic_shared_ptr<item>, own::shared_ptr<item>, own_make<item>>;
using boost_cell = cell<boost::atomic_shared_ptr<item>, boost::shared_ptr<item>, boost_make<item>>;
using mutex_cell = cell<locked<std::mutex>, std::shared_ptr<item>, std_make<item>>;
using shared_mutex_cell = cell<locked<std::shared_mutex>, std::shared_ptr<item>, std_make<item>>;
struct own_snapshot_cell : own_cell {
  static void read(const own::atomic_shared_ptr<item>& a) {
    own::snapshot_ptr<item> s = a.snapshot();
    keep(s->a);
  }
};

template <class Cell>
void load_destroy(benchmark::State& state) {
  auto& a = Cell::atomic();
  for (auto _ : state) Cell::read(a);
  state.SetItemsProcessed(state.iterations());
}

template <class Cell>
void store(benchmark::State& state) {
  auto& a = Cell::atomic();
  int i = state.thread_index() % 2;
  for (auto _ : state) a.store(Cell::value(i ^= 1));
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
void cas_counter(benchmark::State& state) {
  auto& a = Cell::atomic();
  for (auto _ : state) {
    auto seen = a.load();
    auto next = Cell::make(seen->a + 1);
    while (!a.compare_exchange_weak(seen, next)) next->a = seen->a + 1;
  }
  state.SetItemsProcessed(state.iterations());
}

template <class Cell, int StoreEvery>
void read_mostly(benchmark::State& state) {
  auto& a = Cell::atomic();
  const bool writer = state.thread_index() == 0;
  int i = 0;
  int v = 0;
  for (auto _ : state) {
    if (writer && ++i == StoreEvery) {
      i = 0;
      a.store(Cell::value(v ^= 1));
    } else {
      Cell::read(a);
    }
  }
  state.SetItemsProcessed(state.iterations());
}

template <class Cell>
void load_under_store(benchmark::State& state) {
  auto& a = Cell::atomic();
  if (state.thread_index() == 0) {
    int i = 0;
    for (auto _ : state) a.store(Cell::value(i ^= 1));
    state.SetItemsProcessed(state.iterations());
    return;
  }
  using clock = std::chrono::steady_clock;
  std::vector<float> samples;
  samples.reserve(1 << 20);
  unsigned n = 0;
  for (auto _ : state) {
    if ((++n & 7) != 0 || samples.size() == samples.capacity()) {
      Cell::read(a);
      continue;
    }
    const clock::time_point start = clock::now();
    Cell::read(a);
    samples.push_back(std::chrono::duration<float, std::nano>(clock::now() - start).count());
  }
  state.SetItemsProcessed(state.iterations());
  if (samples.empty()) return;
  std::sort(samples.begin(), samples.end());
  // Counters are averaged over all threads; the storing thread reports none, so each loader's
  // share is scaled up to make the figure the loaders' average.
  const double loaders_share = static_cast<double>(state.threads()) / (state.threads() - 1);
  const auto percentile = [&](double p) {
    const auto at = static_cast<std::size_t>(p * static_cast<double>(samples.size() - 1));
    return benchmark::Counter(samples[at] * loaders_share, benchmark::Counter::kAvgThreads);
  };
  state.counters["p50_ns"] = percentile(0.5);
  state.counters["p99_ns"] = percentile(0.99);
  state.counters["p999_ns"] = percentile(0.999);
}

// Threads that each load from `a` once, then sleep until the object goes.
template <class Cell>
class idle_readers {
 public:
  idle_readers(const typename Cell::atomic_type& a, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
      threads_.emplace_back([this, &a] {
        Cell::read(a);
        std::unique_lock<std::mutex> lock(m_);
        ++loaded_;
        woken_.notify_all();
        woken_.wait(lock, [this] { return done_; });
      });
    }
    std::unique_lock<std::mutex> lock(m_);
    woken_.wait(lock, [&] { return loaded_ == n; });
  }
  idle_readers(const idle_readers&) = delete;
  idle_readers& operator=(const idle_readers&) = delete;
  ~idle_readers() {
    {
      std::lock_guard<std::mutex> lock(m_);
      done_ = true;
    }
    woken_.notify_all();
    for (std::thread& t : threads_) t.join();
  }

 private:
  std::mutex m_;
  std::condition_variable woken_;
  std::size_t loaded_ = 0;
  bool done_ = false;
  std::vector<std::thread> threads_;
};

template <class Cell>
void store_beside_idle_readers(benchmark::State& state) {
  auto& a = Cell::atomic();
  const idle_readers<Cell> readers(a, static_cast<std::size_t>(state.range(0)));
  int i = 0;
  for (auto _ : state) a.store(Cell::value(i ^= 1));
  state.SetItemsProcessed(state.iterations());
}

template <class F>
void add_row(const std::string& name, F f, std::initializer_list<int> threads) {
  auto* b = own_bench::add(name, f)->UseRealTime();
  for (int t : threads) b->Threads(t);
}

// The rows every impl has; read_mostly only if `mixes`, the others only if `all`.
template <class Cell>
void add(const std::string& impl, bool all, bool mixes) {
  if (all) {
    add_row("exp7/atomic_load_destroy/" + impl, load_destroy<Cell>, {1, 2, 4});
    add_row("exp7/atomic_store/" + impl, store<Cell>, {1, 2, 4});
    add_row("exp7/atomic_exchange/" + impl, exchange<Cell>, {1, 2, 4});
    add_row("exp7/atomic_cas/" + impl, cas<Cell>, {1, 2, 4});
    add_row("exp7/atomic_cas_counter/" + impl, cas_counter<Cell>, {1, 2, 4});
    own_bench::add("exp7/atomic_store_idle_readers/" + impl, store_beside_idle_readers<Cell>)->Arg(16)->Arg(64)->UseRealTime();
  }
  if (mixes) {
    add_row("exp7/atomic_read_mostly_1/" + impl, read_mostly<Cell, 100>, {1, 2, 4});
    add_row("exp7/atomic_read_mostly_10/" + impl, read_mostly<Cell, 10>, {1, 2, 4});
  }
  add_row("exp7/atomic_load_under_store/" + impl, load_under_store<Cell>, {2, 4});
}

const own_bench::registration registered([] {
  std::thread([] {}).join();
  add<std_cell>("std", true, true);
  add<own_cell>("own", true, true);
  add<boost_cell>("boost", true, true);
  add<mutex_cell>("mutex", true, true);
  add<shared_mutex_cell>("shared_mutex", false, true);
  add<own_snapshot_cell>("own_snapshot", false, true);
  add_row("exp7/atomic_load_destroy/own_snapshot", load_destroy<own_snapshot_cell>, {1, 2, 4});
});

}  // namespace
