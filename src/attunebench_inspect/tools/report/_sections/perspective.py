"""The perspective gap (what the original model did vs what the participant wanted), the phrasing
effect, and turn drift across a conversation."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ....score._catalog import label
from .._build import Report
from .._table import Table, ci, number
from .base import Section, shown_drift

if TYPE_CHECKING:  # figures need the `plots` extra
    from .._plot import Chart


def _tables(report: Report) -> list[Table]:
    return [
        Table(
            "Perspective gap (percentage points) and phrasing effect",
            ["mode", "model", "comparison", "difference pp [95% CI]", "paired t-test p"],
            [
                [g.mode, g.model, g.label, ci(g.points, 1), number(g.p_value, 4)]
                for g in report.perspective
            ],
            "OM - HP > 0: the model reads what the original model did better than what the "
            "participant wanted.",
        ),
        Table(
            "Turn drift: per-turn metrics by conversation third",
            ["mode", "model", "metric", "early", "middle", "late", "turns"],
            [
                [
                    d.mode,
                    d.model,
                    label(d.metric),
                    *(number(x) for x in d.thirds),
                    "/".join(map(str, d.turns)),
                ]
                for d in shown_drift(report)
            ],
        ),
    ]


def _charts(report: Report, mode: str) -> Iterator[Chart]:
    from .._charts import drift, perspective
    from .._plot import Chart

    gaps = [g for g in report.perspective if g.mode == mode]
    if gaps:
        yield Chart(f"perspective_{mode}", mode, perspective(mode, gaps))
    lines = [d for d in shown_drift(report) if d.mode == mode]
    if any(not math.isnan(x) for d in lines for x in d.thirds):
        yield Chart(f"drift_{mode}", mode, drift(mode, lines))


SECTION = Section("perspective", _tables, _charts)
