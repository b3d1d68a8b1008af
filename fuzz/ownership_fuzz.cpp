// SPDX-License-Identifier: BSL-1.0
// libFuzzer target: reads its input as a program of operations over a handful of own::shared_ptr,
// weak_ptr, managed_ptr and object-pool handles, runs each one, and after every step checks the
// real state against a small reference model: which objects are alive, every pointer's target and
// use count, weak expiry, pool availability, and the control blocks the allocator has out.
//
// Build (alone, from include/ only):
//   clang++-14 -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined -I include fuzz/ownership_fuzz.cpp -o ownership_fuzz
// Run:
//   ./ownership_fuzz fuzz/corpus -max_total_time=60
//
// The control blocks come from a counting allocator, from an own::pool (whose chunks come from the
// same count) or from an object pool's slots.
//
// Program encoding: each operation is 3 bytes, [opcode, a, b]; a and b pick slots (mod the slot
// count); the opcode is taken mod 25 (see apply()). An operation that std or own says throws is run and must throw, leaving the model's
// state as the library documents (strong guarantee, or the adopted pointer deleted).
#include <own/managed_ptr.hpp>
#include <own/object_pool.hpp>
#include <own/pool.hpp>
#include <own/shared_ptr.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace {

[[noreturn]] void fail(const char* what, long expected, long actual, std::size_t step) {
  std::fprintf(stderr, "ownership_fuzz: step %zu: %s: expected %ld, got %ld\n", step, what, expected, actual);
  std::abort();
}
#define FUZZ_CHECK_EQ(what, expected, actual) \
  do {                                        \
    const long e_ = static_cast<long>(expected), a_ = static_cast<long>(actual); \
    if (e_ != a_) fail(what, e_, a_, step_);  \
  } while (0)

// ------------------------------------------------------------------------------------------------
// The real side: objects that report their own construction and destruction, an allocator that
// counts blocks and can be told to fail, and a pool whose resetter reports returns.

std::vector<signed char> g_alive;  // by object id: 1 alive, 0 gone; a second destruction aborts

struct node {
  explicit node(int object_id) : id(object_id) {
    if (id >= 0) g_alive[static_cast<std::size_t>(id)] = 1;
  }
  node(const node&) = delete;
  node& operator=(const node&) = delete;
  ~node() {
    if (id < 0) return;  // a pool's idle object
    if (g_alive[static_cast<std::size_t>(id)] != 1) fail("object destroyed twice", 1, g_alive[static_cast<std::size_t>(id)], 0);
    g_alive[static_cast<std::size_t>(id)] = 0;
  }
  int id;
  int value = 0;  // what aliases point at
};

// The id stays on a node the pool resets, so that a second reset of the same acquisition shows.
void pool_reset(node& n) {
  if (n.id < 0 || g_alive[static_cast<std::size_t>(n.id)] != 1) fail("pooled object reset twice", 1, n.id, 0);
  g_alive[static_cast<std::size_t>(n.id)] = 0;
  n.id = -1;
}

struct block_counter {
  long in_use = 0;
  bool fail_next = false;
};
block_counter g_blocks;

template <class T>
struct counting_allocator {
  using value_type = T;
  counting_allocator() = default;
  template <class U>
  counting_allocator(const counting_allocator<U>&) noexcept {}
  T* allocate(std::size_t n) {
    if (g_blocks.fail_next) {
      g_blocks.fail_next = false;
      throw std::bad_alloc();
    }
    ++g_blocks.in_use;
    return static_cast<T*>(::operator new(n * sizeof(T)));
  }
  void deallocate(T* p, std::size_t) noexcept {
    --g_blocks.in_use;
    ::operator delete(p);
  }
  friend bool operator==(counting_allocator, counting_allocator) noexcept { return true; }
  friend bool operator!=(counting_allocator, counting_allocator) noexcept { return false; }
};

// The own::pool's upstream: chunks counted with the blocks (and failing with them when armed).
class counting_resource : public std::pmr::memory_resource {
 public:
  long chunks = 0;

 private:
  void* do_allocate(std::size_t bytes, std::size_t align) override {
    void* p = counting_allocator<std::max_align_t>().allocate((bytes + sizeof(std::max_align_t) - 1) / sizeof(std::max_align_t));
    ++chunks;
    (void)align;
    return p;
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t) override {
    --chunks;
    counting_allocator<std::max_align_t>().deallocate(static_cast<std::max_align_t*>(p), bytes / sizeof(std::max_align_t));
  }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override { return this == &other; }
};

