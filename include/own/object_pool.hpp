// SPDX-License-Identifier: BSL-1.0
/// @file
/// own::object_pool<T> and own::concurrent_object_pool<T>: pools of ready-made objects. The pool
/// creates its objects up front (and more, in growing chunks, when it runs out, unless it has a fixed
/// capacity), hands them out as owning pointers, and takes each back (through the resetter, if
/// one is given) when its last owner drops it. Acquiring and returning are O(1) whatever the size and never allocate:
///  - acquire() gives a managed_ptr<T>, which returns the object through the reclaim_managed_object
///    protocol without touching any count;
///  - acquire_shared() gives a shared_ptr<T> whose control block lives beside the object and is
///    reused: a lingering weak_ptr keeps that slot out of the pool until it goes.
/// object_pool is for one thread at a time; concurrent_object_pool may be used, and its objects
/// dropped, from any thread (a lock-free stack; growing takes a mutex).
///
/// Usage:
///
///     struct buffer {
///       std::vector<char> bytes = std::vector<char>(1500);
///       void reset() { bytes.assign(bytes.size(), 0); }
///     };
///
///     // Never allocates after this; own::call_reset: each buffer that comes back is reset().
///     own::object_pool<buffer> pool(64, own::fixed_capacity, {}, own::call_reset);
///     {
///       own::managed_ptr<buffer> a = pool.acquire();
///       own::shared_ptr<buffer> b = pool.acquire_shared();
///       a->bytes[0] = 'x';
///       assert(pool.available() == 62);
///     }
///     assert(pool.available() == 64);                           // both back, reset
///
///     struct endpoint {
///       endpoint(std::string h, int p) : host(std::move(h)), port(p) {}  // no default constructor
///       std::string host;
///       int port;
///     };
///     own::object_pool<endpoint> made(4, [] { return endpoint("db", 5432); });
///     own::object_pool<endpoint> constructed(4, own::constructor_args("db", 5432));
///     assert(made.acquire()->port == 5432 && constructed.acquire()->host == "db");
///
/// Objects are made by the creator: value-initialised T by default (a T with no default constructor
/// is refused at compile time), or a callable that returns a T (or something T is constructible
/// from), or own::constructor_args(args...), whose arguments are kept and given to every object's
/// constructor. On their way back, objects are handed to the resetter, which must not throw; by
/// default there is none and an object comes back as its last user left it (own::call_reset calls
/// its reset()). The pool keeps its creator and resetter in place if each fits three pointers,
/// else in one block from its upstream resource. A T derived from enable_shared_from_this gets its
/// shared_from_this() from acquire_shared(), as from make_shared; the hook is let go when the
/// object comes back, so it keeps nothing out of the pool.
///
/// Checked mode (OWN_CHECKED): returning an object twice or to a pool that does not own it, and
/// destroying a pool with objects still out, print what happened and abort.
#pragma once

#include "detail/cxx17_required.hpp"  // first, so that C++14 gets one error, not hundreds

#include <cstddef>
#include <memory_resource>
#include <mutex>
#include <new>
#include <tuple>
#include <type_traits>
#include <utility>

#include "detail/exceptions.hpp"
#include "detail/object_pool_core.hpp"
#include "detail/slot_stacks.hpp"
#include "managed_ptr.hpp"
#include "shared_ptr.hpp"

