// SPDX-License-Identifier: BSL-1.0
// The memory behind a block pool: chunks obtained from an upstream resource, carved into blocks
// lazily (a block is first touched when handed out), the growth policy, and, in checked mode, the
// record of which blocks are out, so that misuse is caught at the deallocation that commits it.
//
// Chunks form a list from oldest to newest; carving walks it in that order, so a chunk added by
// reserve() waits, untouched, until the chunks before it are used up. Chunk links are atomic only so
// that checked-mode ownership lookups may run on any thread of a concurrent pool while its owner
// appends a chunk: a chunk is published after it is fully built, and never unlinked before
// release() (which requires that the pool is idle).
//
// A store made for a pool that is findable_by_address takes its memory as runs of pool_span spans,
// each aligned to its size and holding its own blocks and chunk header, whose first word is the
// address to be found (the pool's, or its multipool's); blocks follow from the next multiple of the
// block alignment, and never cross the span's end.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory_resource>
#include <new>
#include <stdexcept>

#include "../pool_options.hpp"
#include "checked.hpp"
#include "exceptions.hpp"

namespace own::detail {

// Block size and alignment of a pool, from what the user asked for.
struct block_geometry {
  std::size_t size;
  std::size_t alignment;

  // Throws std::invalid_argument if `alignment` is neither 0 nor a power of two, and std::bad_alloc if
  // the size rounded up to the alignment does not fit a std::size_t (it would wrap to 0).
  static block_geometry make(std::size_t requested, std::size_t minimum, std::size_t alignment) {
    if (alignment & (alignment - 1)) throw_exception<std::invalid_argument>("own: pool alignment must be a power of two");
    std::size_t size = requested < minimum ? minimum : requested;
    if (alignment == 0) {
      alignment = size & (~size + 1);  // lowest set bit
      if (alignment > alignof(std::max_align_t)) alignment = alignof(std::max_align_t);
    }
    if (alignment < alignof(void*)) alignment = alignof(void*);  // the free-list link lives in the block
    if (size > static_cast<std::size_t>(-1) - (alignment - 1)) throw_exception<std::bad_alloc>();
    size = (size + alignment - 1) & ~(alignment - 1);
    return {size, alignment};
  }
};

// What a multipool gives its classes' pools: the address their spans hold, the multipool's.
struct found_at {
  const void* address;
};

class chunk_store {
 public:
  // `kind` and `owner` name the pool in checked-mode reports; `found` is the address a block's span
  // gives when options.findable_by_address (else unused). Throws std::invalid_argument if the pool is
  // findable by address and a block does not fit in a span beside its header.
  chunk_store(block_geometry geometry, const pool_options& options, std::pmr::memory_resource* upstream,
              const char* kind, const void* owner, const void* found)
      : size_(geometry.size),
        alignment_(geometry.alignment),
        // A findable_by_address pool counts its chunks in spans.
        first_blocks_(options.findable_by_address || !options.initial_chunk_blocks ? 1 : options.initial_chunk_blocks),
        max_blocks_(options.findable_by_address ? max_spans
                                                : options.max_chunk_blocks > first_blocks_ ? options.max_chunk_blocks : first_blocks_),
        next_blocks_(first_blocks_),
        geometric_(options.growth == pool_growth::geometric),
        upstream_(upstream),
        kind_(kind),
        name_(options.name),
        owner_(owner),
        found_(options.findable_by_address ? found : nullptr) {
    if (found_ && blocks_per_span() == 0) {
      throw_exception<std::invalid_argument>("own: a block too large for a findable_by_address pool's span");
    }
  }

  // The address written at the head of the span that `p`, a block of a findable_by_address pool (or
  // any byte of one), lies in.
  static const void* found_from(const void* p) noexcept {
    const auto span = reinterpret_cast<std::uintptr_t>(p) & ~(pool_span - 1);
    return *reinterpret_cast<const void* const*>(span);
  }
  bool findable_by_address() const noexcept { return found_ != nullptr; }
  chunk_store(const chunk_store&) = delete;
  chunk_store& operator=(const chunk_store&) = delete;
  ~chunk_store() { release(); }

  std::size_t block_size() const noexcept { return size_; }
  std::size_t block_alignment() const noexcept { return alignment_; }
  std::pmr::memory_resource* upstream() const noexcept { return upstream_; }
  std::size_t carved() const noexcept { return carved_; }
  std::size_t uncarved() const noexcept { return capacity_ - carved_; }
  std::size_t bytes_reserved() const noexcept { return bytes_; }
  std::size_t chunks() const noexcept { return chunks_; }

