// SPDX-License-Identifier: BSL-1.0
// detail::scalar_words(a, b, ...) makes the optimiser treat each value as unknown and held in its
// own general-purpose register, which costs no instruction.
//
// Why: a managed_ptr move copies four words and clears one. gcc's SLP vectoriser merges
// neighbouring 8-byte loads and stores into 16-byte SSE ones; the next move
// then reads 8 bytes out of a 16-byte store, or 16 out of two 8-byte ones, and on the x86 cores
// we measured (Zen 3) store-to-load forwarding fails or slows there: moves between two slots in
// memory ran 2-3x slower than the same words moved one by one.
#pragma once

namespace own::detail {

template <class Word>
inline void scalar_word([[maybe_unused]] Word& word) noexcept {
#if defined(__GNUC__) || defined(__clang__)
  __asm__("" : "+r"(word));
#endif
}

template <class... Words>
inline void scalar_words(Words&... words) noexcept {
  (detail::scalar_word(words), ...);
}

}  // namespace own::detail
