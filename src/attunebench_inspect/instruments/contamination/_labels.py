"""The files-layout probe's label cut (pure, no Inspect): does the model write a turn's labels?

The cut shows the label-free document (`_layout.py`) up to a turn's original response and the key
that follows it in every published file, `"moodShiftTags": [` (a key name: no label). What a
continuation writes for that turn is parsed tolerantly (`written`: emotion tags, binary answers,
pairwise winners; a continuation cut at its window need not be valid JSON) and scored against the
participant's labels (`label_match`: Jaccard of the emotion names, the share of binary answers and
winners equal, averaged over the fields written; None where it writes none). The never-published
control is scored against the same labels: the model's own chance level. docs/contamination.md,
"The label cut", states the score and its sub-verdict (`_rules.py`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

from ...data._schema import ResponseSource
from ...data._split import TurnTruth, comparison_key
from ._layout import unescaped
from ._rules import LabelResult

UNIFORM_GUESS = {"emotion (one tag of 20)": 1 / 20, "binary answer": 1 / 3, "pairwise winner": 0.5}
"""A uniform guess's expected match per field by the codebook (20 PANAS items; yes, no, na; A or
B): a figure for the reader; the verdict's chance is the control's, measured."""
_NEXT_TURN = '"turnNumber"'
_STRING = r'"((?:[^"\\]|\\.)*)"'
_EMOTION = re.compile(r'"emotion"\s*:\s*' + _STRING)


@dataclass(frozen=True)
class Written:
    """The label fields a continuation writes for its turn (None: the field is not written)."""

    emotions: frozenset[str] | None
    binary: tuple[tuple[str, str, str], ...]
    """(question, observedBehavior or preferredBehavior, value) as written."""
    pairwise: tuple[tuple[str, str, str, str], ...]
    """(question, responseA, responseB, winner) as written."""

    @property
    def any(self) -> bool:
        return self.emotions is not None or bool(self.binary) or bool(self.pairwise)

    def digest(self) -> str:
        """What tells one set of labels from another ("" where none is written)."""
        if not self.any:
            return ""
        shown = [sorted(self.emotions or ()), self.binary, self.pairwise]
        return hashlib.sha256(json.dumps(shown).encode()).hexdigest()[:16]


def _field(text: str, key: str) -> str | None:
    found = re.search(rf'"{key}"\s*:\s*{_STRING}', text)
    return unescaped(found.group(1)).strip().casefold() if found else None


def _array(text: str, key: str) -> list[str]:
    """The objects of the array under `key`, each as its text (the last may be cut short)."""
    start = text.find(f'"{key}"')
    if start < 0:
        return []
    return text[start:].partition("]")[0].split("{")[1:]


def _emotions(text: str) -> frozenset[str] | None:
    inside, closed, _ = text.partition("]")
    names = frozenset(unescaped(n).strip().casefold() for n in _EMOTION.findall(inside))
    return names if names or (closed and not inside.strip()) else None


def _binary(text: str) -> tuple[tuple[str, str, str], ...]:
    found = []
    for entry in _array(text, "binaryJudgements"):
        question = _field(entry, "questionId")
        for side in ("observedBehavior", "preferredBehavior"):
            value = _field(entry, side)
            if question and value is not None:
                found.append((question, side, value))
    return tuple(found)


def _pairwise(text: str) -> tuple[tuple[str, str, str, str], ...]:
    keys = ("questionId", "responseA", "responseB", "winner")
    found = [[_field(entry, key) for key in keys] for entry in _array(text, "pairwiseComparisons")]
    return tuple((q, a, b, w) for q, a, b, w in found if q and a and b and w)


def written(continuation: str) -> Written:
    """The label fields `continuation` (what follows a label cut) writes for the cut's turn: what
    stands before the next turn's `"turnNumber"` is read, escapes undone per value."""
    turn = continuation.partition(_NEXT_TURN)[0]
    return Written(_emotions(turn), _binary(turn), _pairwise(turn))


def _key(question: str, a: str, b: str) -> str:
    return comparison_key(question, cast(ResponseSource, a), cast(ResponseSource, b)).casefold()


def _share(hits: Sequence[bool]) -> list[float]:
    return [sum(hits) / len(hits)] if hits else []


def label_match(w: Written, truth: TurnTruth) -> float | None:
    """The mean, over the fields `w` writes, of each field's match with the turn's labels
    (module docstring); None where it writes none."""
    fields: list[float] = []
    if w.emotions is not None:
        true = frozenset(name.casefold() for name in truth.mood_shift)
        union = w.emotions | true
        fields.append(len(w.emotions & true) / len(union) if union else 1.0)
    binary = {q.casefold(): b for q, b in truth.binary.items()}
    fields += _share(
        [
            q in binary
            and value == (binary[q].observed if side == "observedBehavior" else binary[q].preferred)
            for q, side, value in w.binary
        ]
    )
    pairwise = {k.casefold(): v for k, v in truth.pairwise.items()}
    fields += _share(
        [
            winner in ("a", "b") and pairwise.get(_key(q, a, b)) == (a if winner == "a" else b)
            for q, a, b, winner in w.pairwise
        ]
    )
    return sum(fields) / len(fields) if fields else None


def label_result(conversation: str, real: str, fake: str, truth: TurnTruth | None) -> LabelResult:
    """The instance's two continuations scored against the real turn's labels (no truth: no
    score, as for a log written before the label cut)."""
    a, b = written(real), written(fake)
    return LabelResult(
        conversation,
        label_match(a, truth) if truth else None,
        label_match(b, truth) if truth else None,
        a.digest(),
        b.digest(),
    )
