"""The report's figures, drawn with matplotlib's Agg backend: PNG files for `--plots` and the
same images inline in the HTML page.

Every builder returns a matplotlib `Figure` (tests read its axes labels, titles and legends).
Axis labels that name a metric come from the metric catalog, with the metric's range as its unit.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from matplotlib import colormaps, rc_context
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.cm import ScalarMappable
from matplotlib.colorbar import Colorbar
from matplotlib.colors import Colormap, Normalize
from matplotlib.figure import Figure, SubFigure
from numpy.typing import NDArray
from PIL import Image

from ..._suite.report import Report
from ..._util.bootstrap import EMPTY, Interval
from ..._util.files import output_folder, write_atomic
from ...instruments.reannotation._analysis import TASK_LABELS, SeparabilityTest
from ...instruments.reannotation._study import ModeStudy
from ...instruments.stability._report import RankTable, RunStability
from ...score._catalog import label, spec
from ._analyses import THIRDS, CapabilitySplit, Drift, Gap, LeaderRow, SubgroupRow, WinRates
from ._render import catalog_order, models_besides_chance, number, shown_drift
from ._run_table import CHANCE_LABEL

if TYPE_CHECKING:  # newer than the oldest matplotlib the `plots` extra allows
    from matplotlib.typing import RcKeyType

DPI = 100
"""Figure inches to CSS pixels: a figure WIDTH inches wide is shown WIDTH * 100 px wide."""
PNG_DPI = 200
"""Twice the CSS size, so PNGs stay sharp on high-density screens and when zoomed."""
WIDTH = 11.0
"""Full-width figures: 1100 px, inside the page's 1200 px column at a 1280 px window."""
NAME_CHARS = 36
"""Longer model names are shortened in the middle, where provider/name/date prefixes and
suffixes are least telling."""
MINUS = "\N{MINUS SIGN}"
NO_VALUE = "\N{EN DASH}"
BAR = "#3566a8"
CHANCE = "#a0a0a0"
SERIES = ("#3566a8", "#d1792b", "#3f9a58", "#b7443e", "#7a5aa6", "#8c6d3f", "#c2578f", "#4d4d4d")
MARKERS = "osD^v"
"""With more models than colours, the marker tells repeated colours apart."""
STYLE: dict[RcKeyType, Any] = {
    "font.size": 10,
    "axes.titlesize": 10,
    "figure.titlesize": 12,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
}


@dataclass(frozen=True)
class Chart:
    name: str
    """File stem, e.g. composite_default."""
    mode: str
    figure: Figure


def short(name: str, limit: int = NAME_CHARS) -> str:
    """`name` in at most `limit` characters, with an ellipsis in the middle if it is longer."""
    if len(name) <= limit:
        return name
    head = (limit - 1) // 2
    return f"{name[:head]}…{name[len(name) - (limit - 1 - head) :]}"


def _number(value: float) -> str:
    return f"{value:.3g}".replace("-", MINUS)


def scale(metric: str) -> str:
    """A metric's axis label: its catalog label and range, e.g. "Binary OM (0 to 1)"."""
    entry = spec(metric)
    return f"{entry.label} ({_number(entry.low)} to {_number(entry.high)})"


