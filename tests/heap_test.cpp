// SPDX-License-Identifier: BSL-1.0
// Tests of <own/heap.hpp>: the default heap behind make_shared and friends.
//
// This executable runs the heap in its page mode (OWN_DEFAULT_ALLOCATOR=heap, set below unless the
// environment sets the switch already), also under AddressSanitizer and valgrind, where it is off by
// default. CI runs the suite once more with OWN_DEFAULT_ALLOCATOR=operator_new; the tests that
// depend on the mode check which one they are in. Some tests run this executable again as a child
// with another environment (the switch, the sanitizers' reports, no memory).

#include <cstdlib>
namespace {
// OWN_HEAP_TEST_DEFAULT_MODE: a child that must see the default as a user gets it.
const bool heap_mode_chosen = std::getenv("OWN_HEAP_TEST_DEFAULT_MODE") != nullptr ||
                              (::setenv("OWN_DEFAULT_ALLOCATOR", "heap", 0), true);
}  // namespace

#include <own/heap.hpp>
#include <own/local_shared_ptr.hpp>
#include <own/managed_ptr.hpp>
#include <own/shared_ptr.hpp>

#include <gtest/gtest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <fstream>
#include <iterator>
#include <memory>
#include <mutex>
#include <new>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "stress.hpp"
#include "tracked.hpp"

extern char** environ;

// Counting operator new, where the runtime does not own it (ThreadSanitizer's does).
#if defined(__SANITIZE_THREAD__)
#define OWN_TEST_COUNTS_NEW 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define OWN_TEST_COUNTS_NEW 0
#endif
#endif
#ifndef OWN_TEST_COUNTS_NEW
#define OWN_TEST_COUNTS_NEW 1
#endif

namespace {
std::atomic<long> news{0};
}  // namespace

#if OWN_TEST_COUNTS_NEW
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(std::size_t n) {
  ++news;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#endif

#if defined(__SANITIZE_ADDRESS__)
#define OWN_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define OWN_TEST_ASAN 1
#endif
#endif
#ifndef OWN_TEST_ASAN
#define OWN_TEST_ASAN 0
#endif
#if defined(__SANITIZE_THREAD__)
#define OWN_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define OWN_TEST_TSAN 1
#endif
#endif
#ifndef OWN_TEST_TSAN
#define OWN_TEST_TSAN 0
#endif

namespace {

using own_test::scaled;
using own_test::tracked;

constexpr std::size_t page = std::size_t{64} * 1024;
constexpr std::size_t mib = std::size_t{1} << 20;

bool heap_on() { return !own::heap::uses_operator_new(); }

// ---- running this executable again, as a child with another environment

struct child_result {
  int status;  // as waitpid gives it
  std::string output;
};

// Runs the tests matching `filter` in a new process of this executable, with `set` added to the
// environment and `unset` removed; returns its status and what it printed.
child_result run_child(const std::string& filter, std::vector<std::string> set, std::vector<std::string> unset = {}) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const std::string name = entry.substr(0, entry.find('='));
    const bool replaced = std::any_of(set.begin(), set.end(), [&](const std::string& s) { return s.rfind(name + "=", 0) == 0; }) ||
                          std::find(unset.begin(), unset.end(), name) != unset.end();
    if (!replaced) env.push_back(entry);
  }
  env.insert(env.end(), set.begin(), set.end());
  env.push_back("OWN_HEAP_TEST_CHILD=1");
  std::vector<char*> envp;
  for (std::string& e : env) envp.push_back(e.data());
  envp.push_back(nullptr);

  std::string filter_arg = "--gtest_filter=" + filter;
  // The file itself, not /proc/self/exe: under valgrind that names valgrind.
  char self_path[4096] = {};
  if (::readlink("/proc/self/exe", self_path, sizeof self_path - 1) <= 0) return {-1, "readlink failed"};
  std::string self = self_path;
  char* argv[] = {self.data(), filter_arg.data(), nullptr};
  char path[] = "/tmp/own_heap_child_XXXXXX";
  const int fd = ::mkstemp(path);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fd, 1);
  posix_spawn_file_actions_adddup2(&actions, fd, 2);
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, self.c_str(), &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  int status = -1;
  if (spawned == 0) ::waitpid(pid, &status, 0);
  ::close(fd);
  std::ifstream in(path);
  std::string output((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ::unlink(path);
  return {status, output};
}

bool in_child() { return std::getenv("OWN_HEAP_TEST_CHILD") != nullptr; }

#define SKIP_UNLESS_CHILD() \
  do {                                                                   \
    if (!in_child()) GTEST_SKIP() << "run by another test, as a child process"; \
  } while (false)

bool exited_cleanly(const child_result& r) { return WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0; }

std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

std::size_t pages_in_use() { return own::heap::current_statistics().in_use_bytes / page; }

// ---------------------------------------------------------------------------------------------
// The header's usage example.

TEST(HeapExample, UsageExampleRuns) {
  std::vector<int, own::heap_allocator<int>> v{1, 2, 3};  // a container on the default heap
  auto p = own::make_shared<int>(42);                      // from the default heap, no set-up
  own::heap::statistics s = own::heap::current_statistics();
  own::heap::trim();  // free pages back to the system
  EXPECT_EQ(v[2], 3);
  EXPECT_EQ(*p, 42);
  if (heap_on()) {
    EXPECT_GE(s.in_use_bytes, page);
    EXPECT_GE(s.mapped_bytes, s.in_use_bytes);
  }
  EXPECT_EQ(own::heap::current_statistics().cached_bytes, 0u);
}

// ---------------------------------------------------------------------------------------------
// Size classes

TEST(HeapClasses, SmallSizesRoundToEightBytesAndLargerOnesByAtMostAQuarter) {
  // The sizes N1851-style blocks take: none rounded to a power of two.
  EXPECT_EQ(own::heap::block_size(40, 8), 40u);
  EXPECT_EQ(own::heap::block_size(48, 8), 48u);
  EXPECT_EQ(own::heap::block_size(56, 8), 56u);
  EXPECT_EQ(own::heap::block_size(96, 8), 96u);
  EXPECT_EQ(own::heap::block_size(200, 8), 224u);
  for (std::size_t size = 1; size <= own::heap::max_block_size; ++size) {
    const std::size_t block = own::heap::block_size(size, 8);
    ASSERT_GE(block, size);
    if (size <= 16) {
      EXPECT_EQ(block, 16u) << size;  // the smallest block: a control block's counts and manager
    } else if (size <= 64) {
      EXPECT_LT(block - size, 8u) << size;
    } else {
      EXPECT_LT((block - size) * 4, size) << size;
    }
  }
}

TEST(HeapClasses, AlignmentPicksAClassThatIsAMultipleOfIt) {
  EXPECT_EQ(own::heap::block_size(24, 16), 32u);
  EXPECT_EQ(own::heap::block_size(80, 32), 96u);
  EXPECT_EQ(own::heap::block_size(100, 64), 128u);
  EXPECT_EQ(own::heap::block_size(129, 128), 256u);
  // Beyond the heap: the request itself, from operator new.
  EXPECT_EQ(own::heap::block_size(8, 256), 8u);
  EXPECT_EQ(own::heap::block_size(own::heap::max_block_size + 1), own::heap::max_block_size + 1);
  static_assert(own::heap::block_size(sizeof(std::max_align_t)) >= sizeof(std::max_align_t));
}

// ---------------------------------------------------------------------------------------------
// heap_allocator

template <std::size_t Align>
struct alignas(Align) aligned_bytes {
  unsigned char bytes[Align];
};

template <class T>
void expect_aligned_disjoint_blocks(std::size_t count, std::size_t n) {
  own::heap_allocator<T> a;
  std::vector<std::pair<T*, std::size_t>> blocks;
  for (std::size_t i = 0; i < count; ++i) {
    T* p = a.allocate(n);
    ASSERT_EQ(reinterpret_cast<std::uintptr_t>(p) % alignof(T), 0u) << sizeof(T) << " x " << n;
    std::memset(static_cast<void*>(p), static_cast<int>(i), sizeof(T) * n);
    blocks.emplace_back(p, n);
  }
  std::vector<std::pair<T*, std::size_t>> sorted = blocks;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 1; i < sorted.size(); ++i) {
    ASSERT_LE(reinterpret_cast<char*>(sorted[i - 1].first + n), reinterpret_cast<char*>(sorted[i].first));
  }
  for (std::size_t i = 0; i < count; ++i) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(blocks[i].first);
    EXPECT_EQ(bytes[0], static_cast<unsigned char>(i));
    EXPECT_EQ(bytes[sizeof(T) * n - 1], static_cast<unsigned char>(i));
    a.deallocate(blocks[i].first, n);
  }
}

