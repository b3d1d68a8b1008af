// SPDX-License-Identifier: BSL-1.0
/// @file
/// own::local_shared_ptr and own::local_weak_ptr: shared ownership for data confined to one thread,
/// with the shared_ptr interface and non-atomic counts. A local group can still be handed to other
/// threads: converting to own::shared_ptr takes one atomic reference, and that shared_ptr keeps the
/// object alive on any thread. Converting an own::shared_ptr back starts a new local group.
///
/// Usage:
///
///     own::local_shared_ptr<std::string> name = own::make_local_shared<std::string>("sensor-7");
///     own::local_shared_ptr<std::string> copy = name;          // a plain increment
///     own::local_weak_ptr<std::string> watcher = name;
///     own::shared_ptr<std::string> shared = name;              // one atomic increment
///     std::thread([shared] { assert(*shared == "sensor-7"); }).join();
///     name.reset();
///     copy.reset();                                            // the group is gone...
///     assert(watcher.lock() && *watcher.lock() == "sensor-7"); // ...but `shared` kept the object
///
/// Thread confinement: every local_shared_ptr and local_weak_ptr of one group (those copied from one
/// another) must be created, copied, assigned and destroyed on one thread at a time (handing the
/// whole group to another thread with proper synchronisation is fine). The object itself follows
/// the usual rules, and the own::shared_ptr made from a group may go anywhere.
///
/// Costs: sizeof(local_shared_ptr) == sizeof(local_weak_ptr) == two pointers. A copy is one plain
/// increment and a destruction one plain decrement; the atomic control block is touched only when
/// the group starts, ends, converts to own::shared_ptr, or is revived by local_weak_ptr::lock.
/// make_local_shared / allocate_local_shared make one allocation: the block houses the group's
/// counts (32 bytes) beside the object. A group made from an own::shared_ptr or a raw pointer has
/// its counts in a separate 32-byte node (recycled per thread: detail/recycling_allocator.hpp).
///
/// use_count() counts the group's local_shared_ptrs only, not the own::shared_ptrs made from it.
/// Arrays: local_shared_ptr<U[]> and <U[N]> work, from a shared_ptr, a raw pointer or the factories'
/// array forms (make_shared's: value-initialised or copies of an initial value; _for_overwrite).
#pragma once

#include "detail/cxx17_required.hpp"  // first, so that C++14 gets one error, not hundreds

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <type_traits>
#include <utility>

#include "detail/exceptions.hpp"
#include "detail/local_counts.hpp"
#include "detail/std_functional.hpp"
#include "detail/three_way.hpp"
#include "shared_ptr.hpp"

namespace own {

template <class T>
class local_shared_ptr;
template <class T>
class local_weak_ptr;

namespace detail {

struct local_access {
  // A local_shared_ptr that takes over the group reference of `counts` (or none if it is null).
  template <class T>
  static local_shared_ptr<T> adopt(typename local_shared_ptr<T>::element_type* p, local_counts* counts) noexcept {
    return local_shared_ptr<T>(p, counts, 0);
  }
  // A group for a housed block made with local_block_header: takes over its first reference.
  template <class T>
  static local_shared_ptr<T> from_housed(shared_ptr<T>&& housed) noexcept {
    auto* header = static_cast<local_block_header*>(shared_access::block(housed));
    typename shared_ptr<T>::element_type* p = housed.get();
    shared_access::detach(housed);
    return adopt<T>(p, &header->local());
  }
  // The control block that owns the object: what owner_before and friends compare. Never a load
  // proxy: a group is made with the object's own block (see the shared_ptr&& constructor).
  template <class Pointer>
  static control_block* block(const Pointer& r) noexcept {
    return r.counts_ ? r.counts_->global() : nullptr;
  }
  template <class T>
  static const void* owner(const local_shared_ptr<T>& r) noexcept {
    return block(r);
  }
  template <class T>
  static const void* owner(const local_weak_ptr<T>& r) noexcept {
    return block(r);
  }
  template <class T>
  static const void* owner(const shared_ptr<T>& r) noexcept {
    return shared_access::owner(r);
  }
};

}  // namespace detail

// -----------------------------------------------------------------------------------------------
// local_shared_ptr

/// A shared_ptr for one thread: a group of local_shared_ptrs shares non-atomic counts and holds
/// one reference on the object's control block (see the file documentation).
template <class T>
class local_shared_ptr {
  template <class Y>
  using if_compatible = std::enable_if_t<detail::is_compatible_v<Y, T>, int>;
  template <class... Args>
  using if_shared_constructible = std::enable_if_t<std::is_constructible_v<shared_ptr<T>, Args...>, int>;
  template <class... Args>
  using if_not_shared_constructible = std::enable_if_t<!std::is_constructible_v<shared_ptr<T>, Args...>, int>;

