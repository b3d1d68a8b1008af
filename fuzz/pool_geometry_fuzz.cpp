// SPDX-License-Identifier: BSL-1.0
// libFuzzer target: pool geometry and options. The input picks a pool kind (own::pool,
// concurrent_pool, multipool, concurrent_multipool, object_pool, concurrent_object_pool, fixed or
// growing) and its geometry: block size, alignment, pool_options fields, a multipool's maximum, an
// object pool's count, drawn towards the edges of the size_t range. The pool must either refuse the
// combination at construction the way its header says (std::invalid_argument for an alignment
// that is not a power of two, std::bad_alloc for sizes that do not fit), or serve a program of
// allocate/deallocate/reserve/release steps, also from the input, checked after each step against
// a model: every block aligned and as large as asked, no two live blocks overlapping (and each
// block's contents intact until it is freed), statistics() exact, and upstream used as documented.
//
// Upstream is fuzz::bounded_resource: at most 64 MiB out at once, so a geometry too large for the
// machine is refused with std::bad_alloc, and every block aligned to exactly what the pool asked
// for, no more. Built in checked mode, so the pools' own consistency checks run too.
//
// Build and run: fuzz/run.sh (clang++-14 -fsanitize=fuzzer,address,undefined -DOWN_CHECKED).
#include <own/addressed_pool_allocator.hpp>
#include <own/concurrent_pool.hpp>
#include <own/multipool.hpp>
#include <own/object_pool.hpp>
#include <own/pool.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <type_traits>
#include <vector>

#include "fuzz_support.hpp"

namespace {

using fuzz::size_max;

constexpr std::size_t upstream_budget = std::size_t{64} << 20;
constexpr std::size_t max_steps = 200;
constexpr std::size_t max_live = 64;

// pool_options from the input: anything, including "unlimited" values and bad alignments.
own::pool_options read_options(FuzzedDataProvider& in) {
  own::pool_options o;
  if (!in.ConsumeBool()) return o;
  o.growth = in.ConsumeBool() ? own::pool_growth::geometric : own::pool_growth::constant;
  o.initial_chunk_blocks = fuzz::edgy_size(in, 64);
  o.max_chunk_blocks = fuzz::edgy_size(in, 4096);
  switch (in.ConsumeIntegralInRange<int>(0, 2)) {  // 0 (the natural one), a small power of two, or any
    case 0: o.alignment = 0; break;
    case 1: o.alignment = std::size_t{1} << in.ConsumeIntegralInRange<int>(0, 7); break;
    default: o.alignment = fuzz::edgy_size(in, 128); break;
  }
  o.thread_cache_blocks = in.ConsumeBool() ? 0 : fuzz::edgy_size(in, 512);
  o.name = in.ConsumeBool() ? "fuzzed" : nullptr;
  o.findable_by_address = in.ConsumeBool();
  return o;
}

// A concurrent pool's magazine holds thread_cache_blocks pointers and one more word.
bool magazine_wraps(const own::pool_options& o) { return o.thread_cache_blocks > (size_max - 8) / 8; }

// Whether some chunk of blocks of `block_size` bytes may exceed upstream's budget: the pool may then
// refuse it with std::bad_alloc before asking upstream (its size would overflow).
bool chunks_may_be_huge(std::size_t block_size, const own::pool_options& o) {
  const std::size_t blocks = std::max<std::size_t>({o.initial_chunk_blocks, o.max_chunk_blocks, 1});
  return block_size > upstream_budget / blocks;
}

// The blocks a pool has handed out: where, how large, and what they hold, so that overlap and a
// write by the pool into a live block both show.
class live_blocks {
 public:
  struct entry {
    std::size_t bytes;
    std::size_t alignment;  // as asked for (memory_resource calls), or 0 for allocate()
    bool upstream;          // expected to have gone to the upstream resource
    unsigned char tag;
  };

