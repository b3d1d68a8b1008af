// SPDX-License-Identifier: BSL-1.0
// The packets of the construction-methods seed (exp4): a 10 GbE frame buffer, in two kinds.
#pragma once

#include <cstddef>
#include <cstdint>

namespace own_bench {

// The seed's packet had a constructor, so value-initialisation (make_shared<T>()) runs it and zeroes
// nothing; the seed's VS2017 bug zeroed the memory before the constructor all the same. This one's
// constructor sets the header and leaves the payload to the receive path, as a frame buffer's would.
// The reproduction's rows use it.
struct constructed_packet {
  constructed_packet() noexcept : length(0), port(0), flags(0) {}

  std::uint32_t length;
  std::uint16_t port;
  std::uint16_t flags;
  unsigned char payload[1500];
};

// Trivial on purpose, for the rows named trivial_*: value-initialisation (make_shared<packet>())
// zero-fills its 1508 bytes by the standard's rules, while default-initialisation
// (make_shared_for_overwrite<packet>()) leaves them untouched, which is what _for_overwrite saves.
struct packet {
  std::uint32_t length;
  std::uint16_t port;
  std::uint16_t flags;
  unsigned char payload[1500];
};

static_assert(sizeof(packet) == 1508, "a packet is a 1500-byte payload and an 8-byte header");
static_assert(sizeof(constructed_packet) == sizeof(packet), "the two kinds differ only in their constructor");

// What a receive path does with a fresh buffer: stamp the header, touch the first payload byte.
template <class Packet>
void fill_header(Packet& p, std::uint32_t i) noexcept {
  p.length = 64 + (i & 1023);
  p.port = 7;
  p.flags = 0;
  p.payload[0] = static_cast<unsigned char>(i);
}

}  // namespace own_bench
