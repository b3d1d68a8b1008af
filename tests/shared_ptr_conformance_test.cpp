// SPDX-License-Identifier: BSL-1.0
// Conformance of own::shared_ptr / weak_ptr / enable_shared_from_this / make_shared, and of their
// atomic access (the atomic_load(&p) family; std::atomic<weak_ptr<T>>), with std's C++20
// interface: "replace std:: by own:: and a program compiles and behaves the same".
//
// Two kinds of test:
//  - compile time: a matrix of type traits (constructible, convertible, assignable, nothrow,
//    invocable, return types) evaluated for std and own side by side; a difference is a finding;
//  - run time: typed tests over two "namespace" structs, std_api and own_api. Each scenario writes
//    what it observes (constructions, destructions, deleter calls, allocations, use counts, lock
//    results, exceptions, ...) to a transcript; the test runs the same scenario with std_api and
//    with TypeParam and requires the two transcripts to be identical.
//
// Tests named DISABLED_ document a difference left in place (see the comment at each).
//
// Transcripts count operator new calls. This executable replaces operator new (below), so own's
// default heap sends its blocks there, as it does in any program that replaces it (see heap.hpp).
#include <own/atomic_shared_ptr.hpp>
#include <own/shared_ptr.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <iterator>
#include <map>
#include <memory>
#include <new>
#include <set>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>
#if __cplusplus >= 202002L
#include <compare>
#include <concepts>
#endif

#include "test_allocator.hpp"

// ---------------------------------------------------------------------------------------------
// Global allocation counter: lets the scenarios compare how many times std and own call operator
// new (make_shared is one allocation, shared_ptr(new T) two, ...) and make the Nth call throw.

// The std this test compares own with: where libc++ 16 departs from the standard (or decides what
// the standard leaves open otherwise than libstdc++, whose choices own follows), the comparison is
// made with the standard's answer instead, each place saying why.
#if defined(_LIBCPP_VERSION)
#define OWN_TEST_STD_IS_LIBCXX 1
#else
#define OWN_TEST_STD_IS_LIBCXX 0
#endif

namespace {
std::atomic<long> g_news{0};
std::atomic<long> g_fail_at{0};  // the g_news value at which operator new throws; 0: never
}  // namespace

// ThreadSanitizer's runtime defines operator new itself: there, no counting and no injection.
#if defined(__SANITIZE_THREAD__)
#define OWN_TEST_REPLACES_NEW 0
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define OWN_TEST_REPLACES_NEW 0
#endif
#endif
#ifndef OWN_TEST_REPLACES_NEW
#define OWN_TEST_REPLACES_NEW 1
#endif

#if OWN_TEST_REPLACES_NEW

// GCC pairs the free() below with the operator new call sites it inlines into and warns.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(std::size_t n) {
  const long k = ++g_news;
  if (k == g_fail_at.load()) throw std::bad_alloc();
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#endif

namespace {

// ---------------------------------------------------------------------------------------------
// The two namespaces, as types.

struct std_api {
  static constexpr const char* name = "std";
  template <class T>
  using shared_ptr = std::shared_ptr<T>;
  template <class T>
  using weak_ptr = std::weak_ptr<T>;
  template <class T>
  using enable_shared_from_this = std::enable_shared_from_this<T>;
  template <class T = void>
  using owner_less = std::owner_less<T>;
  using bad_weak_ptr = std::bad_weak_ptr;

  template <class T, class... A>
  static auto make_shared(A&&... a) -> decltype(std::make_shared<T>(std::forward<A>(a)...)) {
    return std::make_shared<T>(std::forward<A>(a)...);
  }
  template <class T, class Al, class... A>
  static auto allocate_shared(const Al& al, A&&... a) -> decltype(std::allocate_shared<T>(al, std::forward<A>(a)...)) {
    return std::allocate_shared<T>(al, std::forward<A>(a)...);
  }
  template <class T, class U>
  static auto static_pointer_cast(U&& r) -> decltype(std::static_pointer_cast<T>(std::forward<U>(r))) {
    return std::static_pointer_cast<T>(std::forward<U>(r));
  }
  template <class T, class U>
  static auto dynamic_pointer_cast(U&& r) -> decltype(std::dynamic_pointer_cast<T>(std::forward<U>(r))) {
    return std::dynamic_pointer_cast<T>(std::forward<U>(r));
  }
  template <class T, class U>
  static auto const_pointer_cast(U&& r) -> decltype(std::const_pointer_cast<T>(std::forward<U>(r))) {
    return std::const_pointer_cast<T>(std::forward<U>(r));
  }
  template <class T, class U>
  static auto reinterpret_pointer_cast(U&& r) -> decltype(std::reinterpret_pointer_cast<T>(std::forward<U>(r))) {
    return std::reinterpret_pointer_cast<T>(std::forward<U>(r));
  }
  template <class D, class P>
  static D* get_deleter(const P& p) noexcept {
    return std::get_deleter<D>(p);
  }
};

struct own_api {
  static constexpr const char* name = "own";
  template <class T>
  using shared_ptr = own::shared_ptr<T>;
  template <class T>
  using weak_ptr = own::weak_ptr<T>;
  template <class T>
  using enable_shared_from_this = own::enable_shared_from_this<T>;
  template <class T = void>
  using owner_less = own::owner_less<T>;
  using bad_weak_ptr = own::bad_weak_ptr;

  template <class T, class... A>
  static auto make_shared(A&&... a) -> decltype(own::make_shared<T>(std::forward<A>(a)...)) {
    return own::make_shared<T>(std::forward<A>(a)...);
  }
  template <class T, class Al, class... A>
  static auto allocate_shared(const Al& al, A&&... a) -> decltype(own::allocate_shared<T>(al, std::forward<A>(a)...)) {
    return own::allocate_shared<T>(al, std::forward<A>(a)...);
  }
  template <class T, class U>
  static auto static_pointer_cast(U&& r) -> decltype(own::static_pointer_cast<T>(std::forward<U>(r))) {
    return own::static_pointer_cast<T>(std::forward<U>(r));
  }
  template <class T, class U>
  static auto dynamic_pointer_cast(U&& r) -> decltype(own::dynamic_pointer_cast<T>(std::forward<U>(r))) {
    return own::dynamic_pointer_cast<T>(std::forward<U>(r));
  }
  template <class T, class U>
  static auto const_pointer_cast(U&& r) -> decltype(own::const_pointer_cast<T>(std::forward<U>(r))) {
    return own::const_pointer_cast<T>(std::forward<U>(r));
  }
  template <class T, class U>
  static auto reinterpret_pointer_cast(U&& r) -> decltype(own::reinterpret_pointer_cast<T>(std::forward<U>(r))) {
    return own::reinterpret_pointer_cast<T>(std::forward<U>(r));
  }
  template <class D, class P>
  static D* get_deleter(const P& p) noexcept {
    return own::get_deleter<D>(p);
  }
};

// True for std_api when std is libc++ 16: where that std departs from the standard, a scenario
// writes what the standard requires in its place (each place says why), so that own is held to
// the standard rather than to libc++ there.
template <class Api>
inline constexpr bool libcxx_std = OWN_TEST_STD_IS_LIBCXX && std::is_same_v<Api, std_api>;

// =============================================================================================
// Compile time: the trait matrix.

struct base {
  virtual ~base() = default;
  int b = 1;
};
struct derived : base {
  int d = 2;
};
struct unrelated {
  int u = 3;
};
struct vbase {
  virtual ~vbase() = default;
  int v = 4;
};
struct vderived : virtual vbase {
  int w = 5;
};
struct two_bases : base, unrelated {};
struct private_derived : private base {};
struct incomplete_t;

struct deleter {
  template <class P>
  void operator()(P* p) const {
    delete p;
  }
};
struct array_deleter {
  template <class P>
  void operator()(P* p) const {
    delete[] p;
  }
};
struct int_only_deleter {
  void operator()(int* p) const { delete p; }
};
// A deleter for shared_ptr(nullptr, d): d(nullptr) must be well-formed.
struct null_deleter {
  void operator()(std::nullptr_t) const {}
  template <class P>
  void operator()(P* p) const {
    delete p;
  }
};
struct move_only_deleter {
  move_only_deleter() = default;
  move_only_deleter(move_only_deleter&&) = default;
  move_only_deleter& operator=(move_only_deleter&&) = default;
  template <class P>
  void operator()(P* p) const {
    delete p;
  }
};
struct not_movable_deleter {
  not_movable_deleter() = default;
  not_movable_deleter(const not_movable_deleter&) = delete;
  template <class P>
  void operator()(P* p) const {
    delete p;
  }
};
// A unique_ptr deleter with a pointer typedef that is not element_type*.
struct void_pointer_deleter {
  using pointer = void*;
  void operator()(void* p) const { ::operator delete(p); }
};

// Argument descriptors, mapped to each namespace's types.
template <class Y>
struct sp {};  // const shared_ptr<Y>&
template <class Y>
struct sp_rv {};  // shared_ptr<Y>&&
template <class Y>
struct wp {};  // const weak_ptr<Y>&
template <class Y>
struct wp_rv {};  // weak_ptr<Y>&&

template <class A, class Api>
struct map_arg {
  using type = A;
};
template <class Y, class Api>
struct map_arg<sp<Y>, Api> {
  using type = const typename Api::template shared_ptr<Y>&;
};
template <class Y, class Api>
struct map_arg<sp_rv<Y>, Api> {
  using type = typename Api::template shared_ptr<Y>&&;
};
template <class Y, class Api>
struct map_arg<wp<Y>, Api> {
  using type = const typename Api::template weak_ptr<Y>&;
};
template <class Y, class Api>
struct map_arg<wp_rv<Y>, Api> {
  using type = typename Api::template weak_ptr<Y>&&;
};
template <class A, class Api>
using arg_t = typename map_arg<A, Api>::type;

template <class Api, class T, class... A>
inline constexpr bool constructible = std::is_constructible_v<typename Api::template shared_ptr<T>, arg_t<A, Api>...>;
template <class Api, class T, class... A>
inline constexpr bool nothrow_constructible =
    std::is_nothrow_constructible_v<typename Api::template shared_ptr<T>, arg_t<A, Api>...>;
template <class Api, class T, class A>
inline constexpr bool convertible = std::is_convertible_v<arg_t<A, Api>, typename Api::template shared_ptr<T>>;
template <class Api, class T, class A>
inline constexpr bool assignable = std::is_assignable_v<typename Api::template shared_ptr<T>&, arg_t<A, Api>>;
template <class Api, class T, class A>
inline constexpr bool nothrow_assignable = std::is_nothrow_assignable_v<typename Api::template shared_ptr<T>&, arg_t<A, Api>>;
// libc++ 16 leaves shared_ptr's converting move assignment without the noexcept the standard gives
// it ([util.smartptr.shared.assign]); there, std's answer is the standard's: every valid one.
template <class A>
inline constexpr bool is_shared_rvalue = false;
template <class Y>
inline constexpr bool is_shared_rvalue<sp_rv<Y>> = true;
template <class Api, class T, class A>
inline constexpr bool nothrow_assignable_per_standard =
    (libcxx_std<Api> && is_shared_rvalue<A>) ? assignable<Api, T, A> : nothrow_assignable<Api, T, A>;
template <class Api, class T, class... A>
inline constexpr bool weak_constructible = std::is_constructible_v<typename Api::template weak_ptr<T>, arg_t<A, Api>...>;
template <class Api, class T, class A>
inline constexpr bool weak_convertible = std::is_convertible_v<arg_t<A, Api>, typename Api::template weak_ptr<T>>;
template <class Api, class T, class A>
inline constexpr bool weak_assignable = std::is_assignable_v<typename Api::template weak_ptr<T>&, arg_t<A, Api>>;

// The traits of shared_ptr<T> from A... and, from one argument, of weak_ptr<T>: a bit each.
template <class Api, class T, class... A>
constexpr unsigned long long traits_of() {
  unsigned long long bits = constructible<Api, T, A...> | nothrow_constructible<Api, T, A...> << 1;
  if constexpr (sizeof...(A) == 1) {
    bits |= convertible<Api, T, A...> << 2 | assignable<Api, T, A...> << 3 |
            nothrow_assignable_per_standard<Api, T, A...> << 4 | weak_constructible<Api, T, A...> << 5 |
            weak_convertible<Api, T, A...> << 6 | weak_assignable<Api, T, A...> << 7;
  }
  return bits;
}

// Every trait of shared_ptr<T> from A... agrees between std and own.
template <class T, class... A>
constexpr bool ctor_agrees() {
  return traits_of<std_api, T, A...>() == traits_of<own_api, T, A...>();
}

// Converting copies, moves and weak conversions of shared_ptr<T> from Y.
template <class Api, class T, class Y>
constexpr unsigned long long conversion_traits_of() {
  return traits_of<Api, T, sp<Y>>() | traits_of<Api, T, sp_rv<Y>>() << 8 | traits_of<Api, T, wp<Y>>() << 16 |
         traits_of<Api, T, wp_rv<Y>>() << 24 | traits_of<Api, T, std::nullptr_t>() << 32;
}
// libc++ 16 compiled as C++17 takes U[N] as compatible with U[] only where U is not const; the
// standard takes any U ([util.smartptr.shared]/5), so its answers for const U[] from const U[N] are
// those for U[] from U[N], which that libc++ gets right: std's answers are taken there.
template <class T, class Y>
inline constexpr bool libcxx17_misses_const_arrays =
    OWN_TEST_STD_IS_LIBCXX && __cplusplus < 202002L && std::rank_v<T> == 1 && std::extent_v<T> == 0 &&
    std::rank_v<Y> == 1 && std::extent_v<Y> != 0 && std::is_same_v<std::remove_extent_t<T>, std::remove_extent_t<Y>> &&
    std::is_const_v<std::remove_extent_t<Y>>;
template <class T, class Y>
constexpr bool conversions_agree() {
  if constexpr (libcxx17_misses_const_arrays<T, Y>) {
    return conversion_traits_of<std_api, std::remove_cv_t<T>, std::remove_cv_t<Y>>() == conversion_traits_of<own_api, T, Y>();
  } else {
    return conversion_traits_of<std_api, T, Y>() == conversion_traits_of<own_api, T, Y>();
  }
}
template <class T, class... Ys>
constexpr bool conversions_agree_all() {
  return (conversions_agree<T, Ys>() && ...);
}
#define OWN_CONVERSION_TYPES                                                                                         \
  base, derived, const base, const derived, unrelated, vbase, vderived, two_bases, private_derived, void, const void, \
      int, const int, long, int[], const int[], int[3], const int[3], int[4], int[][3], int[2][3], base[], derived[],  \
      derived[3], base[3], const derived[3]
template <class... Ts>
constexpr bool matrix_of_conversions() {
  return (conversions_agree_all<Ts, OWN_CONVERSION_TYPES>() && ...);
}

// Adopting a raw pointer, with and without a deleter.
template <class T, class Y>
constexpr bool adoption_agrees() {
  return ctor_agrees<T, Y*>() && ctor_agrees<T, Y*, deleter>() && ctor_agrees<T, Y*, array_deleter>() &&
         ctor_agrees<T, Y*, move_only_deleter>() && ctor_agrees<T, Y*, not_movable_deleter>() &&
         ctor_agrees<T, Y*, deleter, std::allocator<int>>();
}
template <class T, class... Ys>
constexpr bool adoption_agrees_all() {
  return (adoption_agrees<T, Ys>() && ...);
}
// Raw pointers to void, incomplete and (for arrays) abstract types are checked separately below.
#define OWN_ADOPTION_TYPES                                                                                           \
  base, derived, const base, const derived, unrelated, vderived, two_bases, private_derived, int, const int, long, \
      int[3], const int[3], int[4], derived[3]
template <class... Ts>
constexpr bool matrix_of_adoptions() {
  return (adoption_agrees_all<Ts, OWN_ADOPTION_TYPES>() && ...);
}

// Taking over a unique_ptr<Y, D>.
template <class T, class Y>
constexpr bool unique_agrees() {
  using del = std::default_delete<Y>;
  return ctor_agrees<T, std::unique_ptr<Y>&&>() && ctor_agrees<T, std::unique_ptr<Y>&>() &&
         ctor_agrees<T, const std::unique_ptr<Y>&>() && ctor_agrees<T, std::unique_ptr<Y, del&>&&>() &&
         ctor_agrees<T, std::unique_ptr<Y, const del&>&&>() && ctor_agrees<T, std::unique_ptr<Y, move_only_deleter>&&>() &&
         ctor_agrees<T, std::unique_ptr<Y, void (*)(Y*)>&&>();
}
template <class T, class... Ys>
constexpr bool unique_agrees_all() {
  return (unique_agrees<T, Ys>() && ...);
}
#define OWN_UNIQUE_TYPES base, derived, const derived, unrelated, int, const int, int[], const int[], derived[], void
template <class... Ts>
constexpr bool matrix_of_unique() {
  return (unique_agrees_all<Ts, OWN_UNIQUE_TYPES>() && ...);
}

static_assert(matrix_of_conversions<base, const base, derived, vbase, unrelated, void, const void, int, const int>());
static_assert(matrix_of_conversions<int[], const int[], int[3], const int[3], int[][3], int[2][3], base[], base[3]>());
static_assert(matrix_of_adoptions<base, const base, derived, vbase, unrelated, void, const void, int, const int>());
static_assert(matrix_of_adoptions<int[], const int[], int[3], const int[3], int[][3], int[2][3], base[], base[3]>());
static_assert(matrix_of_unique<base, const base, derived, unrelated, void, const void, int, const int>());
static_assert(matrix_of_unique<int[], const int[], int[3], base[], const base[]>());
static_assert(ctor_agrees<void, std::unique_ptr<int, void_pointer_deleter>&&>());
static_assert(ctor_agrees<int, std::unique_ptr<int, void_pointer_deleter>&&>());
static_assert(ctor_agrees<const void, std::unique_ptr<int, void_pointer_deleter>&&>());

// The nullptr forms and the aliasing constructor.
static_assert(ctor_agrees<int, std::nullptr_t, null_deleter>());
static_assert(ctor_agrees<int, std::nullptr_t, int_only_deleter>());
static_assert(ctor_agrees<int, std::nullptr_t, null_deleter, std::allocator<int>>());
static_assert(ctor_agrees<int, decltype(0)>());
static_assert(ctor_agrees<int, long>());
static_assert(ctor_agrees<int, sp<double>, int*>());
static_assert(ctor_agrees<int, sp_rv<double>, int*>());
static_assert(ctor_agrees<int, sp<double>, double*>());
static_assert(ctor_agrees<int[], sp<double>, int*>());
static_assert(ctor_agrees<int, wp<int>, int*>());
static_assert(!constructible<own_api, base, derived*, sp<int>>);  // d(p) ill-formed: see below
// Raw pointers to incomplete types are accepted (deleting one is the caller's problem).
static_assert(ctor_agrees<incomplete_t, incomplete_t*>());
static_assert(ctor_agrees<void, incomplete_t*>());
static_assert(ctor_agrees<incomplete_t, incomplete_t*, deleter>());
static_assert(ctor_agrees<incomplete_t[], incomplete_t*>());
// Pointers to void and to functions, for which an array owner's "Y(*)[] converts to T*" cannot even
// be formed: the answer is false, never a hard error.
static_assert(adoption_agrees_all<int[], void, const void, void()>() && adoption_agrees_all<int[3], void, const void, void()>() &&
              adoption_agrees_all<int, void, void()>());

// Where the standard's Constraints say "d(p) is a well-formed expression" (shared_ptr(p, d) and
// shared_ptr(nullptr, d)) or "delete p is well-formed" (shared_ptr(p)), libstdc++ checks only the
// pointer conversion and fails later, inside the constructor; own checks what the standard says.
// These are not differences of any valid program, only of the traits of invalid constructions.
static_assert((constructible<std_api, base, derived*, int_only_deleter> || OWN_TEST_STD_IS_LIBCXX) &&  // (libc++ checks)
              !constructible<own_api, base, derived*, int_only_deleter>);
static_assert(constructible<own_api, int, int*, int_only_deleter>);
// (own declares the forms with such a deleter deleted, for a one-line error: still not constructible.)
static_assert(!constructible<own_api, base, derived*, int_only_deleter, std::allocator<int>> &&
              !constructible<own_api, int, int*, int> && !constructible<own_api, int, int*, int, std::allocator<int>>);
static_assert(!constructible<own_api, int, std::nullptr_t, deleter> && !constructible<own_api, int, std::nullptr_t, move_only_deleter>);
static_assert(!constructible<own_api, void, void*> && !constructible<own_api, const void, const void*>);
static_assert(constructible<own_api, void, void*, null_deleter>);
// own's N1851 extension shared_ptr(unique_ptr&&, a) takes any second argument (it is rejected in
// the constructor's body): a trait difference only, no std-valid call reaches it.
static_assert(!constructible<std_api, int, std::unique_ptr<int>&&, std::allocator<int>>);
static_assert(constructible<own_api, int, std::unique_ptr<int>&&, std::allocator<int>>);
// A unique_ptr whose deleter cannot be moved: libstdc++ takes the form out (its
// unique_ptr_deleter.cc), beyond std's two Constraints, and own does too (libc++ 16 fails inside the
// constructor instead). A reference deleter is kept.
struct unmovable_deleter {
  unmovable_deleter() = default;
  unmovable_deleter(const unmovable_deleter&) = delete;
  void operator()(int* p) const { delete p; }
};
static_assert((!constructible<std_api, int, std::unique_ptr<int, unmovable_deleter>&&> || OWN_TEST_STD_IS_LIBCXX) &&
              !constructible<own_api, int, std::unique_ptr<int, unmovable_deleter>&&> &&
              !constructible<own_api, int, std::unique_ptr<int, unmovable_deleter>&&, std::allocator<int>>);
static_assert(constructible<std_api, int, std::unique_ptr<int, unmovable_deleter&>&&> &&
              constructible<own_api, int, std::unique_ptr<int, unmovable_deleter&>&&>);

// "delete p" for a T that is not an array, "delete[] p" for an array ([util.smartptr.shared.const]/4),
// each checked on its own: a class may allow one and not the other. (g++ 12 once answered both with
// whichever was asked first, pointer_compat.hpp says how; libstdc++ 12 checks neither, so std's
// answers are not compared here.)
class array_delete_only {
  static void operator delete(void* p) noexcept { ::operator delete(p); }

