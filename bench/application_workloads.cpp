// SPDX-License-Identifier: BSL-1.0
// Experiment 8: application-shaped workloads, end to end (issue 14: "a benchmark of one size in a loop
// can mislead"). Each is a small program shaped like a real user's, written once over a "way" of
// making shared objects:
//  (a) tree: a document tree of ~10^6 nodes (quick: 10^5) built depth-first as a parser would, each
//      node (80 bytes with its counts) followed by its payload of 24-200 bytes; walked depth-first,
//      a quarter of it deep-copied, then all freed. Phases: build, walk, copy, free.
//  (b) pipeline: one producer, two consumers; messages of 64-1000 bytes through two mutex queues.
//  (c) lru: an LRU cache of 10,000 values (mutex, unordered_map, list) used by 2 threads, which also
//      keep weak_ptr observers of what they saw and lock them later.
//  (d) persistent_map: a path-copying binary search tree whose versions share nodes; 16 versions
//      kept, lookups in random ones, old versions dropped.
// Ways: std (std::shared_ptr, with whatever malloc the process has: the report runs the std rows
// with glibc, mimalloc, tcmalloc and jemalloc), own (own::shared_ptr with nothing else changed: the
// default heap), own_pool (own with the pools a user would add: a concurrent_multipool for the tree
// and the pipeline).
// Rows: exp8/<workload>/<way>, real time per run of the whole workload; counters: the phases (ms) and
// peak_rss_mib, the peak resident memory of a fresh process (this executable, spawned with the same
// environment) running the workload once, above its resident memory before.
#include <array>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <fstream>
#include <limits>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "bench_common.hpp"
#include "fresh_process.hpp"

#include "own_headers.hpp"
#if __has_include(<own/multipool.hpp>)
#include <own/multipool.hpp>
#endif

namespace {

using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point start) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - start).count();
}

std::size_t tree_nodes() { return own_bench::scaled<std::size_t>(1000000, 100000); }
std::uint32_t pipeline_messages() { return own_bench::scaled<std::uint32_t>(600000, 60000); }
std::uint32_t lru_operations() { return own_bench::scaled<std::uint32_t>(400000, 40000); }
std::uint32_t map_inserts() { return own_bench::scaled<std::uint32_t>(200000, 20000); }

// The phases a workload times on its own (ms), summed over runs.
struct phases {
  std::vector<std::pair<std::string, double>> totals;
  void add(const std::string& name, double ms) {
    for (auto& [n, total] : totals) {
      if (n == name) {
        total += ms;
        return;
      }
    }
    totals.emplace_back(name, ms);
  }
};

// ---- the ways

struct std_way {
  template <class T>
  using sp = std::shared_ptr<T>;
  template <class T>
  using wp = std::weak_ptr<T>;
  template <class T, class... A>
  static sp<T> make(A&&... a) {
    return std::make_shared<T>(std::forward<A>(a)...);
  }
};

#ifdef OWN_BENCH_HAS_SHARED_PTR
struct own_way {
  template <class T>
  using sp = own::shared_ptr<T>;
  template <class T>
  using wp = own::weak_ptr<T>;
  template <class T, class... A>
  static sp<T> make(A&&... a) {
    return own::make_shared<T>(std::forward<A>(a)...);
  }
};
#ifdef OWN_BENCH_HAS_CONCURRENT_POOL
// What a user adds: one multipool for the program's shared objects.
struct own_pool_way : own_way {
  static own::concurrent_multipool& pool() {
    static own::concurrent_multipool* const p = new own::concurrent_multipool(512);
    return *p;
  }
  template <class T, class... A>
  static sp<T> make(A&&... a) {
    return own::allocate_shared<T>(&pool(), std::forward<A>(a)...);
  }
};
#endif
#endif

// ---- (a) the document tree

template <std::size_t N>
struct payload {
  std::array<unsigned char, N> bytes;
  explicit payload(unsigned char v) { bytes.fill(v); }
};

template <class Way>
struct tree {
  struct node;
  using node_ptr = typename Way::template sp<node>;
  using data_ptr = typename Way::template sp<void>;

