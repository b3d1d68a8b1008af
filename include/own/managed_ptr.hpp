// SPDX-License-Identifier: BSL-1.0
/// @file
/// own::managed_ptr: N1851's move-only owning pointer whose manager is not part of its type. One
/// managed_ptr<Base> can hold an object from `new`, from a pool or factory (returned through
/// `reclaim_managed_object(manager, p)`, found by ADL), from a function deleter with a cookie, or
/// from a shared_ptr (holding one reference), and destroys each the right way, as the complete type
/// it was made with. It is the vocabulary type for "I hand you ownership" across interfaces: a
/// function taking managed_ptr<const Item> accepts all of these without templates.
///
/// Round trips with shared_ptr cost nothing extra: shared_ptr -> managed_ptr takes one reference
/// (a relaxed increment, like a copy), and managed_ptr -> shared_ptr gives the same control block
/// back with no allocation and no atomic operation. make_managed / allocate_managed house the
/// object in a control block, so their results convert to shared_ptr for free as well.
///
/// sizeof(managed_ptr) is four pointers: the pointer it shows, and its deleter (the object as made,
/// the manager or cookie, and the function that disposes of them). No constructor allocates.
///
/// Usage:
///
///     struct item { virtual ~item() = default; int id = 0; };
///     struct item_pool { std::vector<item*> free; };
///     void reclaim_managed_object(item_pool* pool, item* p) { pool->free.push_back(p); }
///
///     int process(own::managed_ptr<const item> p) { return p->id; }  // takes any owner
///
///     item_pool pool;
///     item pooled;
///     process(own::managed_ptr<item>(&pooled, &pool));                 // back to the pool after
///     process(own::make_managed<item>());                              // deleted after
///     own::shared_ptr<item> shared = own::make_shared<item>();
///     process(shared);                                                 // one more reference
///     own::managed_ptr<item> m = shared;
///     own::shared_ptr<item> again = std::move(m);                      // the same control block
///     assert(pool.free.size() == 1 && again.owner_equal(shared) && shared.use_count() == 2);
///
/// Note: the (p, cookie, function) form stores `void (*)(Y*, C*)` as `void (*)(void*, void*)` and
/// calls it so, as N1851 and BDE do; that relies on object pointers being passed alike, which holds
/// on every ABI own supports (a sanitizer that checks function types, such as clang's
/// -fsanitize=function, reports it).
#pragma once

#include "detail/cxx17_required.hpp"  // first, so that C++14 gets one error, not hundreds

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

#include "detail/checked.hpp"
#include "detail/managed_block.hpp"
#include "detail/scalar_words.hpp"
#include "detail/std_functional.hpp"
#include "detail/three_way.hpp"
#include "shared_ptr.hpp"

namespace own {

/// How a managed_ptr disposes of its object: `function(object, cookie)`. Returned by
/// managed_ptr::release() so ownership can be resumed or ended later.
class managed_ptr_deleter {
 public:
  /// The disposing function: called as function(object, cookie).
  using function_type = void (*)(void* object, void* cookie);

  /// No object (calling it does nothing), or the given one.
  ///@{
  constexpr managed_ptr_deleter() noexcept = default;
  constexpr managed_ptr_deleter(void* object, void* cookie, function_type fn) noexcept
      : object_(object), cookie_(cookie), function_(fn) {}

  ///@}

  /// The object as made (null: none), the manager or cookie, and the function that disposes of them.
  ///@{
  void* object() const noexcept { return object_; }
  void* cookie() const noexcept { return cookie_; }
  function_type function() const noexcept { return function_; }

  ///@}

  /// Disposes of the object (nothing if there is none).
  void operator()() const noexcept {
    if (object_) function_(object_, cookie_);
  }

