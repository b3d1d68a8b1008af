#!/usr/bin/env python3
# SPDX-License-Identifier: BSL-1.0
"""What including a header costs a translation unit: own's public headers beside <memory> and
Boost's shared_ptr (issue 19).

Each candidate is a file that only includes the header(s). Every candidate is compiled `--reps`
times, the candidates taking turns (so a slow spell of the shared machine falls on all of them
alike), and the table gives the median CPU time of the compiler (user + system, which other load
on the machine disturbs less than wall time), the median wall time, and the lines after
preprocessing. Ratios are to <memory> compiled in the same run.

Usage: scripts/compile_time.py [--reps N] [--compiler CXX] [--std c++17] [--json RAW.json]
       [--only HEADER ...]   (e.g. --only own/shared_ptr.hpp: one header beside <memory> and Boost)
Prints the table (markdown); scripts/report.sh keeps the raw JSON with the benchmarks' and the
report renders it (its "Compile time" section).
"""
import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INCLUDE = os.path.join(ROOT, "include")


def candidates(only):
    """(label, [headers]) pairs; an empty list is the empty file, the floor of every compile."""
    rows = [("(empty file)", []), ("<memory>", ["memory"])]
    if os.path.exists("/usr/include/boost/shared_ptr.hpp"):
        rows.append(("Boost: shared_ptr.hpp + make_shared.hpp",
                     ["boost/shared_ptr.hpp", "boost/make_shared.hpp"]))
    public = sorted(f for f in os.listdir(os.path.join(INCLUDE, "own")) if f.endswith(".hpp"))
    if only:
        public = [h.split("/", 1)[-1] for h in only]
    # own.hpp, the one include that brings everything, goes last, as the table's bottom line.
    public.sort(key=lambda h: (h == "own.hpp", h))
    rows += [("<own/%s>" % h, ["own/" + h]) for h in public]
    return rows


def measure(compiler, std, source):
    """One compile's (cpu seconds, wall seconds)."""
    argv = [compiler, "-std=" + std, "-O2", "-I", INCLUDE, "-c", source, "-o", os.devnull]
    start = time.perf_counter()
    child = subprocess.Popen(argv)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        sys.exit("compile_time: %s failed" % " ".join(argv))
    return usage.ru_utime + usage.ru_stime, wall


def preprocessed_lines(compiler, std, source):
    out = subprocess.run([compiler, "-std=" + std, "-E", "-I", INCLUDE, source],
                         check=True, capture_output=True, text=True).stdout
    return out.count("\n")


def run(args):
    """Measures every candidate; the raw result, as the report keeps it."""
    rows = candidates(args.only)
    with tempfile.TemporaryDirectory() as tmp:
        sources = []
        for i, (_, headers) in enumerate(rows):
            path = os.path.join(tmp, "tu%d.cpp" % i)
            with open(path, "w") as f:
                f.write("".join("#include <%s>\n" % h for h in headers))
            sources.append(path)
        lines = [preprocessed_lines(args.compiler, args.std, s) for s in sources]
        cpu = [[] for _ in rows]
        wall = [[] for _ in rows]
        for _ in range(args.reps):
            for i, source in enumerate(sources):
                c, w = measure(args.compiler, args.std, source)
                cpu[i].append(c)
                wall[i].append(w)
    version = subprocess.run([args.compiler, "--version"], capture_output=True,
                             text=True).stdout.splitlines()[0]
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "unknown"
    if subprocess.run(["git", "-C", ROOT, "diff", "--quiet", "HEAD", "--", "include"]).returncode != 0:
        commit += "+dirty"
    return {"own_commit": commit, "compiler": args.compiler, "compiler_version": version, "std": args.std,
            "reps": args.reps, "date": datetime.date.today().isoformat(),
            "rows": [{"label": label, "headers": headers, "lines": lines[i], "cpu_s": cpu[i],
                      "wall_s": wall[i]} for i, (label, headers) in enumerate(rows)]}


def markdown(raw):
    """The table of a run, ratios of median CPU time to <memory>'s (and Boost's) in that run."""
    rows = raw["rows"]
    median_cpu = [statistics.median(r["cpu_s"]) * 1000 for r in rows]
    median_wall = [statistics.median(r["wall_s"]) * 1000 for r in rows]
    memory = next(median_cpu[i] for i, r in enumerate(rows) if r["label"] == "<memory>")
    boost = next((median_cpu[i] for i, r in enumerate(rows) if r["label"].startswith("Boost")), None)
    out = ["Each row is a translation unit that only includes the header, compiled with `%s -std=%s -O2` "
           "(%s) %d times, the rows taking turns, on %s, at own %s (not necessarily the benchmarks' run). CPU is the compiler's user + system time (which "
           "the machine's other load disturbs less than wall time); both columns are medians, and the "
           "ratios are of CPU time to `<memory>`'s%s in the same run. Measured by "
           "`scripts/compile_time.py`.\n" % (raw["compiler"], raw["std"], raw["compiler_version"], raw["reps"],
                                              raw["date"], raw.get("own_commit", "?"), " and to Boost's" if boost else "")]
    header = "| header | CPU ms | wall ms | lines after preprocessing | ÷ `<memory>` |"
    rule = "|---|---|---|---|---|"
    if boost:
        header += " ÷ Boost |"
        rule += "---|"
    out += [header, rule]
    for i, r in enumerate(rows):
        label = r["label"]
        cells = ["`%s`" % label if label.startswith("<") else label, "%.0f" % median_cpu[i],
                 "%.0f" % median_wall[i], "{:,}".format(r["lines"]), "%.2f×" % (median_cpu[i] / memory)]
        if boost:
            cells.append("%.2f×" % (median_cpu[i] / boost))
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=9)
    parser.add_argument("--compiler", default="g++")
    parser.add_argument("--std", default="c++17")
    parser.add_argument("--json", help="also keep the raw measurements here")
    parser.add_argument("--only", nargs="*")
    args = parser.parse_args()
    raw = run(args)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(raw, f, indent=1)
    sys.stdout.write(markdown(raw))


if __name__ == "__main__":
    main()