 public:
  /// The type pointed to, and the matching local weak pointer.
  ///@{
  using element_type = std::remove_extent_t<T>;
  using weak_type = local_weak_ptr<T>;
  ///@}

  /// Empty: no object, use_count() == 0.
  ///@{
  constexpr local_shared_ptr() noexcept = default;
  constexpr local_shared_ptr(std::nullptr_t) noexcept {}
  ///@}

  /// Owns `p` as shared_ptr<T>(p, ...) would (the block from `a` if given), plus a node for the
  /// counts. Throws what those allocations throw, after disposing of `p` as the shared_ptr would.
  ///@{
  template <class Y, if_shared_constructible<Y*> = 0>
  explicit local_shared_ptr(Y* p) : local_shared_ptr(shared_ptr<T>(p)) {}
  template <class Y, class D, if_shared_constructible<Y*, D> = 0>
  local_shared_ptr(Y* p, D d) : local_shared_ptr(shared_ptr<T>(p, std::move(d))) {}
  template <class Y, class D, class A, if_shared_constructible<Y*, D, A> = 0>
  local_shared_ptr(Y* p, D d, A a) : local_shared_ptr(shared_ptr<T>(p, std::move(d), std::move(a))) {}
  ///@}
  /// Not constructors, as the ones above are not for such arguments (is_constructible says false);
  /// deleted, the error names a line below instead of listing every constructor.
  ///@{
  template <class Y, if_not_shared_constructible<Y*> = 0>
  explicit local_shared_ptr(Y*) = delete;  // own: Y* does not convert to T* (for T = U[]: Y is not U), or p cannot be deleted
  template <class Y, class D, if_not_shared_constructible<Y*, D> = 0>
  local_shared_ptr(Y*, D) = delete;  // own: Y* does not convert to T*, or d(p) is ill-formed, or D cannot be moved
  template <class Y, class D, class A, if_not_shared_constructible<Y*, D, A> = 0>
  local_shared_ptr(Y*, D, A) = delete;  // own: Y* does not convert to T*, or d(p) is ill-formed, or D cannot be moved
  ///@}
  /// Owns a null pointer, as shared_ptr<T>(nullptr, d[, a]) does: d(nullptr) is called when the last
  /// owner, local or global, goes. Constrained by a trailing parameter, as shared_ptr's nullptr_t
  /// forms are, so that a Y* argument never asks whether d(nullptr) is well-formed.
  ///@{
  template <class D>
  local_shared_ptr(std::nullptr_t p, D d, detail::if_deleter_for_t<D, std::nullptr_t> = nullptr)
      : local_shared_ptr(shared_ptr<T>(p, std::move(d))) {}
  template <class D, class A>
  local_shared_ptr(std::nullptr_t p, D d, A a, detail::if_deleter_for_t<D, std::nullptr_t> = nullptr)
      : local_shared_ptr(shared_ptr<T>(p, std::move(d), std::move(a))) {}

  ///@}

  /// Takes `r`'s object; if an allocation throws, `r` keeps it.
  template <class Y, class D, if_shared_constructible<std::unique_ptr<Y, D>&&> = 0>
  local_shared_ptr(std::unique_ptr<Y, D>&& r) {
    detail::local_counts::node_ptr node = detail::local_counts::make_node(nullptr);
    shared_ptr<T> owner(std::move(r));
    if (detail::control_block* global = detail::shared_access::block(owner)) {
      node->attach(global);
      ptr_ = owner.get();
      counts_ = node.release();
      detail::shared_access::detach(owner);
    }
  }

