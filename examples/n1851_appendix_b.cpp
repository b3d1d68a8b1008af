// SPDX-License-Identifier: BSL-1.0
// N1851 Appendix B, made real: batches of work items are read into a vector housed in a shared_ptr
// (one allocation, from a thread-safe allocator), and each item is handed to an asynchronous
// processor as a managed_ptr<const WorkItem> made from an aliasing shared_ptr. Two worker threads
// take items from both ends of the queue, so items finish out of order. Each batch's vector must be
// destroyed exactly once, after its last item has been processed; the program checks that and
// exits non-zero otherwise. Built and run as a test, under TSan too.
#include <own/managed_ptr.hpp>
#include <own/shared_ptr.hpp>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <memory_resource>
#include <mutex>
#include <sstream>
#include <thread>
#include <vector>

namespace {

std::atomic<long> items_alive{0};
std::atomic<long> items_destroyed_unprocessed{0};

class WorkItem {
 public:
  explicit WorkItem(int payload) : payload_(payload) { ++items_alive; }
  WorkItem(const WorkItem& other) : payload_(other.payload_), processed_(other.processed_.load()) { ++items_alive; }
  ~WorkItem() {
    if (!processed_) ++items_destroyed_unprocessed;
    --items_alive;
  }
  int payload() const { return payload_; }
  void mark_processed() const { processed_ = true; }

 private:
  int payload_;
  mutable std::atomic<bool> processed_{false};
};

// Counts what the "HighPerformanceThreadSafeAllocator" hands out, to check it all comes back.
class counting_resource : public std::pmr::memory_resource {
 public:
  long in_use() const { return in_use_.load(); }

 private:
  void* do_allocate(std::size_t bytes, std::size_t align) override {
    ++in_use_;
    return upstream_->allocate(bytes, align);
  }
  void do_deallocate(void* p, std::size_t bytes, std::size_t align) override {
    --in_use_;
    upstream_->deallocate(p, bytes, align);
  }
  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override { return this == &other; }

  std::pmr::synchronized_pool_resource pool_;
  std::pmr::memory_resource* upstream_ = &pool_;
  std::atomic<long> in_use_{0};
};

class AsynchProcessor {
 public:
  explicit AsynchProcessor(int workers) {
    for (int i = 0; i < workers; ++i) threads_.emplace_back([this, i] { run(i % 2 == 0); });
  }
  ~AsynchProcessor() { stop(); }

  // Processes what is queued, then joins the workers.
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    ready_.notify_all();
    for (auto& t : threads_) {
      if (t.joinable()) t.join();
    }
  }

  // Processes the item on a worker thread. The processor owns the item from here on, and does not
  // care who else does.
  void processWorkItem(own::managed_ptr<const WorkItem> workItem) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back(std::move(workItem));
    }
    ready_.notify_one();
  }

  long processed() const { return processed_.load(); }
  long checksum() const { return checksum_.load(); }

 private:
  void run(bool from_front) {
    for (;;) {
      own::managed_ptr<const WorkItem> item;
      {
        std::unique_lock<std::mutex> lock(mutex_);
        ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
        if (queue_.empty()) return;
        if (from_front) {
          item = std::move(queue_.front());
          queue_.pop_front();
        } else {
          item = std::move(queue_.back());
          queue_.pop_back();
        }
      }
      checksum_ += item->payload();
      item->mark_processed();
      ++processed_;
      // `item` goes here: the last one of a batch destroys the batch's vector.
    }
  }

  std::mutex mutex_;
  std::condition_variable ready_;
  std::deque<own::managed_ptr<const WorkItem>> queue_;
  bool stopping_ = false;
  std::atomic<long> processed_{0};
  std::atomic<long> checksum_{0};
  std::vector<std::thread> threads_;
};

void ReadWorkItems(std::istream& workStream, std::vector<WorkItem>& items, int numWorkItems) {
  for (int i = 0; i < numWorkItems; ++i) {
    int payload;
    workStream >> payload;
    items.emplace_back(payload);
  }
}

}  // namespace

int main() {
  constexpr int batches = 200;
  constexpr int per_batch = 50;
  std::ostringstream wire;
  long expected_checksum = 0;
  for (int b = 0; b < batches; ++b) {
    wire << per_batch << ' ';
    for (int i = 0; i < per_batch; ++i) {
      wire << b + i << ' ';
      expected_checksum += b + i;
    }
  }
  std::istringstream workStream(wire.str());

  counting_resource alloc;
  long processed = 0, checksum = 0;
  {
    AsynchProcessor processor(2);
    int numWorkItems;
    while (workStream >> numWorkItems) {
      own::shared_ptr<std::vector<WorkItem>> itemsPtr;
      itemsPtr = own::make_shared_object_with_alloc<std::vector<WorkItem>>(&alloc);
      itemsPtr->reserve(numWorkItems);
      ReadWorkItems(workStream, *itemsPtr, numWorkItems);
      for (std::vector<WorkItem>::iterator i = itemsPtr->begin(); i != itemsPtr->end(); ++i) {
        own::shared_ptr<WorkItem> item(itemsPtr, &*i);  // aliasing
        processor.processWorkItem(item);                // shared to managed conversion
      }
      // The vector held by itemsPtr is destroyed when the last WorkItem has been processed.
    }
    processor.stop();
    processed = processor.processed();
    checksum = processor.checksum();
  }

  const bool ok = processed == batches * per_batch && checksum == expected_checksum && items_alive == 0 &&
                  items_destroyed_unprocessed == 0 && alloc.in_use() == 0;
  std::printf("processed %ld items in %d batches; items alive %ld, destroyed unprocessed %ld, blocks in use %ld: %s\n",
              processed, batches, items_alive.load(), items_destroyed_unprocessed.load(), alloc.in_use(),
              ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
