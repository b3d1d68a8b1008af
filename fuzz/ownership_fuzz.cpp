// SPDX-License-Identifier: BSL-1.0
// libFuzzer target: reads its input as a program of operations over a handful of own::shared_ptr,
// weak_ptr, managed_ptr, local_shared_ptr, intrusive_ptr and object-pool handles, runs each one, and
// after every step checks the real state against a small reference model: which objects are alive,
// every pointer's target and use count (a local group's too), weak expiry, each object's
// enable_shared_from_this hook, pool availability, and the blocks every allocator has out.
//
// Build (alone, from include/ only):
//   clang++-14 -std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined -I include fuzz/ownership_fuzz.cpp -o ownership_fuzz
// Run:
//   ./ownership_fuzz fuzz/corpus/ownership -max_total_time=60     (or: fuzz/run.sh 60 ownership)
//
// The blocks come from a counting allocator, an own::pool, a std::pmr::memory_resource or an
// own::multipool given as the allocator (the pool's and the multipool's chunks, and the resource's
// blocks, come from the same count), from the default heap, or from an object pool's slots. Objects
// are single nodes, arrays of them (U[] and U[N], held through an aliasing shared_ptr to the first
// element), or intrusively counted nodes.
//
// Program encoding: each operation is 3 bytes, [opcode, a, b]; a and b pick slots (mod the slot
// count); the opcode is taken mod 43 (see apply()). An operation that std or own says throws is run
// and must throw, leaving the model's state as the library documents (strong guarantee, or the
// adopted pointer deleted).
#include <own/intrusive_ptr.hpp>
#include <own/local_shared_ptr.hpp>
#include <own/managed_ptr.hpp>
#include <own/multipool.hpp>
#include <own/object_pool.hpp>
#include <own/pool.hpp>
#include <own/shared_ptr.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>
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

std::vector<signed char> g_alive;  // by node id: 1 alive, 0 gone; a second destruction aborts
int g_next_element = -1;           // the id of the next array element made, or -1 (a pool's idle object)

void born(int id) {
  if (id >= 0) g_alive[static_cast<std::size_t>(id)] = 1;
}
void died(int id) {
  if (id < 0) return;  // a pool's idle object
  if (g_alive[static_cast<std::size_t>(id)] != 1) fail("object destroyed twice", 1, g_alive[static_cast<std::size_t>(id)], 0);
  g_alive[static_cast<std::size_t>(id)] = 0;
}

struct node : own::enable_shared_from_this<node> {
  // Array elements are default-constructed.
  node() : node(g_next_element >= 0 ? g_next_element++ : -1) {}
  explicit node(int node_id) : id(node_id) { born(id); }
  node(const node&) = delete;
  node& operator=(const node&) = delete;
  ~node() { died(id); }
  int id;
  int value = 0;  // what aliases point at
};

// The intrusively counted kind.
struct inode : own::intrusive_ref_counter<inode> {
  explicit inode(int node_id) : id(node_id) { born(id); }
  inode(const inode&) = delete;
  inode& operator=(const inode&) = delete;
  ~inode() { died(id); }
  int id;
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

// Where an object's block (control block, housing block, or intrusive allocation) came from.
enum class source { none, counting, block_pool, pmr, multipool };

struct object_model {
  void* address = nullptr;  // the node, or an array's first element, or the inode
  bool counted = false;     // owned through a control block (use counts apply)
  bool pool_slot = false;   // acquire_shared: its block is the pool's slot, kept out while weak refs last
  bool from_pool = false;   // goes back to the pool, not destroyed
  source block = source::none;
  int first_node = 0;  // node ids first_node ... first_node + extent - 1
  int extent = 1;
  bool array = false;      // owned as U[] or U[N]: no enable_shared_from_this hook
  bool intrusive = false;  // an inode, counted by intrusive_ptr handles only
};

struct handle {
  int object = -1;  // -1: empty
};
// A local_shared_ptr: its object, and the group it was copied within (-1: empty).
struct local_handle {
  int object = -1;
  int group = -1;
};

class program {
 public:
  program() {
    g_alive.clear();
    g_blocks = {};
    g_next_element = -1;
  }

