// SPDX-License-Identifier: BSL-1.0
// Component benchmark of <own/shared_ptr.hpp> against std::shared_ptr in the same process: creation
// (make_shared / make_shared_object / adopting a pointer), copies, weak locks, and the floor.
// Row names follow scripts/render_report.py: exp7/<case>/<impl>.
#include <own/shared_ptr.hpp>

#include <memory>

#include "bench_common.hpp"
#include "floor.hpp"

namespace {

struct payload {
  long value = 1;
};

template <class MakeDestroy>
void create_destroy(benchmark::State& state, MakeDestroy&& make) {
  for (auto _ : state) {
    auto p = make();
    benchmark::DoNotOptimize(p.get());
  }
}

// A copy made and dropped per iteration, of a pointer that also has other owners.
template <class Ptr>
void copy_destroy(benchmark::State& state, const Ptr& source) {
  for (auto _ : state) {
    Ptr copy = source;
    benchmark::DoNotOptimize(copy.get());
  }
}

template <class Weak>
void weak_lock(benchmark::State& state, const Weak& weak) {
  for (auto _ : state) {
    auto locked = weak.lock();
    benchmark::DoNotOptimize(locked.get());
  }
}

const own_bench::registration rows([] {
  using own_bench::add;
  add("exp7/make_shared/std", [](benchmark::State& s) { create_destroy(s, [] { return std::make_shared<payload>(); }); });
  add("exp7/make_shared/own", [](benchmark::State& s) { create_destroy(s, [] { return own::make_shared<payload>(); }); });
  add("exp7/make_shared/own_object",
      [](benchmark::State& s) { create_destroy(s, [] { return own::make_shared_object<payload>(); }); });
  add("exp7/make_shared/floor", [](benchmark::State& s) {
    for (auto _ : s) {
      own_bench::floor_ptr<payload> p = own_bench::make_floor<payload>();
      benchmark::DoNotOptimize(p.get());
    }
  });
  add("exp7/adopt_new/std", [](benchmark::State& s) { create_destroy(s, [] { return std::shared_ptr<payload>(new payload); }); });
  add("exp7/adopt_new/own", [](benchmark::State& s) { create_destroy(s, [] { return own::shared_ptr<payload>(new payload); }); });
  add("exp7/make_shared_array/std",
      [](benchmark::State& s) { create_destroy(s, [] { return std::make_shared<long[]>(16); }); });
  add("exp7/make_shared_array/own",
      [](benchmark::State& s) { create_destroy(s, [] { return own::make_shared<long[]>(16); }); });

  add("exp7/copy/std", [](benchmark::State& s) { copy_destroy(s, std::make_shared<payload>()); });
  add("exp7/copy/own", [](benchmark::State& s) { copy_destroy(s, own::make_shared<payload>()); });
  add("exp7/weak_lock/std", [](benchmark::State& s) {
    auto p = std::make_shared<payload>();
    weak_lock(s, std::weak_ptr<payload>(p));
  });
  add("exp7/weak_lock/own", [](benchmark::State& s) {
    auto p = own::make_shared<payload>();
    weak_lock(s, own::weak_ptr<payload>(p));
  });
});

}  // namespace
