"""Capabilities apart: per mode, each model's rank per metric, the rank correlation between
metrics across models, and pairwise win rates; each says where the logs have too few models."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ....score._catalog import label
from .._build import Report
from .._table import Table, nothing_to_show, number, too_few
from .base import Section, models_besides_chance

if TYPE_CHECKING:  # figures need the `plots` extra
    from .._plot import Chart


def _tables(report: Report) -> list[Table]:
    return [t for mode in models_besides_chance(report) for t in _ranks(report, mode)]


def _ranks(report: Report, mode: str) -> list[Table]:
    """Capability split, Spearman matrix and win rates of one mode; each needs enough models
    besides chance, and says so where the logs have too few."""
    have = models_besides_chance(report)[mode]
    capability = f"Capability split ({mode}): rank per metric (1 = best)"
    spearman = f"Spearman rank correlation between metrics across models ({mode})"
    win_rate = (
        f"Pairwise win rate ({mode}): share of conversations where the row model's "
        f"{label('pairwise_accuracy')} beats the column model's"
    )
    split = next((c for c in report.capability if c.mode == mode), None)
    wins = next((w for w in report.win_rates if w.mode == mode), None)
    if split is None or wins is None or have < 2:
        return [
            nothing_to_show(capability, too_few(2, have)),
            nothing_to_show(spearman, too_few(3, have)),
            nothing_to_show(win_rate, too_few(2, have)),
        ]
    negative = f" ({', '.join(split.negative_tau)})" if split.negative_tau else ""
    return [
        Table(
            capability,
            ["metric", "leader", *split.models],
            [
                [label(m), split.leaders[m], *(split.ranks[m][x] for x in split.models)]
                for m in split.metrics
            ],
            f"Models with negative mean {label('kendall_tau')}: {len(split.negative_tau)} of "
            f"{len(split.models)}{negative}",
        ),
        Table(
            spearman,
            # Numbered columns: a square matrix of every metric fits a terminal only so.
            ["metric", *(str(i) for i, _ in enumerate(split.metrics, 1))],
            [
                [f"{i} {label(a)}", *(number(split.spearman[a][b], 2) for b in split.metrics)]
                for i, a in enumerate(split.metrics, 1)
            ],
            "Each column is the metric of its number. '-' where undefined (a metric constant "
            "across models).",
        )
        if have >= 3
        else nothing_to_show(spearman, too_few(3, have)),
        Table(
            win_rate,
            ["model", *wins.models],
            [
                [a, *("" if a == b else number(wins.rates[a][b], 2) for b in wins.models)]
                for a in wins.models
            ],
        ),
    ]


def _charts(report: Report, mode: str) -> Iterator[Chart]:
    from .._charts import spearman, win_rates
    from .._plot import Chart

    for split in (c for c in report.capability if c.mode == mode and len(c.models) >= 3):
        yield Chart(f"spearman_{mode}", mode, spearman(split))
    for wins in (w for w in report.win_rates if w.mode == mode and len(w.models) >= 2):
        yield Chart(f"win_rates_{mode}", mode, win_rates(wins))


SECTION = Section("capability", _tables, _charts)