namespace own {

namespace detail {
struct fixed_capacity_key {};
}  // namespace detail

/// Tag: the pool makes all its objects at construction and never allocates again. Not made from
/// `{}` (as std::nullopt_t is not), so that `{}` given for a pool's creator means the creator.
struct fixed_capacity_t {
  /// Only for own::fixed_capacity.
  constexpr explicit fixed_capacity_t(detail::fixed_capacity_key) noexcept {}
};
/// Selects the fixed-capacity constructor of object_pool and concurrent_object_pool.
inline constexpr fixed_capacity_t fixed_capacity{detail::fixed_capacity_key{}};

/// A creator for object_pool and concurrent_object_pool: the arguments are kept (decayed, so a
/// string literal is kept as a const char*) and passed, as const lvalues, to T's constructor for
/// every object the pool makes; constructor_args() value-initialises. T is made with parentheses,
/// as by make_shared: an aggregate takes a creator that returns one instead.
template <class... Args>
struct constructor_args {
  /// Keeps copies of `args`; throws what copying them throws.
  constructor_args(Args... args) : values(std::move(args)...) {}
  std::tuple<Args...> values;  ///< the arguments given to every object's constructor
};
/// constructor_args("db", 5432) keeps a const char* and an int.
template <class... Args>
constructor_args(Args...) -> constructor_args<Args...>;

/// A resetter for object_pool and concurrent_object_pool: calls `object.reset()` on every object
/// that comes back (which must not throw). Opt-in: by default a pool leaves returned objects alone.
struct call_reset_t {
  /// Calls object.reset().
  template <class U>
  void operator()(U& object) const {
    object.reset();
  }
};
/// Selects call_reset_t as a pool's resetter: `object_pool<T> pool(n, {}, own::call_reset)`.
inline constexpr call_reset_t call_reset{};

namespace detail {

template <class T, class Creator, class = void>
struct creates : std::false_type {};
// Callable with no arguments, returning T itself (made in place even if T cannot move) or what T
// is constructible from.
template <class T, class Creator>
struct creates<T, Creator, std::void_t<decltype(std::declval<Creator&>()())>>
    : std::bool_constant<std::is_same_v<std::remove_cv_t<decltype(std::declval<Creator&>()())>, T> ||
                         std::is_constructible_v<T, decltype(std::declval<Creator&>()())>> {};
template <class T, class... Args>
struct creates<T, constructor_args<Args...>> : std::is_constructible<T, const Args&...> {};

// What the pool keeps of a creator: a callable that makes a T at the address it is given. The
// construction is left out when the creator does not fit T, so that the static_assert of
// object_creator is the only error.
template <class T, class Creator>
struct creator_for {
  Creator creator;
  void operator()(void* where) {
    if constexpr (creates<T, Creator>::value) ::new (where) T(creator());
  }
};
template <class T, class... Args>
struct creator_for<T, constructor_args<Args...>> {
  constructor_args<Args...> creator;
  void operator()(void* where) const {
    if constexpr (creates<T, constructor_args<Args...>>::value) {
      std::apply([where](const Args&... args) { ::new (where) T(args...); }, creator.values);
    }
  }
};

template <class T, class Creator>
creator_for<T, std::decay_t<Creator>> object_creator(Creator&& creator) {
  using kept = std::decay_t<Creator>;
  if constexpr (std::is_same_v<kept, constructor_args<>>) {
    static_assert(std::is_default_constructible_v<T>,
                  "own: object_pool<T>: T is not default-constructible; give a creator: "
                  "object_pool<T>(n, [] { return T(...); }) or object_pool<T>(n, own::constructor_args(...))");
  } else if constexpr (std::is_convertible_v<kept, std::pmr::memory_resource*>) {
    static_assert(!std::is_convertible_v<kept, std::pmr::memory_resource*>,
                  "own: object_pool<T>: the upstream resource comes after the creator and the resetter: "
                  "object_pool<T>(n, {}, {}, &upstream)");
  } else {
    static_assert(creates<T, kept>::value,
                  "own: object_pool<T>: the creator must return a T (or what T is constructible from) when "
                  "called with no arguments, or be own::constructor_args(...) with arguments T's constructor takes");
  }
  return {std::forward<Creator>(creator)};
}

// Left as it is when it does not fit T, so that the static_assert is the only error.
template <class T, class Resetter>
auto object_resetter(Resetter&& resetter) {
  constexpr bool fits = std::is_same_v<std::decay_t<Resetter>, leave_as_is> || std::is_invocable_v<std::decay_t<Resetter>&, T&>;
  static_assert(fits, "own: object_pool<T>: the resetter must be callable with a T& (own::call_reset calls its reset())");
  if constexpr (fits) {
    return std::decay_t<Resetter>(std::forward<Resetter>(resetter));
  } else {
    return leave_as_is{};
  }
}

template <class T, template <class> class FreeStack, class GrowthLock>
class basic_object_pool {
  using core = object_pool_core<T, FreeStack, GrowthLock>;