TEST(HeapAllocator, BlocksOfEverySizeAndAlignmentAreAlignedAndDisjoint) {
  for (std::size_t n : {1, 7, 16, 24, 40, 100, 200, 1000, 2048, 2049, 5000}) {
    expect_aligned_disjoint_blocks<std::byte>(300, n);
  }
  expect_aligned_disjoint_blocks<std::uint64_t>(300, 3);
  expect_aligned_disjoint_blocks<aligned_bytes<16>>(300, 1);
  expect_aligned_disjoint_blocks<aligned_bytes<16>>(300, 5);
  expect_aligned_disjoint_blocks<aligned_bytes<32>>(300, 3);
  expect_aligned_disjoint_blocks<aligned_bytes<64>>(300, 1);
  expect_aligned_disjoint_blocks<aligned_bytes<128>>(300, 2);
  expect_aligned_disjoint_blocks<aligned_bytes<256>>(50, 1);
}

TEST(HeapAllocator, BlocksAllocatedOneAfterAnotherLieSideBySide) {
  if (!heap_on()) GTEST_SKIP() << "operator_new mode";
  // On a new thread, whose pages are fresh: allocation order is address order.
  std::thread([] {
    own::heap_allocator<std::byte> a;
    std::vector<std::byte*> blocks;
    for (int i = 0; i < 200; ++i) blocks.push_back(a.allocate(40));
    for (int i = 1; i < 200; ++i) EXPECT_EQ(blocks[i] - blocks[i - 1], 40) << i;
    for (std::byte* p : blocks) a.deallocate(p, 40);
  }).join();
}

TEST(HeapAllocator, AnEmptiedPageGoesBackAndAFreedBlockIsReused) {
  if (!heap_on()) GTEST_SKIP() << "operator_new mode";
  std::thread([] {
    own::heap_allocator<std::byte> a;
    const std::size_t before = pages_in_use();
    std::vector<std::byte*> blocks;
    for (int i = 0; i < 20000; ++i) blocks.push_back(a.allocate(48));  // about 15 pages
    EXPECT_GE(pages_in_use(), before + 14);
    std::byte* kept = blocks.back();
    blocks.pop_back();
    for (std::byte* p : blocks) a.deallocate(p, 48);
    EXPECT_LE(pages_in_use(), before + 1);  // the current page stays
    a.deallocate(kept, 48);
    std::byte* again = a.allocate(48);
    EXPECT_EQ(again, kept);  // last in, first out
    a.deallocate(again, 48);
  }).join();
}

TEST(HeapAllocator, WorksAsAContainersAllocator) {
  std::vector<std::string, own::heap_allocator<std::string>> v;
  for (int i = 0; i < 1000; ++i) v.push_back(std::string(static_cast<std::size_t>(i % 50), 'x'));
  EXPECT_EQ(v[999].size(), 999u % 50);
  own::heap_allocator<int> a;
  own::heap_allocator<double> b(a);
  EXPECT_TRUE(a == b);
  EXPECT_FALSE(a != b);
  static_assert(std::allocator_traits<own::heap_allocator<int>>::is_always_equal::value);
  EXPECT_THROW(static_cast<void>(a.allocate(std::size_t(-1) / 2)), std::bad_array_new_length);
}

