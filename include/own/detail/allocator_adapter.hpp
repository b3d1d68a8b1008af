// SPDX-License-Identifier: BSL-1.0
// How own's allocating functions read their allocator argument `a`:
//  - a pointer to a type that declares `allocator_type` (own's pools) is wrapped in that allocator,
//    which calls the pool directly, with no virtual call;
//  - a pointer to a memory resource (std::pmr::memory_resource or a class derived from it) becomes a
//    resource_allocator, which calls it as std::pmr::polymorphic_allocator would;
//  - anything else is taken as a standard Allocator.
// A memory resource is recognised by its interface (allocate(bytes, alignment), deallocate(p,
// bytes, alignment), is_equal), not by std::pmr::memory_resource as a base: shared_ptr.hpp then
// needs no <memory_resource>, which costs every translation unit that includes it almost as much
// as <memory> itself.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <utility>

#include "exceptions.hpp"

namespace own::detail {

template <class T, class = void>
struct has_allocator_type : std::false_type {};
template <class T>
struct has_allocator_type<T, std::void_t<typename T::allocator_type>> : std::true_type {};

template <class T, class = void>
struct has_value_type : std::false_type {};
template <class T>
struct has_value_type<T, std::void_t<typename T::value_type>> : std::true_type {};

template <class T, class = void>
struct is_memory_resource : std::false_type {};
template <class T>
struct is_memory_resource<
    T, std::enable_if_t<std::is_same_v<decltype(std::declval<T&>().allocate(std::size_t(), std::size_t())), void*> &&
                        std::is_same_v<decltype(std::declval<T&>().deallocate(std::declval<void*>(), std::size_t(),
                                                                              std::size_t())),
                                       void> &&
                        std::is_same_v<decltype(std::declval<const T&>().is_equal(std::declval<const T&>())), bool>>>
    : std::true_type {};

// Own's pools: an allocator_type that reaches them, and no value_type (an Allocator may name an
// allocator_type too, and stays an Allocator).
template <class T>
inline constexpr bool is_pool_v = has_allocator_type<T>::value && !has_value_type<T>::value;
// Own's pools and memory resources: what own takes by pointer where an allocator goes.
template <class T>
inline constexpr bool is_memory_source_v = !has_value_type<T>::value && (has_allocator_type<T>::value || is_memory_resource<T>::value);

// A standard Allocator over a memory resource: what std::pmr::polymorphic_allocator does, for the
// resource's own type (so <memory_resource> is not needed to name it).
template <class T, class Resource>
class resource_allocator {
 public:
  using value_type = T;

  explicit resource_allocator(Resource* resource) noexcept : resource_(resource) {}
  template <class U>
  resource_allocator(const resource_allocator<U, Resource>& other) noexcept : resource_(other.resource()) {}

  T* allocate(std::size_t n) {
    if (n > std::size_t(-1) / sizeof(T)) throw_exception<std::bad_array_new_length>();
    return static_cast<T*>(resource_->allocate(n * sizeof(T), alignof(T)));
  }
  void deallocate(T* p, std::size_t n) noexcept { resource_->deallocate(p, n * sizeof(T), alignof(T)); }

  // As polymorphic_allocator::construct: a U that uses an allocator this converts to (a pmr string
  // or container) is given it, in the leading (allocator_arg) form if U has one, else trailing.
  // (Unlike C++20's, std::pair's members are not: pass a polymorphic_allocator for that.)
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    if constexpr (!std::uses_allocator_v<U, resource_allocator>) {
      ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    } else if constexpr (std::is_constructible_v<U, std::allocator_arg_t, const resource_allocator&, Args...>) {
      ::new (static_cast<void*>(p)) U(std::allocator_arg, *this, std::forward<Args>(args)...);
    } else {
      ::new (static_cast<void*>(p)) U(std::forward<Args>(args)..., *this);
    }
  }

  // Converts to an allocator made from the resource (std::pmr::polymorphic_allocator), so that the
  // types that use one take this for theirs (std::uses_allocator).
  template <class Allocator, std::enable_if_t<std::is_constructible_v<Allocator, Resource*> &&
                                                  has_value_type<Allocator>::value,
                                              int> = 0>
  operator Allocator() const noexcept {
    return Allocator(resource_);
  }

  Resource* resource() const noexcept { return resource_; }

  template <class U>
  friend bool operator==(const resource_allocator& a, const resource_allocator<U, Resource>& b) noexcept {
    return a.resource() == b.resource() || a.resource()->is_equal(*b.resource());
  }
  template <class U>
  friend bool operator!=(const resource_allocator& a, const resource_allocator<U, Resource>& b) noexcept {
    return !(a == b);
  }

 private:
  Resource* resource_;
};

template <class A, class = void>
struct allocator_adapter {
  using type = A;
  static const A& adapt(const A& a) noexcept { return a; }
};

template <class Pool>
struct allocator_adapter<Pool*, std::enable_if_t<is_pool_v<Pool>>> {
  using type = typename Pool::allocator_type;
  static type adapt(Pool* pool) noexcept { return type(pool); }
};

template <class Resource>
struct allocator_adapter<Resource*, std::enable_if_t<is_memory_source_v<Resource> && !is_pool_v<Resource>>> {
  using type = resource_allocator<std::byte, Resource>;
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
