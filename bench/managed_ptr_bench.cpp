// SPDX-License-Identifier: BSL-1.0
// Component benchmark of <own/managed_ptr.hpp>, in one process: a managed_ptr against
// std::unique_ptr<T, void(*)(T*)> (the usual way to type-erase a deleter without an allocation),
// both returning objects to the same free list; moves; and the shared -> managed -> shared round trip
// against one shared_ptr copy (std's, and own's as own_copy). Row names: exp7/<case>/<impl>.
// floor rows: the least an owner of four words (managed_ptr's layout) can do to be made and
// destroyed with a manager (plain_owner), and in a move assignment (plain_words; floor_two_words:
// the same for two words, unique_ptr's layout), so that the gap to std reads as layout.
// std_function rows: std::unique_ptr<T, std::function<void(T*)>>, the usual way to carry a manager
// (state, not just a function) without naming it in the type, the job managed_ptr does.
#include <own/managed_ptr.hpp>

#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "bench_common.hpp"

namespace {

struct item {
  long value = 1;
};

// The manager both pointers return objects to: a LIFO of free items.
struct item_stack {
  std::vector<item*> free;
  explicit item_stack(std::size_t n) : storage(n) {
    for (auto& i : storage) free.push_back(&i);
  }
  item* take() {
    item* p = free.back();
    free.pop_back();
    return p;
  }
  void give(item* p) { free.push_back(p); }
  std::vector<item> storage;
};

item_stack* the_stack = nullptr;
void give_back(item* p) { the_stack->give(p); }
void reclaim_managed_object(item_stack* stack, item* p) { stack->give(p); }

using unique_with_function = std::unique_ptr<item, void (*)(item*)>;
using unique_with_std_function = std::unique_ptr<item, std::function<void(item*)>>;

// The least any owner of `Words` pointer-sized words can do in a move assignment: read the old
// object word (to dispose of it), copy every word, clear the source's object word. No type erasure,
// no conversion: the yardstick for a layout of that size. Words are copied one by one, as
// std::unique_ptr's are (a merged 16-byte copy stalls store forwarding: detail/scalar_words.hpp).
template <std::size_t Words>
class plain_words {
 public:
  plain_words() = default;
  explicit plain_words(item* p) noexcept : words_{p} {}
  plain_words& operator=(plain_words&& r) noexcept {
    item* const old = words_[0];
    take(r, std::make_index_sequence<Words>());
    if (old) give_back(old);
    return *this;
  }
  ~plain_words() {
    if (words_[0]) give_back(words_[0]);
  }

 private:
  template <std::size_t... I>
  void take(plain_words& r, std::index_sequence<I...>) noexcept {
    item* copy[] = {r.words_[I]...};
    (own::detail::scalar_words(copy[I]), ...);
    item* none = nullptr;
    own::detail::scalar_words(none);
    r.words_[0] = none;
    ((words_[I] = copy[I]), ...);
  }

  item* words_[Words] = {};
};

// The least an owner that carries a manager can do to be made and destroyed: four words stored
// (the pointer shown, the object, the manager, the disposal function; one by one, as above), then
// the function called with the object and the manager. The yardstick for create+destroy.
class plain_owner {
 public:
  using function_type = void (*)(void*, void*);
  plain_owner(item* p, void* manager, function_type function) noexcept {
    void* object = p;
    own::detail::scalar_words(p, object, manager, function);
    shown_ = p;
    object_ = object;
    manager_ = manager;
    function_ = function;
  }
  plain_owner(const plain_owner&) = delete;
  plain_owner& operator=(const plain_owner&) = delete;
  ~plain_owner() {
    if (object_) function_(object_, manager_);
  }

