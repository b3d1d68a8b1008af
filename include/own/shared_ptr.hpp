// SPDX-License-Identifier: BSL-1.0
/// @file
/// own::shared_ptr and own::weak_ptr: shared ownership with std's C++20 interface (replace std:: by
/// own:: and a program compiles and behaves the same), plus N1851's additions: an allocator for the
/// control block of an adopted pointer, aliasing reset, and objects or arrays housed in the control
/// block (make_shared_object, make_shared_array and their _with_alloc forms).
///
/// Wherever an allocator `a` is taken it may be a standard Allocator, a std::pmr::memory_resource*,
/// or a pointer to an own pool (which is then called directly, with no virtual call).
///
/// Costs: sizeof(shared_ptr) == sizeof(weak_ptr) == two pointers; the control-block header is 16
/// bytes; a copy is one relaxed increment; the last release of an object that never had a weak_ptr
/// is one load and no atomic read-modify-write.
///
/// Usage:
///
///     struct packet { int id; char payload[1500]; };
///
///     own::shared_ptr<packet> p = own::make_shared_object<packet>();  // one allocation
///     p->id = 7;
///     own::shared_ptr<int> id = own::shared_ptr<int>(p, &p->id);      // aliases p's object
///     own::weak_ptr<packet> w = p;
///     p.reset();
///     assert(!w.expired() && *id == 7);                               // `id` keeps the packet alive
///     id.reset();
///     assert(w.expired());
///
///     std::pmr::monotonic_buffer_resource arena;
///     own::shared_ptr<int[]> a = own::make_shared_array_with_alloc<int>(&arena, 4);  // zeroed ints
///
/// Checked mode (OWN_CHECKED): `*`, `->` on an empty pointer and `[]` out of range on a
/// shared_ptr<U[N]> print a message and abort.
#pragma once

#include "detail/cxx17_required.hpp"  // first, so that C++14 gets one error, not hundreds

#include <cstddef>
#include <iosfwd>
#include <memory>
#include <type_traits>
#include <utility>

#include "detail/allocator_adapter.hpp"
#include "detail/array_block.hpp"
#include "detail/checked.hpp"
#include "detail/control_block.hpp"
#include "detail/load_proxy.hpp"
#include "detail/default_deleter.hpp"
#include "detail/exceptions.hpp"
#include "detail/heap_allocator.hpp"
#include "detail/inplace_block.hpp"
#include "detail/pointer_block.hpp"
#include "detail/pointer_compat.hpp"
#include "detail/std_functional.hpp"
#include "detail/three_way.hpp"

namespace own {

/// Spelled own::bad_weak_ptr as well, as code written against std names it.
using std::bad_weak_ptr;

template <class T>
class shared_ptr;
template <class T>
class weak_ptr;
template <class T>
class enable_shared_from_this;
template <class T>
class managed_ptr;

namespace detail {

// Defined in <own/managed_ptr.hpp>.
template <class T, class Y, class A>
shared_ptr<T> shared_from_managed(managed_ptr<Y>&& r, const A& a);

// Defined below, after shared_ptr.
template <class T, class Y>
shared_ptr<T> shared_from_std(const std::shared_ptr<Y>& r);

// For own's other smart pointers and pools, which hand references to and from shared_ptr.
struct shared_access {
  // A shared_ptr that takes over one shared reference the caller holds on `block`.
  template <class T>
  static shared_ptr<T> adopt(typename shared_ptr<T>::element_type* p, control_block* block) noexcept {
    shared_ptr<T> result;
    result.ptr_ = p;
    result.block_ = block;
    return result;
  }
  template <class T>
  static control_block* block(const shared_ptr<T>& p) noexcept {
    return p.block_;
  }
  template <class T>
  static control_block* block(const weak_ptr<T>& p) noexcept {
    return p.block_;
  }
  // The block that owns p's object: p's block, or the one a load proxy stands for (load_proxy.hpp).
  template <class Pointer>
  static control_block* owner(const Pointer& p) noexcept {
    return load_proxy::owner_of(p.block_);
  }
  // Moves p's reference from a load proxy to the block that owns its object (no change for any
  // other p): for holders that take weak references on p's block (local_shared_ptr's group), which
  // must observe the object's life, not the proxy's. Runs no user code.
  template <class T>
  static void unproxy(shared_ptr<T>& p) noexcept {
    control_block* const owner = load_proxy::owner_of(p.block_);
    if (owner == p.block_) return;
    owner->add_shared();
    std::exchange(p.block_, owner)->release_shared();  // not the owner's last: it has one more
  }
  // Drops p's reference and empties p, unless that would run user code (see
  // control_block::release_shared_unless_last): whether it did. p is unchanged if not.
  template <class T>
  static bool release_unless_last(shared_ptr<T>& p) noexcept {
    return (p.block_ == nullptr || p.block_->release_shared_unless_last()) && forget(p);
  }
  template <class T>
  static bool release_unless_last(weak_ptr<T>& p) noexcept {
    return (p.block_ == nullptr || p.block_->release_weak_unless_last()) && forget(p);
  }
  // Empties p without releasing its reference; returns true.
  template <class Pointer>
  static bool forget(Pointer& p) noexcept {
    p.ptr_ = nullptr;
    p.block_ = nullptr;
    return true;
  }
  // The stored pointer, for the atomics' comparisons (the same pointer and the same owner): a
  // weak_ptr has no get(), as its pointer may dangle.
  template <class T>
  static typename shared_ptr<T>::element_type* pointer(const shared_ptr<T>& p) noexcept {
    return p.ptr_;
  }
  template <class T>
  static typename weak_ptr<T>::element_type* pointer(const weak_ptr<T>& p) noexcept {
    return p.ptr_;
  }
  // As adopt(), for a block that has just become the owner of `p` (a housed object, a pooled one,
  // a managed_ptr's): p's enable_shared_from_this base, if it has one, learns its owner, as from
  // make_shared or an adopting constructor. No block, no owner: nothing is hooked.
  template <class T, class Y>
  static shared_ptr<T> adopt_owner_of(Y* p, control_block* block) noexcept {
    shared_ptr<T> result = adopt<T>(p, block);
    if (block != nullptr) result.enable_shared_from_this_hook(p);
    return result;
  }
  // Lets go of `object`'s enable_shared_from_this hook, if it has one and no shared_ptr owns the
  // object any more: an object pool taking the object back, for its next owner to hook it afresh
  // (the hook's weak reference would otherwise keep the last owner's control block).
  template <class Y>
  static void forget_shared_from_this(Y& object) noexcept;  // defined after enable_shared_from_this
  // A weak_ptr to `block` (or an empty one if it is null) pointing at `p`: one weak reference more.
  template <class T>
  static weak_ptr<T> weak(typename weak_ptr<T>::element_type* p, control_block* block) noexcept {
    weak_ptr<T> result;
    if (block) result.assign(p, block);
    return result;
  }
  // Empties `p` without releasing its reference, which passes to the caller.
  template <class T>
  static control_block* detach(shared_ptr<T>& p) noexcept {
    p.ptr_ = nullptr;
    return std::exchange(p.block_, nullptr);
  }
};

// The enable_shared_from_this<X> base of Y, if Y has exactly one and it is accessible.
template <class X>
X* shared_from_this_base(const volatile enable_shared_from_this<X>*);
template <class Y, class = void>
struct shared_from_this_target {
  using type = void;
};
template <class Y>
struct shared_from_this_target<Y, std::void_t<decltype(detail::shared_from_this_base(std::declval<Y*>()))>> {
  using candidate = std::remove_pointer_t<decltype(detail::shared_from_this_base(std::declval<Y*>()))>;
  using type = std::conditional_t<std::is_convertible_v<Y*, const volatile enable_shared_from_this<candidate>*>, candidate, void>;
};
// X, for a Y (cv-qualified or not) with one accessible enable_shared_from_this<X> base; else void.
template <class Y>
using shared_from_this_target_t = typename shared_from_this_target<std::remove_cv_t<Y>>::type;

// A namespace for base classes only, which must never hold a function: a public base's namespace
// is searched by every unqualified call that has a derived object as an argument, so
// own::detail's function templates would join (and could make ambiguous) a user's functions
// called on a shared_ptr or weak_ptr.
namespace bases {

// The observers by owner (control block), not by pointer, that shared_ptr and weak_ptr share.
template <class Self>
class owner_observers {
 public:
  template <class U>
  bool owner_before(const shared_ptr<U>& r) const noexcept {
    return std::less<>()(self(), shared_access::owner(r));
  }
  template <class U>
  bool owner_before(const weak_ptr<U>& r) const noexcept {
    return std::less<>()(self(), shared_access::owner(r));
  }
  std::size_t owner_hash() const noexcept { return std::hash<const void*>()(self()); }
  template <class U>
  bool owner_equal(const shared_ptr<U>& r) const noexcept {
    return self() == shared_access::owner(r);
  }
  template <class U>
  bool owner_equal(const weak_ptr<U>& r) const noexcept {
    return self() == shared_access::owner(r);
  }

