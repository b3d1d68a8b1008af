// SPDX-License-Identifier: BSL-1.0
// The packet of the construction-methods seed: a 10 GbE frame buffer. Trivial on purpose, so that
// value-initialisation (make_shared<packet>()) zero-fills 1500 bytes while default-initialisation
// (make_shared_for_overwrite<packet>()) leaves the payload untouched: the seed's "hidden memset".
#pragma once

#include <cstddef>
#include <cstdint>

namespace own_bench {

struct packet {
  std::uint32_t length;
  std::uint16_t port;
  std::uint16_t flags;
  unsigned char payload[1500];
};

static_assert(sizeof(packet) == 1508, "a packet is a 1500-byte payload and an 8-byte header");

// What a receive path does with a fresh buffer: stamp the header, touch the first payload byte.
inline void fill_header(packet& p, std::uint32_t i) noexcept {
  p.length = 64 + (i & 1023);
  p.port = 7;
  p.flags = 0;
  p.payload[0] = static_cast<unsigned char>(i);
}

}  // namespace own_bench
