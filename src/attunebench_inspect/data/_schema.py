"""Pydantic models of the published AttuneBench conversation format, under the deposit's field
names: strict (docs/data.md, 'Conversations'), tolerant of unknown extra fields, which never reach
the model (`_split.py` picks fields by name); checks that need the codebook live in `_checks.py`."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ._panas import PANAS_ITEMS
from ._problems import shorten

Rating = Annotated[int, Field(ge=1, le=7)]
BinaryValue = Literal["yes", "no", "na"]
ResponseSource = Literal["original", "alternate", "human"]

CONVERSATION_ID = r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}"
"""Conversation IDs name Inspect samples, which name members of the .eval zip and rows of every
report: ASCII letters, digits, '.', '_' and '-', 1-128 characters, not starting with '.' (no
path separators, no hidden or relative names, nothing invisible). The deposit uses UUIDs."""


class _Published(BaseModel):
    model_config = ConfigDict(
        strict=True, extra="allow", populate_by_name=True, allow_inf_nan=False
    )


class Metadata(_Published):
    model: str
    category: str
    subtopic: str
    text: str


NO_DIAGNOSIS = "None of the above"
"""The format's entry for "no diagnosis" in `diagnoses`: the empty set of conditions."""


class Demographics(_Published):
    country: str | None = None
    education: str | None = None
    work_edu_background: list[str] = Field(default_factory=list)
    gender: str | None = None
    age_range: str | None = None
    english_proficiency: str | None = None
    diagnoses: list[str]


class ComputedScores(_Published):
    who_5: float | None = None
    asrs_6: float | None = None
    aq_10: float | None = None
    promis_anxiety: float | None = None
    promis_anxiety_t: float | None = None
    promis_depression: float | None = None
    promis_depression_t: float | None = None
    promis_sleep: float | None = None
    promis_sleep_t: float | None = None
    tipi_extraversion: float | None = None
    tipi_agreeableness: float | None = None
    tipi_conscientiousness: float | None = None
    tipi_stability: float | None = None
    tipi_openness: float | None = None

    # JSON integers are valid numbers here; strict mode would otherwise reject 19 for a float.
    @field_validator("*", mode="before")
    @classmethod
    def _int_is_number(cls, value: object) -> object:
        if isinstance(value, int) and not isinstance(value, bool):
            return float(value)
        return value


class ParticipantProfile(_Published):
    schema_version: str | None = None
    participant_id: str
    profile_type: str | None = None
    demographics: Demographics
    computed_scores: ComputedScores
    conversation_topic_attitude: str


class Panas(_Published):
    totalPositiveAffect: int
    totalNegativeAffect: int
    responses: dict[str, Rating]

    @field_validator("responses")
    @classmethod
    def _twenty_items(cls, responses: dict[str, int]) -> dict[str, int]:
        unknown = sorted(set(responses) - set(PANAS_ITEMS))
        if unknown:
            shown = ", ".join(map(shorten, unknown))
            raise ValueError(f"only the 20 PANAS items (unknown: {shown})")
        missing = [item for item in PANAS_ITEMS if item not in responses]
        if missing:
            raise ValueError(f"all 20 PANAS items (missing: {', '.join(missing)})")
        return responses


class FourBranchScores(_Published):
    perceiving: Rating
    facilitating: Rating
    understanding: Rating
    managing: Rating


class ConversationWideQuestions(_Published):
    fourBranchScores: FourBranchScores
    q1_lookingFor: list[str]
    q2_emotionClarity: str
    q3_modelFit: str
    q3_followUp_whatFeltOff: list[str] = Field(default_factory=list)


class MoodShiftTag(_Published):
    emotion: str
    intensity: Rating

    @field_validator("emotion")
    @classmethod
    def _panas_name(cls, emotion: str) -> str:
        if emotion.lower() not in PANAS_ITEMS:
            raise ValueError("one of the 20 PANAS items (case-insensitive)")
        return emotion

    @property
    def item(self) -> str:
        """The canonical (lower-case) PANAS item name."""
        return self.emotion.lower()


class BinaryJudgement(_Published):
    questionId: str
    observedBehavior: BinaryValue
    preferredBehavior: BinaryValue


class AlternateResponses(_Published):
    llmImproved: str
    humanEdited: str


class PairwiseComparison(_Published):
    questionId: str
    responseA: ResponseSource
    responseB: ResponseSource
    winner: Literal["A", "B"]


class Annotations(_Published):
    binaryJudgements: list[BinaryJudgement]
    alternateResponses: AlternateResponses
    pairwiseComparisons: list[PairwiseComparison]
    selectedPairwiseQuestions: list[str] = Field(default_factory=list)


class Turn(_Published):
    turnNumber: int
    userMessage: str
    llmResponse: str
    moodShiftTags: list[MoodShiftTag]
    annotations: Annotations


class Conversation(_Published):
    conversationId: str
    metadata: Metadata
    participant_profile: ParticipantProfile
    prePanas: Panas
    postPanas: Panas
    conversationWideQuestions: ConversationWideQuestions
    turns: list[Turn] = Field(min_length=1)

    @field_validator("conversationId")
    @classmethod
    def _safe_id(cls, value: str) -> str:
        if not re.fullmatch(CONVERSATION_ID, value):
            raise ValueError(
                f"an ID matching {CONVERSATION_ID} (1-128 ASCII letters, digits, '.', '_' or '-', "
                "not starting with '.')"
            )
        return value
