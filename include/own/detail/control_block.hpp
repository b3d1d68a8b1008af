// SPDX-License-Identifier: BSL-1.0
// The reference-count header every own::shared_ptr points at: 16 bytes, an operations table and one
// 64-bit word that holds both counts.
//
// Why one word: the last release of a sole owner must know, in one consistent snapshot, that no
// other shared or weak reference exists, so that it can free everything without an atomic
// read-modify-write. Reading two separate counts with two loads races with a weak_ptr::lock followed
// by that weak_ptr's destruction; one 64-bit load does not. And because every access to the word is
// 64 bits wide, a copy's increment followed by a release's load never trips store forwarding
// (libstdc++ 12 mixes a 32-bit add with a 64-bit load and pays ~5 ns for it).
//
// Layout of `counts_`: low 32 bits, the shared count; high 32 bits, the weak count, which is the
// number of weak references plus one while any shared reference remains.
//
// Blocks are not polymorphic C++ classes: each kind of block (pointer with deleter, housed object,
// housed array, pooled object, housed managed_ptr) supplies a static `control_block_ops`, made by
// block_ops below, so a pool's block can recycle itself and a managed_ptr can recognise a block by
// its release function.
#pragma once

#include <atomic>
#include <cstdint>
#include "type_key.hpp"

#if defined(__GLIBC__) && __has_include(<sys/single_threaded.h>)
#include <sys/single_threaded.h>
#define OWN_KNOWS_SINGLE_THREADED 1
#else
#define OWN_KNOWS_SINGLE_THREADED 0
#endif

namespace own::detail {

// Whether the process has never started a second thread (glibc's __libc_single_threaded, which
// becomes false, for good, when the first thread is created, by the creating thread). Then no other
// thread can reach a count, and a read-modify-write can be a load and a store (relaxed atomics, so
// never a data race): a copy and its release cost about 1 ns instead of two locked instructions, as
// libstdc++'s do.
inline bool process_is_single_threaded() noexcept {
#if OWN_KNOWS_SINGLE_THREADED
  return __libc_single_threaded != 0;
#else
  return false;
#endif
}

class control_block;

struct control_block_ops {
  // dispose then destroy, in one indirect call: the last release of a sole owner with no weak_ptr
  // (the common case) would otherwise pay for two, and the block's code sees both halves at once.
  void (*dispose_and_destroy)(control_block*) noexcept;
  void (*dispose)(control_block*) noexcept;  // destroy the managed object(s)
  void (*destroy)(control_block*) noexcept;  // free the block itself, after dispose
  // The deleter, if the block has one of type `type`; else nullptr (std::get_deleter).
  void* (*get_deleter)(control_block*, type_key type) noexcept;
};

class control_block {
 public:
  static constexpr std::uint64_t one_shared = 1;
  static constexpr std::uint64_t one_weak = std::uint64_t{1} << 32;
  static constexpr std::uint64_t fresh = one_shared + one_weak;  // one shared reference, no weak_ptr

  explicit constexpr control_block(const control_block_ops* ops) noexcept : ops_(ops), counts_(fresh) {}
  control_block(const control_block&) = delete;
  control_block& operator=(const control_block&) = delete;

  // A copy: one relaxed increment (the new owner got its pointer from an existing one).
  void add_shared(std::uint32_t n = 1) noexcept { add(n * one_shared, std::memory_order_relaxed); }

  // Drops one shared reference; the last one disposes of the object, and of the block if no weak
  // reference remains. A sole owner with no weak_ptr pays one load and no read-modify-write.
  void release_shared() noexcept {
    if (counts_.load(std::memory_order_acquire) == fresh) {
      ops_->dispose_and_destroy(this);
      return;
    }
    release_shared_slow(1);
  }

  // weak_ptr::lock: takes a shared reference unless the object is already gone.
  bool try_add_shared() noexcept {
    std::uint64_t c = counts_.load(std::memory_order_relaxed);
    if (process_is_single_threaded()) {
      if (shared_part(c) == 0) return false;
      counts_.store(c + one_shared, std::memory_order_relaxed);
      return true;
    }
    do {
      if (shared_part(c) == 0) return false;
    } while (!counts_.compare_exchange_weak(c, c + one_shared, std::memory_order_acquire, std::memory_order_relaxed));
    return true;
  }

  // try_add_shared for a block whose shared count, once zero, nobody but the caller may raise: one
  // unconditional increment, taken back if the count was zero (no compare-exchange loop, and no
  // load of the count just before a read-modify-write of it, which costs about 8 ns on the Intel
  // hosts measured). While the count is raised from zero, any other thread's release must be
  // impossible (no reference exists) and any other reader must tolerate it (use_count()).
  bool add_shared_unless_zero() noexcept {
    if (shared_part(counts_.fetch_add(one_shared, std::memory_order_relaxed)) != 0) return true;
    counts_.fetch_sub(one_shared, std::memory_order_relaxed);
    return false;
  }

