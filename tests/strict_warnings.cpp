// SPDX-License-Identifier: BSL-1.0
// A user's translation unit built with strict warnings and -Werror (see tests/CMakeLists.txt): own's
// headers, with the main templates instantiated, must not warn where they are included with -I
// rather than as system headers. Compiling is the test; main() only keeps the instantiations.
#include <own/atomic_shared_ptr.hpp>
#include <own/concurrent_pool.hpp>
#include <own/gdb_printers.hpp>
#include <own/heap.hpp>
#include <own/intrusive_ptr.hpp>
#include <own/local_shared_ptr.hpp>
#include <own/managed_ptr.hpp>
#include <own/multipool.hpp>
#include <own/object_pool.hpp>
#include <own/own.hpp>
#include <own/pool.hpp>
#include <own/pool_allocator.hpp>
#include <own/pool_options.hpp>
#include <own/shared_ptr.hpp>
#include <own/version.hpp>

#include <list>
#include <memory>
#include <memory_resource>
#include <string>
#include <vector>

namespace {

struct widget : own::enable_shared_from_this<widget> {
  widget() = default;
  explicit widget(int v) : value(v) {}
  int value = 0;
};

struct counted : own::intrusive_ref_counter<counted> {
  explicit counted(int v) : value(v) {}
  int value;
};

struct buffer {
  std::vector<char> bytes = std::vector<char>(16);
  void reset() { bytes.assign(bytes.size(), 0); }
};

struct item_pool {
  std::vector<widget*> returned{};
};
void reclaim_managed_object(item_pool* pool, widget* p) { pool->returned.push_back(p); }

int shared_pointers() {
  std::pmr::monotonic_buffer_resource arena;
  own::shared_ptr<widget> a = own::make_shared<widget>(1);
  own::shared_ptr<widget> b = own::allocate_shared<widget>(std::allocator<widget>(), 2);
  own::shared_ptr<widget> c(new widget(3), std::default_delete<widget>(), std::allocator<int>());
  own::shared_ptr<widget> d(new widget(4), std::default_delete<widget>(), &arena);
  own::shared_ptr<widget> e(std::unique_ptr<widget>(new widget(5)));
  own::shared_ptr<int[]> f = own::make_shared<int[]>(3, 7);
  own::shared_ptr<int[4]> g = own::allocate_shared<int[4]>(std::allocator<int>());
  own::shared_ptr<double[]> h = own::make_shared_for_overwrite<double[]>(2);
  own::shared_ptr<int[]> i = own::make_shared_array_with_alloc<int>(&arena, 4);
  own::weak_ptr<widget> w = a;
  own::shared_ptr<widget> locked = w.lock();
  own::shared_ptr<const widget> from_this = locked->shared_from_this();
  own::shared_ptr<void> erased = own::static_pointer_cast<void>(b);
  own::shared_ptr<widget> back = own::static_pointer_cast<widget>(erased);
  own::owner_less<> less;
  const bool ordered = less(a, w) || less(w, a) || a.owner_equal(w);
  const std::size_t hashed = std::hash<own::shared_ptr<widget>>()(a) ^ own::owner_hash()(w);
  return a->value + back->value + c->value + d->value + e->value + f[2] + g[3] + static_cast<int>(h.use_count()) +
         i[0] + from_this->value + static_cast<int>(ordered) + static_cast<int>(hashed & 1U);
}

int atomic_pointers() {
  own::atomic_shared_ptr<widget> current(own::make_shared<widget>(6));
  own::shared_ptr<widget> seen = current.load();
  current.store(own::make_shared<widget>(seen->value + 1));
  own::shared_ptr<widget> next = own::make_shared<widget>(8);
  seen = current.load(std::memory_order_acquire);
  const bool swapped = current.compare_exchange_strong(seen, next);
  own::shared_ptr<widget> old = current.exchange(nullptr);
#if __cplusplus >= 202002L
  std::atomic<own::shared_ptr<widget>> standard_spelling(own::make_shared<widget>(9));
  seen = standard_spelling.load();
#endif
  return old->value + seen->value + static_cast<int>(swapped);
}

int other_pointers() {
  own::local_shared_ptr<std::string> name = own::make_local_shared<std::string>("sensor");
  own::local_weak_ptr<std::string> watcher = name;
  own::shared_ptr<std::string> shared = name;
  own::intrusive_ptr<counted> list = own::make_intrusive<counted>(1);
  own::intrusive_ptr<counted> second = own::allocate_intrusive<counted>(std::pmr::new_delete_resource(), 2);
  item_pool manager;
  widget pooled(10);
  own::managed_ptr<widget> managed(&pooled, &manager);
  own::managed_ptr<widget> made = own::make_managed<widget>(11);
  own::shared_ptr<widget> from_managed = std::move(made);
  own::managed_ptr<widget> from_shared = from_managed;
  return static_cast<int>(watcher.lock()->size() + shared->size()) + list->value + second->value + managed->value +
         from_shared->value;
}

int pools() {
  own::pool_options options;
  options.growth = own::pool_growth::constant;
  options.initial_chunk_blocks = 8;
  own::pool pool(64, options);
  void* a = pool.allocate();
  pool.deallocate(a);
  own::concurrent_pool shared_pool(32);
  void* b = shared_pool.allocate();
  shared_pool.deallocate(b);
  own::multipool classes(256);
  void* c = classes.allocate(24);
  classes.deallocate(c, 24);
  own::concurrent_multipool shared_classes(128);
  void* d = shared_classes.allocate(40);
  shared_classes.deallocate(d, 40);
  std::list<int, own::pool_allocator<int, own::pool>> list{own::pool_allocator<int, own::pool>(&pool)};
  list.push_back(1);
  std::pmr::vector<int> vector({1, 2, 3}, &pool);
  own::shared_ptr<widget> pooled = own::allocate_shared<widget>(&shared_pool, 12);
  own::object_pool<buffer> buffers(4, own::fixed_capacity, {}, own::call_reset);
  own::concurrent_object_pool<widget> widgets(2, own::constructor_args(7));
  own::object_pool<widget> made_widgets(1, [] { return widget(5); }, [](widget& w) { w.value = 0; });
  own::managed_ptr<buffer> first = buffers.acquire();
  own::shared_ptr<buffer> second = buffers.acquire_shared();
  own::shared_ptr<widget> third = widgets.acquire_shared();
  return static_cast<int>(pool.statistics().blocks_in_use + buffers.available()) + list.front() + vector[2] +
         pooled->value + first->bytes[0] + second->bytes[1] + third->shared_from_this()->value +
         made_widgets.acquire()->value;
}

}  // namespace

int default_heap() {
  std::vector<int, own::heap_allocator<int>> v{1, 2, 3};
  std::list<std::string, own::heap_allocator<std::string>> l{"a"};
  own::heap::trim();
  return v[2] + static_cast<int>(l.size() + own::heap::current_statistics().orphaned_pages +
                                 own::heap::block_size(40) + own::heap::uses_operator_new());
}

int main() { return shared_pointers() + atomic_pointers() + other_pointers() + pools() + default_heap() > 0 ? 0 : 1; }