 public:
  static void operator delete[](void* p) noexcept { ::operator delete[](p); }
};
class object_delete_only {
  static void operator delete[](void* p) noexcept { ::operator delete[](p); }

 public:
  static void operator delete(void* p) noexcept { ::operator delete(p); }
};
template <class T, class Y, class = void>
inline constexpr bool resettable = false;
template <class T, class Y>
inline constexpr bool resettable<T, Y, std::void_t<decltype(std::declval<own::shared_ptr<T>&>().reset(std::declval<Y*>()))>> = true;
static_assert(constructible<own_api, array_delete_only[], array_delete_only*> &&
              constructible<own_api, array_delete_only[4], array_delete_only*> &&
              !constructible<own_api, array_delete_only, array_delete_only*>);
static_assert(!constructible<own_api, object_delete_only[], object_delete_only*> &&
              !constructible<own_api, object_delete_only[4], object_delete_only*> &&
              constructible<own_api, object_delete_only, object_delete_only*>);
// reset(p) has no Constraints of its own: like libstdc++ and libc++ (and libstdc++'s
// reset_sfinae.cc), own offers it for every pointer that converts, deletable or not; calling it
// with one that cannot be deleted is the constructor's error. A pointer that does not convert is
// refused (own declares that form deleted, for a short error message: still not resettable).
static_assert(resettable<array_delete_only[], array_delete_only> && resettable<object_delete_only, object_delete_only>);
static_assert(resettable<const void, void> && resettable<array_delete_only, array_delete_only>);
static_assert(!resettable<int, long> && !resettable<int, const int> && !resettable<base, void> && resettable<base, derived>);
static_assert(!resettable<int[], long> && !resettable<base[], derived> && resettable<const int[], int>);
static_assert(!constructible<own_api, int, long*> && !constructible<own_api, derived, base*> && !constructible<own_api, void, void*>);

TEST(SharedPtrConformance, ArrayOwnerUsesTheArrayDeleteItIsAllowed) {
  own::shared_ptr<array_delete_only[]> a(new array_delete_only[4]);
  own::shared_ptr<array_delete_only[4]> b(new array_delete_only[4]);
  a.reset(new array_delete_only[2]);
  EXPECT_EQ(a.use_count(), 1);
  EXPECT_NE(b.get(), nullptr);
  own::shared_ptr<object_delete_only> c(new object_delete_only);
  EXPECT_EQ(c.use_count(), 1);
}

// Arrays convert as arrays, never element-wise (the finding fixed in pointer_compat.hpp).
static_assert(!constructible<own_api, base[], sp<derived[]>> && !constructible<own_api, base[3], sp<derived[3]>>);
static_assert(!weak_constructible<own_api, base[], wp<derived[]>> && !assignable<own_api, base[], sp<derived[]>>);
static_assert(!constructible<own_api, base[], std::unique_ptr<derived[]>&&>);
static_assert(constructible<own_api, const int[], sp<int[3]>> && constructible<own_api, const int[3], sp<int[3]>>);

// Return types and noexcept of the observers and of the free functions.
template <class Api, class T>
struct surface {
  using S = typename Api::template shared_ptr<T>;
  using W = typename Api::template weak_ptr<T>;
  using E = typename S::element_type;
  static_assert(std::is_same_v<E, std::remove_extent_t<T>>);
  static_assert(std::is_same_v<typename W::element_type, E>);
  static_assert(std::is_same_v<typename S::weak_type, W>);
  static_assert(std::is_same_v<decltype(std::declval<const S&>().get()), E*>);
  static_assert(std::is_same_v<decltype(std::declval<const S&>().use_count()), long>);
  static_assert(std::is_same_v<decltype(std::declval<const W&>().use_count()), long>);
  static_assert(std::is_same_v<decltype(std::declval<const W&>().expired()), bool>);
  static_assert(std::is_same_v<decltype(std::declval<const W&>().lock()), S>);
  static_assert(std::is_same_v<decltype(std::declval<const S&>().owner_before(std::declval<const W&>())), bool>);
  static_assert(std::is_same_v<decltype(std::declval<const W&>().owner_before(std::declval<const S&>())), bool>);
  static_assert(noexcept(std::declval<const S&>().get()));
  static_assert(noexcept(std::declval<const S&>().use_count()));
  static_assert(noexcept(static_cast<bool>(std::declval<const S&>())));
  static_assert(noexcept(std::declval<S&>().reset()));
  static_assert(noexcept(std::declval<S&>().swap(std::declval<S&>())));
  static_assert(noexcept(std::declval<const S&>().owner_before(std::declval<const S&>())));
  static_assert(noexcept(std::declval<const W&>().lock()));
  static_assert(noexcept(std::declval<const W&>().expired()));
  static_assert(noexcept(std::declval<W&>().reset()));
  static_assert(noexcept(std::declval<W&>().swap(std::declval<W&>())));
  static_assert(std::is_nothrow_default_constructible_v<S> && std::is_nothrow_default_constructible_v<W>);
  static_assert(std::is_nothrow_copy_constructible_v<S> && std::is_nothrow_move_constructible_v<S>);
  static_assert(std::is_nothrow_copy_assignable_v<S> && std::is_nothrow_move_assignable_v<S>);
  static_assert(std::is_nothrow_copy_constructible_v<W> && std::is_nothrow_move_constructible_v<W>);
  static_assert(std::is_nothrow_copy_assignable_v<W> && std::is_nothrow_move_assignable_v<W>);
  static_assert(std::is_nothrow_destructible_v<S> && std::is_nothrow_destructible_v<W>);
  static_assert(!std::is_trivially_copyable_v<S> && !std::is_trivially_destructible_v<S>);
  static_assert(std::is_same_v<decltype(std::hash<S>()(std::declval<const S&>())), std::size_t>);
  static_assert(noexcept(std::hash<S>()(std::declval<const S&>())));
  static_assert(std::is_same_v<decltype(std::declval<const S&>() == std::declval<const S&>()), bool>);
  static_assert(std::is_same_v<decltype(std::declval<const S&>() != nullptr), bool>);
  static_assert(std::is_same_v<decltype(nullptr != std::declval<const S&>()), bool>);
  static_assert(std::is_same_v<decltype(std::declval<const S&>() < std::declval<const S&>()), bool>);
  static_assert(std::is_same_v<decltype(nullptr >= std::declval<const S&>()), bool>);
  static_assert(noexcept(std::declval<const S&>() == std::declval<const S&>()));
  static_assert(noexcept(std::declval<const S&>() < nullptr));
#if __cplusplus >= 202002L
  static_assert(std::is_same_v<decltype(std::declval<const S&>() <=> std::declval<const S&>()), std::strong_ordering>);
  static_assert(std::is_same_v<decltype(std::declval<const S&>() <=> nullptr), std::strong_ordering>);
  static_assert(std::three_way_comparable<S> && std::totally_ordered<S> && std::equality_comparable_with<S, std::nullptr_t>);
#endif
  static constexpr bool ok = true;
};
#if __cplusplus >= 202002L
// Concepts over mixed operands: whatever std's answer, own's must be the same.
template <class A, class B>
constexpr bool concepts_agree() {
  using SA = std::shared_ptr<A>;
  using SB = std::shared_ptr<B>;
  using OA = own::shared_ptr<A>;
  using OB = own::shared_ptr<B>;
  return std::three_way_comparable_with<SA, SB> == std::three_way_comparable_with<OA, OB> &&
         std::equality_comparable_with<SA, SB> == std::equality_comparable_with<OA, OB> &&
         std::totally_ordered_with<SA, SB> == std::totally_ordered_with<OA, OB> &&
         std::three_way_comparable_with<SA, std::nullptr_t> == std::three_way_comparable_with<OA, std::nullptr_t> &&
         std::totally_ordered_with<SA, std::nullptr_t> == std::totally_ordered_with<OA, std::nullptr_t> &&
         std::equality_comparable_with<SA, std::nullptr_t> == std::equality_comparable_with<OA, std::nullptr_t> &&
         std::common_reference_with<SA, SB> == std::common_reference_with<OA, OB> &&
         std::regular<SA> == std::regular<OA> && std::semiregular<SA> == std::semiregular<OA>;
}
static_assert(concepts_agree<int, int>() && concepts_agree<base, derived>() && concepts_agree<int, const int>() &&
              concepts_agree<void, int>() && concepts_agree<int[], int[3]>() && concepts_agree<int, long>());
#endif

template <class Api, class T>
struct object_surface : surface<Api, T> {
  using S = typename Api::template shared_ptr<T>;
  static_assert(std::is_same_v<decltype(*std::declval<const S&>()), T&>);
  static_assert(std::is_same_v<decltype(std::declval<const S&>().operator->()), T*>);
  static_assert(noexcept(*std::declval<const S&>()) && noexcept(std::declval<const S&>().operator->()));
};
template <class Api, class T>
struct array_surface : surface<Api, T> {
  using S = typename Api::template shared_ptr<T>;
  static_assert(std::is_same_v<decltype(std::declval<const S&>()[0]), std::remove_extent_t<T>&>);
  static_assert(std::is_same_v<decltype(std::declval<const S&>()[std::ptrdiff_t(1)]), std::remove_extent_t<T>&>);
};
template struct object_surface<std_api, int>;
template struct object_surface<own_api, int>;
template struct object_surface<std_api, const base>;
template struct object_surface<own_api, const base>;
template struct object_surface<std_api, incomplete_t>;
template struct object_surface<own_api, incomplete_t>;
template struct surface<std_api, void>;
template struct surface<own_api, void>;
template struct array_surface<std_api, int[]>;
template struct array_surface<own_api, int[]>;
template struct array_surface<std_api, const int[4]>;
template struct array_surface<own_api, const int[4]>;
template struct array_surface<std_api, int[2][3]>;
template struct array_surface<own_api, int[2][3]>;

// Members std does not have (or leaves unspecified) on arrays and void must not appear on own either
// when std's are absent: `p[i]` on an object pointer, `*p` on an array pointer.
template <class P, class = void>
struct has_index : std::false_type {};
template <class P>
struct has_index<P, std::void_t<decltype(std::declval<const P&>()[0])>> : std::true_type {};
template <class P, class = void>
struct has_deref : std::false_type {};
template <class P>
struct has_deref<P, std::void_t<decltype(*std::declval<const P&>())>> : std::true_type {};
template <class P, class = void>
struct has_arrow : std::false_type {};
template <class P>
struct has_arrow<P, std::void_t<decltype(std::declval<const P&>().operator->())>> : std::true_type {};
template <class T>
constexpr bool observers_agree() {
  using S = std::shared_ptr<T>;
  using O = own::shared_ptr<T>;
  return has_index<S>::value == has_index<O>::value && has_deref<S>::value == has_deref<O>::value &&
         has_arrow<S>::value == has_arrow<O>::value;
}
// (libc++ declares every observer for every T, where the standard leaves it unspecified for arrays
// and void: own follows libstdc++, which declares only those that make sense.)
static_assert(OWN_TEST_STD_IS_LIBCXX || (observers_agree<int>() && observers_agree<int[]>() && observers_agree<int[3]>() &&
                                         observers_agree<int[2][3]>() && observers_agree<base>()));

// std::weak_ptr has no comparison operators.
template <class P, class = void>
struct has_weak_less : std::false_type {};
template <class P>
struct has_weak_less<P, std::void_t<decltype(std::declval<const P&>() < std::declval<const P&>())>> : std::true_type {};
static_assert(has_weak_less<std::weak_ptr<int>>::value == has_weak_less<own::weak_ptr<int>>::value);

// Free functions: return types and noexcept.
template <class Api>
constexpr bool free_functions_agree() {
  using S = typename Api::template shared_ptr<base>;
  static_assert(std::is_same_v<decltype(Api::template static_pointer_cast<derived>(std::declval<const S&>())),
                               typename Api::template shared_ptr<derived>>);
  static_assert(std::is_same_v<decltype(Api::template dynamic_pointer_cast<derived>(std::declval<S>())),
                               typename Api::template shared_ptr<derived>>);
  static_assert(std::is_same_v<decltype(Api::template const_pointer_cast<const base>(std::declval<S>())),
                               typename Api::template shared_ptr<const base>>);
  static_assert(std::is_same_v<decltype(Api::template make_shared<int>(1)), typename Api::template shared_ptr<int>>);
#if __cplusplus >= 202002L
  static_assert(std::is_same_v<decltype(Api::template make_shared<int[]>(3)), typename Api::template shared_ptr<int[]>>);
  static_assert(std::is_same_v<decltype(Api::template make_shared<int[3]>()), typename Api::template shared_ptr<int[3]>>);
#endif
  return true;
}
static_assert(free_functions_agree<std_api>() && free_functions_agree<own_api>());
static_assert(noexcept(std::static_pointer_cast<derived>(std::declval<std::shared_ptr<base>>())) ==
              noexcept(own::static_pointer_cast<derived>(std::declval<own::shared_ptr<base>>())));
static_assert(noexcept(std::dynamic_pointer_cast<derived>(std::declval<const std::shared_ptr<base>&>())) ==
              noexcept(own::dynamic_pointer_cast<derived>(std::declval<const own::shared_ptr<base>&>())));
static_assert(noexcept(std::get_deleter<deleter>(std::declval<const std::shared_ptr<base>&>())) ==
              noexcept(own::get_deleter<deleter>(std::declval<const own::shared_ptr<base>&>())));
static_assert(noexcept(std::make_shared<int>()) == noexcept(own::make_shared<int>()));

// make_shared's overload set: which argument lists are accepted for objects and arrays.
template <class Api, class T, class = void, class... A>
struct can_make : std::false_type {};
template <class Api, class T, class... A>
struct can_make<Api, T, std::void_t<decltype(Api::template make_shared<T>(std::declval<A>()...))>, A...> : std::true_type {};
template <class T, class... A>
constexpr bool make_agrees() {
  return can_make<std_api, T, void, A...>::value == can_make<own_api, T, void, A...>::value;
}
static_assert(make_agrees<int>() && make_agrees<int, int>() && make_agrees<int, int, int>());
#if __cplusplus >= 202002L
static_assert(make_agrees<int[]>() && make_agrees<int[], std::size_t>() && make_agrees<int[], std::size_t, int>());
static_assert(make_agrees<int[3]>() && make_agrees<int[3], int>() && make_agrees<int[3], std::size_t, int>());
static_assert(make_agrees<int[][2], std::size_t, const int (&)[2]>() && make_agrees<int[2][2], const int (&)[2]>());
#endif

#if __cplusplus >= 202002L
template <class T, class = void, class... A>
struct std_can_overwrite : std::false_type {};
template <class T, class... A>
struct std_can_overwrite<T, std::void_t<decltype(std::make_shared_for_overwrite<T>(std::declval<A>()...))>, A...>
    : std::true_type {};
template <class T, class = void, class... A>
struct own_can_overwrite : std::false_type {};
template <class T, class... A>
struct own_can_overwrite<T, std::void_t<decltype(own::make_shared_for_overwrite<T>(std::declval<A>()...))>, A...>
    : std::true_type {};
template <class T, class... A>
constexpr bool overwrite_agrees() {
  return std_can_overwrite<T, void, A...>::value == own_can_overwrite<T, void, A...>::value;
}
static_assert(overwrite_agrees<int>() && overwrite_agrees<int, int>() && overwrite_agrees<int[]>() &&
              overwrite_agrees<int[], std::size_t>() && overwrite_agrees<int[3]>() && overwrite_agrees<int[3], std::size_t>());
#endif

// The enable_shared_from_this base's interface.
struct esft_std : std::enable_shared_from_this<esft_std> {};
struct esft_own : own::enable_shared_from_this<esft_own> {};
template <class X, class S, class CS, class W, class CW>
constexpr bool esft_surface() {
  static_assert(std::is_same_v<decltype(std::declval<X&>().shared_from_this()), S>);
  static_assert(std::is_same_v<decltype(std::declval<const X&>().shared_from_this()), CS>);
  static_assert(std::is_same_v<decltype(std::declval<X&>().weak_from_this()), W>);
  static_assert(std::is_same_v<decltype(std::declval<const X&>().weak_from_this()), CW>);
  static_assert(!noexcept(std::declval<X&>().shared_from_this()));
  static_assert(noexcept(std::declval<X&>().weak_from_this()) && noexcept(std::declval<const X&>().weak_from_this()));
  static_assert(std::is_nothrow_default_constructible_v<X> && std::is_nothrow_copy_constructible_v<X> &&
                std::is_nothrow_copy_assignable_v<X>);
  return true;
}
static_assert(esft_surface<esft_std, std::shared_ptr<esft_std>, std::shared_ptr<const esft_std>, std::weak_ptr<esft_std>,
                           std::weak_ptr<const esft_std>>());
static_assert(esft_surface<esft_own, own::shared_ptr<esft_own>, own::shared_ptr<const esft_own>, own::weak_ptr<esft_own>,
                           own::weak_ptr<const esft_own>>());
// Its constructor, copy and destructor are protected.
static_assert(!std::is_default_constructible_v<std::enable_shared_from_this<int>> ==
              !std::is_default_constructible_v<own::enable_shared_from_this<int>>);
static_assert(!std::is_destructible_v<std::enable_shared_from_this<int>> ==
              !std::is_destructible_v<own::enable_shared_from_this<int>>);

// Deduction guides.
static_assert(std::is_same_v<decltype(own::shared_ptr(std::declval<own::weak_ptr<int>>())), own::shared_ptr<int>>);
static_assert(std::is_same_v<decltype(own::shared_ptr(std::declval<std::unique_ptr<int[]>>())), own::shared_ptr<int[]>>);
static_assert(std::is_same_v<decltype(own::weak_ptr(std::declval<own::shared_ptr<int>>())), own::weak_ptr<int>>);
static_assert(std::is_same_v<decltype(own::shared_ptr(std::declval<own::shared_ptr<int>&>())), own::shared_ptr<int>>);
template <template <class> class SP, class = void>
struct deduces_from_raw : std::false_type {};
template <template <class> class SP>
struct deduces_from_raw<SP, std::void_t<decltype(SP(std::declval<int*>()))>> : std::true_type {};
static_assert(deduces_from_raw<std::shared_ptr>::value == deduces_from_raw<own::shared_ptr>::value);

// The exception type is spelled own::bad_weak_ptr as well (and is std's, so handlers agree).
static_assert(std::is_same_v<own_api::bad_weak_ptr, std::bad_weak_ptr>);

// owner_less: which argument pairs each function object accepts.
template <class F, class A, class B>
constexpr bool owner_less_agrees() {
  return std::is_invocable_v<typename std_api::template owner_less<F>, arg_t<A, std_api>, arg_t<B, std_api>> ==
         std::is_invocable_v<typename own_api::template owner_less<F>, arg_t<A, own_api>, arg_t<B, own_api>>;
}
static_assert(owner_less_agrees<void, sp<int>, sp<double>>() && owner_less_agrees<void, sp<int>, wp<double>>() &&
              owner_less_agrees<void, wp<int>, wp<double>>() && owner_less_agrees<void, int, int>() &&
              owner_less_agrees<void, int*, sp<int>>());
static_assert(std::is_nothrow_invocable_v<own::owner_less<>, own::shared_ptr<int>, own::weak_ptr<long>>);
static_assert(std::is_same_v<std::owner_less<>::is_transparent, own::owner_less<>::is_transparent>);

// C++17's adaptable-function typedefs (deprecated there, gone from C++20's standard): own's
// owner_less and hash have each one std's have, naming the corresponding type.
struct absent {};
// name_of<F>::type: F::name, or `absent`.
#define OWN_TEST_MEMBER_TYPE_OF(name)                     \
  template <class F, class = void>                        \
  struct name##_of {                                      \
    using type = absent;                                  \
  };                                                      \
  template <class F>                                      \
  struct name##_of<F, std::void_t<typename F::name>> {    \
    using type = typename F::name;                        \
  };
