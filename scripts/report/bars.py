# SPDX-License-Identifier: BSL-1.0
"""The report's bar charts (median times, or a counter such as bytes per object): one panel per way of
running (1 thread, 2 threads, hand-off...), one group of bars per case holding only the rows it has, each
bar named, whiskers over the interquartile range of the repetitions, the legend below the panels so it
cannot cover the title."""

import collections
import math
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator  # noqa: E402

from .palette import colour
from .results import impl_rank, params_label

PANEL_COLUMNS = 2
PANEL_WIDTH = 5.5  # inches of bars per panel
BAR = 0.22  # inches per bar
GAP = 0.35  # inches between two cases' groups
LEGEND_COLUMNS = 5


class Medians:
    """What most bars show: each row's median time in `unit` (ns divided by `scale`) per `per`, with whiskers
    over the interquartile range of its repetitions."""

    def __init__(self, unit="ns", scale=1.0, per="operation"):
        self.scale = scale
        self.axis = f"median {unit} per {per} (log; shorter is better)"

    def value(self, row):
        return row.ns / self.scale if row.ns else None

    def spread(self, row):
        q = row.quartiles
        return None if q is None else (q[0] / self.scale, q[1] / self.scale)


class Counter:
    """A counter of each row instead of its time (exp3's bytes per live object), without whiskers."""

    def __init__(self, name, axis):
        self.name, self.axis = name, axis

    def value(self, row):
        return row.counters.get(self.name) or None

    def spread(self, row):
        return None


def panel_label(case, params):
    """The panel a row is drawn in: how it runs. A hand-off case runs two threads whatever its params say."""
    if not params and "handoff" in case:
        return "hand-off (2 threads)"
    return params_label(params)


def panels_of(exp, cases, measure):
    """{panel label: {case: [rows, by implementation]}}, in the order the rows were registered; allocator
    variants (std+tcmalloc...) are left to the tables, to keep the charts readable."""
    panels = collections.OrderedDict()
    for r in sorted(exp.rows, key=lambda r: r.order):
        if r.case in cases and "+" not in r.impl and not r.missing and measure.value(r) is not None:
            panels.setdefault(panel_label(r.case, r.params), collections.OrderedDict()).setdefault(r.case, []).append(r)
    for groups in panels.values():
        for case in groups:
            groups[case].sort(key=lambda r: (impl_rank(r.impl), "_" in r.impl, r.order))
    return panels


def cases_by_source(exp):
    """The experiment's cases by the executable that ran them, {name: [cases]}: exp7 runs one per facility
    (results file exp7-pool_bench-glibc.json: facility "pool")."""
    out = collections.OrderedDict()
    for r in sorted(exp.rows, key=lambda r: r.order):
        parts = r.source.split("-")
        facility = re.sub(r"_bench$", "", parts[1] if len(parts) > 2 else r.source)
        cases = out.setdefault(facility, [])
        if r.case not in cases:
            cases.append(r.case)
    return out


def panel_height(groups):
    return sum(len(rows) for rows in groups.values()) * BAR + len(groups) * GAP + 0.9


def draw_panel(ax, label, groups, measure):
    """Bars of one panel, cases down; returns (whether any row spreads over ±20%, whether whiskers are drawn)."""
    y, ticks, labels, noisy, whiskered = 0.0, [], [], False, False
    for case, rows in groups.items():
        ys = [y + k for k in range(len(rows))]
        bars = ax.barh(ys, [measure.value(r) for r in rows], height=0.8, color=[colour(r.impl) for r in rows])
        whiskers = [(y, r, measure.value(r), measure.spread(r)) for y, r in zip(ys, rows) if measure.spread(r)]
        if whiskers:
            whiskered = True
            ax.errorbar([v for _, _, v, _ in whiskers], [y for y, _, _, _ in whiskers], fmt="none",
                        xerr=[[max(0.0, v - q[0]) for _, _, v, q in whiskers],
                              [max(0.0, q[1] - v) for _, _, v, q in whiskers]],
                        elinewidth=0.8, capsize=2, ecolor="#222222")
        for bar, r in zip(bars, rows):
            if r.unstable:
                bar.set_hatch("///")
                noisy = True
            # each bar names its row, so that it reads without going back and forth to the legend
            ax.text(right_end(measure, r) * 1.08, bar.get_y() + bar.get_height() / 2, r.impl, va="center",
                    fontsize=6.5)
        ticks.append(y + (len(rows) - 1) / 2)
        labels.append(case)
        y += len(rows) + GAP / BAR
    ax.set_yticks(ticks)
    ax.set_yticklabels(labels, fontsize=8)
    ax.set_ylim(y - GAP / BAR + 0.3, -0.7)
    ax.set_title(label, fontsize=9)
    low = min(measure.value(r) for rows in groups.values() for r in rows)
    high = max(right_end(measure, r) for rows in groups.values() for r in rows)
    log_axis(ax, low, high)
    # the right third of the panel is left to the names at the bars' ends
    ax.set_xlim(low / 1.5, low * (1.5 * high / low) ** 1.4)
    return noisy, whiskered


