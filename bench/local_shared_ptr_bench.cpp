// SPDX-License-Identifier: BSL-1.0
// A copy and a destruction of a thread-confined shared pointer: own::local_shared_ptr (plain
// counts) against std::shared_ptr and own::shared_ptr (atomic counts), and the conversions between
// a local group and own::shared_ptr.
//   exp6/local_copy_destroy/<impl>              copy a pointer, drop the copy
//   exp6/local_to_shared/own_local              local_shared_ptr -> own::shared_ptr, dropped
//   exp6/local_make/<impl>                      make_shared / make_local_shared, dropped
#include <memory>

#include "bench_common.hpp"

#include <own/local_shared_ptr.hpp>

namespace {

using own_bench::keep;

struct item {
  long a = 1;
};

template <class Ptr>
void copy_destroy(benchmark::State& state, Ptr p) {
  for (auto _ : state) {
    Ptr copy = p;
    keep(copy);
  }
  state.SetItemsProcessed(state.iterations());
}

void local_to_shared(benchmark::State& state) {
  auto p = own::make_local_shared<item>();
  for (auto _ : state) keep(own::shared_ptr<item>(p));
  state.SetItemsProcessed(state.iterations());
}

template <class Make>
void make(benchmark::State& state, Make make) {
  for (auto _ : state) keep(make());
  state.SetItemsProcessed(state.iterations());
}

const own_bench::registration registered([] {
  own_bench::add("exp7/local_copy_destroy/std", [](benchmark::State& s) { copy_destroy(s, std::make_shared<item>()); });
  own_bench::add("exp7/local_copy_destroy/own", [](benchmark::State& s) { copy_destroy(s, own::make_shared<item>()); });
  own_bench::add("exp7/local_copy_destroy/own_local",
                 [](benchmark::State& s) { copy_destroy(s, own::make_local_shared<item>()); });
  own_bench::add("exp7/local_to_shared/own_local", local_to_shared);
  own_bench::add("exp7/local_make/std", [](benchmark::State& s) { make(s, [] { return std::make_shared<item>(); }); });
  own_bench::add("exp7/local_make/own", [](benchmark::State& s) { make(s, [] { return own::make_shared<item>(); }); });
  own_bench::add("exp7/local_make/own_local",
                 [](benchmark::State& s) { make(s, [] { return own::make_local_shared<item>(); }); });
});

}  // namespace