// A deleter that is not std's, so adopted pointers have a block of their own kind.
struct node_deleter {
  void operator()(node* p) const noexcept { delete p; }
};

constexpr int slots = 4;
constexpr std::size_t pool_capacity = 3;

// ------------------------------------------------------------------------------------------------
// The model.

struct object_model {
  node* address = nullptr;
  bool counted = false;   // owned through a control block (use counts apply)
  bool pool_slot = false; // acquire_shared: its block is the pool's slot, kept out while weak refs last
  bool from_pool = false; // goes back to the pool, not destroyed
  bool owns_block = false; // its block came from counting_allocator
  bool pool_block = false;  // its block came from the own::pool
};

struct handle {
  int object = -1;  // -1: empty
};

class program {
 public:
  program() {
    g_alive.clear();
    g_blocks = {};
  }

  void run(const std::uint8_t* data, std::size_t size) {
    for (std::size_t i = 0; i + 3 <= size && step_ < 2000; i += 3, ++step_) {
      apply(data[i], data[i + 1] % slots, data[i + 2] % slots);
      check();
    }
    clear_all();
    check();
    FUZZ_CHECK_EQ("blocks left at the end", upstream_chunks(), g_blocks.in_use);
  }

  ~program() { clear_all(); }

 private:
  // -- operations --------------------------------------------------------------------------------
  void apply(std::uint8_t op, int a, int b) {
    switch (op % 25) {
      case 0: {  // allocate_shared
        const int id = new_object(true, false, false, true);
        shared_[a] = own::allocate_shared<node>(counting_allocator<node>(), id);
        finish_make(id, shared_[a].get(), hs_[a]);
        break;
      }
      case 1: {  // adopt a new-ed pointer, block from the allocator; if that fails the node is deleted
        const int id = new_object(true, false, false, true);
        node* raw = new node(id);
        objects_[static_cast<std::size_t>(id)].address = raw;
        if (expect_throw<std::bad_alloc>([&] { shared_[a] = own::shared_ptr<node>(raw, node_deleter(), counting_allocator<node>()); })) {
          objects_[static_cast<std::size_t>(id)].counted = false;  // deleted: no owner left
          return;
        }
        hs_[a].object = id;
        break;
      }
      case 2: shared_[a] = shared_[b]; hs_[a] = hs_[b]; break;
      case 3:
        if (a != b) {
          shared_[a] = std::move(shared_[b]);
          hs_[a] = std::exchange(hs_[b], handle{});
        }
        break;
      case 4: shared_[a].reset(); hs_[a] = {}; break;
      case 5:  // aliasing: owns what shared_[b] owns, points at its member (or at nothing)
        alias_[a] = own::shared_ptr<int>(shared_[b], shared_[b] ? &shared_[b]->value : nullptr);
        ha_[a] = hs_[b];
        break;
      case 6: alias_[a].reset(); ha_[a] = {}; break;
      case 7: weak_[a] = shared_[b]; hw_[a] = hs_[b]; break;
      case 8: weak_[a] = weak_[b]; hw_[a] = hw_[b]; break;
      case 9: weak_[a].reset(); hw_[a] = {}; break;
      case 10:  // lock
        shared_[a] = weak_[b].lock();
        hs_[a] = alive(hw_[b].object) ? hw_[b] : handle{};
        break;
      case 11: {  // shared_ptr from weak_ptr: throws bad_weak_ptr if expired, changing nothing
        const bool expired = !alive(hw_[b].object);
        const bool threw = expect_throw<std::bad_weak_ptr>([&] { shared_[a] = own::shared_ptr<node>(weak_[b]); });
        FUZZ_CHECK_EQ("shared_ptr(weak) threw iff expired", expired, threw);
        if (!threw) hs_[a] = hw_[b];
        break;
      }
      case 12: managed_[a] = own::managed_ptr<node>(shared_[b]); hm_[a] = hs_[b]; break;  // copy: one more reference
      case 13: {  // move: the shared_ptr's reference passes to the managed_ptr
        own::managed_ptr<node> m(std::move(shared_[b]));
        hm_[a] = std::exchange(hs_[b], handle{});
        managed_[a] = std::move(m);
        break;
      }
      case 14: {  // managed -> shared: the same block back, or a housing block (which may fail)
        const handle h = hm_[b];
        const bool needs_block = h.object >= 0 && !objects_[static_cast<std::size_t>(h.object)].counted;
        if (expect_throw<std::bad_alloc>([&] { shared_[a] = own::shared_ptr<node>(std::move(managed_[b]), counting_allocator<node>()); })) {
          FUZZ_CHECK_EQ("only housing allocates", 1, needs_block);
          FUZZ_CHECK_EQ("managed_ptr kept after a failed conversion", reinterpret_cast<std::uintptr_t>(objects_address(h)),
                        reinterpret_cast<std::uintptr_t>(managed_[b].get()));
          return;
        }
        if (needs_block) {
          object_model& o = objects_[static_cast<std::size_t>(h.object)];
          o.counted = true;
          o.owns_block = true;
        }
        hm_[b] = {};
        hs_[a] = h;
        break;
      }
      case 15: {  // make_managed (housed in a block: counted)
        const int id = new_object(true, false, false, true);
        managed_[a] = own::allocate_managed<node>(counting_allocator<node>(), id);
        finish_make(id, managed_[a].get(), hm_[a]);
        break;
      }
      case 16: {  // managed_ptr from new
        const int id = new_object(false, false, false, false);
        managed_[a] = own::managed_ptr<node>(new node(id));
        objects_[static_cast<std::size_t>(id)].address = managed_[a].get();
        hm_[a].object = id;
        break;
      }
      case 17: managed_[a].reset(); hm_[a] = {}; break;
      case 18:
        if (a != b) {
          managed_[a] = std::move(managed_[b]);
          hm_[a] = std::exchange(hm_[b], handle{});
        }
        break;
      case 19: {  // release, then resume ownership
        auto [p, d] = managed_[a].release();
        FUZZ_CHECK_EQ("release() empties", 0, managed_[a].get() != nullptr);
        managed_[a] = own::managed_ptr<node>(p, d);
        break;
      }
      case 20: acquire(a, false); break;
      case 21: acquire(a, true); break;
      case 22: g_blocks.fail_next = true; break;  // the next block allocation throws
      case 23: {  // allocate_shared from an own::pool (its upstream is the counting resource)
        const int id = new_object(true, false, false, false);
        objects_[static_cast<std::size_t>(id)].pool_block = true;
        if (expect_throw<std::bad_alloc>([&] { shared_[a] = own::allocate_shared<node>(block_pool_.get(), id); })) {
          objects_[static_cast<std::size_t>(id)].counted = false;  // never made
          return;
        }
        finish_make(id, shared_[a].get(), hs_[a]);
        break;
      }
      default: shared_[a].swap(shared_[b]); std::swap(hs_[a], hs_[b]); break;
    }
    g_blocks.fail_next = false;  // an armed failure lasts one operation
  }

