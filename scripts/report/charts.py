# SPDX-License-Identifier: BSL-1.0
"""The report's charts (PNG, drawn with matplotlib)."""

import math
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from .results import Row, impl_rank, params_label

FAMILY_COLOURS = {"std": "#4C72B0", "own": "#DD8452", "boost": "#55A868", "floor": "#8C8C8C", "raw": "#8172B3",
                  "dumb": "#937860", "stack": "#DA8BC3", "seed": "#CCB974"}


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
    any_noisy = any(r.unstable for r in exp.rows if r.case in cases and "+" not in r.impl)
    height = max(2.5, max(len(pc) * (0.18 * len(impls) + 0.25) for _, pc in panels) + 1.2)
    fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels) + 2, height), squeeze=False)
    width = 0.8 / max(1, len(impls))
    for ax, (p, pc) in zip(axes[0], panels):
        for k, impl in enumerate(impls):
            ys, xs, noisy = [], [], []
            for j, case in enumerate(pc):
                row = exp.get(case, impl, p)
                if row is not None:
                    ys.append(j + (k - (len(impls) - 1) / 2) * width)
                    xs.append(row.ns)
                    noisy.append(row.unstable)
            if xs:
                bars = ax.barh(ys, xs, height=width, color=impl_colour(impl, impls), label=impl)
                for bar, flag in zip(bars, noisy):
                    if flag:
                        bar.set_hatch("///")
        ax.set_yticks(range(len(pc)))
        ax.set_yticklabels(pc, fontsize=8)
        ax.invert_yaxis()
        ax.set_xscale("log")
        ax.set_xlabel("median ns per operation (log; shorter is better)"
                      + ("; hatched: spread over ±20%" if any_noisy else ""), fontsize=8)
        ax.set_title(params_label(p) if len(panels) > 1 or p else "", fontsize=9)
        ax.grid(axis="x", which="both", alpha=0.3)
    # Plain patches for the legend: a bar's own handle would carry the hatching of its first bar.
    handles = [Patch(color=impl_colour(i, impls), label=i) for i in impls
               if any(exp.get(c, i, p) for p, pc in panels for c in pc)]
    fig.legend(handles=handles, fontsize=8, loc="upper right", ncol=min(6, len(handles)))
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