  void add(void* p, entry e) {
    FUZZ_REQUIRE(p != nullptr);
    const auto at = reinterpret_cast<std::uintptr_t>(p);
    FUZZ_REQUIRE(e.bytes <= size_max - at, "block %p of %zu bytes wraps the address space", p, e.bytes);
    const auto next = blocks_.lower_bound(p);
    if (next != blocks_.end()) {
      FUZZ_REQUIRE(at + e.bytes <= reinterpret_cast<std::uintptr_t>(next->first) && next->first != p,
                   "block %p (%zu bytes) overlaps live block %p", p, e.bytes, next->first);
    }
    if (next != blocks_.begin()) {
      const auto before = std::prev(next);
      FUZZ_REQUIRE(reinterpret_cast<std::uintptr_t>(before->first) + before->second.bytes <= at,
                   "block %p overlaps live block %p (%zu bytes)", p, before->first, before->second.bytes);
    }
    e.tag = static_cast<unsigned char>(++tags_);
    fill(p, e);
    blocks_.emplace(p, e);
  }

  // The index-th live block (mod the count), checked intact and forgotten.
  std::pair<void*, entry> take(std::size_t index) {
    auto it = std::next(blocks_.begin(), static_cast<std::ptrdiff_t>(index % blocks_.size()));
    const std::pair<void*, entry> taken = *it;
    verify(taken.first, taken.second);
    blocks_.erase(it);
    return taken;
  }

  // release(): every block that came from the pool's chunks is gone.
  void forget_pooled() {
    for (auto it = blocks_.begin(); it != blocks_.end();) it = it->second.upstream ? std::next(it) : blocks_.erase(it);
  }

  std::size_t pooled() const { return count_if([](const entry& e) { return !e.upstream; }); }
  std::size_t upstream() const { return count_if([](const entry& e) { return e.upstream; }); }
  std::size_t upstream_bytes() const {
    std::size_t n = 0;
    for (const auto& b : blocks_) n += b.second.upstream ? b.second.bytes : 0;
    return n;
  }
  std::size_t size() const { return blocks_.size(); }
  bool empty() const { return blocks_.empty(); }

 private:
  template <class F>
  std::size_t count_if(F f) const {
    return static_cast<std::size_t>(std::count_if(blocks_.begin(), blocks_.end(), [&](const auto& b) { return f(b.second); }));
  }
  // The first and last 16 bytes carry the tag: enough to see an overlap or a stray link, cheap for
  // huge blocks.
  static void fill(void* p, const entry& e) {
    const std::size_t n = std::min<std::size_t>(e.bytes, 16);
    std::memset(p, e.tag, n);
    std::memset(static_cast<unsigned char*>(p) + e.bytes - n, e.tag, n);
  }
  static void verify(void* p, const entry& e) {
    const std::size_t n = std::min<std::size_t>(e.bytes, 16);
    const auto* bytes = static_cast<const unsigned char*>(p);
    for (std::size_t i = 0; i < n; ++i) {
      FUZZ_REQUIRE(bytes[i] == e.tag && bytes[e.bytes - n + i] == e.tag, "block %p changed while out", p);
    }
  }

  std::map<void*, entry> blocks_;
  unsigned tags_ = 0;
};

// ------------------------------------------------------------------------------------------------
// What the block pool and multipool programs share: construction checked against the refusals the
// headers document, the step loop, and the steps both take. `Derived` supplies allocate(),
// give_back(index), forget_released(), check(), and steps of its own (extra_step).

template <class Derived, class Pool>
class pool_program {
 protected:
  static constexpr bool concurrent = std::is_same_v<Pool, own::concurrent_pool> || std::is_same_v<Pool, own::concurrent_multipool>;

  pool_program(FuzzedDataProvider& in, fuzz::bounded_resource& upstream) : in_(in), upstream_(upstream) {}