def right_end(measure, row):
    """Where a bar and its whisker end."""
    spread = measure.spread(row)
    return max(measure.value(row), spread[1] if spread else 0.0)


def log_axis(ax, low, high):
    """A log x axis labelled at 1, 2 and 5 of every decade, so that a bar's value can be read off it; at
    each decade only, where the bars span more than three (the labels would run into each other)."""
    ax.set_xscale("log")
    wide = high > 1000 * low
    ax.xaxis.set_major_locator(LogLocator(base=10, subs=(1.0,) if wide else (1.0, 2.0, 5.0)))
    # no labels past the longest bar, where the bars' names are
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}" if v <= 2 * high else ""))
    ax.xaxis.set_minor_formatter(FuncFormatter(lambda v, _: ""))
    ax.tick_params(axis="x", labelsize=7)
    ax.grid(axis="x", which="both", alpha=0.3)


def bar_chart(exp, cases, path, title, measure=None):
    """The rows of `cases`, measured by `measure` (Medians() if None); False if nothing to draw."""
    measure = measure or Medians()
    panels = list(panels_of(exp, cases, measure).items())
    if not panels:
        return False
    cols = min(PANEL_COLUMNS, len(panels))
    grid = [panels[i:i + cols] for i in range(0, len(panels), cols)]
    heights = [max(panel_height(groups) for _, groups in row) for row in grid]
    impls = sorted({r.impl for _, groups in panels for rows in groups.values() for r in rows},
                   key=lambda i: (impl_rank(i), "_" in i, i))
    legend_h = 0.25 * math.ceil(len(impls) / LEGEND_COLUMNS) + 0.7
    title_h = 0.7
    fig_h = sum(heights) + legend_h + title_h
    # room for the longest case name left of each panel (about 0.07 inch per character at 8 points)
    label_w = 0.07 * max(len(case) for _, groups in panels for case in groups) + 0.3
    fig_w = (PANEL_WIDTH + label_w) * cols + 0.3
    fig = plt.figure(figsize=(fig_w, fig_h))
    spec = fig.add_gridspec(len(grid), cols, height_ratios=heights, left=label_w / fig_w, right=1 - 0.3 / fig_w,
                            bottom=legend_h / fig_h, top=1 - title_h / fig_h, hspace=0.9 / max(heights),
                            wspace=label_w / PANEL_WIDTH)
    noisy = whiskered = False
    for i, row in enumerate(grid):
        for j, (label, groups) in enumerate(row):
            ax = fig.add_subplot(spec[i, j])
            n, w = draw_panel(ax, label if len(panels) > 1 else "", groups, measure)
            noisy, whiskered = noisy or n, whiskered or w
            ax.set_xlabel(measure.axis, fontsize=8)
    handles = [Patch(color=colour(i), label=i) for i in impls]
    note = "; ".join(n for n, shown in (("whiskers: interquartile range of the repetitions", whiskered),
                                        ("hatched: spread over ±20%", noisy)) if shown) or None
    fig.legend(handles=handles, fontsize=8, loc="lower center", ncol=min(LEGEND_COLUMNS, len(handles)),
               title=note, title_fontsize=8, frameon=False)
    fig.suptitle(title, fontsize=10, x=0.01, y=1 - 0.15 / fig_h, ha="left", va="top")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True
