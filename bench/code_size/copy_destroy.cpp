// SPDX-License-Identifier: BSL-1.0
// exp2's code-size table (the seed, Boost's Smart Pointer Timings, compared the code each pointer kind
// makes): one function per kind that copies a pointer, hands the copy to a function the compiler cannot
// see into (so the copy is not optimised away) and destroys it. This file is compiled with the
// benchmarks' flags into a static library that is never linked; scripts/report.sh reads each function's
// size in bytes from it (nm -S), which is the code a copy and a destruction inline at their call site.
// Every function pays the same call and frame; the raw pointer's row shows how much that is.
#include <cstdint>
#include <memory>

#include <boost/smart_ptr/intrusive_ptr.hpp>
#include <boost/smart_ptr/intrusive_ref_counter.hpp>
#include <boost/smart_ptr/local_shared_ptr.hpp>

#include "floor.hpp"
#include "linked_ptr.hpp"

#include "own_headers.hpp"

// Declared, never defined: the library is only measured. noexcept, so no function carries a landing pad
// to destroy its copy if the sink threw.
extern "C" void own_bench_code_size_sink(const void* copy) noexcept;

namespace {

struct plain_obj {
  std::uint32_t key;
};
struct boost_obj : boost::intrusive_ref_counter<boost_obj> {
  std::uint32_t key;
};
#ifdef OWN_BENCH_HAS_INTRUSIVE_PTR
struct own_obj : own::intrusive_ref_counter<own_obj, own::thread_safe_counter> {
  std::uint32_t key;
};
#endif

template <class Ptr>
void copy_destroy(const Ptr& p) {
  const Ptr copy(p);
  own_bench_code_size_sink(&copy);
}

}  // namespace

// The part after own_bench_copy_destroy_ is the impl of exp2's rows.
#define OWN_BENCH_COPY_DESTROY(impl, ...) \
  extern "C" void own_bench_copy_destroy_##impl(const __VA_ARGS__& p) { copy_destroy(p); }

OWN_BENCH_COPY_DESTROY(std, std::shared_ptr<plain_obj>)
OWN_BENCH_COPY_DESTROY(boost_intrusive, boost::intrusive_ptr<boost_obj>)
OWN_BENCH_COPY_DESTROY(boost_local, boost::local_shared_ptr<plain_obj>)
OWN_BENCH_COPY_DESTROY(linked, own_bench::linked_ptr<plain_obj>)
OWN_BENCH_COPY_DESTROY(raw, plain_obj*)
OWN_BENCH_COPY_DESTROY(floor, own_bench::floor_ptr<plain_obj>)
#ifdef OWN_BENCH_HAS_SHARED_PTR
OWN_BENCH_COPY_DESTROY(own, own::shared_ptr<plain_obj>)
#endif
#ifdef OWN_BENCH_HAS_INTRUSIVE_PTR
OWN_BENCH_COPY_DESTROY(own_intrusive, own::intrusive_ptr<own_obj>)
#endif
#ifdef OWN_BENCH_HAS_LOCAL_SHARED_PTR
OWN_BENCH_COPY_DESTROY(own_local, own::local_shared_ptr<plain_obj>)
#endif
