#!/usr/bin/env bash
# SPDX-License-Identifier: BSL-1.0
# The benchmark report (issue 6): builds the release benchmarks, runs every experiment with
# repetitions, keeps Google Benchmark's JSON and renders the report with scripts/render_report.py.
#
# Usage: scripts/report.sh [--quick] [--out DIR] [--no-build]
#   full run (default): about 25 minutes on 2 cores; renders docs/benchmarks.md and
#       docs/benchmarks/*.png, and copies the run's raw JSON to docs/benchmarks/raw/ (committed).
#   --quick: about 5 minutes; smaller workloads, fewer repetitions; renders into
#       bench/results/quick/ unless --out is given (a quick report is a plumbing check, not data).
# Raw JSON of every run: bench/results/<run>/ (gitignored).
# The std rows are also run with tcmalloc, jemalloc and mimalloc, by LD_PRELOAD into the same
# executables; the report names the allocator of every row.
set -euo pipefail
# Everything is in main(), so bash has read the whole script before running any of it (editing the
# file during a run cannot derail the run).
main() {
cd "$(dirname "$0")/.."
root=$(pwd)

mode=full; out=""; build=1
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) mode=quick ;;
    --out) out=$2; shift ;;
    --no-build) build=0 ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "report.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done

# The JSON keeps every repetition beside the aggregates (the console shows only the aggregates): the
# charts draw the interquartile range of the repetitions as whiskers.
# Repetitions run in random order, interleaved with the other rows' (Google Benchmark's
# --benchmark_enable_random_interleaving): the shared machine's slow spells (seen here: the floor row
# at 2.8 ns for tens of milliseconds, then at 5 ns) then fall on every row alike, instead of on
# whichever row happened to run during one; more, shorter repetitions sample more of them.
if [ "$mode" = quick ]; then
  reps=3; min_time=0.02; export OWN_BENCH_QUICK=1; default_out=bench/results/quick
else
  reps=10; min_time=0.05; export OWN_BENCH_QUICK=0; default_out=docs
fi
out=${out:-$default_out}

start=$(date +%s)
own_commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet HEAD -- include bench 2>/dev/null || echo '+dirty')"
bash scripts/bootstrap.sh bench
if [ "$build" = 1 ]; then
  echo "== configure and build (release preset)"
  cmake --preset release >/dev/null
  cmake --build --preset release -j 2 --target own_benchmarks
fi
bin=${OWN_BENCH_BIN:-build/release/bench}  # OWN_BENCH_BIN: run another build's executables

run_id=$(date -u +%Y%m%dT%H%M%SZ)-$mode
results=bench/results/$run_id
mkdir -p "$results"
ln -sfn "$run_id" bench/results/latest-$mode

libdir=/usr/lib/x86_64-linux-gnu
declare -A preload=(
  [tcmalloc]=$libdir/libtcmalloc_minimal.so.4
  [jemalloc]=$libdir/libjemalloc.so.2
  [mimalloc]=$libdir/libmimalloc.so.2
)

# run <experiment> <executable> <allocator> <filter> <what> [extra Google Benchmark flags...]
# (a later flag overrides an earlier one; OWN_BENCH_QUICK may be set for one run: `OWN_BENCH_QUICK=1 run ...`)
step=0
steps=$((7 + 5 + 1 + 5 * 3))
run() {
  local exp=$1 exe=$2 alloc=$3 filter=$4 what=$5
  shift 5
  step=$((step + 1))
  local t0; t0=$(date +%s)
  local json=$results/$exp-$exe-$alloc${OWN_RUN_SUFFIX:-}.json log=$results/$exp-$exe-$alloc${OWN_RUN_SUFFIX:-}.log
  local env_preload=()
  if [ "$alloc" != glibc ]; then env_preload=(env "LD_PRELOAD=${preload[$alloc]}"); fi
  printf '[%2d/%d] %-5s %-40s ' "$step" "$steps" "$exp" "$what ($alloc)"
  if ! "${env_preload[@]}" "$bin/bench_$exe" \
      --benchmark_filter="$filter" \
      --benchmark_repetitions=$reps --benchmark_display_aggregates_only=true \
      --benchmark_enable_random_interleaving=true --benchmark_min_time=$min_time \
      --benchmark_context=experiment="$exp" --benchmark_context=allocator="$alloc" \
      --benchmark_context=mode="$mode" \
      --benchmark_out="$json" --benchmark_out_format=json "$@" >"$log" 2>&1; then
    echo "FAILED (see $log)"; tail -5 "$log"; exit 1
  fi
  local t1; t1=$(date +%s)
  echo "$((t1 - t0)) s"
  printf '%s\t%s\t%s\t%s\n' "$exp" "$exe" "$alloc" "$((t1 - t0))" >>"$results/timings.tsv"
}

