"""The re-annotation's figure per mode: the reviewer's test's matrices and the task scores."""

from __future__ import annotations

import math
import textwrap

import numpy as np
from matplotlib.axes import Axes
from matplotlib.colors import Colormap
from matplotlib.figure import Figure

from ..._util.bootstrap import EMPTY, Interval
from ...tools.report._plot import (
    BAR,
    MINUS,
    NO_VALUE,
    SERIES,
    WIDTH,
    colorbar,
    decimal,
    diverging,
    grid,
    model_rows,
    new_figure,
    show,
    title,
    two_series,
)
from ._separability import SeparabilityTest
from ._study import ModeStudy
from ._tasks import TASK_LABELS


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
                texts[i][j] = f"{decimal(rho.estimate)}\n{show(rho, 2).split(' ', 1)[1]}"
    grid(ax, shade, texts, cmap, [textwrap.fill(n, 14) for n in names], names)


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
    figure = new_figure(WIDTH, top_height + scores_height)
    # The matrices above, the scores below: each part lays out its own axes.
    parts = figure.subfigures(2, 1, height_ratios=[top_height, scores_height])
    assert isinstance(parts, np.ndarray)  # two rows: an array, never one SubFigure
    top, bottom = parts
    if matrices:
        cmap = diverging()
        left, right = top.subplots(1, 2)
        for ax, side, under in (
            (left, "own", "self labels"),
            (right, "third", "third-party labels"),
        ):
            _rho_matrix(ax, test, side, cmap)
            ax.set_title(f"under {under}", loc="left")
        colorbar(top, [left, right], cmap, -1, 1, f"Spearman rho ({MINUS}1 to 1)")
    # With the matrices the verdict; without them, why there is none.
    said = test.verdict if matrices else test.reading
    top.suptitle(textwrap.fill(f"Reviewer's test: {said}", 120), fontsize=10)
    axes = bottom.subplots(1, max(len(tasks), 1), sharey=True, squeeze=False)[0]
    for ax, task in zip(axes, tasks, strict=False):
        rows = {g.model: g for g in mode.gains if g.task == task}
        two_series(
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
        model_rows(ax, models)
    for ax in axes[1:]:
        ax.set_ylabel("")
    if tasks:
        bottom.legend(*axes[0].get_legend_handles_labels(), loc="outside lower center", ncols=2)
    scores = "each model's task scores against self and third-party labels (95% bootstrap CI)"
    shown = f"Spearman rho between the tasks' model rankings, and {scores}" if matrices else scores
    title(
        figure,
        f"Third-party labels ({mode.mode}, {mode.conversations} shared conversations): {shown}",
    )
    return figure