  // Makes the pool of `size` (block size or maximum): true if made, false if refused as documented:
  // std::invalid_argument exactly for an alignment that is not 0 or a power of two, std::bad_alloc
  // for a magazine that does not fit a size_t (concurrent pools) or where `may_refuse` says.
  bool make(std::size_t size, const own::pool_options& options, bool may_refuse) {
    const bool bad_alignment = options.alignment != 0 && !fuzz::power_of_two(options.alignment);
    const bool bad_magazine = concurrent && magazine_wraps(options);
    // A findable_by_address pool refuses a block (or, for a multipool, a largest class) that does
    // not fit a span beside its headers, and must take any up to a quarter of one.
    const bool beyond_span = options.findable_by_address && (size > own::pool_span / 4 || options.alignment > own::pool_span / 4);
    try {
      pool_.emplace(size, options, &upstream_);
    } catch (const std::invalid_argument&) {
      FUZZ_REQUIRE(bad_alignment || beyond_span, "size %zu, alignment %zu refused", size, options.alignment);
      return false;
    } catch (const std::bad_alloc&) {
      FUZZ_REQUIRE(!bad_alignment, "a bad alignment gives std::invalid_argument");
      FUZZ_REQUIRE(may_refuse || bad_magazine, "size %zu, alignment %zu refused", size, options.alignment);
      return false;
    }
    FUZZ_REQUIRE(!bad_alignment, "alignment %zu accepted", options.alignment);
    FUZZ_REQUIRE(!bad_magazine, "a magazine of %zu blocks accepted", options.thread_cache_blocks);
    FUZZ_REQUIRE(pool_->upstream_resource() == &upstream_);
    return true;
  }

  // A findable_by_address pool's block leads back to the pool from its first and last byte.
  void check_found(const void* block, std::size_t bytes) const {
    if (!pool_->findable_by_address()) return;
    using finder = own::addressed_pool_allocator<char, Pool>;
    const auto* last = static_cast<const char*>(block) + (bytes ? bytes - 1 : 0);
    FUZZ_REQUIRE(finder::from_address(block).pool() == &*pool_ && finder::from_address(last).pool() == &*pool_,
                 "block %p of %zu bytes does not lead back to its pool", block, bytes);
  }

  // The program: steps from the input, each checked, then every block given back.
  void steps() {
    Derived& self = static_cast<Derived&>(*this);
    self.check();
    for (std::size_t step = 0; step < max_steps && in_.remaining_bytes() > 0; ++step) {
      const int op = in_.ConsumeIntegralInRange<int>(0, 7);
      switch (op) {
        case 0:
        case 1: self.allocate(); break;
        case 2:
          if (!blocks_.empty()) self.give_back(in_.ConsumeIntegral<std::uint8_t>());
          break;
        case 3:
          pool_->release();
          blocks_.forget_pooled();
          self.forget_released();
          break;
        case 4: upstream_.refuse_next(); break;
        case 5:  // a few more at once: chunks fill up and the pool grows
          for (int i = in_.ConsumeIntegralInRange<int>(1, 16); i-- != 0;) self.allocate();
          break;
        default: self.extra_step(op); break;
      }
      self.check();
    }
    while (!blocks_.empty()) self.give_back(0);
    self.check();
  }

  // The statistics both kinds keep exactly, and what upstream holds for the chunks: exactly
  // bytes_reserved and chunks for the single-threaded pools, at least that for the concurrent ones
  // (their magazines come from upstream too).
  void check_statistics(const own::pool_statistics& s) const {
    FUZZ_REQUIRE(s.blocks_in_use == blocks_.pooled(), "blocks_in_use %zu, %zu out", s.blocks_in_use, blocks_.pooled());
    FUZZ_REQUIRE(s.upstream_allocations == upstream_requests_, "upstream_allocations %zu, model %zu", s.upstream_allocations,
                 upstream_requests_);
    FUZZ_REQUIRE(s.upstream_bytes_in_use == blocks_.upstream_bytes(), "upstream_bytes_in_use %zu, model %zu",
                 s.upstream_bytes_in_use, blocks_.upstream_bytes());
    FUZZ_REQUIRE(s.high_water_mark >= s.blocks_in_use);
    const std::size_t chunk_bytes = upstream_.bytes_in_use() - blocks_.upstream_bytes();
    const std::size_t chunk_count = upstream_.blocks_in_use() - blocks_.upstream();
    if constexpr (concurrent) {
      FUZZ_REQUIRE(s.bytes_reserved <= chunk_bytes && s.chunks <= chunk_count);
    } else {
      FUZZ_REQUIRE(s.bytes_reserved == chunk_bytes && s.chunks == chunk_count, "bytes_reserved %zu, chunks %zu; upstream %zu, %zu",
                   s.bytes_reserved, s.chunks, chunk_bytes, chunk_count);
    }
  }