  void acquire(int a, bool shared) {
    const std::size_t out = pool_->capacity() - pool_->available();
    const bool exhausted = out == pool_capacity;
    const int id = new_object(shared, shared, true, false);
    objects_[static_cast<std::size_t>(id)].counted = false;  // not yet
    bool threw;
    if (shared) {
      threw = expect_throw<std::bad_alloc>([&] { shared_[a] = pool_->acquire_shared(); });
    } else {
      threw = expect_throw<std::bad_alloc>([&] { managed_[a] = pool_->acquire(); });
    }
    FUZZ_CHECK_EQ("a fixed pool throws exactly when exhausted", exhausted, threw);
    if (threw) return;
    node* n = shared ? shared_[a].get() : managed_[a].get();
    FUZZ_CHECK_EQ("an acquired object is idle", -1, n->id);
    n->id = id;
    g_alive[static_cast<std::size_t>(id)] = 1;
    object_model& o = objects_[static_cast<std::size_t>(id)];
    o.address = n;
    o.counted = shared;
    (shared ? hs_[a] : hm_[a]).object = id;
  }

  int new_object(bool counted, bool pool_slot, bool from_pool, bool owns_block) {
    const int id = static_cast<int>(objects_.size());
    objects_.push_back(object_model{nullptr, counted, pool_slot, from_pool, owns_block});
    g_alive.push_back(0);
    return id;
  }
  void finish_make(int id, node* address, handle& h) {
    objects_[static_cast<std::size_t>(id)].address = address;
    h.object = id;
  }
  std::size_t upstream_chunks() const { return static_cast<std::size_t>(upstream_.chunks); }
  node* objects_address(handle h) const { return h.object >= 0 ? objects_[static_cast<std::size_t>(h.object)].address : nullptr; }

  template <class E, class F>
  bool expect_throw(F&& f) {
    try {
      f();
    } catch (const E&) {
      return true;
    }
    return false;
  }