  void run(const std::uint8_t* data, std::size_t size) {
    for (std::size_t i = 0; i + 3 <= size && step_ < 2000; i += 3, ++step_) {
      apply(data[i], data[i + 1] % slots, data[i + 2] % slots);
      check();
    }
    clear_all();
    check();
    FUZZ_CHECK_EQ("blocks left at the end", upstream_chunks(), g_blocks.in_use);
    FUZZ_CHECK_EQ("multipool blocks left at the end", 0, multipool_->statistics().blocks_in_use);
  }

  ~program() { clear_all(); }

 private:
  // -- operations --------------------------------------------------------------------------------
  void apply(std::uint8_t op, int a, int b) {
    switch (op % 43) {
      case 0: {  // allocate_shared
        const int id = new_object(true, false, false, source::counting);
        shared_[a] = own::allocate_shared<node>(counting_allocator<node>(), node_of(id));
        finish_make(id, shared_[a].get(), hs_[a]);
        break;
      }
      case 1: {  // adopt a new-ed pointer, block from the allocator; if that fails the node is deleted
        const int id = new_object(true, false, false, source::counting);
        node* raw = new node(node_of(id));
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
          o.block = source::counting;
        }
        hm_[b] = {};
        hs_[a] = h;
        break;
      }
      case 15: {  // make_managed (housed in a block: counted)
        const int id = new_object(true, false, false, source::counting);
        managed_[a] = own::allocate_managed<node>(counting_allocator<node>(), node_of(id));
        finish_make(id, managed_[a].get(), hm_[a]);
        break;
      }
      case 16: {  // managed_ptr from new
        const int id = new_object(false, false, false, source::none);
        managed_[a] = own::managed_ptr<node>(new node(node_of(id)));
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
      case 23: make_shared_from(a, block_pool_.get(), source::block_pool); break;
      case 24: shared_[a].swap(shared_[b]); std::swap(hs_[a], hs_[b]); break;
      case 25: make_shared_from(a, static_cast<std::pmr::memory_resource*>(&pmr_), source::pmr); break;
      case 26: make_shared_from(a, multipool_.get(), source::multipool); break;
      case 27: make_array<node[]>(a, counting_allocator<node>(), source::counting, 1 + b % 3); break;
      case 28: make_array<node[2]>(a, nullptr, source::none, 2); break;  // the default heap
      case 29: make_array<node[]>(a, multipool_.get(), source::multipool, 1 + b % 3); break;
      case 30:  // shared_from_this(): shares the owner of a hooked object, throws for any other
        if (node* n = shared_[b].get()) {
          const handle h = hs_[b];
          const bool hooked = is_hooked(h.object);
          const bool threw = expect_throw<std::bad_weak_ptr>([&] { shared_[a] = n->shared_from_this(); });
          FUZZ_CHECK_EQ("shared_from_this() threw iff not hooked", !hooked, threw);
          if (!threw) hs_[a] = h;
        }
        break;
      case 31:  // weak_from_this()
        if (node* n = shared_[b].get()) {
          weak_[a] = n->weak_from_this();
          hw_[a] = is_hooked(hs_[b].object) ? hs_[b] : handle{};
        }
        break;
      case 32: {  // a local group from allocate_local_shared
        const int id = new_object(true, false, false, source::counting);
        if (expect_throw<std::bad_alloc>([&] { local_[a] = own::allocate_local_shared<node>(counting_allocator<node>(), node_of(id)); })) {
          objects_[static_cast<std::size_t>(id)].counted = false;  // never made
          return;
        }
        objects_[static_cast<std::size_t>(id)].address = local_[a].get();
        hl_[a] = {id, next_group_++};
        break;
      }
      case 33: local_[a] = local_[b]; hl_[a] = hl_[b]; break;
      case 34: local_[a].reset(); hl_[a] = {}; break;
      case 35:  // a local group from a shared_ptr: a new group holding one shared reference
        local_[a] = own::local_shared_ptr<node>(shared_[b]);
        hl_[a] = hs_[b].object >= 0 ? local_handle{hs_[b].object, next_group_++} : local_handle{};
        break;
      case 36: shared_[a] = local_[b]; hs_[a].object = hl_[b].object; break;
      case 37: weak_[a] = local_[b]; hw_[a].object = hl_[b].object; break;
      case 38: {  // allocate_intrusive, from the counting allocator or the pmr resource
        const source from = b % 2 ? source::counting : source::pmr;
        const int id = new_object(false, false, false, from);
        objects_[static_cast<std::size_t>(id)].intrusive = true;
        const bool threw = expect_throw<std::bad_alloc>([&] {
          intrusive_[a] = from == source::counting ? own::allocate_intrusive<inode>(counting_allocator<inode>(), node_of(id))
                                                   : own::allocate_intrusive<inode>(static_cast<std::pmr::memory_resource*>(&pmr_), node_of(id));
        });
        if (threw) {
          objects_[static_cast<std::size_t>(id)].block = source::none;  // never made
          return;
        }
        finish_make(id, intrusive_[a].get(), hi_[a]);
        break;
      }
      case 39: intrusive_[a] = intrusive_[b]; hi_[a] = hi_[b]; break;
      case 40: intrusive_[a].reset(); hi_[a] = {}; break;
      case 41:  // from the raw pointer: one more reference
        intrusive_[a] = own::intrusive_ptr<inode>(intrusive_[b].get());
        hi_[a] = hi_[b];
        break;
      default: {  // make_intrusive: plain new
        const int id = new_object(false, false, false, source::none);
        objects_[static_cast<std::size_t>(id)].intrusive = true;
        intrusive_[a] = own::make_intrusive<inode>(node_of(id));
        finish_make(id, intrusive_[a].get(), hi_[a]);
        break;
      }
    }
    g_blocks.fail_next = false;  // an armed failure lasts one operation
  }

