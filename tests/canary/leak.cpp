// SPDX-License-Identifier: BSL-1.0
// Leaks on purpose: the asan configuration expects LeakSanitizer to report it, which proves that
// leak checking really runs there (it needs ptrace-like permissions some sandboxes deny).
#include <cstdlib>

int main() {
  void* volatile lost = std::malloc(77);
  lost = nullptr;
  return 0;
}