  /// A new local group sharing ownership with `r` (one atomic increment for an lvalue, none for an
  /// rvalue). Throws std::bad_alloc (then `r` is unchanged) unless `r` has no control block.
  ///@{
  template <class Y, if_compatible<Y> = 0>
  local_shared_ptr(shared_ptr<Y>&& r) : ptr_(r.get()) {
    detail::shared_access::unproxy(r);  // local_weak_ptr::lock must see the object, not a proxy
    if (detail::control_block* global = detail::shared_access::block(r)) {
      counts_ = detail::local_counts::make_node(global).release();
      detail::shared_access::detach(r);
    } else {
      r = shared_ptr<Y>();
    }
  }
  template <class Y, if_compatible<Y> = 0>
  local_shared_ptr(const shared_ptr<Y>& r) : local_shared_ptr(shared_ptr<Y>(r)) {}
  ///@}

  /// Aliasing: shares ownership with `r` and points at `p`.
  ///@{
  template <class Y>
  local_shared_ptr(const local_shared_ptr<Y>& r, element_type* p) noexcept : ptr_(p), counts_(r.counts_) {
    if (counts_) counts_->add_shared();
  }
  template <class Y>
  local_shared_ptr(local_shared_ptr<Y>&& r, element_type* p) noexcept : ptr_(p), counts_(std::exchange(r.counts_, nullptr)) {
    r.ptr_ = nullptr;
  }

  ///@}

  /// Copies join r's group; moves take r's place in it, leaving r empty.
  ///@{
  local_shared_ptr(const local_shared_ptr& r) noexcept : ptr_(r.ptr_), counts_(r.counts_) {
    if (counts_) counts_->add_shared();
  }
  template <class Y, if_compatible<Y> = 0>
  local_shared_ptr(const local_shared_ptr<Y>& r) noexcept : ptr_(r.ptr_), counts_(r.counts_) {
    if (counts_) counts_->add_shared();
  }
  local_shared_ptr(local_shared_ptr&& r) noexcept
      : ptr_(std::exchange(r.ptr_, nullptr)), counts_(std::exchange(r.counts_, nullptr)) {}
  template <class Y, if_compatible<Y> = 0>
  local_shared_ptr(local_shared_ptr<Y>&& r) noexcept
      : ptr_(std::exchange(r.ptr_, nullptr)), counts_(std::exchange(r.counts_, nullptr)) {}

  ///@}

  /// Throws std::bad_weak_ptr if `r` has expired.
  template <class Y, if_compatible<Y> = 0>
  explicit local_shared_ptr(const local_weak_ptr<Y>& r) : ptr_(r.ptr_), counts_(r.counts_) {
    if (!counts_ || !counts_->try_add_shared()) detail::throw_exception<std::bad_weak_ptr>();
  }

  ~local_shared_ptr() {
    if (counts_) counts_->release_shared();
  }

  /// As the constructors, then swap: the old reference is released last.
  ///@{
  local_shared_ptr& operator=(const local_shared_ptr& r) noexcept {
    local_shared_ptr(r).swap(*this);
    return *this;
  }
  template <class Y, if_compatible<Y> = 0>
  local_shared_ptr& operator=(const local_shared_ptr<Y>& r) noexcept {
    local_shared_ptr(r).swap(*this);
    return *this;
  }
  local_shared_ptr& operator=(local_shared_ptr&& r) noexcept {
    local_shared_ptr(std::move(r)).swap(*this);
    return *this;
  }
  template <class Y, if_compatible<Y> = 0>
  local_shared_ptr& operator=(local_shared_ptr<Y>&& r) noexcept {
    local_shared_ptr(std::move(r)).swap(*this);
    return *this;
  }
  template <class Y, class D, if_shared_constructible<std::unique_ptr<Y, D>&&> = 0>
  local_shared_ptr& operator=(std::unique_ptr<Y, D>&& r) {
    local_shared_ptr(std::move(r)).swap(*this);
    return *this;
  }

  ///@}

  /// Exchanges the pointers and groups.
  void swap(local_shared_ptr& r) noexcept {
    std::swap(ptr_, r.ptr_);
    std::swap(counts_, r.counts_);
  }

