#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# Builds and runs own's whole test suite in every configuration CI checks, then the fuzzers and
# valgrind. Stages (default: all, in this order):
#   docs      the API reference (scripts/docs.sh): fails on any public declaration without a ///
#             comment; a few seconds, so it goes first
#   release   gcc C++17 -O2 (benchmarks not built), run twice: the default heap as by default, and
#             with OWN_DEFAULT_ALLOCATOR=operator_new
#   asan      gcc C++20, ASan+UBSan with leak checking, checked mode
#   tsan      clang C++17, ThreadSanitizer
#   clang     clang C++20, checked mode
#             (so the four compile the C++17/C++20 x gcc/clang matrix, and each runs every test;
#             among the tests, consumer_find_package configures, builds and installs own as the
#             README's Install section says on a machine without GoogleTest, then uses the package)
#   libcxx    clang 16 with libc++ 16, every test, C++20 then C++17 (presets libcxx, libcxx-cxx17;
#             GoogleTest built from source against libc++): macOS-style standard libraries
#   subsets   the tests that make sense without exceptions and/or RTTI, built so (presets
#             no-exceptions: gcc C++17; no-rtti: gcc C++20; no-exceptions-no-rtti: clang C++17)
#   fuzz      the three fuzz targets from their seed corpora (fuzz/run.sh): ownership and pool
#             geometry under ASan+UBSan, 60 s each, the multi-threaded one under TSan, 45 s
#             ($OWN_FUZZ_SECONDS, if set, for each); prints each one's executions per second
#   valgrind  memcheck over the release build's test executables (death tests and fork tests
#             excluded, stress tests shrunk: valgrind runs threads one at a time)
# Usage: scripts/test.sh [stage ...]     e.g. scripts/test.sh dev, scripts/test.sh tsan fuzz
# OWN_STRESS_SCALE (e.g. 0.05) shrinks the stress tests for a quick local run; CI runs them full.
# Prints one line per stage with its time, then `tests: N passed, M failed`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh test
stages=("$@")
[ ${#stages[@]} -gt 0 ] || stages=(docs release asan tsan clang libcxx subsets fuzz valgrind)
passed=0; failed=0; failed_stages=(); timings=()

# Configures and builds a preset's tests (release without the benchmarks, which CI need not build).
build_preset() {
  local preset=$1 extra=()
  [ "$preset" = release ] && extra=(-DOWN_BUILD_BENCHMARKS=OFF)
  cmake --preset "$preset" "${extra[@]}" >/dev/null
  cmake --build --preset "$preset" -j 2
}

# Runs a built preset's tests, with the environment assignments given after the preset's name.
run_ctest() {
  local preset=$1 log total
  shift
  log=$(mktemp)
  if env "$@" ctest --preset "$preset" 2>&1 | tee "$log"; then :; else failed_stages+=("$preset $*"); fi
  total=$(sed -n 's/.*tests passed, \([0-9]*\) tests failed out of \([0-9]*\).*/\1 \2/p' "$log" | tail -1)
  if [ -n "$total" ]; then
    set -- $total
    failed=$((failed + $1)); passed=$((passed + $2 - $1))
  else
    failed_stages+=("$preset"); failed=$((failed + 1))
  fi
  rm -f "$log"
}

# The release stage runs the suite twice: with own's default heap as it is by default, and with its
# switch sending every block to operator new (<own/heap.hpp>).
run_preset() {
  local preset=$1
  build_preset "$preset" || { failed_stages+=("$preset"); failed=$((failed + 1)); return; }
  run_ctest "$preset"
  if [ "$preset" = release ]; then
    echo "--- release, OWN_DEFAULT_ALLOCATOR=operator_new"
    run_ctest "$preset" OWN_DEFAULT_ALLOCATOR=operator_new
  fi
}

run_docs() {
  if bash scripts/docs.sh; then passed=$((passed + 1)); else failed=$((failed + 1)); failed_stages+=(docs); fi
}

run_fuzz() {
  if bash fuzz/run.sh; then passed=$((passed + 1)); else failed=$((failed + 1)); failed_stages+=(fuzz); fi
}

# nouserintercepts: exception_safety_test replaces operator new/delete itself (over malloc/free);
# valgrind must leave its own malloc interception to libc, or it pairs its new with our free.
# Left out: death tests, and heap_test's fork tests, whose children memcheck follows and finds the
# memory of the parent's other threads (gone in a child) lost.
run_valgrind() {
  [ -d build/release/tests ] && [ -n "$(ls build/release/tests/*_test 2>/dev/null)" ] || build_preset release
  local exe ok=1
  for exe in build/release/tests/*_test; do
    echo "--- valgrind $exe"
    if OWN_STRESS_SCALE=${OWN_VALGRIND_STRESS_SCALE:-0.02} valgrind -q --tool=memcheck --error-exitcode=99 \
        --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
        --fair-sched=yes --soname-synonyms=somalloc=nouserintercepts "$exe" --gtest_filter='-*DeathTest*:HeapFork*' --gtest_brief=1; then
      passed=$((passed + 1))
    else
      failed=$((failed + 1)); ok=0
    fi
  done
  # A leaked own::shared_ptr must be reported (the default heap steps aside under valgrind).
  echo "--- valgrind canary: a leaked own::shared_ptr"
  local report status=0
  report=$(valgrind -q --tool=memcheck --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
    build/release/tests/canary_leak_shared_ptr 2>&1) || status=$?
  if [ $status -eq 99 ] && grep -q "definitely lost" <<<"$report"; then
    passed=$((passed + 1))
  else
    echo "$report"; echo "memcheck did not report the leaked shared_ptr (exit $status)"
    failed=$((failed + 1)); ok=0
  fi
  [ $ok -eq 1 ] || failed_stages+=(valgrind)
}

for stage in "${stages[@]}"; do
  echo "=== $stage"
  start=$(date +%s)
  case $stage in
    docs) run_docs ;;
    fuzz) run_fuzz ;;
    subsets) for preset in no-exceptions no-rtti no-exceptions-no-rtti; do run_preset "$preset"; done ;;
    libcxx) for preset in libcxx libcxx-cxx17; do run_preset "$preset"; done ;;
    valgrind) run_valgrind ;;
    *) run_preset "$stage" ;;
  esac
  timings+=("$stage $(( $(date +%s) - start ))s")
done
echo "stage times: ${timings[*]}"
[ ${#failed_stages[@]} -eq 0 ] || echo "failing stages: ${failed_stages[*]}"
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ ${#failed_stages[@]} -eq 0 ]