  // Runs `f`, which may throw std::bad_alloc only if upstream refused it (or, `huge`, if the pool
  // may refuse it by itself), and must then have changed nothing. Returns whether it threw.
  template <class F>
  bool strongly(F f, bool huge) {
    const own::pool_statistics before = pool_->statistics();
    const std::size_t refusals = upstream_.refusals();
    bool threw = false;
    try {
      f();
    } catch (const std::bad_alloc&) {
      FUZZ_REQUIRE(huge || upstream_.refusals() > refusals, "std::bad_alloc without upstream refusing");
      const own::pool_statistics after = pool_->statistics();
      FUZZ_REQUIRE(after.blocks_in_use == before.blocks_in_use && after.chunks == before.chunks &&
                   after.bytes_reserved == before.bytes_reserved && after.upstream_allocations == before.upstream_allocations);
      threw = true;
    }
    upstream_.accept_next();
    return threw;
  }

  FuzzedDataProvider& in_;
  fuzz::bounded_resource& upstream_;
  std::size_t upstream_requests_ = 0;
  live_blocks blocks_;  // declared before the pool: destroyed after it
  std::optional<Pool> pool_;
};

// ------------------------------------------------------------------------------------------------
// own::pool and own::concurrent_pool.

template <class Pool>
class block_pool_program : public pool_program<block_pool_program<Pool>, Pool> {
  using base = pool_program<block_pool_program<Pool>, Pool>;
  friend base;
  using base::blocks_, base::in_, base::pool_, base::strongly, base::upstream_, base::upstream_requests_;

 public:
  block_pool_program(FuzzedDataProvider& in, fuzz::bounded_resource& upstream) : base(in, upstream) {}

  void run() {
    const std::size_t requested = fuzz::edgy_size(in_, 4096);
    const own::pool_options options = read_options(in_);
    const std::size_t alignment = std::max<std::size_t>(options.alignment, alignof(void*));
    // Refused only if the block size rounded up to the alignment does not fit.
    if (!this->make(requested, options, requested > size_max - (alignment - 1))) return;
    Pool& pool = *pool_;
    FUZZ_REQUIRE(fuzz::power_of_two(pool.block_alignment()) && pool.block_alignment() >= alignment,
                 "block alignment %zu for option %zu", pool.block_alignment(), options.alignment);
    FUZZ_REQUIRE(pool.block_size() >= requested && pool.block_size() >= sizeof(void*) &&
                     pool.block_size() % pool.block_alignment() == 0,
                 "block size %zu, alignment %zu for %zu", pool.block_size(), pool.block_alignment(), requested);
    huge_chunks_ = chunks_may_be_huge(pool.block_size(), options);
    this->steps();
  }

 private:
  void extra_step(int op) {
    if (op == 6) {
      allocate_bytes();
    } else {
      reserve();
    }
  }
  void forget_released() {
    peak_ = 0;
    reserved_ = 0;
  }

  void allocate() {
    if (blocks_.size() >= max_live) return;
    const std::size_t chunks = pool_->statistics().chunks;
    void* p = nullptr;
    if (strongly([&] { p = pool_->allocate(); }, huge_chunks_)) return;
    FUZZ_REQUIRE(reinterpret_cast<std::uintptr_t>(p) % pool_->block_alignment() == 0, "block %p misaligned", p);
    this->check_found(p, pool_->block_size());
    blocks_.add(p, {pool_->block_size(), 0, false, 0});
    peak_ = std::max(peak_, blocks_.pooled());
    if (reserved_ > 0) {
      --reserved_;
      FUZZ_REQUIRE(pool_->statistics().chunks == chunks, "a reserved block needed a new chunk");
    }
  }

