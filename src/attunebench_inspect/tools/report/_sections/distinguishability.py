"""Which model pairs the data tells apart: paired differences on shared conversations."""

from __future__ import annotations

from ....score._catalog import label
from .._build import Report
from .._table import Cell, Table, ci
from .base import Section, no_pairs


def _tables(report: Report) -> list[Table]:
    counts: list[list[Cell]] = [
        [mode, label(metric), f"{d} of {n}"]
        for mode, per in report.distinguished.items()
        for metric, (d, n) in per.items()
    ]
    return [
        Table(
            "Distinguishability: model pairs whose paired 95% CI excludes 0",
            ["mode", "metric", "distinguished pairs"],
            counts,
            empty=no_pairs(report),
        ),
        Table(
            "Paired differences (model A - model B, shared conversations)",
            ["mode", "metric", "model A", "model B", "difference [95% CI]", "distinguished"],
            [
                [
                    p.mode,
                    label(p.metric),
                    p.model_a,
                    p.model_b,
                    ci(p.difference),
                    "yes" if p.distinguished else "no",
                ]
                for p in report.distinguishability
            ],
            empty=no_pairs(report),
        ),
    ]


SECTION = Section("distinguishability", _tables)
