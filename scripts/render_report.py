#!/usr/bin/env python3
# SPDX-License-Identifier: BSL-1.0
"""Renders own's benchmark report (docs/benchmarks.md and docs/benchmarks/*.png) from the Google
Benchmark JSON files of one scripts/report.sh run. Every figure in the report comes from those files
(or, for the N1851 paper's own figures, from bench/data/n1851_appendix_a.json, cited as the paper's).

Row-naming convention (the benchmarks in bench/*.cpp follow it):

    exp<N>/<case>/<impl>[/<param>...]

  exp<N>   the experiment (exp1 .. exp6, see EXPERIMENTS below).
  case     what is measured, e.g. make_shared, basic_threaded_pool, vector_sort.
  impl     who does it. "std" is the baseline (libstdc++ with glibc malloc); "floor" is the bare
           minimum (bench/common/floor.hpp: a thread-local free list and one atomic count); "own",
           "boost" and anything else is a contender. Variants carry a suffix after "_"
           (own_pool, own_intrusive, boost_plain, ...); the part before "_" is the family.
  params   anything after: Google Benchmark's "threads:N", an argument such as a set size, or our
           own "handoff". Google Benchmark's bookkeeping components ("real_time", "iterations:N",
           "repeats:N", "min_time:X") are dropped.

  Every row is compared with the "std" row of the same experiment, case and params (÷ std) and with
  the "floor" row of the same experiment, case and params, or if the case has none, the experiment's
  designated floor case (÷ floor). A ratio is marked † when the two rows come from different
  processes (e.g. a row run with an LD_PRELOADed allocator, or the Boost-without-quick-allocator
  executable); ratios within one process are the headline, since absolute times drift on a shared
  machine.

  Runs with another allocator (JSON context "allocator" other than glibc) rename impl "std" to
  "std+<allocator>" (and exp6's "own_pool" hand-off row, also run there, to "own_pool+<allocator>").
  A row whose benchmark stopped with an error "not yet available: <header> (issue open)" is listed
  as such: its own counterpart has not landed yet.

Values are the median of the repetitions (Google Benchmark's "median" aggregate), in ns per operation;
the repetitions of all rows of an executable run interleaved in random order, so that a slow spell
of the shared machine falls on every row alike.
Single-thread rows use the benchmark thread's CPU time, which does not count the time the thread
spends descheduled, so other work on a shared machine inflates it far less than wall time; rows
with two threads ("threads:2") or a second thread ("handoff") use wall time, divided by the
operations of all threads (perfect scaling halves it). The ± figure is the coefficient of variation
across repetitions of the same clock.
"""

import argparse
import collections
import json
import math
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA_DIR = os.path.join(ROOT, "bench", "data")  # the seeds' own figures, each file citing its seed

