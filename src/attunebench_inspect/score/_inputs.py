"""What a metric is a function of: one turn's predictions beside the participant's labels
(`TurnInputs`), and the post-conversation answer beside theirs (`PostInputs`); the scorers build
`TurnInputs` with `of`, the conformance vectors and the property tests directly. Pure."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, TypeVar, get_args

from .._util import text_match
from ..data._split import GroundTruth, TurnTruth
from ..solve._predictions import BinaryAnswer, JudgeVerdict, PostPredictions, TurnPredictions
from . import _metrics as metrics
from ._panel import panel_verdict

BinaryView = Literal["om", "hp", "om_hp_facing", "hp_hp_facing"]
"""Which predicted binary answers a metric reads: the original model's behaviour (om) or the
participant's preference (hp), from the observer-phrased call or the HP-facing one."""
BINARY_VIEWS: tuple[BinaryView, ...] = get_args(BinaryView)
T = TypeVar("T")


def _answers(answers: dict[str, BinaryAnswer] | None, preferred: bool) -> dict[str, str] | None:
    if answers is None:
        return None
    return {q: a.preferred if preferred else a.observed for q, a in answers.items()}


@dataclass(frozen=True)
class TurnInputs:
    """Everything one turn's metrics read: the model's answers (None: unparsed) and the labels."""

    mood: dict[str, int] | None = None
    gold_mood: dict[str, int] = field(default_factory=dict)
    binary: dict[BinaryView, dict[str, str] | None] = field(default_factory=dict)
    """Predicted answers per view: observed/preferred from the observer-phrased call (om, hp)
    and from the HP-facing call (om_hp_facing, hp_hp_facing)."""
    gold_observed: dict[str, str] = field(default_factory=dict)
    gold_preferred: dict[str, str] = field(default_factory=dict)
    winners: dict[str, str] | None = None
    """comparison key -> the source the model chose."""
    gold_winners: dict[str, str] = field(default_factory=dict)
    judged: bool = False
    """Whether a judge rated this turn's draft (False: the draft metrics do not apply)."""
    judge: JudgeVerdict | None = None
    """The judge panel's answer (`stability.panel_verdict`: mean ratings, plurality answers;
    a panel of one is its judge); None if no judge's answer parsed or the draft was unusable."""
    draft_ok: bool = True

    @classmethod
    def of(cls, predicted: TurnPredictions, truth: TurnTruth) -> TurnInputs:
        reading = predicted.reading
        return cls(
            mood=reading.mood_shift if reading is not None else None,
            gold_mood=truth.mood_shift,
            binary={
                "om": _answers(reading.binary if reading else None, preferred=False),
                "hp": _answers(reading.binary if reading else None, preferred=True),
                "om_hp_facing": _answers(predicted.hp_facing, preferred=False),
                "hp_hp_facing": _answers(predicted.hp_facing, preferred=True),
            },
            gold_observed={q: b.observed for q, b in truth.binary.items()},
            gold_preferred={q: b.preferred for q, b in truth.binary.items()},
            winners=dict(predicted.winners) if predicted.winners is not None else None,
            gold_winners=dict(truth.pairwise),
            judged=predicted.judged,
            judge=panel_verdict(list(predicted.verdicts.values())),
            draft_ok=predicted.draft is not None,
        )

    def counts(self, view: BinaryView) -> metrics.BinaryCounts:
        gold = self.gold_observed if view.startswith("om") else self.gold_preferred
        return metrics.binary_counts(self.binary.get(view), gold)

    def rating(self, criterion: str) -> float:
        if not self.judged:
            return metrics.NAN
        if not self.draft_ok:  # an unusable draft is wrong on every criterion
            return 0.0
        return metrics.rating_score(self.judge.ratings[criterion]) if self.judge else metrics.NAN

    def alignment(self) -> metrics.BinaryCounts | None:
        if not self.judged or (self.draft_ok and self.judge is None):
            return None
        answers = self.judge.binary if self.draft_ok and self.judge else None
        return metrics.binary_counts(answers, self.gold_preferred)


@dataclass(frozen=True)
class PostInputs:
    """The post-conversation call's answer (None if it failed to parse) and the labels."""

    post: PostPredictions | None
    truth: GroundTruth
    q3_options: Sequence[str]

    def predicted(self, read: Callable[[PostPredictions], T]) -> T | None:
        """One part of the answer, None where the call failed to parse."""
        return read(self.post) if self.post is not None else None

    def follow_up(self) -> list[str] | None:
        """The predicted follow-up: options chosen plus entries in the participant's words."""
        if self.post is None:
            return None
        return self.post.q3_follow_up + text_match.entries(self.post.q3_follow_up_own_words)
