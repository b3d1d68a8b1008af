# SPDX-License-Identifier: BSL-1.0
"""Loading one run's Google Benchmark JSON into rows, and looking rows up (see the naming convention
in scripts/render_report.py)."""

import collections
import json
import os
import re
import statistics

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA_DIR = os.path.join(ROOT, "bench", "data")  # the seeds' own figures, each file citing its seed

DROP_PARAM = re.compile(r"^(real_time|process_time|manual_time|iterations:\d+|repeats:\d+|min_time:.*)$")
UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
# A row whose repetitions spread wider than this (coefficient of variation) is flagged in the tables and
# charts and never decides a headline or a verdict: on this shared machine such a row has been seen to
# move by 3x between runs (issue #15), which would flip a conclusion drawn from it.
UNSTABLE_CV = 0.20
# A result file of rows measured again with more repetitions because they spread over the limit
# (scripts/unstable_rows.py, scripts/report.sh): its rows replace the first measurement's.
REMEASURED_SUFFIX = "-remeasured.json"


class Row:
    def __init__(self, exp, case, impl, params, source):
        self.exp, self.case, self.impl, self.params, self.source = exp, case, impl, params, source
        self.ns = None
        self.cv = None
        self.counters = {}
        self.samples = []  # one value (ns) per repetition, where the JSON keeps them
        self.missing = None  # the error message, for rows whose own counterpart has not landed
        self.order = (0, 0, 0)  # (file, benchmark family, instance): registration order
        self.clock = "cpu_time"
        self.remeasured = False  # measured again, with more repetitions, after spreading over the limit

    def forget_measurement(self):
        self.ns = self.cv = None
        self.counters = {}
        self.samples = []
        self.remeasured = True

    @property
    def unstable(self):
        return self.cv is not None and self.cv > UNSTABLE_CV

    @property
    def quartiles(self):
        """The first and third quartiles of the repetitions (ns), or None with fewer than three."""
        if len(self.samples) < 3:
            return None
        q = statistics.quantiles(self.samples, n=4, method="inclusive")
        return q[0], q[2]

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
    names = sorted(os.listdir(results_dir))
    # Re-measured rows last, each replacing its first measurement (its order stays the first's).
    names = [n for n in names if not n.endswith(REMEASURED_SUFFIX)] + [n for n in names if n.endswith(REMEASURED_SUFFIX)]
    for file_index, fname in enumerate(names):
        if not fname.endswith(".json") or fname == "machine.json":
            continue
        replacing = set()
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
            elif fname.endswith(REMEASURED_SUFFIX) and key not in replacing:
                replacing.add(key)
                row.forget_measurement()
            if b.get("error_occurred"):
                row.missing = b.get("error_message", "not yet available (issue open)")
                continue
            scale = UNIT_NS.get(b.get("time_unit", "ns"), 1.0)
            agg = b.get("aggregate_name")
            clock = row_clock(b.get("run_name", b["name"]), b.get("threads", 1), exp, case, params)
            row.clock = clock
            counters = {k: v for k, v in b.items()
                        if k not in KNOWN_FIELDS and isinstance(v, (int, float)) and not isinstance(v, bool)}
            if b.get("run_type") == "aggregate":
                if agg == "median":
                    row.ns = b[clock] * scale
                    row.counters.update(counters)
                elif agg == "cv":
                    row.cv = b[clock]
            else:
                row.samples.append(b[clock] * scale)
                if row.ns is None:  # a single run (Repetitions(1) rows); a median aggregate replaces it
                    row.ns = b[clock] * scale
                    row.counters.update(counters)
    return rows


def row_clock(name, threads, exp, case, params):
    """The clock a row is read by. A row that asked for its process's CPU time (exp7's hand-offs: both
    threads' CPU) is read by it, and a row timed by hand by the time it gave (exp2's container rows:
    the CPU time of a fresh process's thread, bench/common/fresh_process.hpp; Google Benchmark
    reports a manual time as real_time); rows with two threads, or a second thread (hand-off: in the
    case or the params), by the wall clock (for the hand-off floor, that is half its one-thread time:
    bench/common/handoff.hpp); other rows by the benchmark thread's CPU time."""
    if "/process_time" in name:
        return "cpu_time"
    if "/manual_time" in name:
        return "real_time"
    if threads > 1 or "handoff" in case or "handoff" in params or exp in REAL_TIME_EXPERIMENTS:
        return "real_time"
    return "cpu_time"


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


def fmt_spread(row):
    """The row's spread across repetitions, flagged (⚠) past UNSTABLE_CV."""
    if row.cv is None:
        return ""
    return f" ±{row.cv * 100:.0f}%" + (" ⚠" if row.unstable else "")


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


def plain_impl(impl):
    """The row a pooled impl is compared with: its name without the pool (`own_pool` -> `own`,
    `own_managed_pool` -> `own_managed`, `std_pmr_pool` and `std_boost_pool` -> `std`)."""
    return re.sub(r"_(pmr|boost)$", "", impl[: -len("_pool")] if impl.endswith("_pool") else impl)


def missing_text(row):
    m = re.search(r"<([^>]+)>", row.missing or "")
    return f"not yet available (issue open: `<{m.group(1)}>`)" if m else "not yet available (issue open)"


def params_label(p):
    if not p:
        return "single thread"
    if p == "handoff":
        return "hand-off (2 threads)"
    m = re.fullmatch(r"threads:(\d+)", p)
    if m:
        return "1 thread" if m.group(1) == "1" else f"{m.group(1)} threads"
    return p


def load_data(name):
    with open(os.path.join(DATA_DIR, name)) as f:
        return json.load(f)


def row_key(exp, case, impl, params):
    return "/".join(x for x in (exp, case, impl, params) if x)
