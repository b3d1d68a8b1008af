// SPDX-License-Identifier: BSL-1.0
// Leaks an own::shared_ptr's block on purpose: a user's leak checker must still see it. The asan
// configuration expects LeakSanitizer to report it, the valgrind stage expects memcheck to: own's
// default heap steps aside under both (see <own/heap.hpp>), so the block comes from operator new.
#include <own/shared_ptr.hpp>

#include <cstring>
#include <new>

int main() {
  alignas(own::shared_ptr<int>) static unsigned char storage[sizeof(own::shared_ptr<int>)];
  ::new (static_cast<void*>(storage)) own::shared_ptr<int>(own::make_shared<int>(42));  // never destroyed
  std::memset(storage, 0, sizeof storage);  // and the only pointer to the block is gone
  return 0;
}