EXPERIMENTS = [
    {
        "id": "exp1",
        "title": "N1851 Appendix A: constructing a shared pointer, with and without pools",
        "seed": "n1851-improving-tr1-smart-pointers.txt",
        "intro": (
            "Kliatchko and Rocha (Bloomberg, 2005) timed 5 million constructions and destructions of a "
            "shared pointer - basic constructor, deleter constructor, and the object housed in-place in the "
            "count's block - with no pool, a non-threaded and a threaded pool, in one- and two-thread "
            "programs, against boost::shared_ptr with BOOST_SP_USE_QUICK_ALLOCATOR. We run the whole grid "
            "for own, Boost (quick allocator; and `boost_plain` without it, from a second executable) and "
            "std. Pools: own::pool / own::concurrent_pool for own; std::pmr::unsynchronized / "
            "synchronized_pool_resource for std and Boost. The paper's figures (its Results table, in "
            "bench/data/n1851_appendix_a.json) are shown as its ratio to Boost's basic constructor, beside ours."
        ),
        "own_configured": r"pool",  # cases whose own row is given a pool or resource
        "floor_case": "floor",
        "seed_data": "n1851_appendix_a.json",
    },
    {
        "id": "exp2",
        "title": "Boost Smart Pointer Timings: initialisation, copies, containers, sizes",
        "seed": "boost-smart-pointer-timings.txt",
        "intro": (
            "Collings et al. (Boost, 2000) timed making a smart pointer from a raw pointer plus n amortised "
            "copies (half copy-constructions, half assignments) and fitted a line: cost of initialisation, "
            "cost per copy; then filled and sorted a vector and a list of 300,000 pointers; and compared "
            "pointer sizes. Simple counted = std::shared_ptr(new) and own::shared_ptr(new); special counted = "
            "own_pool (count from an own::pool) and std_pool (count from a pmr pool); intrusive = "
            "own_intrusive, boost_intrusive; local = own_local, boost_local; plus raw, dumb and the floor. "
            "As in the seed, allocating the pointee is not timed, freeing it is. The seed's linked and "
            "cyclic pointers have no counterpart here."
        ),
        "untimed": r"^sizeof$",  # cases whose rows report a counter, not a time
        "floor_case": None,
    },
    {
        "id": "exp3",
        "title": "Memory and performance overhead of smart pointers",
        "seed": "memory-and-performance-overhead-of-smart-pointers.txt",
        "intro": (
            "Grimm timed 100,000,000 creations and destructions of an int with new/delete, unique_ptr(new), "
            "make_unique, shared_ptr(new) and make_shared, and discussed the memory overhead. We run the "
            "same loop (quick mode: 2,000,000) for std and own, own's pooled forms and managed_ptr (shown "
            "under make_unique, its std counterpart), and measure bytes of heap per live object over "
            "100,000 live objects (glibc mallinfo2 deltas plus own's default heap's pages in use, allocator headers and size-class rounding included) plus sizeof the pointer. "
            "The std+<allocator> rows loop 2,000,000 times (per-operation times are what is compared)."
        ),
        "floor_case": "make_shared",
        "reference": ("new_delete", "std", "÷ new/delete"),
    },
    {
        "id": "exp4",
        "title": "Constructing a shared_ptr to a packet: six ways, the hidden memset, two threads",
        "seed": "shared-ptr-construction-methods-zh.txt",
        "intro": (
            "A Chinese blog post (10 GbE, ~1M packets/s, each owned by a shared_ptr) timed make_shared, "
            "shared_ptr(new T), shared_ptr over a pooled object, allocate_shared with a pool, new/delete and a "
            "raw pool, and found a hidden memset in one library's allocate_shared. Our packet is a trivial "
            "1508-byte struct, so make_shared/allocate_shared value-initialise (zero) it by the standard's "
            "rules while the _for_overwrite forms do not: the memset, made visible. Pools are thread-safe as "
            "in the seed (std::pmr::synchronized_pool_resource, own::concurrent_pool). 'handoff' rows make "
            "the packet on one thread and drop it on another."
        ),
        "own_configured": r"pool",  # cases whose own row is given a pool or resource
        "floor_case": "make_shared_for_overwrite",
        "seed_data": "construction_methods.json",
    },
    {
        "id": "exp5",
        "title": "Stack, heap, pool",
        "seed": "stack-heap-pool.txt",
        "intro": (
            "The seed timed getting 1000 zeroed 1 MB objects from the stack, the heap and its own Pool "
            "(which pre-constructs all N objects and finds free ones by linear scan), plus the pool's "
            "construction. We reimplemented that pool from its description (seed_pool) and add "
            "own::object_pool and the floor; then the same with 10,000 64-byte objects, where the scans "
            "show. One operation = get all N objects, touch each, give all back (std = new/delete; the "
            "stack holds one at a time). Quick mode uses 100 big objects."
        ),
        "own_configured": r".",  # cases whose own row is given a pool or resource
        "floor_case": None,
    },
    {
        "id": "exp6",
        "title": "Beyond the seeds: threads, hand-off, std::pmr, atomic shared pointers",
        "seed": None,
        "intro": (
            "Two threads creating and destroying at once; cross-thread hand-off through an SPSC ring; "
            "std::pmr pool resources under std::allocate_shared and own (as a polymorphic_allocator, and "
            "as a plain memory_resource* - own_resource); and atomic shared pointers (std::atomic<"
            "std::shared_ptr> of libstdc++ 12, boost::atomic_shared_ptr, own::atomic_shared_ptr) loading, "
            "storing, and one thread storing while the other loads. Read boost's two-thread atomic rows as "
            "threads taking turns: Boost 1.74's atomic_shared_ptr guards its pointer with a spinlock that "
            "sleeps (nanosleep) once it has spun, and strace shows those rows sleeping while std's and "
            "own's never do, so one thread mostly runs alone there."
        ),
        "own_configured": r"^pmr_",  # cases whose own row is given a pool or resource
        "floor_case": None,
    },
    {
        "id": "exp7",
        "title": "Components: the performance targets of each own facility",
        "seed": None,
        "intro": (
            "One benchmark file per facility, each against the std (or usual) way in the same process: "
            "shared_ptr creation, copies and weak locks; managed_ptr against std::unique_ptr<T, void(*)(T*)> "
            "returning to the same free list, moves (their floor: the least any owner of four words, managed_ptr's "
            "size, can do in a move; floor_two_words: the same for two words, unique_ptr's size), and the "
            "shared -> managed -> shared round trip against "
            "one shared_ptr copy; local_shared_ptr copies; atomic_shared_ptr against "
            "std::atomic<std::shared_ptr>; and the block pools' allocate/deallocate pairs, batches, "
            "two sizes in turn (pool_two_sizes: a 24-byte then a 100-byte pair per round, from two pools or "
            "two size classes of one allocator) and cross-thread hand-off against glibc malloc (std) and "
            "std::pmr pool resources."
        ),
        "floor_case": None,
    },
    {
        "id": "exp8",
        "title": "Application workloads: what swapping std:: for own:: gives a whole program",
        "seed": None,
        "intro": (
            "Four small programs shaped like real users' (bench/application_workloads.cpp), each timed end to end "
            "(wall time of one whole run): a document tree of a million nodes built depth-first, each node "
            "followed by a payload of 24-200 bytes, walked, a quarter of it deep-copied, and freed (its phases "
            "timed on their own: walking and copying are where locality shows); a message pipeline (one producer, "
            "two consumers, messages of 64-1000 bytes); an LRU cache of 10,000 values used by two threads that "
            "also keep weak_ptr observers; a persistent (path-copying) map whose versions share nodes. `std` is "
            "std::shared_ptr with the process's malloc (glibc; tcmalloc, jemalloc and mimalloc in their own "
            "processes), `own` is own::shared_ptr with nothing else changed (its default heap), `own_pool` adds "
            "a concurrent_multipool as a user would. Peak RSS: the resident memory a fresh process running the "
            "workload once reaches above where it started."
        ),
        "floor_case": None,
    },
]

DROP_PARAM = re.compile(r"^(real_time|process_time|manual_time|iterations:\d+|repeats:\d+|min_time:.*)$")
UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
FAMILY_COLOURS = {"std": "#4C72B0", "own": "#DD8452", "boost": "#55A868", "floor": "#8C8C8C", "raw": "#8172B3",
                  "dumb": "#937860", "stack": "#DA8BC3", "seed": "#CCB974"}


class Row:
    def __init__(self, exp, case, impl, params, source):
        self.exp, self.case, self.impl, self.params, self.source = exp, case, impl, params, source
        self.ns = None
        self.cv = None
        self.counters = {}
        self.missing = None  # the error message, for rows whose own counterpart has not landed
        self.order = (0, 0, 0)  # (file, benchmark family, instance): registration order
        self.clock = "cpu_time"

    @property
    def family(self):
        return re.split(r"[_+]", self.impl)[0]


def parse_name(name):
    parts = [p for p in name.split("/") if not DROP_PARAM.match(p)]
    if len(parts) < 3 or not parts[0].startswith("exp"):
        return None
    return parts[0], parts[1], parts[2], "/".join(parts[3:])


def load(results_dir):
    rows = collections.OrderedDict()
    # Rows keep the order the executables register them in (file, then benchmark family and
    # instance): the JSON lists them in run order, which random interleaving shuffles.
    for file_index, fname in enumerate(sorted(os.listdir(results_dir))):
        if not fname.endswith(".json") or fname == "machine.json":
            continue
        with open(os.path.join(results_dir, fname)) as f:
            data = json.load(f)
        ctx = data.get("context", {})
        alloc = ctx.get("allocator", "glibc")
        for b in data.get("benchmarks", []):
            parsed = parse_name(b.get("run_name", b["name"]))
            if parsed is None:
                continue
            exp, case, impl, params = parsed
            if alloc != "glibc":
                if b.get("counters_only") or "bytes" in case:
                    continue  # heap probes mean nothing under another allocator
                impl = impl + "+" + alloc
            key = (exp, case, impl, params)
            row = rows.get(key)
            if row is None:
                row = rows[key] = Row(exp, case, impl, params, fname)
                row.order = (file_index, b.get("family_index", 0), b.get("per_family_instance_index", 0))
            if b.get("error_occurred"):
                row.missing = b.get("error_message", "not yet available (issue open)")
                continue
            scale = UNIT_NS.get(b.get("time_unit", "ns"), 1.0)
            agg = b.get("aggregate_name")
            clock = ("real_time" if (b.get("threads", 1) > 1 or "handoff" in params or exp in REAL_TIME_EXPERIMENTS)
                     else "cpu_time")
            row.clock = clock
            counters = {k: v for k, v in b.items()
                        if k not in KNOWN_FIELDS and isinstance(v, (int, float)) and not isinstance(v, bool)}
            if b.get("run_type") == "aggregate":
                if agg == "median":
                    row.ns = b[clock] * scale
                    row.counters.update(counters)
                elif agg == "cv":
                    row.cv = b[clock]
            elif row.ns is None:  # a single run (Repetitions(1) rows)
                row.ns = b[clock] * scale
                row.counters.update(counters)
    return rows


