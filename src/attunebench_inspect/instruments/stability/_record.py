"""What the stability instruments read of a run: the `stability_scorer`'s `Score.metadata` of
each sample and epoch, written and read here (one home for the format). Inspect keeps every
epoch's scores in the sample summaries, which the report reads, and drops a metadata key over
1 KB from them; so beside `epoch`, `composite` and the panel (`judges`: role -> model), each
turn's pairwise call (`turn_NN/pairwise`: the sources shown, in order, and each comparison's
chosen source), judged draft (`turn_NN/draft`: 16 hex digits of its SHA-256, for judge collapse;
no text) and judge's parsed answer (`turn_NN/<role>`) is a key of its own."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...solve._predictions import JudgeVerdict, Walk
from ...tools.report._run_table import RunTable
from ._position import PairChoice, pair_choices

EPOCH = "epoch"
COMPOSITE = "composite"
JUDGES = "judges"
PAIRWISE = "pairwise"
DRAFT = "draft"


def _turn(turn: int, part: str) -> str:
    return f"turn_{turn:02d}/{part}"


def stability_record(walk: Walk, turns: int, epoch: int, composite: float) -> dict[str, Any]:
    """One sample-epoch's record, from its walk."""
    record: dict[str, Any] = {EPOCH: epoch, COMPOSITE: composite, JUDGES: dict(walk.judges)}
    for n in range(1, turns + 1):
        call, predicted = walk.get("pairwise", n), walk.turn(n)
        if call is not None and predicted.winners:
            shown = list(call.context["labels"].values())
            record[_turn(n, PAIRWISE)] = {"shown": shown, "chosen": predicted.winners}
        for role, verdict in predicted.verdicts.items():
            if verdict is not None:
                record[_turn(n, role)] = {"ratings": verdict.ratings, "binary": verdict.binary}
        if predicted.draft is not None and predicted.verdicts:
            digest = hashlib.sha256(predicted.draft.encode()).hexdigest()[:16]
            record[_turn(n, DRAFT)] = {"digest": digest}
    return record


@dataclass(frozen=True)
class StabilityRecord:
    """One sample-epoch's record, read back."""

    conversation: str
    epoch: int
    composite: float
    judges: dict[str, str] = field(default_factory=dict)
    choices: list[PairChoice] = field(default_factory=list)
    verdicts: dict[int, dict[str, JudgeVerdict]] = field(default_factory=dict)
    """turn -> model role -> that judge's answer."""
    drafts: dict[int, str] = field(default_factory=dict)
    """turn -> the digest of its judged draft (absent in logs written before it was kept)."""


SCORER = "stability_scorer"
"""The scorer whose metadata holds the records (`_scorer.py`)."""


def records_of(table: RunTable) -> list[StabilityRecord]:
    """A run's records, each sample-epoch's, in epoch order per conversation."""
    read = (
        read_record(s.conversation, s.metadata)
        for s in table.instrument_scores
        if s.scorer == SCORER
    )
    return [r for r in read if r is not None]


def read_record(conversation: str, metadata: Mapping[str, Any] | None) -> StabilityRecord | None:
    """One sample-epoch's record from its metadata; None where it has none (task version 3-A)."""
    if not metadata or EPOCH not in metadata:
        return None
    epoch = int(metadata[EPOCH])
    composite = metadata.get(COMPOSITE)
    record = StabilityRecord(
        conversation,
        epoch,
        float(composite) if isinstance(composite, int | float) else math.nan,
        dict(metadata.get(JUDGES) or {}),
    )
    for key, value in metadata.items():
        turn, slash, part = key.partition("/")
        if not (turn.startswith("turn_") and slash and isinstance(value, Mapping)):
            continue
        n = int(turn.removeprefix("turn_"))
        if part == PAIRWISE:
            record.choices.extend(
                pair_choices(conversation, epoch, n, value["shown"], value["chosen"])
            )
        elif part == DRAFT:
            record.drafts[n] = str(value.get("digest"))
        else:
            record.verdicts.setdefault(n, {})[part] = JudgeVerdict.from_answer(dict(value))
    return record
