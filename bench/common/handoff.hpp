// SPDX-License-Identifier: BSL-1.0
// Cross-thread hand-off: the benchmark thread makes objects and pushes them through a bounded
// single-producer single-consumer ring; a second thread pops and drops them. Used by the "made on
// one thread, dropped on the other" rows.
//
// The ring must cost little beside what it carries, or every row measures the ring and the ratios
// between rows shrink towards 1 (exp6's small items showed it: own's pooled row was within 20% of the
// floor, and the floor itself only ~2x faster than std). So each side keeps its own copy of the
// other side's index and rereads the shared one only when the ring looks full (producer) or empty
// (consumer): one cache-line transfer per lap instead of two per item. A side that finds the ring
// empty (full) rereads the other's index as it waits, and each reread takes that line from the
// working side: published at every item, the index then moved between the cores at every item, and
// the waiting side set the pace (on 2 cores, both threads spent more than half their time waiting,
// and a row's median moved 5x between runs). So each side publishes its index once per 32 items, and
// before it waits. And the ring holds 1024 items,
// so that when the two threads share one CPU (a busy 2-vCPU machine) a switch between them is paid
// once per 1024 items, not per 256.
//
// The hand-off floor (run_handoff_floor) is the same work on one thread: make, push, pop, drop. A
// floor timed as a hand-off of its own would not be one: with nothing to do between pushes its two
// threads meet at the ring's ends on every item, and rows that do more were measured below it (issue
// #15). What every hand-off must run is those four steps with the cheapest allocation; two threads can
// at best split them evenly, so half that one-thread time is the least wall time per item.
#pragma once

#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstddef>
#include <new>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "bench_common.hpp"

namespace own_bench {

// Items per hand-off row and repetition: a fixed count, because the cost per item swings by orders
// of magnitude (some allocators free cross-thread slowly, a busy machine deschedules the consumer),
// which makes Google Benchmark's iteration estimate overshoot badly.
inline std::int64_t handoff_items() { return scaled<std::int64_t>(100000, 10000); }

inline void spin_pause() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Bounded SPSC ring of T (movable). Capacity is a power of two.
template <class T, std::size_t Capacity = 1024>
class spsc_ring {
  static_assert((Capacity & (Capacity - 1)) == 0, "capacity is a power of two");

 public:
  spsc_ring() = default;
  spsc_ring(const spsc_ring&) = delete;
  spsc_ring& operator=(const spsc_ring&) = delete;
  ~spsc_ring() {
    publish_tail();
    while (try_pop()) {
    }
  }

  // Spins (with a yield now and then: the machine may have fewer free cores than threads) until there is room.
  void push(T value) {
    const std::size_t t = tail_written_;
    for (unsigned spins = 0; t - head_seen_ == Capacity; ++spins) {
      publish_tail();  // or the consumer may never see the items it is to make room from
      head_seen_ = head_.load(std::memory_order_acquire);
      if (t - head_seen_ != Capacity) break;
      backoff(spins);
    }
    ::new (slot(t)) T(std::move(value));
    if (++tail_written_ - tail_.load(std::memory_order_relaxed) == publish_every) publish_tail();
  }

  // The producer's items not yet published; for the producer to call once it has pushed its last.
  void publish_tail() noexcept { tail_.store(tail_written_, std::memory_order_release); }

  std::optional<T> try_pop() {
    const std::size_t h = head_read_;
    if (h == tail_seen_) {
      publish_head();  // or the producer may wait for room this consumer has made
      tail_seen_ = tail_.load(std::memory_order_acquire);
      if (h == tail_seen_) return std::nullopt;
    }
    T* p = std::launder(reinterpret_cast<T*>(slot(h)));
    std::optional<T> out(std::move(*p));
    p->~T();
    if (++head_read_ - head_.load(std::memory_order_relaxed) == publish_every) publish_head();
    return out;
  }

  static void backoff(unsigned spins) noexcept {
    if (spins % 64 == 63)
      std::this_thread::yield();
    else
      spin_pause();
  }

 private:
  unsigned char* slot(std::size_t i) noexcept { return storage_ + (i & (Capacity - 1)) * sizeof(T); }

  void publish_head() noexcept { head_.store(head_read_, std::memory_order_release); }

  // Each line is written by one side only. Each side publishes its index once per publish_every
  // items (and before it waits), so that a side that waits, rereading the other's index, takes that
  // line from the working side once per publish_every items, not at every item.
  static constexpr std::size_t publish_every = 32;
  alignas(64) std::atomic<std::size_t> head_{0};
  std::size_t head_read_ = 0;  // the consumer's next item (head_ lags it by less than publish_every)
  std::size_t tail_seen_ = 0;  // the consumer's copy of tail_
  alignas(64) std::atomic<std::size_t> tail_{0};
  std::size_t tail_written_ = 0;  // the producer's next slot (tail_ lags it by less than publish_every)
  std::size_t head_seen_ = 0;     // the producer's copy of head_
  alignas(64) alignas(T) unsigned char storage_[Capacity * sizeof(T)];
};

// Runs one hand-off row: `make()` on the benchmark thread once per iteration, each result pushed to a
// consumer thread that drops it (destroys it, on that thread). Times wall clock, so register the row
// with UseRealTime().
template <class Make>
void run_handoff(benchmark::State& state, Make make) {
  using item = decltype(make());
  spsc_ring<item> ring;
  std::atomic<bool> done{false};
  std::thread consumer([&] {
    unsigned spins = 0;
    for (;;) {
      if (auto v = ring.try_pop()) {
        spins = 0;
        continue;  // *v is dropped here, on this thread
      }
      if (done.load(std::memory_order_acquire)) {
        while (ring.try_pop()) {
        }
        return;
      }
      spsc_ring<item>::backoff(spins++);
    }
  });
  for (auto _ : state) ring.push(make());
  ring.publish_tail();
  done.store(true, std::memory_order_release);
  consumer.join();
  state.SetItemsProcessed(state.iterations());
}

// The floor of the hand-off rows (see the top of this file): a lap of the ring filled and emptied on
// this thread, reported (manual time) as half its wall time. Register the row with UseManualTime().
template <class Make, std::size_t Lap = 1024>
void run_handoff_floor(benchmark::State& state, Make make) {
  spsc_ring<decltype(make()), Lap> ring;
  while (state.KeepRunningBatch(Lap)) {
    const auto start = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < Lap; ++i) ring.push(make());
    ring.publish_tail();
    while (ring.try_pop()) {
    }
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    state.SetIterationTime(took.count() / 2);
  }
  state.SetItemsProcessed(state.iterations());
}

// Registers a hand-off row: `floor` picks the floor's one-thread run (run_handoff_floor) over the
// two-thread pipeline (run_handoff). Both time a fixed number of items (handoff_items()).
template <class Make>
benchmark::internal::Benchmark* add_handoff(const std::string& name, Make make, bool floor = false) {
  auto* b = floor ? add(name, [make](benchmark::State& s) { run_handoff_floor(s, make); })->UseManualTime()
                  : add(name, [make](benchmark::State& s) { run_handoff(s, make); })->UseRealTime();
  return b->Iterations(handoff_items());
}

}  // namespace own_bench
