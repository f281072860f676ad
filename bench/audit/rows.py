"""One row of the verdict audit: an instrument's verdict on inputs of one planted behaviour over
seeds, with the count of false verdicts and the power (bench/audit/run.py prints them)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Literal

from attunebench_inspect._util.verdict import CANNOT_DECIDE, is_abstention

Planted = Literal["positive", "negative", "uninformative"]
SMALL_SEEDS = 3
"""Seeds of every instrument's rows in the small audit (the CI's, `--small`)."""


@dataclass(frozen=True)
class AuditRow:
    instrument: str
    """The instrument and its verdict, e.g. "stability: position bias"."""
    behaviour: str
    planted: Planted
    """positive: the instrument's positive reading is right; negative: one of its other
    readings is; uninformative: the input carries no information, and only "cannot decide"
    is right."""
    seeds: int
    verdicts: dict[str, int] = field(default_factory=dict)
    """Verdict word -> how many seeds read it (every abstention counted as "cannot decide")."""
    false_verdicts: int = 0
    """Seeds whose verdict is wrong: any reading on an uninformative input, a reading other than
    the right ones on a planted one (an abstention is never false: it is a loss of power)."""
    power: float | None = None
    """On a positive row, the share of seeds that read the right (positive) verdict."""
    seconds: float = 0.0


def _wrong(verdict: str, right: Collection[str]) -> bool:
    return not is_abstention(verdict) and verdict not in right


def word(reading: str) -> str:
    """A verdict's reading without its reason: a metamorphic change may change the reason of a
    "cannot decide" (a count), not the verdict."""
    return CANNOT_DECIDE if is_abstention(reading) else reading


def tally(
    instrument: str,
    behaviour: str,
    planted: Planted,
    verdicts: Sequence[str],
    right: Collection[str] = (),
    seconds: float = 0.0,
    *,
    before: Sequence[str] | None = None,
) -> AuditRow:
    """A row from one verdict per seed; `right`: the readings that are right (none on an
    uninformative input). A metamorphic row gives each seed's verdict `before` the change
    too: a seed is false once, when its verdict after the change is wrong or moved."""
    words = Counter(word(v) for v in verdicts)
    false = sum(
        _wrong(v, right) or (before is not None and word(v) != word(before[i]))
        for i, v in enumerate(verdicts)
    )
    power = (
        sum(n for word, n in words.items() if word in right) / len(verdicts)
        if planted == "positive" and verdicts
        else None
    )
    return AuditRow(
        instrument, behaviour, planted, len(verdicts), dict(sorted(words.items())), false, power,
        seconds,
    )  # fmt: skip