  // allocate_shared<node> with `alloc` (a pool or resource pointer); the allocation may fail.
  template <class Alloc>
  void make_shared_from(int a, Alloc alloc, source from) {
    const int id = new_object(true, false, false, from);
    if (expect_throw<std::bad_alloc>([&] { shared_[a] = own::allocate_shared<node>(alloc, node_of(id)); })) {
      objects_[static_cast<std::size_t>(id)].counted = false;  // never made
      return;
    }
    finish_make(id, shared_[a].get(), hs_[a]);
  }

  // An array of `n` nodes (make_shared<Array>() if `alloc` is nullptr, else allocate_shared), held
  // in shared_[a] by an alias to its first element.
  template <class Array, class Alloc>
  void make_array(int a, Alloc alloc, source from, int n) {
    const int id = new_object(true, false, false, from, n);
    objects_[static_cast<std::size_t>(id)].array = true;
    g_next_element = node_of(id);
    own::shared_ptr<Array> array;
    bool threw;
    if constexpr (std::is_same_v<Alloc, std::nullptr_t>) {
      threw = expect_throw<std::bad_alloc>([&] { array = own::make_shared<Array>(); });
    } else if constexpr (std::extent_v<Array> == 0) {
      threw = expect_throw<std::bad_alloc>([&] { array = own::allocate_shared<Array>(alloc, static_cast<std::size_t>(n)); });
    } else {
      threw = expect_throw<std::bad_alloc>([&] { array = own::allocate_shared<Array>(alloc); });
    }
    FUZZ_CHECK_EQ("array elements made", threw ? node_of(id) : node_of(id) + n, g_next_element);
    g_next_element = -1;
    if (threw) {
      objects_[static_cast<std::size_t>(id)].counted = false;  // never made
      return;
    }
    shared_[a] = own::shared_ptr<node>(array, &array[0]);
    finish_make(id, shared_[a].get(), hs_[a]);
  }

  void acquire(int a, bool shared) {
    const std::size_t out = pool_->capacity() - pool_->available();
    const bool exhausted = out == pool_capacity;
    const int id = new_object(shared, shared, true, source::none);
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
    n->id = node_of(id);
    g_alive[static_cast<std::size_t>(n->id)] = 1;
    object_model& o = objects_[static_cast<std::size_t>(id)];
    o.address = n;
    o.counted = shared;
    (shared ? hs_[a] : hm_[a]).object = id;
  }

