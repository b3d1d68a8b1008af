# SPDX-License-Identifier: BSL-1.0
"""The report's charts of the seeds' figures and of exp2's fitted lines (PNG, drawn with matplotlib); the bar
charts of medians are report/bars.py's."""

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from .bars import log_axis
from .palette import colour
from .results import Row, params_label

# The seed's platforms: tans, apart from every implementation's colour.
SEED_COLOURS = ["#EFE3B0", "#DCCB7E", "#C4AE4F", "#A08C2E"]


def seed_chart(exp, paper, path, xlabel, title):
    by_row = {r["row"]: r for r in paper["rows"]}
    labels, ours, owns, papers = [], [], [], []
    for r in paper["rows"]:
        _, case, impl, *pp = r["row"].split("/")
        params = "/".join(pp)
        ref_key = paper["reference"][params]
        row = exp.get(case, impl, params)
        _, rcase, rimpl, *rp = ref_key.split("/")
        ref = exp.get(rcase, rimpl, "/".join(rp))
        own = exp.get(case, "own", params) if impl == "std" else None  # the seed measured std; own beside it
        own_ratio = own.ns / ref.ns if own and ref else float("nan")
        # The reference row's own bars would be 1.0 by construction (the axis names the reference): it is
        # drawn only for own's counterpart, if it has one.
        is_ref = ref_key == r["row"]
        if is_ref and math.isnan(own_ratio):
            continue
        labels.append(f"{impl} {case}" + (f" [{params_label(params)}]" if params else ""))
        ours.append(row.ns / ref.ns if row and ref and not is_ref else float("nan"))
        owns.append(own_ratio)
        papers.append([float("nan") if is_ref else v / rv for v, rv in zip(r["values"], by_row[ref_key]["values"])])
    fig, ax = plt.subplots(figsize=(10, 2.2 + 0.45 * len(labels)))
    n = len(labels)
    nplat = len(paper["platforms"])
    with_own = any(not math.isnan(o) for o in owns) or any(label.startswith("std ") for label in labels)
    nbars = nplat + 1 + (1 if with_own else 0)
    width = 0.8 / nbars
    for k, plat in enumerate(paper["platforms"]):
        ax.barh([i + (k - (nbars - 1) / 2) * width for i in range(n)], [p[k] for p in papers], height=width,
                color=SEED_COLOURS[k % len(SEED_COLOURS)], label=f"seed: {plat}")
    ax.barh([i + (nplat - (nbars - 1) / 2) * width for i in range(n)], ours, height=width,
            color=colour("std") if with_own else colour("own"), label="this machine: the seed's row")
    if with_own:
        ax.barh([i + (nplat + 1 - (nbars - 1) / 2) * width for i in range(n)], owns, height=width, color=colour("own"),
                label="this machine: own's counterpart")
    ax.axvline(1.0, color="black", lw=0.8)
    ax.set_yticks(range(n))
    ax.set_yticklabels(labels, fontsize=7)
    ax.invert_yaxis()
    finite = [v for v in ours + owns + [x for p in papers for x in p] if v == v and v > 0]
    log_axis(ax, min(finite, default=1.0), max(finite, default=1.0))
    ax.set_xlabel(xlabel)
    ax.set_title(title, fontsize=10)
    # below the axes, where it covers neither bars nor title
    fig.legend(*ax.get_legend_handles_labels(), fontsize=7, loc="lower center", ncol=3, frameon=False)
    fig.tight_layout(rect=(0, 0.6 / fig.get_figheight(), 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)


def exp2_chart(fits, path):
    fig, ax = plt.subplots(figsize=(9, 5))
    for impl, f in fits.items():
        if isinstance(f, Row) or f[0] is None:
            continue
        (a, b, _, _), pts = f
        xs = [p[0] for p in pts]
        c = colour(impl)
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
