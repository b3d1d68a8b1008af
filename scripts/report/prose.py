# SPDX-License-Identifier: BSL-1.0
"""The report's sentences, generated from the rows (through compare.py's verdicts), so that they change
when the numbers do: the answers at the top (what swapping std:: for own:: gains, what pools add) and a
few sentences closing each experiment (what the seed found, what we find today, whether own is ahead,
and why where it is not)."""

import re
import statistics

from . import compare
from .results import fmt_ratio, load_data, params_label, plain_impl

# Within this factor either way, two rows are called level: closer than the drift of this shared machine
# between runs.
LEVEL = 1.05


def label(case, params):
    return f"`{case}`" + (f" ({params_label(params)})" if params else "")


def tally(ratios):
    """'ahead in A, level in L, behind in B' of own ÷ peer ratios."""
    ahead = sum(r < 1 / LEVEL for r in ratios)
    behind = sum(r > LEVEL for r in ratios)
    return ahead, len(ratios) - ahead - behind, behind


def geomean(ratios):
    return statistics.geometric_mean(ratios) if ratios else None


def swap_answer(exps):
    """What do I gain by swapping std:: for own::, changing nothing else?"""
    sw = [s for s in compare.swaps(exps) if s.judged]
    if not sw:
        return "No case has a stable own row beside a stable std row in this run.\n"
    ahead, level, behind = tally([s.ratio for s in sw])
    best = min(sw, key=lambda s: s.ratio)
    worst = max(sw, key=lambda s: s.ratio)
    out = [f"**What do I gain by swapping `std::` for `own::`?** Over the {len(sw)} cases where own's default path "
           f"runs beside std's with both rows stable, own ÷ std has a geometric mean of {fmt_ratio(geomean([s.ratio for s in sw]))}: "
           f"own is ahead in {ahead}, level (within {round((LEVEL - 1) * 100)}%) in {level} and behind in {behind}."]
    out.append(f"The largest gain is {best.exp} {label(best.case, best.params)} at {fmt_ratio(best.ratio, best.cross)}"
               + (f"; the largest loss {worst.exp} {label(worst.case, worst.params)} at "
                  f"{fmt_ratio(worst.ratio, worst.cross)}." if worst.ratio > LEVEL else "."))
    peers = [s for s in sw if s.malloc and not s.malloc[3]]
    if peers:
        a, lv, b = tally([s.malloc[0] for s in peers])
        out.append(f"Against the fastest of tcmalloc, jemalloc and mimalloc, which a user could preload instead, "
                   f"own is ahead in {a}, level in {lv} and behind in {b} of the {len(peers)} cases run with them.")
    whole = [s for s in sw if s.exp == "exp8"]
    if whole:
        out.append("In whole programs (exp8) own ÷ std is " + ", ".join(
            f"{fmt_ratio(s.ratio)} ({s.case})" for s in whole) + ".")
    return " ".join(out) + "\n"


def pool_pairs(exps, family):
    """Cases `family` (own or std) runs with and without a pool: (exp, label, pooled row, default row).
    exp1 names the pool in its case (`<case>_nonthreaded_pool`, `<case>_threaded_pool`); the others in
    the impl (plain_impl)."""
    out = []
    for eid, exp in exps.items():
        untimed, configured = exp.meta.get("untimed"), exp.meta.get("own_configured")
        for r in exp.rows:
            if (r.ns is None or "+" in r.impl or r.family != family or compare.BOUND.search(r.impl)
                    or untimed and re.search(untimed, r.case)):
                continue
            m = re.match(r"^(.*)_(nonthreaded|threaded)_pool$", r.case)
            if m:
                plain = exp.get(m.group(1), plain_impl(r.impl), r.params)
            elif r.impl.endswith("_pool") and not (configured and re.search(configured, r.case)):
                # (in a case whose rows are all given a pool or resource, the unpooled name is pooled too)
                plain = exp.get(r.case, plain_impl(r.impl), r.params)
            else:
                continue
            if plain is not None and not (r.unstable or plain.unstable):
                out.append((eid, label(r.case, r.params) + ("" if m else f" `{r.impl}`"), r, plain))
    return out