  // A block never handed out since the chunk was obtained, or nullptr when all are carved.
  void* carve() noexcept {
    if (cursor_ == limit_ && !advance()) return nullptr;
    void* block = cursor_;
    cursor_ += size_;
    ++carved_;
    return block;
  }

  // Adds a chunk of at least `min_blocks` blocks, or of the growth policy's next size if larger.
  // Throws what upstream throws (std::bad_alloc if the size overflows), and then changes nothing.
  void grow(std::size_t min_blocks = 0) {
    if (found_) return grow_spans(min_blocks);
    const std::size_t blocks = min_blocks > next_blocks_ ? min_blocks : next_blocks_;
    const std::size_t header_at = round_up(blocks_bytes(blocks), alignof(chunk));
    const std::size_t bytes = header_at + bitmap_end(blocks);
    if (bytes < header_at) throw_exception<std::bad_alloc>();
    const std::size_t align = alignment_ > alignof(chunk) ? alignment_ : alignof(chunk);
    auto* memory = static_cast<std::byte*>(upstream_->allocate(bytes, align));
    chunk* c = make_chunk(memory + header_at, memory, blocks, bytes, align);
    append(c, c, 1, bytes);
    grown(blocks);
  }

  // Returns every chunk upstream and starts over as if new. Every block becomes invalid.
  void release() noexcept {
    chunk* c = first_.load(std::memory_order_relaxed);
    while (c) {
      chunk* next = c->next.load(std::memory_order_relaxed);
      if (c->memory) upstream_->deallocate(c->memory, c->bytes, c->align);
      c = next;
    }
    first_.store(nullptr, std::memory_order_relaxed);
    last_ = current_ = nullptr;
    cursor_ = limit_ = nullptr;
    capacity_ = carved_ = bytes_ = chunks_ = 0;
    next_blocks_ = first_blocks_;
  }

  // Checked mode: check and record that `block` is handed out / comes back. Without OWN_CHECKED
  // both do nothing.
  // A block about to be handed out that is not free means the free list was overwritten, most
  // likely by a write to a block after it was freed.
  void on_allocate([[maybe_unused]] void* block) noexcept {
#ifdef OWN_CHECKED
    const slot s = locate(block);
    if (!s.word || (s.word->fetch_or(s.bit, std::memory_order_relaxed) & s.bit)) misuse(free_list_corrupted, block);
#endif
  }
  // Checked mode: `block`, met on walking a free list, must be a block that is not out (the same
  // corruption, seen by a walk rather than by allocate()).
  void on_free_list([[maybe_unused]] const void* block) const noexcept {
#ifdef OWN_CHECKED
    const slot s = locate(block);
    if (!s.word || (s.word->load(std::memory_order_relaxed) & s.bit)) misuse(free_list_corrupted, block);
#endif
  }
  void on_deallocate([[maybe_unused]] void* block) noexcept {
#ifdef OWN_CHECKED
    const slot s = locate(block);
    if (!s.word) misuse("deallocate of an address this pool never handed out (another pool's block?)", block);
    if (!(s.word->fetch_and(~s.bit, std::memory_order_relaxed) & s.bit)) {
      misuse("block freed twice (or freed but never allocated)", block);
    }
#endif
  }

  // Checked mode: `p` is given back as an allocation of `bytes` bytes that does not fit a block, so
  // it is about to go upstream; if it lies in one of the chunks it is a block (or the inside of one)
  // given back with the wrong size, and upstream would free memory it never handed out as such.
  void on_deallocate_upstream([[maybe_unused]] const void* p, [[maybe_unused]] std::size_t bytes) const noexcept {
#ifdef OWN_CHECKED
    if (chunk_of(p)) {
      char what[128];
      std::snprintf(what, sizeof what, "deallocate of a %zu-byte allocation that lies in this pool's chunks (the wrong size?)",
                    bytes);
      misuse(what, p);
    }
#endif
  }

  // Reports misuse of the owning pool (naming it and the address) and aborts.
  [[noreturn]] void misuse(const char* what, const void* address) const noexcept {
    char pool[192];
    checked_failure("%s: %s: %p", describe(pool, sizeof pool), what, address);
  }
  [[noreturn]] void misuse(const char* what, std::size_t count) const noexcept {
    char pool[192];
    checked_failure("%s: %s: %zu", describe(pool, sizeof pool), what, count);
  }