  struct node {
    node_ptr first_child;
    node_ptr next_sibling;
    data_ptr data;
    std::uint32_t bytes = 0;
    std::uint32_t kind = 0;
  };

  // A payload of one of four sizes (24, 40, 96 or 200 bytes), allocated right after its node.
  static data_ptr make_payload(std::uint32_t kind, std::uint32_t& bytes) {
    const auto v = static_cast<unsigned char>(kind);
    switch (kind % 4) {
      case 0: bytes = 24; return Way::template make<payload<24>>(v);
      case 1: bytes = 40; return Way::template make<payload<40>>(v);
      case 2: bytes = 96; return Way::template make<payload<96>>(v);
      default: bytes = 200; return Way::template make<payload<200>>(v);
    }
  }

  static node_ptr make_node(std::uint32_t kind) {
    node_ptr n = Way::template make<node>();
    n->kind = kind;
    n->data = make_payload(kind, n->bytes);
    return n;
  }

  // Depth-first, as a parser meets them: each node's children (1-8 of them, down to `depth`) are
  // built before its next sibling.
  static node_ptr build(std::minstd_rand& rng, int depth, std::size_t& budget) {
    node_ptr n = make_node(static_cast<std::uint32_t>(rng()));
    --budget;
    if (depth == 0) return n;
    const int children = 1 + static_cast<int>(rng() % 8);
    node_ptr* link = &n->first_child;
    for (int i = 0; i < children && budget > 0; ++i) {
      *link = build(rng, depth - 1, budget);
      link = &(*link)->next_sibling;
    }
    return n;
  }

  static std::uint64_t walk(const node_ptr& root) {
    std::uint64_t sum = 0;
    std::vector<const node*> stack{root.get()};
    while (!stack.empty()) {
      const node* n = stack.back();
      stack.pop_back();
      const auto* bytes = static_cast<const unsigned char*>(n->data.get());
      sum += n->kind + bytes[0] + bytes[n->bytes - 1];
      if (n->next_sibling) stack.push_back(n->next_sibling.get());
      if (n->first_child) stack.push_back(n->first_child.get());
    }
    return sum;
  }

  static node_ptr copy(const node& from) {
    node_ptr n = make_node(from.kind);
    node_ptr* link = &n->first_child;
    for (const node* c = from.first_child.get(); c != nullptr; c = c->next_sibling.get()) {
      *link = copy(*c);
      link = &(*link)->next_sibling;
    }
    return n;
  }

  static void once(phases& times) {
    std::minstd_rand rng(42);
    std::size_t budget = tree_nodes();
    auto t = clock_type::now();
    std::vector<node_ptr> forest;
    while (budget > 0) forest.push_back(build(rng, 7, budget));
    times.add("build_ms", ms_since(t));
    t = clock_type::now();
    std::uint64_t sum = 0;
    for (const node_ptr& root : forest) sum += walk(root);
    times.add("walk_ms", ms_since(t));
    t = clock_type::now();
    std::vector<node_ptr> copies;
    for (std::size_t i = 0; i < forest.size(); i += 4) copies.push_back(copy(*forest[i]));
    times.add("copy_ms", ms_since(t));
    for (const node_ptr& root : copies) sum += walk(root);
    benchmark::DoNotOptimize(sum);
    t = clock_type::now();
    forest.clear();
    copies.clear();
    times.add("free_ms", ms_since(t));
  }
};

// ---- (b) the message pipeline

template <class Way>
struct pipeline {
  using message = typename Way::template sp<void>;

  struct queue {
    std::mutex m;
    std::condition_variable cv;
    std::deque<message> items;
    bool closed = false;
  };

  static message make_message(std::uint32_t i) {
    switch (i % 3) {
      case 0: return Way::template make<payload<64>>(static_cast<unsigned char>(i));
      case 1: return Way::template make<payload<256>>(static_cast<unsigned char>(i));
      default: return Way::template make<payload<1000>>(static_cast<unsigned char>(i));
    }
  }

