// SPDX-License-Identifier: BSL-1.0
// Which type a deleter is, for get_deleter, with or without RTTI (-fno-rtti).
//
// With RTTI, the key is the type's std::type_info, compared with ==, which the standard libraries
// make agree across shared libraries. Without it, the key is the address of a variable that exists
// once per type (an inline variable template): the same across the program, and across shared
// libraries as long as their symbols are not hidden; where they are, get_deleter in one library may
// not recognise a deleter from another and returns null (never a wrong deleter). libstdc++ makes the
// same trade for its make_shared tag.
#pragma once

#if defined(__cpp_rtti) || defined(__GXX_RTTI)
#define OWN_HAS_RTTI 1
#include <typeinfo>
#else
#define OWN_HAS_RTTI 0
#endif

namespace own::detail {

#if !OWN_HAS_RTTI
template <class T>
inline constexpr char type_tag = 0;
#endif

class type_key {
 public:
  template <class T>
  static type_key of() noexcept {
#if OWN_HAS_RTTI
    return type_key(&typeid(T));
#else
    return type_key(&type_tag<T>);
#endif
  }

  friend bool operator==(type_key a, type_key b) noexcept {
#if OWN_HAS_RTTI
    return *a.key_ == *b.key_;
#else
    return a.key_ == b.key_;
#endif
  }
  friend bool operator!=(type_key a, type_key b) noexcept { return !(a == b); }

 private:
#if OWN_HAS_RTTI
  using key = const std::type_info*;
#else
  using key = const char*;
#endif
  explicit type_key(key k) noexcept : key_(k) {}

  key key_;
};

}  // namespace own::detail
