#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# Builds own's fuzz targets from include/ alone and runs each for a bounded time from its seed corpus,
# then prints each one's executions per second.
# Usage: fuzz/run.sh [seconds] [target ...]
#   seconds  per target; default $OWN_FUZZ_SECONDS, else each target's own below; 0: no time limit
#   targets  ownership pool_geometry concurrent (default: all three, in that order)
#     ownership      shared/weak/managed/local/intrusive pointers and object pools (ASan+UBSan), 60 s
#     pool_geometry  pool sizes, alignments and options (ASan+UBSan, checked mode), 60 s
#     concurrent     2-4 threads on atomic_shared_ptr and the concurrent pools (TSan, checked mode), 45 s
# New inputs go to build/fuzz/<target>/corpus (the seed corpus fuzz/corpus/<target> is read, never
# written); a failure leaves its input as build/fuzz/<target>/crash-*, to replay with
# `build/fuzz/<target>/<target>_fuzz FILE`.
set -euo pipefail
cd "$(dirname "$0")/.."
all_targets=(ownership pool_geometry concurrent)
declare -A default_seconds=([ownership]=60 [pool_geometry]=60 [concurrent]=45)
seconds=${OWN_FUZZ_SECONDS:-}
if [ $# -gt 0 ] && [[ $1 =~ ^[0-9]+$ ]]; then seconds=$1; shift; fi
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")

build() {
  local target=$1 out=$2 sanitizers=fuzzer,address,undefined defines=()
  [ "$target" = concurrent ] && sanitizers=fuzzer,thread
  # Checked mode: the pools' own consistency checks run too (the ownership fuzzer checks the
  # unchecked build, which users ship).
  [ "$target" = ownership ] || defines=(-DOWN_CHECKED)
  clang++-14 -std=c++17 -g -O1 -Wall -Wextra -Wpedantic -Werror -fno-sanitize-recover=all "${defines[@]}" \
    -fsanitize="$sanitizers" -I include "fuzz/${target}_fuzz.cpp" -o "$out/${target}_fuzz"
}

summary=() failed=()
for target in "${targets[@]}"; do
  [ -n "${default_seconds[$target]:-}" ] || { echo "fuzz/run.sh: no target '$target' (${all_targets[*]})"; exit 2; }
  out=build/fuzz/$target
  mkdir -p "$out/corpus"
  build "$target" "$out"
  log=$out/last_run.log
  # -timeout: one input running longer than 10 s is a hang; -rss_limit_mb keeps a runaway input from
  # taking the shared machine down (the geometry fuzzer's upstream also refuses beyond 64 MiB out).
  # TSan stops at the first report; the suppressions cover libFuzzer's own coverage counters.
  # A failed check on one thread while others run can deadlock ThreadSanitizer's reporting inside
  # libFuzzer's abort handler (seen once: the process slept, and -timeout's signal never got in),
  # so the run also has a wall-clock bound of its own, two minutes past its time.
  status=0
  limit=${seconds:-${default_seconds[$target]}}
  wall=()
  [ "$limit" -eq 0 ] || wall=(timeout --kill-after=10 $((limit + 120)))
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    TSAN_OPTIONS="halt_on_error=1 suppressions=$PWD/fuzz/tsan_suppressions.txt" \
    "${wall[@]}" "$out/${target}_fuzz" "$out/corpus" "fuzz/corpus/$target" -max_total_time="$limit" \
    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$out/" >"$log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
  if [ $status -ne 0 ]; then
    grep -v '^#[0-9]' "$log" | tail -60
    failed+=("$target")
  fi
  summary+=("$(printf '%-14s %10s executions, %6s/s, corpus %s inputs%s' "$target" "${runs:-?}" "${rate:-?}" \
    "$(ls "$out/corpus" | wc -l)" "$([ $status -eq 0 ] || echo ", FAILED (exit $status)")")")
done
printf 'fuzz: %s\n' "${summary[@]}"
[ ${#failed[@]} -eq 0 ]
