// SPDX-License-Identifier: BSL-1.0
// The program proxy_exit.gdb runs, to put a store at one exact point of another thread's exit: a
// thread loads through its load proxy, drops every copy and exits; gdb stops it in its exit cleanup
// (load_proxies::leave: at its start, or in the release of the proxy's standing reference) and lets
// only the main thread run, which stores nullptr into the atomic, the value's only owner then, and
// later writes once more. The value must never be destroyed by the exiting thread, and the store
// must release it unless it met the exit within its release (then the later write does). Prints what
// it saw, for the tests' regular expressions. Built with -O0 -g, without sanitizers.
#include <own/atomic_shared_ptr.hpp>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>

#include "proxied_load.hpp"

namespace {

std::atomic<int> live{0};
std::thread::id main_thread;
std::atomic<bool> destroyed_on_main{false};

struct tracked {
  tracked() noexcept { ++live; }
  tracked(const tracked&) = delete;
  tracked& operator=(const tracked&) = delete;
  ~tracked() {
    destroyed_on_main = std::this_thread::get_id() == main_thread;
    --live;
  }
};

}  // namespace

volatile int exiting_thread_stopped = 0;  // set by gdb, with the loading thread stopped in its exit

// Where gdb stops once the main thread has printed; out of line and with a side effect to keep.
extern "C" [[gnu::noinline]] void own_gdb_stored() { asm volatile(""); }

int main() {
  main_thread = std::this_thread::get_id();
  std::thread([] {}).join();  // only a multi-threaded process arms a proxy
  own::atomic_shared_ptr<tracked> a(own::make_shared<tracked>());
  const own::weak_ptr<tracked> w = a.load();
  std::atomic<bool> proxied{false};
  std::atomic<bool> dropped{false};
  std::thread loader([&] {
    own::shared_ptr<tracked> p = own_test::load_until_proxied(a);
    proxied = own_test::proxied(p);
    p.reset();
    dropped = true;
  });
  while (!dropped) {
  }
  // Bounded, so that a run where gdb never stops the loader fails instead of hanging.
  for (const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
       exiting_thread_stopped == 0 && std::chrono::steady_clock::now() < until;) {
  }
  a.store(nullptr);
  std::printf("stopped %d, proxied %d, after the store: expired %d, live %d\n", exiting_thread_stopped,
              static_cast<int>(proxied.load()), static_cast<int>(w.expired()), live.load());
  std::fflush(stdout);
  own_gdb_stored();
  loader.join();
  a.store(nullptr);
  std::printf("after a later write: live %d, destroyed on the main thread %d\n", live.load(),
              static_cast<int>(destroyed_on_main.load()));
  return 0;
}
