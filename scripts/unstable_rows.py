#!/usr/bin/env python3
# SPDX-License-Identifier: BSL-1.0
"""Lists the rows of a report run whose repetitions spread over the report's limit (a coefficient of
variation above report.results.UNSTABLE_CV), for scripts/report.sh to measure again with more
repetitions: one line per result file, `<file><TAB><Google Benchmark filter matching its unstable
rows exactly>`. Rows of runs made in a changed environment (exp3's short allocator runs) and single-run
rows are left out."""

import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from report.results import REMEASURED_SUFFIX, UNSTABLE_CV, parse_name, row_clock  # noqa: E402


def unstable_names(path):
    """The run names of the benchmarks in one result file whose cv, by the clock the report reads
    them with, exceeds the limit."""
    with open(path) as f:
        data = json.load(f)
    names = []
    for b in data.get("benchmarks", []):
        parsed = parse_name(b.get("run_name", b["name"]))
        if b.get("aggregate_name") != "cv" or b.get("error_occurred") or parsed is None:
            continue
        exp, case, _, params = parsed
        if b[row_clock(b["run_name"], b.get("threads", 1), exp, case, params)] > UNSTABLE_CV:
            names.append(b["run_name"])
    return names


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", required=True, help="a run's directory of result files")
    args = ap.parse_args()
    for fname in sorted(os.listdir(args.results)):
        if not fname.endswith(".json") or fname == "machine.json" or fname.endswith(REMEASURED_SUFFIX):
            continue
        if fname.startswith("exp3-") and not fname.endswith("-glibc.json"):
            continue  # run with OWN_BENCH_QUICK=1: a re-run would not be the same measurement
        names = unstable_names(os.path.join(args.results, fname))
        if names:
            print(fname + "\t" + "|".join("^" + re.escape(n) + "$" for n in names))


if __name__ == "__main__":
    main()