def pool_answer(exps):
    """What do pools add? Pooled rows against the same library's default rows, own's and std's, and own's
    pooled rows against the best peer."""
    out = []
    pairs = pool_pairs(exps, "own")
    if pairs:
        ratios = [p.ns / d.ns for _, _, p, d in pairs]
        ahead, level, behind = tally(ratios)
        best = min(pairs, key=lambda x: x[2].ns / x[3].ns)
        out.append(f"**What do pools add?** In the {len(pairs)} stable cases own runs both with a pool and without, "
                   f"the pooled row ÷ own's default row has a geometric mean of {fmt_ratio(geomean(ratios))}: the pool "
                   f"is faster in {ahead}, level in {level} and slower in {behind}; its largest gain is {best[0]} "
                   f"{best[1]} at {fmt_ratio(best[2].ns / best[3].ns)}.")
    std_pairs = pool_pairs(exps, "std")
    kinds = [f"{kind} ÷ plain std has a geometric mean of {fmt_ratio(geomean([p.ns / d.ns for _, _, p, d in pairs]))} "
             f"over {len(pairs)} stable cases"
             for kind, pairs in (("a std::pmr pool resource", [x for x in std_pairs if "_boost" not in x[2].impl]),
                                 ("Boost.Pool (a boost::pool<> without a lock, or Boost's locked singleton pool)",
                                  [x for x in std_pairs if "_boost" in x[2].impl]))
             if pairs]
    if kinds:
        out.append(f"For std, {', and '.join(kinds)} (own's default path already takes its blocks from a per-thread "
                   f"heap of its own, std's from malloc).")
    pooled = [v for v in compare.verdicts(exps) if v.judged and ("pool" in v.case or v.own.impl.endswith("pool"))]
    if pooled:
        out.append(f"Against the best peer of each case (std with a std::pmr pool, Boost.Pool or an "
                   f"allocator, Boost, the seed's pool), own's pooled rows have a geometric mean of {fmt_ratio(geomean([v.ratio for v in pooled]))} "
                   f"over {len(pooled)} stable cases.")
    return " ".join(out) + "\n" if out else ""


def seed_rows_sentence(exp, data):
    """exp1 and exp4: the seed's ratios to its reference row against ours, row by row."""
    by_row = {r["row"]: r for r in data["rows"]}
    same, judged, fastest = 0, 0, None
    for r in data["rows"]:
        _, case, impl, *pp = r["row"].split("/")
        ref_key = data["reference"].get("/".join(pp))
        if ref_key is None or ref_key == r["row"]:
            continue
        seed = statistics.median(v / rv for v, rv in zip(r["values"], by_row[ref_key]["values"]))
        if fastest is None or seed < fastest[1]:
            fastest = (r, seed)
        _, rcase, rimpl, *rp = ref_key.split("/")
        row, ref = exp.get(case, impl, "/".join(pp)), exp.get(rcase, rimpl, "/".join(rp))
        if row is None or ref is None or row.unstable or ref.unstable:
            continue
        judged += 1
        same += (row.ns < ref.ns) == (seed < 1)
    ref_name = data["ours_header"].replace("÷ ", "").replace(" (ours)", "")
    out = []
    if fastest:
        r, seed = fastest
        _, case, impl, *pp = r["row"].split("/")
        ref_key = data["reference"]["/".join(pp)]
        _, rcase, rimpl, *rp = ref_key.split("/")
        row, ref = exp.get(case, impl, "/".join(pp)), exp.get(rcase, rimpl, "/".join(rp))
        ours = f"; here it is {fmt_ratio(row.ns / ref.ns)}" if row and ref else ""
        out.append(f"The seed's fastest form was \"{r['paper']}\" at {fmt_ratio(seed)} its {ref_name} (median of its "
                   f"platforms){ours}.")
    if judged:
        out.append(f"Of the seed's {judged} rows (its reference aside) with stable counterparts here, {same} still "
                   f"{'falls' if same == 1 else 'fall'} on the same side of its {ref_name} (faster or slower) as in the seed.")
    return out


def exp2_seed_sentences(exp):
    seed = load_data("boost_timings.json")
    st = {k: v for k, v in seed["strategies"].items() if k not in ("raw", "dumb")}
    cheap_init = min(st, key=lambda k: st[k]["init"][0])
    cheap_copy = min(st, key=lambda k: st[k]["copy"][0])
    out = [f"The seed found the {cheap_init} pointer cheapest to initialise and the {cheap_copy} pointer cheapest "
           f"to copy (gcc 2.95.2 figures): both avoid allocating a separate count."]
    fits = compare.exp2_fits(exp)
    std, own = fits.get("std"), fits.get("own")
    if isinstance(std, tuple) and isinstance(own, tuple) and std[0] and own[0] and std[0][0] > 0 and std[0][1] > 0:
        out.append(f"Today own::shared_ptr's fitted initialisation is {fmt_ratio(own[0][0] / std[0][0])} std's and "
                   f"its fitted cost per copy {fmt_ratio(own[0][1] / std[0][1])} std's.")
    return out + linked_sentences(fits)