// ---------------------------------------------------------------------------------------------
// What takes its memory from the heap

struct sixty_four {
  unsigned char bytes[64];
};

// Operator new calls made by `f`.
template <class F>
long news_during(F&& f) {
  const long before = news.load();
  f();
  return news.load() - before;
}

TEST(HeapDefaultPath, FactoriesAndAdoptingConstructorsAllocateNothingFromOperatorNew) {
  if (!OWN_TEST_COUNTS_NEW) GTEST_SKIP() << "operator new is the sanitizer's";
  // Once, so that the thread's heap is set up.
  own::make_shared<int>(0);
  const long per_block = heap_on() ? 0 : 1;
  EXPECT_EQ(news_during([] { own::make_shared<sixty_four>(); }), per_block);
  EXPECT_EQ(news_during([] { own::make_shared<int[]>(10); }), per_block);
  EXPECT_EQ(news_during([] { own::make_shared<int[4]>(); }), per_block);
  EXPECT_EQ(news_during([] { own::make_shared_for_overwrite<sixty_four>(); }), per_block);
  EXPECT_EQ(news_during([] { own::make_shared_object<int>(3); }), per_block);
  EXPECT_EQ(news_during([] { own::make_shared_array<int>(5); }), per_block);
  EXPECT_EQ(news_during([] { own::make_managed<int>(1); }), per_block);
  EXPECT_EQ(news_during([] { own::make_local_shared<int>(1); }), per_block);
  EXPECT_EQ(news_during([] { own::make_local_shared_for_overwrite<int>(); }), per_block);
  // The object is the user's `new`; the control block is the heap's.
  EXPECT_EQ(news_during([] { own::shared_ptr<int> p(new int(1)); }), 1 + per_block);
  EXPECT_EQ(news_during([] { own::shared_ptr<int> p(new int(1), std::default_delete<int>()); }), 1 + per_block);
  EXPECT_EQ(news_during([] { own::shared_ptr<int> p(std::make_unique<int>(2)); }), 1 + per_block);
  EXPECT_EQ(news_during([] {
              own::shared_ptr<int> p;
              p.reset(new int(1));
            }),
            1 + per_block);
  // Beyond the largest class: operator new, in both modes.
  EXPECT_EQ(news_during([] { own::make_shared<std::byte[]>(own::heap::max_block_size + 1); }), 1);
  // Given an allocator, only the allocator.
  EXPECT_EQ(news_during([] { own::allocate_shared<int>(std::allocator<int>(), 1); }), 1);
}

// ---------------------------------------------------------------------------------------------
// Threads

TEST(HeapThreads, BlocksMadeOnOneThreadAndFreedOnAnotherAreReused) {
  const long rounds = scaled(20);
  const std::size_t before = pages_in_use();
  std::vector<own::shared_ptr<tracked>> made;
  std::mutex m;
  std::condition_variable cv;
  bool ready = false, done = false;
  std::thread consumer([&] {
    for (long r = 0; r < rounds; ++r) {
      std::vector<own::shared_ptr<tracked>> taken;
      {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [&] { return ready; });
        taken.swap(made);
        ready = false;
      }
      cv.notify_all();
      taken.clear();  // freed here, on the consumer
    }
    std::lock_guard<std::mutex> lock(m);
    done = true;
  });
  for (long r = 0; r < rounds; ++r) {
    std::vector<own::shared_ptr<tracked>> batch;
    for (int i = 0; i < 20000; ++i) batch.push_back(own::make_shared<tracked>(i));
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return !ready; });
    made.swap(batch);
    ready = true;
    cv.notify_all();
  }
  consumer.join();
  EXPECT_TRUE(done);
  EXPECT_EQ(tracked::live(), 0);
  if (heap_on()) {
    // Twenty rounds of 20000 blocks (about 17 pages each) ran in the memory of a round or two.
    EXPECT_LE(pages_in_use(), before + 40);
  }
}

TEST(HeapThreads, PagesOfAnExitedThreadGoBackWhenTheirLastBlockIsFreed) {
  if (!heap_on()) GTEST_SKIP() << "operator_new mode";
  const std::size_t before = pages_in_use();
  std::vector<own::shared_ptr<tracked>> left;
  std::thread([&] {
    for (int i = 0; i < 60000; ++i) left.push_back(own::make_shared<tracked>(i));  // about 30 pages
  }).join();
  const own::heap::statistics held = own::heap::current_statistics();
  EXPECT_GT(held.orphaned_pages, 20u);
  EXPECT_GE(held.in_use_bytes / page, before + 20);
  left.resize(30000);  // half freed here
  EXPECT_GT(own::heap::current_statistics().orphaned_pages, 0u);
  std::thread([&] { left.clear(); }).join();  // the rest on a third thread
  EXPECT_EQ(tracked::live(), 0);
  EXPECT_EQ(own::heap::current_statistics().orphaned_pages, 0u);
  EXPECT_LE(pages_in_use(), before + 1);
}

// A thread that frees blocks of another thread's page holds a few back (one CAS per batch); they
// reach the page at its exit, even for a thread that never allocated from the heap, and at trim().
// Without that, the owner's page would still have blocks out when the owner exits: an orphan.
TEST(HeapThreads, BlocksAFreeingThreadHoldsBackReachTheirPageAtItsExit) {
  if (!heap_on()) GTEST_SKIP() << "operator_new mode";
  own::heap::trim();  // what this thread holds back from earlier tests: passed on, not counted here
  const std::size_t before = pages_in_use();
  std::thread owner([] {
    std::vector<own::shared_ptr<int>> made;
    for (int i = 0; i < 20; ++i) made.push_back(own::make_shared<int>(i));  // 640 bytes: one batch
    std::thread([&] { made.clear(); }).join();  // allocates nothing from the heap
  });
  owner.join();
  EXPECT_EQ(own::heap::current_statistics().orphaned_pages, 0u);
  EXPECT_LE(pages_in_use(), before);
}

