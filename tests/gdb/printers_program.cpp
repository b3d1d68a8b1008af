// SPDX-License-Identifier: BSL-1.0
// The program check_printers.py debugs: one of each kind that own's gdb printers show, in known
// states, all alive in main's frame when own_gdb_stop() is called. Built with -O0 -g, and with
// <own/gdb_printers.hpp>, so that gdb loads the printers as a user's program would get them.
#include <own/gdb_printers.hpp>
#include <own/own.hpp>

#include <thread>

#include "proxied_load.hpp"

namespace {

struct counted : own::intrusive_ref_counter<counted> {
  int value = 7;
};

struct point {
  int x;
  int y;
};

}  // namespace

// Where gdb stops; out of line and with a side effect the compiler must keep.
extern "C" [[gnu::noinline]] void own_gdb_stop() { asm volatile(""); }

int main() {
  own::shared_ptr<int> empty;
  own::shared_ptr<int> shared = own::make_shared<int>(42);
  own::shared_ptr<int> copy = shared;
  own::weak_ptr<int> weak = shared;
  own::weak_ptr<int> expired = own::make_shared<int>(1);
  own::shared_ptr<point> pt = own::make_shared<point>(point{1, 2});
  own::shared_ptr<int[]> array = own::make_shared<int[]>(3);

  own::managed_ptr<int> managed = own::make_managed<int>(5);
  own::managed_ptr<int> empty_managed;

  own::local_shared_ptr<int> local = own::make_local_shared<int>(9);
  own::local_shared_ptr<int> local_copy = local;
  own::local_weak_ptr<int> local_weak = local;

  own::intrusive_ptr<counted> intrusive(new counted);
  own::intrusive_ptr<counted> intrusive_copy = intrusive;

  own::atomic_shared_ptr<int> atomic(shared);
  own::atomic_shared_ptr<int> atomic_empty;
  own::atomic_weak_ptr<int> atomic_weak(weak);
  own::snapshot_ptr<int> snapshot = atomic.snapshot();
#if __cplusplus >= 202002L
  std::atomic<own::shared_ptr<int>> std_atomic(own::make_shared<int>(11));  // libc++: std::__1::atomic
#endif
  // Copies loaded through this thread's load proxy (detail/load_proxy.hpp), whose block is not the
  // value's: use_count() counts the value's owners all the same. Only a multi-threaded process arms
  // a proxy, after a few loads of one value.
  std::thread([] {}).join();
  own::shared_ptr<int> stored = own::make_shared<int>(13);
  own::atomic_shared_ptr<int> reloaded(stored);
  own::shared_ptr<int> proxied = own_test::load_until_proxied(reloaded);
  [[maybe_unused]] const bool loaded_through_proxy = own_test::proxied(proxied);
  own::shared_ptr<int> proxied_copy = proxied;

  own::pool pool(64);
  void* a = pool.allocate();
  void* b = pool.allocate();
  void* c = pool.allocate();
  pool.deallocate(b);
  void* large = pool.allocate(100);  // no block fits: upstream, counted
  own::concurrent_pool concurrent(32);
  void* d = concurrent.allocate();
  void* e = concurrent.allocate();
  own::multipool multi(256);
  void* f = multi.allocate(40);
  void* beyond = multi.allocate(300);
  void* g = multi.allocate(200);
  own::concurrent_multipool concurrent_multi(64);
  void* h = concurrent_multi.allocate(16);
  own::object_pool<int> objects(4);
  own::managed_ptr<int> object = objects.acquire();
  own::concurrent_object_pool<point> concurrent_objects(2, [] { return point{3, 4}; });
  own::shared_ptr<point> concurrent_object = concurrent_objects.acquire_shared();

  own_gdb_stop();

  concurrent_multi.deallocate(h, 16);
  multi.deallocate(g, 200);
  multi.deallocate(beyond, 300);
  multi.deallocate(f, 40);
  concurrent.deallocate(e);
  concurrent.deallocate(d);
  pool.deallocate(large, 100);
  pool.deallocate(c);
  pool.deallocate(a);
  return 0;
}