 private:
  const control_block* self() const noexcept { return shared_access::owner(static_cast<const Self&>(*this)); }
};

}  // namespace bases
}  // namespace detail

// -----------------------------------------------------------------------------------------------
// shared_ptr

/// Shared ownership with std::shared_ptr's C++20 interface, plus N1851's additions (see the file
/// documentation).
template <class T>
class shared_ptr : public detail::bases::owner_observers<shared_ptr<T>> {
  template <class Y>
  using if_compatible = std::enable_if_t<detail::is_compatible_v<Y, T>, int>;
  template <class Y>
  static constexpr bool is_adoptable = detail::accepts_raw_v<Y, T> && (std::is_array_v<T> ? detail::is_array_deletable<Y>::value
                                                                                          : detail::is_deletable<Y>::value);
  template <class Y>
  using if_adoptable = std::enable_if_t<is_adoptable<Y>, int>;
  template <class Y>
  using if_not_adoptable = std::enable_if_t<!is_adoptable<Y>, int>;
  template <class Y, class D>
  using if_adoptable_with = std::enable_if_t<detail::accepts_raw_v<Y, T> && detail::is_deleter_for<D, Y*>::value, int>;
  template <class Y, class D>
  using if_no_deleter_for = std::enable_if_t<detail::accepts_raw_v<Y, T> && !detail::is_deleter_for<D, Y*>::value &&
                                                 !detail::is_memory_source_v<std::remove_pointer_t<D>>,
                                             int>;
  // (The deleter moves in, so a D that cannot be moved takes the form out, as libstdc++ does, beyond
  // std's two Constraints.)
  template <class Y, class D>
  using if_unique_convertible =
      std::enable_if_t<detail::is_compatible_v<Y, T> &&
                           std::is_convertible_v<typename std::unique_ptr<Y, D>::pointer, std::remove_extent_t<T>*> &&
                           (std::is_reference_v<D> || std::is_move_constructible_v<D>),
                       int>;
  using default_delete_for = std::conditional_t<std::is_array_v<T>, detail::array_deleter, default_deleter>;

 public:
  /// The type pointed to (U for T = U[] or U[N]), and the matching weak pointer.
  ///@{
  using element_type = std::remove_extent_t<T>;
  using weak_type = weak_ptr<T>;
  ///@}

  /// Empty: no object, use_count() == 0.
  ///@{
  constexpr shared_ptr() noexcept = default;
  constexpr shared_ptr(std::nullptr_t) noexcept {}
  ///@}

  /// Owns `p`, deleted with `delete` (`delete[]` for T = U[] or U[N]). Throws std::bad_alloc (or
  /// what the allocator throws), after deleting `p`.
  template <class Y, if_adoptable<Y> = 0>
  explicit shared_ptr(Y* p) : shared_ptr(p, default_delete_for(), detail::default_allocator()) {}
  /// Not a constructor, as the one above is not for such a Y (is_constructible says false); deleted,
  /// the error names the line below instead of listing every constructor.
  template <class Y, if_not_adoptable<Y> = 0>
  explicit shared_ptr(Y*) = delete;  // own: Y* does not convert to T* (for T = U[]: Y is not U), or p cannot be deleted

  /// Owns `p`, destroyed by `d(p)` (D is moved into the block). If allocation throws, `d(p)` is called.
  template <class Y, class D, if_adoptable_with<Y, D> = 0>
  shared_ptr(Y* p, D d) : shared_ptr(p, std::move(d), detail::default_allocator()) {}
  /// Not a constructor: a `d` that cannot be called as d(p) or moved is no deleter, and std takes the
  /// constructor out of overload resolution (is_constructible says false). Deleted, the error names
  /// the line below instead of listing every constructor.
  ///@{
  template <class Y, class D, if_no_deleter_for<Y, D> = 0>
  shared_ptr(Y*, D) = delete;  // own: d(p) is ill-formed for this deleter and pointer, or D cannot be moved
  template <class Y, class D, class A, if_no_deleter_for<Y, D> = 0>
  shared_ptr(Y*, D, A) = delete;  // own: d(p) is ill-formed for this deleter and pointer, or D cannot be moved
  ///@}
  /// shared_ptr<T>(p, &pool) would take &pool for the deleter, which a pool or memory resource can never
  /// be: said in one error, rather than as a failed overload resolution.
  template <class Y, class Source, std::enable_if_t<detail::is_memory_source_v<Source>, int> = 0>
  shared_ptr(Y*, Source*) {
    static_assert(sizeof(Source) == 0,
                  "own: shared_ptr<T>(p, &pool) has no deleter; pass one before the pool: "
                  "shared_ptr<T>(p, own::default_deleter(), &pool)");
  }
  /// The nullptr_t forms check d(nullptr) in a trailing parameter, not in the template's parameter
  /// list: with a Y* argument, deduction fails on its conversion to nullptr_t first (CWG 1391) and
  /// the check is never made. Made in the template's parameter list, it would call a generic lambda
  /// `[](auto q) { delete q; }` with a nullptr_t even for shared_ptr(new int, del): an error in the
  /// lambda's body, not a failed constraint. A literal 0 still converts to nullptr_t.
  template <class D>
  shared_ptr(std::nullptr_t p, D d, detail::if_deleter_for_t<D, std::nullptr_t> = nullptr)
      : shared_ptr(p, std::move(d), detail::default_allocator()) {}