echo "== running ($mode: $reps repetitions, min_time $min_time s); raw JSON in $results"
run exp1 n1851_appendix_a glibc . "N1851 Appendix A"
run exp1 n1851_appendix_a_boost_plain glibc /boost_plain/ "N1851, Boost without quick allocator"
# exp2's container rows and exp3's 100M-iteration loops are long: 3 repetitions are enough there.
r3=--benchmark_repetitions=$((reps < 3 ? reps : 3))
run exp2 boost_timings glibc . "Boost smart pointer timings" "$r3"
run exp3 memory_overhead glibc . "memory and performance overhead" "$r3"
run exp4 construction_methods glibc . "shared_ptr construction methods"
run exp5 stack_heap_pool glibc . "stack, heap, pool" "$r3"  # gigabyte-sized iterations
run exp6 beyond_seeds glibc . "beyond the seeds"
for component in shared_ptr managed_ptr local_shared_ptr atomic_shared_ptr pool; do
  run exp7 "${component}_bench" glibc . "components: $component"
done
# Whole workloads of about a second each: 3 repetitions (each row also spawns one process, once, to
# measure its peak resident memory).
run exp8 application_workloads glibc . "application workloads" "$r3"
# The allocator variants: std rows (and one own row, below), 3 repetitions.
for alloc in tcmalloc jemalloc mimalloc; do
  run exp1 n1851_appendix_a "$alloc" '/std/' "N1851 std rows" "$r3"
  # The allocator variants of exp3 loop 2M times, not 100M (the per-operation time is what is compared).
  OWN_BENCH_QUICK=1 run exp3 memory_overhead "$alloc" '^exp3/[^b][a-z_]*/std' "overhead std rows (2M loop)" "$r3"
  run exp4 construction_methods "$alloc" '/std(/|$)' "construction std rows" "$r3"
  # with own_pool's hand-off row, whose fast path never calls malloc: its ratio to std+<allocator>'s
  # hand-off is then measured in one process
  # with own's default rows and the floor, which call no malloc on their fast paths: their ratios to
  # std+<allocator> are then measured in one process
  run exp6 beyond_seeds "$alloc" '^exp6/((create_destroy|handoff|churned_[a-z]*|pmr_[a-z]*)/std|(create_destroy|handoff|churned_[a-z]*)/(own|own_pool|floor))(/|$)' \
    "beyond std, own and floor rows" "$r3"
  run exp8 application_workloads "$alloc" '/std/' "application workloads, std" "$r3"
done
# Rows whose repetitions spread over ±20% are measured again with twice the repetitions (issue 15):
# a slow spell of the shared machine during their first run would otherwise decide them. Their new
# measurement replaces the first (report/results.py); what still spreads stays flagged.
python=${PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=python3
echo "== re-measuring the rows that spread over ±20%"
while IFS=$'\t' read -r fname filter; do
  rest=${fname%.json}; exp=${rest%%-*}; rest=${rest#*-}; alloc=${rest##*-}; exe=${rest%-*}
  steps=$((steps + 1))
  case $exp in exp2|exp3|exp5) again=$((2 * (reps < 3 ? reps : 3))) ;; *) again=$((2 * reps)) ;; esac
  OWN_RUN_SUFFIX=-remeasured run "$exp" "$exe" "$alloc" "$filter" "unstable rows again" \
    --benchmark_repetitions=$again
done < <("$python" scripts/unstable_rows.py --results "$results")