  // Through the memory_resource interface: a block if it fits, else upstream.
  void allocate_bytes() {
    if (blocks_.size() >= max_live) return;
    const std::size_t bytes = fuzz::edgy_size(in_, 2 * pool_->block_size() + 1);
    const std::size_t alignment = std::size_t{1} << in_.template ConsumeIntegralInRange<int>(0, 12);
    const bool fits = bytes <= pool_->block_size() && alignment <= pool_->block_alignment();
    void* p = nullptr;
    if (strongly([&] { p = static_cast<std::pmr::memory_resource&>(*pool_).allocate(bytes, alignment); }, !fits || huge_chunks_)) {
      return;
    }
    FUZZ_REQUIRE(reinterpret_cast<std::uintptr_t>(p) % alignment == 0, "%p for alignment %zu", p, alignment);
    blocks_.add(p, {bytes, alignment, !fits, 0});
    if (fits) {
      peak_ = std::max(peak_, blocks_.pooled());
      if (reserved_ > 0) --reserved_;
    } else {
      ++upstream_requests_;
      reserved_ = 0;  // the promise covers allocate() calls only
    }
  }

  void give_back(std::size_t index) {
    const auto [p, e] = blocks_.take(index);
    if (e.alignment == 0) {
      pool_->deallocate(p);
    } else {
      static_cast<std::pmr::memory_resource&>(*pool_).deallocate(p, e.bytes, e.alignment);
    }
  }

  void reserve() {
    const std::size_t n = fuzz::edgy_size(in_, 64);
    if (strongly([&] { pool_->reserve(n); }, huge_chunks_ || n > upstream_budget / pool_->block_size())) return;
    reserved_ = std::min<std::size_t>(n, max_live);
  }

  void check() const {
    const own::pool_statistics s = pool_->statistics();
    this->check_statistics(s);
    FUZZ_REQUIRE(s.high_water_mark <= s.bytes_reserved / pool_->block_size(), "bytes_reserved %zu for %zu blocks carved",
                 s.bytes_reserved, s.high_water_mark);
    if constexpr (base::concurrent) {
      FUZZ_REQUIRE(s.high_water_mark >= peak_, "high_water_mark %zu below the peak %zu", s.high_water_mark, peak_);
    } else {
      FUZZ_REQUIRE(s.high_water_mark == peak_, "high_water_mark %zu, peak %zu", s.high_water_mark, peak_);
    }
  }

  bool huge_chunks_ = false;
  std::size_t peak_ = 0;      // most pooled blocks out at once since construction or release()
  std::size_t reserved_ = 0;  // allocate() calls promised to need no new chunk
};

// ------------------------------------------------------------------------------------------------
// own::multipool and own::concurrent_multipool.

template <class Multipool>
class multipool_program : public pool_program<multipool_program<Multipool>, Multipool> {
  using base = pool_program<multipool_program<Multipool>, Multipool>;
  friend base;
  using base::blocks_, base::in_, base::pool_, base::strongly, base::upstream_, base::upstream_requests_;
  static constexpr std::size_t class_limit = std::size_t{1} << 62;

 public:
  multipool_program(FuzzedDataProvider& in, fuzz::bounded_resource& upstream) : base(in, upstream) {}

  void run() {
    const std::size_t requested = fuzz::edgy_size(in_, 8192);
    options_ = read_options(in_);
    if (!this->make(requested, options_, options_.alignment > class_limit)) return;
    max_ = pool_->max_block_size();
    FUZZ_REQUIRE(max_ >= std::min(requested, class_limit) && max_ <= class_limit && max_ >= 8,
                 "max_block_size() %zu for %zu", max_, requested);
    this->steps();
  }

 private:
  void extra_step(int) { allocate(); }
  void forget_released() {}

