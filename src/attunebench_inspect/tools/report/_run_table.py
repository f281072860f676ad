"""One run as a table: a row per conversation with its metrics, turns and subgroup facts."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...score._catalog import PILLAR_NAMES
from ...score._counts import metadata_counts
from ...score._metrics import composite, nanmean
from ...score._scorers import CORE_SCORERS
from ._log_fields import SampleRow, Usage
from ._logs import COMPOSITE_SCORER, Run

CHANCE_MODEL = "attunebench/random"
CHANCE_LABEL = "chance"
"""How reports name the random baseline's run: the measured chance level."""
SUBGROUP_KEYS = (
    "category",
    "subtopic",
    "turn_count",
    "diagnoses",
    "demographics",
    "computed_scores",
    "topic_attitude",
)


def model_label(model: str) -> str:
    """How the report names a run's model: the random baseline is "chance"."""
    return CHANCE_LABEL if model == CHANCE_MODEL else model


@dataclass(frozen=True)
class Conversation:
    id: str
    values: dict[str, float]
    """Every metric of every scorer, averaged over epochs."""
    turns: list[dict[str, float]]
    """Per-turn values (turn, turn_count and the turn-level metrics), averaged over epochs."""
    facts: dict[str, Any]
    """Participant and topic facts for subgroups."""
    tokens: dict[str, int]
    seconds: float


@dataclass(frozen=True)
class InstrumentScore:
    """What a scorer other than the main task's families (an instrument's, as the stability
    scorer) wrote into one sample-epoch's metadata: the instrument reads it (its record)."""

    conversation: str
    epoch: int
    scorer: str
    metadata: dict[str, Any]