 private:
  // Lives after the chunk's blocks, so that blocks start at the chunk's (aligned) start, or right
  // after a span's header word (begin()). The spans of one upstream allocation are chunks each; the
  // last of them holds the allocation (`memory`, `bytes`: nullptr and 0 in the others), so that
  // release() frees it only once it has read the others' links.
  struct chunk {
    std::atomic<chunk*> next;
    std::byte* memory;  // as upstream gave it
    std::size_t blocks;
    std::size_t bytes;
    std::size_t align;
    // Checked mode: one bit per block, set while the block is out.
    std::atomic<std::uint64_t>* live_bits() noexcept { return reinterpret_cast<std::atomic<std::uint64_t>*>(this + 1); }
  };
  static_assert(alignof(chunk) >= alignof(std::atomic<std::uint64_t>), "the bitmap follows the header");

  struct slot {
    std::atomic<std::uint64_t>* word;
    std::uint64_t bit;
  };

  // The pool as reports name it, written to `buffer`: "own::pool 'name' at 0x…" when options.name
  // was set, else "unnamed own::pool at 0x…" (rather than an empty '' that reads like a bug).
  const char* describe(char* buffer, std::size_t size) const noexcept {
    if (name_ && *name_) {
      std::snprintf(buffer, size, "%s '%s' at %p", kind_, name_, owner_);
    } else {
      std::snprintf(buffer, size, "unnamed %s at %p", kind_, owner_);
    }
    return buffer;
  }

  // The most spans a findable_by_address pool asks upstream for at once (growth permitting): 1 MiB.
  static constexpr std::size_t max_spans = 16;

  static constexpr const char* free_list_corrupted = "free list corrupted (a block written after it was freed?), next block";

  static constexpr std::size_t round_up(std::size_t n, std::size_t align) noexcept { return (n + align - 1) & ~(align - 1); }
  std::size_t blocks_bytes(std::size_t blocks) const {
    if (blocks > static_cast<std::size_t>(-1) / 2 / size_) throw_exception<std::bad_alloc>();
    return blocks * size_;
  }
  static constexpr std::size_t bitmap_words([[maybe_unused]] std::size_t blocks) noexcept {
#ifdef OWN_CHECKED
    return (blocks + 63) / 64;
#else
    return 0;
#endif
  }

  // The bytes from a chunk's header to its end: the header and, in checked mode, the bitmap.
  static constexpr std::size_t bitmap_end(std::size_t blocks) noexcept {
    return sizeof(chunk) + bitmap_words(blocks) * sizeof(std::atomic<std::uint64_t>);
  }

  // A span's header word, rounded up to the block alignment: where its blocks begin. (Computed,
  // not kept, so that pools without spans pay nothing for them.)
  std::size_t span_lead() const noexcept { return round_up(sizeof(void*), alignment_); }
  std::byte* begin(const chunk* c) const noexcept {
    if (!found_) return c->memory;
    return reinterpret_cast<std::byte*>(reinterpret_cast<std::uintptr_t>(c) & ~(pool_span - 1)) + span_lead();
  }

  // How many blocks a span holds after its header word, with the chunk's header at its end.
  std::size_t blocks_per_span() const noexcept {
    const std::size_t lead = span_lead();
    if (lead >= pool_span) return 0;
    std::size_t blocks = (pool_span - lead) / size_;
    while (blocks > 0 && lead + round_up(blocks * size_, alignof(chunk)) + bitmap_end(blocks) > pool_span) --blocks;
    return blocks;
  }

  // A chunk header at `at`, for `memory` of `bytes` from upstream (nullptr and 0 for a span that is
  // not the last of its run).
  chunk* make_chunk(std::byte* at, std::byte* memory, std::size_t blocks, std::size_t bytes, std::size_t align) noexcept {
    chunk* c = ::new (at) chunk{{nullptr}, memory, blocks, bytes, align};
#ifdef OWN_CHECKED
    for (std::size_t i = 0; i < bitmap_words(blocks); ++i) ::new (&c->live_bits()[i]) std::atomic<std::uint64_t>(0);
#endif
    return c;
  }

  // Publishes the chain first ... last (`count` chunks, linked and built, from one upstream allocation
  // of `bytes`) after the chunks already held.
  void append(chunk* first, chunk* last, std::size_t count, std::size_t bytes) noexcept {
    if (last_) {
      last_->next.store(first, std::memory_order_release);
    } else {
      first_.store(first, std::memory_order_release);
    }
    last_ = last;
    capacity_ += count * first->blocks;
    bytes_ += bytes;
    ++chunks_;
  }

