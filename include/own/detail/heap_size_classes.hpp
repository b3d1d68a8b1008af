// SPDX-License-Identifier: BSL-1.0
// The default heap's size classes: 8-byte steps up to 64 bytes, then four classes per doubling up to
// 2 KiB (64, 80, 96, 112, 128, 160, ...), so that rounding wastes at most 25 % and on average about
// 12 %: a 40-byte block costs 40, a 96-byte one 96, a 200-byte one 224. Requests above the largest
// class, or aligned more strictly than a page's data allows, go to ::operator new.
//
// A block of a class whose size is a multiple of an alignment is aligned to it (every page's data
// starts on a heap_data_alignment boundary), so an alignment is honoured by picking the smallest
// class that is at least the size and a multiple of the alignment.
#pragma once

#include <cstddef>
#include <cstdint>

#include "log2.hpp"

namespace own::detail {

inline constexpr std::uint32_t heap_class_sizes[] = {
    16,  24,  32,  40,  48,  56,  64,   80,   96,   112,  128,  160,  192,  224,
    256, 320, 384, 448, 512, 640, 768, 896, 1024, 1280, 1536, 1792, 2048};
inline constexpr std::size_t heap_class_count = sizeof heap_class_sizes / sizeof heap_class_sizes[0];
inline constexpr std::size_t heap_max_block_size = heap_class_sizes[heap_class_count - 1];
// The strictest alignment a class can give (a page's data starts on such a boundary).
inline constexpr std::size_t heap_data_alignment = 128;

// The class for `size` bytes aligned to `align` (a power of two), or heap_class_count if none fits.
constexpr std::size_t heap_class_search(std::size_t size, std::size_t align) noexcept {
  if (align > heap_data_alignment) return heap_class_count;
  for (std::size_t c = 0; c < heap_class_count; ++c) {
    if (heap_class_sizes[c] >= size && heap_class_sizes[c] % align == 0) return c;
  }
  return heap_class_count;
}

// For requests of at most 16-byte alignment, whose size is known only at run time (arrays): the
// class by arithmetic on the size, as the classes are spaced: every 8 bytes up to 64, then four to
// each doubling. (A table would be as fast, but computing it at compile time costs every
// translation unit that includes the heap.) A 16-aligned request rounds its size to 16 first; every
// class from 64 bytes up is a multiple of 16, and below it the multiples of 16 are classes themselves.
inline std::size_t heap_class_for(std::size_t size, std::size_t align) noexcept {
  if (align > 16) return heap_class_search(size, align);
  if (size > heap_max_block_size) return heap_class_count;
  if (align == 16) size = (size + 15) / 16 * 16;
  if (size <= 64) return size <= 16 ? 0 : (size + 7) / 8 - 2;
  const std::size_t last = size - 1;
  const std::size_t doubling = floor_log2(last);  // 6 for 65..128 bytes
  return 7 + (doubling - 6) * 4 + ((last >> (doubling - 2)) & 3);
}

}  // namespace own::detail