# Experiments timed by the wall clock throughout (their rows run threads of their own).
REAL_TIME_EXPERIMENTS = {"exp8"}
KNOWN_FIELDS = {"family_index", "per_family_instance_index", "repetitions", "repetition_index", "threads",
                "iterations", "real_time", "cpu_time", "items_per_second", "bytes_per_second"}


def fmt_ns(ns):
    if ns is None:
        return "-"
    if ns >= 1e6:
        return f"{ns / 1e6:,.2f} ms"
    if ns >= 1e4:
        return f"{ns / 1e3:,.1f} µs"
    if ns >= 100:
        return f"{ns:,.0f} ns"
    return f"{ns:.2f} ns"


def fmt_ratio(r, cross=False):
    if r is None:
        return "-"
    s = f"{r:.2g}×" if r < 0.1 else f"{r:.2f}×" if r < 100 else f"{r:,.0f}×"
    return s + ("†" if cross else "")


class Experiment:
    def __init__(self, meta, rows):
        self.meta = meta
        self.id = meta["id"]
        self.rows = [r for r in rows.values() if r.exp == self.id]
        self.index = {(r.case, r.impl, r.params): r for r in self.rows}

    def cases(self, exclude=()):
        seen = []
        for r in sorted(self.rows, key=lambda r: r.order):
            if r.case not in seen and r.case not in exclude:
                seen.append(r.case)
        return seen

    def params(self, case):
        seen = []
        for r in sorted(self.rows, key=lambda r: r.order):
            if r.case == case and r.params not in seen:
                seen.append(r.params)
        return seen

    def impls(self, case):
        seen = []
        for r in sorted(self.rows, key=lambda r: (impl_rank(r.impl), r.order)):
            if r.case == case and r.impl not in seen:
                seen.append(r.impl)
        return seen

    def get(self, case, impl, params):
        r = self.index.get((case, impl, params))
        return r if r is not None and r.ns is not None else None

    def ratio(self, row, other):
        if row is None or other is None or row.ns is None or other.ns is None or other.ns == 0:
            return None, False
        return row.ns / other.ns, row.source != other.source

    def same_process(self, row, impl):
        """`impl`'s row beside `row`: from the same allocator's process where that has one."""
        suffix = row.impl[row.impl.index("+"):] if "+" in row.impl and row.family not in ("std", "floor") else ""
        return (suffix and self.get(row.case, impl + suffix, row.params)) or self.get(row.case, impl, row.params)

    def std_of(self, row):
        return self.same_process(row, "std")

    def floor_of(self, row):
        f = self.same_process(row, "floor")
        if f is None and self.meta.get("floor_case"):
            f = self.get(self.meta["floor_case"], "floor", row.params)
        return f


def impl_rank(impl):
    fam = re.split(r"[_+]", impl)[0]
    base = {"std": 0, "own": 1, "boost": 2, "floor": 9}.get(fam, 5)
    return base + (0.5 if "+" in impl else 0)


def missing_text(row):
    m = re.search(r"<([^>]+)>", row.missing or "")
    return f"not yet available (issue open: `<{m.group(1)}>`)" if m else "not yet available (issue open)"


def params_label(p):
    if not p:
        return "single thread"
    return {"threads:1": "1 thread", "threads:2": "2 threads", "handoff": "hand-off (2 threads)"}.get(p, p)


# ---------------------------------------------------------------------------------------------- tables
def generic_table(exp, cases, extra=None):
    """One table: a line per (case, params, impl) with the median, ÷ std, ÷ floor (+ extra columns)."""
    any_params = any(p for c in cases for p in exp.params(c))
    any_floor = any(r.impl == "floor" for r in exp.rows)
    head = ["case"] + (["threads / mode"] if any_params else []) + ["impl", "median", "÷ std"]
    head += ["÷ floor"] if any_floor else []
    head += extra["headers"] if extra else []
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for case in cases:
        first_of_case = True
        for p in exp.params(case):
            first_of_params = True
            for impl in exp.impls(case):
                row = exp.index.get((case, impl, p))
                if row is None:
                    continue
                cells = [f"`{case}`" if first_of_case else ""]
                if any_params:
                    label = params_label(p) if (p or len(exp.params(case)) > 1) else ""
                    cells.append(label if first_of_params else "")
                first_of_case = first_of_params = False
                cells.append(f"`{impl}`")
                n = 2 + (1 if any_floor else 0) + (len(extra["headers"]) if extra else 0)  # cells after impl
                if row.missing:
                    cells += [missing_text(row)] + [""] * (n - 1)
                elif row.ns is None:
                    cells += ["-"] * n
                else:
                    cv = f" ±{row.cv * 100:.0f}%" if row.cv is not None else ""
                    cells.append(fmt_ns(row.ns) + cv)
                    cells.append(fmt_ratio(*exp.ratio(row, exp.std_of(row))))
                    if any_floor:
                        cells.append(fmt_ratio(*exp.ratio(row, exp.floor_of(row))))
                    if extra:
                        cells += extra["cells"](exp, row)
                lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    return "\n".join(lines)


def load_data(name):
    with open(os.path.join(DATA_DIR, name)) as f:
        return json.load(f)


def row_key(exp, case, impl, params):
    return "/".join(x for x in (exp, case, impl, params) if x)


def seed_extra(data):
    """Columns: our ratio to the seed's reference row, and the seed's own ratio for the rows it has."""
    by_row = {r["row"]: r for r in data["rows"]}
    refs = data["reference"]

    def cells(exp, row):
        ref_key = refs.get(row.params)
        ours = (None, False)
        if ref_key:
            _, rcase, rimpl, *rp = ref_key.split("/")
            ours = exp.ratio(row, exp.get(rcase, rimpl, "/".join(rp)))
        pr = by_row.get(row_key(exp.id, row.case, row.impl, row.params))
        if pr is None or not ref_key:
            seed_cell = ""
        else:
            ref_vals = by_row[ref_key]["values"]
            seed_cell = " / ".join(f"{v / r:.2f}" for v, r in zip(pr["values"], ref_vals))
        return [fmt_ratio(*ours), seed_cell]

    return {"headers": [data["ours_header"], data["seed_header"]], "cells": cells}