  /// N1851: as above, and the control block is allocated from (a copy of) `a`, which it keeps to
  /// free itself. `a` may be an Allocator, a std::pmr::memory_resource* or an own pool pointer.
  ///@{
  template <class Y, class D, class A, if_adoptable_with<Y, D> = 0>
  shared_ptr(Y* p, D d, A a) : ptr_(p), block_(detail::make_pointer_block(p, d, detail::adapt_allocator(a))) {
    enable_shared_from_this_hook(p);
  }
  template <class D, class A>
  shared_ptr(std::nullptr_t p, D d, A a, detail::if_deleter_for_t<D, std::nullptr_t> = nullptr)
      : block_(detail::make_pointer_block(p, d, detail::adapt_allocator(a))) {}
  ///@}

  /// Aliasing: shares ownership with `r` and points at `p` (which `r`'s object usually contains).
  template <class Y>
  shared_ptr(const shared_ptr<Y>& r, element_type* p) noexcept : ptr_(p), block_(r.block_) {
    if (block_) block_->add_shared();
  }
#if __cplusplus >= 202002L
  /// C++20's moving form (in C++17 std has none, and std::move(r) there copies: so does own's).
  template <class Y>
  shared_ptr(shared_ptr<Y>&& r, element_type* p) noexcept : shared_ptr(std::move(r), p, moving_alias) {}
#endif

  /// Copies share r's ownership; moves take it, leaving r empty.
  ///@{
  shared_ptr(const shared_ptr& r) noexcept : ptr_(r.ptr_), block_(r.block_) {
    if (block_) block_->add_shared();
  }
  template <class Y, if_compatible<Y> = 0>
  shared_ptr(const shared_ptr<Y>& r) noexcept : ptr_(r.ptr_), block_(r.block_) {
    if (block_) block_->add_shared();
  }
  shared_ptr(shared_ptr&& r) noexcept : ptr_(std::exchange(r.ptr_, nullptr)), block_(std::exchange(r.block_, nullptr)) {}
  template <class Y, if_compatible<Y> = 0>
  shared_ptr(shared_ptr<Y>&& r) noexcept : ptr_(std::exchange(r.ptr_, nullptr)), block_(std::exchange(r.block_, nullptr)) {}

  ///@}

  /// Throws std::bad_weak_ptr if `r` has expired. The pointer is converted only once the object is
  /// known to live: converting to a virtual base reads the object.
  template <class Y, if_compatible<Y> = 0>
  explicit shared_ptr(const weak_ptr<Y>& r) : block_(r.block_) {
    if (!block_ || !block_->try_add_shared()) detail::throw_exception<std::bad_weak_ptr>();
    ptr_ = r.ptr_;
  }

  /// Shares ownership with a std::shared_ptr, as one more of its owners (for pointers received from
  /// code written against std). If `r` came from own::to_std, the own block it holds comes back (no
  /// allocation, owner-equivalent to the original); otherwise one block from the default heap holds
  /// `r`'s reference, and use_count() counts the own::shared_ptrs sharing that block (r's own
  /// use_count() counts the block as one owner). An `r` with no owner gives an own::shared_ptr with
  /// none, pointing where `r` does. Throws std::bad_alloc; `r` is then unchanged.
  ///@{
  template <class Y, if_compatible<Y> = 0>
  explicit shared_ptr(const std::shared_ptr<Y>& r) : shared_ptr(detail::shared_from_std<T>(r)) {}
  template <class Y, if_compatible<Y> = 0>
  explicit shared_ptr(std::shared_ptr<Y>&& r) : shared_ptr(detail::shared_from_std<T>(r)) {
    r.reset();
  }

  ///@}

  /// Takes `r`'s object; an empty `r` gives an empty shared_ptr. If allocation throws, `r` keeps it.
  template <class Y, class D, if_unique_convertible<Y, D> = 0>
  shared_ptr(std::unique_ptr<Y, D>&& r) : shared_ptr(std::move(r), detail::default_allocator()) {}
  /// N1851's auto_ptr-with-allocator, for unique_ptr: the block comes from `a`.
  template <class Y, class D, class A, if_unique_convertible<Y, D> = 0>
  shared_ptr(std::unique_ptr<Y, D>&& r, A a) {
    if (!r) return;
    using pointer = typename std::unique_ptr<Y, D>::pointer;
    using stored_deleter = std::remove_reference_t<decltype(deleter_to_store(r))>;
    using block = detail::pointer_block<pointer, stored_deleter, detail::adapted_allocator_t<A>>;
    auto&& alloc = detail::adapt_allocator(a);
    block_ = detail::new_block<block>(alloc, r.get(), deleter_to_store(r), alloc);
    pointer p = r.release();
    ptr_ = p;  // the constraint: `pointer` converts to element_type*
    // enable_shared_from_this is looked up on what r.release() points to, as std's "equivalent to
    // shared_ptr(r.release(), d)" does: Y, or for a raw `pointer` its pointee (a deleter's
    // pointer may name a derived class; unique_ptr<U[]>'s is U*), which may have the base where T
    // has none. It is hooked through the raw address that `pointer`, raw or fancy, holds (std's
    // to_address(r.get())). Only a type with the base asks for that address: other fancy pointers
    // need no operator->.
    using released = std::conditional_t<std::is_pointer_v<pointer>, std::remove_pointer_t<pointer>, Y>;
    if constexpr (!std::is_void_v<detail::shared_from_this_target_t<released>>) {
      enable_shared_from_this_hook(detail::to_raw_pointer(p));
    }
  }

  /// From a managed_ptr (defined in <own/managed_ptr.hpp>). One that came from a shared_ptr gives
  /// its control block back: no allocation, no atomic operation. Any other takes one allocation
  /// (from `a`, if given) to house it; if that throws, `r` is unchanged.
  ///@{
  template <class Y, if_compatible<Y> = 0>
  shared_ptr(managed_ptr<Y>&& r) : shared_ptr(detail::shared_from_managed<T>(std::move(r), detail::default_allocator())) {}
  template <class Y, class A, if_compatible<Y> = 0>
  shared_ptr(managed_ptr<Y>&& r, A a) : shared_ptr(detail::shared_from_managed<T>(std::move(r), a)) {}
  ///@}

  ~shared_ptr() {
    if (block_) block_->release_shared();
  }

  /// As the constructors, then swap: the old object is released last.
  ///@{
  shared_ptr& operator=(const shared_ptr& r) noexcept {
    shared_ptr(r).swap(*this);
    return *this;
  }
  template <class Y, if_compatible<Y> = 0>
  shared_ptr& operator=(const shared_ptr<Y>& r) noexcept {
    shared_ptr(r).swap(*this);
    return *this;
  }
  shared_ptr& operator=(shared_ptr&& r) noexcept {
    shared_ptr(std::move(r)).swap(*this);
    return *this;
  }
  template <class Y, if_compatible<Y> = 0>
  shared_ptr& operator=(shared_ptr<Y>&& r) noexcept {
    shared_ptr(std::move(r)).swap(*this);
    return *this;
  }
  template <class Y, class D, if_unique_convertible<Y, D> = 0>
  shared_ptr& operator=(std::unique_ptr<Y, D>&& r) {
    shared_ptr(std::move(r)).swap(*this);
    return *this;
  }
  template <class Y, if_compatible<Y> = 0>
  shared_ptr& operator=(managed_ptr<Y>&& r) {
    shared_ptr(std::move(r)).swap(*this);
    return *this;
  }

