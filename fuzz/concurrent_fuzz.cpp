// SPDX-License-Identifier: BSL-1.0
// libFuzzer target, built with ThreadSanitizer: the input decides how many threads (2 to 4) run and
// each one's sequence of operations on state they share: two atomic_shared_ptr cells and an
// atomic_weak_ptr (stores, exchanges, compare-exchanges, loads, locks), a concurrent_pool, a
// concurrent_multipool and a growing concurrent_object_pool (blocks and objects handed between
// threads through mailboxes, so that most are freed on a thread other than the one that took them).
// The nodes the cells hold are made by allocate_shared with the multipool as allocator. After the
// threads are joined and the cells destroyed, every node must have been destroyed exactly once, every
// pool must have nothing in use, and the upstream resource must have every byte back when the pools
// go. TSan reports any data race (run with TSAN_OPTIONS=halt_on_error=1, as fuzz/run.sh does).
//
// Input: byte 0 picks the thread count and the pool's block size; each following byte is one
// operation, taken by the threads in turn (byte i goes to thread (i - 1) % threads).
//
// Build and run: fuzz/run.sh (clang++-14 -fsanitize=fuzzer,thread -DOWN_CHECKED).
#include <own/atomic_shared_ptr.hpp>
#include <own/concurrent_pool.hpp>
#include <own/multipool.hpp>
#include <own/object_pool.hpp>
#include <own/pool_allocator.hpp>
#include <own/shared_ptr.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <thread>
#include <vector>

#include "fuzz_support.hpp"

namespace {

std::atomic<long> g_nodes_made{0};
std::atomic<long> g_nodes_destroyed{0};

// What the cells hold: a node knows whether it was destroyed, so a second destruction shows.
struct node {
  explicit node(std::uint64_t v) : value(v) { g_nodes_made.fetch_add(1, std::memory_order_relaxed); }
  node(const node&) = delete;
  node& operator=(const node&) = delete;
  ~node() {
    FUZZ_REQUIRE(state.exchange(dead, std::memory_order_acq_rel) == alive, "node %p destroyed twice", static_cast<void*>(this));
    g_nodes_destroyed.fetch_add(1, std::memory_order_relaxed);
  }
  static constexpr int alive = 0x5a5a, dead = 0xdead;
  std::atomic<int> state{alive};
  const std::uint64_t value;
};

// What the object pool holds: `owner` is set while out, and cleared by reset().
struct pooled {
  std::uint64_t owner = 0;
  void reset() { owner = 0; }
};

constexpr std::size_t max_local = 8;
constexpr std::size_t multipool_max = 512;

// A block written with its own address and its size, so that the thread that frees it (any thread)
// can check it and give the size back.
void stamp(void* p, std::size_t bytes) {
  const auto self = reinterpret_cast<std::uintptr_t>(p);
  std::memcpy(p, &self, sizeof self);
  if (bytes >= 2 * sizeof(std::size_t)) std::memcpy(static_cast<char*>(p) + sizeof self, &bytes, sizeof bytes);
}
std::size_t check_stamp(void* p, std::size_t bytes_if_short) {
  std::uintptr_t self;
  std::memcpy(&self, p, sizeof self);
  FUZZ_REQUIRE(self == reinterpret_cast<std::uintptr_t>(p), "block %p changed while out", p);
  std::size_t bytes = bytes_if_short;
  if (bytes_if_short == 0) std::memcpy(&bytes, static_cast<char*>(p) + sizeof self, sizeof bytes);
  return bytes;
}

// The atomics the threads share.
struct atomics {
  own::atomic_shared_ptr<node> cell[2];
  own::atomic_weak_ptr<node> weak;
  own::atomic_shared_ptr<pooled> pooled_cell;
  std::atomic<void*> pool_mailbox{nullptr};
  std::atomic<void*> multipool_mailbox{nullptr};  // blocks of at least 16 bytes: their size is in them
};

struct shared_state {
  explicit shared_state(std::size_t block_size, own::pool_options options)
      : upstream(std::size_t{256} << 20),
        pool(std::in_place, block_size, options, &upstream),
        multipool(std::in_place, multipool_max, options, &upstream),
        objects(std::in_place, 2, own::constructor_args<>(), own::call_reset, &upstream),
        cells(std::in_place) {}

  fuzz::bounded_resource upstream;
  std::optional<own::concurrent_pool> pool;
  std::optional<own::concurrent_multipool> multipool;
  std::optional<own::concurrent_object_pool<pooled>> objects;
  std::optional<atomics> cells;
  std::atomic<int> ready{0};
};

class worker {
 public:
  worker(shared_state& s, int id) : s_(s), id_(static_cast<std::uint64_t>(id) + 1) {}

  void run(const std::vector<std::uint8_t>& ops, int threads) {
    // Start together, so that the sequences overlap.
    s_.ready.fetch_add(1);
    while (s_.ready.load() < threads) std::this_thread::yield();
    for (std::uint8_t op : ops) apply(op);
    for (void* p : blocks_) give_block(p);
    for (void* p : mblocks_) give_multipool_block(p);
  }

 private:
  own::shared_ptr<node> make_node(std::uint8_t v) {
    return own::allocate_shared<node>(own::pool_allocator<node, own::concurrent_multipool>(&*s_.multipool), (id_ << 8) | v);
  }
  static void check(const own::shared_ptr<node>& p) {
    if (p) FUZZ_REQUIRE(p->state.load(std::memory_order_relaxed) == node::alive, "a loaded node %p is dead", static_cast<void*>(p.get()));
  }