 private:
  item* shown_;
  void* object_;
  void* manager_;
  function_type function_;
};
void give_to_stack(void* object, void* stack) { static_cast<item_stack*>(stack)->give(static_cast<item*>(object)); }

template <class Ptr>
void move_back_and_forth(benchmark::State& state, Ptr (&slots)[2]) {
  benchmark::DoNotOptimize(&slots);
  for (auto _ : state) {
    slots[1] = std::move(slots[0]);
    benchmark::ClobberMemory();
    slots[0] = std::move(slots[1]);
    benchmark::ClobberMemory();
  }
}

const own_bench::registration rows([] {
  using own_bench::add;
  // Each pointer object escapes (DoNotOptimize(p)): its disposal is then a call through the stored
  // function, as wherever a pointer is made in one function and dropped in another. Without it gcc
  // inlines a known disposal function or not by heuristics that differ between the two types.
  add("exp7/managed_create_destroy/std", [](benchmark::State& s) {
    item_stack stack(16);
    the_stack = &stack;
    for (auto _ : s) {
      unique_with_function p(stack.take(), &give_back);
      benchmark::DoNotOptimize(p);
    }
  });
  add("exp7/managed_create_destroy/std_function", [](benchmark::State& s) {
    item_stack stack(16);
    for (auto _ : s) {
      unique_with_std_function p(stack.take(), [&stack](item* i) { stack.give(i); });
      benchmark::DoNotOptimize(p);
    }
  });
  add("exp7/managed_create_destroy/own", [](benchmark::State& s) {
    item_stack stack(16);
    for (auto _ : s) {
      own::managed_ptr<item> p(stack.take(), &stack);
      benchmark::DoNotOptimize(p);
    }
  });
  add("exp7/managed_create_destroy/floor", [](benchmark::State& s) {
    item_stack stack(16);
    for (auto _ : s) {
      plain_owner p(stack.take(), &stack, &give_to_stack);
      benchmark::DoNotOptimize(p);
    }
  });
  // Moves between two slots the optimiser must keep in memory, as in a queue or a container.
  add("exp7/managed_move/std", [](benchmark::State& s) {
    item_stack stack(16);
    the_stack = &stack;
    unique_with_function slots[2] = {unique_with_function(stack.take(), &give_back), unique_with_function(nullptr, &give_back)};
    move_back_and_forth(s, slots);
  });
  add("exp7/managed_move/std_function", [](benchmark::State& s) {
    item_stack stack(16);
    auto give = [&stack](item* i) { stack.give(i); };
    unique_with_std_function slots[2] = {unique_with_std_function(stack.take(), give), unique_with_std_function(nullptr, give)};
    move_back_and_forth(s, slots);
  });
  add("exp7/managed_move/own", [](benchmark::State& s) {
    item_stack stack(16);
    own::managed_ptr<item> slots[2] = {own::managed_ptr<item>(stack.take(), &stack), nullptr};
    move_back_and_forth(s, slots);
  });
  add("exp7/managed_move/floor_two_words", [](benchmark::State& s) {
    item_stack stack(16);
    the_stack = &stack;
    plain_words<2> slots[2] = {plain_words<2>(stack.take()), plain_words<2>()};
    move_back_and_forth(s, slots);
  });
  add("exp7/managed_move/floor", [](benchmark::State& s) {
    item_stack stack(16);
    the_stack = &stack;
    plain_words<4> slots[2] = {plain_words<4>(stack.take()), plain_words<4>()};
    move_back_and_forth(s, slots);
  });
  // The round trip's yardstick is one shared_ptr copy (made and dropped), std's and own's.
  add("exp7/round_trip/std", [](benchmark::State& s) {
    auto shared = std::make_shared<item>();
    for (auto _ : s) {
      std::shared_ptr<item> copy = shared;
      benchmark::DoNotOptimize(copy.get());
    }
  });
  add("exp7/round_trip/own_copy", [](benchmark::State& s) {
    auto shared = own::make_shared<item>();
    for (auto _ : s) {
      own::shared_ptr<item> copy = shared;
      benchmark::DoNotOptimize(copy.get());
    }
  });
  add("exp7/round_trip/own", [](benchmark::State& s) {
    auto shared = own::make_shared<item>();
    for (auto _ : s) {
      own::managed_ptr<item> managed = shared;
      own::shared_ptr<item> back = std::move(managed);
      benchmark::DoNotOptimize(back.get());
    }
  });
});

}  // namespace
