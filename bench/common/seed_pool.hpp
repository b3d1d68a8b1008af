// SPDX-License-Identifier: BSL-1.0
// The stack-heap-pool seed's Pool, reimplemented from its description (not its code): at
// construction it news all N objects and lists them in an "available" array, with an "in use" array
// of N empty slots. acquire() linearly scans "available" for a non-null entry, clears it and
// linearly scans "in use" for an empty slot to record it; release() linearly scans "in use" for the
// object, calls its reset(), and scans "available" for an empty slot. Both arrays are sized at
// construction, so nothing is allocated after it; the scans make acquire/release O(N).
#pragma once

#include <algorithm>
#include <cstddef>
#include <memory>

namespace own_bench {

template <class Obj>
class seed_pool {
 public:
  explicit seed_pool(std::size_t n)
      : n_(n), available_(std::make_unique<Obj*[]>(n)), in_use_(std::make_unique<Obj*[]>(n)) {
    for (std::size_t i = 0; i < n_; ++i) {
      available_[i] = new Obj{};
      in_use_[i] = nullptr;
    }
  }
  seed_pool(const seed_pool&) = delete;
  seed_pool& operator=(const seed_pool&) = delete;
  ~seed_pool() {
    for (std::size_t i = 0; i < n_; ++i) {
      delete available_[i];
      delete in_use_[i];
    }
  }

  // Null when every object is in use.
  Obj* acquire() {
    Obj** const avail_end = available_.get() + n_;
    Obj** a = std::find_if(available_.get(), avail_end, [](Obj* p) { return p != nullptr; });
    if (a == avail_end) return nullptr;
    Obj* obj = *a;
    *a = nullptr;
    *std::find(in_use_.get(), in_use_.get() + n_, nullptr) = obj;
    return obj;
  }

  // Ignores pointers the pool did not hand out.
  void release(Obj* obj) {
    Obj** const used_end = in_use_.get() + n_;
    Obj** u = std::find(in_use_.get(), used_end, obj);
    if (u == used_end) return;
    obj->reset();
    *u = nullptr;
    *std::find(available_.get(), available_.get() + n_, nullptr) = obj;
  }

 private:
  std::size_t n_;
  std::unique_ptr<Obj*[]> available_;
  std::unique_ptr<Obj*[]> in_use_;
};

}  // namespace own_bench
