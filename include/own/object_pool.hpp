// SPDX-License-Identifier: BSL-1.0
/// @file
/// own::object_pool<T> and own::concurrent_object_pool<T>: pools of ready-made objects. The pool
/// creates its objects up front (and more, in growing chunks, when it runs out, unless it has a fixed
/// capacity), hands them out as owning pointers, and takes each back, reset, when its last owner
/// drops it. Acquiring and returning are O(1) whatever the size and never allocate:
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
///       void reset() { bytes.assign(bytes.size(), 0); }  // called when a buffer comes back
///     };
///
///     own::object_pool<buffer> pool(64, own::fixed_capacity);  // never allocates after this
///     {
///       own::managed_ptr<buffer> a = pool.acquire();
///       own::shared_ptr<buffer> b = pool.acquire_shared();
///       a->bytes[0] = 'x';
///       assert(pool.available() == 62);
///     }
///     assert(pool.available() == 64);                           // both back, reset
///
/// Objects are made by the creator (default: value-initialised T) and, on their way back, reset by
/// the resetter (default: `t.reset()` if T has one, else nothing), which must not throw. A T derived
/// from enable_shared_from_this gets its shared_from_this() from acquire_shared(), as from
/// make_shared; the hook is let go when the object comes back, so it keeps nothing out of the pool.
///
/// Checked mode (OWN_CHECKED): returning an object twice or to a pool that does not own it, and
/// destroying a pool with objects still out, print what happened and abort.
#pragma once

#include "detail/cxx17_required.hpp"  // first, so that C++14 gets one error, not hundreds

#include <cstddef>
#include <functional>
#include <memory_resource>
#include <mutex>
#include <new>
#include <utility>

#include "detail/exceptions.hpp"
#include "detail/object_pool_core.hpp"
#include "detail/slot_stacks.hpp"
#include "managed_ptr.hpp"
#include "shared_ptr.hpp"

namespace own {

/// Tag: the pool makes all its objects at construction and never allocates again.
struct fixed_capacity_t {
  explicit fixed_capacity_t() = default;
};
/// Selects the fixed-capacity constructor of object_pool and concurrent_object_pool.
inline constexpr fixed_capacity_t fixed_capacity{};

namespace detail {

template <class T, template <class> class FreeStack, class GrowthLock>
class basic_object_pool {
  using core = object_pool_core<T, FreeStack, GrowthLock>;

 public:
  using creator_type = typename core::creator_type;    // void(void* where): constructs a T at `where`
  using resetter_type = typename core::resetter_type;  // void(T&): makes a returned object ready again

  // `initial` objects made now; the pool grows (doubling) when it runs out. Throws what the upstream
  // resource or the creator throws (nothing is left behind), std::bad_alloc if `initial` objects
  // do not fit a std::size_t bytes, and std::invalid_argument if T has no default constructor and
  // no creator is given.
  explicit basic_object_pool(std::size_t initial = 0, creator_type creator = {}, resetter_type resetter = {},
                             std::pmr::memory_resource* upstream = std::pmr::get_default_resource())
      : core_(initial, false, std::move(creator), std::move(resetter), upstream) {}
  // Exactly `capacity` objects, made now; acquire() throws std::bad_alloc when all are out. Throws
  // as the constructor above (std::bad_alloc if `capacity` objects do not fit a std::size_t bytes).
  basic_object_pool(std::size_t capacity, fixed_capacity_t, creator_type creator = {}, resetter_type resetter = {},
                    std::pmr::memory_resource* upstream = std::pmr::get_default_resource())
      : core_(capacity, true, std::move(creator), std::move(resetter), upstream) {}

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