  void allocate() {
    if (blocks_.size() >= max_live) return;
    const std::size_t bytes = fuzz::edgy_size(in_, max_ + max_ / 4);
    const std::size_t alignment = std::size_t{1} << in_.template ConsumeIntegralInRange<int>(0, 8);
    // A class holds it if `bytes` (at least one) rounded up to the alignment is no more than the
    // largest class (every class from 16 bytes on is a multiple of 16).
    const std::size_t need = std::max(bytes, alignment);
    const bool pooled = alignment <= alignof(std::max_align_t) && need <= max_ && (need + alignment - 1) / alignment * alignment <= max_;
    void* p = nullptr;
    if (strongly([&] { p = pool_->allocate(bytes, alignment); }, pooled && chunks_may_be_huge(std::max(2 * bytes + 16, options_.alignment), options_))) {
      return;
    }
    FUZZ_REQUIRE(reinterpret_cast<std::uintptr_t>(p) % alignment == 0, "%p for %zu bytes aligned to %zu", p, bytes, alignment);
    if (pooled) this->check_found(p, bytes);
    blocks_.add(p, {bytes, alignment, !pooled, 0});
    if (!pooled) ++upstream_requests_;
  }

  void give_back(std::size_t index) {
    const auto [p, e] = blocks_.take(index);
    pool_->deallocate(p, e.bytes, e.alignment);
  }

  void check() const { this->check_statistics(pool_->statistics()); }

  std::size_t max_ = 0;
  own::pool_options options_;
};

// ------------------------------------------------------------------------------------------------
// own::object_pool and own::concurrent_object_pool, fixed and growing, of a plain and an
// over-aligned type.

std::size_t g_resets = 0;

template <std::size_t Align, std::size_t Size>
struct alignas(Align) item {
  std::uint64_t mark = 0;  // 0 while in the pool, the acquisition's number while out
  unsigned char payload[Size];
  void reset() {
    ++g_resets;
    mark = 0;
  }
};

template <template <class> class ObjectPool, class T>
class object_pool_program {

 public:
  object_pool_program(FuzzedDataProvider& in, fuzz::bounded_resource& upstream) : in_(in), upstream_(upstream) {}

  void run() {
    const bool fixed = in_.ConsumeBool();
    const std::size_t count = fuzz::edgy_size(in_, 64);
    const std::size_t refusals = upstream_.refusals();
    try {
      if (fixed) {
        pool_.emplace(count, own::fixed_capacity, own::constructor_args<>(), own::call_reset, &upstream_);
      } else {
        pool_.emplace(count, own::constructor_args<>(), own::call_reset, &upstream_);
      }
    } catch (const std::bad_alloc&) {
      // Upstream refused, or the pool itself because the objects would not fit upstream's budget
      // (their size in bytes may not even fit a size_t).
      FUZZ_REQUIRE(count > upstream_budget / sizeof(T) || upstream_.refusals() > refusals, "%zu objects refused", count);
      return;
    }
    FUZZ_REQUIRE(count <= upstream_budget / sizeof(T), "%zu objects of %zu bytes made within a budget of %zu bytes", count,
                 sizeof(T), upstream_budget);
    fixed_ = fixed;
    capacity_ = count;
    check();
    for (std::size_t step = 0; step < max_steps && in_.remaining_bytes() > 0; ++step) {
      apply(in_.ConsumeIntegralInRange<int>(0, 5));
      check();
    }
    const std::size_t resets = g_resets + out_.size();
    out_.clear();
    FUZZ_REQUIRE(g_resets == resets, "%zu resets, %zu expected", g_resets, resets);
    check();
  }

 private:
  struct handle {
    own::managed_ptr<T> managed;
    own::shared_ptr<T> shared;
    T* get() const { return managed ? managed.get() : shared.get(); }
  };

  void apply(int op) {
    switch (op) {
      case 0: acquire(0); break;
      case 1: acquire(1); break;
      case 2: acquire(2); break;
      case 3:
      case 4:
        if (!out_.empty()) {
          auto it = out_.begin() + static_cast<std::ptrdiff_t>(in_.ConsumeIntegral<std::uint8_t>() % out_.size());
          FUZZ_REQUIRE(it->h.get()->mark == it->mark);
          const std::size_t resets = g_resets;
          out_.erase(it);
          FUZZ_REQUIRE(g_resets == resets + 1, "a returned object reset %zu times", g_resets - resets);
        }
        break;
      default: upstream_.refuse_next(); break;
    }
  }

