"""What a section of the report is (`Section`: its tables, and its figures per mode), and the
phrases sections share. A section reads the report (`_build.Report`): the main task's sections its
fields, an instrument's section its own part (`Report.part`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._analyses import FEW_CONVERSATIONS, Drift
from .._build import Report
from .._table import Table

if TYPE_CHECKING:  # figures need the `plots` extra
    from .._plot import Chart


@dataclass(frozen=True)
class Section:
    """A section of the report: its tables (none where it has nothing to show), and its figures
    of a mode (matplotlib, imported only where figures are drawn)."""

    name: str
    tables: Callable[[Report], list[Table]]
    charts: Callable[[Report, str], Iterator[Chart]] | None = None


def models_besides_chance(report: Report) -> dict[str, int]:
    """Per mode, how many models besides the chance baseline (what pairs and ranks are over)."""
    counts = {r.mode: 0 for r in report.leaderboard}
    counts.update({c.mode: len(c.models) for c in report.capability})
    return counts


def shown_drift(report: Report) -> list[Drift]:
    """Turn drift rows worth showing: a mode's pooled "all models" rows only where they pool two
    or more models (with one they repeat its rows)."""
    ranked = {(r.model, r.mode) for r in report.leaderboard}
    pooled = {mode for mode, n in models_besides_chance(report).items() if n >= 2}
    return [d for d in report.drift if (d.model, d.mode) in ranked or d.mode in pooled]


PILLARS = ("emotion_pillar", "evaluation_pillar", "holistic_pillar")


def at_version(report: Report, joint: str = ", ") -> str:
    return f"{joint}task version {report.task_version}" if report.task_version else ""


def versions_note(report: Report) -> str:
    """Which task versions the logs hold, where they hold more than the one reported."""
    if len(report.versions) < 2:
        return ""
    others = ", ".join(
        f"{v} ({n} run{'s' * (n > 1)})"
        for v, n in report.versions.items()
        if v != report.task_version
    )
    return (
        f" Only task version {report.task_version} is ranked; the logs also hold {others}, "
        "listed as skipped (scores of different task versions are not comparable)."
    )


def few_runs(report: Report) -> str:
    """The leaderboard's note on runs over few conversations (a human answers a few)."""
    few = [
        f"{r.model} ({r.mode}, {r.composite.n})"
        for r in report.leaderboard
        if r.composite.n < FEW_CONVERSATIONS
    ]
    if not few:
        return ""
    return (
        f" Fewer than {FEW_CONVERSATIONS} conversations, too few for an interval to be trusted, "
        f"however narrow (compare such runs on shared conversations): {', '.join(few)}."
    )
