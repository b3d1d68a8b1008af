// SPDX-License-Identifier: BSL-1.0
// The standard's convertibility rules between shared_ptr<Y> and shared_ptr<T> ([util.smartptr.shared]).
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

namespace own::detail {

// "Y* is compatible with T*": Y* converts to T*, or Y is U[N] and T is cv U[]. For arrays that is a
// conversion of pointers to arrays, never of their elements: shared_ptr<Derived[]> does not convert
// to shared_ptr<Base[]>, as indexing the result would stride by the wrong size.
template <class Y, class T>
struct is_compatible : std::is_convertible<Y*, T*> {};
template <class U, std::size_t N, class V>
struct is_compatible<U[N], V[]>
    : std::bool_constant<std::is_convertible_v<U*, V*> && std::is_same_v<std::remove_cv_t<U>, std::remove_cv_t<V>>> {};
template <class Y, class T>
inline constexpr bool is_compatible_v = is_compatible<Y, T>::value;

// Whether shared_ptr<T> may adopt a raw Y*: for T = U[N], Y(*)[N] converts to T*; for T = U[],
// Y(*)[] converts to T*; otherwise Y* converts to T*. Y(*)[N] and Y(*)[] are formed only where
// their ill-formedness (Y void or a function type) is a substitution failure, which makes the
// answer false: is_constructible<shared_ptr<int[]>, void*> is a query, never a hard error.
template <class Y, class T, class = void>
struct accepts_raw : std::false_type {};
template <class Y, class T>
struct accepts_raw<Y, T, std::enable_if_t<!std::is_array_v<T>>> : std::is_convertible<Y*, T*> {};
template <class Y, class U, std::size_t N>
struct accepts_raw<Y, U[N], std::void_t<Y (*)[N]>> : std::is_convertible<Y (*)[N], U (*)[N]> {};
template <class Y, class U>
struct accepts_raw<Y, U[], std::void_t<Y (*)[]>> : std::is_convertible<Y (*)[], U (*)[]> {};
template <class Y, class T>
inline constexpr bool accepts_raw_v = accepts_raw<Y, T>::value;

// Whether `delete p` (`delete[] p`) is well-formed for a T* (std's Constraints). True for an
// incomplete class, where it is well-formed (std's separate Mandates, that Y be complete, is the
// deleter's static_assert); false for void. The expression is never formed for either: compilers
// warn on it even in a SFINAE context, which -Werror turns into an error in a mere trait query.
// The two delete expressions take their operands from two different functions: g++ 12 takes
// `delete e` and `delete[] e` in a decltype for the same type when e is the same, so with one operand
// the first trait instantiated answered for both (and, with std::declval<T*>(), for a user's traits).
template <class T, class = void>
struct is_complete : std::false_type {};
template <class T>
struct is_complete<T, std::void_t<decltype(sizeof(T))>> : std::true_type {};
template <class T>
T* object_to_delete() noexcept;  // declared only: unevaluated operands
template <class T>
T* array_to_delete() noexcept;
template <class T, class = void>
struct has_delete : std::false_type {};
template <class T>
struct has_delete<T, std::void_t<decltype(delete object_to_delete<T>())>> : std::true_type {};
template <class T, class = void>
struct has_array_delete : std::false_type {};
template <class T>
struct has_array_delete<T, std::void_t<decltype(delete[] array_to_delete<T>())>> : std::true_type {};
template <class T>
struct is_deletable
    : std::conjunction<std::is_object<T>, std::disjunction<std::negation<is_complete<T>>, has_delete<T>>> {};
template <class T>
struct is_array_deletable
    : std::conjunction<std::is_object<T>, std::disjunction<std::negation<is_complete<T>>, has_array_delete<T>>> {};

template <class D, class P, class = void>
struct is_deleter_for : std::false_type {};
template <class D, class P>
struct is_deleter_for<D, P, std::void_t<decltype(std::declval<D&>()(std::declval<P&>()))>>
    : std::is_move_constructible<D> {};
// The type of a defaulted trailing parameter that constrains a constructor on is_deleter_for (see
// shared_ptr's nullptr_t forms). A pointer to a type that is never defined: no argument a caller
// passes converts to it, except a null pointer constant where another overload matches exactly.
struct deleter_constraint;
template <class D, class P>
using if_deleter_for_t = std::enable_if_t<is_deleter_for<D, P>::value, deleter_constraint*>;

// Whether T is a virtual base of Y: then converting a Y* to T* reads Y's object, which a
// weak_ptr may no longer have.
template <class T, class Y, class = void>
struct static_downcast_works : std::false_type {};
template <class T, class Y>
struct static_downcast_works<T, Y, std::void_t<decltype(static_cast<Y*>(std::declval<T*>()))>> : std::true_type {};
template <class Y, class T>
inline constexpr bool upcast_needs_object_v =
    std::is_class_v<Y> && std::is_class_v<std::remove_cv_t<T>> && !std::is_same_v<std::remove_cv_t<Y>, std::remove_cv_t<T>> &&
    !static_downcast_works<std::remove_cv_t<T>, std::remove_cv_t<Y>>::value;

}  // namespace own::detail
