// The 64-bit word of a split reference count: a pointer to a reference-counted block in the low
// 48 bits and, in the high 16, the number of tickets taken on it, that is readers that have
// announced themselves but not yet left. One word, so one plain 64-bit CAS updates both, with no
// double-width atomics (gcc routes 16-byte std::atomic through libatomic, which is not lock-free).
//
// x86-64 and AArch64 user-space addresses fit in 48 bits (unless a program asks mmap for more, or
// tags pointers in their top byte); checked mode verifies it for every block put in a word.
#pragma once

#include <cstdint>

#include "checked.hpp"
#include "control_block.hpp"

namespace own::detail {

struct ticket_word {
  static_assert(sizeof(void*) == 8, "ticket_word packs a 48-bit pointer into a 64-bit word");

  static constexpr int pointer_bits = 48;
  static constexpr std::uint64_t pointer_mask = (std::uint64_t{1} << pointer_bits) - 1;
  static constexpr std::uint64_t one_ticket = std::uint64_t{1} << pointer_bits;
  static constexpr std::uint32_t max_tickets = 0xFFFF;

  static std::uint64_t make(control_block* block) noexcept {
    const auto bits = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(block));
    OWN_CHECK(bits <= pointer_mask, "own::atomic_shared_ptr: block address %p does not fit in 48 bits",
              static_cast<void*>(block));
    return bits;
  }
  static control_block* block(std::uint64_t word) noexcept {
    return reinterpret_cast<control_block*>(static_cast<std::uintptr_t>(word & pointer_mask));
  }
  static std::uint32_t tickets(std::uint64_t word) noexcept { return static_cast<std::uint32_t>(word >> pointer_bits); }
};

}  // namespace own::detail
