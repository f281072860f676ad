"""The leaderboard: each model's Composite and pillars per mode, the instruments' readings
beside it, and every reported metric per mode."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ....score._catalog import label
from .._build import Report
from .._table import Table, catalog_order, ci
from .base import PILLARS, Section, at_version, few_runs, versions_note

if TYPE_CHECKING:  # figures need the `plots` extra
    from .._plot import Chart


def _tables(report: Report) -> list[Table]:
    # An instrument's reading of a model (the contamination verdict) sits beside its Composite,
    # so that no reader sees one without the other (ARCHITECTURE.md, "Validity instruments").
    beside = report.beside_composite()
    board = Table(
        f"Leaderboard{at_version(report)}: Composite and pillars "
        "(95% bootstrap CI over conversations)",
        ["mode", "model", "n", *map(label, ("composite", *PILLARS)), *(b.column for b in beside)],
        [
            [
                r.mode,
                r.model,
                r.composite.n,
                ci(r.composite, 2),
                *(ci(r.metrics[p]) if p in r.metrics else "-" for p in PILLARS),
                *(b.values.get(r.model, b.missing) for b in beside),
            ]
            for r in report.leaderboard
        ],
        "n: conversations. 'chance' is the attunebench/random baseline."
        + "".join(f" {b.note}" for b in beside)
        + few_runs(report)
        + versions_note(report),
    )
    per_mode = []
    for mode in sorted({r.mode for r in report.leaderboard}):
        rows = [r for r in report.leaderboard if r.mode == mode]
        names = catalog_order({m for r in rows for m in r.metrics if m not in PILLARS})
        per_mode.append(
            Table(
                f"Metrics ({mode}{at_version(report, ', ')}), 95% bootstrap CI",
                ["metric", *(r.model for r in rows)],
                [
                    [label(m), *(ci(r.metrics[m]) if m in r.metrics else "-" for r in rows)]
                    for m in names
                ],
            )
        )
    return [board, *per_mode]


def _charts(report: Report, mode: str) -> Iterator[Chart]:
    from .._charts import composite_bars, metric_heatmap
    from .._plot import Chart

    rows = [r for r in report.leaderboard if r.mode == mode]
    yield Chart(f"composite_{mode}", mode, composite_bars(mode, rows))
    metrics = catalog_order({m for r in rows for m in r.metrics})
    yield Chart(f"metrics_{mode}", mode, metric_heatmap(mode, rows, metrics))


SECTION = Section("leaderboard", _tables, _charts)
