// SPDX-License-Identifier: BSL-1.0
// The object pools' free stacks (detail/slot_stacks.hpp), below the pools: LIFO order, chunks, the
// index limit, and the lock-free stack's ABA tag, by a pop that another thread's operations overtake
// between its read of the head and its CAS.
#include <own/detail/slot_stacks.hpp>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <new>
#include <set>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace {

// A link that runs `after_load` once, right after the next load of it returns its value: what a
// pop sees when its thread is preempted between reading the top slot's link and its CAS.
template <class Link>
struct hooked_link {
  template <class Value>
  void store(Value v, std::memory_order order) noexcept {
    link.store(v, order);
  }
  auto load(std::memory_order order) noexcept {
    auto v = link.load(order);
    if (std::function<void()> hook = std::exchange(*after_load, nullptr)) hook();
    return v;
  }
  Link link{};
  std::function<void()>* after_load;
};

template <template <class> class Stack>
struct slot {
  hooked_link<typename Stack<slot>::link> next;
};

template <template <class> class Stack>
std::vector<slot<Stack>> make_slots(std::size_t n, std::function<void()>* hook) {
  std::vector<slot<Stack>> slots(n);
  for (auto& s : slots) s.next.after_load = hook;
  return slots;
}

template <template <class> class Stack>
void lifo_across_chunks() {
  std::function<void()> no_hook;
  auto first = make_slots<Stack>(3, &no_hook);
  auto second = make_slots<Stack>(5, &no_hook);
  Stack<slot<Stack>> stack;
  EXPECT_EQ(stack.pop(), nullptr);
  stack.push_chunk(first.data(), first.size());
  stack.push_chunk(second.data(), second.size());
  EXPECT_EQ(stack.size(), 8u);
  for (auto& s : second) EXPECT_EQ(stack.pop(), &s);
  stack.push(&second[2]);
  EXPECT_EQ(stack.pop(), &second[2]);
  for (auto& s : first) EXPECT_EQ(stack.pop(), &s);
  EXPECT_EQ(stack.pop(), nullptr);
  EXPECT_EQ(stack.size(), 0u);
}

TEST(slot_stacks, plain_stack_is_lifo_across_chunks) { lifo_across_chunks<own::detail::plain_slot_stack>(); }
TEST(slot_stacks, atomic_stack_is_lifo_across_chunks) { lifo_across_chunks<own::detail::atomic_slot_stack>(); }

// Chunks start their indices at a power of two; 2^32 - 1 indices in all.
TEST(slot_stacks, atomic_stack_runs_out_of_indices_before_the_tag_would_share_their_word) {
  using stack_type = own::detail::atomic_slot_stack<slot<own::detail::atomic_slot_stack>>;
  stack_type stack;
  EXPECT_THROW(stack.check_room(std::size_t{1} << 32), std::bad_alloc);
  EXPECT_NO_THROW(stack.check_room((std::size_t{1} << 32) - 1));
  std::function<void()> no_hook;
  auto three = make_slots<own::detail::atomic_slot_stack>(3, &no_hook);  // indices 1, 2, 3
  stack.push_chunk(three.data(), three.size());
  EXPECT_NO_THROW(stack.check_room((std::size_t{1} << 32) - 4));  // from index 4
  EXPECT_THROW(stack.check_room((std::size_t{1} << 32) - 3), std::bad_alloc);
}

// The preempted pop read top A and A's link B; meanwhile A, B and C are popped, A pushed back (now
// linked to D), and pairs of pops and pushes of the top bring the operation count to 2^16, with A on
// top again. A 16-bit tag would then match and the CAS would put B, which is out, back on top: B
// handed out twice. The stack's tag must tell, and the pop retries.
TEST(slot_stacks, a_pop_overtaken_by_65536_operations_fails_its_cas) {
  using stack_type = own::detail::atomic_slot_stack<slot<own::detail::atomic_slot_stack>>;
  std::function<void()> hook;
  auto slots = make_slots<own::detail::atomic_slot_stack>(8, &hook);
  stack_type stack;
  stack.push_chunk(slots.data(), slots.size());
  std::vector<void*> out;
  hook = [&] {
    void* a = stack.pop();
    out.push_back(stack.pop());  // B
    out.push_back(stack.pop());  // C
    stack.push(static_cast<slot<own::detail::atomic_slot_stack>*>(a));
    for (int i = 0; i < (65536 - 4) / 2; ++i) stack.push(stack.pop());
  };
  out.push_back(stack.pop());
  while (void* s = stack.pop()) out.push_back(s);
  EXPECT_EQ(std::set<void*>(out.begin(), out.end()).size(), out.size()) << "a slot handed out twice";
  EXPECT_EQ(out.size(), 8u);
}

// Threads popping and pushing at once (run under TSan by scripts/test.sh): every slot is held by
// one thread at a time, and all are back at the end.
TEST(slot_stacks, atomic_stack_under_contention) {
  using stack_type = own::detail::atomic_slot_stack<slot<own::detail::atomic_slot_stack>>;
  std::function<void()> no_hook;
  auto slots = make_slots<own::detail::atomic_slot_stack>(8, &no_hook);
  std::vector<std::atomic<int>> holders(slots.size());
  stack_type stack;
  stack.push_chunk(slots.data(), 4);
  stack.push_chunk(slots.data() + 4, 4);
  auto work = [&] {
    for (int i = 0; i < 100000; ++i) {
      auto* s = stack.pop();
      if (!s) continue;
      const auto k = static_cast<std::size_t>(s - slots.data());
      EXPECT_EQ(holders[k].fetch_add(1), 0);
      holders[k].fetch_sub(1);
      stack.push(s);
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back(work);
  for (auto& t : threads) t.join();
  EXPECT_EQ(stack.size(), 8u);
}

}  // namespace
