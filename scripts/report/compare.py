# SPDX-License-Identifier: BSL-1.0
"""The report's verdicts, made by rule from the rows: for every case, own's best row against the best
peer row of that case; the seeds' claims in words against today's ratios; and exp2's fitted lines. The
tables and the generated sentences both read them, so the two cannot disagree."""

import collections
import math
import re

from .results import Row

# Rows that are bounds rather than implementations a user could pick instead of own: the floor (a bare
# free list), exp2's raw and "dumb" pointers (no ownership at all), exp5's stack (it holds one object at
# a time, where the others hold all N at once) and exp7's own_copy (the single shared_ptr copy a round
# trip is measured against).
BOUND = re.compile(r"^(floor|raw|dumb|stack)([_+]|$)|^own_copy$")

Verdict = collections.namedtuple("Verdict", "exp case params own peer ratio cross judged why_not")


def is_own(impl):
    # own's rows run in another allocator's process (own+mimalloc...) measure the same code again: taking
    # the best of them would favour own by sampling it more often, so only own's glibc rows compete.
    return re.split(r"[_+]", impl)[0] == "own" and "+" not in impl and not BOUND.search(impl)


def is_peer(impl):
    return re.split(r"[_+]", impl)[0] != "own" and not BOUND.search(impl)


def best(rows):
    """The fastest row, or None. An unstable fastest row is kept (the verdict is then withheld): passing
    over it to a slower stable row would compare with a peer that is not the best."""
    usable = [r for r in rows if r.ns is not None and not r.missing]
    return min(usable, key=lambda r: r.ns) if usable else None


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


def fitted_rows(exp):
    """exp2's copies rows as two cases, the fitted initialisation and per-copy costs (the seed's
    figures): a fit is as unstable as its least stable point."""
    out = []
    for impl, f in exp2_fits(exp).items():
        if isinstance(f, Row) or f[0] is None:
            continue
        points = [r for r in exp.rows if r.case == "copies" and r.impl == impl]
        cv = max((r.cv or 0.0) for r in points)
        for case, value in (("initialisation (fitted)", f[0][0]), ("per copy (fitted)", f[0][1])):
            row = Row(exp.id, case, impl, "", points[0].source)
            row.ns, row.cv = value, cv
            if value > 0:  # a fitted cost at or below zero is the fit's noise, not a cost
                out.append(row)
    return out


def verdicts(exps):
    """Every case with an own row and a peer row, in report order."""
    out = []
    for eid, exp in exps.items():
        untimed = exp.meta.get("untimed")
        groups = collections.OrderedDict()
        rows = [r for r in sorted(exp.rows, key=lambda r: r.order) if not (untimed and re.search(untimed, r.case))]
        if eid == "exp2":
            rows = [r for r in rows if r.case != "copies"] + fitted_rows(exp)
        for r in rows:
            groups.setdefault((r.case, r.params), []).append(r)
        for (case, params), group in groups.items():
            own = best([r for r in group if is_own(r.impl)])
            peer = best([r for r in group if is_peer(r.impl)])
            if own is None or peer is None:
                continue  # no own row, or no peer: nothing to compare
            noisy = [f"`{r.impl}` ±{r.cv * 100:.0f}%" for r in (own, peer) if r.unstable]
            out.append(Verdict(eid, case, params, own, peer, own.ns / peer.ns, own.source != peer.source,
                               not noisy, ", ".join(noisy) or None))
    return out


Swap = collections.namedtuple("Swap", "exp case params own std ratio cross judged malloc")


def swaps(exps):
    """The user's question: what does replacing std:: by own::, and changing nothing else, give? Every
    case with both an `own` row and a `std` row, except those where own is given a pool or a resource
    (the experiment's "own_configured" cases): own ÷ std in one process, and own ÷ the fastest
    std+<allocator> row (in that allocator's process where own ran there too, else across processes).
    `malloc` is (ratio, cross, allocator, whether a row of it spreads over ±20%) or None."""
    out = []
    for eid, exp in exps.items():
        configured, untimed, unlike = (exp.meta.get(k) for k in ("own_configured", "untimed", "not_a_swap"))
        for case in exp.cases():
            if (configured and re.search(configured, case) or untimed and re.search(untimed, case)
                    or unlike and re.search(unlike, case)):
                continue  # own given a pool or a resource (not the default path), no time, or not a swap
            for p in exp.params(case):
                own, std = exp.get(case, "own", p), exp.get(case, "std", p)
                if own is None or std is None:
                    continue
                malloc = None
                for alloc in ("tcmalloc", "jemalloc", "mimalloc"):
                    peer = exp.get(case, "std+" + alloc, p)
                    mine = exp.get(case, "own+" + alloc, p) or own
                    if peer is None:
                        continue
                    ratio, cross = exp.ratio(mine, peer)
                    if malloc is None or ratio > malloc[0]:
                        malloc = (ratio, cross, alloc, peer.unstable or mine.unstable)
                ratio, cross = exp.ratio(own, std)
                out.append(Swap(eid, case, p, own, std, ratio, cross, not (own.unstable or std.unstable), malloc))
    return out


# A seed's "about N×" holds when today's ratio is within this factor of N either way: wide enough for a
# claim made in words, narrow enough that 2× and 3× are told apart.
ABOUT = 1.25

Claim = collections.namedtuple("Claim", "data ratio own_ratio row reference own holds judged why_not")


def claims(exp, data):
    """The seed's claims in words (bench/data/<seed>.json "claims"), each checked against this run."""
    def lookup(key):
        _, case, impl, *params = key.split("/")
        return exp.get(case, impl, "/".join(params))

    out = []
    for c in data["claims"]:
        row, ref, own = lookup(c["row"]), lookup(c["reference"]), lookup(c["own"])
        if row is None or ref is None:
            continue
        ratio = row.ns / ref.ns
        own_ratio = own.ns / ref.ns if own is not None else None
        noisy = [f"`{r.impl}` ±{r.cv * 100:.0f}%" for r in (row, ref) if r.unstable]
        holds = c["about"] / ABOUT <= ratio <= c["about"] * ABOUT
        out.append(Claim(c, ratio, own_ratio, row, ref, own, holds, not noisy, ", ".join(noisy) or None))
    return out