  int new_object(bool counted, bool pool_slot, bool from_pool, source block, int extent = 1) {
    const int id = static_cast<int>(objects_.size());
    objects_.push_back(object_model{nullptr, counted, pool_slot, from_pool, block, static_cast<int>(g_alive.size()), extent});
    g_alive.resize(g_alive.size() + static_cast<std::size_t>(extent), 0);
    return id;
  }
  int node_of(int id) const { return objects_[static_cast<std::size_t>(id)].first_node; }
  template <class H>
  void finish_make(int id, void* address, H& h) {
    objects_[static_cast<std::size_t>(id)].address = address;
    h.object = id;
  }
  std::size_t upstream_chunks() const { return static_cast<std::size_t>(upstream_.chunks + pmr_.chunks); }
  void* objects_address(handle h) const { return h.object >= 0 ? objects_[static_cast<std::size_t>(h.object)].address : nullptr; }
  template <class T>
  static std::uintptr_t address_of(const T* p) {
    return reinterpret_cast<std::uintptr_t>(p);
  }

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
  // Shared references: shared and alias handles, managed handles of a counted object, and one per
  // local group.
  long use_count(int id) const {
    if (id < 0) return 0;
    long n = 0;
    for (int i = 0; i < slots; ++i) n += (hs_[i].object == id) + (ha_[i].object == id);
    if (objects_[static_cast<std::size_t>(id)].counted) {
      for (int i = 0; i < slots; ++i) n += hm_[i].object == id;
    }
    for (int i = 0; i < slots; ++i) {
      bool first_of_group = hl_[i].object == id;
      for (int j = 0; j < i; ++j) first_of_group = first_of_group && hl_[j].group != hl_[i].group;
      n += first_of_group;
    }
    return n;
  }
  long local_count(const local_handle& h) const {
    long n = 0;
    for (int i = 0; i < slots; ++i) n += h.group >= 0 && hl_[i].group == h.group;
    return n;
  }
  long intrusive_count(int id) const {
    long n = 0;
    for (int i = 0; i < slots; ++i) n += hi_[i].object == id;
    return n;
  }
  long weak_count(int id) const {
    long n = 0;
    for (int i = 0; i < slots; ++i) n += hw_[i].object == id;
    return n;
  }
  bool alive(int id) const {
    if (id < 0) return false;
    const object_model& o = objects_[static_cast<std::size_t>(id)];
    if (o.intrusive) return intrusive_count(id) > 0;
    if (o.counted) return use_count(id) > 0;
    for (int i = 0; i < slots; ++i) {
      if (hm_[i].object == id) return true;
    }
    return false;
  }
  // Whether the object's enable_shared_from_this base knows its owner: every single object that is
  // owned through a control block (arrays' elements never are).
  bool is_hooked(int id) const {
    if (id < 0) return false;
    const object_model& o = objects_[static_cast<std::size_t>(id)];
    return o.counted && !o.array && alive(id);
  }

