# SPDX-License-Identifier: BSL-1.0
"""The sections at the top of the report: the headline tables, the pool targets, missing rows, the
machine."""

import collections
import json
import os
import re

from . import compare
from .results import fmt_ns, fmt_ratio, params_label


def case_label(case, params):
    return f"`{case}`" + (f" ({params_label(params)})" if params else "")


def headline(exps):
    """For every case, own's best row ÷ the best peer row (compare.verdicts), wins and losses alike,
    sorted from own's largest lead to its largest deficit."""
    vs = compare.verdicts(exps)
    judged = sorted((v for v in vs if v.judged), key=lambda v: v.ratio)
    ahead = sum(v.ratio < 1 for v in judged)
    out = [f"own's best row is faster than the best peer's in {ahead} of {len(judged)} cases and slower or level "
           f"in {len(judged) - ahead}" + (f"; {len(vs) - len(judged)} more are not judged (below)" if len(vs) > len(judged)
                                           else "") + ".\n",
           "| own ÷ best peer | experiment | case | own's best row | best peer row |", "|---|---|---|---|---|"]
    for v in judged:
        out.append(f"| {fmt_ratio(v.ratio, v.cross)} | {v.exp} | {case_label(v.case, v.params)} | `{v.own.impl}` "
                   f"{fmt_ns(v.own.ns)} | `{v.peer.impl}` {fmt_ns(v.peer.ns)} |")
    unjudged = [v for v in vs if not v.judged]
    if unjudged:
        out.append("\nNot judged, because own's best row or the best peer row spreads more than ±20% even "
                   "measured again: "
                   + "; ".join(f"{v.exp} {case_label(v.case, v.params)} ({v.why_not})" for v in unjudged) + ".")
    return "\n".join(out) + "\n"


def swap_headline(exps):
    """compare.swaps as a table, wins and losses alike."""
    out = ["| experiment | case | own ÷ std | own ÷ best malloc peer |", "|---|---|---|---|"]
    sw = compare.swaps(exps)
    judged = [s for s in sw if s.judged]
    lost = [f"{s.exp} {case_label(s.case, s.params)}" for s in judged if s.ratio >= 1]
    for s in sw:
        cell = (fmt_ratio(s.ratio, s.cross) if s.judged else
                f"{fmt_ratio(s.ratio, s.cross)} ⚠ not judged (spread ±{max(s.own.cv or 0, s.std.cv or 0) * 100:.0f}%)")
        peer = (f"{fmt_ratio(s.malloc[0], s.malloc[1])} (std+{s.malloc[2]})" + (" ⚠ not judged" if s.malloc[3] else "")
                if s.malloc else "-")
        out.append(f"| {s.exp} | {case_label(s.case, s.params)} | {cell} | {peer} |")
    summary = (f"own's default path is faster than std in {len(judged) - len(lost)} of {len(judged)} judged cases"
               + (f"; slower or level in: {', '.join(lost)}" if lost else "")
               + (f" ({len(sw) - len(judged)} not judged: a row's spread exceeds ±20%)" if len(sw) > len(judged) else "")
               + ". The malloc peer column compares own with the fastest row of std + tcmalloc, jemalloc and "
               "mimalloc (the allocator a user could preload instead).\n")
    return summary + "\n" + "\n".join(out) + "\n"


def met(ok, *rows):
    """A target's verdict, withheld when a row it rests on spreads too widely to decide it."""
    noisy = [r for r in rows if r.unstable]
    if noisy:
        return f"not judged (⚠ spread ±{max(r.cv for r in noisy) * 100:.0f}%)"
    return "yes" if ok else "no"


def pool_targets(exps, quick):
    """The pool facility's speed targets, each computed from this run's rows (no number typed in); `quick`:
    the run's smaller workloads (exp5: 100 big objects, not 1000)."""
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
        out.append(f"| {target} | {where} | {value} | {met(ok, a, b)} |")

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
               f"{'-' if pair is None else met(pair.ns <= 1.5, pair)} |")
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
    check(f"object_pool acquire/release ≥ 100× faster than the seed's linear-scan pool ({100 if quick else 1000} objects)",
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
        if fname.endswith(".json") and fname not in ("machine.json", "compile_time.json"):
            with open(os.path.join(results_dir, fname)) as f:
                ctx = json.load(f).get("context", {})
            break  # the first benchmark run's: Google Benchmark's view of the machine
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