  /// local_shared_ptr(args...).swap(*this).
  ///@{
  void reset() noexcept { local_shared_ptr().swap(*this); }
  // As shared_ptr's reset(p): offered for every pointer that converts (see there).
  template <class Y, std::enable_if_t<detail::accepts_raw_v<Y, T>, int> = 0>
  void reset(Y* p) {
    local_shared_ptr(p).swap(*this);
  }
  template <class Y, std::enable_if_t<!detail::accepts_raw_v<Y, T>, int> = 0>
  void reset(Y*) = delete;  // own: Y* does not convert to T* (for T = U[]: Y is not U)
  template <class Y, class D, if_shared_constructible<Y*, D> = 0>
  void reset(Y* p, D d) {
    local_shared_ptr(p, std::move(d)).swap(*this);
  }
  template <class Y, class D, class A, if_shared_constructible<Y*, D, A> = 0>
  void reset(Y* p, D d, A a) {
    local_shared_ptr(p, std::move(d), std::move(a)).swap(*this);
  }
  template <class Y>
  void reset(const local_shared_ptr<Y>& r, element_type* p) noexcept {
    local_shared_ptr(r, p).swap(*this);
  }
  template <class Y>
  void reset(local_shared_ptr<Y>&& r, element_type* p) noexcept {
    local_shared_ptr(std::move(r), p).swap(*this);
  }

  ///@}

  /// The stored pointer.
  element_type* get() const noexcept { return ptr_; }

  ///@{
  /// Precondition: get() != nullptr (checked in OWN_CHECKED mode).
  template <class U = T, std::enable_if_t<!std::is_array_v<U>, int> = 0>
  std::add_lvalue_reference_t<U> operator*() const noexcept {
    OWN_CHECK(ptr_ != nullptr, "dereferencing an empty own::local_shared_ptr");
    return *ptr_;
  }
  template <class U = T, std::enable_if_t<!std::is_array_v<U>, int> = 0>
  element_type* operator->() const noexcept {
    OWN_CHECK(ptr_ != nullptr, "dereferencing an empty own::local_shared_ptr (operator->)");
    return ptr_;
  }
  ///@}
  /// Precondition: get() != nullptr and, for T = U[N], 0 <= i < N (checked in OWN_CHECKED mode).
  /// The return type names U, not element_type, so that it is formed only for arrays: void& for
  /// local_shared_ptr<void> would make the class itself ill-formed.
  template <class U = T, std::enable_if_t<std::is_array_v<U>, int> = 0>
  std::remove_extent_t<U>& operator[](std::ptrdiff_t i) const noexcept {
    OWN_CHECK(ptr_ != nullptr, "indexing an empty own::local_shared_ptr");
    if constexpr (std::extent_v<U> != 0) {
      OWN_CHECK(i >= 0 && static_cast<std::size_t>(i) < std::extent_v<U>,
                "own::local_shared_ptr<T[%zu]>: index %td out of range", std::extent_v<U>, i);
    }
    return ptr_[i];
  }

  /// The number of local_shared_ptrs in this group (own::shared_ptrs made from it not included).
  /// local_use_count() is Boost's name for it.
  ///@{
  long use_count() const noexcept { return counts_ ? static_cast<long>(counts_->use_count()) : 0; }
  long local_use_count() const noexcept { return use_count(); }
  ///@}
  /// Whether get() is not null.
  explicit operator bool() const noexcept { return ptr_ != nullptr; }

  /// An own::shared_ptr sharing ownership, usable on any thread: one atomic increment.
  template <class Y, std::enable_if_t<detail::is_compatible_v<T, Y>, int> = 0>
  operator shared_ptr<Y>() const noexcept {
    if (!counts_) return shared_ptr<Y>(shared_ptr<Y>(), ptr_);
    counts_->global()->add_shared();
    return detail::shared_access::adopt<Y>(ptr_, counts_->global());
  }

  /// An own::weak_ptr to the object, as Boost's local_shared_ptr converts to weak_ptr: one atomic
  /// increment (of the control block's weak count), no shared reference taken or given back.
  template <class Y, std::enable_if_t<detail::is_compatible_v<T, Y>, int> = 0>
  operator weak_ptr<Y>() const noexcept {
    return detail::shared_access::weak<Y>(ptr_, detail::local_access::block(*this));
  }

  ///@{
  /// Ownership is the control block's, so local and global pointers to one object are equivalent.
  /// `r`: a local_shared_ptr, local_weak_ptr or own::shared_ptr.
  template <class P>
  bool owner_before(const P& r) const noexcept {
    return std::less<>()(detail::local_access::owner(*this), detail::local_access::owner(r));
  }
  template <class P>
  bool owner_equal(const P& r) const noexcept {
    return detail::local_access::owner(*this) == detail::local_access::owner(r);
  }
  std::size_t owner_hash() const noexcept { return std::hash<const void*>()(detail::local_access::owner(*this)); }
  ///@}

