"""The contract between the solver and the scorers: what the walk predicted, typed, built by
`Walk` from a conversation's call records (`CallRecord.prediction`, in the shape of the call's
schema). A new prediction field: ARCHITECTURE.md, 'Adding a metric'. None stands for a call whose
answer could not be used (a parse failure, scored as wrong): the whole turn's view of that call
is None, never a partial answer."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from ..data._schema import ResponseSource
from ._call_record import CallRecord, CallType

Records = Mapping[tuple[CallType, int | None], CallRecord]
"""The evaluated model's call records by (call, turn: None for the post-conversation call)."""
Judgements = Mapping[tuple[str, int], CallRecord]
"""The judges' call records by (model role, turn): one per judge and judged draft."""
T = TypeVar("T")


@dataclass(frozen=True)
class BinaryAnswer:
    """One binary question answered: what the original model did, what the participant wanted
    ("yes", "no" or "na")."""

    observed: str
    preferred: str


def binary(answers: dict[str, Any]) -> dict[str, BinaryAnswer]:
    """A call's binary answers (question -> observed and preferred)."""
    return {qid: BinaryAnswer(a["observed"], a["preferred"]) for qid, a in answers.items()}


@dataclass(frozen=True)
class ReplyReading:
    """The observer-phrased call about a turn's reply (CallType "emotion"): the participant's
    mood shift and the binary questions in observer phrasing."""

    mood_shift: dict[str, int]
    """PANAS item (lower case) -> intensity 1-7; empty: no shift."""
    binary: dict[str, BinaryAnswer]

    @classmethod
    def from_answer(cls, answer: dict[str, Any]) -> ReplyReading:
        return cls(dict(answer["mood_shift"]), binary(answer["binary"]))


@dataclass(frozen=True)
class JudgeVerdict:
    """A judge's answer about one draft (or the panel's, `score/_panel.py`)."""

    ratings: dict[str, float]
    """criterion -> 1-7 (a judge's are integers; the panel's the mean of its judges')."""
    binary: dict[str, str]
    """question -> "yes", "no" or "na", about the draft."""

    @classmethod
    def from_answer(cls, answer: dict[str, Any]) -> JudgeVerdict:
        return cls(dict(answer["ratings"]), dict(answer["binary"]))


@dataclass(frozen=True)
class TurnPredictions:
    """Everything the walk predicted for one turn."""

    turn: int
    draft: str | None
    """The evaluated model's reply to the participant's message; None: none usable."""
    judged: bool
    """A judge was bound for the run (its draft metrics apply)."""
    verdicts: dict[str, JudgeVerdict | None]
    """Each judge's answer about the draft, by model role in panel order (`judge`, `judge_2`,
    ...); None where the answer could not be used or there was no usable draft to judge;
    empty without a judge."""
    reading: ReplyReading | None
    """The observer-phrased call: mood shift and binary answers."""
    hp_facing: dict[str, BinaryAnswer] | None
    """The binary questions again in the participant's (HP-facing) phrasing, "your message"."""
    winners: dict[str, ResponseSource] | None
    """comparison key -> the response the model chose, through the call's neutral labels."""


@dataclass(frozen=True)
class PostPredictions:
    """The post-conversation call's answer."""

    post_panas: dict[str, int]
    q1_looking_for: list[str]
    """The Q1 options selected."""
    q2_emotion_clarity: str
    q3_model_fit: str
    q3_follow_up: list[str]
    """The follow-up options selected."""
    q3_follow_up_own_words: str
    """What else felt off, in the participant's words, entries separated by ";" ("": none)."""
    four_branch: dict[str, int]

    @classmethod
    def from_answer(cls, answer: dict[str, Any]) -> PostPredictions:
        return cls(
            post_panas=dict(answer["post_panas"]),
            q1_looking_for=_selected(answer["q1_looking_for"]),
            q2_emotion_clarity=answer["q2_emotion_clarity"],
            q3_model_fit=answer["q3_model_fit"],
            q3_follow_up=_selected(answer["q3_follow_up"]),
            q3_follow_up_own_words=answer.get("q3_follow_up_own_words") or "",
            four_branch=dict(answer["four_branch"]),
        )


def _selected(options: dict[str, bool]) -> list[str]:
    return [option for option, on in options.items() if on]


@dataclass(frozen=True)
class Walk:
    """One conversation's walk (its judges, call records and judgements) as typed predictions."""

    judges: Mapping[str, str]
    """model role -> model, in panel order (`judge`, `judge_2`, ...); empty: no judge."""
    records: Records
    judgements: Judgements = field(default_factory=dict)

    @property
    def judged(self) -> bool:
        return bool(self.judges)

    def get(self, call: CallType, turn: int | None) -> CallRecord | None:
        return self.records.get((call, turn))

    def judgement(self, role: str, turn: int) -> CallRecord | None:
        return self.judgements.get((role, turn))

    def turn(self, turn: int) -> TurnPredictions:
        pairwise = self.get("pairwise", turn)
        # The call's label -> source mapping and comparison id -> key.
        context = pairwise.context if pairwise is not None else {}
        winners = _read(
            pairwise,
            lambda a: {
                context["comparisons"][c]: context["labels"][choice["winner"]]
                for c, choice in a.items()
            },
        )
        return TurnPredictions(
            turn=turn,
            draft=_read(self.get("draft", turn), lambda a: str(a["text"])),
            judged=self.judged,
            verdicts={
                role: _read(self.judgement(role, turn), JudgeVerdict.from_answer)
                for role in self.judges
            },
            reading=_read(self.get("emotion", turn), ReplyReading.from_answer),
            hp_facing=_read(self.get("binary_hp", turn), lambda a: binary(a["binary"])),
            winners=winners,
        )

    def post(self) -> PostPredictions | None:
        return _read(self.get("post", None), PostPredictions.from_answer)


def _read(record: CallRecord | None, build: Callable[[dict[str, Any]], T]) -> T | None:
    """A call's answer as `build` reads it; None where the call has no usable answer."""
    answer = record.prediction if record is not None else None
    return build(answer) if answer is not None else None