def exp3_extra(exp):
    case, impl, header = exp.meta["reference"]

    def cells(e, row):
        return [fmt_ratio(*e.ratio(row, e.get(case, impl, row.params)))]

    return {"headers": [header], "cells": cells}


def fit_line(points):
    """Least squares y = a + b x; returns a, b and two-standard-deviation errors."""
    n = len(points)
    if n < 2:
        return None
    xs = [p[0] for p in points]
    ys = [p[1] for p in points]
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return None
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    a = my - b * mx
    if n > 2:
        s2 = sum((y - a - b * x) ** 2 for x, y in zip(xs, ys)) / (n - 2)
        eb = 2 * math.sqrt(s2 / sxx)
        ea = 2 * math.sqrt(s2 * (1 / n + mx * mx / sxx))
    else:
        ea = eb = 0.0
    return a, b, ea, eb


def exp2_fits(exp):
    fits = collections.OrderedDict()
    for impl in exp.impls("copies"):
        rows = [r for r in exp.rows if r.case == "copies" and r.impl == impl]
        if any(r.missing for r in rows):
            fits[impl] = next(r for r in rows if r.missing)
            continue
        pts = sorted((int(r.params), r.ns) for r in rows if r.ns is not None and r.params.isdigit())
        fits[impl] = (fit_line(pts), pts)
    return fits


def exp2_tables(exp):
    out = []
    fits = exp2_fits(exp)
    std_fit = fits.get("std")
    floor_fit = fits.get("floor")

    def per(f, i):
        return f[0][i] if isinstance(f, tuple) and f[0] else None

    seed = load_data("boost_timings.json")
    seed_ref = seed["strategies"][seed["reference"]]
    impl_strategy = {i: name for name, st in seed["strategies"].items() for i in st["rows"]}

    def seed_ratio(impl, field):
        st = seed["strategies"].get(impl_strategy.get(impl, ""), {})
        if field not in st:
            return ""
        return " / ".join(f"{v / r:.2f}" for v, r in zip(st[field], seed_ref[field]))

    def pos_ratio(x, y):
        return fmt_ratio(x / y) if x is not None and y is not None and x > 0 and y > 0 else "-"

    out.append("**Fitted line** (time = initialisation + n × copy; errors at two standard deviations, "
               "as in the seed; ratios of the fitted costs within one process; the seed's columns are its "
               "figures divided by its simple counted pointer's, gcc 2.95.2 / MSVC 6.0)\n")
    out.append("| impl | seed's strategy | initialisation | per copy | init ÷ std | copy ÷ std | init ÷ floor | "
               "copy ÷ floor | seed: init ÷ simple | seed: copy ÷ simple |")
    out.append("|---|---|---|---|---|---|---|---|---|---|")
    for impl, f in fits.items():
        strat = impl_strategy.get(impl, "")
        tail = f"{seed_ratio(impl, 'init')} | {seed_ratio(impl, 'copy')} |"
        if isinstance(f, Row):
            out.append(f"| `{impl}` | {strat} | {missing_text(f)} | | | | | | {tail}")
            continue
        if f[0] is None:
            out.append(f"| `{impl}` | {strat} | - | - | | | | | {tail}")
            continue
        a, b, ea, eb = f[0]
        out.append(f"| `{impl}` | {strat} | {a:.1f} ± {ea:.1f} ns | {b:.2f} ± {eb:.2f} ns | "
                   f"{pos_ratio(a, per(std_fit, 0))} | {pos_ratio(b, per(std_fit, 1))} | "
                   f"{pos_ratio(a, per(floor_fit, 0))} | {pos_ratio(b, per(floor_fit, 1))} | {tail}")
    out.append("")
    out.append("**Container test** (300,000 pointers; quick mode 100,000)\n")
    cont = ["vector_fill", "vector_sort", "list_fill", "list_sort"]
    out.append("| impl | " + " | ".join(f"{c} | ÷ std" for c in cont) + " |")
    out.append("|---|" + "---|---|" * len(cont))
    for impl in exp.impls("vector_fill"):
        cells = [f"`{impl}`"]
        for c in cont:
            row = exp.index.get((c, impl, ""))
            if row is None:
                cells += ["", ""]
            elif row.missing:
                cells += [missing_text(row), ""]
            else:
                cells += [fmt_ns(row.ns), fmt_ratio(*exp.ratio(row, exp.std_of(row)))]
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    out.append("**Data size** (sizeof the pointer, bytes)\n")
    out.append("| impl | sizeof | seed's strategy | seed's size (gcc 2.95.2 / MSVC 6.0, 32-bit) |")
    out.append("|---|---|---|---|")
    for impl in exp.impls("sizeof"):
        row = exp.index.get(("sizeof", impl, ""))
        if row is None:
            continue
        val = missing_text(row) if row.missing else f"{row.counters.get('bytes', float('nan')):.0f}"
        st = seed["strategies"].get(impl_strategy.get(impl, ""), {})
        seed_size = " / ".join(str(v) for v in st["sizeof"]) if "sizeof" in st else ""
        out.append(f"| `{impl}` | {val} | {impl_strategy.get(impl, '')} | {seed_size} |")
    out.append("")
    out.append("**The seed's container figures** ÷ its simple counted pointer's (gcc 2.95.2 / MSVC 6.0), "
               "beside ours ÷ std:\n")
    out.append("| seed's strategy | our impl | " + " | ".join(f"{c}: seed | {c}: ours" for c in cont) + " |")
    out.append("|---|---|" + "---|---|" * len(cont))
    for name, st in seed["strategies"].items():
        if "vector_fill" not in st:
            continue
        for impl in (st["rows"] or [""]):
            cells = [name, f"`{impl}`" if impl else "(none here)"]
            for c in cont:
                sr = " / ".join(f"{v / r:.2f}" for v, r in zip(st[c], seed_ref[c]))
                row = exp.get(c, impl, "") if impl else None
                cells += [sr, fmt_ratio(*exp.ratio(row, exp.std_of(row))) if row else "-"]
            out.append("| " + " | ".join(cells) + " |")
    out.append(f"\n*The seed's figures*: {seed['source']}. {seed['note']}\n")
    return "\n".join(out), fits


def exp8_extra(exp):
    phases = ["build_ms", "walk_ms", "copy_ms", "free_ms"]

    def cells(exp, row):
        c = row.counters
        out = [f"{c[p]:.1f}" if p in c else "" for p in phases]
        rss = c.get("peak_rss_mib")
        std = exp.get(row.case, "std", row.params)
        std_rss = std.counters.get("peak_rss_mib") if std else None
        out.append(f"{rss:.1f}" if rss is not None and rss >= 0 else "-")
        out.append(fmt_ratio(rss / std_rss) if rss and std_rss and rss > 0 and std_rss > 0 else "-")
        return out
    return {"headers": ["build ms", "walk ms", "copy ms", "free ms", "peak RSS MiB", "RSS ÷ std"], "cells": cells}


