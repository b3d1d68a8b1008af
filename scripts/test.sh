#!/usr/bin/env bash
# Builds and runs own's whole test suite in every configuration CI checks:
#   release (gcc C++17 -O2), asan (gcc C++20 ASan+UBSan, checked), tsan (clang C++17), clang (C++20, checked).
# Usage: scripts/test.sh [preset ...]     e.g. scripts/test.sh dev
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh test
presets=("$@")
[ ${#presets[@]} -gt 0 ] || presets=(release asan tsan clang)
passed=0; failed=0; failed_presets=()
for preset in "${presets[@]}"; do
  echo "=== $preset: configure and build"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset" -j 2
  echo "=== $preset: test"
  log=$(mktemp)
  if ctest --preset "$preset" 2>&1 | tee "$log"; then :; else failed_presets+=("$preset"); fi
  total=$(sed -n 's/.*tests passed, \([0-9]*\) tests failed out of \([0-9]*\).*/\1 \2/p' "$log" | tail -1)
  if [ -n "$total" ]; then
    set -- $total
    failed=$((failed + $1)); passed=$((passed + $2 - $1))
  else
    failed_presets+=("$preset"); failed=$((failed + 1))
  fi
  rm -f "$log"
done
[ ${#failed_presets[@]} -eq 0 ] || echo "failing configurations: ${failed_presets[*]}"
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ ${#failed_presets[@]} -eq 0 ]
