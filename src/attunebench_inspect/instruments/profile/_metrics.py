"""The profile task's metrics as pure functions of the predicted and the reported profile. As in
`score/_metrics.py`, a `None` prediction is an unparsed answer (scored as wrong) and NaN means not
applicable: here, a field the profile does not give or gives in a label the vocabulary cannot
place (left out of its part's mean)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..._util import text_match
from ...score import _metrics as metrics
from ._fields import ORDINAL_FIELDS
from ._vocabulary import Vocabulary


@dataclass(frozen=True)
class ProfileInputs:
    """The profile call's answer (None: unparsed) and the placed profile, under published names."""

    prediction: Mapping[str, Any] | None
    truth: Mapping[str, Any]
    """The participant's values, placed in the vocabulary: None where not given or not placed."""
    orders: Mapping[str, Sequence[str]] = field(default_factory=dict)
    """Per ordinal field, the vocabulary's options lowest first."""
    unplaced: Mapping[str, Sequence[str]] = field(default_factory=dict)
    """field -> the participant's labels the vocabulary could not place."""

    @classmethod
    def of(
        cls,
        prediction: Mapping[str, Any] | None,
        truth: Mapping[str, object],
        vocabulary: Vocabulary,
    ) -> ProfileInputs:
        """From the participant's own values (`ProfileTruth.values()`)."""
        placed = vocabulary.placed(truth)
        options = vocabulary.options()
        orders = {name: options[name] for name in ORDINAL_FIELDS}
        return cls(prediction, placed.values, orders, placed.unplaced)

    def answer(self, name: str) -> Any:
        return self.prediction.get(name) if self.prediction is not None else None


def choice_exact(pred: str | None, gold: str | None) -> float:
    """1 if the predicted option is the participant's, else 0; NaN where they gave none."""
    return metrics.NAN if gold is None else metrics.exact(pred, gold)


def choice_ordinal(pred: str | None, gold: str | None, order: Sequence[str]) -> float:
    """1 - |rank difference| / (ranks - 1) in the vocabulary's order; NaN where not placed."""
    return metrics.NAN if gold is None else metrics.ordinal(pred, gold, order)


def diagnoses_overlap(pred: Mapping[str, bool] | None, gold: Sequence[str] | None) -> float:
    """Jaccard overlap of the diagnoses named and reported (none of none: 1); parse failure = 0."""
    return metrics.NAN if gold is None else metrics.jaccard(metrics.selected(pred), gold)


def background_overlap(pred: str | None, gold: Sequence[str]) -> float:
    """The Q3 follow-up's fuzzy overlap of the areas named and the participant's (NaN: none)."""
    return metrics.fuzzy_overlap(None if pred is None else text_match.entries(pred), gold)


def score_accuracy(pred: float | None, gold: float | None, low: int, high: int) -> float:
    """1 - |error| / (high - low) on an instrument's range; NaN where the profile has no value."""
    if gold is None:
        return metrics.NAN
    if pred is None:
        return 0.0
    return 1 - abs(pred - gold) / (high - low)
