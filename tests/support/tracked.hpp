// SPDX-License-Identifier: BSL-1.0
// An object type that counts its constructions and destructions, for asserting that every object
// is destroyed exactly once, and that can be told to throw from its Nth construction. A canary
// word catches a second destruction of the same object (counted in double_destroyed(), since the
// live count alone cannot tell one object destroyed twice from two objects destroyed once).
#pragma once

#include <atomic>
#include <stdexcept>

namespace own_test {

class tracked {
 public:
  struct construction_error : std::runtime_error {
    construction_error() : std::runtime_error("tracked: construction told to throw") {}
  };

  tracked() : tracked(0) {}
  explicit tracked(int value) : value_(value) { on_construct(); }
  tracked(const tracked& other) : value_(other.value_) { on_construct(); }
  tracked& operator=(const tracked& other) {
    value_ = other.value_;
    return *this;
  }
  virtual ~tracked() {
    if (canary_ != alive) {
      ++counters().double_destroyed;
      return;
    }
    canary_ = dead;
    value_ = -1;
    --counters().live;
    ++counters().destroyed;
  }

  int value() const noexcept { return value_; }
  void set_value(int v) noexcept { value_ = v; }

  static long live() { return counters().live.load(); }
  static long constructed() { return counters().constructed.load(); }
  static long destroyed() { return counters().destroyed.load(); }
  static long double_destroyed() { return counters().double_destroyed.load(); }
  // The Nth construction from now throws (0: none).
  static void throw_after(long n) {
    counters().countdown = n;
  }

 private:
  struct state {
    std::atomic<long> live{0}, constructed{0}, destroyed{0}, double_destroyed{0}, countdown{0};
  };
  static state& counters() {
    static state s;
    return s;
  }
  static void on_construct() {
#if defined(__cpp_exceptions)
    if (counters().countdown.load() > 0 && --counters().countdown == 0) throw construction_error();
#endif
    ++counters().live;
    ++counters().constructed;
  }

  static constexpr unsigned alive = 0x600dcafe, dead = 0xdeadbeef;
  int value_;
  unsigned canary_ = alive;  // set before on_construct() may throw: a throwing constructor leaves no object
};

}  // namespace own_test