def _figure(width: float, height: float) -> Figure:
    figure = Figure(figsize=(width, height), dpi=DPI, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _title(figure: Figure, text: str) -> None:
    """The figure's title, wrapped to its width (titles carry mode names and filters)."""
    chars = int(figure.get_figwidth() * DPI / 10.5)  # 12 pt DejaVu Sans: under 10.5 px a letter
    figure.suptitle(textwrap.fill(text, chars))


def png(figure: Figure) -> bytes:
    raw = BytesIO()
    with rc_context(STYLE):
        figure.savefig(raw, format="png", dpi=PNG_DPI, metadata={"Software": None})
    # 256 colours: under a third of the bytes (the HTML page inlines every figure) and, with flat
    # fills and antialiased text at twice the CSS size, no visible change.
    image = Image.open(raw).convert("RGB")
    image = image.quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    # The octree rounds the white background to 254, a grey box on the white page: snap it back.
    colours = image.getpalette() or []
    triples = [colours[i : i + 3] for i in range(0, len(colours), 3)]
    image.putpalette([c for t in triples for c in ([255] * 3 if min(t) >= 250 else t)])
    out = BytesIO()
    image.save(out, format="png")
    return out.getvalue()


def _decimal(value: float, digits: int = 2) -> str:
    return number(value, digits).replace("-", MINUS)


def _show(interval: Interval, digits: int = 1) -> str:
    if math.isnan(interval.estimate):
        return NO_VALUE
    low, high = (_decimal(x, digits) for x in (interval.low, interval.high))
    return f"{_decimal(interval.estimate, digits)} [{low}, {high}]"


def _errors(intervals: Sequence[Interval]) -> NDArray[np.float64]:
    """Matplotlib's (2, n) error bar lengths below and above each estimate (0 where unknown)."""
    below = [i.estimate - i.low for i in intervals]
    above = [i.high - i.estimate for i in intervals]
    return np.nan_to_num(np.array([below, above], dtype=np.float64))


def _numbers_on_right(ax: Axes, texts: Sequence[str]) -> None:
    """Each row's estimate and interval as tick labels on the right, where the layout keeps
    them inside the canvas."""
    right = ax.secondary_yaxis("right")
    right.set_yticks(range(len(texts)), labels=texts)
    right.tick_params(length=0)
    right.spines["right"].set_visible(False)


def _model_rows(ax: Axes, models: Sequence[str]) -> None:
    ax.set_yticks(range(len(models)), labels=[short(m) for m in models])
    ax.set_ylim(len(models) - 0.5, -0.5)  # the first row on top
    ax.set_ylabel("model")


# --- leaderboard -------------------------------------------------------------------------------


def composite_bars(mode: str, rows: Sequence[LeaderRow]) -> Figure:
    """The Composite of each model with its 95% bootstrap CI, on the Composite's whole range."""
    figure = _figure(WIDTH, 1.3 + 0.38 * len(rows))
    ax = figure.subplots()
    intervals = [r.composite for r in rows]
    colours = [CHANCE if r.model == CHANCE_LABEL else BAR for r in rows]
    ax.barh(
        range(len(rows)),
        np.nan_to_num([i.estimate for i in intervals]),
        xerr=_errors(intervals),
        color=colours,
        height=0.6,
        error_kw={"ecolor": "black", "capsize": 3, "linewidth": 1},
    )
    entry = spec("composite")
    ax.set_xlim(entry.low, entry.high)
    ax.axvline(0, color="black", linewidth=0.8)
    ax.set_xlabel(scale("composite"))
    _model_rows(ax, [r.model for r in rows])
    _numbers_on_right(ax, [_show(i) for i in intervals])
    _title(figure, f"Composite ({mode}): mean over conversations, 95% bootstrap CI (grey: chance)")
    return figure


def _text_colour(cmap: Colormap, shade: float) -> str:
    red, green, blue, _ = cmap(shade)
    return "white" if 0.299 * red + 0.587 * green + 0.114 * blue < 0.5 else "black"


def _grid(
    ax: Axes,
    shade: NDArray[np.float64],
    texts: Sequence[Sequence[str]],
    cmap: Colormap,
    rows: Sequence[str],
    columns: Sequence[str],
) -> None:
    """A heatmap of `shade` (0 to 1; NaN grey) with each cell's number written in it, so it
    reads with one model, with two, and in black and white."""
    ax.imshow(np.ma.masked_invalid(shade), cmap=cmap, vmin=0, vmax=1, aspect="auto")
    for (i, j), value in np.ndenumerate(shade):
        colour = "black" if np.isnan(value) else _text_colour(cmap, float(value))
        ax.text(j, i, texts[i][j], ha="center", va="center", color=colour, fontsize=9)
    ax.set_xticks(range(len(columns)), labels=columns, rotation=35, ha="right")
    ax.set_yticks(range(len(rows)), labels=rows)
    ax.tick_params(length=0)
    ax.spines[:].set_visible(False)


def _colorbar(
    figure: Figure | SubFigure,
    ax: Axes | list[Axes],
    cmap: Colormap,
    low: float,
    high: float,
    text: str,
) -> Colorbar:
    bar = figure.colorbar(ScalarMappable(Normalize(low, high), cmap), ax=ax, shrink=0.9)
    bar.set_label(text)
    return bar


def _sequential() -> Colormap:
    return colormaps["viridis"].with_extremes(bad="#e6e6e6")


def _diverging() -> Colormap:
    return colormaps["RdBu"].with_extremes(bad="#e6e6e6")


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
    texts = [[NO_VALUE if np.isnan(v) else _decimal(v) for v in row] for row in values]
    figure = _figure(WIDTH, 2.2 + 0.42 * len(rows))
    ax = figure.subplots()
    cmap = _sequential()
    _grid(ax, shade, texts, cmap, [short(r.model) for r in rows], [label(m) for m in metrics])
    ax.set_xlabel("metric (mean over conversations)")
    ax.set_ylabel("model")
    # Words on the ticks, not in a long label: a heatmap of one or two runs is short.
    bar = _colorbar(figure, ax, cmap, 0, 1, "place in range")
    bar.set_ticks([0, 0.5, 1], labels=["0 worst", "0.5", "1 best"])
    _title(
        figure, f"Metrics ({mode}): colour = place in the metric's range, the same for every run"
    )
    return figure


# --- perspective gap ---------------------------------------------------------------------------


def perspective(mode: str, gaps: Sequence[Gap]) -> Figure:
    """Per comparison (OM - HP, and the phrasing effects), each model's mean difference in
    percentage points with its 95% bootstrap CI."""
    comparisons = list(dict.fromkeys(g.label for g in gaps))
    models = list(dict.fromkeys(g.model for g in gaps))
    figure = _figure(WIDTH, 0.4 + len(comparisons) * (1.0 + 0.32 * len(models)))
    axes = figure.subplots(len(comparisons), 1, sharex=True, squeeze=False)[:, 0]
    ends = [abs(x) for g in gaps for x in (g.points.low, g.points.high) if not math.isnan(x)]
    reach = max([*ends, 1.0]) * 1.15
    for ax, comparison in zip(axes, comparisons, strict=True):
        found = {g.model: g.points for g in gaps if g.label == comparison}
        intervals = [found.get(m, Interval(math.nan, math.nan, math.nan, 0)) for m in models]
        ax.errorbar(
            [i.estimate for i in intervals],
            range(len(models)),
            xerr=_errors(intervals),
            fmt="o",
            color=BAR,
            capsize=3,
        )
        ax.axvline(0, color="black", linewidth=0.8)
        ax.set_xlim(-reach, reach)
        ax.set_xlabel("difference (percentage points)")
        ax.tick_params(labelbottom=True)  # sharex hides them; each panel is read on its own
        _model_rows(ax, models)
        _numbers_on_right(ax, [f"{_show(i)} pp" for i in intervals])
        ax.set_title(comparison, loc="left")
    _title(
        figure,
        f"Perspective gap and phrasing effect ({mode}): mean difference in "
        f"{label('binary_om_accuracy')} / {label('binary_hp_accuracy')} accuracy, 95% bootstrap "
        "CI; > 0: the first term is higher",
    )
    return figure


# --- turn drift --------------------------------------------------------------------------------


def drift(mode: str, rows: Sequence[Drift]) -> Figure:
    """Per drift metric, each model's per-turn mean by conversation third with a 95% interval, on
    the metric's whole range (a zoomed axis makes noise read as a trend)."""
    metrics = list(dict.fromkeys(d.metric for d in rows))
    models = list(dict.fromkeys(d.model for d in rows))
    figure = _figure(WIDTH, 3.9)
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
        ax.set_xlabel("conversation third")
        ax.set_ylabel(scale(metric))
    # One entry per model, from whichever panel has it.
    entries = {
        name: handle
        for ax in axes
        for handle, name in zip(*ax.get_legend_handles_labels(), strict=True)
    }
    figure.legend(
        entries.values(), entries.keys(), loc="outside lower center", ncols=min(len(entries), 3)
    )
    _title(
        figure,
        f"Turn drift ({mode}): per-turn mean by conversation third, 95% bootstrap CI over "
        "conversations",
    )
    return figure


# --- subgroups -----------------------------------------------------------------------------------


Series = tuple[str, str, Sequence[Interval]]
"""A legend name, a colour, and one interval per row."""


def _two_series(ax: Axes, first: Series, second: Series) -> None:
    """Two intervals per row, the first drawn just above the row and the second just below."""
    for offset, (name, colour, intervals) in enumerate((first, second)):
        ax.errorbar(
            [i.estimate for i in intervals],
            np.arange(len(intervals)) + (offset - 0.5) * 0.3,
            xerr=_errors(intervals),
            fmt="o",
            color=colour,
            capsize=3,
            label=name,
        )


def subgroup(mode: str, rows: Sequence[SubgroupRow], compare: str) -> Figure:
    """The Composite inside the subgroup and in the rest, and their difference, each with its 95%
    bootstrap CI."""
    models = [r.model for r in rows]
    figure = _figure(WIDTH, 1.5 + 0.45 * len(rows))
    means, difference = figure.subplots(1, 2, sharey=True)
    _two_series(
        means,
        (f"subgroup: {short(compare, 60)}", BAR, [r.inside for r in rows]),
        ("the rest", SERIES[1], [r.rest for r in rows]),
    )
    entry = spec("composite")
    means.set_xlim(entry.low, entry.high)
    means.set_xlabel(scale("composite"))
    figure.legend(loc="outside lower center", ncols=2)
    means.set_title("inside the subgroup and in the rest", loc="left")
    _model_rows(means, models)
    gaps = [r.difference for r in rows]
    difference.errorbar(
        [i.estimate for i in gaps],
        range(len(rows)),
        xerr=_errors(gaps),
        fmt="o",
        color="black",
        capsize=3,
    )
    difference.axvline(0, color="black", linewidth=0.8)
    difference.set_xlabel(f"difference, subgroup {MINUS} rest ({label('composite')} points)")
    difference.set_title("difference", loc="left")
    _numbers_on_right(
        difference, [f"{_show(r.difference)} (n {r.inside.n} vs {r.rest.n})" for r in rows]
    )
    _title(figure, f"Subgroup ({mode}): {compare} vs the rest, 95% bootstrap CI")
    return figure


# --- capability split and win rates -----------------------------------------------------------


def spearman(split: CapabilitySplit) -> Figure:
    """Spearman rank correlation between metrics across models (diverging, centred on 0)."""
    matrix = np.array([[split.spearman[a][b] for b in split.metrics] for a in split.metrics])
    texts = [[NO_VALUE if np.isnan(v) else _decimal(v) for v in row] for row in matrix]
    names = [label(m) for m in split.metrics]
    figure = _figure(9.5, 1.8 + 0.45 * len(names))
    ax = figure.subplots()
    cmap = _diverging()
    _grid(ax, (matrix + 1) / 2, texts, cmap, names, names)
    ax.set_xlabel("metric")
    ax.set_ylabel("metric")
    _colorbar(figure, ax, cmap, -1, 1, f"Spearman rank correlation ({MINUS}1 to 1)")
    _title(
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
    texts = [["" if np.isnan(v) else _decimal(v) for v in row] for row in matrix]
    names = [short(m) for m in wins.models]
    # Room for the slanted column names below the cells.
    figure = _figure(min(WIDTH, 5.5 + 0.9 * len(names)), 3.4 + 0.55 * len(names))
    ax = figure.subplots()
    cmap = _diverging()
    _grid(ax, matrix, texts, cmap, names, names)
    ax.set_xlabel("column model")
    ax.set_ylabel("row model")
    _colorbar(figure, ax, cmap, 0, 1, "win rate (0 to 1)")
    _title(
        figure, f"Pairwise win rate ({wins.mode}): row beats column on {label('pairwise_accuracy')}"
    )
    return figure


# --- stability ---------------------------------------------------------------------------------


def position_shares(mode: str, runs: Sequence[RunStability]) -> Figure:
    """Per model, the share of its pairwise choices that went to each display position, with
    its 95% bootstrap CI, beside the share a chooser blind to position gives it."""
    runs = [r for r in runs if r.position_bias.positions]
    figure = _figure(WIDTH, 1.6 + 0.75 * len(runs))
    ax = figure.subplots()
    offsets = (-0.25, 0.0, 0.25)
    for k, offset in enumerate(offsets):
        shares = [r.position_bias.positions[k] for r in runs if len(r.position_bias.positions) > k]
        rows = [i + offset for i, r in enumerate(runs) if len(r.position_bias.positions) > k]
        intervals = [s.share for s in shares]
        ax.barh(
            rows,
            np.nan_to_num([i.estimate for i in intervals]),
            xerr=_errors(intervals),
            height=0.24,
            color=SERIES[k],
            label=f"position {k + 1}" + (" (shown first)" if k == 0 else ""),
            error_kw={"ecolor": "black", "capsize": 2, "linewidth": 0.8},
        )
        ax.scatter(
            [s.expected for s in shares],
            rows,
            marker="|",
            s=160,
            color="black",
            zorder=3,
            label="expected if blind to position" if k == 0 else None,
        )
    ax.set_xlim(0, 1)
    ax.set_xlabel("share of the model's pairwise choices (0 to 1)")
    _model_rows(ax, [r.model for r in runs])
    _numbers_on_right(
        ax,
        [f"earlier {_show(r.position_bias.earlier, 2)}: {r.position_bias.verdict}" for r in runs],
    )
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=4)
    _title(
        figure,
        f"Pairwise choices by display position ({mode}), 95% bootstrap CI; right: the share "
        "that went to the earlier-shown reply (1/2 if blind to position) and the verdict",
    )
    return figure


def rank_matrix(ranks: RankTable) -> Figure:
    """For every pair of models, the share of bootstrap replicates in which their order holds;
    * where it is settled."""
    matrix = np.array(ranks.holds, dtype=float)
    texts = [
        [
            "" if np.isnan(v) else _decimal(v) + ("*" if ranks.settled[i][j] else "")
            for j, v in enumerate(row)
        ]
        for i, row in enumerate(matrix)
    ]
    names = [
        f"{short(m)} ({_decimal(e, 1)})" for m, e in zip(ranks.models, ranks.estimates, strict=True)
    ]
    figure = _figure(min(WIDTH, 5.5 + 0.9 * len(names)), 3.4 + 0.55 * len(names))
    ax = figure.subplots()
    cmap = _sequential()
    # An order holds in at least half of the replicates but by ties: the colour spans 1/2 (a
    # coin toss) to 1 (every replicate).
    _grid(ax, np.clip(2 * matrix - 1, 0, 1), texts, cmap, names, names)
    ax.set_xlabel("model (Composite)")
    ax.set_ylabel("model (Composite), highest first")
    _colorbar(figure, ax, cmap, 0.5, 1, "share of replicates keeping the order")
    _title(
        figure,
        f"Rank stability ({ranks.mode}): how often each pair keeps its order over "
        f"{ranks.resamples} bootstrap replicates; * settled (>= {ranks.threshold})",
    )
    return figure


# --- third-party labels --------------------------------------------------------------------------


def _rho_matrix(ax: Axes, test: SeparabilityTest, side: str, cmap: Colormap) -> None:
    """One side's Spearman matrix: rho and its 95% interval in each cell."""
    cells = {p.tasks: getattr(p, side) for p in test.pairs}
    cells.update({(b, a): i for (a, b), i in list(cells.items())})
    names = [TASK_LABELS.get(t, t) for t in test.tasks]
    shade = np.full((len(names), len(names)), np.nan)
    texts = [["1" if a == b else NO_VALUE for b in test.tasks] for a in test.tasks]
    for i, a in enumerate(test.tasks):
        for j, b in enumerate(test.tasks):
            rho = cells[(a, b)] if a != b else Interval(1.0, 1.0, 1.0, 0)
            shade[i, j] = (rho.estimate + 1) / 2
            if a != b and not math.isnan(rho.estimate):
                texts[i][j] = f"{_decimal(rho.estimate)}\n{_show(rho, 2).split(' ', 1)[1]}"
    _grid(ax, shade, texts, cmap, [textwrap.fill(n, 14) for n in names], names)


def third_party(mode: ModeStudy) -> Figure:
    """The reviewer's test and the self-specific gain of one mode: the Spearman matrices of the
    tasks' model rankings under self and third-party labels side by side, and each model's task
    scores against both label sets, each with its 95% bootstrap CI."""
    test = mode.test
    tasks = list(dict.fromkeys(g.task for g in mode.gains))
    models = list(dict.fromkeys(g.model for g in mode.gains))
    matrices = bool(test.pairs)
    scores_height = 1.3 + 0.34 * max(len(models), 1)
    top_height = 4.3 if matrices else 0.8
    figure = _figure(WIDTH, top_height + scores_height)
    # The matrices above, the scores below: each part lays out its own axes.
    parts = figure.subfigures(2, 1, height_ratios=[top_height, scores_height])
    assert isinstance(parts, np.ndarray)  # two rows: an array, never one SubFigure
    top, bottom = parts
    if matrices:
        cmap = _diverging()
        left, right = top.subplots(1, 2)
        for ax, side, title in (
            (left, "own", "self labels"),
            (right, "third", "third-party labels"),
        ):
            _rho_matrix(ax, test, side, cmap)
            ax.set_title(f"under {title}", loc="left")
        _colorbar(top, [left, right], cmap, -1, 1, f"Spearman rho ({MINUS}1 to 1)")
    # With the matrices the verdict; without them, why there is none.
    said = test.verdict if matrices else test.reading
    top.suptitle(textwrap.fill(f"Reviewer's test: {said}", 120), fontsize=10)
    axes = bottom.subplots(1, max(len(tasks), 1), sharey=True, squeeze=False)[0]
    for ax, task in zip(axes, tasks, strict=False):
        rows = {g.model: g for g in mode.gains if g.task == task}
        _two_series(
            ax,
            ("self labels", BAR, [rows[m].own if m in rows else EMPTY for m in models]),
            (
                "third-party labels",
                SERIES[1],
                [rows[m].third if m in rows else EMPTY for m in models],
            ),
        )
        ax.set_xlim(-0.03, 1.03)  # a score of 0 or 1 shown whole
        ax.set_xticks(np.linspace(0, 1, 5))
        ax.set_xlabel("score (0 to 1)")
        ax.set_title(textwrap.fill(TASK_LABELS.get(task, task), 26), loc="left")
        _model_rows(ax, models)
    for ax in axes[1:]:
        ax.set_ylabel("")
    if tasks:
        bottom.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=2)
    scores = "each model's task scores against self and third-party labels (95% bootstrap CI)"
    shown = f"Spearman rho between the tasks' model rankings, and {scores}" if matrices else scores
    _title(
        figure,
        f"Third-party labels ({mode.mode}, {mode.conversations} shared conversations): {shown}",
    )
    return figure