def exp3_memory_table(exp):
    out = ["**Memory per live object** (100,000 live objects; heap bytes from glibc mallinfo2 deltas and own's default heap's pages in use, "
           "allocator headers and pool slack included)\n",
           "| form | impl | heap per object | sizeof pointer | total | ÷ std |", "|---|---|---|---|---|---|"]
    for case in exp.cases():
        if not case.startswith("bytes_"):
            continue
        for impl in exp.impls(case):
            row = exp.index.get((case, impl, ""))
            if row is None:
                continue
            if row.missing:
                out.append(f"| `{case[6:]}` | `{impl}` | {missing_text(row)} | | | |")
                continue
            c = row.counters
            std = exp.get(case, "std", "")
            ratio = fmt_ratio(c["total"] / std.counters["total"]) if std and std.counters.get("total") else "-"
            out.append(f"| `{case[6:]}` | `{impl}` | {c.get('heap_per_object', 0):.1f} B | "
                       f"{c.get('pointer', 0):.0f} B | {c.get('total', 0):.1f} B | {ratio} |")
    out.append("")
    return "\n".join(out)


# ---------------------------------------------------------------------------------------------- charts
def colour(impl):
    fam = re.split(r"[_+]", impl)[0]
    return FAMILY_COLOURS.get(fam, "#8172B3")


def bar_chart(exp, cases, path, title):
    """One panel per params value (single thread, 2 threads, hand-off...): cases down, one bar per impl.
    Allocator variants (std+tcmalloc...) are left to the tables, to keep the chart readable."""
    params_all = []
    for case in cases:
        for p in exp.params(case):
            if p not in params_all:
                params_all.append(p)
    impls = []
    for case in cases:
        for i in exp.impls(case):
            if "+" not in i and i not in impls:
                impls.append(i)
    impls.sort(key=impl_rank)
    panels = []
    for p in params_all:
        pc = [c for c in cases if any(exp.get(c, i, p) for i in impls)]
        if pc:
            panels.append((p, pc))
    if not panels:
        return False
    height = max(2.5, max(len(pc) * (0.18 * len(impls) + 0.25) for _, pc in panels) + 1.2)
    fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels) + 2, height), squeeze=False)
    width = 0.8 / max(1, len(impls))
    for ax, (p, pc) in zip(axes[0], panels):
        for k, impl in enumerate(impls):
            ys, xs = [], []
            for j, case in enumerate(pc):
                row = exp.get(case, impl, p)
                if row is not None:
                    ys.append(j + (k - (len(impls) - 1) / 2) * width)
                    xs.append(row.ns)
            if xs:
                ax.barh(ys, xs, height=width, color=impl_colour(impl, impls), label=impl)
        ax.set_yticks(range(len(pc)))
        ax.set_yticklabels(pc, fontsize=8)
        ax.invert_yaxis()
        ax.set_xscale("log")
        ax.set_xlabel("median ns per operation (log; shorter is better)", fontsize=8)
        ax.set_title(params_label(p) if len(panels) > 1 or p else "", fontsize=9)
        ax.grid(axis="x", which="both", alpha=0.3)
    handles, labels = [], []
    for ax in axes[0]:
        for h, l in zip(*ax.get_legend_handles_labels()):
            if l not in labels:
                handles.append(h)
                labels.append(l)
    fig.legend(handles, labels, fontsize=8, loc="upper right", ncol=min(6, len(labels)))
    fig.suptitle(title, fontsize=10, x=0.01, ha="left")
    fig.tight_layout(rect=(0, 0, 1, 0.93))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def impl_colour(impl, impls):
    """The family's colour, lighter for each further variant of the same family."""
    fam = re.split(r"[_+]", impl)[0]
    base = FAMILY_COLOURS.get(fam, "#8172B3")
    same = sorted((i for i in impls if re.split(r"[_+]", i)[0] == fam), key=lambda i: (i != fam, i))
    k = same.index(impl) if impl in same else 0
    rgb = matplotlib.colors.to_rgb(base)
    mix = min(0.6, 0.22 * k)
    return tuple(c + (1 - c) * mix for c in rgb)