  static void consume(queue& q, std::uint64_t& sum) {
    std::deque<message> batch;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(q.m);
        q.cv.wait(lock, [&] { return !q.items.empty() || q.closed; });
        if (q.items.empty()) return;
        batch.swap(q.items);
      }
      q.cv.notify_one();
      for (const message& m : batch) sum += *static_cast<const unsigned char*>(m.get());
      batch.clear();  // dropped here, on the consumer
    }
  }

  static void once(phases&) {
    const std::uint32_t messages = pipeline_messages();
    {
      queue queues[2];
      std::uint64_t sums[2] = {0, 0};
      std::thread c0([&] { consume(queues[0], sums[0]); });
      std::thread c1([&] { consume(queues[1], sums[1]); });
      for (std::uint32_t i = 0; i < messages; ++i) {
        queue& q = queues[i % 2];
        message m = make_message(i);
        {
          std::unique_lock<std::mutex> lock(q.m);
          q.cv.wait(lock, [&] { return q.items.size() < 1024; });
          q.items.push_back(std::move(m));
        }
        q.cv.notify_one();
      }
      for (queue& q : queues) {
        std::lock_guard<std::mutex> lock(q.m);
        q.closed = true;
        q.cv.notify_all();
      }
      c0.join();
      c1.join();
      benchmark::DoNotOptimize(sums);
    }
  }
};

// ---- (c) the LRU cache with weak observers

template <class Way>
struct lru {
  struct value {
    std::uint64_t key;
    std::array<unsigned char, 88> bytes;
  };
  using value_ptr = typename Way::template sp<value>;
  using value_weak = typename Way::template wp<value>;

  struct cache {
    std::mutex m;
    std::list<std::uint64_t> order;  // most recent first
    struct entry {
      value_ptr v;
      std::list<std::uint64_t>::iterator where;
    };
    std::unordered_map<std::uint64_t, entry> map;
    static constexpr std::size_t capacity = 10000;

    value_ptr get(std::uint64_t key) {
      std::lock_guard<std::mutex> lock(m);
      auto it = map.find(key);
      if (it != map.end()) {
        order.splice(order.begin(), order, it->second.where);
        return it->second.v;
      }
      value_ptr v = Way::template make<value>();
      v->key = key;
      v->bytes.fill(static_cast<unsigned char>(key));
      order.push_front(key);
      map.emplace(key, entry{v, order.begin()});
      if (map.size() > capacity) {
        map.erase(order.back());
        order.pop_back();
      }
      return v;
    }
  };

  static void client(cache& c, std::uint32_t seed, std::uint32_t operations, std::uint64_t& sum) {
    std::minstd_rand rng(seed);
    std::vector<value_weak> observers(256);
    for (std::uint32_t i = 0; i < operations; ++i) {
      // Keys skewed towards the small ones: about two lookups in three hit.
      const std::uint64_t key = (rng() % 40000) * (rng() % 40000) / 40000;
      value_ptr v = c.get(key);
      sum += v->bytes[0];
      observers[i % observers.size()] = v;
      if (value_ptr seen = observers[(i * 7) % observers.size()].lock()) sum += seen->key;
    }
  }

  static void once(phases&) {
    const std::uint32_t operations = lru_operations();
    {
      cache c;
      std::uint64_t sums[2] = {0, 0};
      std::thread other([&] { client(c, 2, operations, sums[1]); });
      client(c, 1, operations, sums[0]);
      other.join();
      benchmark::DoNotOptimize(sums);
    }
  }
};

// ---- (d) the persistent map

template <class Way>
struct persistent_map {
  struct node;
  using node_ptr = typename Way::template sp<const node>;
  struct node {
    std::uint64_t key;
    std::uint64_t value;
    node_ptr left;
    node_ptr right;
  };

  // A new version with key set: the path from the root is copied, the rest shared.
  static node_ptr insert(const node_ptr& n, std::uint64_t key, std::uint64_t value) {
    if (!n) return Way::template make<const node>(node{key, value, nullptr, nullptr});
    if (key < n->key) return Way::template make<const node>(node{n->key, n->value, insert(n->left, key, value), n->right});
    if (n->key < key) return Way::template make<const node>(node{n->key, n->value, n->left, insert(n->right, key, value)});
    return Way::template make<const node>(node{key, value, n->left, n->right});
  }