  // Drop one shared (weak) reference unless it is the last one, whose release would run user code
  // (the deleter or destructor; the allocator's deallocate): whether they did. For threads that must
  // run none (atomic_shared_ptr's readers); nothing else happens at the release they make.
  bool release_shared_unless_last() noexcept {
    return release_unless(one_shared, [](std::uint64_t c) { return shared_part(c) == 1; });
  }
  // (Only the last reference of all sees exactly one weak and no shared.)
  bool release_weak_unless_last() noexcept {
    return release_unless(one_weak, [](std::uint64_t c) { return c == one_weak; });
  }

  void add_weak() noexcept { add(one_weak, std::memory_order_relaxed); }

  void release_weak() noexcept {
    // Only the last reference of all can see exactly one weak and no shared: nobody else can add one.
    if (counts_.load(std::memory_order_acquire) == one_weak || add(0 - one_weak, std::memory_order_acq_rel) == one_weak) {
      ops_->destroy(this);
    }
  }

  long use_count() const noexcept { return static_cast<long>(shared_part(counts_.load(std::memory_order_relaxed))); }
  // Both counts in one word (relaxed): whether a reference was taken or dropped between two reads.
  std::uint64_t counts() const noexcept { return counts_.load(std::memory_order_relaxed); }
  bool expired() const noexcept { return use_count() == 0; }
  // Whether one weak reference is all that is left (acquire): for a holder of that reference, what
  // the releases of all the others did (the disposal included) happened before it.
  bool only_one_weak_left() const noexcept { return counts_.load(std::memory_order_acquire) == one_weak; }

  void* get_deleter(type_key type) noexcept { return ops_->get_deleter(this, type); }
  const control_block_ops* ops() const noexcept { return ops_; }

  // For the owner of a block that no reference can reach (a pool recycling it): back to `fresh`, or
  // to `shared` references and `weak` weak ones.
  void reset_counts(std::uint32_t shared = 1, std::uint32_t weak = 0) noexcept {
    counts_.store((weak + std::uint64_t{1}) * one_weak + shared * one_shared, std::memory_order_relaxed);
  }

 private:
  static constexpr std::uint32_t shared_part(std::uint64_t c) noexcept { return static_cast<std::uint32_t>(c); }

  // counts_ += delta (wrapping), returning the value before.
  std::uint64_t add(std::uint64_t delta, std::memory_order order) noexcept {
    if (process_is_single_threaded()) {
      const std::uint64_t before = counts_.load(std::memory_order_relaxed);
      counts_.store(before + delta, std::memory_order_relaxed);
      return before;
    }
    return counts_.fetch_add(delta, order);
  }

  // counts_ -= one, unless is_last(counts_): whether it did. Release: this thread's uses of the
  // object happen before the destruction some other thread's last release makes.
  template <class IsLast>
  bool release_unless(std::uint64_t one, IsLast is_last) noexcept {
    std::uint64_t c = counts_.load(std::memory_order_relaxed);
    do {
      if (is_last(c)) return false;
    } while (!counts_.compare_exchange_weak(c, c - one, std::memory_order_release, std::memory_order_relaxed));
    return true;
  }

  void release_shared_slow(std::uint32_t n) noexcept {
    const std::uint64_t before = add(0 - std::uint64_t{n} * one_shared, std::memory_order_acq_rel);
    if (shared_part(before) == n) {
      ops_->dispose(this);
      release_weak();
    }
  }

  const control_block_ops* ops_;
  std::atomic<std::uint64_t> counts_;
};

static_assert(sizeof(control_block) == 16, "the control-block header is two words");

// Deleter lookup for blocks that have none.
inline void* no_deleter(control_block*, type_key) noexcept { return nullptr; }

template <void (*Dispose)(control_block*) noexcept, void (*Destroy)(control_block*) noexcept>
void dispose_and_destroy(control_block* b) noexcept {
  Dispose(b);
  Destroy(b);
}

// The operations table of a kind of block, from its dispose, destroy and deleter lookup (direct
// calls in the combined operation, so the compiler inlines both halves into it).
template <void (*Dispose)(control_block*) noexcept, void (*Destroy)(control_block*) noexcept,
          void* (*GetDeleter)(control_block*, type_key) noexcept = &no_deleter>
inline constexpr control_block_ops block_ops{&dispose_and_destroy<Dispose, Destroy>, Dispose, Destroy, GetDeleter};

}  // namespace own::detail
