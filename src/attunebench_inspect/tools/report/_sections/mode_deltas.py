"""What a mode adds over the default mode, per model, on shared conversations."""

from __future__ import annotations

from ....score._catalog import label
from ....solve._modes import PRIMARY
from .._build import Report
from .._table import Table, number
from .base import Section, no_mode_deltas


def _tables(report: Report) -> list[Table]:
    return [
        Table(
            f"Mode deltas (mode - {PRIMARY}, shared conversations)",
            ["model", "mode", "metric", "delta", "conversations"],
            [
                [d.model, d.mode, label(d.metric), number(d.delta), d.conversations]
                for d in report.mode_deltas
            ],
            empty=no_mode_deltas(report),
        )
    ]


SECTION = Section("mode_deltas", _tables)
