// SPDX-License-Identifier: BSL-1.0
// The example of README.md, built and run as a test so that it stays true.
#include <own/managed_ptr.hpp>
#include <own/object_pool.hpp>
#include <own/shared_ptr.hpp>

#include <cstdint>
#include <cstdio>

struct packet { std::uint32_t length; unsigned char payload[1500]; };

static long consumed = 0;
void consume(own::managed_ptr<const packet> p) { consumed += p ? 1 : 0; }  // takes ownership from any source

int main() {
  own::object_pool<packet> pool(1024, own::fixed_capacity);   // no allocation after this
  own::shared_ptr<packet> p = pool.acquire_shared();           // control block reused, not allocated
  consume(p);                                                  // shares ownership: one increment
  auto raw = own::make_shared_for_overwrite<packet>();         // one allocation, never zero-filled
  own::shared_ptr<unsigned char> payload(raw, raw->payload);   // aliasing

  const bool ok = consumed == 1 && p.use_count() == 1 && pool.available() == 1023 && raw.use_count() == 2;
  std::printf("readme example: %s\n", ok ? "ok" : "FAILED");
  return ok ? 0 : 1;
}