  // 0: acquire(), 1: acquire_shared(), 2: try_acquire().
  void acquire(int how) {
    if (out_.size() >= max_live) return;
    const bool exhausted = out_.size() == capacity_;
    const std::size_t refusals = upstream_.refusals();
    entry e;
    try {
      if (how == 0) e.h.managed = pool_->acquire();
      if (how == 1) e.h.shared = pool_->acquire_shared();
      if (how == 2) e.h.managed = pool_->try_acquire();
    } catch (const std::bad_alloc&) {
      upstream_.accept_next();
      FUZZ_REQUIRE(exhausted && (fixed_ || upstream_.refusals() > refusals), "std::bad_alloc with %zu of %zu out", out_.size(),
                   capacity_);
      return;
    }
    upstream_.accept_next();
    if (!e.h.get()) {
      FUZZ_REQUIRE(how == 2 && exhausted && fixed_, "try_acquire() empty with %zu of %zu out", out_.size(), capacity_);
      return;
    }
    FUZZ_REQUIRE(!(exhausted && fixed_), "a fixed pool of %zu handed out one more", capacity_);
    if (exhausted) capacity_ += std::max<std::size_t>(capacity_, 1);  // grows by doubling
    T* object = e.h.get();
    FUZZ_REQUIRE(reinterpret_cast<std::uintptr_t>(object) % alignof(T) == 0, "object %p misaligned", static_cast<void*>(object));
    FUZZ_REQUIRE(object->mark == 0, "object %p handed out while out (mark %llu)", static_cast<void*>(object),
                 static_cast<unsigned long long>(object->mark));
    for (const entry& other : out_) {
      const auto a = reinterpret_cast<std::uintptr_t>(object), b = reinterpret_cast<std::uintptr_t>(other.h.get());
      FUZZ_REQUIRE(a + sizeof(T) <= b || b + sizeof(T) <= a, "objects %p and %p overlap", static_cast<void*>(object),
                   static_cast<void*>(other.h.get()));
    }
    e.mark = ++marks_;
    object->mark = e.mark;
    if (e.h.shared) FUZZ_REQUIRE(e.h.shared.use_count() == 1);
    out_.push_back(std::move(e));
  }

  void check() {
    FUZZ_REQUIRE(pool_->capacity() == capacity_, "capacity %zu, model %zu", pool_->capacity(), capacity_);
    FUZZ_REQUIRE(pool_->available() == capacity_ - out_.size(), "available %zu, %zu of %zu out", pool_->available(), out_.size(),
                 capacity_);
    for (const entry& e : out_) FUZZ_REQUIRE(e.h.get()->mark == e.mark, "an object changed while out");
  }

  struct entry {
    handle h;
    std::uint64_t mark = 0;
  };

  FuzzedDataProvider& in_;
  fuzz::bounded_resource& upstream_;
  bool fixed_ = false;
  std::size_t capacity_ = 0;
  std::uint64_t marks_ = 0;
  std::optional<ObjectPool<T>> pool_;
  std::vector<entry> out_;  // after the pool: destroyed first
};

template <class T>
using plain_pool = own::object_pool<T>;
template <class T>
using shared_pool = own::concurrent_object_pool<T>;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  fuzz::bounded_resource upstream(upstream_budget);
  switch (in.ConsumeIntegralInRange<int>(0, 7)) {
    case 0: block_pool_program<own::pool>(in, upstream).run(); break;
    case 1: block_pool_program<own::concurrent_pool>(in, upstream).run(); break;
    case 2: multipool_program<own::multipool>(in, upstream).run(); break;
    case 3: multipool_program<own::concurrent_multipool>(in, upstream).run(); break;
    case 4: object_pool_program<plain_pool, item<8, 8>>(in, upstream).run(); break;
    case 5: object_pool_program<plain_pool, item<64, 100>>(in, upstream).run(); break;
    case 6: object_pool_program<shared_pool, item<8, 8>>(in, upstream).run(); break;
    default: object_pool_program<shared_pool, item<64, 100>>(in, upstream).run(); break;
  }
  return 0;
}