 private:
  void* object_ = nullptr;
  void* cookie_ = nullptr;
  function_type function_ = nullptr;
};

namespace detail {

template <class Y>
void* erase_object(Y* p) noexcept {
  return const_cast<void*>(static_cast<const volatile void*>(p));
}

// `inline` matters: where the function is a known constant (a managed_ptr that never left its
// scope), gcc then inlines the disposal instead of calling it.
template <class Y>
inline void delete_object(void* object, void*) noexcept {
  delete static_cast<Y*>(object);
}

template <class Y, class M>
inline void reclaim_object(void* object, void* manager) noexcept {
  reclaim_managed_object(static_cast<M*>(manager), static_cast<Y*>(object));
}

// The function of a managed_ptr that holds a reference on a shared_ptr's control block (the cookie).
inline void release_shared_reference(void*, void* block) noexcept { static_cast<control_block*>(block)->release_shared(); }

// The function of a managed_ptr that shows a pointer and owns nothing (from a shared_ptr with no
// control block, or a deleter that owns nothing): its object word is then the pointer, so that the
// object word alone says whether the managed_ptr is empty.
inline void dispose_nothing(void*, void*) noexcept {}

struct managed_access;

}  // namespace detail

/// A move-only owner whose manager (delete, a pool, a deleter with a cookie, a shared_ptr's
/// control block) is not part of its type (see the file documentation).
template <class T>
class managed_ptr {
  template <class Y>
  using if_convertible = std::enable_if_t<std::is_convertible_v<Y*, T*>, int>;
  template <class Y>
  using if_not_convertible = std::enable_if_t<!std::is_convertible_v<Y*, T*>, int>;

 public:
  /// The type pointed to.
  using element_type = T;

  /// Empty.
  ///@{
  constexpr managed_ptr() noexcept = default;
  constexpr managed_ptr(std::nullptr_t) noexcept {}
  ///@}

  /// Owns `p`, destroyed by `delete p` as a Y (no virtual destructor needed). Y must be a complete
  /// type, not void (checked at compile time, as N1851 requires).
  template <class Y, if_convertible<Y> = 0>
  explicit managed_ptr(Y* p) noexcept {
    static_assert(!std::is_void_v<Y>,
                  "own::managed_ptr(p) cannot delete a void*: give a manager, managed_ptr(p, &manager), or a "
                  "deleter, managed_ptr(p, cookie, function)");
    static_assert(std::is_void_v<Y> || detail::is_complete<Y>::value,
                  "own::managed_ptr(p) cannot delete an incomplete type: define it before this line");
    set(p, detail::erase_object(p), nullptr, &detail::delete_object<Y>);
  }
  /// Not a constructor, as the one above is not for such a Y (is_constructible says false); deleted,
  /// the error names the line below instead of listing every constructor.
  template <class Y, if_not_convertible<Y> = 0>
  explicit managed_ptr(Y*) = delete;  // own: Y* does not convert to T*

  /// Owns `p` for the manager `m`: disposed of by `reclaim_managed_object(m, p)`, found by ADL.
  template <class Y, class M, if_convertible<Y> = 0>
  managed_ptr(Y* p, M* m) noexcept {
    set(p, detail::erase_object(p), detail::erase_object(m), &detail::reclaim_object<Y, M>);
  }

  /// Owns `p`, disposed of by `deleter(p, cookie)`. Precondition: `deleter` is not null unless `p`
  /// is (checked in OWN_CHECKED mode).
  template <class Y, class C, if_convertible<Y> = 0>
  managed_ptr(Y* p, C* cookie, void (*deleter)(Y*, C*)) noexcept {
    OWN_CHECK(deleter != nullptr || p == nullptr, "own::managed_ptr: a null deleter function for a non-null pointer");
    set(p, detail::erase_object(p), detail::erase_object(cookie),
        reinterpret_cast<managed_ptr_deleter::function_type>(deleter));
  }