# exp2's code-size table (bench/code_size/copy_destroy.cpp): the bytes of each function that copies and
# destroys one pointer kind, hot and cold parts together, read from the library the build made, and
# written as rows of their own (counter "bytes", no time) for the renderer.
code_size_json() {
  local lib=$bin/libown_bench_code_size.a
  local -A bytes=()
  local addr size type name sep=""
  while read -r addr size type name; do
    [[ $name == own_bench_copy_destroy_* ]] || continue
    name=${name#own_bench_copy_destroy_}
    name=${name%.cold}
    bytes[$name]=$(( ${bytes[$name]:-0} + 16#$size ))
  done < <(nm -S "$lib")
  printf '{"context": {"experiment": "exp2", "allocator": "glibc", "source": "nm -S %s"},\n "benchmarks": [' "$lib"
  for name in $(printf '%s\n' "${!bytes[@]}" | sort); do
    printf '%s\n  {"name": "exp2/code_size/%s", "run_name": "exp2/code_size/%s", "run_type": "iteration", ' \
      "$sep" "$name" "$name"
    printf '"iterations": 1, "real_time": 0, "cpu_time": 0, "time_unit": "ns", "bytes": %d}' "${bytes[$name]}"
    sep=,
  done
  printf '\n]}\n'
}
code_size_json >"$results/exp2-code_size-glibc.json"
# What including each header costs a translation unit (issue 19), beside <memory> and Boost's.
echo "== compile time of the headers"
if [ "$mode" = quick ]; then ct_reps=3; else ct_reps=9; fi
"$python" scripts/compile_time.py --reps "$ct_reps" --json "$results/compile_time.json" >/dev/null
end=$(date +%s)

# The machine and the build, for the report.
cache=$(dirname "$bin")/CMakeCache.txt
[ -f "$cache" ] || cache=/dev/null
{
  echo "{"
  echo "  \"mode\": \"$mode\", \"repetitions\": $reps, \"min_time_s\": $min_time,"
  echo "  \"run_id\": \"$run_id\", \"wall_time_s\": $((end - start)),"
  echo "  \"cpu\": \"$(lscpu | sed -n 's/^Model name: *//p' | head -1)\","
  echo "  \"cpus\": $(nproc),"
  echo "  \"kernel\": \"$(uname -sr)\","
  echo "  \"os\": \"$(. /etc/os-release && echo "$PRETTY_NAME")\","
  echo "  \"compiler\": \"$(g++ --version | head -1)\","
  echo "  \"cxx_flags\": \"$(sed -n 's/^CMAKE_CXX_FLAGS_RELEASE:STRING=//p' "$cache") -Wall -Wextra -Wpedantic -Werror, C++$(sed -n 's/^CMAKE_CXX_STANDARD:[A-Z]*=//p' "$cache") (C++20 for construction_methods and beyond_seeds)\","
  echo "  \"benchmark_library\": \"Google Benchmark $(dpkg-query -W -f='${Version}' libbenchmark-dev 2>/dev/null)\","
  echo "  \"boost\": \"$(dpkg-query -W -f='${Version}' libboost-dev 2>/dev/null)\","
  echo "  \"allocators\": {\"glibc\": \"$(ldd --version | head -1 | sed 's/.* //')\", \"tcmalloc\": \"${preload[tcmalloc]}\", \"jemalloc\": \"${preload[jemalloc]}\", \"mimalloc\": \"${preload[mimalloc]}\"},"
  echo "  \"own_commit\": \"$own_commit\""
  echo "}"
} >"$results/machine.json"

echo "== rendering into $out"
# ($python: the system interpreter, for Debian's python3-matplotlib; a pyenv or venv python3 earlier
# on PATH would not see it.)
"$python" scripts/render_report.py --results "$results" --out "$out"
if [ "$mode" = full ] && [ "$out" = docs ]; then
  rm -rf docs/benchmarks/raw && mkdir -p docs/benchmarks/raw
  cp "$results"/*.json "$results/timings.tsv" docs/benchmarks/raw/
fi
echo "== done in $((end - start)) s (runs) / $(( $(date +%s) - start )) s (total); report: $out/benchmarks.md"
}

main "$@"