OWN_TEST_MEMBER_TYPE_OF(result_type)
OWN_TEST_MEMBER_TYPE_OF(argument_type)
OWN_TEST_MEMBER_TYPE_OF(first_argument_type)
OWN_TEST_MEMBER_TYPE_OF(second_argument_type)
#undef OWN_TEST_MEMBER_TYPE_OF
template <class T>
struct as_std {
  using type = T;
};
template <class T>
struct as_std<own::shared_ptr<T>> {
  using type = std::shared_ptr<T>;
};
template <class T>
struct as_std<own::weak_ptr<T>> {
  using type = std::weak_ptr<T>;
};
template <template <class, class = void> class Member, class S, class O>
[[maybe_unused]] inline constexpr bool member_agrees =
    std::is_same_v<typename Member<S>::type, typename as_std<typename Member<O>::type>::type>;
template <class S, class O>
constexpr bool adaptable_typedefs_agree() {
  return member_agrees<result_type_of, S, O> && member_agrees<argument_type_of, S, O> &&
         member_agrees<first_argument_type_of, S, O> && member_agrees<second_argument_type_of, S, O>;
}
// Not vacuous: libstdc++ has them (in C++20 too). libc++ drops them in C++20, as the standard does;
// own keeps them, as libstdc++ does: a superset, which breaks no program written against either.
#if !OWN_TEST_STD_IS_LIBCXX
static_assert(!std::is_same_v<result_type_of<std::owner_less<std::shared_ptr<int>>>::type, absent> &&
              !std::is_same_v<argument_type_of<std::hash<std::shared_ptr<int>>>::type, absent>);
