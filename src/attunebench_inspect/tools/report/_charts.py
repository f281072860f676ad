"""The main task's figures, one builder a figure: the leaderboard's Composite bars and metric
heat map, the perspective gap, turn drift, a subgroup beside the rest, the rank correlation
between metrics, and win rates. Every builder returns a matplotlib `Figure` (tests read its
axes labels, titles and legends); an axis that names a metric reads its catalog label and range.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from ..._util.bootstrap import Interval
from ...score._catalog import label, spec
from ._analyses import THIRDS, CapabilitySplit, Drift, Gap, LeaderRow, SubgroupRow, WinRates
from ._plot import (
    BAR,
    CHANCE,
    MARKERS,
    MINUS,
    NO_VALUE,
    SERIES,
    WIDTH,
    colorbar,
    decimal,
    diverging,
    errors,
    grid,
    model_rows,
    new_figure,
    numbers_on_right,
    points,
    scale,
    sequential,
    short,
    show,
    title,
    two_series,
)
from ._run_table import CHANCE_LABEL


def composite_bars(mode: str, rows: Sequence[LeaderRow]) -> Figure:
    """The Composite of each model with its 95% bootstrap CI, on the Composite's whole range."""
    figure = new_figure(WIDTH, 1.3 + 0.38 * len(rows))
    ax = figure.subplots()
    intervals = [r.composite for r in rows]
    ax.barh(
        range(len(rows)),
        np.nan_to_num([i.estimate for i in intervals]),
        xerr=errors(intervals),
        color=[CHANCE if r.model == CHANCE_LABEL else BAR for r in rows],
        height=0.6,
        error_kw={"ecolor": "black", "capsize": 3, "linewidth": 1},
    )
    entry = spec("composite")
    ax.set_xlim(entry.low, entry.high)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlabel(scale("composite"))
    model_rows(ax, [r.model for r in rows])
    numbers_on_right(ax, [show(i) for i in intervals])
    title(figure, f"Composite ({mode}): mean over conversations, 95% bootstrap CI (grey: chance)")
    return figure


def _position(value: float, metric: str) -> float:
    """Where `value` lies in the metric's catalog range, 0 = worst and 1 = best."""
    entry = spec(metric)
    share = (value - entry.low) / (entry.high - entry.low)
    return share if entry.higher_is_better else 1 - share


def metric_heatmap(mode: str, rows: Sequence[LeaderRow], metrics: Sequence[str]) -> Figure:
    """Every metric of every model: the number in each cell, the colour its place in the
    metric's catalog range (the same scale for every run, so one run is not one flat colour)."""
    values = np.array(
        [[r.metrics[m].estimate if m in r.metrics else math.nan for m in metrics] for r in rows]
    )
    shade = np.array(
        [[_position(v, m) for v, m in zip(row, metrics, strict=True)] for row in values]
    )
    texts = [[NO_VALUE if np.isnan(v) else decimal(v) for v in row] for row in values]
    figure = new_figure(WIDTH, 2.2 + 0.42 * len(rows))
    ax = figure.subplots()
    cmap = sequential()
    grid(ax, shade, texts, cmap, [short(r.model) for r in rows], [label(m) for m in metrics])
    ax.set(xlabel="metric (mean over conversations)", ylabel="model")
    # Words on the ticks, not in a long label: a heatmap of one or two runs is short.
    bar = colorbar(figure, ax, cmap, 0, 1, "place in range")
    bar.set_ticks([0, 0.5, 1], labels=["0 worst", "0.5", "1 best"])
    title(figure, f"Metrics ({mode}): colour = place in the metric's range, the same for every run")
    return figure


def perspective(mode: str, gaps: Sequence[Gap]) -> Figure:
    """Per comparison (OM - HP, and the phrasing effects), each model's mean difference in
    percentage points with its 95% bootstrap CI."""
    comparisons = list(dict.fromkeys(g.label for g in gaps))
    models = list(dict.fromkeys(g.model for g in gaps))
    figure = new_figure(WIDTH, 0.4 + len(comparisons) * (1.0 + 0.32 * len(models)))
    axes = figure.subplots(len(comparisons), 1, sharex=True, squeeze=False)[:, 0]
    ends = [abs(x) for g in gaps for x in (g.points.low, g.points.high) if not math.isnan(x)]
    reach = max([*ends, 1.0]) * 1.15
    for ax, comparison in zip(axes, comparisons, strict=True):
        found = {g.model: g.points for g in gaps if g.label == comparison}
        intervals = [found.get(m, Interval(math.nan, math.nan, math.nan, 0)) for m in models]
        points(ax, intervals, BAR)
        ax.axvline(0, color="black", linewidth=0.8)
        ax.set_xlim(-reach, reach)
        ax.set_xlabel("difference (percentage points)")
        ax.tick_params(labelbottom=True)  # sharex hides them; each panel is read on its own
        model_rows(ax, models)
        numbers_on_right(ax, [f"{show(i)} pp" for i in intervals])
        ax.set_title(comparison, loc="left")
    title(
        figure,
        f"Perspective gap and phrasing effect ({mode}): mean difference in "
        f"{label('binary_om_accuracy')} / {label('binary_hp_accuracy')} accuracy, 95% bootstrap "
        "CI; > 0: the first term is higher",
    )
    return figure