  // -- the model's view ------------------------------------------------------------------------
  long use_count(int id) const {
    if (id < 0) return 0;
    long n = 0;
    for (int i = 0; i < slots; ++i) n += (hs_[i].object == id) + (ha_[i].object == id);
    if (objects_[static_cast<std::size_t>(id)].counted) {
      for (int i = 0; i < slots; ++i) n += hm_[i].object == id;
    }
    return n;
  }
  long weak_count(int id) const {
    long n = 0;
    for (int i = 0; i < slots; ++i) n += hw_[i].object == id;
    return n;
  }
  bool alive(int id) const {
    if (id < 0) return false;
    if (objects_[static_cast<std::size_t>(id)].counted) return use_count(id) > 0;
    for (int i = 0; i < slots; ++i) {
      if (hm_[i].object == id) return true;
    }
    return false;
  }

  void check() {
    long blocks = 0;
    std::size_t pool_out = 0, pool_blocks = 0;
    for (std::size_t id = 0; id < objects_.size(); ++id) {
      const object_model& o = objects_[id];
      const bool live = alive(static_cast<int>(id));
      FUZZ_CHECK_EQ("object alive", live, g_alive[id] == 1);
      const bool block_kept = o.counted && (live || weak_count(static_cast<int>(id)) > 0);
      if (o.owns_block && block_kept) ++blocks;
      if (o.pool_block && block_kept) ++pool_blocks;
      if (o.from_pool && (live || (o.pool_slot && block_kept))) ++pool_out;
    }
    FUZZ_CHECK_EQ("control blocks in use", blocks + static_cast<long>(upstream_chunks()), g_blocks.in_use);
    FUZZ_CHECK_EQ("own::pool blocks in use", pool_blocks, block_pool_->statistics().blocks_in_use);
    FUZZ_CHECK_EQ("pool objects out", pool_out, pool_->capacity() - pool_->available());
    FUZZ_CHECK_EQ("pool capacity", pool_capacity, pool_->capacity());
    for (int i = 0; i < slots; ++i) {
      FUZZ_CHECK_EQ("shared_ptr target", reinterpret_cast<std::uintptr_t>(objects_address(hs_[i])),
                    reinterpret_cast<std::uintptr_t>(shared_[i].get()));
      FUZZ_CHECK_EQ("shared_ptr use_count", use_count(hs_[i].object), shared_[i].use_count());
      node* owner = objects_address(ha_[i]);
      FUZZ_CHECK_EQ("alias target", reinterpret_cast<std::uintptr_t>(owner ? &owner->value : nullptr),
                    reinterpret_cast<std::uintptr_t>(alias_[i].get()));
      FUZZ_CHECK_EQ("alias use_count", use_count(ha_[i].object), alias_[i].use_count());
      FUZZ_CHECK_EQ("weak_ptr use_count", alive(hw_[i].object) ? use_count(hw_[i].object) : 0, weak_[i].use_count());
      FUZZ_CHECK_EQ("weak_ptr expired", !alive(hw_[i].object), weak_[i].expired());
      FUZZ_CHECK_EQ("managed_ptr target", reinterpret_cast<std::uintptr_t>(objects_address(hm_[i])),
                    reinterpret_cast<std::uintptr_t>(managed_[i].get()));
    }
  }

  void clear_all() {
    for (int i = 0; i < slots; ++i) {
      shared_[i].reset();
      alias_[i].reset();
      weak_[i].reset();
      managed_[i].reset();
      hs_[i] = ha_[i] = hw_[i] = hm_[i] = {};
    }
  }

  std::size_t step_ = 0;
  std::vector<object_model> objects_;
  // Declared before the handles, so destroyed after them: nothing is out when they go.
  counting_resource upstream_;
  std::unique_ptr<own::pool> block_pool_ = std::make_unique<own::pool>(64, own::pool_options{}, &upstream_);
  std::unique_ptr<own::object_pool<node>> pool_ = std::make_unique<own::object_pool<node>>(
      pool_capacity, own::fixed_capacity, own::constructor_args(-1), [](node& n) { pool_reset(n); });
  own::shared_ptr<node> shared_[slots];
  own::shared_ptr<int> alias_[slots];
  own::weak_ptr<node> weak_[slots];
  own::managed_ptr<node> managed_[slots];
  handle hs_[slots], ha_[slots], hw_[slots], hm_[slots];
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  program p;
  p.run(data, size);
  return 0;
}
