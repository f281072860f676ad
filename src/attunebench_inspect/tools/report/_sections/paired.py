"""The comparisons on shared conversations: which model pairs the data tells apart (paired
differences), and what a mode adds over the default mode, per model."""

from __future__ import annotations

from ....score._catalog import label
from ....solve._modes import PRIMARY
from .._build import Report
from .._table import Cell, Table, ci, number
from .base import Section, models_besides_chance


def _distinguishability(report: Report) -> list[Table]:
    have = ", ".join(f"{mode}: {n}" for mode, n in models_besides_chance(report).items())
    empty = f"No model pairs: a pair needs two models besides chance in a mode ({have})."
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
            empty=empty,
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
            empty=empty,
        ),
    ]


def _no_mode_deltas(report: Report) -> str:
    modes = sorted({r.mode for r in report.leaderboard})
    if len(modes) < 2:
        return f"No mode deltas: the logs have one mode ({', '.join(modes)}); run another."
    return "No mode deltas: no model was run in the default mode and in another mode."


def _mode_deltas(report: Report) -> list[Table]:
    return [
        Table(
            f"Mode deltas (mode - {PRIMARY}, shared conversations)",
            ["model", "mode", "metric", "delta", "conversations"],
            [
                [d.model, d.mode, label(d.metric), number(d.delta), d.conversations]
                for d in report.mode_deltas
            ],
            empty=_no_mode_deltas(report),
        )
    ]


DISTINGUISHABILITY = Section("distinguishability", _distinguishability)
MODE_DELTAS = Section("mode_deltas", _mode_deltas)