def linked_sentences(fits):
    """The seed's subject: the linked pointer, cheap to make and dear to copy, against the counted ones.
    Where the fitted lines cross, the linked pointer stops being the cheaper one."""
    linked = fits.get("linked")
    if not (isinstance(linked, tuple) and linked[0]):
        return []
    al, bl = linked[0][:2]
    parts = []
    for impl in ("std", "own", "own_pool"):
        f = fits.get(impl)
        if not (isinstance(f, tuple) and f[0]):
            continue
        a, b = f[0][:2]
        if al < a and bl > b:
            parts.append(f"`{impl}` up to about {(a - al) / (bl - b):.0f} copies")
        elif al < a:
            parts.append(f"`{impl}` at any number of copies")
        elif bl < b:
            parts.append(f"`{impl}` only past about {(al - a) / (b - bl):.0f} copies")
        else:
            parts.append(f"`{impl}` at no number of copies")
    if not parts:
        return []
    return ["The seed favoured its linked pointer where few copies are made and a counted one with a special "
            "allocator for many; by today's fitted lines the linked pointer is cheaper than " + ", ".join(parts) + "."]


def overwrite_sentence(exp):
    """exp4's trivial packet: what make_shared_for_overwrite saves over make_shared, for std and own."""
    parts = []
    for impl in ("std", "own"):
        plain = exp.get("trivial_make_shared", impl, "")
        over = exp.get("trivial_make_shared_for_overwrite", impl, "")
        if plain and over and not (plain.unstable or over.unstable):
            parts.append(f"{fmt_ratio(over.ns / plain.ns)} for {impl}")
    if not parts:
        return []
    return ["For the trivial packet, make_shared_for_overwrite ÷ make_shared is " + " and ".join(parts)
            + ": the zero-fill the standard asks of make_shared for a trivial type, which _for_overwrite skips."]


def claim_sentences(exp, data):
    parts = []
    for c in compare.claims(exp, data):
        verdict = ("holds" if c.holds else "does not hold") if c.judged else f"not judged: {c.why_not}"
        parts.append(f"{c.data['claim']} ({fmt_ratio(c.ratio)} today, {verdict})")
    return ["The seed's claims, checked against today's rows: " + "; ".join(parts) + "."] if parts else []


def why_behind(exp, v):
    """The reason own is behind in verdict v, from the experiment's "why_behind" notes (first: a case
    whose own row allocates everything itself is not explained by the peer's malloc) or the allocator,
    or None."""
    for pattern, text in exp.meta.get("why_behind", []):
        if re.search(pattern, f"{v.case}/{v.params}/{v.peer.impl}"):
            return text
    if "+" in v.peer.impl and "+" not in v.own.impl:
        return ("the peer's whole process runs the malloc it is named after, while own's runs glibc malloc for "
                "everything own does not allocate itself (an adopted object, a program's other allocations)")
    return None


def conclusions(exp, exps):
    """Three to six sentences closing an experiment."""
    m = exp.meta
    out = []
    if m.get("seed_data"):
        out += seed_rows_sentence(exp, load_data(m["seed_data"])) + overwrite_sentence(exp)
    elif exp.id == "exp2":
        out += exp2_seed_sentences(exp)
    elif m.get("claims"):
        out += claim_sentences(exp, load_data(m["claims"]))
    if not m.get("seed"):
        out.append("No published experiment precedes this one, so there is no seed's finding to reproduce.")
    sw = [s for s in compare.swaps(exps) if s.exp == exp.id and s.judged]
    if sw:
        ahead, level, behind = tally([s.ratio for s in sw])
        out.append(f"With nothing but `std::` swapped for `own::`, own ÷ std has a geometric mean of "
                   f"{fmt_ratio(geomean([s.ratio for s in sw]))} over {len(sw)} stable cases (ahead in {ahead}, level "
                   f"in {level}, behind in {behind}).")
    vs = [v for v in compare.verdicts(exps) if v.exp == exp.id]
    judged = [v for v in vs if v.judged]
    if judged:
        ahead, level, behind = tally([v.ratio for v in judged])
        best = min(judged, key=lambda v: v.ratio)
        out.append(f"Against the best peer of each case, own's best row is ahead in {ahead}, level in {level} and "
                   f"behind in {behind} of {len(judged)} stable cases; "
                   + ("its largest lead is" if best.ratio < 1 else "it comes closest in")
                   + f" {label(best.case, best.params)} at {fmt_ratio(best.ratio, best.cross)} (`{best.own.impl}` "
                   f"against `{best.peer.impl}`).")
        reasons = {}
        for v in sorted((v for v in judged if v.ratio > LEVEL), key=lambda v: -v.ratio):
            reasons.setdefault(why_behind(exp, v) or "not yet explained", []).append(
                f"{label(v.case, v.params)} ({fmt_ratio(v.ratio, v.cross)} `{v.peer.impl}`)")
        if reasons:
            out.append("Where own is behind: " + "; ".join(f"{', '.join(cases)}: {reason}"
                                                         for reason, cases in reasons.items()) + ".")
    if len(vs) > len(judged):
        out.append(f"{len(vs) - len(judged)} more cases are not judged: a row spreads more than ±20%.")
    return "**In short.** " + " ".join(out) + "\n" if out else ""