TEST(HeapThreads, AThreadAllocatesTheBlocksItHoldsBackBeforeItsOwnPages) {
  if (!heap_on()) GTEST_SKIP() << "operator_new mode";
  own::heap::trim();
  const std::size_t before = pages_in_use();
  constexpr std::size_t size = 1536;  // a class nothing else here uses
  own::heap_allocator<std::byte> a;
  std::vector<std::byte*> made;
  std::thread([&] {
    for (int i = 0; i < 3; ++i) made.push_back(a.allocate(size));
    std::thread([&] {
      a.deallocate(made[0], size);  // held back: this thread has a batch of one
      std::byte* again = a.allocate(size);
      EXPECT_EQ(again, made[0]);  // not a block of a page of this thread's
      made[0] = again;
      for (std::byte* b : made) a.deallocate(b, size);  // all three back to the owner's page
    }).join();
  }).join();
  EXPECT_EQ(own::heap::current_statistics().orphaned_pages, 0u);
  EXPECT_LE(pages_in_use(), before);
}

TEST(HeapThreads, BlocksAFreeingThreadHoldsBackReachTheirPageAtTrim) {
  if (!heap_on()) GTEST_SKIP() << "operator_new mode";
  own::heap::trim();
  const std::size_t before = pages_in_use();
  std::vector<own::shared_ptr<int>> made;
  std::mutex m;
  std::condition_variable cv;
  int stage = 0;  // 1: made; 2: freed (and trimmed); 3: the owner has exited
  const auto wait_for = [&](int s) {
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return stage >= s; });
  };
  const auto reach = [&](int s) {
    std::lock_guard<std::mutex> lock(m);
    stage = s;
    cv.notify_all();
  };
  std::size_t orphans_while_freer_lives = 1;
  std::thread freer([&] {
    wait_for(1);
    made.clear();
    own::heap::trim();
    reach(2);
    wait_for(3);
    orphans_while_freer_lives = own::heap::current_statistics().orphaned_pages;
  });
  std::thread owner([&] {
    for (int i = 0; i < 20; ++i) made.push_back(own::make_shared<int>(i));
    reach(1);
    wait_for(2);
  });
  owner.join();
  reach(3);
  freer.join();
  EXPECT_EQ(orphans_while_freer_lives, 0u) << "trim() passed the held-back blocks on before the owner exited";
  EXPECT_LE(pages_in_use(), before);
}

TEST(HeapThreads, ProducerAndTwoConsumersPassMixedSizes) {
  // The exp8 pipeline's shape, under TSan: one thread makes, two drop, sizes mixed.
  const long items = scaled(300000);
  std::mutex m;
  std::condition_variable cv;
  std::deque<own::shared_ptr<void>> queue;
  bool finished = false;
  std::atomic<long> dropped{0};
  auto consume = [&] {
    for (;;) {
      own::shared_ptr<void> item;
      {
        std::unique_lock<std::mutex> lock(m);
        cv.wait(lock, [&] { return !queue.empty() || finished; });
        if (queue.empty()) return;
        item = std::move(queue.front());
        queue.pop_front();
      }
      item.reset();
      ++dropped;
    }
  };
  std::thread c1(consume), c2(consume);
  for (long i = 0; i < items; ++i) {
    own::shared_ptr<void> item;
    switch (i % 4) {
      case 0: item = own::make_shared<tracked>(static_cast<int>(i)); break;
      case 1: item = own::make_shared<std::array<char, 200>>(); break;
      case 2: item = own::shared_ptr<tracked>(new tracked(1)); break;
      default: item = own::make_shared<std::byte[]>(static_cast<std::size_t>(i % 1500)); break;
    }
    {
      std::lock_guard<std::mutex> lock(m);
      queue.push_back(std::move(item));
    }
    cv.notify_one();
  }
  {
    std::lock_guard<std::mutex> lock(m);
    finished = true;
  }
  cv.notify_all();
  c1.join();
  c2.join();
  EXPECT_EQ(dropped.load(), items);
  EXPECT_EQ(tracked::live(), 0);
}

TEST(HeapThreads, ThreadsRacingOnEachOthersPagesLoseNothing) {
  // Four threads each make blocks and hand every other one to the next thread, which frees it:
  // remote frees land on pages that are current, full (reawakening them) and of exited threads.
  const long per_thread = scaled(100000);
  constexpr int threads = 4;
  std::vector<std::vector<own::shared_ptr<tracked>>> inbox(threads);
  std::vector<std::mutex> locks(threads);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      std::vector<own::shared_ptr<tracked>> mine;
      for (long i = 0; i < per_thread; ++i) {
        auto p = own::make_shared<tracked>(static_cast<int>(i));
        if (i % 2 == 0) {
          std::lock_guard<std::mutex> lock(locks[(t + 1) % threads]);
          inbox[(t + 1) % threads].push_back(std::move(p));
        } else {
          mine.push_back(std::move(p));
          if (mine.size() > 1000) mine.erase(mine.begin(), mine.begin() + 500);
        }
        if (i % 256 == 0) {
          std::vector<own::shared_ptr<tracked>> got;
          {
            std::lock_guard<std::mutex> lock(locks[t]);
            got.swap(inbox[t]);
          }
        }
      }
    });
  }
  for (std::thread& w : workers) w.join();
  inbox.clear();
  EXPECT_EQ(tracked::live(), 0);
  EXPECT_EQ(tracked::double_destroyed(), 0);
  if (heap_on()) {
    EXPECT_EQ(own::heap::current_statistics().orphaned_pages, 0u);
  }
}