  void check() {
    long blocks[5] = {};  // by source
    std::size_t pool_out = 0;
    for (std::size_t id = 0; id < objects_.size(); ++id) {
      const object_model& o = objects_[id];
      const bool live = alive(static_cast<int>(id));
      for (int k = 0; k < o.extent; ++k) FUZZ_CHECK_EQ("object alive", live, g_alive[static_cast<std::size_t>(o.first_node + k)] == 1);
      const bool block_kept = o.intrusive ? live : o.counted && (live || weak_count(static_cast<int>(id)) > 0);
      if (block_kept) ++blocks[static_cast<int>(o.block)];
      if (o.from_pool && (live || (o.pool_slot && block_kept))) ++pool_out;
      if (live && !o.intrusive) {
        for (int k = 0; k < o.extent; ++k) {
          const own::weak_ptr<node> hook = (static_cast<node*>(o.address) + k)->weak_from_this();
          const bool hooked = is_hooked(static_cast<int>(id));
          FUZZ_CHECK_EQ("enable_shared_from_this hooked", hooked, !hook.expired());
          if (hooked) FUZZ_CHECK_EQ("weak_from_this() use_count", use_count(static_cast<int>(id)), hook.use_count());
        }
      }
    }
    FUZZ_CHECK_EQ("counting allocator blocks in use", blocks[static_cast<int>(source::counting)] + static_cast<long>(upstream_chunks()),
                  g_blocks.in_use);
    FUZZ_CHECK_EQ("own::pool blocks in use", blocks[static_cast<int>(source::block_pool)], block_pool_->statistics().blocks_in_use);
    FUZZ_CHECK_EQ("pmr resource blocks in use", blocks[static_cast<int>(source::pmr)], pmr_.chunks);
    FUZZ_CHECK_EQ("multipool blocks in use", blocks[static_cast<int>(source::multipool)], multipool_->statistics().blocks_in_use);
    FUZZ_CHECK_EQ("pool objects out", pool_out, pool_->capacity() - pool_->available());
    FUZZ_CHECK_EQ("pool capacity", pool_capacity, pool_->capacity());
    for (int i = 0; i < slots; ++i) {
      FUZZ_CHECK_EQ("shared_ptr target", address_of(objects_address(hs_[i])), address_of(shared_[i].get()));
      FUZZ_CHECK_EQ("shared_ptr use_count", use_count(hs_[i].object), shared_[i].use_count());
      auto* owner = static_cast<node*>(objects_address(ha_[i]));
      FUZZ_CHECK_EQ("alias target", address_of(owner ? &owner->value : nullptr), address_of(alias_[i].get()));
      FUZZ_CHECK_EQ("alias use_count", use_count(ha_[i].object), alias_[i].use_count());
      FUZZ_CHECK_EQ("weak_ptr use_count", alive(hw_[i].object) ? use_count(hw_[i].object) : 0, weak_[i].use_count());
      FUZZ_CHECK_EQ("weak_ptr expired", !alive(hw_[i].object), weak_[i].expired());
      FUZZ_CHECK_EQ("managed_ptr target", address_of(objects_address(hm_[i])), address_of(managed_[i].get()));
      FUZZ_CHECK_EQ("local_shared_ptr target", address_of(objects_address(handle{hl_[i].object})), address_of(local_[i].get()));
      FUZZ_CHECK_EQ("local_shared_ptr use_count", local_count(hl_[i]), local_[i].use_count());
      FUZZ_CHECK_EQ("intrusive_ptr target", address_of(objects_address(hi_[i])), address_of(intrusive_[i].get()));
      if (intrusive_[i]) FUZZ_CHECK_EQ("intrusive use_count", intrusive_count(hi_[i].object), intrusive_[i]->use_count());
    }
  }

  void clear_all() {
    for (int i = 0; i < slots; ++i) {
      shared_[i].reset();
      alias_[i].reset();
      weak_[i].reset();
      managed_[i].reset();
      local_[i].reset();
      intrusive_[i].reset();
      hs_[i] = ha_[i] = hw_[i] = hm_[i] = hi_[i] = {};
      hl_[i] = {};
    }
  }

  std::size_t step_ = 0;
  int next_group_ = 0;
  std::vector<object_model> objects_;
  // Declared before the handles, so destroyed after them: nothing is out when they go.
  counting_resource upstream_;
  counting_resource pmr_;  // given as the allocator itself
  std::unique_ptr<own::pool> block_pool_ = std::make_unique<own::pool>(64, own::pool_options{}, &upstream_);
  std::unique_ptr<own::multipool> multipool_ = std::make_unique<own::multipool>(256, own::pool_options{}, &upstream_);
  std::unique_ptr<own::object_pool<node>> pool_ = std::make_unique<own::object_pool<node>>(
      pool_capacity, own::fixed_capacity, own::constructor_args(-1), [](node& n) { pool_reset(n); });
  own::shared_ptr<node> shared_[slots];
  own::shared_ptr<int> alias_[slots];
  own::weak_ptr<node> weak_[slots];
  own::managed_ptr<node> managed_[slots];
  own::local_shared_ptr<node> local_[slots];
  own::intrusive_ptr<inode> intrusive_[slots];
  handle hs_[slots], ha_[slots], hw_[slots], hm_[slots], hi_[slots];
  local_handle hl_[slots];
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  program p;
  p.run(data, size);
  return 0;
}
