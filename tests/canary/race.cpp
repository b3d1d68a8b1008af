// Races on purpose: the tsan configuration expects ThreadSanitizer to report it, which proves the
// stress tests' silence there means something.
#include <thread>

int main() {
  static int shared = 0;
  std::thread a([] { ++shared; });
  ++shared;
  a.join();
  return shared == 2 ? 0 : 1;
}
