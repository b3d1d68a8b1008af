// SPDX-License-Identifier: BSL-1.0
// Shared plumbing for own's benchmarks (see scripts/render_report.py for the row-naming convention).
//
//  - Row names are "exp<N>/<case>/<impl>[/<param>...]"; the renderer computes every row's ratio to the
//    "std" row and to the "floor" row with the same experiment, case and params.
//  - A row whose own counterpart has not landed yet is still registered, through missing(): it stops
//    with the error "not yet available: <header> (issue open)" and the report lists it as such.
//  - OWN_BENCH_QUICK=1 in the environment (scripts/report.sh --quick) scales fixed workloads down.
#pragma once

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdlib>
#include <string>
#include <utility>

namespace own_bench {

// True when scripts/report.sh runs in --quick mode: fixed-size workloads shrink.
inline bool quick() {
  static const bool q = [] {
    const char* v = std::getenv("OWN_BENCH_QUICK");
    return v != nullptr && *v != '\0' && *v != '0';
  }();
  return q;
}

// A workload size: `full` normally, `small` in quick mode.
template <class N>
N scaled(N full, N small) {
  return quick() ? small : full;
}

// Registers a row; every row reports nanoseconds.
template <class F>
benchmark::internal::Benchmark* add(const std::string& name, F&& f) {
  return benchmark::RegisterBenchmark(name.c_str(), std::forward<F>(f))->Unit(benchmark::kNanosecond);
}

// Registers a row whose own counterpart is missing: it reports an error naming the header awaited.
inline benchmark::internal::Benchmark* missing(const std::string& name, const char* header) {
  const std::string message = std::string("not yet available: <") + header + "> (issue open)";
  return benchmark::RegisterBenchmark(name.c_str(), [message](benchmark::State& state) {
           state.SkipWithError(message.c_str());
           for (auto _ : state) {
           }
         })
      ->Iterations(1)
      ->Repetitions(1);
}

// Runs `registrar` once at static-initialisation time (before benchmark_main parses the flags).
struct registration {
  template <class F>
  explicit registration(F&& registrar) {
    std::forward<F>(registrar)();
  }
};

// Keeps the optimiser from dropping a value or the stores behind a pointer.
template <class T>
inline void keep(T&& value) {
  benchmark::DoNotOptimize(value);
}

}  // namespace own_bench
