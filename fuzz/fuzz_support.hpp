// SPDX-License-Identifier: BSL-1.0
// What the pool fuzz targets share: a failure report, sizes that reach the edges of the size_t range,
// and an upstream memory_resource that counts what it hands out and bounds it, so that a geometry
// too large for the machine is refused (std::bad_alloc) rather than exhausting RAM.
#pragma once

#include <fuzzer/FuzzedDataProvider.h>

#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory_resource>
#include <mutex>
#include <new>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#include <sanitizer/asan_interface.h>
#define OWN_FUZZ_ASAN 1
#endif
#endif

namespace fuzz {

// FUZZ_REQUIRE(condition) or FUZZ_REQUIRE(condition, printf-format, arguments...): aborts, saying
// which check failed and what the format says, unless the condition holds.
inline void require(int line, const char* text, bool condition, const char* format = "", ...) {
  if (condition) return;
  std::fprintf(stderr, "fuzz: line %d: failed: %s\nfuzz: ", line, text);
  std::va_list args;
  va_start(args, format);
  std::vfprintf(stderr, format, args);
  va_end(args);
  std::fputc('\n', stderr);
  std::abort();
}
#define FUZZ_REQUIRE(...) ::fuzz::require(__LINE__, #__VA_ARGS__, __VA_ARGS__)

inline constexpr std::size_t size_max = std::numeric_limits<std::size_t>::max();

inline bool power_of_two(std::size_t n) noexcept { return n != 0 && (n & (n - 1)) == 0; }

// A size where bugs live: small, a power of two or one off it, within 64 of SIZE_MAX, or any.
inline std::size_t edgy_size(FuzzedDataProvider& in, std::size_t small_max) {
  switch (in.ConsumeIntegralInRange<int>(0, 5)) {
    case 0: return in.ConsumeIntegralInRange<std::size_t>(0, small_max);
    case 1: return std::size_t{1} << in.ConsumeIntegralInRange<int>(0, 63);
    case 2: return (std::size_t{1} << in.ConsumeIntegralInRange<int>(0, 63)) + 1;
    case 3: return (std::size_t{1} << in.ConsumeIntegralInRange<int>(0, 63)) - 1;
    case 4: return size_max - in.ConsumeIntegralInRange<std::size_t>(0, 64);
    default: return in.ConsumeIntegral<std::size_t>();
  }
}

// Hands out at most `budget` bytes at once (counting its own slack), refuses the rest with
// std::bad_alloc, and can be told to refuse the next request. Every block is aligned to exactly the
// alignment asked for and no more (an address that is not a multiple of twice it), so a pool that
// relies on more alignment than it asked for shows; under ASan the slack around a block is poisoned.
// Checks that every deallocation names a live block with the size and alignment it was allocated
// with. Thread-safe.
class bounded_resource : public std::pmr::memory_resource {
 public:
  explicit bounded_resource(std::size_t budget) : budget_(budget) {}
  ~bounded_resource() override {
    FUZZ_REQUIRE(live_.empty(), "the upstream resource destroyed with %zu block(s) out", live_.size());
  }

  // Counts (bytes as asked for, without the slack), exact when no other thread allocates.
  std::size_t bytes_in_use() const {
    std::lock_guard<std::mutex> hold(mutex_);
    return bytes_;
  }
  std::size_t blocks_in_use() const {
    std::lock_guard<std::mutex> hold(mutex_);
    return live_.size();
  }
  std::size_t refusals() const {
    std::lock_guard<std::mutex> hold(mutex_);
    return refusals_;
  }
  void refuse_next() {
    std::lock_guard<std::mutex> hold(mutex_);
    refuse_next_ = true;
  }
  // Disarms refuse_next(): a refusal lasts one operation, whether or not it reached upstream.
  void accept_next() {
    std::lock_guard<std::mutex> hold(mutex_);
    refuse_next_ = false;
  }

 private:
  struct block {
    unsigned char* raw;
    std::size_t raw_bytes;
    std::size_t bytes;
    std::size_t alignment;
  };

  void* do_allocate(std::size_t bytes, std::size_t alignment) override {
    FUZZ_REQUIRE(power_of_two(alignment), "upstream asked for alignment %zu", alignment);
    std::lock_guard<std::mutex> hold(mutex_);
    // Room to place the block at an odd multiple of the alignment.
    const std::size_t slack = alignment > size_max / 2 ? size_max : 2 * alignment;
    const bool fits = !refuse_next_ && bytes <= budget_ && slack <= budget_ - bytes && bytes + slack <= budget_ - raw_bytes_;
    refuse_next_ = false;
    if (!fits) {
      ++refusals_;
      throw std::bad_alloc();
    }
    const std::size_t raw_bytes = bytes + slack;
    auto* raw = static_cast<unsigned char*>(::operator new(raw_bytes));
    const auto start = reinterpret_cast<std::uintptr_t>(raw);
    std::uintptr_t at = (start + alignment - 1) & ~(alignment - 1);
    if ((at & (2 * alignment - 1)) == 0) at += alignment;
    auto* p = reinterpret_cast<unsigned char*>(at);
#ifdef OWN_FUZZ_ASAN
    __asan_poison_memory_region(raw, static_cast<std::size_t>(p - raw));
    __asan_poison_memory_region(p + bytes, static_cast<std::size_t>(raw + raw_bytes - (p + bytes)));
#endif
    live_.emplace(p, block{raw, raw_bytes, bytes, alignment});
    bytes_ += bytes;
    raw_bytes_ += raw_bytes;
    return p;
  }

  void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override {
    std::lock_guard<std::mutex> hold(mutex_);
    const auto it = live_.find(p);
    FUZZ_REQUIRE(it != live_.end(), "upstream deallocate of %p, which it did not hand out", p);
    const block b = it->second;
    FUZZ_REQUIRE(b.bytes == bytes && b.alignment == alignment,
                 "upstream deallocate of %p as %zu bytes aligned to %zu; allocated as %zu aligned to %zu", p, bytes,
                 alignment, b.bytes, b.alignment);
    live_.erase(it);
    bytes_ -= bytes;
    raw_bytes_ -= b.raw_bytes;
#ifdef OWN_FUZZ_ASAN
    __asan_unpoison_memory_region(b.raw, b.raw_bytes);
#endif
    ::operator delete(b.raw);
  }

  bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override { return this == &other; }

  const std::size_t budget_;
  mutable std::mutex mutex_;
  std::map<void*, block> live_;
  std::size_t bytes_ = 0;      // asked for
  std::size_t raw_bytes_ = 0;  // taken, with the slack
  std::size_t refusals_ = 0;
  bool refuse_next_ = false;
};

}  // namespace fuzz
