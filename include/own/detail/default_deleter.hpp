// SPDX-License-Identifier: BSL-1.0
// The deleters shared_ptr uses when it is given none.
#pragma once

// Past a failed static_assert below, the compiler would go on to warn that the delete of the
// incomplete type runs no destructor: six more lines about the error just reported. (For a complete
// type there is nothing to warn about.)
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdelete-incomplete"
#endif

namespace own {

// N1851's default_deleter: `delete p`. Pass it where an allocator must be given with no custom
// deleter: shared_ptr<T>(p, own::default_deleter(), alloc).
struct default_deleter {
  template <class T>
  void operator()(T* p) const noexcept {
    static_assert(sizeof(T) > 0, "default_deleter cannot delete an incomplete type");
    delete p;
  }
};

namespace detail {

struct array_deleter {
  template <class T>
  void operator()(T* p) const noexcept {
    static_assert(sizeof(T) > 0, "cannot delete[] an incomplete type");
    delete[] p;
  }
};

}  // namespace detail
}  // namespace own

#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