 private:
  template <class>
  friend class local_shared_ptr;
  template <class>
  friend class local_weak_ptr;
  friend struct detail::local_access;

  local_shared_ptr(element_type* p, detail::local_counts* counts, int) noexcept : ptr_(p), counts_(counts) {}

  element_type* ptr_ = nullptr;
  detail::local_counts* counts_ = nullptr;
};

// -----------------------------------------------------------------------------------------------
// local_weak_ptr (Boost smart_ptr#58): observes a local group without owning; same thread rule.

/// Observes a local_shared_ptr group without owning (Boost smart_ptr#58); the same thread rule.
template <class T>
class local_weak_ptr {
 public:
  /// The type pointed to.
  using element_type = std::remove_extent_t<T>;

  /// Empty, or observing r's group; copies and moves as weak_ptr's.
  ///@{
  constexpr local_weak_ptr() noexcept = default;
  template <class Y, std::enable_if_t<detail::is_compatible_v<Y, T>, int> = 0>
  local_weak_ptr(const local_shared_ptr<Y>& r) noexcept : ptr_(r.ptr_), counts_(r.counts_) {
    if (counts_) counts_->add_weak();
  }
  local_weak_ptr(const local_weak_ptr& r) noexcept : ptr_(r.ptr_), counts_(r.counts_) {
    if (counts_) counts_->add_weak();
  }
  local_weak_ptr(local_weak_ptr&& r) noexcept : ptr_(std::exchange(r.ptr_, nullptr)), counts_(std::exchange(r.counts_, nullptr)) {}
  ///@}
  ~local_weak_ptr() {
    if (counts_) counts_->release_weak();
  }
  /// As the constructors, then swap.
  ///@{
  local_weak_ptr& operator=(const local_weak_ptr& r) noexcept {
    local_weak_ptr(r).swap(*this);
    return *this;
  }
  local_weak_ptr& operator=(local_weak_ptr&& r) noexcept {
    local_weak_ptr(std::move(r)).swap(*this);
    return *this;
  }
  template <class Y, std::enable_if_t<detail::is_compatible_v<Y, T>, int> = 0>
  local_weak_ptr& operator=(const local_shared_ptr<Y>& r) noexcept {
    local_weak_ptr(r).swap(*this);
    return *this;
  }

  ///@}

  /// Exchanges the pointers and groups.
  void swap(local_weak_ptr& r) noexcept {
    std::swap(ptr_, r.ptr_);
    std::swap(counts_, r.counts_);
  }
  /// Empties this pointer.
  void reset() noexcept { local_weak_ptr().swap(*this); }

  /// Local owners in the group; 0 once they are all gone (even if shared_ptrs keep the object).
  long use_count() const noexcept { return counts_ ? static_cast<long>(counts_->use_count()) : 0; }
  /// True once the object is destroyed (no local or global owner is left).
  bool expired() const noexcept { return !counts_ || counts_->expired(); }
  /// An owner of the object, or empty if it is gone. If only own::shared_ptrs made from the group
  /// still own it, the group is revived with one atomic increment.
  local_shared_ptr<T> lock() const noexcept {
    if (counts_ && counts_->try_add_shared()) return detail::local_access::adopt<T>(ptr_, counts_);
    return local_shared_ptr<T>();
  }

  /// As local_shared_ptr::owner_before.
  template <class P>
  bool owner_before(const P& r) const noexcept {
    return std::less<>()(detail::local_access::owner(*this), detail::local_access::owner(r));
  }

 private:
  template <class>
  friend class local_shared_ptr;
  friend struct detail::local_access;