  /// Resumes ownership given up by release(). With a deleter that has no object, shows `p` and owns
  /// nothing. Precondition: a deleter with an object has a function (checked in OWN_CHECKED mode).
  managed_ptr(T* p, const managed_ptr_deleter& deleter) noexcept {
    OWN_CHECK(deleter.object() == nullptr || deleter.function() != nullptr,
              "own::managed_ptr: a null deleter function for a non-null pointer");
    set_or_show(p, deleter.object(), deleter.cookie(), deleter.function());
  }

  /// Takes r's object (and the pointer r shows, converted); r is empty afterwards.
  ///@{
  managed_ptr(managed_ptr&& r) noexcept { take(r, shown_by(r)); }
  template <class Y, if_convertible<Y> = 0>
  managed_ptr(managed_ptr<Y>&& r) noexcept {
    take(r, shown_by(r));
  }

  ///@}

  /// Aliasing: shows `p` (usually part of r's object) and owns r's object.
  /// Precondition: `r` is not empty, or `p` is null (checked in OWN_CHECKED mode).
  template <class Y>
  managed_ptr(managed_ptr<Y>&& r, T* p) noexcept {
    OWN_CHECK(r.object_ != nullptr || p == nullptr, "aliasing an empty own::managed_ptr with a non-null pointer");
    if (r.object_) {
      take(r, p);
    } else {
      set_or_show(p, nullptr, nullptr, nullptr);  // unchecked builds: as std::shared_ptr's aliasing does
    }
  }

  /// Takes r's object, to be deleted as a Y. Not an array: own::shared_ptr<U[]> owns those.
  template <class Y, if_convertible<Y> = 0>
  managed_ptr(std::unique_ptr<Y>&& r) noexcept : managed_ptr(r.release()) {
    static_assert(!std::is_array_v<Y>, "own::managed_ptr owns no arrays (it would delete, not delete[], them): "
                                        "convert the unique_ptr<U[]> to own::shared_ptr<U[]>");
  }

  ///@{
  /// Shares ownership with `r`: one reference, no allocation.
  template <class Y, if_convertible<Y> = 0>
  managed_ptr(const shared_ptr<Y>& r) noexcept : managed_ptr(shared_ptr<Y>(r)) {}
  template <class Y, if_convertible<Y> = 0>
  managed_ptr(shared_ptr<Y>&& r) noexcept {
    T* const p = r.get();
    // The block is the object (never null, unlike the pointer a shared_ptr may own) and the cookie.
    detail::control_block* const block = detail::shared_access::detach(r);
    set_or_show(p, block, block, &detail::release_shared_reference);
  }

  ///@}

  managed_ptr(const managed_ptr&) = delete;
  managed_ptr& operator=(const managed_ptr&) = delete;

  ~managed_ptr() {
    if (object_) function_(object_, cookie_);
  }

  ///@{
  /// The old object is disposed of last, so its destructor sees this pointer already updated.
  managed_ptr& operator=(managed_ptr&& r) noexcept { return assign(std::move(r)); }
  template <class Y, if_convertible<Y> = 0>
  managed_ptr& operator=(managed_ptr<Y>&& r) noexcept {
    return assign(std::move(r));
  }
  managed_ptr& operator=(std::nullptr_t) noexcept {
    reset();
    return *this;
  }
  template <class Y, if_convertible<Y> = 0>
  managed_ptr& operator=(std::unique_ptr<Y>&& r) noexcept {
    managed_ptr(std::move(r)).swap(*this);
    return *this;
  }

  ///@}

  /// Each reset(args...) is managed_ptr(args...).swap(*this): the old object goes last.
  ///@{
  void reset() noexcept { managed_ptr().swap(*this); }
  template <class Y, if_convertible<Y> = 0>
  void reset(Y* p) noexcept {
    managed_ptr(p).swap(*this);
  }
  template <class Y, if_not_convertible<Y> = 0>
  void reset(Y*) = delete;  // own: Y* does not convert to T*
  template <class Y, class M, if_convertible<Y> = 0>
  void reset(Y* p, M* m) noexcept {
    managed_ptr(p, m).swap(*this);
  }
  template <class Y, class C, if_convertible<Y> = 0>
  void reset(Y* p, C* cookie, void (*deleter)(Y*, C*)) noexcept {
    managed_ptr(p, cookie, deleter).swap(*this);
  }
  template <class Y>
  void reset(managed_ptr<Y>&& r, T* p) noexcept {
    managed_ptr(std::move(r), p).swap(*this);
  }