  ///@}

  /// Exchanges the pointers and owners.
  void swap(shared_ptr& r) noexcept {
    std::swap(ptr_, r.ptr_);
    std::swap(block_, r.block_);
  }

  /// Each reset(args...) is shared_ptr(args...).swap(*this): the old object is released last, so a
  /// destructor that touches this very pointer sees it already updated.
  ///@{
  void reset() noexcept { shared_ptr().swap(*this); }
  // std gives reset(p) no Constraints of its own; like libstdc++ and libc++, own takes it out of
  // overload resolution only for a pointer that does not convert, so that a query such as
  // decltype(q.reset(p)) for a void* into shared_ptr<const void> says yes, as theirs do. A pointer
  // that converts but cannot be deleted is refused by the constructor the body names.
  template <class Y, std::enable_if_t<detail::accepts_raw_v<Y, T>, int> = 0>
  void reset(Y* p) {
    shared_ptr(p).swap(*this);
  }
  template <class Y, std::enable_if_t<!detail::accepts_raw_v<Y, T>, int> = 0>
  void reset(Y*) = delete;  // own: Y* does not convert to T* (for T = U[]: Y is not U)
  template <class Y, class D, if_adoptable_with<Y, D> = 0>
  void reset(Y* p, D d) {
    shared_ptr(p, std::move(d)).swap(*this);
  }
  template <class Y, class D, class A, if_adoptable_with<Y, D> = 0>
  void reset(Y* p, D d, A a) {
    shared_ptr(p, std::move(d), std::move(a)).swap(*this);
  }
  template <class Y, class D, class A, if_unique_convertible<Y, D> = 0>
  void reset(std::unique_ptr<Y, D>&& r, A a) {
    shared_ptr(std::move(r), std::move(a)).swap(*this);
  }
  ///@}

  /// N1851 aliasing reset.
  ///@{
  template <class Y>
  void reset(const shared_ptr<Y>& r, element_type* p) noexcept {
    shared_ptr(r, p).swap(*this);
  }
  template <class Y>
  void reset(shared_ptr<Y>&& r, element_type* p) noexcept {
    shared_ptr(std::move(r), p, moving_alias).swap(*this);
  }

  ///@}

  /// The stored pointer.
  element_type* get() const noexcept { return ptr_; }

  ///@{
  /// Precondition: get() != nullptr (checked in OWN_CHECKED mode).
  template <class U = T, std::enable_if_t<!std::is_array_v<U>, int> = 0>
  std::add_lvalue_reference_t<U> operator*() const noexcept {
    OWN_CHECK(ptr_ != nullptr, "dereferencing an empty own::shared_ptr");
    return *ptr_;
  }
  template <class U = T, std::enable_if_t<!std::is_array_v<U>, int> = 0>
  element_type* operator->() const noexcept {
    OWN_CHECK(ptr_ != nullptr, "dereferencing an empty own::shared_ptr (operator->)");
    return ptr_;
  }
  ///@}
  /// Precondition: get() != nullptr and, for T = U[N], 0 <= i < N (checked in OWN_CHECKED mode).
  template <class U = T, std::enable_if_t<std::is_array_v<U>, int> = 0>
  std::remove_extent_t<U>& operator[](std::ptrdiff_t i) const noexcept {
    OWN_CHECK(ptr_ != nullptr, "indexing an empty own::shared_ptr");
    if constexpr (std::extent_v<U> != 0) {
      OWN_CHECK(i >= 0 && static_cast<std::size_t>(i) < std::extent_v<U>,
                "own::shared_ptr<T[%zu]>: index %td out of range", std::extent_v<U>, i);
    }
    return ptr_[i];
  }

  /// The number of shared_ptrs owning the object (0 if empty); unique(): whether it is 1 (C++17's,
  /// removed by C++20; kept there, deprecated, as libstdc++ keeps it, so that code that calls it
  /// still compiles when std:: becomes own::).
  /// One relaxed load of the count, and one of a global; while some thread's atomic_shared_ptr load
  /// proxy is in use (from the thread's first arming of it until the thread has exited and the
  /// last copy loaded through it is gone), also a read of each such proxy (a line per thread that
  /// has had one), which may hold users of this object (see atomic_shared_ptr.hpp).
  ///@{
  long use_count() const noexcept { return block_ ? detail::load_proxy::users_of(detail::load_proxy::owner_of(block_)) : 0; }
#if __cplusplus >= 202002L
  [[deprecated("removed from std::shared_ptr in C++20: use use_count() == 1")]]
#endif
  bool unique() const noexcept { return use_count() == 1; }
  ///@}
  /// Whether get() is not null.
  explicit operator bool() const noexcept { return ptr_ != nullptr; }

 private:
  template <class>
  friend class shared_ptr;
  template <class>
  friend class weak_ptr;
  friend struct detail::shared_access;

  // What shared_ptr(unique_ptr<Y, D>&&) stores: r's deleter moved, or for a reference D, std's
  // ref(r.get_deleter()) (of a reference_wrapper, that same wrapper, not one wrapping it).
  template <class Y, class D>
  static decltype(auto) deleter_to_store(std::unique_ptr<Y, D>& r) noexcept {
    if constexpr (std::is_reference_v<D>) {
      return std::ref(r.get_deleter());
    } else {
      return std::move(r.get_deleter());
    }
  }

  struct moving_alias_t {};
  static constexpr moving_alias_t moving_alias{};
  template <class Y>
  shared_ptr(shared_ptr<Y>&& r, element_type* p, moving_alias_t) noexcept : ptr_(p), block_(std::exchange(r.block_, nullptr)) {
    r.ptr_ = nullptr;
  }

  /// Points a fresh object's enable_shared_from_this base, if it has one, at this owner. Never for
  /// an owner of an array (T = U[] or U[N]): std enables shared_from_this only "when T is not an
  /// array type", so the elements of a shared_ptr<U[]> stay unowned as far as they can tell.
  template <class Y>
  void enable_shared_from_this_hook(Y* p) noexcept {
    using target = detail::shared_from_this_target_t<Y>;
    if constexpr (!std::is_void_v<target> && !std::is_array_v<T>) {
      if (p != nullptr) {
        // As std words it, through const_cast<remove_cv_t<Y>*>(p): a volatile Y is enabled too.
        auto* object = const_cast<std::remove_cv_t<Y>*>(p);
        const enable_shared_from_this<target>* base = object;
        if (base->weak_this_.expired()) base->weak_this_.assign(static_cast<target*>(object), block_);
      }
    }
  }