static_assert(adaptable_typedefs_agree<std::owner_less<std::shared_ptr<int>>, own::owner_less<own::shared_ptr<int>>>());
static_assert(adaptable_typedefs_agree<std::owner_less<std::weak_ptr<base>>, own::owner_less<own::weak_ptr<base>>>());
static_assert(adaptable_typedefs_agree<std::owner_less<>, own::owner_less<>>());
static_assert(adaptable_typedefs_agree<std::hash<std::shared_ptr<int>>, std::hash<own::shared_ptr<int>>>());
static_assert(adaptable_typedefs_agree<std::hash<std::shared_ptr<int[]>>, std::hash<own::shared_ptr<int[]>>>());
#endif

// =============================================================================================
// Run time: transcripts.

// What a scenario observed, one line per event.
class transcript {
 public:
  template <class... A>
  void operator()(const A&... a) {
    std::ostringstream line;
    (line << ... << a);
    lines_.push_back(line.str());
  }
  const std::vector<std::string>& lines() const { return lines_; }
  // Moves the last line equal to `line` to the end.
  void move_to_end(const std::string& line) {
    const auto at = std::find(lines_.rbegin(), lines_.rend(), line);
    ASSERT_NE(at, lines_.rend()) << line;
    std::rotate(std::prev(at.base()), at.base(), lines_.end());
  }

 private:
  std::vector<std::string> lines_;
};

transcript* g_log = nullptr;  // the transcript of the scenario running now

template <class... A>
void note(const A&... a) {
  if (g_log) (*g_log)(a...);
}

// An object that reports its construction and destruction.
struct obj {
  int id;
  explicit obj(int i = 0) : id(i) { note("construct obj ", id); }
  obj(const obj& o) : id(o.id + 100) { note("copy obj ", o.id, " to ", id); }
  virtual ~obj() { note("destroy obj ", id); }
};
struct obj_derived : obj {
  explicit obj_derived(int i = 0) : obj(i) {}
  ~obj_derived() override { note("destroy obj_derived ", id); }
};
// Array elements numbered in construction order; the Nth construction can be told to throw.
inline int g_next_element = 0;
inline int g_throw_at_element = -1;
struct element {
  int id;
  element() : id(g_next_element++) {
    if (id == g_throw_at_element) {
      note("element ", id, " throws");
      throw std::runtime_error("element");
    }
    note("construct element ", id);
  }
  element(const element& e) : id(g_next_element++) {
    if (id == g_throw_at_element) {
      note("element copy ", id, " throws");
      throw std::runtime_error("element");
    }
    note("copy element ", e.id, " to ", id);
  }
  ~element() { note("destroy element ", id); }
};

// A deleter that reports each call (and the dynamic type it deletes through).
struct logging_deleter {
  int tag = 0;
  template <class P>
  void operator()(P* p) const {
    note("deleter ", tag, " called with ", p ? "object" : "null");
    delete p;
  }
  void operator()(std::nullptr_t) const { note("deleter ", tag, " called with nullptr_t"); }
};
struct logging_array_deleter {
  template <class P>
  void operator()(P* p) const {
    note("array deleter called");
    delete[] p;
  }
};
struct move_only_logging_deleter {
  int tag = 0;
  bool moved_from = false;
  explicit move_only_logging_deleter(int t) : tag(t) {}
  move_only_logging_deleter(move_only_logging_deleter&& o) noexcept : tag(o.tag) { o.moved_from = true; }
  move_only_logging_deleter(const move_only_logging_deleter&) = delete;
  ~move_only_logging_deleter() {
    if (!moved_from) note("move-only deleter ", tag, " destroyed");
  }
  template <class P>
  void operator()(P* p) {
    note("move-only deleter ", tag, " called");
    delete p;
  }
};