  static std::uint64_t find(const node* n, std::uint64_t key) {
    while (n != nullptr) {
      if (key < n->key) {
        n = n->left.get();
      } else if (n->key < key) {
        n = n->right.get();
      } else {
        return n->value;
      }
    }
    return 0;
  }

  static void once(phases&) {
    const std::uint32_t inserts = map_inserts();
    {
      std::minstd_rand rng(7);
      std::array<node_ptr, 16> versions{};  // a ring; the newest at `head`
      std::size_t head = 0;
      std::uint64_t sum = 0;
      for (std::uint32_t i = 0; i < inserts; ++i) {
        node_ptr next = insert(versions[head], rng() % (inserts * 4), i);
        head = (head + 1) % versions.size();
        versions[head] = std::move(next);  // the oldest version goes
        sum += find(versions[rng() % versions.size()].get(), rng() % (inserts * 4));
      }
      benchmark::DoNotOptimize(sum);
    }
  }
};

// ---- sizes, rows and the memory probe


// Runs a workload once; false for an unknown name.
template <class Way>
bool run_once(const std::string& workload, phases& times) {
  if (workload == "tree") {
    tree<Way>::once(times);
  } else if (workload == "pipeline") {
    pipeline<Way>::once(times);
  } else if (workload == "lru") {
    lru<Way>::once(times);
  } else if (workload == "persistent_map") {
    persistent_map<Way>::once(times);
  } else {
    return false;
  }
  return true;
}

std::size_t status_kib(const char* field) {
  std::ifstream status("/proc/self/status");
  std::string line;
  const std::size_t length = std::strlen(field);
  while (std::getline(status, line)) {
    if (line.compare(0, length, field) == 0) return std::strtoul(line.c_str() + length, nullptr, 10);
  }
  return 0;
}

// The peak resident memory of running `workload` with `way` once, above the resident memory before,
// in MiB; NaN if the workload failed. Run in a fresh process (fresh_process.hpp), so that no earlier
// row's peak or heap counts.
template <class Way>
double peak_rss_mib(const std::string& workload) {
  const std::size_t before = status_kib("VmRSS:");
  phases times;
  if (!run_once<Way>(workload, times)) return std::numeric_limits<double>::quiet_NaN();
  const std::size_t peak = status_kib("VmHWM:");
  return static_cast<double>(peak > before ? peak - before : 0) / 1024.0;
}

template <class Way>
void add_workloads(const std::string& way) {
  for (const char* workload : {"tree", "pipeline", "lru", "persistent_map"}) {
    const std::string name = workload;
    const std::string probe = "peak_rss/" + name + "/" + way;
    own_bench::fresh_process_tasks()[probe] = [name] { return peak_rss_mib<Way>(name); };
    own_bench::add("exp8/" + name + "/" + way,
                   [name, way, probe](benchmark::State& state) {
                     phases times;
                     for (auto _ : state) run_once<Way>(name, times);
                     for (const auto& [phase, total] : times.totals) {
                       state.counters[phase] = total / static_cast<double>(state.iterations());
                     }
                     // Once per row, not per repetition: a probe runs the whole workload again.
                     static std::map<std::string, double> measured;
                     const std::string row = name + "/" + way;
                     if (measured.count(row) == 0) measured[row] = own_bench::in_fresh_process(probe);
                     state.counters["peak_rss_mib"] = std::isnan(measured[row]) ? -1 : measured[row];
                   })
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime()
        ->Iterations(1);
  }
}

const own_bench::registration rows([] {
  add_workloads<std_way>("std");
#ifdef OWN_BENCH_HAS_SHARED_PTR
  add_workloads<own_way>("own");
#ifdef OWN_BENCH_HAS_CONCURRENT_POOL
  add_workloads<own_pool_way>("own_pool");
#endif
#endif
});

}  // namespace

int main(int argc, char** argv) { return own_bench::main_with_fresh_processes(argc, argv); }
