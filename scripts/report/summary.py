"""The sections at the top of the report: the headline tables, the pool targets, missing rows, the
machine."""

import collections
import json
import os
import re

from .results import Row, fmt_ns, fmt_ratio, missing_text, params_label
from .tables import exp2_fits


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