  // The growth policy, after a chunk of `size` (blocks, or spans) was added.
  void grown(std::size_t size) noexcept {
    if (geometric_ && size >= next_blocks_) next_blocks_ = next_blocks_ > max_blocks_ / 2 ? max_blocks_ : next_blocks_ * 2;
  }

  // One upstream allocation of as many spans as hold `min_blocks`, or as the growth policy's next
  // size if more. An allocator that does not align as asked for (std::pmr::memory_resource::allocate
  // is declared to, so compilers fold a plain test of its result away: hence the volatile) is refused.
  void grow_spans(std::size_t min_blocks) {
    const std::size_t blocks = blocks_per_span();
    const std::size_t needed = min_blocks > blocks ? (min_blocks - 1) / blocks + 1 : 1;
    const std::size_t count = needed > next_blocks_ ? needed : next_blocks_;
    if (count > static_cast<std::size_t>(-1) / pool_span) throw_exception<std::bad_alloc>();
    const std::size_t bytes = count * pool_span;
    auto* memory = static_cast<std::byte*>(upstream_->allocate(bytes, pool_span));
    const volatile std::uintptr_t address = reinterpret_cast<std::uintptr_t>(memory);
    if (address & (pool_span - 1)) {
      upstream_->deallocate(memory, bytes, pool_span);
      throw_exception<std::invalid_argument>("own: upstream ignored the alignment of a findable_by_address pool's span");
    }
    const std::size_t header_at = span_lead() + round_up(blocks * size_, alignof(chunk));
    chunk* first = nullptr;
    chunk* last = nullptr;
    for (std::size_t i = 0; i < count; ++i) {
      std::byte* span = memory + i * pool_span;
      ::new (static_cast<void*>(span)) const void*(found_);
      const bool holds_allocation = i + 1 == count;
      chunk* c = make_chunk(span + header_at, holds_allocation ? memory : nullptr, blocks, holds_allocation ? bytes : 0, pool_span);
      if (last) {
        last->next.store(c, std::memory_order_relaxed);
      } else {
        first = c;
      }
      last = c;
    }
    append(first, last, count, bytes);
    grown(count);
  }

  bool advance() noexcept {
    chunk* next = current_ ? current_->next.load(std::memory_order_relaxed) : first_.load(std::memory_order_relaxed);
    if (!next) return false;
    current_ = next;
    cursor_ = begin(next);
    limit_ = cursor_ + next->blocks * size_;
    return true;
  }

  // The chunk whose blocks `address` lies among, or nullptr.
  chunk* chunk_of(const void* address) const noexcept {
    const auto* p = static_cast<const std::byte*>(address);
    for (chunk* c = first_.load(std::memory_order_acquire); c; c = c->next.load(std::memory_order_acquire)) {
      const std::byte* first = begin(c);
      if (p >= first && p < first + c->blocks * size_) return c;
    }
    return nullptr;
  }

  // The bit of `block`, or {nullptr, 0} if it is not the start of a block of this store.
  slot locate(const void* block) const noexcept {
    chunk* c = chunk_of(block);
    if (!c) return {nullptr, 0};
    const auto offset = static_cast<std::size_t>(static_cast<const std::byte*>(block) - begin(c));
    if (offset % size_ != 0) return {nullptr, 0};
    const std::size_t index = offset / size_;
    return {&c->live_bits()[index / 64], std::uint64_t{1} << (index % 64)};
  }

  const std::size_t size_;
  const std::size_t alignment_;
  const std::size_t first_blocks_;
  const std::size_t max_blocks_;
  std::size_t next_blocks_;
  const bool geometric_;
  std::pmr::memory_resource* const upstream_;
  const char* const kind_;
  const char* const name_;
  const void* const owner_;
  const void* const found_;  // nullptr unless findable_by_address

  std::atomic<chunk*> first_{nullptr};
  chunk* last_ = nullptr;
  chunk* current_ = nullptr;  // the chunk being carved
  std::byte* cursor_ = nullptr;
  std::byte* limit_ = nullptr;
  std::size_t capacity_ = 0;  // blocks in all chunks
  std::size_t carved_ = 0;
  std::size_t bytes_ = 0;
  std::size_t chunks_ = 0;
};

}  // namespace own::detail
