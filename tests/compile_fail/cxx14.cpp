// SPDX-License-Identifier: BSL-1.0
// Below C++17 own's headers stop at one error that names the requirement.
// compile-fail flags: -std=c++14
// compile-fail expects: own needs C++17 or later: compile with -std=c++17
#include <own/own.hpp>

int main() { return 0; }
