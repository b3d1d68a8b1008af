// SPDX-License-Identifier: BSL-1.0
// Boost.Pool as the fixed-size pool peers a user would pick beside own's pools (issue #15): std and
// Boost were only given std::pmr pool resources, which are slower than malloc, so own's pool rows were
// compared with a weak peer.
//
//  - One thread, no lock: a boost::pool<> of the caller's (one per thread, like own::pool). Boost has no
//    allocator over a pool object of one's own, so boost_pool_allocator below is a thin one.
//  - Threads: boost::fast_pool_allocator, Boost's allocator for single objects, over a process-wide
//    singleton pool behind a mutex; boost::singleton_pool for raw blocks (the pool that allocator uses).
#pragma once

#include <boost/pool/pool.hpp>
#include <boost/pool/pool_alloc.hpp>
#include <boost/pool/singleton_pool.hpp>

#include <cstddef>
#include <new>

namespace own_bench {

// Single objects come from `pool`; requests a pool of one block size cannot serve (arrays, larger or
// over-aligned types) go to operator new.
template <class T>
class boost_pool_allocator {
 public:
  using value_type = T;

  explicit boost_pool_allocator(boost::pool<>* pool) noexcept : pool_(pool) {}
  template <class U>
  boost_pool_allocator(const boost_pool_allocator<U>& other) noexcept : pool_(other.pool()) {}

  T* allocate(std::size_t n) {
    if (!fits(n)) return static_cast<T*>(::operator new(n * sizeof(T)));
    if (void* p = pool_->malloc()) return static_cast<T*>(p);
    throw std::bad_alloc();
  }
  void deallocate(T* p, std::size_t n) noexcept {
    if (fits(n))
      pool_->free(p);
    else
      ::operator delete(p);
  }

  boost::pool<>* pool() const noexcept { return pool_; }
  template <class U>
  bool operator==(const boost_pool_allocator<U>& other) const noexcept {
    return pool_ == other.pool();
  }
  template <class U>
  bool operator!=(const boost_pool_allocator<U>& other) const noexcept {
    return pool_ != other.pool();
  }

 private:
  bool fits(std::size_t n) const noexcept {
    return n == 1 && sizeof(T) <= pool_->get_requested_size() && alignof(T) <= alignof(std::max_align_t);
  }

  boost::pool<>* pool_;
};

// Boost's locked pool of `Size`-byte blocks, shared by the whole process.
template <std::size_t Size>
struct boost_singleton_tag {};
template <std::size_t Size>
using boost_singleton_pool = boost::singleton_pool<boost_singleton_tag<Size>, Size>;

}  // namespace own_bench