def seed_chart(exp, paper, path, xlabel, title):
    by_row = {r["row"]: r for r in paper["rows"]}
    labels, ours, owns, papers = [], [], [], []
    for r in paper["rows"]:
        _, case, impl, *pp = r["row"].split("/")
        params = "/".join(pp)
        row = exp.get(case, impl, params)
        ref_key = paper["reference"][params]
        _, rcase, rimpl, *rp = ref_key.split("/")
        ref = exp.get(rcase, rimpl, "/".join(rp))
        ref_vals = by_row[ref_key]["values"]
        labels.append(f"{impl} {case}" + (f" [{params_label(params)}]" if params else ""))
        ours.append(row.ns / ref.ns if row and ref else float("nan"))
        own = exp.get(case, "own", params) if impl == "std" else None  # the seed measured std; own beside it
        owns.append(own.ns / ref.ns if own and ref else float("nan"))
        papers.append([v / rv for v, rv in zip(r["values"], ref_vals)])
    fig, ax = plt.subplots(figsize=(10, 1.5 + 0.45 * len(labels)))
    n = len(labels)
    nplat = len(paper["platforms"])
    with_own = any(not math.isnan(o) for o in owns) or any(r["row"].split("/")[2] == "std" for r in paper["rows"])
    nbars = nplat + 1 + (1 if with_own else 0)
    width = 0.8 / nbars
    for k, plat in enumerate(paper["platforms"]):
        ax.barh([i + (k - (nbars - 1) / 2) * width for i in range(n)], [p[k] for p in papers], height=width,
                color=["#c6dbef", "#9ecae1", "#6baed6", "#4292c6"][k % 4], label=f"seed: {plat}")
    ax.barh([i + (nplat - (nbars - 1) / 2) * width for i in range(n)], ours, height=width,
            color="#4C72B0" if with_own else "#DD8452", label="this machine: the seed's row")
    if with_own:
        ax.barh([i + (nplat + 1 - (nbars - 1) / 2) * width for i in range(n)], owns, height=width, color="#DD8452",
                label="this machine: own's counterpart")
    ax.axvline(1.0, color="black", lw=0.8)
    ax.set_yticks(range(n))
    ax.set_yticklabels(labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=10)
    ax.legend(fontsize=7, loc="lower right")
    ax.grid(axis="x", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def exp2_chart(fits, path):
    fig, ax = plt.subplots(figsize=(9, 5))
    for impl, f in fits.items():
        if isinstance(f, Row) or f[0] is None:
            continue
        (a, b, _, _), pts = f
        xs = [p[0] for p in pts]
        c = impl_colour(impl, list(fits))
        ax.plot(xs, [p[1] for p in pts], "o", color=c, ms=4)
        ax.plot(xs, [a + b * x for x in xs], color=c, lw=1,
                label=f"{impl}: {a:.0f} + {b:.2f}·n ns", linestyle="--" if impl.startswith(("boost", "raw", "dumb")) else "-")
    ax.set_xlabel("n amortised copies (half copy-construction, half assignment)")
    ax.set_ylabel("median ns (initialisation + n copies + release)")
    ax.set_title("Boost Smart Pointer Timings, reproduced: fitted lines", fontsize=10)
    ax.legend(fontsize=7, ncol=2)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ---------------------------------------------------------------------------------------------- report
def headline(exps):
    """One line per experiment: own ÷ std for each case, in one process."""
    out = ["| experiment | case | own row | own ÷ std | own ÷ floor |", "|---|---|---|---|---|"]
    picks = [
        ("exp1", "basic", "own", "threads:1"), ("exp1", "inplace", "own", "threads:1"),
        ("exp1", "inplace_nonthreaded_pool", "own", "threads:1"), ("exp1", "inplace_threaded_pool", "own", "threads:2"),
        ("exp3", "make_shared", "own", ""), ("exp3", "make_shared", "own_pool", ""),
        ("exp3", "make_unique", "own_managed", ""),
        ("exp4", "make_shared_for_overwrite", "own", ""), ("exp4", "allocate_shared_pool", "own", "handoff"),
        ("exp5", "small_acquire", "own", ""), ("exp5", "big_acquire", "own", ""),
        ("exp6", "create_destroy", "own", "threads:2"), ("exp6", "handoff", "own", ""),
        ("exp6", "pmr_unsync", "own_resource", ""), ("exp6", "atomic_load", "own", "threads:2"),
        ("exp7", "managed_move", "own", ""), ("exp7", "managed_create_destroy", "own", ""),
    ]
    for eid, case, impl, params in picks:
        exp = exps.get(eid)
        if exp is None:
            continue
        row = exp.index.get((case, impl, params))
        label = f"`{case}`" + (f" ({params_label(params)})" if params else "")
        if row is None:
            continue
        if row.missing:
            out.append(f"| {eid} | {label} | `{impl}` | {missing_text(row)} | |")
        else:
            out.append(f"| {eid} | {label} | `{impl}` | {fmt_ratio(*exp.ratio(row, exp.std_of(row)))} | "
                       f"{fmt_ratio(*exp.ratio(row, exp.floor_of(row)))} |")
    exp2 = exps.get("exp2")
    if exp2 is not None and exp2.rows:
        fits = exp2_fits(exp2)
        std_fit = fits.get("std")
        floor_fit = fits.get("floor")
        for impl in ("own", "own_pool", "own_intrusive", "own_local"):
            f = fits.get(impl)
            if f is None:
                continue
            if isinstance(f, Row):
                out.append(f"| exp2 | per copy (fitted) | `{impl}` | {missing_text(f)} | |")
                continue
            if f[0] is None or not isinstance(std_fit, tuple) or std_fit[0] is None:
                continue
            b = f[0][1]
            to_std = fmt_ratio(b / std_fit[0][1]) if b > 0 and std_fit[0][1] > 0 else "-"
            to_floor = (fmt_ratio(b / floor_fit[0][1]) if isinstance(floor_fit, tuple) and floor_fit[0]
                        and b > 0 and floor_fit[0][1] > 0 else "-")
            out.append(f"| exp2 | per copy (fitted) | `{impl}` | {to_std} | {to_floor} |")
    return "\n".join(out)


def swap_headline(exps):
    """The user's question: what does replacing std:: by own::, and changing nothing else, give? Every
    case with both an `own` row and a `std` row, except those where own is given a pool or a resource
    (the experiment's "own_configured" cases), made by rule,
    wins and losses alike: own ÷ std in one process, and own ÷ the best std+<allocator> row (in that
    allocator's process where own ran there too, else across processes, †)."""
    out = ["| experiment | case | own ÷ std | own ÷ best malloc peer |", "|---|---|---|---|"]
    wins = losses = 0
    lost = []
    for eid, exp in exps.items():
        configured = exp.meta.get("own_configured")
        for case in exp.cases():
            if configured and re.search(configured, case):
                continue  # own given a pool or a resource: not the default path
            if exp.meta.get("untimed") and re.search(exp.meta["untimed"], case):
                continue
            for p in exp.params(case):
                own, std = exp.get(case, "own", p), exp.get(case, "std", p)
                if own is None or std is None:
                    continue
                r, cross = exp.ratio(own, std)
                wins, losses = wins + (r < 1), losses + (r >= 1)
                label = f"`{case}`" + (f" ({params_label(p)})" if p else "")
                if r >= 1:
                    lost.append(f"{eid} {label}")
                best = None
                for alloc in ("tcmalloc", "jemalloc", "mimalloc"):
                    peer = exp.get(case, "std+" + alloc, p)
                    if peer is None:
                        continue
                    mine = exp.get(case, "own+" + alloc, p) or own
                    ratio, c = exp.ratio(mine, peer)
                    if best is None or ratio > best[0]:
                        best = (ratio, c, alloc)
                peer_cell = f"{fmt_ratio(best[0], best[1])} (std+{best[2]})" if best else "-"
                out.append(f"| {eid} | {label} | {fmt_ratio(r, cross)} | {peer_cell} |")
    summary = (f"own's default path is faster than std in {wins} of {wins + losses} cases"
               + (f"; slower or level in: {', '.join(lost)}." if lost else ".") +
               " The malloc peer column compares own with the fastest of std + tcmalloc, jemalloc and mimalloc "
               "(the allocator a user could preload instead).\n")
    return summary + "\n" + "\n".join(out) + "\n"


def pool_targets(exps):
    """The pool facility's speed targets, each computed from this run's rows (no number typed in)."""
    def row(eid, case, impl, params=""):
        exp = exps.get(eid)
        return exp.get(case, impl, params) if exp else None

    out = ["| target | where | measured | met |", "|---|---|---|---|"]

    def check(target, where, a, b, goal, as_speedup, scale=1.0):
        """a.ns / b.ns (times scale) against goal: at least goal as a speed-up of own (a: the peer, b: own),
        else at most goal as own's time over a reference (a: own, b: the reference)."""
        if a is None or b is None or not b.ns:
            out.append(f"| {target} | {where} | - | - |")
            return
        r, cross = scale * a.ns / b.ns, a.source != b.source
        if as_speedup:
            value, ok = (f"{r:.1f}× faster" if r >= 1 else f"{1 / r:.1f}× slower") + ("†" if cross else ""), r >= goal
        else:
            value, ok = fmt_ratio(r, cross), r <= goal
        out.append(f"| {target} | {where} | {value} | {'yes' if ok else 'no'} |")

    # (where, own row, std::make_shared row, floor row); two-thread rows: wall time per operation of both threads
    create_destroy = [
        ("exp1 `own::pool`, 1 thread", row("exp1", "inplace_nonthreaded_pool", "own", "threads:1"),
         row("exp1", "inplace", "std", "threads:1"), row("exp1", "floor", "floor", "threads:1")),
        ("exp3 `own::pool`", row("exp3", "make_shared", "own_pool"), row("exp3", "make_shared", "std"),
         row("exp3", "make_shared", "floor")),
        ("exp1 `concurrent_pool`, 1 thread", row("exp1", "inplace_threaded_pool", "own", "threads:1"),
         row("exp1", "inplace", "std", "threads:1"), row("exp1", "floor", "floor", "threads:1")),
        ("exp1 `concurrent_pool`, 2 threads", row("exp1", "inplace_threaded_pool", "own", "threads:2"),
         row("exp1", "inplace", "std", "threads:2"), row("exp1", "floor", "floor", "threads:2")),
        ("exp6 `concurrent_pool`, 1 thread", row("exp6", "create_destroy", "own_pool", "threads:1"),
         row("exp6", "create_destroy", "std", "threads:1"), row("exp6", "create_destroy", "floor", "threads:1")),
        ("exp6 `concurrent_pool`, 2 threads", row("exp6", "create_destroy", "own_pool", "threads:2"),
         row("exp6", "create_destroy", "std", "threads:2"), row("exp6", "create_destroy", "floor", "threads:2")),
    ]
    for where, own, std, _ in create_destroy:
        check("create+destroy ≥ 3× faster than `std::make_shared`", where, std, own, 3, True)
    for where, own, _, floor in create_destroy:
        check("create+destroy ≤ 1.3× the floor", where, own, floor, 1.3, False)
    pair = row("exp7", "pool_pair", "own_pool", "threads:1")
    out.append(f"| allocate+deallocate pair ≤ 1.5 ns | exp7 `own::pool` | {fmt_ns(pair.ns) if pair else '-'} | "
               f"{'-' if pair is None else 'yes' if pair.ns <= 1.5 else 'no'} |")
    check("pair ≥ 10× faster than `pmr::unsynchronized_pool_resource`", "exp7 `own::pool`",
          row("exp7", "pool_pair", "pmr_unsynchronized", "threads:1"), pair, 10, True)
    for where, (_, own1, _, _), (_, own2, std2, _) in (("exp1", create_destroy[2], create_destroy[3]),
                                                        ("exp6", create_destroy[4], create_destroy[5])):
        # per thread, an operation takes twice the wall time per operation of both threads
        check("2 threads: per-thread cost ≤ 1.2× one thread's", f"{where} `concurrent_pool`", own2, own1, 1.2,
              False, scale=2.0)
        check("2 threads: ≥ 5× faster than `std::make_shared`", f"{where} `concurrent_pool`", std2, own2, 5, True)
    # own_pool's hand-off row also runs in the other allocators' processes, for a ratio within one process
    for alloc, goal in (("", 3), ("+mimalloc", 1), ("+tcmalloc", 1)):
        check(f"hand-off ≥ {goal}× faster than `std{alloc}`" if goal > 1 else f"hand-off ahead of `std{alloc}`",
              f"exp6 `concurrent_pool`{' (in that process)' if alloc else ''}", row("exp6", "handoff", "std" + alloc),
              row("exp6", "handoff", "own_pool" + alloc), goal, True)
    check("object_pool acquire/release ≥ 100× faster than the seed's linear-scan pool (1000 objects)",
          "exp5 `big_acquire`", row("exp5", "big_acquire", "seed_pool"), row("exp5", "big_acquire", "own"), 100, True)
    return "\n".join(out) + "\n"


def missing_summary(rows):
    by_header = collections.OrderedDict()
    for r in rows.values():
        if r.missing:
            m = re.search(r"<([^>]+)>", r.missing)
            by_header.setdefault(m.group(1) if m else "?", []).append(r)
    if not by_header:
        return "Every own row has its counterpart: none is missing.\n"
    out = ["Rows whose own counterpart has not landed yet (issue open) - listed in the tables, not left out:\n"]
    for header, rs in by_header.items():
        names = sorted({f"{r.exp}/{r.case}/{r.impl}" for r in rs})
        out.append(f"- `<{header}>`: {len(names)} rows ({', '.join('`' + n + '`' for n in names[:6])}"
                   f"{', …' if len(names) > 6 else ''})")
    out.append("")
    return "\n".join(out)


def machine_section(machine, rows, results_dir):
    ctx = {}
    for fname in sorted(os.listdir(results_dir)):
        if fname.endswith(".json") and fname != "machine.json":
            with open(os.path.join(results_dir, fname)) as f:
                ctx = json.load(f).get("context", {})
            break
    caches = ", ".join(f"L{c['level']} {c['type'].lower()} {c['size'] // 1024} KiB"
                       + (f" ×{ctx['num_cpus'] // c['num_sharing']}" if c.get("num_sharing") else "")
                       for c in ctx.get("caches", []))
    timings = []
    tsv = os.path.join(results_dir, "timings.tsv")
    if os.path.exists(tsv):
        with open(tsv) as f:
            for line in f:
                e, exe, alloc, secs = line.rstrip("\n").split("\t")
                timings.append(f"{e} {exe} ({alloc}) {secs} s")
    allocs = machine.get("allocators", {})
    lines = [
        f"- **CPU**: {machine.get('cpu', '?')}, {machine.get('cpus', '?')} cores "
        f"({ctx.get('mhz_per_cpu', '?')} MHz; {caches}); shared with other work, so absolute times drift",
        f"- **OS**: {machine.get('os', '?')}, {machine.get('kernel', '?')}",
        f"- **Compiler**: {machine.get('compiler', '?')}; flags: `{machine.get('cxx_flags', '?')}`",
        f"- **Harness**: {machine.get('benchmark_library', '?')} (Debian's build, which reports itself as "
        f"'{ctx.get('library_build_type', '?')}'; it only affects the harness, not the code measured); "
        f"Boost {machine.get('boost', '?')}",
        f"- **Allocators**: glibc {allocs.get('glibc', '?')} malloc for every row; std rows also run with "
        + ", ".join(f"{k} (`LD_PRELOAD={v}`)" for k, v in allocs.items() if k != "glibc")
        + " into the same executables (rows named `std+<allocator>`; exp6's `own_pool` hand-off row is run "
        "there too, as `own_pool+<allocator>`)",
        f"- **Run**: {machine.get('mode', '?')} mode, {machine.get('repetitions', '?')} repetitions of at least "
        f"{machine.get('min_time_s', '?')} s each, interleaved in random order with the other rows' (medians shown), own at {machine.get('own_commit', '?')}, "
        f"run {machine.get('run_id', '?')}, {machine.get('wall_time_s', '?')} s of wall time",
    ]
    if timings:
        lines.append("- **Wall time per step**: " + "; ".join(timings))
    return "\n".join(lines) + "\n"


def render(results_dir, out_dir):
    rows = load(results_dir)
    machine = {}
    mpath = os.path.join(results_dir, "machine.json")
    if os.path.exists(mpath):
        with open(mpath) as f:
            machine = json.load(f)
    img_dir = os.path.join(out_dir, "benchmarks")
    os.makedirs(img_dir, exist_ok=True)
    exps = collections.OrderedDict((m["id"], Experiment(m, rows)) for m in EXPERIMENTS)

    doc = ["# own benchmark report", ""]
    doc.append("<!-- Generated by scripts/render_report.py from the JSON of scripts/report.sh; do not edit. -->")
    doc.append("")
    if machine.get("mode") == "quick":
        doc.append("> **Quick mode**: small workloads and few repetitions, to check the plumbing. "
                   "Not for citing; `bash scripts/report.sh` makes the real report.\n")
    doc.append("Each experiment reproduces a published one (the seeds in `/work/shared/seeds/`) on this machine, "
               "with `own` beside the peers it measured. Times are medians of repeated runs (single-thread rows: CPU "
               "time of the benchmark thread, robust to the shared machine; two-thread and hand-off rows: wall time "
               "per operation of all threads); the ratios, measured "
               "within one process, are the headline (÷ std: against libstdc++ with glibc malloc; ÷ floor: against "
               "a bare thread-local free list with one atomic count, `bench/common/floor.hpp`). "
               "† marks a ratio between rows of different processes. Lower is better everywhere.\n")
    doc.append("## Swapping std:: for own::, nothing else changed\n")
    doc.append(swap_headline(exps))
    doc.append("## Headline ratios\n")
    doc.append(headline(exps))
    doc.append("")
    doc.append(missing_summary(rows))
    doc.append("## Pool targets\n")
    doc.append("The speed targets set for `own::pool`, `own::concurrent_pool` and `own::object_pool`, each worked "
               "out from this run's rows (÷ floor and × faster: the two rows' medians, in one process unless marked "
               "†). A target that is met in one run and missed in the next is within this shared machine's noise.\n")
    doc.append(pool_targets(exps))
    doc.append("## Machine\n")
    doc.append(machine_section(machine, rows, results_dir))

    for eid, exp in exps.items():
        m = exp.meta
        doc.append(f"## {eid}: {m['title']}\n")
        if m["seed"]:
            doc.append(f"*Seed*: `{m['seed']}`. " + m["intro"] + "\n")
        else:
            doc.append(m["intro"] + "\n")
        if not exp.rows:
            doc.append("No results for this experiment in this run.\n")
            continue
        chart = f"{eid}.png"
        if m.get("seed_data"):
            data = load_data(m["seed_data"])
            doc.append(generic_table(exp, exp.cases(), seed_extra(data)))
            seed_chart(exp, data, os.path.join(img_dir, chart), data["ours_header"].replace(" (ours)", "") +
                       " (< 1 is faster)", f"{eid}: the seed's ratios beside ours (a missing bar: row not yet available)")
            doc.append(f"![{eid}](benchmarks/{chart})\n")
            bar_chart(exp, exp.cases(), os.path.join(img_dir, f"{eid}_all.png"), f"{eid}: every row (medians)")
            doc.append(f"![{eid} all rows](benchmarks/{eid}_all.png)\n")
            doc.append(f"*The seed's figures*: {data['source']}. {data['note']}" +
                       (" The paper's 'Basic Constructor With Pool' is read as the threaded pool (its "
                        "'Non-Threaded Pool' row is separate)." if eid == "exp1" else "") + "\n")
        elif eid == "exp2":
            text, fits = exp2_tables(exp)
            doc.append(text)
            exp2_chart(fits, os.path.join(img_dir, chart))
            doc.append(f"![{eid}](benchmarks/{chart})\n")
            bar_chart(exp, ["vector_fill", "vector_sort", "list_fill", "list_sort"],
                      os.path.join(img_dir, f"{eid}_containers.png"), "Container test (300,000 pointers)")
            doc.append(f"![{eid} containers](benchmarks/{eid}_containers.png)\n")
        elif eid == "exp3":
            timed = [c for c in exp.cases() if not c.startswith("bytes_")]
            doc.append(generic_table(exp, timed, exp3_extra(exp)))
            doc.append(exp3_memory_table(exp))
            bar_chart(exp, timed, os.path.join(img_dir, chart), "Create and destroy an int")
            doc.append(f"![{eid}](benchmarks/{chart})\n")
        elif eid == "exp8":
            doc.append(generic_table(exp, exp.cases(), exp8_extra(exp)))
            bar_chart(exp, exp.cases(), os.path.join(img_dir, chart), "Application workloads, one whole run")
            doc.append(f"![{eid}](benchmarks/{chart})\n")
        else:
            doc.append(generic_table(exp, exp.cases()))
            bar_chart(exp, exp.cases(), os.path.join(img_dir, chart), m["title"])
            doc.append(f"![{eid}](benchmarks/{chart})\n")

    doc.append("## How this report is made\n")
    doc.append("`bash scripts/report.sh` (full, about 10-15 minutes on 2 cores) or `bash scripts/report.sh --quick` "
               "(about 2 minutes, a plumbing check) builds the `release` preset's benchmarks (`bench/*.cpp`, one "
               "executable per experiment; the N1851 one with `BOOST_SP_USE_QUICK_ALLOCATOR`), runs each with "
               "repetitions, keeps Google Benchmark's JSON in `bench/results/<run>/` (the latest full run's is "
               "copied to `docs/benchmarks/raw/`), and renders this file with `scripts/render_report.py`, whose "
               "header documents the row-naming convention.\n")
    with open(os.path.join(out_dir, "benchmarks.md"), "w") as f:
        f.write("\n".join(doc))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", required=True, help="directory with one run's JSON files and machine.json")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs"), help="where benchmarks.md and benchmarks/ go")
    args = ap.parse_args()
    render(args.results, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