  ///@}

  /// Exchanges the objects, pointers and managers of *this and r.
  void swap(managed_ptr& r) noexcept {
    std::swap(ptr_, r.ptr_);
    std::swap(object_, r.object_);
    std::swap(cookie_, r.cookie_);
    std::swap(function_, r.function_);
  }

  /// Gives up ownership without destroying: the pointer, and the deleter that disposes of the
  /// object later (call it, or pass both to managed_ptr(p, deleter)). The manager is kept.
  std::pair<T*, managed_ptr_deleter> release() noexcept {
    std::pair<T*, managed_ptr_deleter> result(get(), get_deleter());
    clear();
    return result;
  }

  /// An empty managed_ptr's pointer word is stale (a move clears the object word only), so the
  /// pointer shown is decided by the object word.
  T* get() const noexcept { return object_ ? ptr_ : nullptr; }
  /// What release() would return; empty if this owns nothing (empty, or a pointer shown without an
  /// owner).
  managed_ptr_deleter get_deleter() const noexcept {
    return object_ && function_ != &detail::dispose_nothing ? managed_ptr_deleter(object_, cookie_, function_)
                                                            : managed_ptr_deleter();
  }
  /// Whether get() is not null.
  explicit operator bool() const noexcept { return get() != nullptr; }

  ///@{
  /// Precondition: get() != nullptr (checked in OWN_CHECKED mode). Both go through get(), so that a
  /// moved-from managed_ptr dereferenced by mistake gives null, never the stale pointer word.
  template <class U = T, std::enable_if_t<!std::is_void_v<U>, int> = 0>
  U& operator*() const noexcept {
    OWN_CHECK(get() != nullptr, "dereferencing an empty own::managed_ptr");
    return *get();
  }
  T* operator->() const noexcept {
    OWN_CHECK(get() != nullptr, "dereferencing an empty own::managed_ptr (operator->)");
    return get();
  }
  ///@}

 private:
  template <class>
  friend class managed_ptr;
  friend struct detail::managed_access;

  /// The old object is disposed of after this pointer holds the new one.
  template <class Y>
  managed_ptr& assign(managed_ptr<Y>&& r) noexcept {
    if (static_cast<void*>(&r) == static_cast<void*>(this)) return *this;
    void* old_object = object_;
    void* old_cookie = cookie_;
    managed_ptr_deleter::function_type old_function = function_;
    take(r, shown_by(r));
    if (old_object) old_function(old_object, old_cookie);
    return *this;
  }

  /// r's pointer as a T*. A conversion that cannot change the address (the same type up to cv, or to
  /// void) copies the word as it is (stale if r is empty, and then ignored); any other must not
  /// adjust a stale pointer (through a virtual base it would read the dead object).
  template <class Y>
  static T* shown_by(const managed_ptr<Y>& r) noexcept {
    if constexpr (std::is_same_v<std::remove_cv_t<Y>, std::remove_cv_t<T>> || std::is_void_v<T>) {
      return r.ptr_;
    } else {
      return r.get();
    }
  }

  /// Takes r's object, showing `ptr`. Every word of r is read before any is written, and set() and
  /// clear() pass each through a register of its own: detail/scalar_words.hpp says why a managed_ptr
  /// never writes its words as merged 16-byte stores.
  template <class Y>
  void take(managed_ptr<Y>& r, T* ptr) noexcept {
    void* object = r.object_;
    void* cookie = r.cookie_;
    managed_ptr_deleter::function_type function = r.function_;
    r.clear();
    set(ptr, object, cookie, function);
  }