  element_type* ptr_ = nullptr;
  detail::control_block* block_ = nullptr;
};

/// Deduction guides, as std::shared_ptr's.
///@{
template <class T>
shared_ptr(weak_ptr<T>) -> shared_ptr<T>;
template <class T, class D>
shared_ptr(std::unique_ptr<T, D>) -> shared_ptr<T>;
///@}

// -----------------------------------------------------------------------------------------------
// weak_ptr

/// Observes an object owned by shared_ptrs without owning it, as std::weak_ptr.
template <class T>
class weak_ptr : public detail::bases::owner_observers<weak_ptr<T>> {
  template <class Y>
  using if_compatible = std::enable_if_t<detail::is_compatible_v<Y, T>, int>;

 public:
  /// The type pointed to.
  using element_type = std::remove_extent_t<T>;

  /// Empty, or observing r's object; moves leave r empty.
  ///@{
  constexpr weak_ptr() noexcept = default;
  template <class Y, if_compatible<Y> = 0>
  weak_ptr(const shared_ptr<Y>& r) noexcept : ptr_(r.ptr_), block_(detail::load_proxy::owner_of(r.block_)) {
    if (block_) block_->add_weak();
  }
  weak_ptr(const weak_ptr& r) noexcept : ptr_(r.ptr_), block_(r.block_) {
    if (block_) block_->add_weak();
  }
  template <class Y, if_compatible<Y> = 0>
  weak_ptr(const weak_ptr<Y>& r) noexcept : ptr_(upcast(r)), block_(r.block_) {
    if (block_) block_->add_weak();
  }
  weak_ptr(weak_ptr&& r) noexcept : ptr_(std::exchange(r.ptr_, nullptr)), block_(std::exchange(r.block_, nullptr)) {}
  template <class Y, if_compatible<Y> = 0>
  weak_ptr(weak_ptr<Y>&& r) noexcept : ptr_(upcast(r)), block_(std::exchange(r.block_, nullptr)) {
    r.ptr_ = nullptr;
  }
  ///@}

  ~weak_ptr() {
    if (block_) block_->release_weak();
  }

  /// As the constructors, then swap.
  ///@{
  weak_ptr& operator=(const weak_ptr& r) noexcept {
    weak_ptr(r).swap(*this);
    return *this;
  }
  template <class Y, if_compatible<Y> = 0>
  weak_ptr& operator=(const weak_ptr<Y>& r) noexcept {
    weak_ptr(r).swap(*this);
    return *this;
  }
  template <class Y, if_compatible<Y> = 0>
  weak_ptr& operator=(const shared_ptr<Y>& r) noexcept {
    weak_ptr(r).swap(*this);
    return *this;
  }
  weak_ptr& operator=(weak_ptr&& r) noexcept {
    weak_ptr(std::move(r)).swap(*this);
    return *this;
  }
  template <class Y, if_compatible<Y> = 0>
  weak_ptr& operator=(weak_ptr<Y>&& r) noexcept {
    weak_ptr(std::move(r)).swap(*this);
    return *this;
  }

  ///@}

  /// Exchanges the pointers and owners.
  void swap(weak_ptr& r) noexcept {
    std::swap(ptr_, r.ptr_);
    std::swap(block_, r.block_);
  }
  /// Empties this pointer.
  void reset() noexcept { weak_ptr().swap(*this); }

  /// The number of shared_ptrs owning the object, and whether it is 0 (the object is gone).
  ///@{
  long use_count() const noexcept { return block_ ? detail::load_proxy::users_of(block_) : 0; }
  bool expired() const noexcept { return !block_ || block_->expired(); }
  ///@}
  /// An owner of the object, or an empty shared_ptr if it is gone. Never throws.
  shared_ptr<T> lock() const noexcept {
    if (block_ && block_->try_add_shared()) return detail::shared_access::adopt<T>(ptr_, block_);
    return shared_ptr<T>();
  }

 private:
  template <class>
  friend class shared_ptr;
  template <class>
  friend class weak_ptr;
  template <class>
  friend class enable_shared_from_this;
  friend struct detail::shared_access;

  /// Y* to T* through a virtual base reads the object, which may be gone: convert only while it lives.
  template <class Y>
  static element_type* upcast(const weak_ptr<Y>& r) noexcept {
    if constexpr (detail::upcast_needs_object_v<Y, element_type>) {
      return r.lock().get();
    } else {
      return r.ptr_;
    }
  }

  /// Becomes a weak reference to `block` pointing at `p`.
  void assign(element_type* p, detail::control_block* block) noexcept {
    block->add_weak();
    if (block_) block_->release_weak();
    ptr_ = p;
    block_ = block;
  }

  element_type* ptr_ = nullptr;
  detail::control_block* block_ = nullptr;
};

/// Deduction guide, as std::weak_ptr's.
template <class T>
weak_ptr(shared_ptr<T>) -> weak_ptr<T>;

/// a.swap(b).
template <class T>
void swap(shared_ptr<T>& a, shared_ptr<T>& b) noexcept {
  a.swap(b);
}
/// a.swap(b).
template <class T>
void swap(weak_ptr<T>& a, weak_ptr<T>& b) noexcept {
  a.swap(b);
}

// -----------------------------------------------------------------------------------------------
// enable_shared_from_this

/// A base that lets an object owned by shared_ptrs make more of them from `this`, as
/// std::enable_shared_from_this.
template <class T>
class enable_shared_from_this {
 protected:
  /// Copying copies no owner: the copy is a new object, not yet owned.
  ///@{
  constexpr enable_shared_from_this() noexcept {}
  enable_shared_from_this(const enable_shared_from_this&) noexcept {}
  enable_shared_from_this& operator=(const enable_shared_from_this&) noexcept { return *this; }
  ~enable_shared_from_this() = default;
  ///@}

 public:
  /// A shared_ptr sharing ownership of *this.
  ///@{
  /// Throws std::bad_weak_ptr if no shared_ptr owns *this.
  shared_ptr<T> shared_from_this() { return shared_ptr<T>(weak_this_); }
  shared_ptr<const T> shared_from_this() const { return shared_ptr<const T>(weak_this_); }
  ///@}
  /// A weak_ptr to *this: empty if no shared_ptr owns it.
  ///@{
  weak_ptr<T> weak_from_this() noexcept { return weak_this_; }
  weak_ptr<const T> weak_from_this() const noexcept { return weak_this_; }
  ///@}

