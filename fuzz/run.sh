#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# Builds the ownership fuzzer from include/ alone and runs it for a bounded time.
# Usage: fuzz/run.sh [seconds]      (default: $OWN_FUZZ_SECONDS, else 60)
# New inputs go to build/fuzz/corpus (the seed corpus in fuzz/corpus is read, never written);
# a crash leaves its input in build/fuzz/ as crash-*, to replay with `build/fuzz/ownership_fuzz FILE`.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-${OWN_FUZZ_SECONDS:-60}}
out=build/fuzz
mkdir -p "$out/corpus"
clang++-14 -std=c++17 -g -O1 -Wall -Wextra -Wpedantic -Werror -fno-sanitize-recover=all \
  -fsanitize=fuzzer,address,undefined -I include fuzz/ownership_fuzz.cpp -o "$out/ownership_fuzz"
cd "$out"
# -timeout: one input running longer than 10 s is a hang; -rss_limit_mb keeps a runaway input from
# taking the shared machine down.
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ./ownership_fuzz corpus ../../fuzz/corpus -max_total_time="$seconds" -timeout=10 -rss_limit_mb=1024 \
  -print_final_stats=1 2>&1 | grep -v '^#[0-9]' | tail -40