  element_type* ptr_ = nullptr;
  detail::local_counts* counts_ = nullptr;
};

/// a.swap(b).
template <class T>
void swap(local_shared_ptr<T>& a, local_shared_ptr<T>& b) noexcept {
  a.swap(b);
}
/// a.swap(b).
template <class T>
void swap(local_weak_ptr<T>& a, local_weak_ptr<T>& b) noexcept {
  a.swap(b);
}

// -----------------------------------------------------------------------------------------------
// Factories: the object and the group's counts in one block. Strong guarantee.

/// The bytes allocate_local_shared<T>(a, ...) asks `a` for (see housed_block_size): the block size of a
/// pool made to serve exactly those.
template <class T, class A = detail::default_allocator>
inline constexpr std::size_t local_housed_block_size =
    sizeof(detail::inplace_block<T, detail::adapted_allocator_t<A>, detail::construct_with::allocator,
                                 detail::local_block_header>);

/// One allocation from the default heap for the object, made from `args`, and the group's counts.
template <class T, class... Args, detail::if_object<T> = 0>
local_shared_ptr<T> make_local_shared(Args&&... args) {
  return detail::local_access::from_housed(detail::make_housed<T, detail::construct_with::placement, detail::local_block_header>(
      detail::default_allocator(), std::forward<Args>(args)...));
}
/// `a`: an Allocator, a std::pmr::memory_resource* or an own pool pointer.
template <class T, class A, class... Args, detail::if_object<T> = 0>
local_shared_ptr<T> allocate_local_shared(const A& a, Args&&... args) {
  return detail::local_access::from_housed(detail::make_housed<T, detail::construct_with::allocator, detail::local_block_header>(
      detail::adapt_allocator(a), std::forward<Args>(args)...));
}

/// U[]: `n` value-initialised elements (copies of `u`, if given); U[N]: the same, N elements. One
/// block holds the elements and the group's counts, as for single objects.
///@{
template <class T, detail::if_unbounded<T> = 0>
local_shared_ptr<T> make_local_shared(std::size_t n) {
  return detail::local_access::from_housed(detail::make_housed_array<T, detail::construct_with::placement, detail::local_block_header>(
      detail::default_allocator(), n));
}
template <class T, detail::if_bounded<T> = 0>
local_shared_ptr<T> make_local_shared() {
  return detail::local_access::from_housed(detail::make_housed_array<T, detail::construct_with::placement, detail::local_block_header>(
      detail::default_allocator(), std::extent_v<T>));
}
template <class T, detail::if_unbounded<T> = 0>
local_shared_ptr<T> make_local_shared(std::size_t n, const std::remove_extent_t<T>& u) {
  return detail::local_access::from_housed(detail::make_housed_array<T, detail::construct_with::placement, detail::local_block_header>(
      detail::default_allocator(), n, std::addressof(u)));
}
template <class T, detail::if_bounded<T> = 0>
local_shared_ptr<T> make_local_shared(const std::remove_extent_t<T>& u) {
  return detail::local_access::from_housed(detail::make_housed_array<T, detail::construct_with::placement, detail::local_block_header>(
      detail::default_allocator(), std::extent_v<T>, std::addressof(u)));
}
template <class T, class A, detail::if_unbounded<T> = 0>
local_shared_ptr<T> allocate_local_shared(const A& a, std::size_t n) {
  return detail::local_access::from_housed(detail::make_housed_array<T, detail::construct_with::allocator, detail::local_block_header>(
      detail::adapt_allocator(a), n));
}
template <class T, class A, detail::if_bounded<T> = 0>
local_shared_ptr<T> allocate_local_shared(const A& a) {
  return detail::local_access::from_housed(detail::make_housed_array<T, detail::construct_with::allocator, detail::local_block_header>(
      detail::adapt_allocator(a), std::extent_v<T>));
}
template <class T, class A, detail::if_unbounded<T> = 0>
local_shared_ptr<T> allocate_local_shared(const A& a, std::size_t n, const std::remove_extent_t<T>& u) {
  return detail::local_access::from_housed(detail::make_housed_array<T, detail::construct_with::allocator, detail::local_block_header>(
      detail::adapt_allocator(a), n, std::addressof(u)));
}
template <class T, class A, detail::if_bounded<T> = 0>
local_shared_ptr<T> allocate_local_shared(const A& a, const std::remove_extent_t<T>& u) {
  return detail::local_access::from_housed(detail::make_housed_array<T, detail::construct_with::allocator, detail::local_block_header>(
      detail::adapt_allocator(a), std::extent_v<T>, std::addressof(u)));
}

///@}

/// The _for_overwrite forms default-initialise: trivial types are left uninitialised, never zeroed.
///@{
template <class T, detail::if_object<T> = 0>
local_shared_ptr<T> make_local_shared_for_overwrite() {
  return detail::local_access::from_housed(
      detail::make_housed<T, detail::construct_with::default_init, detail::local_block_header>(detail::default_allocator()));
}
template <class T, class A, detail::if_object<T> = 0>
local_shared_ptr<T> allocate_local_shared_for_overwrite(const A& a) {
  return detail::local_access::from_housed(
      detail::make_housed<T, detail::construct_with::default_init, detail::local_block_header>(detail::adapt_allocator(a)));
}
template <class T, class A, detail::if_bounded<T> = 0>
local_shared_ptr<T> allocate_local_shared_for_overwrite(const A& a) {
  return detail::local_access::from_housed(detail::make_housed_array<T, detail::construct_with::default_init, detail::local_block_header>(
      detail::adapt_allocator(a), std::extent_v<T>));
}
template <class T, class A, detail::if_unbounded<T> = 0>
local_shared_ptr<T> allocate_local_shared_for_overwrite(const A& a, std::size_t n) {
  return detail::local_access::from_housed(detail::make_housed_array<T, detail::construct_with::default_init, detail::local_block_header>(
      detail::adapt_allocator(a), n));
}
template <class T, detail::if_bounded<T> = 0>
local_shared_ptr<T> make_local_shared_for_overwrite() {
  return own::allocate_local_shared_for_overwrite<T>(detail::default_allocator());
}
template <class T, detail::if_unbounded<T> = 0>
local_shared_ptr<T> make_local_shared_for_overwrite(std::size_t n) {
  return own::allocate_local_shared_for_overwrite<T>(detail::default_allocator(), n);
}

///@}

/// Boost's names for the _for_overwrite forms.
///@{
template <class T, class... Size>
auto make_local_shared_noinit(Size... n) -> decltype(own::make_local_shared_for_overwrite<T>(n...)) {
  return own::make_local_shared_for_overwrite<T>(n...);
}
template <class T, class A, class... Size>
auto allocate_local_shared_noinit(const A& a, Size... n) -> decltype(own::allocate_local_shared_for_overwrite<T>(a, n...)) {
  return own::allocate_local_shared_for_overwrite<T>(a, n...);
}
///@}

// -----------------------------------------------------------------------------------------------
// Casts: the result joins `r`'s group.

/// The casts of std::shared_ptr: the result joins `r`'s group (empty if dynamic_cast fails). An
/// rvalue `r` hands its place in the group to the result, as Boost's (a failed dynamic cast leaves
/// it as it was).
///@{
template <class T, class U>
local_shared_ptr<T> static_pointer_cast(const local_shared_ptr<U>& r) noexcept {
  return local_shared_ptr<T>(r, static_cast<typename local_shared_ptr<T>::element_type*>(r.get()));
}
template <class T, class U>
local_shared_ptr<T> const_pointer_cast(const local_shared_ptr<U>& r) noexcept {
  return local_shared_ptr<T>(r, const_cast<typename local_shared_ptr<T>::element_type*>(r.get()));
}
template <class T, class U>
local_shared_ptr<T> reinterpret_pointer_cast(const local_shared_ptr<U>& r) noexcept {
  return local_shared_ptr<T>(r, reinterpret_cast<typename local_shared_ptr<T>::element_type*>(r.get()));
}
template <class T, class U>
local_shared_ptr<T> dynamic_pointer_cast(const local_shared_ptr<U>& r) noexcept {
  if (auto* p = dynamic_cast<typename local_shared_ptr<T>::element_type*>(r.get())) return local_shared_ptr<T>(r, p);
  return local_shared_ptr<T>();
}
template <class T, class U>
local_shared_ptr<T> static_pointer_cast(local_shared_ptr<U>&& r) noexcept {
  auto* p = static_cast<typename local_shared_ptr<T>::element_type*>(r.get());
  return local_shared_ptr<T>(std::move(r), p);
}
template <class T, class U>
local_shared_ptr<T> const_pointer_cast(local_shared_ptr<U>&& r) noexcept {
  auto* p = const_cast<typename local_shared_ptr<T>::element_type*>(r.get());
  return local_shared_ptr<T>(std::move(r), p);
}
template <class T, class U>
local_shared_ptr<T> reinterpret_pointer_cast(local_shared_ptr<U>&& r) noexcept {
  auto* p = reinterpret_cast<typename local_shared_ptr<T>::element_type*>(r.get());
  return local_shared_ptr<T>(std::move(r), p);
}
template <class T, class U>
local_shared_ptr<T> dynamic_pointer_cast(local_shared_ptr<U>&& r) noexcept {
  if (auto* p = dynamic_cast<typename local_shared_ptr<T>::element_type*>(r.get())) return local_shared_ptr<T>(std::move(r), p);
  return local_shared_ptr<T>();
}

///@}

/// The deleter the group's owner was created with, if it is a D; else nullptr (as for shared_ptr,
/// the deleter lives in the control block, so a group made from a shared_ptr has its deleter).
template <class D, class T>
D* get_deleter(const local_shared_ptr<T>& p) noexcept {
  detail::control_block* block = detail::local_access::block(p);
  return block ? static_cast<D*>(block->get_deleter(detail::type_key::of<D>())) : nullptr;
}

/// As shared_ptr's (Boost's get_pointer, found by argument-dependent lookup).
template <class T>
typename local_shared_ptr<T>::element_type* get_pointer(const local_shared_ptr<T>& p) noexcept {
  return p.get();
}

/// As shared_ptr's (Boost's hash_value, found by argument-dependent lookup): the hash of get().
template <class T>
std::size_t hash_value(const local_shared_ptr<T>& p) noexcept {
  return std::hash<typename local_shared_ptr<T>::element_type*>()(p.get());
}

// -----------------------------------------------------------------------------------------------
// Comparisons: by get(), like shared_ptr.

/// Comparisons by get(), as shared_ptr's (and with nullptr).
///@{
template <class T, class U>
bool operator==(const local_shared_ptr<T>& a, const local_shared_ptr<U>& b) noexcept {
  return a.get() == b.get();
}
template <class T>
bool operator==(const local_shared_ptr<T>& a, std::nullptr_t) noexcept {
  return !a;
}
/// Against shared_ptr, as Boost's local_shared_ptr: by get() too, so a group and the shared_ptr made
/// from it compare equal. (C++20 rewrites b == a and the != forms from this one.)
template <class T, class U>
bool operator==(const local_shared_ptr<T>& a, const shared_ptr<U>& b) noexcept {
  return a.get() == b.get();
}
#if OWN_THREE_WAY_COMPARISON
template <class T, class U>
std::strong_ordering operator<=>(const local_shared_ptr<T>& a, const local_shared_ptr<U>& b) noexcept {
  return std::compare_three_way()(a.get(), b.get());
}
template <class T, class U>
std::strong_ordering operator<=>(const local_shared_ptr<T>& a, const shared_ptr<U>& b) noexcept {
  return std::compare_three_way()(a.get(), b.get());
}
#else
template <class T, class U>
bool operator==(const shared_ptr<T>& a, const local_shared_ptr<U>& b) noexcept {
  return a.get() == b.get();
}
template <class T, class U>
bool operator!=(const local_shared_ptr<T>& a, const shared_ptr<U>& b) noexcept {
  return a.get() != b.get();
}
template <class T, class U>
bool operator!=(const shared_ptr<T>& a, const local_shared_ptr<U>& b) noexcept {
  return a.get() != b.get();
}
template <class T>
bool operator==(std::nullptr_t, const local_shared_ptr<T>& a) noexcept {
  return !a;
}
template <class T, class U>
bool operator!=(const local_shared_ptr<T>& a, const local_shared_ptr<U>& b) noexcept {
  return a.get() != b.get();
}
template <class T>
bool operator!=(const local_shared_ptr<T>& a, std::nullptr_t) noexcept {
  return static_cast<bool>(a);
}
template <class T>
bool operator!=(std::nullptr_t, const local_shared_ptr<T>& a) noexcept {
  return static_cast<bool>(a);
}
template <class T, class U>
bool operator<(const local_shared_ptr<T>& a, const local_shared_ptr<U>& b) noexcept {
  return std::less<>()(a.get(), b.get());
}
#endif

///@}

/// Writes get().
template <class E, class Traits, class T>
std::basic_ostream<E, Traits>& operator<<(std::basic_ostream<E, Traits>& os, const local_shared_ptr<T>& p) {
  return os << p.get();
}

}  // namespace own

template <class T>
struct std::hash<own::local_shared_ptr<T>> {
  std::size_t operator()(const own::local_shared_ptr<T>& p) const noexcept { return own::hash_value(p); }
};
