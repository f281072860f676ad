"""What a section of the report is (`Section`: its tables, and its figures per mode), what it
may read of the report (`MainReport`: the main task's part, which every report has), and the
phrases sections share.

A section reads the report through a protocol, not the suite's `Report` class, so that it
imports nothing above it: an instrument's section names what it reads in a protocol of its own
that extends `MainReport` (instruments/stability/_section.py), and the suite's `Report`
satisfies them all (_suite/report.py).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from .._analyses import (
    FEW_CONVERSATIONS,
    CapabilitySplit,
    Drift,
    Gap,
    LeaderRow,
    ModeDelta,
    Operations,
    PairDifference,
    SubgroupRow,
    WinRates,
)
from .._compared import Compared
from .._logs import RunInfo, Skipped
from .._table import Table

if TYPE_CHECKING:  # figures need the `plots` extra
    from .._plot import Chart


@dataclass(frozen=True)
class Beside:
    """A column an instrument puts beside the Composite on the leaderboard, so that no reader
    sees one without the other (the contamination verdict)."""

    column: str
    values: dict[str, str]
    """By the model's name on the leaderboard."""
    missing: str
    """What a model without a value shows."""
    note: str
    """The sentence the leaderboard's note adds."""


class MainReport(Protocol):
    """The part of the report every section may read: the main task's runs and analyses."""

    @property
    def resamples(self) -> int: ...
    @property
    def seed(self) -> int: ...
    @property
    def where(self) -> str | None: ...
    @property
    def compare(self) -> str | None: ...
    @property
    def task_version(self) -> str: ...
    @property
    def versions(self) -> dict[str, int]: ...
    @property
    def compared(self) -> Sequence[Compared]: ...
    @property
    def runs(self) -> Sequence[RunInfo]: ...
    @property
    def skipped(self) -> Sequence[Skipped]: ...
    @property
    def leaderboard(self) -> Sequence[LeaderRow]: ...
    @property
    def distinguishability(self) -> Sequence[PairDifference]: ...
    @property
    def distinguished(self) -> dict[str, dict[str, list[int]]]: ...
    @property
    def perspective(self) -> Sequence[Gap]: ...
    @property
    def drift(self) -> Sequence[Drift]: ...
    @property
    def capability(self) -> Sequence[CapabilitySplit]: ...
    @property
    def win_rates(self) -> Sequence[WinRates]: ...
    @property
    def mode_deltas(self) -> Sequence[ModeDelta]: ...
    @property
    def operations(self) -> Sequence[Operations]: ...
    @property
    def subgroups(self) -> Sequence[SubgroupRow]: ...
    def beside_composite(self) -> list[Beside]:
        """The instruments' columns beside the Composite."""
        ...


R = TypeVar("R", contravariant=True)


@dataclass(frozen=True)
class Section(Generic[R]):
    """A section of the report: its tables (none where it has nothing to show), and its figures
    of a mode (matplotlib, imported only where figures are drawn)."""

    name: str
    tables: Callable[[R], list[Table]]
    charts: Callable[[R, str], Iterator[Chart]] | None = None


def models_besides_chance(report: MainReport) -> dict[str, int]:
    """Per mode, how many models besides the chance baseline (what pairs and ranks are over)."""
    counts = {r.mode: 0 for r in report.leaderboard}
    counts.update({c.mode: len(c.models) for c in report.capability})
    return counts


def shown_drift(report: MainReport) -> list[Drift]:
    """Turn drift rows worth showing: a mode's pooled "all models" rows only where they pool two
    or more models (with one they repeat its rows)."""
    ranked = {(r.model, r.mode) for r in report.leaderboard}
    pooled = {mode for mode, n in models_besides_chance(report).items() if n >= 2}
    return [d for d in report.drift if (d.model, d.mode) in ranked or d.mode in pooled]


def no_pairs(report: MainReport) -> str:
    have = ", ".join(f"{mode}: {n}" for mode, n in models_besides_chance(report).items())
    return f"No model pairs: a pair needs two models besides chance in a mode ({have})."


def no_mode_deltas(report: MainReport) -> str:
    modes = sorted({r.mode for r in report.leaderboard})
    if len(modes) < 2:
        return f"No mode deltas: the logs have one mode ({', '.join(modes)}); run another."
    return "No mode deltas: no model was run in the default mode and in another mode."


PILLARS = ("emotion_pillar", "evaluation_pillar", "holistic_pillar")


def at_version(report: MainReport, joint: str = ", ") -> str:
    return f"{joint}task version {report.task_version}" if report.task_version else ""


def versions_note(report: MainReport) -> str:
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


def few_runs(report: MainReport) -> str:
    """The leaderboard's note on runs over few conversations (a human answers a few)."""
    few = [
        f"{r.model} ({r.mode}, {r.composite.n})"
        for r in report.leaderboard
        if r.composite.n < FEW_CONVERSATIONS
    ]
    if not few:
        return ""
    return (
        f" Fewer than {FEW_CONVERSATIONS} conversations, so wide intervals (compare such runs on "
        f"shared conversations): {', '.join(few)}."
    )