@dataclass(frozen=True)
class RunTable:
    model: str
    mode: str
    task: str
    location: str
    conversations: dict[str, Conversation]
    errors: dict[str, str] = field(default_factory=dict)
    """Sample id -> error message, for samples that errored in every epoch."""
    usage: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per role (the evaluated model under its name, then each judge), the token totals of the
    run (`usage_by_role`)."""
    wall_seconds: float = float("nan")
    epoch_composites: dict[str, list[float]] = field(default_factory=dict)
    """Per conversation, its Composite in each scored epoch, in epoch order."""
    instrument_scores: list[InstrumentScore] = field(default_factory=list)
    """Each scored sample-epoch's metadata of the instruments' scorers, in epoch order per
    conversation (none of the stability scorer in logs of task version 3-A)."""

    @property
    def label(self) -> str:
        return model_label(self.model)

    @cached_property
    def ids(self) -> list[str]:
        return sorted(self.conversations)

    @cached_property
    def _position(self) -> dict[str, int]:
        return {i: n for n, i in enumerate(self.ids)}

    @cached_property
    def _columns(self) -> dict[str, NDArray[np.float64]]:
        # Filled on demand: a report over many runs reads each column many times (every pair of
        # models, every subgroup), so each is built from the conversation dicts once.
        return {}

    def metric(self, key: str, ids: list[str] | None = None) -> NDArray[np.float64]:
        """Per-conversation values in `ids` order (default: all, sorted), NaN where absent.
        "composite" is each conversation's Composite, recomputed from its pillars."""
        column = self._columns.get(key)
        if column is None:
            if key == "composite":
                column = composite(*(self.metric(p) for p in PILLAR_NAMES))
            else:
                column = np.array([self.conversations[i].values.get(key, np.nan) for i in self.ids])
            column.flags.writeable = False
            self._columns[key] = column
        if ids is None or ids == self.ids:
            return column
        return column[[self._position[i] for i in ids]]

    @cached_property
    def turn_table(self) -> TurnTable:
        """Every turn of every conversation: its conversation's position in `ids`, its third of
        that conversation and, per turn-level metric, its values (NaN where absent)."""
        turns = [(n, t) for n, i in enumerate(self.ids) for t in self.conversations[i].turns]
        number = np.array([t["turn"] for _, t in turns], dtype=int)
        count = np.array([t["turn_count"] for _, t in turns], dtype=int)
        keys = {k for _, t in turns for k in t} - {"turn", "turn_count"}
        nan = float("nan")
        return TurnTable(
            conversation=np.array([n for n, _ in turns], dtype=int),
            third=np.minimum(2, (3 * (number - 1)) // np.maximum(count, 1)),
            values={k: np.array([t.get(k, nan) for _, t in turns]) for k in sorted(keys)},
        )


@dataclass(frozen=True)
class TurnTable:
    conversation: NDArray[np.int_]
    third: NDArray[np.int_]
    values: dict[str, NDArray[np.float64]]

    def metric(self, key: str) -> NDArray[np.float64]:
        return self.values.get(key, np.full(self.third.size, np.nan))


def mean_dicts(dicts: list[dict[str, float]]) -> dict[str, float]:
    """Per key, the mean over the dicts that have it (NaN left out): the epochs of one sample."""
    if len(dicts) == 1:  # one epoch, the usual case: nothing to average
        return dicts[0]
    keys = sorted({k for d in dicts for k in d})
    return {k: nanmean([d[k] for d in dicts if k in d]) for k in keys}


def _values(summary: SampleRow) -> dict[str, float]:
    """Every metric and count of a sample: the counts no run-level metric reads are in a score's
    metadata from task version 3-B, in its value before."""
    values: dict[str, float] = {}
    for score in (summary.scores or {}).values():
        if isinstance(score.value, dict):
            values.update(
                {k: float(v) for k, v in score.value.items() if isinstance(v, int | float)}
            )
        values.update(metadata_counts(score.metadata))
    return values


def _turns(summary: SampleRow) -> dict[int, dict[str, float]]:
    metadata = (summary.scores or {})[COMPOSITE_SCORER].metadata or {}
    return {
        int(v["turn"]): {k: float(x) for k, x in v.items()}
        for k, v in metadata.items()
        if k.startswith("turn_") and isinstance(v, dict)
    }


def _sum(usages: Iterable[Usage]) -> dict[str, int]:
    totals: dict[str, int] = defaultdict(int)
    for usage in usages:
        for kind, count in usage.counts().items():
            totals[kind] += count
    return dict(totals)


def usage_by_role(
    model: str, model_usage: dict[str, Usage], role_usage: dict[str, Usage]
) -> dict[str, dict[str, int]]:
    """Tokens per role, the evaluated model's first (under its name: Inspect gives it no role),
    that add up to the log's `model_usage`: Inspect counts every call under its model, and the
    calls of a bound role (`judge`, `judge_2`, ...) under the role too, so the evaluated model's
    are the rest (a judge of the same model as the one evaluated is counted under one model name,
    and apart here)."""
    total = _sum(model_usage.values())
    roles = {role: usage.counts() for role, usage in sorted(role_usage.items())}
    evaluated = {k: v - sum(r.get(k, 0) for r in roles.values()) for k, v in total.items()}
    return {model: evaluated, **roles}


def _epoch_composite(summary: SampleRow) -> float:
    values = _values(summary)
    return float(composite(*(values.get(p, float("nan")) for p in PILLAR_NAMES)))


def run_table(run: Run) -> RunTable:
    by_id: dict[str, list[SampleRow]] = defaultdict(list)
    errors: dict[str, str] = {}
    for summary in run.samples:
        if summary.scores and COMPOSITE_SCORER in summary.scores:
            by_id[str(summary.id)].append(summary)
        else:
            errors[str(summary.id)] = (summary.error or "not scored").splitlines()[0]
    conversations = {}
    epoch_composites = {}
    instrument_scores = []
    for sample_id, epochs in by_id.items():
        epochs.sort(key=lambda s: s.epoch)
        epoch_composites[sample_id] = [_epoch_composite(s) for s in epochs]
        instrument_scores += [
            InstrumentScore(sample_id, summary.epoch, name, dict(score.metadata))
            for summary in epochs
            for name, score in (summary.scores or {}).items()
            if name not in CORE_SCORERS and score.metadata
        ]
        turns: dict[int, list[dict[str, float]]] = defaultdict(list)
        for summary in epochs:
            for number, values in _turns(summary).items():
                turns[number].append(values)
        token_sums = _sum(u for summary in epochs for u in summary.model_usage.values())
        conversations[sample_id] = Conversation(
            id=sample_id,
            values=mean_dicts([_values(s) for s in epochs]),
            turns=[mean_dicts(turns[n]) for n in sorted(turns)],
            facts={k: epochs[0].metadata.get(k) for k in SUBGROUP_KEYS},
            tokens={k: v // len(epochs) for k, v in token_sums.items()},
            seconds=nanmean([s.total_time for s in epochs if s.total_time is not None]),
        )
    for sample_id in by_id:
        errors.pop(sample_id, None)
    stats = run.header.stats
    wall = float("nan")
    if stats.started_at and stats.completed_at:
        wall = (
            datetime.fromisoformat(stats.completed_at) - datetime.fromisoformat(stats.started_at)
        ).total_seconds()
    return RunTable(
        model=run.model,
        mode=run.mode,
        task=run.task,
        location=run.location,
        conversations=conversations,
        errors=errors,
        usage=usage_by_role(run.model, stats.model_usage, stats.role_usage),
        wall_seconds=wall,
        epoch_composites=epoch_composites,
        instrument_scores=instrument_scores,
    )