  void apply(std::uint8_t op) {
    atomics& a = *s_.cells;
    own::atomic_shared_ptr<node>& cell = a.cell[op >> 7];
    switch (op % 16) {
      case 0: cell.store(make_node(op)); break;
      case 1: check(cell.load()); break;
      case 2: check(cell.exchange(op & 0x40 ? make_node(op) : nullptr)); break;
      case 3: {
        own::shared_ptr<node> expected = cell.load();
        own::shared_ptr<node> desired = op & 0x40 ? make_node(op) : nullptr;
        if (!cell.compare_exchange_strong(expected, desired)) check(expected);
        break;
      }
      case 4: a.weak.store(cell.load()); break;
      case 5: check(a.weak.load().lock()); break;
      case 6: cell.store(nullptr); break;
      case 7:  // a pool block, kept
        if (blocks_.size() < max_local) {
          void* p = s_.pool->allocate();
          stamp(p, sizeof(void*));
          blocks_.push_back(p);
        }
        break;
      case 8:  // a kept block, posted: whatever was in the mailbox is freed here
        if (!blocks_.empty()) {
          if (void* old = a.pool_mailbox.exchange(blocks_.back())) give_block(old);
          blocks_.pop_back();
        }
        break;
      case 9:
        if (!blocks_.empty()) {
          give_block(blocks_.back());
          blocks_.pop_back();
        }
        break;
      case 10:  // a multipool block of a size from the operation, kept
        if (mblocks_.size() < max_local) {
          const std::size_t bytes = 16 + (op >> 4) * 37 % multipool_max;
          void* p = s_.multipool->allocate(bytes, 16);
          stamp(p, bytes);
          mblocks_.push_back(p);
        }
        break;
      case 11:
        if (!mblocks_.empty()) {
          if (void* old = a.multipool_mailbox.exchange(mblocks_.back())) give_multipool_block(old);
          mblocks_.pop_back();
        }
        break;
      case 12: {  // a pooled object published; the one it replaces goes back from this thread
        own::shared_ptr<pooled> p = s_.objects->acquire_shared();
        FUZZ_REQUIRE(p->owner == 0, "pooled object %p handed out while out", static_cast<void*>(p.get()));
        p->owner = id_;
        a.pooled_cell.store(std::move(p));
        break;
      }
      case 13: {
        own::managed_ptr<pooled> p = s_.objects->acquire();
        FUZZ_REQUIRE(p->owner == 0, "pooled object %p handed out while out", static_cast<void*>(p.get()));
        p->owner = id_;
        break;
      }
      case 14: {
        own::shared_ptr<pooled> p = a.pooled_cell.load();
        if (p) FUZZ_REQUIRE(p->owner != 0, "a published pooled object %p was reset", static_cast<void*>(p.get()));
        break;
      }
      default: a.pooled_cell.store(nullptr); break;
    }
  }

  void give_block(void* p) {
    check_stamp(p, sizeof(void*));
    s_.pool->deallocate(p);
  }
  void give_multipool_block(void* p) { s_.multipool->deallocate(p, check_stamp(p, 0), 16); }

  shared_state& s_;
  const std::uint64_t id_;
  std::vector<void*> blocks_;
  std::vector<void*> mblocks_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const int threads = 2 + data[0] % 3;
  own::pool_options options;
  options.thread_cache_blocks = 1 + (data[0] >> 2) % 8;  // small magazines: more trips to the depot
  options.initial_chunk_blocks = 1 + (data[0] >> 5);
  const std::size_t block_size = 8 + 8 * ((data[0] >> 3) % 4);
  std::vector<std::vector<std::uint8_t>> ops(static_cast<std::size_t>(threads));
  for (std::size_t i = 1; i < size && i < 4096; ++i) ops[(i - 1) % ops.size()].push_back(data[i]);

  const long made_before = g_nodes_made.load(), destroyed_before = g_nodes_destroyed.load();
  shared_state s(block_size, options);
  {
    std::vector<std::thread> running;
    for (int t = 0; t < threads; ++t) {
      running.emplace_back([&, t] { worker(s, t).run(ops[static_cast<std::size_t>(t)], threads); });
    }
    for (std::thread& t : running) t.join();
  }
  // Every thread has exited: what is still in the cells and mailboxes goes now, and the atomics'
  // destruction releases any node a reader left deferred.
  if (void* p = s.cells->pool_mailbox.load()) s.pool->deallocate(p);
  if (void* p = s.cells->multipool_mailbox.load()) s.multipool->deallocate(p, check_stamp(p, 0), 16);
  s.cells.reset();
  FUZZ_REQUIRE(g_nodes_made.load() - made_before == g_nodes_destroyed.load() - destroyed_before, "%ld nodes made, %ld destroyed",
               g_nodes_made.load() - made_before, g_nodes_destroyed.load() - destroyed_before);
  const own::pool_statistics ps = s.pool->statistics(), ms = s.multipool->statistics();
  FUZZ_REQUIRE(ps.blocks_in_use == 0, "concurrent_pool: %zu blocks in use", ps.blocks_in_use);
  FUZZ_REQUIRE(ms.blocks_in_use == 0 && ms.upstream_bytes_in_use == 0, "concurrent_multipool: %zu blocks, %zu bytes in use",
               ms.blocks_in_use, ms.upstream_bytes_in_use);
  FUZZ_REQUIRE(s.objects->available() == s.objects->capacity(), "concurrent_object_pool: %zu of %zu available",
               s.objects->available(), s.objects->capacity());
  s.objects.reset();
  s.multipool.reset();
  s.pool.reset();
  FUZZ_REQUIRE(s.upstream.blocks_in_use() == 0, "%zu upstream blocks never returned", s.upstream.blocks_in_use());
  return 0;
}