 private:
  template <class>
  friend class shared_ptr;
  friend struct detail::shared_access;
  mutable weak_ptr<T> weak_this_{};
};

template <class Y>
void detail::shared_access::forget_shared_from_this([[maybe_unused]] Y& object) noexcept {
  using target = shared_from_this_target_t<Y>;
  if constexpr (!std::is_void_v<target>) {
    const enable_shared_from_this<target>& base = object;
    if (base.weak_this_.expired()) base.weak_this_.reset();
  }
}

// -----------------------------------------------------------------------------------------------
// Housed objects and arrays

namespace detail {

// `Header`: the block's base class (see inplace_block).
template <class T, construct_with How, class Header = control_block, class A, class... Args>
shared_ptr<T> make_housed(const A& a, Args&&... args) {
  using block = inplace_block<T, A, How, Header>;
  block* b = detail::new_block<block>(a, a, std::forward<Args>(args)...);
  return shared_access::adopt_owner_of<T>(b->object(), b);
}

// `u` (an element, perhaps itself an array) as a flat run of innermost elements.
template <class T>
const std::remove_all_extents_t<T>* flat_begin(const T& u) noexcept {
  if constexpr (std::is_array_v<T>) {
    return detail::flat_begin(u[0]);
  } else {
    return std::addressof(u);  // an element type may overload or delete unary operator&
  }
}

// `n` elements of T = U[] or U[N], each initialised from `*u` if given, else value-initialised.
// Whether `u` is given is its type (std::nullptr_t when not), never a run-time test: the elements'
// copy constructor is instantiated only where they are copied (std::mutex[] has none).
// `Header`: the block's base class (see inplace_block).
template <class T, construct_with How, class Header = control_block, class A, class Item = std::nullptr_t>
shared_ptr<T> make_housed_array(const A& a, std::size_t n, const Item* u = nullptr) {
  using item = std::remove_extent_t<T>;
  using element = std::remove_cv_t<std::remove_all_extents_t<T>>;
  constexpr std::size_t per_item = sizeof(item) / sizeof(element);
  using block = array_block<element, A, How, std::extent_v<T> * per_item, Header>;
  if (n > std::size_t(-1) / per_item) detail::throw_exception<std::bad_array_new_length>();
  block* b = nullptr;
  if constexpr (std::is_null_pointer_v<Item>) {
    b = block::make(a, n * per_item);
  } else {
    b = block::make(a, n * per_item, detail::flat_begin(*u), per_item);
  }
  return shared_access::adopt<T>(static_cast<item*>(static_cast<void*>(b->elements())), b);
}

template <class T>
inline constexpr bool is_unbounded_array_v = std::is_array_v<T> && std::extent_v<T> == 0;
template <class T>
inline constexpr bool is_bounded_array_v = std::is_array_v<T> && std::extent_v<T> != 0;

template <class T>
using if_object = std::enable_if_t<!std::is_array_v<T>, int>;
template <class T>
using if_unbounded = std::enable_if_t<is_unbounded_array_v<T>, int>;
template <class T>
using if_bounded = std::enable_if_t<is_bounded_array_v<T>, int>;

}  // namespace detail

/// std::make_shared: one allocation, the object constructed from `args`. Strong guarantee.
template <class T, class... Args, detail::if_object<T> = 0>
shared_ptr<T> make_shared(Args&&... args) {
  return detail::make_housed<T, detail::construct_with::placement>(detail::default_allocator(), std::forward<Args>(args)...);
}
/// U[]: `n` value-initialised elements (copies of `u`, if given); U[N]: the same, N elements.
///@{
template <class T, detail::if_unbounded<T> = 0>
shared_ptr<T> make_shared(std::size_t n) {
  return detail::make_housed_array<T, detail::construct_with::placement>(detail::default_allocator(), n);
}
template <class T, detail::if_bounded<T> = 0>
shared_ptr<T> make_shared() {
  return detail::make_housed_array<T, detail::construct_with::placement>(detail::default_allocator(), std::extent_v<T>);
}
template <class T, detail::if_unbounded<T> = 0>
shared_ptr<T> make_shared(std::size_t n, const std::remove_extent_t<T>& u) {
  return detail::make_housed_array<T, detail::construct_with::placement>(detail::default_allocator(), n, std::addressof(u));
}
template <class T, detail::if_bounded<T> = 0>
shared_ptr<T> make_shared(const std::remove_extent_t<T>& u) {
  return detail::make_housed_array<T, detail::construct_with::placement>(detail::default_allocator(), std::extent_v<T>, std::addressof(u));
}

///@}

/// std::allocate_shared: as make_shared, with memory from `a` and construction through it.
///@{
template <class T, class A, class... Args, detail::if_object<T> = 0>
shared_ptr<T> allocate_shared(const A& a, Args&&... args) {
  return detail::make_housed<T, detail::construct_with::allocator>(detail::adapt_allocator(a), std::forward<Args>(args)...);
}
template <class T, class A, detail::if_unbounded<T> = 0>
shared_ptr<T> allocate_shared(const A& a, std::size_t n) {
  return detail::make_housed_array<T, detail::construct_with::allocator>(detail::adapt_allocator(a), n);
}
template <class T, class A, detail::if_bounded<T> = 0>
shared_ptr<T> allocate_shared(const A& a) {
  return detail::make_housed_array<T, detail::construct_with::allocator>(detail::adapt_allocator(a), std::extent_v<T>);
}
template <class T, class A, detail::if_unbounded<T> = 0>
shared_ptr<T> allocate_shared(const A& a, std::size_t n, const std::remove_extent_t<T>& u) {
  return detail::make_housed_array<T, detail::construct_with::allocator>(detail::adapt_allocator(a), n, std::addressof(u));
}
template <class T, class A, detail::if_bounded<T> = 0>
shared_ptr<T> allocate_shared(const A& a, const std::remove_extent_t<T>& u) {
  return detail::make_housed_array<T, detail::construct_with::allocator>(detail::adapt_allocator(a), std::extent_v<T>, std::addressof(u));
}

///@}

/// The _for_overwrite forms default-initialise: trivial types are left uninitialised, never zeroed.
///@{
template <class T, class A, std::enable_if_t<!detail::is_unbounded_array_v<T>, int> = 0>
shared_ptr<T> allocate_shared_for_overwrite(const A& a) {
  if constexpr (std::is_array_v<T>) {
    return detail::make_housed_array<T, detail::construct_with::default_init>(detail::adapt_allocator(a), std::extent_v<T>);
  } else {
    return detail::make_housed<T, detail::construct_with::default_init>(detail::adapt_allocator(a));
  }
}
template <class T, class A, detail::if_unbounded<T> = 0>
shared_ptr<T> allocate_shared_for_overwrite(const A& a, std::size_t n) {
  return detail::make_housed_array<T, detail::construct_with::default_init>(detail::adapt_allocator(a), n);
}
template <class T, std::enable_if_t<!detail::is_unbounded_array_v<T>, int> = 0>
shared_ptr<T> make_shared_for_overwrite() {
  return own::allocate_shared_for_overwrite<T>(detail::default_allocator());
}
template <class T, detail::if_unbounded<T> = 0>
shared_ptr<T> make_shared_for_overwrite(std::size_t n) {
  return own::allocate_shared_for_overwrite<T>(detail::default_allocator(), n);
}

///@}

/// N1851 names. make_shared_object / _with_alloc: an object housed in the block (make_shared /
/// allocate_shared). make_shared_array / _with_alloc: `n` value-initialised X housed in the block.
///@{
template <class X, class... Args>
shared_ptr<X> make_shared_object(Args&&... args) {
  return own::make_shared<X>(std::forward<Args>(args)...);
}
template <class X, class A, class... Args>
shared_ptr<X> make_shared_object_with_alloc(const A& a, Args&&... args) {
  return own::allocate_shared<X>(a, std::forward<Args>(args)...);
}
///@}
/// The bytes allocate_shared<T>(a, ...), make_shared_object_with_alloc<T>(a, ...) and
/// allocate_managed<T>(a, ...) ask `a` for, in their one block (T an object type; `A` as it is passed:
/// an Allocator, a std::pmr::memory_resource*, a pool pointer): the block size of a pool made to serve
/// exactly those. With the default, the default heap, make_shared's request. A T aligned beyond
/// alignof(std::max_align_t) also needs pool_options::alignment = alignof(T): a pool's blocks are
/// aligned as its options say, and a request they cannot serve goes upstream.
template <class T, class A = detail::default_allocator>
inline constexpr std::size_t housed_block_size =
    sizeof(detail::inplace_block<T, detail::adapted_allocator_t<A>, detail::construct_with::allocator>);

/// N1851: `n` value-initialised X housed in the block, from the default heap or from `a`.
///@{
template <class X>
shared_ptr<X[]> make_shared_array(std::size_t n) {
  return own::make_shared<X[]>(n);
}
template <class X, class A>
shared_ptr<X[]> make_shared_array_with_alloc(const A& a, std::size_t n) {
  return own::allocate_shared<X[]>(a, n);
}

///@}

// -----------------------------------------------------------------------------------------------
// Casts: the result shares ownership with `r`.

/// The casts of std::shared_ptr: the result shares ownership with `r`.
///@{
template <class T, class U>
shared_ptr<T> static_pointer_cast(const shared_ptr<U>& r) noexcept {
  return shared_ptr<T>(r, static_cast<typename shared_ptr<T>::element_type*>(r.get()));
}
template <class T, class U>
shared_ptr<T> const_pointer_cast(const shared_ptr<U>& r) noexcept {
  return shared_ptr<T>(r, const_cast<typename shared_ptr<T>::element_type*>(r.get()));
}
template <class T, class U>
shared_ptr<T> reinterpret_pointer_cast(const shared_ptr<U>& r) noexcept {
  return shared_ptr<T>(r, reinterpret_cast<typename shared_ptr<T>::element_type*>(r.get()));
}
/// An empty result if the cast fails.
template <class T, class U>
shared_ptr<T> dynamic_pointer_cast(const shared_ptr<U>& r) noexcept {
  if (auto* p = dynamic_cast<typename shared_ptr<T>::element_type*>(r.get())) return shared_ptr<T>(r, p);
  return shared_ptr<T>();
}

#if __cplusplus >= 202002L
/// C++20's rvalue forms move `r`'s reference (a failed dynamic cast leaves `r` as it was). C++17 std
/// has none, and there `std::move(r)` picks the copying forms above, as it does for own.
template <class T, class U>
shared_ptr<T> static_pointer_cast(shared_ptr<U>&& r) noexcept {
  auto* p = static_cast<typename shared_ptr<T>::element_type*>(r.get());
  return shared_ptr<T>(std::move(r), p);
}
template <class T, class U>
shared_ptr<T> const_pointer_cast(shared_ptr<U>&& r) noexcept {
  auto* p = const_cast<typename shared_ptr<T>::element_type*>(r.get());
  return shared_ptr<T>(std::move(r), p);
}
template <class T, class U>
shared_ptr<T> reinterpret_pointer_cast(shared_ptr<U>&& r) noexcept {
  auto* p = reinterpret_cast<typename shared_ptr<T>::element_type*>(r.get());
  return shared_ptr<T>(std::move(r), p);
}
template <class T, class U>
shared_ptr<T> dynamic_pointer_cast(shared_ptr<U>&& r) noexcept {
  if (auto* p = dynamic_cast<typename shared_ptr<T>::element_type*>(r.get())) return shared_ptr<T>(std::move(r), p);
  return shared_ptr<T>();
}
#endif

///@}

/// The deleter `p` was created with, if it is a D; else nullptr.
template <class D, class T>
D* get_deleter(const shared_ptr<T>& p) noexcept {
  detail::control_block* block = detail::shared_access::block(p);
  return block ? static_cast<D*>(block->get_deleter(detail::type_key::of<D>())) : nullptr;
}

// -----------------------------------------------------------------------------------------------
// Interoperation with std::shared_ptr: shared_ptr(const std::shared_ptr<Y>&) above, to_std below.

namespace detail {

// The deleter of an own block that holds a std::shared_ptr's reference, and of a std control block
// that holds an own::shared_ptr's: disposing of the object drops that reference (at once, not when
// the block itself goes, which weak_ptrs may delay). Found again by get_deleter for the round trips.
template <class Owner>
struct foreign_owner {
  Owner owner;
  void operator()(const volatile void*) noexcept { owner.reset(); }
};
// Named through T, a dependent name: spelled out plainly, every file including this header would
// instantiate both pointers to const volatile void (about 4% of the header's compile time).
template <class Owner, class>
struct deferred_type {
  using type = Owner;
};
template <class T>
using std_owner = typename deferred_type<foreign_owner<std::shared_ptr<const volatile void>>, T>::type;
template <class T>
using own_owner = typename deferred_type<foreign_owner<shared_ptr<const volatile void>>, T>::type;

template <class T, class Y>
shared_ptr<T> shared_from_std(const std::shared_ptr<Y>& r) {
  if (r.use_count() == 0) return shared_ptr<T>(shared_ptr<T>(), r.get());
#if OWN_HAS_RTTI  // (std::get_deleter needs it; without, a round trip makes a new block)
  if (own_owner<T>* held = std::get_deleter<own_owner<T>>(r); held && held->owner) return shared_ptr<T>(held->owner, r.get());
#endif
  return shared_ptr<T>(r.get(), std_owner<T>{r});
}

}  // namespace detail

/// A std::shared_ptr sharing ownership with `p`, for code written against std. If `p` was made from
/// a std::shared_ptr, that pointer's std control block comes back (no allocation, owner-equivalent
/// to the original); otherwise std makes a control block (from own's default heap) that holds one
/// reference to p's block, and std's use_count() counts the std::shared_ptrs sharing it. An empty
/// `p` gives an empty one (pointing where `p` does). Throws std::bad_alloc.
///
/// There is no conversion of weak pointers: a std::weak_ptr can only observe a std control block,
/// and the one to_std makes lives only while a std::shared_ptr holds it. Convert `w.lock()` instead,
/// and keep the weak_ptr of the library whose shared_ptrs own the object.
template <class T>
std::shared_ptr<T> to_std(const shared_ptr<T>& p) {
  if (detail::shared_access::block(p) == nullptr) return std::shared_ptr<T>(std::shared_ptr<T>(), p.get());
  if (detail::std_owner<T>* held = own::get_deleter<detail::std_owner<T>>(p); held && held->owner) {
    return std::shared_ptr<T>(held->owner, p.get());
  }
  return std::shared_ptr<T>(p.get(), detail::own_owner<T>{p}, heap_allocator<char>());
}

// -----------------------------------------------------------------------------------------------
// Comparisons: by get(), like std.

/// Comparisons by get(), and with nullptr, as std::shared_ptr's.
///@{
template <class T, class U>
bool operator==(const shared_ptr<T>& a, const shared_ptr<U>& b) noexcept {
  return a.get() == b.get();
}
template <class T>
bool operator==(const shared_ptr<T>& a, std::nullptr_t) noexcept {
  return !a;
}
#if OWN_THREE_WAY_COMPARISON
template <class T, class U>
std::strong_ordering operator<=>(const shared_ptr<T>& a, const shared_ptr<U>& b) noexcept {
  return std::compare_three_way()(a.get(), b.get());
}
template <class T>
std::strong_ordering operator<=>(const shared_ptr<T>& a, std::nullptr_t) noexcept {
  return std::compare_three_way()(a.get(), static_cast<typename shared_ptr<T>::element_type*>(nullptr));
}
#else
template <class T>
bool operator==(std::nullptr_t, const shared_ptr<T>& a) noexcept {
  return !a;
}
template <class T, class U>
bool operator!=(const shared_ptr<T>& a, const shared_ptr<U>& b) noexcept {
  return a.get() != b.get();
}
template <class T>
bool operator!=(const shared_ptr<T>& a, std::nullptr_t) noexcept {
  return static_cast<bool>(a);
}
template <class T>
bool operator!=(std::nullptr_t, const shared_ptr<T>& a) noexcept {
  return static_cast<bool>(a);
}
template <class T, class U>
bool operator<(const shared_ptr<T>& a, const shared_ptr<U>& b) noexcept {
  return std::less<>()(a.get(), b.get());
}
template <class T, class U>
bool operator>(const shared_ptr<T>& a, const shared_ptr<U>& b) noexcept {
  return b < a;
}
template <class T, class U>
bool operator<=(const shared_ptr<T>& a, const shared_ptr<U>& b) noexcept {
  return !(b < a);
}
template <class T, class U>
bool operator>=(const shared_ptr<T>& a, const shared_ptr<U>& b) noexcept {
  return !(a < b);
}
template <class T>
bool operator<(const shared_ptr<T>& a, std::nullptr_t) noexcept {
  return std::less<typename shared_ptr<T>::element_type*>()(a.get(), nullptr);
}
template <class T>
bool operator<(std::nullptr_t, const shared_ptr<T>& a) noexcept {
  return std::less<typename shared_ptr<T>::element_type*>()(nullptr, a.get());
}
template <class T>
bool operator>(const shared_ptr<T>& a, std::nullptr_t) noexcept {
  return nullptr < a;
}
template <class T>
bool operator>(std::nullptr_t, const shared_ptr<T>& a) noexcept {
  return a < nullptr;
}
template <class T>
bool operator<=(const shared_ptr<T>& a, std::nullptr_t) noexcept {
  return !(nullptr < a);
}
template <class T>
bool operator<=(std::nullptr_t, const shared_ptr<T>& a) noexcept {
  return !(a < nullptr);
}
template <class T>
bool operator>=(const shared_ptr<T>& a, std::nullptr_t) noexcept {
  return !(a < nullptr);
}
template <class T>
bool operator>=(std::nullptr_t, const shared_ptr<T>& a) noexcept {
  return !(nullptr < a);
}
#endif

///@}

/// Writes get().
template <class E, class Traits, class T>
std::basic_ostream<E, Traits>& operator<<(std::basic_ostream<E, Traits>& os, const shared_ptr<T>& p) {
  return os << p.get();
}

/// Boost's get_pointer, found by argument-dependent lookup: generic code (Boost's bind and mem_fn,
/// and binders like them) reaches the raw pointer of any smart pointer through it.
template <class T>
typename shared_ptr<T>::element_type* get_pointer(const shared_ptr<T>& p) noexcept {
  return p.get();
}

/// Boost's hash_value, found by argument-dependent lookup (boost::hash, hash_combine and Boost's
/// unordered containers hash through it): std::hash<shared_ptr<T>>'s value, the hash of get().
template <class T>
std::size_t hash_value(const shared_ptr<T>& p) noexcept {
  return std::hash<typename shared_ptr<T>::element_type*>()(p.get());
}

// -----------------------------------------------------------------------------------------------
// Ownership-based ordering, equality and hashing (owner_less; owner_hash/owner_equal as in C++26).

/// Orders shared_ptrs and weak_ptrs by owner (control block), as std::owner_less.
template <class T = void>
struct owner_less;
/// The specialisations for shared_ptr and weak_ptr have C++17's adaptable-function typedefs
/// (deprecated there, gone from C++20's standard), in both modes, as libstdc++'s have.
template <class T>
struct owner_less<shared_ptr<T>> {
  /// C++17's adaptable-function typedefs, and a.owner_before(b).
  ///@{
  using result_type = bool;
  using first_argument_type = shared_ptr<T>;
  using second_argument_type = shared_ptr<T>;
  bool operator()(const shared_ptr<T>& a, const shared_ptr<T>& b) const noexcept { return a.owner_before(b); }
  bool operator()(const shared_ptr<T>& a, const weak_ptr<T>& b) const noexcept { return a.owner_before(b); }
  bool operator()(const weak_ptr<T>& a, const shared_ptr<T>& b) const noexcept { return a.owner_before(b); }
  ///@}
};
/// As owner_less<shared_ptr<T>>.
template <class T>
struct owner_less<weak_ptr<T>> {
  /// C++17's adaptable-function typedefs, and a.owner_before(b).
  ///@{
  using result_type = bool;
  using first_argument_type = weak_ptr<T>;
  using second_argument_type = weak_ptr<T>;
  bool operator()(const weak_ptr<T>& a, const weak_ptr<T>& b) const noexcept { return a.owner_before(b); }
  bool operator()(const shared_ptr<T>& a, const weak_ptr<T>& b) const noexcept { return a.owner_before(b); }
  bool operator()(const weak_ptr<T>& a, const shared_ptr<T>& b) const noexcept { return a.owner_before(b); }
  ///@}
};
/// For any pair of own and std pointers with owner_before (C++17's owner_less<void>).
template <>
struct owner_less<void> {
  /// Constrained like std's four overloads: only for pairs with owner_before (is_invocable agrees).
  template <class A, class B>
  auto operator()(const A& a, const B& b) const noexcept -> decltype(a.owner_before(b)) {
    return a.owner_before(b);
  }
  /// Marks the comparison as transparent (heterogeneous lookup).
  using is_transparent = void;
};

/// Hashes shared_ptrs and weak_ptrs by owner (C++26's std::owner_hash): p.owner_hash().
struct owner_hash {
  /// p.owner_hash().
  template <class P>
  std::size_t operator()(const P& p) const noexcept {
    return p.owner_hash();
  }
  /// Marks the hash as transparent (heterogeneous lookup).
  using is_transparent = void;
};
/// Compares shared_ptrs and weak_ptrs by owner (C++26's std::owner_equal): a.owner_equal(b).
struct owner_equal {
  /// a.owner_equal(b).
  template <class A, class B>
  bool operator()(const A& a, const B& b) const noexcept {
    return a.owner_equal(b);
  }
  /// Marks the comparison as transparent (heterogeneous lookup).
  using is_transparent = void;
};

}  // namespace own

/// result_type and argument_type: C++17's, deprecated there and gone from C++20's standard; kept in
/// both modes and deprecated, as libstdc++ keeps std's.
template <class T>
struct std::hash<own::shared_ptr<T>> {
  using result_type [[deprecated]] = std::size_t;
  using argument_type [[deprecated]] = own::shared_ptr<T>;
  std::size_t operator()(const own::shared_ptr<T>& p) const noexcept { return own::hash_value(p); }
};

// atomic_load(&p) and the other free functions for atomic access, which std declares in <memory>.
#include "detail/shared_ptr_atomic.hpp"