// A pthread key created after the heap's runs its destructor after the heap's at thread exit, and
// again in each further round while it sets its value again (glibc runs four rounds, then stops). A
// shared_ptr made there comes from an orphan page, which goes back when its last block does: no
// round is left to give up a heap set up in the last one.
pthread_key_t late_key;
std::atomic<int> late_rounds{0};
std::vector<own::shared_ptr<tracked>>* late_kept = nullptr;
void late_destructor(void*) {
  auto p = own::make_shared<tracked>(5);
  own::shared_ptr<tracked> q = p;
  late_kept->push_back(own::make_shared<tracked>(++late_rounds));  // outlives the thread
  ::pthread_setspecific(late_key, &late_key);                     // once more, while glibc allows
}

TEST(HeapThreads, AllocatingInEveryLaterThreadExitRoundWorksAndLeavesNothing) {
  // ThreadSanitizer ends its own state of a thread in an earlier round and crashes in later ones.
  if (OWN_TEST_TSAN) GTEST_SKIP() << "ThreadSanitizer cannot run code in the last destructor rounds";
  own::make_shared<int>(0);  // the heap's key exists, before this test's
  ASSERT_EQ(::pthread_key_create(&late_key, &late_destructor), 0);
  std::vector<own::shared_ptr<tracked>> kept;
  kept.reserve(16);
  late_kept = &kept;
  const std::size_t before = pages_in_use();
  std::thread([] {
    own::make_shared<int>(1);
    ::pthread_setspecific(late_key, &late_key);
  }).join();
  ::pthread_key_delete(late_key);
  EXPECT_GE(late_rounds.load(), 2);  // glibc: PTHREAD_DESTRUCTOR_ITERATIONS (4)
  EXPECT_EQ(static_cast<int>(kept.size()), late_rounds.load());
  if (heap_on()) {
    EXPECT_GT(own::heap::current_statistics().orphaned_pages, 0u);
  }
  for (int i = 0; i < static_cast<int>(kept.size()); ++i) EXPECT_EQ(kept[static_cast<std::size_t>(i)]->value(), i + 1);
  kept.clear();  // freed here, after the thread is gone
  EXPECT_EQ(tracked::live(), 0);
  EXPECT_EQ(tracked::constructed(), tracked::destroyed());
  if (heap_on()) {
    EXPECT_EQ(own::heap::current_statistics().orphaned_pages, 0u);
  }
  EXPECT_LE(pages_in_use(), before);
}

// ---------------------------------------------------------------------------------------------
// Memory given back

TEST(HeapMemory, AFourThreadBurstLeavesAtMostEightMebibytesResident) {
  if (!heap_on()) GTEST_SKIP() << "operator_new mode";
  // The measurement: 4 threads each make 250,000 64-byte objects, free them and exit.
  const long per_thread = scaled(250000);
  own::heap::trim();
  const std::size_t rss_before = resident_bytes();
  const own::heap::statistics before = own::heap::current_statistics();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([per_thread] {
      std::vector<own::shared_ptr<sixty_four>> objects;
      objects.reserve(static_cast<std::size_t>(per_thread));
      for (long i = 0; i < per_thread; ++i) objects.push_back(own::make_shared<sixty_four>());
    });
  }
  for (std::thread& t : threads) t.join();
  const own::heap::statistics after = own::heap::current_statistics();
  EXPECT_LE(after.in_use_bytes, before.in_use_bytes + page);
  EXPECT_EQ(after.orphaned_pages, 0u);
  if (!OWN_TEST_ASAN) {
    // (Under AddressSanitizer pages come from operator new and are all kept.)
    EXPECT_LE(after.in_use_bytes + after.cached_bytes, before.in_use_bytes + 8 * mib);
  }
  if (!OWN_TEST_ASAN && !OWN_TEST_TSAN) {
    // Under the sanitizers, their shadow memory and quarantine dominate resident memory.
    const std::size_t rss_after = resident_bytes();
    EXPECT_LE(rss_after, rss_before + 8 * mib) << "resident grew by " << (rss_after - rss_before) / 1024 << " KiB";
  }
}

TEST(HeapMemory, PagesOfAnExitedThreadFreedElsewhereDoNotStayResident) {
  if (!heap_on()) GTEST_SKIP() << "operator_new mode";
  own::heap::trim();
  const std::size_t before = pages_in_use();
  std::vector<own::shared_ptr<sixty_four>> objects;
  std::thread([&] {
    for (int i = 0; i < 100000; ++i) objects.push_back(own::make_shared<sixty_four>());  // ~120 pages
  }).join();
  objects.clear();  // every page an orphan emptied here, under the lock
  const own::heap::statistics after = own::heap::current_statistics();
  EXPECT_EQ(after.orphaned_pages, 0u);
  EXPECT_LE(after.in_use_bytes / page, before);
  if (!OWN_TEST_ASAN) {
    EXPECT_LE(after.cached_bytes, 4 * mib);  // the rest went back to the system
  }
}

TEST(HeapMemory, PagesAnotherThreadEmptiedGoBackWhileTheirOwnerLives) {
  if (!heap_on()) GTEST_SKIP() << "operator_new mode";
  const std::size_t before = pages_in_use();
  std::vector<own::shared_ptr<sixty_four>> objects;
  std::mutex m;
  std::condition_variable cv;
  int step = 0;
  std::size_t while_owner_lives = 0;
  std::thread producer([&] {
    for (int i = 0; i < 100000; ++i) objects.push_back(own::make_shared<sixty_four>());
    std::unique_lock<std::mutex> lock(m);
    step = 1;
    cv.notify_all();
    cv.wait(lock, [&] { return step == 2; });
    own::heap::trim();  // (as would its next allocation of any size from a fresh page)
    while_owner_lives = pages_in_use();
    step = 3;
    cv.notify_all();
  });
  {
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return step == 1; });
    objects.clear();  // freed on this thread: the producer's full pages are reawakened
    own::heap::trim();  // passes on the blocks of the last page this thread freed into, held back
    step = 2;
    cv.notify_all();
    cv.wait(lock, [&] { return step == 3; });
  }
  producer.join();
  EXPECT_LE(while_owner_lives, before + 1);  // its current page
}

