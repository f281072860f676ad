"""The stability instrument's figures: pairwise choices by display position, rank stability."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.figure import Figure

from ...tools.report._plot import (
    SERIES,
    WIDTH,
    colorbar,
    decimal,
    errors,
    grid,
    model_rows,
    new_figure,
    numbers_on_right,
    sequential,
    short,
    show,
    title,
)
from ._report import RankTable, RunStability


def position_shares(mode: str, runs: Sequence[RunStability]) -> Figure:
    """Per model, the share of its pairwise choices that went to each display position, with
    its 95% bootstrap CI, beside the share a chooser blind to position gives it."""
    runs = [r for r in runs if r.position_bias.positions]
    figure = new_figure(WIDTH, 1.6 + 0.75 * len(runs))
    ax = figure.subplots()
    for k, offset in enumerate((-0.25, 0.0, 0.25)):
        shares = [r.position_bias.positions[k] for r in runs if len(r.position_bias.positions) > k]
        rows = [i + offset for i, r in enumerate(runs) if len(r.position_bias.positions) > k]
        intervals = [s.share for s in shares]
        ax.barh(
            rows,
            np.nan_to_num([i.estimate for i in intervals]),
            xerr=errors(intervals),
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
    model_rows(ax, [r.model for r in runs])
    numbers_on_right(
        ax,
        [f"earlier {show(r.position_bias.earlier, 2)}: {r.position_bias.verdict}" for r in runs],
    )
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncols=4)
    title(
        figure,
        f"Pairwise choices by display position ({mode}), 95% bootstrap CI; right: the share "
        "that went to the earlier-shown reply (1/2 if blind to position) and the verdict",
    )
    return figure


def rank_matrix(ranks: RankTable) -> Figure:
    """For every pair of models, how often their order holds over replicates; * where settled."""
    matrix = np.array(ranks.holds, dtype=float)
    texts = [
        [
            "" if np.isnan(v) else decimal(v) + ("*" if ranks.settled[i][j] else "")
            for j, v in enumerate(row)
        ]
        for i, row in enumerate(matrix)
    ]
    names = [
        f"{short(m)} ({decimal(e, 1)})" for m, e in zip(ranks.models, ranks.estimates, strict=True)
    ]
    figure = new_figure(min(WIDTH, 5.5 + 0.9 * len(names)), 3.4 + 0.55 * len(names))
    ax = figure.subplots()
    cmap = sequential()
    # An order holds in at least half of the replicates but by ties: the colour spans 1/2 (a
    # coin toss) to 1 (every replicate).
    grid(ax, np.clip(2 * matrix - 1, 0, 1), texts, cmap, names, names)
    ax.set_xlabel("model (Composite)")
    ax.set_ylabel("model (Composite), highest first")
    colorbar(figure, ax, cmap, 0.5, 1, "share of replicates keeping the order")
    title(
        figure,
        f"Rank stability ({ranks.mode}): how often each pair keeps its order over "
        f"{ranks.resamples} bootstrap replicates; * settled (>= {ranks.threshold})",
    )
    return figure