def drift(mode: str, rows: Sequence[Drift]) -> Figure:
    """Per drift metric, each model's per-turn mean by conversation third with a 95% interval, on
    the metric's whole range (a zoomed axis makes noise read as a trend)."""
    metrics = list(dict.fromkeys(d.metric for d in rows))
    models = list(dict.fromkeys(d.model for d in rows))
    figure = new_figure(WIDTH, 3.9)
    axes = figure.subplots(1, len(metrics), sharex=True, squeeze=False)[0]
    shift = np.linspace(-0.12, 0.12, len(models)) if len(models) > 1 else np.zeros(1)
    for ax, metric in zip(axes, metrics, strict=True):
        for k, model in enumerate(models):
            row = next((d for d in rows if d.model == model and d.metric == metric), None)
            if row is None:
                continue
            means = np.array(row.thirds)
            lows = np.array([i.low for i in row.intervals])
            highs = np.array([i.high for i in row.intervals])
            ax.errorbar(
                np.arange(len(THIRDS)) + shift[k],
                means,
                yerr=np.nan_to_num([means - lows, highs - means]),
                marker=MARKERS[k // len(SERIES) % len(MARKERS)],
                markersize=4,
                linewidth=1.5,
                capsize=2,
                color=SERIES[k % len(SERIES)],
                label=short(model),
            )
        entry = spec(metric)
        ax.set_ylim(entry.low, entry.high)
        ax.set_xticks(range(len(THIRDS)), labels=list(THIRDS))
        ax.set_xlim(-0.4, len(THIRDS) - 0.6)
        ax.set(xlabel="conversation third", ylabel=scale(metric))
    # One entry per model, from whichever panel has it.
    entries = {
        name: handle
        for ax in axes
        for handle, name in zip(*ax.get_legend_handles_labels(), strict=True)
    }
    figure.legend(
        entries.values(), entries.keys(), loc="outside lower center", ncols=min(len(entries), 3)
    )
    title(
        figure,
        f"Turn drift ({mode}): per-turn mean by conversation third, 95% bootstrap CI over "
        "conversations",
    )
    return figure


def subgroup(mode: str, rows: Sequence[SubgroupRow], compare: str) -> Figure:
    """The Composite inside the subgroup and in the rest, and their difference, each with its 95%
    bootstrap CI."""
    models = [r.model for r in rows]
    figure = new_figure(WIDTH, 1.5 + 0.45 * len(rows))
    means, difference = figure.subplots(1, 2, sharey=True)
    two_series(
        means,
        (f"subgroup: {short(compare, 60)}", BAR, [r.inside for r in rows]),
        ("the rest", SERIES[1], [r.rest for r in rows]),
    )
    entry = spec("composite")
    means.set_xlim(entry.low, entry.high)
    means.set_xlabel(scale("composite"))
    figure.legend(loc="outside lower center", ncols=2)
    means.set_title("inside the subgroup and in the rest", loc="left")
    model_rows(means, models)
    points(difference, [r.difference for r in rows], "black")
    difference.axvline(0, color="black", linewidth=0.8)
    difference.set_xlabel(f"difference, subgroup {MINUS} rest ({label('composite')} points)")
    difference.set_title("difference", loc="left")
    numbers_on_right(
        difference, [f"{show(r.difference)} (n {r.inside.n} vs {r.rest.n})" for r in rows]
    )
    title(figure, f"Subgroup ({mode}): {compare} vs the rest, 95% bootstrap CI")
    return figure


def spearman(split: CapabilitySplit) -> Figure:
    """Spearman rank correlation between metrics across models (diverging, centred on 0)."""
    matrix = np.array([[split.spearman[a][b] for b in split.metrics] for a in split.metrics])
    texts = [[NO_VALUE if np.isnan(v) else decimal(v) for v in row] for row in matrix]
    names = [label(m) for m in split.metrics]
    figure = new_figure(9.5, 1.8 + 0.45 * len(names))
    ax = figure.subplots()
    cmap = diverging()
    grid(ax, (matrix + 1) / 2, texts, cmap, names, names)
    ax.set(xlabel="metric", ylabel="metric")
    colorbar(figure, ax, cmap, -1, 1, f"Spearman rank correlation ({MINUS}1 to 1)")
    title(
        figure,
        f"Spearman rank correlation between metrics across {len(split.models)} models "
        f"({split.mode}; {NO_VALUE} where undefined)",
    )
    return figure


def win_rates(wins: WinRates) -> Figure:
    """Share of shared conversations where the row model's Pairwise Accuracy beats the column
    model's (diverging, centred on 0.5)."""
    matrix = np.array(
        [[math.nan if a == b else wins.rates[a][b] for b in wins.models] for a in wins.models]
    )
    texts = [["" if np.isnan(v) else decimal(v) for v in row] for row in matrix]
    names = [short(m) for m in wins.models]
    # Room for the slanted column names below the cells.
    figure = new_figure(min(WIDTH, 5.5 + 0.9 * len(names)), 3.4 + 0.55 * len(names))
    ax = figure.subplots()
    cmap = diverging()
    grid(ax, matrix, texts, cmap, names, names)
    ax.set(xlabel="column model", ylabel="row model")
    colorbar(figure, ax, cmap, 0, 1, "win rate (0 to 1)")
    title(
        figure, f"Pairwise win rate ({wins.mode}): row beats column on {label('pairwise_accuracy')}"
    )
    return figure