TEST(HeapMemory, FreePagesStayResidentForTheDelayThenGoBack) {
  if (!heap_on()) GTEST_SKIP() << "operator_new mode";
  if (OWN_TEST_ASAN) GTEST_SKIP() << "pages from operator new: kept, never given back";
  own::heap::trim();
  {
    std::vector<own::shared_ptr<sixty_four>> objects;
    for (int i = 0; i < 100000; ++i) objects.push_back(own::make_shared<sixty_four>());  // ~120 pages
  }
  // Freed by a thread that lives on: kept for the next structure it builds.
  const std::size_t freed = own::heap::current_statistics().cached_bytes;
  EXPECT_GE(freed, 6 * mib);
  // Another thread's exit gives back its own pages (here one, taken from those kept), not these.
  std::thread([] { (void)own::make_shared<int>(1); }).join();
  EXPECT_GE(own::heap::current_statistics().cached_bytes, freed - page);
  std::this_thread::sleep_for(own::heap::free_page_delay + std::chrono::milliseconds(100));
  std::thread([] { (void)own::make_shared<int>(1); }).join();  // a page taken and given back
  EXPECT_LE(own::heap::current_statistics().cached_bytes, 2 * mib);  // the 2 MiB kept however long
}

TEST(HeapMemory, TrimGivesBackTheFreePagesKept) {
  if (!heap_on()) GTEST_SKIP() << "operator_new mode";
  const auto make_and_free = [] {
    std::vector<own::shared_ptr<sixty_four>> objects;
    for (int i = 0; i < 40000; ++i) objects.push_back(own::make_shared<sixty_four>());
  };
  make_and_free();  // on this thread, which lives on: its pages stay resident
  EXPECT_GT(own::heap::current_statistics().cached_bytes, 0u);
  own::heap::trim();
  if (OWN_TEST_ASAN) {
    // Pages from operator new there: kept, and nothing to give back.
    EXPECT_GT(own::heap::current_statistics().cached_bytes, 0u);
    return;
  }
  EXPECT_EQ(own::heap::current_statistics().cached_bytes, 0u);
  // And the pages given back are used again.
  const std::size_t mapped = own::heap::current_statistics().mapped_bytes;
  make_and_free();
  EXPECT_EQ(own::heap::current_statistics().mapped_bytes, mapped);
}

// ---------------------------------------------------------------------------------------------
// fork

TEST(HeapFork, TheChildFreesTheParentsBlocksAndAllocatesOnNewThreads) {
  std::vector<own::shared_ptr<tracked>> parents;
  for (int i = 0; i < 5000; ++i) parents.push_back(own::make_shared<tracked>(i));
  // Another thread is allocating and freeing while this one forks (not under AddressSanitizer,
  // whose own allocator, in gcc 12, deadlocks in a child forked while another thread allocates).
  std::atomic<bool> stop{false};
  std::thread busy([&] {
    while (!OWN_TEST_ASAN && !stop.load()) {
      std::vector<own::shared_ptr<int>> v;
      for (int i = 0; i < 100; ++i) v.push_back(own::make_shared<int>(i));
    }
  });
  if (OWN_TEST_ASAN) busy.join();
  for (int round = 0; round < 5; ++round) {
    const pid_t pid = ::fork();
    ASSERT_NE(pid, -1);
    if (pid == 0) {
      // The child: no gtest assertions, an exit code.
      int code = 0;
      parents.clear();
      if (tracked::live() != 0) code = 1;
      std::vector<own::shared_ptr<int>> mine;
      auto make = [&] {
        for (int i = 0; i < 20000; ++i) mine.push_back(own::make_shared<int>(i));
      };
      if (OWN_TEST_TSAN) {
        make();  // ThreadSanitizer cannot start threads after a multi-threaded fork
      } else {
        std::thread(make).join();
      }
      long sum = 0;
      for (const auto& p : mine) sum += *p;
      if (sum != 20000L * 19999 / 2) code = 2;
      mine.clear();
      std::_Exit(code);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status)) << status;
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  stop = true;
  if (busy.joinable()) busy.join();
  EXPECT_EQ(tracked::live(), 5000);
}

TEST(HeapFork, APageAnotherThreadWasReawakeningAtTheForkIsUsableInTheChild) {
  if (!heap_on()) GTEST_SKIP() << "operator_new mode";
  // White-box: a remote free frozen by the fork between pushing a full page of this thread onto its
  // reawakened stack and setting the page back to normal (the thread doing it is gone in the child).
  constexpr std::size_t size = 1792;  // a class nothing else here uses: 36 blocks a page
  own::heap_allocator<std::byte> a;
  std::vector<std::byte*> blocks;
  for (int i = 0; i < 40; ++i) blocks.push_back(a.allocate(size));  // the first page is parked full
  own::detail::heap_page* page = own::detail::heap_page_of(blocks[0]);
  ASSERT_EQ(page->remote.load(), own::detail::remote_full);
  auto* freed = reinterpret_cast<own::detail::heap_block*>(blocks[0]);
  freed->next = nullptr;
  page->remote.store(reinterpret_cast<std::uintptr_t>(freed) | own::detail::remote_reawakening);
  own::detail::thread_heap& heap = own::detail::this_thread_heap;
  page->reawakened_next = heap.reawakened.load();
  heap.reawakened.store(page);
  const pid_t pid = ::fork();
  ASSERT_NE(pid, -1);
  if (pid == 0) {
    ::alarm(20);  // a hang fails the test
    std::vector<std::byte*> more;
    for (int i = 0; i < 200; ++i) more.push_back(a.allocate(size));  // through that page and on
    for (std::byte* p : more) a.deallocate(p, size);
    std::_Exit(0);
  }
  // The parent: the remote free finishes.
  page->remote.fetch_and(~own::detail::remote_state_mask);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status)) << "the child hung or crashed: status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  for (std::size_t i = 1; i < blocks.size(); ++i) a.deallocate(blocks[i], size);
  std::vector<std::byte*> again;
  for (int i = 0; i < 80; ++i) again.push_back(a.allocate(size));  // and in the parent too
  for (std::byte* p : again) a.deallocate(p, size);
}