  void set(T* ptr, void* object, void* cookie, managed_ptr_deleter::function_type function) noexcept {
    detail::scalar_words(ptr, object, cookie, function);
    ptr_ = ptr;
    object_ = object;
    cookie_ = cookie;
    function_ = function;
  }

  /// As set(), except that with no object a non-null `ptr` is shown, owning nothing: the object word
  /// is then the pointer itself, so that it alone says whether this managed_ptr is empty.
  void set_or_show(T* ptr, void* object, void* cookie, managed_ptr_deleter::function_type function) noexcept {
    if (object || !ptr) {
      set(ptr, object, cookie, function);
    } else {
      set(ptr, detail::erase_object(ptr), nullptr, &detail::dispose_nothing);
    }
  }

  /// Empty is no object; the other words are then meaningless and left alone. One store instead of
  /// two (a move assignment is five stores, not six) makes moves between slots in memory, which are
  /// bound by their stores, about a sixth cheaper.
  void clear() noexcept {
    void* no_object = nullptr;
    detail::scalar_words(no_object);
    object_ = no_object;
  }

  T* ptr_ = nullptr;                                      ///< shown only while object_ is not null
  /// The object as made; null when empty. A pointer shown without an owner is its own object word,
  /// with dispose_nothing as the function.
  void* object_ = nullptr;
  void* cookie_ = nullptr;                                ///< the manager, cookie or control block
  managed_ptr_deleter::function_type function_ = nullptr;  ///< disposes of object_
};

/// a.swap(b).
template <class T>
void swap(managed_ptr<T>& a, managed_ptr<T>& b) noexcept {
  a.swap(b);
}

/// As shared_ptr's (Boost's get_pointer, found by argument-dependent lookup).
template <class T>
T* get_pointer(const managed_ptr<T>& p) noexcept {
  return p.get();
}

/// As shared_ptr's (Boost's hash_value, found by argument-dependent lookup): the hash of get().
template <class T>
std::size_t hash_value(const managed_ptr<T>& p) noexcept {
  return std::hash<T*>()(p.get());
}

/// Comparisons of get(), and with nullptr, as std::unique_ptr's (operator<=> in C++20; the
/// relational operators, as std::less orders pointers, before).
///@{
template <class T, class U>
bool operator==(const managed_ptr<T>& a, const managed_ptr<U>& b) noexcept {
  return a.get() == b.get();
}
template <class T>
bool operator==(const managed_ptr<T>& a, std::nullptr_t) noexcept {
  return !a;
}
#if OWN_THREE_WAY_COMPARISON
template <class T, class U>
std::compare_three_way_result_t<T*, U*> operator<=>(const managed_ptr<T>& a, const managed_ptr<U>& b) noexcept {
  return std::compare_three_way()(a.get(), b.get());
}
template <class T>
std::compare_three_way_result_t<T*> operator<=>(const managed_ptr<T>& a, std::nullptr_t) noexcept {
  return std::compare_three_way()(a.get(), static_cast<T*>(nullptr));
}
#else
template <class T, class U>
bool operator!=(const managed_ptr<T>& a, const managed_ptr<U>& b) noexcept {
  return a.get() != b.get();
}
template <class T>
bool operator!=(const managed_ptr<T>& a, std::nullptr_t) noexcept {
  return static_cast<bool>(a);
}
template <class T>
bool operator==(std::nullptr_t, const managed_ptr<T>& a) noexcept {
  return !a;
}
template <class T>
bool operator!=(std::nullptr_t, const managed_ptr<T>& a) noexcept {
  return static_cast<bool>(a);
}
template <class T, class U>
bool operator<(const managed_ptr<T>& a, const managed_ptr<U>& b) noexcept {
  return std::less<std::common_type_t<T*, U*>>()(a.get(), b.get());
}
template <class T, class U>
bool operator>(const managed_ptr<T>& a, const managed_ptr<U>& b) noexcept {
  return b < a;
}
template <class T, class U>
bool operator<=(const managed_ptr<T>& a, const managed_ptr<U>& b) noexcept {
  return !(b < a);
}
template <class T, class U>
bool operator>=(const managed_ptr<T>& a, const managed_ptr<U>& b) noexcept {
  return !(a < b);
}
template <class T>
bool operator<(const managed_ptr<T>& a, std::nullptr_t) noexcept {
  return std::less<T*>()(a.get(), nullptr);
}
template <class T>
bool operator<(std::nullptr_t, const managed_ptr<T>& a) noexcept {
  return std::less<T*>()(nullptr, a.get());
}
template <class T>
bool operator>(const managed_ptr<T>& a, std::nullptr_t) noexcept {
  return nullptr < a;
}
template <class T>
bool operator>(std::nullptr_t, const managed_ptr<T>& a) noexcept {
  return a < nullptr;
}
template <class T>
bool operator<=(const managed_ptr<T>& a, std::nullptr_t) noexcept {
  return !(nullptr < a);
}
template <class T>
bool operator<=(std::nullptr_t, const managed_ptr<T>& a) noexcept {
  return !(a < nullptr);
}
template <class T>
bool operator>=(const managed_ptr<T>& a, std::nullptr_t) noexcept {
  return !(a < nullptr);
}
template <class T>
bool operator>=(std::nullptr_t, const managed_ptr<T>& a) noexcept {
  return !(nullptr < a);
}
#endif
///@}

/// An object housed in a control block with its counts: one allocation, and a free conversion to
/// shared_ptr. Throws what the allocation or T's constructor throws; then nothing is left behind.
template <class T, class... Args>
managed_ptr<T> make_managed(Args&&... args) {
  return own::make_shared<T>(std::forward<Args>(args)...);
}
/// As make_managed, with the memory from `a` (an Allocator, a std::pmr::memory_resource* or an own
/// pool pointer) and back to it.
template <class T, class A, class... Args>
managed_ptr<T> allocate_managed(const A& a, Args&&... args) {
  return own::allocate_shared<T>(a, std::forward<Args>(args)...);
}

namespace detail {

struct managed_access {
  template <class T>
  static managed_ptr_deleter deleter(const managed_ptr<T>& p) noexcept {
    return p.get_deleter();
  }
  // Empties `p` without disposing of its object, whose ownership passes to the caller.
  template <class T>
  static void detach(managed_ptr<T>& p) noexcept {
    p.release();
  }
};

}  // namespace detail

namespace detail {

// shared_ptr's constructors from managed_ptr (see <own/shared_ptr.hpp>).
template <class T, class Y, class A>
shared_ptr<T> shared_from_managed(managed_ptr<Y>&& r, const A& a) {
  const managed_ptr_deleter d = managed_access::deleter(r);
  Y* const p = r.get();
  if (d.function() == &release_shared_reference) {
    // A block given back is as the shared_ptr left it: its object hooked already, or one that must
    // not be (an array's element, an object an aliasing shared_ptr pointed at).
    managed_access::detach(r);
    return shared_access::adopt<T>(p, static_cast<control_block*>(d.cookie()));
  }
  control_block* block = nullptr;
  if (d.object() != nullptr) {
    using housing = managed_block<managed_ptr_deleter, adapted_allocator_t<A>>;
    auto&& alloc = detail::adapt_allocator(a);
    block = detail::new_block<housing>(alloc, d, alloc);
  }
  managed_access::detach(r);
  // As from a unique_ptr, a housed object's enable_shared_from_this base learns its owner.
  return shared_access::adopt_owner_of<T>(p, block);
}

}  // namespace detail

}  // namespace own

/// Hashes get(), as std::hash<std::unique_ptr<T>> does.
template <class T>
struct std::hash<own::managed_ptr<T>> {
  std::size_t operator()(const own::managed_ptr<T>& p) const noexcept { return own::hash_value(p); }
};