// An allocator that reports allocate / deallocate / construct / destroy. Its value_type is checked
// at each construct and destroy against what [util.smartptr.shared.create] requires.
template <class T>
struct logging_allocator {
  using value_type = T;
  own_test::allocation_log* log;
  explicit logging_allocator(own_test::allocation_log* l) noexcept : log(l) {}
  template <class U>
  logging_allocator(const logging_allocator<U>& o) noexcept : log(o.log) {}
  T* allocate(std::size_t n) {
    note("allocate");
    return static_cast<T*>(log->allocate(n * sizeof(T), alignof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept {
    note("deallocate");
    log->deallocate(p, n * sizeof(T), alignof(T));
  }
  template <class U, class... A>
  void construct(U* p, A&&... a) {
    note("allocator construct");
    ::new (static_cast<void*>(p)) U(std::forward<A>(a)...);
  }
  template <class U>
  void destroy(U* p) {
    note("allocator destroy");
    p->~U();
  }
  friend bool operator==(const logging_allocator& a, const logging_allocator& b) noexcept { return a.log == b.log; }
  friend bool operator!=(const logging_allocator& a, const logging_allocator& b) noexcept { return a.log != b.log; }
};

// An Allocator that names an allocator_type too (as allocator-aware classes do): still an Allocator
// for shared_ptr, not taken for one of own's pools.
template <class T>
struct self_naming_allocator : logging_allocator<T> {
  using allocator_type = self_naming_allocator;
  using logging_allocator<T>::logging_allocator;
  template <class U>
  self_naming_allocator(const self_naming_allocator<U>& o) noexcept : logging_allocator<T>(o) {}
};

template <class Api>
class Conformance : public ::testing::Test {
 protected:
  void SetUp() override {
    g_next_element = 0;
    g_throw_at_element = -1;
  }
};
using apis = ::testing::Types<std_api, own_api>;
class api_names {
 public:
  template <class T>
  static std::string GetName(int) {
    return T::name;
  }
};
TYPED_TEST_SUITE(Conformance, apis, api_names);

// Runs scenario<Api>(log) for std and for TypeParam and compares what they observed.
template <template <class> class Scenario, class Api>
void expect_same_as_std() {
  transcript want, got;
  g_next_element = 0;
  g_throw_at_element = -1;
  g_log = &want;
  Scenario<std_api>::run(want);
  g_next_element = 0;
  g_throw_at_element = -1;
  g_log = &got;
  Scenario<Api>::run(got);
  g_log = nullptr;
  EXPECT_FALSE(want.lines().empty());
  if (got.lines() == want.lines()) return;
  // Show where the transcripts part, with a little context.
  const auto& g = got.lines();
  const auto& w = want.lines();
  std::size_t first = 0;
  while (first < g.size() && first < w.size() && g[first] == w[first]) ++first;
  std::ostringstream diff;
  const std::size_t from = first < 3 ? 0 : first - 3;
  for (std::size_t i = from; i < from + 12 && (i < g.size() || i < w.size()); ++i) {
    diff << (i < first ? "    " : "  ! ") << "std: " << (i < w.size() ? w[i] : "(end)") << "\n"
         << (i < first ? "    " : "  ! ") << Api::name << ": " << (i < g.size() ? g[i] : "(end)") << "\n";
  }
  ADD_FAILURE() << Api::name << " differs from std from line " << first << ":\n" << diff.str();
}

// Global operator new calls made by `f`.
template <class F>
long news_during(F&& f) {
  const long before = g_news.load();
  f();
  return g_news.load() - before;
}

// ---------------------------------------------------------------------------------------------
// Ownership of a raw pointer.

template <class Api>
struct raw_pointer_ownership {
  static void run(transcript& t) {
    using S = typename Api::template shared_ptr<obj>;
    using W = typename Api::template weak_ptr<obj>;
    S a;
    t("empty: use_count ", a.use_count(), " bool ", static_cast<bool>(a), " null ", a == nullptr);
    t("new calls for shared_ptr(new obj): ", news_during([&] { a = S(new obj(1)); }));
    t("use_count ", a.use_count());
    S b = a;
    W w = b;
    t("after copy + weak: ", a.use_count(), " ", w.use_count(), " expired ", w.expired());
    S c = std::move(b);
    t("after move: b empty ", b == nullptr, " b.use_count ", b.use_count(), " c.use_count ", c.use_count());
    a.reset(new obj(2));
    t("after reset(new): a ", a->id, " use_count ", a.use_count(), " c ", c->id, " ", c.use_count());
    c = a;  // obj 1 goes here
    t("after c = a: ", a.use_count(), " expired ", w.expired(), " lock null ", w.lock() == nullptr);
    a.reset();
    t("after a.reset(): c ", c.use_count());
    c = nullptr;
    t("after c = nullptr: ", c.use_count());
    // Owning a null pointer still makes a block: use_count 1, yet false.
    S n(static_cast<obj*>(nullptr));
    t("owning null: use_count ", n.use_count(), " bool ", static_cast<bool>(n));
    // Deletes the complete type through a base pointer, and through void.
    S d(new obj_derived(3));
    d.reset();
    typename Api::template shared_ptr<void> v(new obj_derived(4));
    typename Api::template shared_ptr<const void> cv = v;
    v.reset();
    t("void owner still holds: ", cv.use_count());
    cv.reset();
  }
};
TYPED_TEST(Conformance, RawPointerOwnership) { expect_same_as_std<raw_pointer_ownership, TypeParam>(); }

template <class Api>
struct deleters {
  static void run(transcript& t) {
    using S = typename Api::template shared_ptr<obj>;
    {
      S a(new obj_derived(1), logging_deleter{7});
      typename Api::template weak_ptr<obj> w = a;
      t("get_deleter tag ", Api::template get_deleter<logging_deleter>(a)->tag);
      t("get_deleter wrong type null ", Api::template get_deleter<int>(a) == nullptr);
      a.reset();
      t("expired ", w.expired());
    }
    {
      S a(nullptr, logging_deleter{8});
      t("nullptr + deleter: use_count ", a.use_count(), " bool ", static_cast<bool>(a),
        " has deleter ", Api::template get_deleter<logging_deleter>(a) != nullptr);
    }
    {
      S a(new obj(2), move_only_logging_deleter(9));
      S b = a;
      a.reset();
      t("move-only deleter still held, use_count ", b.use_count());
      typename Api::template weak_ptr<obj> w = b;
      b.reset();
      t("deleter alive while weak: ", Api::template get_deleter<move_only_logging_deleter>(w.lock()) == nullptr);
      w.reset();
      // The standard leaves open whether the deleter goes with the object or with the block
      // ([util.smartptr.getdeleter]); libc++ destroys it with the object, own (as libstdc++) with
      // the block, which is what this holds own to.
      if constexpr (libcxx_std<Api>) t.move_to_end("move-only deleter 9 destroyed");
    }
    {
      typename Api::template shared_ptr<obj[]> arr(new obj[2]{obj(3), obj(4)}, logging_array_deleter());
      arr.reset();
      typename Api::template shared_ptr<obj[2]> arr2(new obj[2]{obj(5), obj(6)});
      t("U[N] from new[]: ", arr2[1].id);
      arr2.reset();
      typename Api::template shared_ptr<obj[]> arr3(new obj[2]{obj(7), obj(8)});
      arr3.reset();
    }
    {
      // Function pointer deleter.
      void (*f)(obj*) = [](obj* p) {
        note("function deleter");
        delete p;
      };
      S a(new obj(10), f);
      t("function deleter found ", Api::template get_deleter<void (*)(obj*)>(a) != nullptr);
    }
  }
};
TYPED_TEST(Conformance, Deleters) { expect_same_as_std<deleters, TypeParam>(); }

// ---------------------------------------------------------------------------------------------
// Allocations: how many, when, and what happens when one fails.

template <class Api>
struct allocator_use {
  static void run(transcript& t) {
    own_test::allocation_log log;
    using S = typename Api::template shared_ptr<obj>;
    {
      S a(new obj(1), logging_deleter{1}, logging_allocator<int>(&log));
      typename Api::template weak_ptr<obj> w = a;
      t("blocks ", log.blocks_in_use());
      a.reset();
      t("after last owner: blocks ", log.blocks_in_use(), " expired ", w.expired());
      w.reset();
      t("after last weak: blocks ", log.blocks_in_use());
    }
    {
      S a(nullptr, logging_deleter{2}, logging_allocator<char>(&log));
      t("nullptr form: blocks ", log.blocks_in_use(), " use_count ", a.use_count());
    }
    // libc++ compiled as C++17 constructs and destroys the object itself, as C++17's text says;
    // own, as libstdc++, does it through the allocator in C++17 too, as C++20 says (LWG 2070).
    constexpr bool cxx17_libcxx = libcxx_std<Api> && __cplusplus < 202002L;
    // There std's transcript has no line for the allocator's step and logs the object's
    // construction or destruction where own's logs that step: add the step's line, then move the
    // object's line after it.
    auto as_through_allocator = [&]([[maybe_unused]] const char* step, [[maybe_unused]] int id) {
      if constexpr (cxx17_libcxx) {
        t("allocator ", step);
        t.move_to_end(std::string(step) + " obj " + std::to_string(id));
      }
    };
    {
      auto a = Api::template allocate_shared<obj>(logging_allocator<double>(&log), 3);
      as_through_allocator("construct", 3);
      typename Api::template weak_ptr<obj> w = a;
      t("allocate_shared: blocks ", log.blocks_in_use(), " id ", a->id);
      a.reset();
      as_through_allocator("destroy", 3);
      t("object gone, block stays: ", log.blocks_in_use());
      w.reset();
      t("block gone: ", log.blocks_in_use());
    }
#if __cplusplus >= 202002L
    {
      auto a = Api::template allocate_shared<element[]>(logging_allocator<long>(&log), 3);
      t("allocate_shared<element[]>: blocks ", log.blocks_in_use(), " ids ", a[0].id, a[1].id, a[2].id);
    }
    {
      auto a = Api::template allocate_shared<element[2][2]>(logging_allocator<long>(&log));
      t("allocate_shared<element[2][2]>: blocks ", log.blocks_in_use(), " last ", a[1][1].id);
    }
    {
      element proto;
      auto a = Api::template allocate_shared<element[]>(logging_allocator<long>(&log), 2, proto);
      t("allocate_shared<element[]>(2, proto): ", a[1].id);
    }
#endif
    {
      S a(new obj(7), logging_deleter{7}, self_naming_allocator<int>(&log));
      auto b = Api::template allocate_shared<obj>(self_naming_allocator<int>(&log), 8);
      as_through_allocator("construct", 8);
      t("allocators that name an allocator_type: blocks ", log.blocks_in_use(), " ids ", a->id, b->id);
      typename Api::template weak_ptr<obj> w = b;  // keeps b's block past the object (as above)
      b.reset();
      as_through_allocator("destroy", 8);
    }
    // Allocation failure: the deleter is called and nothing leaks.
    {
      log.throw_at = log.attempts.load() + 1;
      try {
        S a(new obj(4), logging_deleter{4}, logging_allocator<int>(&log));
        t("no throw?");
      } catch (const std::bad_alloc&) {
        t("bad_alloc; blocks ", log.blocks_in_use());
      }
      log.throw_at = log.attempts.load() + 1;
      try {
        S a(nullptr, logging_deleter{5}, logging_allocator<int>(&log));
        t("no throw?");
      } catch (const std::bad_alloc&) {
        t("bad_alloc; blocks ", log.blocks_in_use());
      }
      log.throw_at = log.attempts.load() + 1;
      try {
        auto a = Api::template allocate_shared<obj>(logging_allocator<int>(&log), 6);
        t("no throw?");
      } catch (const std::bad_alloc&) {
        t("bad_alloc; blocks ", log.blocks_in_use());
      }
      log.throw_at = 0;
    }
#if __cplusplus >= 202002L
#endif
    t("end: blocks ", log.blocks_in_use());
  }
};
TYPED_TEST(Conformance, AllocatorUse) { expect_same_as_std<allocator_use, TypeParam>(); }

template <class Api>
struct global_new_failures {
  static void run(transcript& t) {
    using S = typename Api::template shared_ptr<obj>;
    t("make_shared news ", news_during([] { Api::template make_shared<obj>(1); }));
#if __cplusplus >= 202002L
    t("make_shared<obj[]> news ", news_during([] { Api::template make_shared<element[]>(2); }));
#endif
    t("shared_ptr(nullptr, d) news ", news_during([] { S(nullptr, logging_deleter{1}); }));
    // The block allocation of shared_ptr(p) fails: p is deleted, the exception propagates.
    obj* p = new obj(2);
    g_fail_at = g_news.load() + 1;
    try {
      S a(p);
      t("no throw?");
    } catch (const std::bad_alloc&) {
      t("bad_alloc from shared_ptr(p)");
    }
    p = new obj(3);
    g_fail_at = g_news.load() + 1;
    try {
      S a(p, logging_deleter{3});
      t("no throw?");
    } catch (const std::bad_alloc&) {
      t("bad_alloc from shared_ptr(p, d)");
    }
    g_fail_at = g_news.load() + 1;
    try {
      S a(nullptr, logging_deleter{4});
      t("no throw?");
    } catch (const std::bad_alloc&) {
      t("bad_alloc from shared_ptr(nullptr, d)");
    }
    // reset(p) that fails leaves the pointer as it was.
    S keep = Api::template make_shared<obj>(5);
    p = new obj(6);
    g_fail_at = g_news.load() + 1;
    try {
      keep.reset(p);
    } catch (const std::bad_alloc&) {
      t("reset threw; still ", keep->id, " use_count ", keep.use_count());
    }
    g_fail_at = g_news.load() + 1;
    try {
      auto m = Api::template make_shared<obj>(7);
      t("no throw?");
    } catch (const std::bad_alloc&) {
      t("make_shared threw before constructing");
    }
    // unique_ptr: if the block cannot be allocated, the unique_ptr keeps its object.
    std::unique_ptr<obj, logging_deleter> u(new obj(8), logging_deleter{8});
    g_fail_at = g_news.load() + 1;
    try {
      S a(std::move(u));
      t("no throw?");
    } catch (const std::bad_alloc&) {
      t("unique_ptr kept: ", u->id, " tag ", u.get_deleter().tag);
    }
    // operator=(unique_ptr&&) and reset(p, d) that fail leave everything as it was (d(p) for reset).
    g_fail_at = g_news.load() + 1;
    try {
      keep = std::move(u);
      t("no throw?");
    } catch (const std::bad_alloc&) {
      t("assignment threw; still ", keep->id, " unique_ptr kept ", u->id);
    }
    g_fail_at = g_news.load() + 1;
    try {
      keep.reset(new obj(9), logging_deleter{9});
      t("no throw?");
    } catch (const std::bad_alloc&) {
      t("reset(p, d) threw; still ", keep->id);
    }
    g_fail_at = 0;
    keep = std::move(u);
    t("after taking it: ", keep->id, " unique empty ", u == nullptr, " get_deleter tag ",
      Api::template get_deleter<logging_deleter>(keep)->tag);
  }
};
TYPED_TEST(Conformance, GlobalNewFailures) {
  if (!OWN_TEST_REPLACES_NEW) GTEST_SKIP() << "operator new is the sanitizer's";
  expect_same_as_std<global_new_failures, TypeParam>();
}

// ---------------------------------------------------------------------------------------------
// make_shared

struct throws_on_five {
  int v;
  explicit throws_on_five(int x) : v(x) {
    if (x == 5) throw std::logic_error("five");
    note("constructed ", v);
  }
  ~throws_on_five() { note("destroyed ", v); }
};
struct aggregate {
  int a;
  int b;
};

template <class Api>
struct make_shared_objects {
  static void run(transcript& t) {
    auto i = Api::template make_shared<int>();
    t("value-initialised int ", *i);
    auto s = Api::template make_shared<std::string>(3, 'x');
    t("string ", *s);
    auto c = Api::template make_shared<const obj>(1);
    t("const obj ", c->id);
    c.reset();
    try {
      Api::template make_shared<throws_on_five>(5);
    } catch (const std::logic_error& e) {
      t("threw ", e.what());
    }
    auto v = Api::template make_shared<std::vector<int>>(std::vector<int>{1, 2, 3});
    t("vector size ", v->size());
    typename Api::template weak_ptr<obj> w;
    {
      auto o = Api::template make_shared<obj>(2);
      w = o;
    }
    t("make_shared object destroyed while weak remains, expired ", w.expired());
#if defined(__cpp_aggregate_paren_init)  // C++20 (P0960), which clang 14 lacks
    auto agg = Api::template make_shared<aggregate>(1, 2);
    t("aggregate ", agg->a, agg->b);
#endif
  }
};
TYPED_TEST(Conformance, MakeSharedObjects) { expect_same_as_std<make_shared_objects, TypeParam>(); }

#if __cplusplus >= 202002L
template <class Api>
struct make_shared_arrays {
  static void run(transcript& t) {
    {
      auto a = Api::template make_shared<element[]>(3);
      t("element[3] made, use_count ", a.use_count());
    }
    {
      auto a = Api::template make_shared<element[2][2]>();
      t("element[2][2]: ", a[0][0].id, a[0][1].id, a[1][0].id, a[1][1].id);
    }
    {
      element proto[2];
      auto a = Api::template make_shared<element[][2]>(2, proto);
      t("element[][2] from a pattern: ", a[1][1].id);
    }
    {
      element one;
      auto a = Api::template make_shared<element[3]>(one);
      t("element[3] from one: ", a[2].id);
    }
    {
      // The initial value as a braced list, which only a direct call can take.
      typename Api::template shared_ptr<int[][2]> ints;
      if constexpr (std::is_same_v<Api, std_api>) {
        ints = std::make_shared<int[][2]>(3, {1, 2});
      } else {
        ints = own::make_shared<int[][2]>(3, {1, 2});
      }
      t("int[][2] {1,2} x3: ", ints[0][0], ints[0][1], ints[2][0], ints[2][1]);
      auto z = Api::template make_shared<int[4]>();
      t("int[4] value-initialised: ", z[0] + z[1] + z[2] + z[3]);
      auto e = Api::template make_shared<int[]>(0);
      t("int[0]: use_count ", e.use_count());
      auto d = Api::template make_shared<double[]>(2, 1.5);
      t("double[] 1.5: ", d[0] + d[1]);
    }
    if constexpr (libcxx_std<Api>) {
      // libc++ 16's block size overflows, and it writes past the small block it got; the standard
      // throws bad_alloc ([util.smartptr.shared.create]).
      t("huge array: bad_alloc");
    } else {
      try {
        Api::template make_shared<int[]>(std::size_t(-1) / 2);
        t("no throw?");
      } catch (const std::bad_alloc&) {
        t("huge array: bad_alloc");
      }
    }
    {
      auto w = Api::template make_shared<element[]>(2);
      typename Api::template weak_ptr<element[]> weak = w;
      w.reset();
      t("array destroyed while weak remains: ", weak.expired());
    }
  }
};
TYPED_TEST(Conformance, MakeSharedArrays) { expect_same_as_std<make_shared_arrays, TypeParam>(); }

// The _for_overwrite forms default-initialise with ::new(pv) U and destroy with pv->~U(), never
// through the allocator's construct / destroy; arrays in ascending order, destroyed in reverse.
template <class Api>
struct for_overwrite {
  template <class T, class... A>
  static auto make(A&&... a) {
    if constexpr (std::is_same_v<Api, std_api>) {
      return std::make_shared_for_overwrite<T>(std::forward<A>(a)...);
    } else {
      return own::make_shared_for_overwrite<T>(std::forward<A>(a)...);
    }
  }
  template <class T, class Al, class... A>
  static auto allocate(const Al& al, A&&... a) {
    if constexpr (std::is_same_v<Api, std_api>) {
      return std::allocate_shared_for_overwrite<T>(al, std::forward<A>(a)...);
    } else {
      return own::allocate_shared_for_overwrite<T>(al, std::forward<A>(a)...);
    }
  }
  static void run(transcript& t) {
    own_test::allocation_log log;
    {
      auto a = make<obj>();
      auto b = make<element[]>(2);
      auto c = make<element[2][2]>();
      t("made: ", a->id, " ", b[1].id, " ", c[1][1].id, " use_count ", b.use_count());
    }
    {
      auto a = allocate<obj>(logging_allocator<int>(&log));
      auto b = allocate<element[]>(logging_allocator<int>(&log), 2);
      auto c = allocate<element[2]>(logging_allocator<int>(&log));
      t("allocated: blocks ", log.blocks_in_use());
    }
    t("blocks ", log.blocks_in_use());
  }
};
// libstdc++ 12 destroys _for_overwrite arrays in construction order (std::destroy_n), against "the
// initialized elements are destroyed in the reverse order of their original construction": the
// standard's transcript is written out.
TYPED_TEST(Conformance, ForOverwrite) {
  if (std::is_same_v<TypeParam, std_api>) GTEST_SKIP() << "libstdc++ 12 destroys these arrays in construction order";
  transcript got;
  g_next_element = 0;
  g_log = &got;
  for_overwrite<TypeParam>::run(got);
  g_log = nullptr;
  const std::vector<std::string> standard = {
      "construct obj 0", "construct element 0", "construct element 1", "construct element 2", "construct element 3",
      "construct element 4", "construct element 5", "made: 0 1 5 use_count 1",
      "destroy element 5", "destroy element 4", "destroy element 3", "destroy element 2",
      "destroy element 1", "destroy element 0", "destroy obj 0",
      "allocate", "construct obj 0", "allocate", "construct element 6", "construct element 7",
      "allocate", "construct element 8", "construct element 9", "allocated: blocks 3",
      "destroy element 9", "destroy element 8", "deallocate", "destroy element 7", "destroy element 6", "deallocate",
      "destroy obj 0", "deallocate", "blocks 0"};
  EXPECT_EQ(got.lines(), standard);
}

// An element constructor throws: the elements already made are destroyed "in the reverse order of
// their original construction" ([util.smartptr.shared.create], C++20), the memory goes back, the
// exception propagates. libstdc++ 12 destroys them in construction order (std::_Destroy(first,
// cur)), so here the standard's order is written out rather than taken from std_api.
template <class Api>
std::vector<std::string> array_construction_throws() {
  transcript t;
  g_log = &t;
  own_test::allocation_log log;
  g_next_element = 0;
  g_throw_at_element = 2;
  try {
    auto a = Api::template allocate_shared<element[4]>(logging_allocator<int>(&log));
    t("no throw?");
  } catch (const std::runtime_error&) {
    t("threw; blocks ", log.blocks_in_use());
  }
  g_next_element = 0;
  g_throw_at_element = 3;
  try {
    Api::template make_shared<element[5]>();
  } catch (const std::runtime_error&) {
    t("threw mid-array");
  }
  g_next_element = 0;
  g_throw_at_element = 3;
  try {
    Api::template make_shared<element[][2]>(3);
  } catch (const std::runtime_error&) {
    t("threw mid-array of arrays");
  }
  g_throw_at_element = -1;
  g_log = nullptr;
  return t.lines();
}
TYPED_TEST(Conformance, ArrayElementsMadeBeforeAThrowAreDestroyedInReverse) {
  if (std::is_same_v<TypeParam, std_api>) GTEST_SKIP() << "libstdc++ 12 destroys them in construction order";
  const std::vector<std::string> standard = {
      "allocate", "allocator construct", "construct element 0", "allocator construct", "construct element 1",
      "allocator construct", "element 2 throws", "allocator destroy", "destroy element 1", "allocator destroy",
      "destroy element 0", "deallocate", "threw; blocks 0",
      "construct element 0", "construct element 1", "construct element 2", "element 3 throws",
      "destroy element 2", "destroy element 1", "destroy element 0", "threw mid-array",
      "construct element 0", "construct element 1", "construct element 2", "element 3 throws",
      "destroy element 2", "destroy element 1", "destroy element 0", "threw mid-array of arrays"};
  EXPECT_EQ(array_construction_throws<TypeParam>(), standard);
}
#endif

// ---------------------------------------------------------------------------------------------
// Types whose unary operator& is deleted: the library must take their addresses with
// std::addressof, as std does, or these do not compile.

struct no_address {
  int v = 8;
  void operator&() const = delete;
};
struct no_address_deleter {
  void operator()(int* p) const {
    note("no_address_deleter called");
    delete p;
  }
  void operator&() const = delete;
};

template <class Api>
struct deleted_address_of {
  static void run(transcript& t) {
    {
      typename Api::template shared_ptr<int> p(new int(1), no_address_deleter());
      t("deleter found ", Api::template get_deleter<no_address_deleter>(p) != nullptr, " value ", *p);
    }
    t("make_shared<no_address>: ", Api::template make_shared<no_address>()->v);
#if __cplusplus >= 202002L
    no_address five;
    five.v = 5;
    std::allocator<no_address> a;
    t("make_shared<no_address[]>(2): ", Api::template make_shared<no_address[]>(2)[1].v);
    t("make_shared<no_address[3]>(): ", Api::template make_shared<no_address[3]>()[2].v);
    t("make_shared<no_address[]>(2, five): ", Api::template make_shared<no_address[]>(2, five)[1].v);
    t("make_shared<no_address[3]>(five): ", Api::template make_shared<no_address[3]>(five)[2].v);
    t("allocate_shared<no_address[]>(a, 2, five): ", Api::template allocate_shared<no_address[]>(a, 2, five)[1].v);
    t("allocate_shared<no_address[3]>(a, five): ", Api::template allocate_shared<no_address[3]>(a, five)[2].v);
    no_address pair[2];
    pair[1].v = 6;
    t("make_shared<no_address[][2]>(2, pair): ", Api::template make_shared<no_address[][2]>(2, pair)[1][1].v);
#endif
  }
};
TYPED_TEST(Conformance, DeletedAddressOf) { expect_same_as_std<deleted_address_of, TypeParam>(); }

// ---------------------------------------------------------------------------------------------
// Aliasing, weak_ptr

template <class Api>
struct aliasing_and_weak {
  static void run(transcript& t) {
    using S = typename Api::template shared_ptr<obj>;
    S owner = Api::template make_shared<obj>(1);
    typename Api::template shared_ptr<int> id(owner, &owner->id);
    t("alias: ", *id, " use_count ", owner.use_count(), " owner-equivalent ",
      !id.owner_before(owner) && !owner.owner_before(id));
#if __cplusplus >= 202002L
    typename Api::template shared_ptr<int> moved(std::move(id), &owner->id);
    if constexpr (libcxx_std<Api>) id.reset();  // libc++ 16 lacks C++20's moving alias and copies
    t("move-alias: source empty ", id == nullptr, " ", id.use_count(), " target ", moved.use_count());
#else
    typename Api::template shared_ptr<int> moved = std::move(id);  // C++17 std has no moving alias
#endif
    static int x = 9;
    typename Api::template shared_ptr<int> unowned(S(), &x);
    t("alias of empty: bool ", static_cast<bool>(unowned), " use_count ", unowned.use_count(), " value ", *unowned);
    typename Api::template shared_ptr<int> null_alias(owner, nullptr);
    t("null alias of owner: bool ", static_cast<bool>(null_alias), " use_count ", null_alias.use_count());
    typename Api::template weak_ptr<int> w = moved;
    owner.reset();
    t("owner released: weak expired ", w.expired());
    moved.reset();
    null_alias.reset();
    t("all released: expired ", w.expired(), " use_count ", w.use_count(), " lock empty ", w.lock() == nullptr);
    try {
      typename Api::template shared_ptr<int> s(w);
      t("no throw?");
    } catch (const typename Api::bad_weak_ptr& e) {
      t("bad_weak_ptr");
    }
    typename Api::template weak_ptr<obj> empty;
    try {
      S s(empty);
      t("no throw?");
    } catch (const typename Api::bad_weak_ptr&) {
      t("bad_weak_ptr from empty");
    }
    // weak_ptr conversions and assignment.
    auto d = Api::template make_shared<obj_derived>(2);
    typename Api::template weak_ptr<obj_derived> wd = d;
    typename Api::template weak_ptr<obj> wb = wd;
    typename Api::template weak_ptr<const obj> wc = std::move(wb);
    t("weak conversions: ", wc.lock()->id, " use_count ", wc.use_count(), " moved-from expired ", wb.expired());
    typename Api::template weak_ptr<void> wv;
    wv = d;
    t("weak_ptr<void> from shared: ", wv.use_count());
    S back(wd);
    t("shared from weak: ", back->id, " ", d.use_count());
  }
};
TYPED_TEST(Conformance, AliasingAndWeak) { expect_same_as_std<aliasing_and_weak, TypeParam>(); }

// The rvalue aliasing constructor shared_ptr(shared_ptr<Y>&&, element_type*) and the rvalue casts
// are C++20. Compiled as C++17, std has neither, so `shared_ptr<int> b(std::move(a), p)` and
// `static_pointer_cast<U>(std::move(a))` copy `a` and leave it owning: own must do the same there.
template <class Api>
struct rvalue_forms {
  static void run(transcript& t) {
    auto a = Api::template make_shared<obj>(1);
    typename Api::template shared_ptr<int> b(std::move(a), &a->id);
    if constexpr (libcxx_std<Api> && __cplusplus >= 202002L) a.reset();  // libc++ 16 copies (as C++17)
    t("after aliasing from std::move(a): a owns ", a.use_count(), " b ", b.use_count());
    auto c = Api::template make_shared<obj_derived>(2);
    auto d = Api::template static_pointer_cast<obj>(std::move(c));
    if constexpr (libcxx_std<Api> && __cplusplus >= 202002L) c.reset();  // libc++ 16 copies (as C++17)
    t("after static_pointer_cast(std::move(c)): c owns ", c.use_count(), " d ", d.use_count());
  }
};
TYPED_TEST(Conformance, RvalueAliasingAndCastsAsInStd) { expect_same_as_std<rvalue_forms, TypeParam>(); }

// shared_ptr<vbase>(weak_ptr<vderived>) on an expired weak_ptr must throw bad_weak_ptr without
// converting the dangling pointer, which reads the object's (gone) virtual-base offset.
struct vobj : virtual vbase {
  int z = 6;
};
template <class Api>
struct expired_weak_through_virtual_base {
  static void run(transcript& t) {
    alignas(vobj) static unsigned char storage[sizeof(vobj)];
    typename Api::template weak_ptr<vobj> w;
    {
      // The deleter wipes the object's memory after destroying it, as a reuse of the storage might.
      typename Api::template shared_ptr<vobj> p(::new (storage) vobj, [](vobj* q) {
        q->~vobj();
        std::memset(static_cast<void*>(storage), 0, sizeof storage);
      });
      w = p;
      typename Api::template shared_ptr<vbase> alive(w);
      t("alive: ", alive->v);
    }
    if constexpr (libcxx_std<Api>) {
      // libc++ 16 converts the dangling pointer in both and crashes; the standard throws
      // bad_weak_ptr ([util.smartptr.shared.const]) and converts an expired weak_ptr to an expired one.
      t("bad_weak_ptr");
      t("weak conversion expired 1");
      return;
    }
    try {
      typename Api::template shared_ptr<vbase> dead(w);
      t("no throw?");
    } catch (const std::bad_weak_ptr&) {
      t("bad_weak_ptr");
    }
    typename Api::template weak_ptr<vbase> wb = w;
    t("weak conversion expired ", wb.expired());
  }
};
TYPED_TEST(Conformance, ExpiredWeakThroughVirtualBase) { expect_same_as_std<expired_weak_through_virtual_base, TypeParam>(); }

// ---------------------------------------------------------------------------------------------
// unique_ptr

struct ref_deleter {
  int calls = 0;
  template <class P>
  void operator()(P* p) {
    ++calls;
    note("ref deleter call ", calls);
    delete p;
  }
};

template <class Api>
struct from_unique_ptr {
  static void run(transcript& t) {
    using S = typename Api::template shared_ptr<obj>;
    S a = std::unique_ptr<obj>(new obj(1));
    t("from unique_ptr: ", a.use_count(), " get_deleter<default_delete<obj>> ",
      Api::template get_deleter<std::default_delete<obj>>(a) != nullptr);
    S empty = std::unique_ptr<obj>();
    t("from empty unique_ptr: use_count ", empty.use_count(), " bool ", static_cast<bool>(empty));
    ref_deleter d;
    {
      std::unique_ptr<obj, ref_deleter&> u(new obj(2), d);
      S b(std::move(u));
      t("unique released ", u.get() == nullptr, " deleter is a ref: ",
        Api::template get_deleter<std::reference_wrapper<ref_deleter>>(b) != nullptr);
    }
    t("referenced deleter called ", d.calls);
    {
      std::unique_ptr<obj, move_only_logging_deleter> u(new obj_derived(3), move_only_logging_deleter(3));
      S b;
      b = std::move(u);
      t("assigned from unique_ptr, ", b.use_count(), " ", b->id);
    }
    {
      typename Api::template shared_ptr<obj[]> arr = std::unique_ptr<obj[]>(new obj[2]);
      arr.reset();
      typename Api::template shared_ptr<void> v = std::unique_ptr<obj[]>(new obj[2]{obj(4), obj(5)});
      v.reset();
      typename Api::template shared_ptr<const obj> c = std::unique_ptr<obj_derived>(new obj_derived(6));
      c.reset();
    }
    {
      std::unique_ptr<obj, logging_deleter> u(nullptr, logging_deleter{9});
      S b(std::move(u));
      t("empty unique_ptr with deleter: use_count ", b.use_count(), " deleter found ",
        Api::template get_deleter<logging_deleter>(b) != nullptr);
    }
  }
};
TYPED_TEST(Conformance, FromUniquePtr) { expect_same_as_std<from_unique_ptr, TypeParam>(); }

// ---------------------------------------------------------------------------------------------
// Assignment from inside a destructor, self-assignment.

template <class Api>
struct reentrant {
  inline static typename Api::template shared_ptr<obj>* target = nullptr;
  struct resets_target {
    int id;
    ~resets_target() {
      note("resets_target ", id, " destructor sees target ", (target && *target) ? (*target)->id : -1);
      if (target) target->reset();
    }
  };
  struct assigns_target {
    ~assigns_target() {
      note("assigns_target destructor");
      *target = Api::template make_shared<obj>(50);
    }
  };
  static void run(transcript& t) {
    using S = typename Api::template shared_ptr<obj>;
    S g = Api::template make_shared<obj>(1);
    target = &g;
    {
      auto r = Api::template make_shared<resets_target>(resets_target{2});
      (void)r;
    }
    t("after: g ", g ? g->id : -1);
    // The object owned by `g` resets `g` itself from its destructor.
    struct self_resetter : obj {
      explicit self_resetter(int i) : obj(i) {}
      ~self_resetter() override {
        note("self_resetter sees target ", (target && *target) ? (*target)->id : -1);
        if (target) target->reset();
      }
    };
    g.reset(new self_resetter(3));
    g.reset();
    t("after self reset: ", static_cast<bool>(g));
    g = Api::template make_shared<self_resetter>(4);
    g = Api::template make_shared<obj>(5);
    t("after replacing a self-resetter: ", g ? g->id : -1);
    // Another object assigns `g` from its destructor, which runs during g's own reassignment.
    {
      auto a = Api::template make_shared<assigns_target>();
      typename Api::template shared_ptr<void> holder = a;
      a.reset();
      holder.reset();
    }
    t("assigned from destructor: ", g->id);
    S& alias = g;
    g = alias;
    t("self copy-assign: ", g->id, " ", g.use_count());
    g = std::move(alias);
    t("self move-assign: ", g ? g->id : -1, " ", g.use_count());
    target = nullptr;
  }
};
TYPED_TEST(Conformance, Reentrant) { expect_same_as_std<reentrant, TypeParam>(); }

// What a destructor or a deleter sees of its own owner group while it runs: no shared owner left,
// weak_ptrs expired and unlockable, shared_from_this throwing.
template <class Api>
struct observed_from_destructor {
  inline static typename Api::template weak_ptr<obj>* watcher = nullptr;
  struct watched : obj {
    explicit watched(int i) : obj(i) {}
    ~watched() override {
      note("~watched: use_count ", watcher->use_count(), " expired ", watcher->expired(), " lock empty ",
           watcher->lock() == nullptr);
      typename Api::template weak_ptr<obj> copy = *watcher;  // copying a weak_ptr of a dying object
      note("~watched: copy use_count ", copy.use_count());
    }
  };
  struct self_aware : Api::template enable_shared_from_this<self_aware> {
    ~self_aware() {
      note("~self_aware: weak_from_this expired ", this->weak_from_this().expired());
      try {
        this->shared_from_this();
        note("~self_aware: shared_from_this worked?");
      } catch (const std::bad_weak_ptr&) {
        note("~self_aware: bad_weak_ptr");
      }
    }
  };
  static void run(transcript& t) {
    typename Api::template weak_ptr<obj> w;
    watcher = &w;
    {
      typename Api::template shared_ptr<obj> a(new watched(1));
      w = a;
    }
    {
      auto a = Api::template make_shared<watched>(2);
      w = a;
    }
    {
      typename Api::template shared_ptr<obj> a(new obj(3), [](obj* p) {
        note("deleter: use_count ", watcher->use_count(), " expired ", watcher->expired());
        delete p;
      });
      w = a;
    }
    t("after: expired ", w.expired());
    auto s = Api::template make_shared<self_aware>();
    s.reset();
    typename Api::template shared_ptr<self_aware> r(new self_aware);
    r = nullptr;
    watcher = nullptr;
  }
};
TYPED_TEST(Conformance, ObservedFromDestructor) { expect_same_as_std<observed_from_destructor, TypeParam>(); }

// ---------------------------------------------------------------------------------------------
// enable_shared_from_this

// A unique_ptr deleter whose pointer type is a class holding the raw pointer.
template <class T>
struct fancy_ptr {
  T* raw = nullptr;
  fancy_ptr() = default;
  fancy_ptr(std::nullptr_t) noexcept {}
  explicit fancy_ptr(T* p) noexcept : raw(p) {}
  operator T*() const noexcept { return raw; }  // shared_ptr's constraint: converts to element_type*
  T* operator->() const noexcept { return raw; }
  T& operator*() const noexcept { return *raw; }
  explicit operator bool() const noexcept { return raw != nullptr; }
  friend bool operator==(fancy_ptr a, fancy_ptr b) noexcept { return a.raw == b.raw; }
  friend bool operator!=(fancy_ptr a, fancy_ptr b) noexcept { return a.raw != b.raw; }
  friend bool operator==(fancy_ptr a, std::nullptr_t) noexcept { return a.raw == nullptr; }
  friend bool operator!=(fancy_ptr a, std::nullptr_t) noexcept { return a.raw != nullptr; }
};
template <class T>
struct fancy_deleter {
  using pointer = fancy_ptr<T>;
  void operator()(pointer p) const { delete p.raw; }
};

template <class Api>
struct esft_rules {
  struct node : Api::template enable_shared_from_this<node> {
    int id;
    explicit node(int i = 0) : id(i) {}
    virtual ~node() { note("destroy node ", id); }
  };
  struct leaf : node {
    explicit leaf(int i = 0) : node(i) {}
  };
  struct plain_base {
    virtual ~plain_base() = default;
  };
  struct hooked_derived : plain_base, Api::template enable_shared_from_this<hooked_derived> {};
  // A deleter whose pointer names the derived class, for a unique_ptr<plain_base>.
  struct derived_pointer_deleter {
    using pointer = hooked_derived*;
    void operator()(hooked_derived* p) const { delete p; }
  };
  // Not hooked: the base is private, or there are two different enable_shared_from_this bases.
  struct private_esft : private Api::template enable_shared_from_this<private_esft> {
    long owners() { return this->weak_from_this().use_count(); }
  };
  struct esft_a : Api::template enable_shared_from_this<esft_a> {};
  struct esft_b : Api::template enable_shared_from_this<esft_b> {};
  struct two_esft : esft_a, esft_b {};

  static void run(transcript& t) {
    using S = typename Api::template shared_ptr<node>;
    {
      node n(1);
      try {
        n.shared_from_this();
      } catch (const typename Api::bad_weak_ptr&) {
        t("unowned: bad_weak_ptr, weak expired ", n.weak_from_this().expired());
      }
    }
    own_test::allocation_log log;
    auto check = [&](const char* how, const S& p) {
      const long before = p.use_count();
      S again = p->shared_from_this();
      t(how, ": shares ", !again.owner_before(p) && !p.owner_before(again), " use_count ", before, " -> ",
        again.use_count(), " weak_from_this use_count ", p->weak_from_this().use_count());
    };
    check("make_shared", Api::template make_shared<node>(2));
    check("allocate_shared", Api::template allocate_shared<node>(std::allocator<node>(), 3));
    check("new", S(new node(4)));
    check("new + deleter", S(new node(5), logging_deleter{5}));
    check("new + deleter + allocator", S(new node(6), logging_deleter{6}, own_test::test_allocator<int>(&log)));
    check("unique_ptr", S(std::unique_ptr<node>(new node(7))));
    check("derived via new", S(new leaf(8)));
    check("make_shared<leaf>", Api::template make_shared<leaf>(9));
    {
      typename Api::template shared_ptr<const node> c(new node(10));
      auto again = c->shared_from_this();
      static_assert(std::is_same_v<decltype(again), typename Api::template shared_ptr<const node>>);
      t("const owner hooks: ", again.use_count());
    }
    {
      typename Api::template shared_ptr<void> v(new node(11));
      auto again = static_cast<node*>(v.get())->shared_from_this();
      t("void owner hooks: ", again.use_count());
    }
    {
      // The owner's type has no enable_shared_from_this base, the adopted pointer's type has.
      typename Api::template shared_ptr<plain_base> p(new hooked_derived);
      t("base owner hooks: ", static_cast<hooked_derived*>(p.get())->weak_from_this().use_count());
    }
    {
      // The same, taken from a unique_ptr<derived>: enable_shared_from_this sees the unique_ptr's type.
      typename Api::template shared_ptr<plain_base> p(std::unique_ptr<hooked_derived>(new hooked_derived));
      t("base owner from unique_ptr hooks: ", static_cast<hooked_derived*>(p.get())->weak_from_this().use_count());
    }
    {
      // A unique_ptr<plain_base> whose deleter's pointer is hooked_derived*: r.release() is one,
      // and that is what shared_ptr(r.release(), d) enables shared_from_this with.
      typename Api::template shared_ptr<plain_base> p(
          std::unique_ptr<plain_base, derived_pointer_deleter>(new hooked_derived));
      t("unique_ptr whose pointer is the derived class hooks: ",
        static_cast<hooked_derived*>(p.get())->weak_from_this().use_count());
    }
    {
      // A unique_ptr with a fancy pointer: hooked through the raw address the pointer holds.
      S p(std::unique_ptr<node, fancy_deleter<node>>(fancy_ptr<node>(new node(14))));
      // libc++ 16 looks for the base in the fancy pointer's type, not the pointer it converts to;
      // the standard enables shared_from_this with the released pointer ([util.smartptr.shared.const]).
      t("unique_ptr with a fancy pointer hooks: ", libcxx_std<Api> ? 1 : p->weak_from_this().use_count());
    }
    {
      typename Api::template shared_ptr<private_esft> p(new private_esft);
      auto q = Api::template make_shared<private_esft>();
      t("private base: not hooked ", p->owners(), " ", q->owners());
      typename Api::template shared_ptr<two_esft> r(new two_esft);
      auto m = Api::template make_shared<two_esft>();
      t("two different bases: not hooked ", static_cast<esft_a&>(*r).weak_from_this().use_count(), " ",
        static_cast<esft_b&>(*m).weak_from_this().use_count());
    }
    {
      // A second owner group while the first is alive does not take it over; once the first has
      // expired, the next owner does.
      node n(12);
      S first(&n, [](node*) { note("first group released"); });
      S second(&n, [](node*) { note("second group released"); });
      t("first keeps it: ", n.shared_from_this().owner_before(second) || second.owner_before(n.shared_from_this()));
      first.reset();
      t("after first expired: ", n.weak_from_this().expired());
      S third(&n, [](node*) { note("third group released"); });
      t("third takes it: ", !n.shared_from_this().owner_before(third) && !third.owner_before(n.shared_from_this()));
    }
    {
      auto a = Api::template make_shared<node>(13);
      node copy(*a);
      t("copy is not owned: ", copy.weak_from_this().expired());
      *a = copy;
      t("assignment keeps the owner: ", a->shared_from_this() == a);
    }
  }
};
TYPED_TEST(Conformance, EnableSharedFromThis) { expect_same_as_std<esft_rules, TypeParam>(); }

// An owner of an array never enables shared_from_this ("when T is not an array type, enables
// shared_from_this with p"): not through new[], a deleter, an allocator or a unique_ptr<U[]>.
template <class Api>
struct esft_arrays {
  struct node : Api::template enable_shared_from_this<node> {
    ~node() { note("destroy node"); }
  };
  // weak_from_this().use_count(), as the standard has it: libc++ 16 enables shared_from_this for
  // arrays too.
  static long owners(node& n) { return libcxx_std<Api> ? 0 : n.weak_from_this().use_count(); }
  static void run(transcript& t) {
    typename Api::template shared_ptr<node[]> a(new node[2]);
    t("new node[2] as node[]: ", owners(a[0]), owners(a[1]));
    try {
      if constexpr (libcxx_std<Api>) throw typename Api::bad_weak_ptr();  // (as owners())
      a[0].shared_from_this();
      t("element 0 owned");
    } catch (const typename Api::bad_weak_ptr&) {
      t("element 0: bad_weak_ptr");
    }
    typename Api::template shared_ptr<node[2]> b(new node[2]);
    t("node[2]: ", owners(b[0]));
    typename Api::template shared_ptr<node[]> c(new node[1], std::default_delete<node[]>());
    t("with deleter: ", owners(c[0]));
    own_test::allocation_log log;
    typename Api::template shared_ptr<node[]> d(new node[1], std::default_delete<node[]>(), own_test::test_allocator<int>(&log));
    t("with allocator: ", owners(d[0]));
    typename Api::template shared_ptr<node[]> e(std::unique_ptr<node[]>(new node[1]));
    t("from unique_ptr<node[]>: ", owners(e[0]));
    // A void owner is no array owner: shared_ptr(r.release(), d), with r.release() a node*, hooks
    // the first element.
    typename Api::template shared_ptr<void> f(std::unique_ptr<node[]>(new node[2]));
    t("void owner of a unique_ptr<node[]>: ", static_cast<node*>(f.get())->weak_from_this().use_count());
    a.reset(new node[1]);
    t("reset(new node[1]): ", owners(a[0]));
  }
};
TYPED_TEST(Conformance, EnableSharedFromThisNotForArrays) { expect_same_as_std<esft_arrays, TypeParam>(); }

// ---------------------------------------------------------------------------------------------
// Casts, comparisons, owner order, hashing

template <class Api>
struct casts_and_comparisons {
  static void run(transcript& t) {
    using SB = typename Api::template shared_ptr<obj>;
    SB b = Api::template make_shared<obj_derived>(1);
    auto d = Api::template static_pointer_cast<obj_derived>(b);
    t("static: ", d->id, " use_count ", b.use_count());
    auto dd = Api::template dynamic_pointer_cast<obj_derived>(b);
    t("dynamic ok: ", static_cast<bool>(dd), " use_count ", b.use_count());
    SB plain = Api::template make_shared<obj>(2);
    auto fail = Api::template dynamic_pointer_cast<obj_derived>(plain);
    t("dynamic fail: ", static_cast<bool>(fail), " use_count ", fail.use_count());
    auto fail_moved = Api::template dynamic_pointer_cast<obj_derived>(std::move(plain));
    t("dynamic fail (rvalue): source kept ", static_cast<bool>(plain), " ", plain.use_count());
    auto c = Api::template const_pointer_cast<const obj>(b);
    auto back = Api::template const_pointer_cast<obj>(c);
    t("const: ", back == b, " use_count ", b.use_count());
    auto v = Api::template static_pointer_cast<void>(b);
    auto r = Api::template reinterpret_pointer_cast<obj>(v);
    t("void and back: ", r == b, " use_count ", b.use_count());
#if __cplusplus >= 202002L
    auto moved = Api::template static_pointer_cast<obj_derived>(std::move(r));
    if constexpr (libcxx_std<Api>) r.reset();  // libc++ 16 lacks C++20's rvalue casts and copies
    t("rvalue cast: source empty ", r == nullptr, " use_count ", moved.use_count());
#endif
    // Comparisons by get(); owner order by block.
    typename Api::template shared_ptr<int> alias(b, &b->id);
    t("alias equal to owner? ", static_cast<const void*>(alias.get()) == static_cast<const void*>(b.get()), " owner-equivalent ",
      !alias.owner_before(b) && !b.owner_before(alias));
    SB e1, e2;
    t("empties: == ", e1 == e2, " < ", e1 < e2, " == nullptr ", e1 == nullptr, " nullptr == ", nullptr == e1,
      " != nullptr ", e1 != nullptr, " < nullptr ", e1 < nullptr, " > nullptr ", e1 > nullptr, " <= nullptr ",
      e1 <= nullptr);
    t("non-empty vs nullptr: ", b != nullptr, " ", b > nullptr, " ", nullptr < b, " ", b >= nullptr, " ", nullptr <= b);
    SB x = Api::template make_shared<obj>(3);
    const bool by_get = std::less<obj*>()(b.get(), x.get());
    t("order by get: ", (b < x) == by_get, (x > b) == by_get, (b <= x) == by_get, (x >= b) == by_get, " ", b != x);
    t("derived vs base compare: ", d == b, " ", !(d < b), " ", !(b < d));
    typename Api::template weak_ptr<obj> wb = b;
    typename Api::template owner_less<SB> ol;
    typename Api::template owner_less<typename Api::template weak_ptr<obj>> olw;
    typename Api::template owner_less<> olv;
    t("owner_less: ", !ol(b, wb) && !ol(wb, b), " ", !olw(wb, b), " ", !olv(alias, wb) && !olv(wb, alias), " ",
      olv(b, x) != olv(x, b));
    std::set<SB, typename Api::template owner_less<SB>> owners{b, x, d, SB(b, nullptr)};
    t("owner set size ", owners.size());
    std::map<typename Api::template weak_ptr<obj>, int, typename Api::template owner_less<>> weak_map;
    weak_map[wb] = 1;
    weak_map[typename Api::template weak_ptr<obj>(x)] = 2;
    t("weak map lookup by shared: ", weak_map.find(b) != weak_map.end() ? weak_map.find(b)->second : -1);
    t("hash is hash of get: ", std::hash<SB>()(b) == std::hash<obj*>()(b.get()), " ",
      std::hash<typename Api::template shared_ptr<int[]>>()(nullptr) == std::hash<int*>()(nullptr));
    std::ostringstream s1, s2;
    s1 << b;
    s2 << static_cast<void*>(b.get());
    t("stream is get: ", s1.str() == s2.str());
    SB s = b;
    using std::swap;
    swap(s, x);
    t("swap: ", s->id, " ", x->id);
#if __cplusplus >= 202002L
    t("<=>: ", (e1 <=> e2) == 0, " ", (b <=> nullptr) > 0, " ", (nullptr <=> b) < 0, " ",
      (b <=> x) == std::compare_three_way()(b.get(), x.get()));
#endif
  }
};
TYPED_TEST(Conformance, CastsAndComparisons) { expect_same_as_std<casts_and_comparisons, TypeParam>(); }

// ---------------------------------------------------------------------------------------------
// Atomic access: the free functions on a plain shared_ptr, called unqualified as code written
// against std calls them (found by argument-dependent lookup), and, in C++20,
// std::atomic<weak_ptr<T>> (from <own/atomic_shared_ptr.hpp>).

template <class Api>
struct atomic_free_functions {
  using S = typename Api::template shared_ptr<obj>;
  inline static S* target = nullptr;
  // Its destructor reads and writes `*target` through the functions, from inside one of them.
  struct reenters : obj {
    explicit reenters(int i) : obj(i) {}
    ~reenters() override {
      S seen = atomic_load(target);
      note("~reenters ", id, " sees ", seen ? seen->id : -1);
      atomic_store(target, seen);
    }
  };
  static void run(transcript& t) {
    S p = Api::template make_shared<obj>(1);
    target = &p;
    t("load: ", atomic_load(&p)->id, " ", atomic_load_explicit(&p, std::memory_order_acquire)->id, " use_count ",
      p.use_count());
    atomic_store(&p, S(Api::template make_shared<reenters>(2)));
    atomic_store_explicit(&p, Api::template make_shared<obj>(3), std::memory_order_release);
    S old = atomic_exchange(&p, S(Api::template make_shared<reenters>(4)));
    t("exchange: old ", old->id, " now ", p->id);
    old = atomic_exchange_explicit(&p, old, std::memory_order_acq_rel);
    old.reset();
    S expected = p;
    bool ok = atomic_compare_exchange_strong(&p, &expected, S(Api::template make_shared<reenters>(5)));
    t("compare_exchange_strong: ", ok, " p ", p->id, " expected ", expected->id);
    ok = atomic_compare_exchange_weak(&p, &expected, S());  // fails: releases obj 3 from `expected`
    t("compare_exchange_weak: ", ok, " expected ", expected->id);
    // The same pointer with no owner, then the same owner with another pointer: not equivalent.
    expected = S(S(), p.get());
    ok = atomic_compare_exchange_strong_explicit(&p, &expected, S(), std::memory_order_acq_rel, std::memory_order_acquire);
    t("same pointer, no owner: ", ok, " expected owner ", !expected.owner_before(p) && !p.owner_before(expected));
    expected = S(p, static_cast<obj*>(nullptr));
    if constexpr (libcxx_std<Api>) {
      // libc++ 16 compares owners only and would store; the standard requires the same pointer too
      // ([util.smartptr.shared.atomic]), and a failure loads `p` into `expected`.
      ok = false;
      expected = p;
    } else {
      ok = atomic_compare_exchange_weak_explicit(&p, &expected, S(), std::memory_order_release, std::memory_order_relaxed);
    }
    t("same owner, null pointer: ", ok, " expected ", expected.get() == p.get());
    // A failure releases the previous `expected`, a reenters.
    expected = Api::template make_shared<reenters>(6);
    ok = atomic_compare_exchange_strong(&p, &expected, S());
    t("failure released expected: ", ok, " ", expected->id);
    // `expected` is `p`: equivalent; the previous value (reenters 5, owned by `p` alone) released.
    expected.reset();
    ok = atomic_compare_exchange_strong(&p, &p, Api::template make_shared<obj>(7));
    t("p as its own expected: ", ok, " p ", p->id);
    target = nullptr;
  }
};
TYPED_TEST(Conformance, AtomicFreeFunctions) { expect_same_as_std<atomic_free_functions, TypeParam>(); }

// Their signatures. (own's are noexcept: std specifies "Throws: Nothing" and leaves noexcept to the
// implementation, which may add it; libstdc++ does not.)
template <class Api>
constexpr bool atomic_free_functions_surface() {
  using S = typename Api::template shared_ptr<int>;
  S* p = nullptr;
  const auto order = std::memory_order_seq_cst;
  static_assert(std::is_same_v<decltype(atomic_is_lock_free(static_cast<const S*>(p))), bool>);
  static_assert(std::is_same_v<decltype(atomic_load(static_cast<const S*>(p))), S>);
  static_assert(std::is_same_v<decltype(atomic_load_explicit(static_cast<const S*>(p), order)), S>);
  static_assert(std::is_same_v<decltype(atomic_store(p, S())), void>);
  static_assert(std::is_same_v<decltype(atomic_store_explicit(p, S(), order)), void>);
  static_assert(std::is_same_v<decltype(atomic_exchange(p, S())), S>);
  static_assert(std::is_same_v<decltype(atomic_exchange_explicit(p, S(), order)), S>);
  static_assert(std::is_same_v<decltype(atomic_compare_exchange_weak(p, p, S())), bool>);
  static_assert(std::is_same_v<decltype(atomic_compare_exchange_strong(p, p, S())), bool>);
  static_assert(std::is_same_v<decltype(atomic_compare_exchange_weak_explicit(p, p, S(), order, order)), bool>);
  static_assert(std::is_same_v<decltype(atomic_compare_exchange_strong_explicit(p, p, S(), order, order)), bool>);
  return true;
}
static_assert(atomic_free_functions_surface<std_api>() && atomic_free_functions_surface<own_api>());
static_assert(noexcept(own::atomic_load(std::declval<own::shared_ptr<int>*>())));

// (libc++ 16 has no std::atomic<std::shared_ptr> or std::atomic<std::weak_ptr> to compare with.)
#if __cplusplus >= 202002L && !OWN_TEST_STD_IS_LIBCXX
template <class Api>
struct atomic_weak {
  static void run(transcript& t) {
    using S = typename Api::template shared_ptr<obj>;
    using W = typename Api::template weak_ptr<obj>;
    S one = Api::template make_shared<obj>(1);
    std::atomic<W> a(one);
    t("load: ", a.load().lock()->id, " use_count ", one.use_count(), " by conversion ", W(a).lock()->id);
    std::atomic<W> empty;
    t("default: expired ", empty.load().expired());
    S two = Api::template make_shared<obj>(2);
    a = two;
    a.store(W(one), std::memory_order_release);
    W old = a.exchange(two);
    t("exchange: old ", old.lock()->id, " now ", a.load(std::memory_order_acquire).lock()->id);
    one.reset();  // destroys obj 1: `old` has expired
    W expected = old;
    bool ok = a.compare_exchange_strong(expected, old);
    t("compare_exchange_strong on another value: ", ok, " expected ", expected.lock() ? expected.lock()->id : -1);
    ok = a.compare_exchange_strong(expected, old, std::memory_order_acq_rel, std::memory_order_acquire);
    t("compare_exchange_strong: ", ok, " now expired ", a.load().expired());
    // An expired value is equivalent to itself.
    expected = old;
    for (int tries = 0; !a.compare_exchange_weak(expected, W(two)) && tries != 1000; ++tries) {
      // spurious failures, but not forever: a broken comparison shows in the transcript
    }
    t("compare_exchange_weak onto expired: now ", a.load().lock()->id);
    expected = W(S(two, static_cast<obj*>(nullptr)));
    ok = a.compare_exchange_strong(expected, W());
    t("same owner, null pointer: ", ok, " expected ", expected.lock() ? expected.lock()->id : -1);
    expected = W(S(S(), two.get()));
    ok = a.compare_exchange_weak(expected, W(), std::memory_order_acq_rel, std::memory_order_acquire);
    t("same pointer, no owner: ", ok, " expected ", expected.lock() ? expected.lock()->id : -1);
    a.store(W(two));
    a.wait(W());  // not equivalent: returns at once
    a.notify_one();
    a.notify_all();
    t("wait returned; use_count ", two.use_count());
  }
};
TYPED_TEST(Conformance, AtomicWeakPtr) { expect_same_as_std<atomic_weak, TypeParam>(); }

// std::atomic<weak_ptr<int>>: the same constructors, assignments and members (own's is lock-free,
// where libstdc++'s is not).
template <class Api>
struct atomic_weak_surface {
  using S = typename Api::template shared_ptr<int>;
  using W = typename Api::template weak_ptr<int>;
  using A = std::atomic<W>;
  static_assert(std::is_same_v<typename A::value_type, W>);
  static_assert(std::is_same_v<decltype(A::is_always_lock_free), const bool>);
  static_assert(std::is_same_v<decltype(std::declval<const A&>().is_lock_free()), bool>);
  static_assert(std::is_same_v<decltype(std::declval<const A&>().load()), W>);
  static_assert(std::is_same_v<decltype(std::declval<A&>().exchange(W())), W>);
  static_assert(std::is_same_v<decltype(std::declval<A&>().compare_exchange_weak(std::declval<W&>(), W())), bool>);
  static_assert(std::is_same_v<decltype(std::declval<const A&>().wait(W())), void>);
  static_assert(noexcept(std::declval<const A&>().load()) && noexcept(std::declval<A&>().store(W())) &&
                noexcept(std::declval<A&>().exchange(W())) && noexcept(static_cast<W>(std::declval<const A&>())) &&
                noexcept(std::declval<A&>().compare_exchange_strong(std::declval<W&>(), W())) &&
                noexcept(std::declval<A&>().compare_exchange_weak(std::declval<W&>(), W(), std::memory_order_seq_cst,
                                                                  std::memory_order_seq_cst)) &&
                noexcept(std::declval<const A&>().wait(W())) && noexcept(std::declval<A&>().notify_one()) &&
                noexcept(std::declval<A&>().notify_all()));
  static constexpr bool traits[] = {std::is_nothrow_default_constructible_v<A>,
                                    std::is_nothrow_constructible_v<A, W>,
                                    std::is_constructible_v<A, S>,
                                    std::is_convertible_v<W, A>,
                                    std::is_constructible_v<A, std::nullptr_t>,
                                    std::is_copy_constructible_v<A>,
                                    std::is_copy_assignable_v<A>,
                                    std::is_nothrow_assignable_v<A&, W>,
                                    std::is_assignable_v<A&, S>,
                                    std::is_assignable_v<A&, std::nullptr_t>};
};
template <std::size_t N>
constexpr bool same_traits(const bool (&a)[N], const bool (&b)[N]) {
  for (std::size_t i = 0; i < N; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}
static_assert(same_traits(atomic_weak_surface<std_api>::traits, atomic_weak_surface<own_api>::traits));
#endif

// ---------------------------------------------------------------------------------------------
// Incomplete types: a pointer to one can be declared, copied, compared, hashed and destroyed
// before the type is complete.

struct late;
template <class Api>
struct late_holder {
  typename Api::template shared_ptr<late> p;
  typename Api::template weak_ptr<late> w;
  typename Api::template shared_ptr<void> v;
};
template <class Api>
bool copy_compare_and_drop(const typename Api::template shared_ptr<late>& p) {
  typename Api::template shared_ptr<late> copy = p;
  typename Api::template weak_ptr<late> w = copy;
  typename Api::template shared_ptr<const late> c = copy;
  typename Api::template shared_ptr<void> v = std::move(copy);
  (void)std::hash<typename Api::template shared_ptr<late>>()(p);
  return c == p && !w.expired() && v.get() == p.get() && !(p < c) && p.use_count() == 4;
}
struct late {
  int v = 7;
};
template <class Api>
struct incomplete_at_declaration {
  static void run(transcript& t) {
    late_holder<Api> h;
    h.p = Api::template make_shared<late>();
    h.w = h.p;
    t("copy_compare_and_drop: ", copy_compare_and_drop<Api>(h.p), " use_count ", h.p.use_count());
  }
};
TYPED_TEST(Conformance, IncompleteAtDeclaration) { expect_same_as_std<incomplete_at_declaration, TypeParam>(); }

// ---------------------------------------------------------------------------------------------
// Argument-dependent lookup, both ways. A user's functions named like own's internal ones, and of
// the same shapes: an unqualified call with a shared_ptr or weak_ptr argument must find no more for
// own than for std (own's would make it ambiguous); and own's internals, instantiated throughout
// this file with types of this namespace, must not find these (they would be ambiguous, or chosen).

template <class P>
const char* to_raw_pointer(P) {
  return "to_raw_pointer";
}
template <class T>
const char* flat_begin(const T&) {
  return "flat_begin";
}
template <class A>
const char* adapt_allocator(const A&) {
  return "adapt_allocator";
}
template <class P, class D, class A>
const char* make_pointer_block(P, D&, const A&) {
  return "make_pointer_block";
}
template <class Block, class A, class... Args>
const char* new_block(const A&, Args&&...) {
  return "new_block";
}
template <class Block, class A>
const char* delete_block(Block*, A&) {
  return "delete_block";
}
template <class A>
void deallocate_raw(A&, typename std::allocator_traits<A>::value_type*, std::size_t) {}
template <class Y>
Y* shared_from_this_base(const volatile Y*) {
  return nullptr;
}

template <class Api>
struct unqualified_calls {
  static void run(transcript& t) {
    auto p = Api::template make_shared<int>(1);
    typename Api::template weak_ptr<int> w = p;
    int d = 0;
    t("shared_ptr: ", to_raw_pointer(p), " ", flat_begin(p), " ", adapt_allocator(p), " ", make_pointer_block(p, d, p), " ",
      new_block<int>(p), " ", delete_block(&p, w));
    t("weak_ptr: ", to_raw_pointer(w), " ", flat_begin(w), " ", adapt_allocator(w), " ", make_pointer_block(w, d, w), " ",
      new_block<int>(w), " ", delete_block(&w, p));
  }
};
TYPED_TEST(Conformance, UnqualifiedCallsFindNoInternals) { expect_same_as_std<unqualified_calls, TypeParam>(); }

}  // namespace