TEST(HeapFork, TheChildFreesIntoAFullPageOfAThreadThatDidNotSurvive) {
  if (!heap_on()) GTEST_SKIP() << "operator_new mode";
  // Another thread's full, armed page; in the child that thread is gone (its thread-local storage,
  // where its heap was, may be reused or unmapped): a free must not reawaken the page into it.
  constexpr std::size_t size = 1536;  // 42 blocks a page
  own::heap_allocator<std::byte> a;
  std::vector<std::byte*> blocks;
  own::detail::thread_heap* other_heap = nullptr;
  std::mutex m;
  std::condition_variable cv;
  bool made = false, done = false;
  std::thread other([&] {
    for (int i = 0; i < 50; ++i) blocks.push_back(a.allocate(size));
    std::unique_lock<std::mutex> lock(m);
    other_heap = &own::detail::this_thread_heap;
    made = true;
    cv.notify_all();
    cv.wait(lock, [&] { return done; });
    for (std::byte* p : blocks) a.deallocate(p, size);
  });
  {
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return made; });
  }
  ASSERT_EQ(own::detail::heap_page_of(blocks[0])->remote.load(), own::detail::remote_full);
  const pid_t pid = ::fork();
  ASSERT_NE(pid, -1);
  if (pid == 0) {
    a.deallocate(blocks[0], size);
    own::heap::trim();  // passes the block on to its page, which a free may hold back
    std::_Exit(other_heap->reawakened.load() == nullptr && own::detail::heap_page_of(blocks[0])->remote.load() != own::detail::remote_full
                   ? 0
                   : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the free reached the dead thread's heap";
  {
    std::lock_guard<std::mutex> lock(m);
    done = true;
  }
  cv.notify_all();
  other.join();
}

// Fork handlers another library registers early (before the heap's first use) and that allocate.
std::atomic<int> handler_blocks{0};
void allocate_in_handler() {
  auto p = own::make_shared<std::array<char, 1000>>();
  handler_blocks += p ? 1 : 0;
}

TEST(HeapForkChild, HandlersRegisteredBeforeTheHeapsFirstUseMayAllocate) {
  SKIP_UNLESS_CHILD();
  ASSERT_EQ(::pthread_atfork(&allocate_in_handler, &allocate_in_handler, &allocate_in_handler), 0);
  own::make_shared<int>(1);  // the heap's first use in this process
  const pid_t pid = ::fork();
  ASSERT_NE(pid, -1);
  if (pid == 0) {
    ::alarm(10);  // a deadlock on the heap's lock fails the test
    std::_Exit(handler_blocks.load() == 2 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(handler_blocks.load(), 2);  // prepare and parent
}

TEST(HeapFork, HandlersRegisteredBeforeTheHeapsFirstUseMayAllocate) {
  if (in_child()) GTEST_SKIP() << "the parent's test";
  const child_result r = run_child("HeapForkChild.HandlersRegisteredBeforeTheHeapsFirstUseMayAllocate", {});
  EXPECT_TRUE(exited_cleanly(r)) << r.output;
  EXPECT_NE(r.output.find("[  PASSED  ] 1 test"), std::string::npos) << r.output;
}

// ---------------------------------------------------------------------------------------------
// The switch

TEST(HeapSwitchChild, OperatorNewModeSendsEveryBlockThere) {
  SKIP_UNLESS_CHILD();
  EXPECT_TRUE(own::heap::uses_operator_new());
  EXPECT_EQ(own::heap::current_statistics().mapped_bytes, 0u);
  auto p = own::make_shared<int>(1);
  own::shared_ptr<int> q(new int(2));
  std::thread([] { own::make_shared<tracked>(1); }).join();
  EXPECT_EQ(own::heap::current_statistics().mapped_bytes, 0u);  // no page was ever made
  if (OWN_TEST_COUNTS_NEW) {
    EXPECT_EQ(news_during([] { own::make_shared<sixty_four>(); }), 1);
  }
}

TEST(HeapSwitchChild, HeapModeUsesThePages) {
  SKIP_UNLESS_CHILD();
  EXPECT_FALSE(own::heap::uses_operator_new());
  auto p = own::make_shared<int>(1);
  EXPECT_GT(own::heap::current_statistics().in_use_bytes, 0u);
  if (OWN_TEST_COUNTS_NEW) {
    EXPECT_EQ(news_during([] { own::make_shared<sixty_four>(); }), 0);
  }
}

TEST(HeapSwitch, TheEnvironmentVariableChoosesTheModeForTheWholeProcess) {
  if (in_child()) GTEST_SKIP() << "the parent's test";
  const child_result to_new = run_child("HeapSwitchChild.OperatorNewModeSendsEveryBlockThere",
                                        {"OWN_DEFAULT_ALLOCATOR=operator_new"});
  EXPECT_TRUE(exited_cleanly(to_new)) << to_new.output;
  EXPECT_NE(to_new.output.find("[  PASSED  ] 1 test"), std::string::npos) << to_new.output;
  const child_result to_heap = run_child("HeapSwitchChild.HeapModeUsesThePages", {"OWN_DEFAULT_ALLOCATOR=heap"});
  EXPECT_TRUE(exited_cleanly(to_heap)) << to_heap.output;
  EXPECT_NE(to_heap.output.find("[  PASSED  ] 1 test"), std::string::npos) << to_heap.output;
  // A value that is neither says so, and the default holds.
  const child_result wrong = run_child("HeapSwitchChild.HeapModeUsesThePages", {"OWN_DEFAULT_ALLOCATOR=fast"});
  EXPECT_NE(wrong.output.find("own: OWN_DEFAULT_ALLOCATOR=fast is neither 'heap' nor 'operator_new'"), std::string::npos)
      << wrong.output;
}

// A program that replaces operator new (this one does, where it counts) gets own's blocks there by
// default, as it gets std's; heap_default_mode_test checks a program that does not.
TEST(HeapSwitchChild, DefaultModeFollowsTheProgramsOperatorNew) {
  SKIP_UNLESS_CHILD();
  EXPECT_TRUE(own::heap::uses_operator_new());
  EXPECT_EQ(news_during([] { own::make_shared<sixty_four>(); }), 1);
  long on_another_thread = 0;
  std::thread([&] { on_another_thread = news_during([] { own::make_shared<sixty_four>(); }); }).join();
  EXPECT_EQ(on_another_thread, 1);
  EXPECT_EQ(own::heap::current_statistics().mapped_bytes, 0u);
}

TEST(HeapSwitch, AProgramThatReplacesOperatorNewGetsTheBlocksThereByDefault) {
  if (!OWN_TEST_COUNTS_NEW || !OWN_CAN_LOCATE_OPERATOR_NEW) GTEST_SKIP() << "operator new is not this program's";
  if (in_child()) GTEST_SKIP() << "the parent's test";
  const child_result r = run_child("HeapSwitchChild.DefaultModeFollowsTheProgramsOperatorNew",
                                   {"OWN_HEAP_TEST_DEFAULT_MODE=1"}, {"OWN_DEFAULT_ALLOCATOR"});
  EXPECT_TRUE(exited_cleanly(r)) << r.output;
  EXPECT_NE(r.output.find("[  PASSED  ] 1 test"), std::string::npos) << r.output;
}

// ---------------------------------------------------------------------------------------------
// The sanitizers still see bugs

TEST(HeapSanitizerChild, UseAfterFree) {
  SKIP_UNLESS_CHILD();
  int* volatile dangling = nullptr;
  {
    auto p = own::make_shared<int>(7);
    dangling = p.get();
  }
  std::printf("read %d\n", *dangling);
}

TEST(HeapSanitizers, AUseAfterFreeIsReportedInBothModes) {
  if (!OWN_TEST_ASAN) GTEST_SKIP() << "needs AddressSanitizer";
  if (in_child()) GTEST_SKIP() << "the parent's test";
  // By default under ASan, blocks come from operator new: ASan's own report, with its quarantine.
  const child_result by_default =
      run_child("HeapSanitizerChild.UseAfterFree", {"OWN_HEAP_TEST_DEFAULT_MODE=1"}, {"OWN_DEFAULT_ALLOCATOR"});
  EXPECT_NE(by_default.output.find("heap-use-after-free"), std::string::npos) << by_default.output;
  // Forced onto the pages: the freed block is poisoned.
  const child_result paged = run_child("HeapSanitizerChild.UseAfterFree", {"OWN_DEFAULT_ALLOCATOR=heap"});
  EXPECT_NE(paged.output.find("use-after-poison"), std::string::npos) << paged.output;
}

// ---------------------------------------------------------------------------------------------
// Exceptions

struct throws_on_construction {
  explicit throws_on_construction(bool fail) {
    if (fail) throw std::runtime_error("constructor");
  }
  unsigned char bytes[48];
};

TEST(HeapExceptions, AThrowingConstructorLeavesNoBlockBehind) {
  if (!heap_on()) GTEST_SKIP() << "operator_new mode (exception_safety_test sweeps it)";
  std::thread([] {
    auto warm = own::make_shared<throws_on_construction>(false);
    const std::size_t before = pages_in_use();
    for (int i = 0; i < 20000; ++i) {
      EXPECT_THROW(own::make_shared<throws_on_construction>(true), std::runtime_error);
    }
    // 20000 leaked blocks of 64 bytes would hold 20 pages.
    EXPECT_LE(pages_in_use(), before);
  }).join();
}

struct big_deleter {
  std::atomic<int>* calls;
  unsigned char state[1400];  // a control block of a class nothing else here uses
  void operator()(int*) const { ++*calls; }
};

TEST(HeapExceptionsChild, WithNoMemoryLeftFactoriesThrowBadAllocAndAdoptersDelete) {
  SKIP_UNLESS_CHILD();
  // Address space capped a little above what is mapped: the heap runs out.
  rlimit limit{};
  std::ifstream statm("/proc/self/statm");
  std::size_t vm_pages = 0;
  statm >> vm_pages;
  std::vector<own::shared_ptr<std::array<char, 2000>>> hog;
  hog.reserve(100000);  // so that it is the heap that runs out
  limit.rlim_cur = limit.rlim_max = vm_pages * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE)) + 32 * mib;
  ASSERT_EQ(::setrlimit(RLIMIT_AS, &limit), 0);
  bool ran_out = false;
  try {
    for (;;) hog.push_back(own::make_shared<std::array<char, 2000>>());
  } catch (const std::bad_alloc&) {
    ran_out = true;
  }
  ASSERT_TRUE(ran_out);
  static int object = 0;
  std::atomic<int> calls{0};
  EXPECT_THROW(own::shared_ptr<int>(&object, big_deleter{&calls, {}}), std::bad_alloc);
  EXPECT_EQ(calls.load(), 1);  // the pointer was handed to the deleter, as std requires
  hog.clear();
  own::shared_ptr<int> works(&object, big_deleter{&calls, {}});  // memory is back
  EXPECT_EQ(works.get(), &object);
}

TEST(HeapExceptions, WithNoMemoryLeftFactoriesThrowBadAllocAndAdoptersDelete) {
  if (!heap_on()) GTEST_SKIP() << "operator_new mode";
  if (OWN_TEST_ASAN || OWN_TEST_TSAN) GTEST_SKIP() << "the sanitizers reserve address space beyond any cap";
  if (in_child()) GTEST_SKIP() << "the parent's test";
  const child_result r = run_child("HeapExceptionsChild.WithNoMemoryLeftFactoriesThrowBadAllocAndAdoptersDelete", {});
  EXPECT_TRUE(exited_cleanly(r)) << r.output;
  EXPECT_NE(r.output.find("[  PASSED  ] 1 test"), std::string::npos) << r.output;
}

}  // namespace
