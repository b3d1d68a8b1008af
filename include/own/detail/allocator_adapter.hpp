// SPDX-License-Identifier: BSL-1.0
// How own's allocating functions read their allocator argument `a`:
//  - a pointer to a type that declares `allocator_type` (own's pools) is wrapped in that allocator,
//    which calls the pool directly, with no virtual call;
//  - a pointer to a std::pmr::memory_resource becomes a std::pmr::polymorphic_allocator;
//  - anything else is taken as a standard Allocator.
#pragma once

#include <cstddef>
#include <memory>
#include <memory_resource>
#include <type_traits>

namespace own::detail {

template <class T, class = void>
struct has_allocator_type : std::false_type {};
template <class T>
struct has_allocator_type<T, std::void_t<typename T::allocator_type>> : std::true_type {};

// Own's pools and std::pmr::memory_resource: what own takes by pointer where an allocator goes.
template <class T>
inline constexpr bool is_memory_source_v =
    has_allocator_type<T>::value || std::is_base_of_v<std::pmr::memory_resource, T>;

template <class A, class = void>
struct allocator_adapter {
  using type = A;
  static const A& adapt(const A& a) noexcept { return a; }
};

template <class Pool>
struct allocator_adapter<Pool*, std::enable_if_t<has_allocator_type<Pool>::value>> {
  using type = typename Pool::allocator_type;
  static type adapt(Pool* pool) noexcept { return type(pool); }
};

template <class Resource>
struct allocator_adapter<Resource*, std::enable_if_t<std::is_base_of_v<std::pmr::memory_resource, Resource> &&
                                                     !has_allocator_type<Resource>::value>> {
  using type = std::pmr::polymorphic_allocator<std::byte>;
  static type adapt(Resource* resource) noexcept { return type(resource); }
};

// A pool or memory resource passed by value (allocate_shared<T>(pool) for (&pool)) is no Allocator;
// said in one error here rather than many from inside std::allocator_traits. `type` stays usable so
// that nothing else is reported.
template <class Source>
struct allocator_adapter<Source, std::enable_if_t<is_memory_source_v<Source>>> {
  static_assert(sizeof(Source) == 0,
                "own: pass a pointer to the pool or memory resource, not the object: "
                "allocate_shared<T>(&pool, args...), shared_ptr<T>(p, d, &pool)");
  using type = std::allocator<std::byte>;
  static type adapt(const Source&) noexcept { return type(); }
};

template <class A>
using adapted_allocator_t = typename allocator_adapter<std::decay_t<A>>::type;

template <class A>
decltype(auto) adapt_allocator(const A& a) noexcept {
  return allocator_adapter<std::decay_t<A>>::adapt(a);
}

template <class A, class T>
using rebind_alloc_t = typename std::allocator_traits<A>::template rebind_alloc<T>;

}  // namespace own::detail