 public:
  // `initial` objects made now; the pool grows (doubling) when it runs out. The creator (`{}`:
  // value-initialised T, which T must allow at compile time) is a callable returning a T, or
  // constructor_args; the resetter (`{}`: none) is called with each T& that comes back, must not
  // throw, and may be call_reset. Throws what the upstream resource, the creator or copying the
  // creator and resetter throws (nothing is left behind), and std::bad_alloc if `initial` objects
  // do not fit a std::size_t bytes.
  template <class Creator = constructor_args<>, class Resetter = leave_as_is,
            class = std::enable_if_t<!std::is_same_v<std::decay_t<Creator>, fixed_capacity_t>>>
  explicit basic_object_pool(std::size_t initial = 0, Creator&& creator = {}, Resetter&& resetter = {},
                             std::pmr::memory_resource* upstream = std::pmr::get_default_resource())
      : core_(initial, false, object_creator<T>(std::forward<Creator>(creator)),
              object_resetter<T>(std::forward<Resetter>(resetter)), upstream) {}
  // Exactly `capacity` objects, made now; acquire() throws std::bad_alloc when all are out. Takes
  // and throws as the constructor above (std::bad_alloc if `capacity` objects do not fit a
  // std::size_t bytes).
  template <class Creator = constructor_args<>, class Resetter = leave_as_is>
  basic_object_pool(std::size_t capacity, fixed_capacity_t, Creator&& creator = {}, Resetter&& resetter = {},
                    std::pmr::memory_resource* upstream = std::pmr::get_default_resource())
      : core_(capacity, true, object_creator<T>(std::forward<Creator>(creator)),
              object_resetter<T>(std::forward<Resetter>(resetter)), upstream) {}

  // Precondition: every object has come back (checked in OWN_CHECKED mode).
  ~basic_object_pool() = default;

  // An object, returned to the pool when the managed_ptr lets go. Throws std::bad_alloc if a fixed
  // pool is exhausted, or what growing throws.
  managed_ptr<T> acquire() {
    typename core::slot* s = take_or_throw();
    return managed_ptr<T>(s->object(), s);
  }
  // As acquire(), or an empty managed_ptr if a fixed pool is exhausted.
  managed_ptr<T> try_acquire() {
    typename core::slot* s = core_.take();
    return s ? managed_ptr<T>(s->object(), s) : managed_ptr<T>();
  }
  // An object owned by a shared_ptr whose control block is the object's slot: no allocation.
  shared_ptr<T> acquire_shared() {
    typename core::slot* s = take_or_throw();
    s->reset_counts();
    return shared_access::adopt_owner_of<T>(s->object(), s);
  }

  // Objects now in the pool (a snapshot for the concurrent pool), and objects it owns in all.
  std::size_t available() const noexcept { return core_.available(); }
  std::size_t capacity() const noexcept { return core_.capacity(); }

 private:
  typename core::slot* take_or_throw() {
    typename core::slot* s = core_.take();
    if (!s) detail::throw_exception<std::bad_alloc>();
    return s;
  }

  core core_;
};

}  // namespace detail

/// A pool of ready-made T for one thread at a time.
template <class T>
class object_pool : public detail::basic_object_pool<T, detail::plain_slot_stack, detail::no_lock> {
 public:
  using detail::basic_object_pool<T, detail::plain_slot_stack, detail::no_lock>::basic_object_pool;
};

/// A pool of ready-made T for any number of threads: acquiring and returning are a lock-free
/// compare-and-swap each, from any thread; only growing takes a mutex. Its free stack numbers the
/// objects with 32-bit indices (detail/slot_stacks.hpp), so it holds at most 2^32 - 1 objects made
/// at once (a fixed capacity), or about 2^31 by growing: beyond, the constructor or the growing
/// acquire throws std::bad_alloc.
template <class T>
class concurrent_object_pool : public detail::basic_object_pool<T, detail::atomic_slot_stack, std::mutex> {
 public:
  using detail::basic_object_pool<T, detail::atomic_slot_stack, std::mutex>::basic_object_pool;
};

}  // namespace own
