# SPDX-License-Identifier: BSL-1.0
"""The report's tables: one per experiment (the generic one, or exp2's own), and the extra columns
some experiments add."""

from . import compare
from .results import (Row, fmt_ns, fmt_ratio, fmt_spread, load_data, missing_text, params_label, plain_impl,
                      row_key)


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
                    cells.append(fmt_ns(row.ns) + fmt_spread(row))
                    cells.append(fmt_ratio(*exp.ratio(row, exp.std_of(row))))
                    if any_floor:
                        cells.append(fmt_ratio(*exp.ratio(row, exp.floor_of(row))))
                    if extra:
                        cells += extra["cells"](exp, row)
                lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    return "\n".join(lines)


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


def exp2_tables(exp, quick):
    out = []
    fits = compare.exp2_fits(exp)
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
    out.append(f"**Container test** ({'100,000' if quick else '300,000'} pointers)\n")
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
                cells += [fmt_ns(row.ns) + fmt_spread(row), fmt_ratio(*exp.ratio(row, exp.std_of(row)))]
        out.append("| " + " | ".join(cells) + " |")
    out.append("")
    out.append(sizes_table(exp, seed, impl_strategy))
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
    out.append(f"\n*The seed's figures* come from {seed['source']}. {seed['note']}\n")
    return "\n".join(out), fits


def sizes_table(exp, seed, impl_strategy):
    """exp2's data and code sizes: sizeof each pointer, and the bytes of a function that copies one and
    destroys the copy (bench/code_size/copy_destroy.cpp, measured by scripts/report.sh), beside the seed's."""
    code = seed.get("code_size", {})

    def counter(case, impl):
        row = exp.index.get((case, impl, ""))
        if row is None and case == "code_size" and impl.endswith("_pool"):
            return f"as `{plain_impl(impl)}`"  # a pool changes the count's block, not the pointer's type
        if row is None:
            return "-"
        return missing_text(row) if row.missing else f"{row.counters.get('bytes', float('nan')):.0f}"

    out = ["**Data and code size** (sizeof the pointer; and the bytes of a function that copies a pointer, passes "
           "the copy to a function it cannot see into, and destroys it, read from the object file with `nm -S`: the "
           "code a copy and a destruction inline where they are used, beside the same call and frame in every row, "
           "which the `raw` row is; functions they call out of line are not counted)\n",
           f"| impl | sizeof | copy + destroy, bytes | seed's strategy | seed's size (gcc 2.95.2 / MSVC 6.0, 32-bit) | "
           f"seed's copy + destroy, bytes ({code.get('platform', '-')}) |",
           "|---|---|---|---|---|---|"]
    for impl in exp.impls("sizeof"):
        strategy = impl_strategy.get(impl, "")
        st = seed["strategies"].get(strategy, {})
        seed_size = " / ".join(str(v) for v in st["sizeof"]) if "sizeof" in st else ""
        seed_code = code.get("bytes", {}).get(strategy, "")
        out.append(f"| `{impl}` | {counter('sizeof', impl)} | {counter('code_size', impl)} | {strategy} | {seed_size} | "
                   f"{seed_code} |")
    if code:
        out.append(f"\n{code['note']}")
    return "\n".join(out) + "\n"


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


def claims_table(exp, data):
    """The seed's claims in words beside today's ratios, with the verdict compare.claims makes; where
    today's ratio is far above the claim and the data explain why, the explanation follows."""
    out = [f"**The seed's claims, checked**, from {data['source']}: a claim of about N× holds when today's ratio "
           f"is within {compare.ABOUT:g}× of N either way.\n",
           "| the seed said | claim | today | verdict | own's counterpart |", "|---|---|---|---|---|"]
    notes = []
    for c in compare.claims(exp, data):
        verdict = (("holds" if c.holds else "does not hold") if c.judged
                   else f"not judged (⚠ {c.why_not})")
        own = f"{fmt_ratio(c.own_ratio)} ({c.data['own_measure']})" if c.own is not None else "-"
        out.append(f"| \"{c.data['quote']}\" | {c.data['claim']} | {fmt_ratio(c.ratio)} ({c.data['measure']}) | "
                   f"{verdict} | {own} |")
        if c.data.get("why_higher") and c.ratio > c.data["about"] * compare.ABOUT:
            notes.append(c.data["why_higher"])
    return "\n".join(out) + "\n" + "".join(f"\n{n}\n" for n in notes)


def latency_table(exp, case="atomic_load_under_store"):
    """The loaders' latency percentiles in a case whose rows carry p50_ns/p99_ns/p999_ns counters,
    each row's p99.9 beside the best lock-based peer's (boost, mutex, shared_mutex) of its thread count."""
    locks = ("boost", "mutex", "shared_mutex")
    rows = [r for r in exp.rows if r.case == case and "p999_ns" in r.counters]
    if not rows:
        return ""
    lines = [f"**Latency of one load while a thread stores** (`{case}`: every 8th load timed; the loaders' "
             "percentiles, averaged over them; the last column divides by the best lock-based peer's p99.9)\n",
             "| threads | impl | p50 | p99 | p99.9 | p99.9 ÷ best lock |", "|---|---|---|---|---|---|"]
    for p in exp.params(case):
        here = [r for r in rows if r.params == p]
        lock_p999 = [r.counters["p999_ns"] for r in here if r.impl in locks]
        best = min(lock_p999) if lock_p999 else None
        for i, r in enumerate(here):
            c = r.counters
            ratio = fmt_ratio(c["p999_ns"] / best) if best else "-"
            lines.append(f"| {params_label(p) if i == 0 else ''} | `{r.impl}` | {c['p50_ns']:.0f} ns | "
                         f"{c['p99_ns']:.0f} ns | {c['p999_ns']:.0f} ns | {ratio} |")
    lines.append("")
    return "\n".join(lines)
