// SPDX-License-Identifier: BSL-1.0
// Adopting a pointer to an incomplete type with no deleter: one error, the deleter's, and no
// warnings after it about the delete it refused (-Werror would count them as errors here).
// compile-fail expects: default_deleter cannot delete an incomplete type
// compile-fail flags: -Wall -Wextra -Werror
#include <own/shared_ptr.hpp>

struct incomplete;
incomplete* make_incomplete();

int main() {
  own::shared_ptr<incomplete> p(make_incomplete());
  return p ? 0 : 1;
}