# --- all of them -------------------------------------------------------------------------------


def _mode_charts(report: Report, mode: str) -> Iterator[Chart]:
    rows = [r for r in report.leaderboard if r.mode == mode]
    yield Chart(f"composite_{mode}", mode, composite_bars(mode, rows))
    metrics = catalog_order({m for r in rows for m in r.metrics})
    yield Chart(f"metrics_{mode}", mode, metric_heatmap(mode, rows, metrics))
    gaps = [g for g in report.perspective if g.mode == mode]
    if gaps:
        yield Chart(f"perspective_{mode}", mode, perspective(mode, gaps))
    lines = [d for d in shown_drift(report) if d.mode == mode]
    if any(not math.isnan(x) for d in lines for x in d.thirds):
        yield Chart(f"drift_{mode}", mode, drift(mode, lines))
    composite = [s for s in report.subgroups if s.mode == mode and s.metric == "composite"]
    if composite and report.compare:
        yield Chart(f"subgroup_{mode}", mode, subgroup(mode, composite, report.compare))
    for split in (c for c in report.capability if c.mode == mode and len(c.models) >= 3):
        yield Chart(f"spearman_{mode}", mode, spearman(split))
    for wins in (w for w in report.win_rates if w.mode == mode and len(w.models) >= 2):
        yield Chart(f"win_rates_{mode}", mode, win_rates(wins))
    runs = [r for r in report.stability if r.mode == mode and r.position_bias.positions]
    if runs:
        yield Chart(f"position_{mode}", mode, position_shares(mode, runs))
    for ranks in (r for r in report.rank_stability if r.mode == mode):
        yield Chart(f"rank_stability_{mode}", mode, rank_matrix(ranks))
    studied = report.third_party.modes if report.third_party else []
    for study in (s for s in studied if s.mode == mode and s.gains):
        yield Chart(f"third_party_{mode}", mode, third_party(study))


def charts(report: Report) -> list[Chart]:
    """Every figure of the report, mode by mode."""
    with rc_context(STYLE):
        return [c for mode in models_besides_chance(report) for c in _mode_charts(report, mode)]


def write_pngs(report: Report, folder: Path) -> list[Path]:
    output_folder(folder)
    written = []
    for chart in charts(report):
        path = folder / f"{chart.name}.png"
        write_atomic(path, png(chart.figure))
        written.append(path)
    return written
