"""The annotation codebook: question texts, answer options and scales, loaded from JSON. Only what
seed 003 documents is required; the rest is derived by a stated rule (`ModelFitQuestion`,
`CodebookFile`; docs/data.md, 'The codebook') and unknown fields are ignored."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from . import _jsonfile as jsonfile
from ._panas import NEGATIVE_AFFECT, PANAS_ITEMS
from ._problems import DataProblem, shorten

GENERAL_PAIRWISE = "general"
GENERAL_PAIRWISE_TEXT = "Overall, which response would you rather have received?"
"""The text of the overall pairwise question where a codebook has no 'general' entry: the seed
lists PW1-PW16 in the codebook, while every turn's comparisons also ask the overall question."""

BranchId = Literal["perceiving", "facilitating", "understanding", "managing"]
BRANCHES: tuple[BranchId, ...] = get_args(BranchId)


class _Entry(BaseModel):
    model_config = ConfigDict(extra="ignore")


def _once_each(ids: Sequence[str], what: str) -> None:
    repeated = sorted(i for i, n in Counter(ids).items() if n > 1)
    if repeated:
        raise ValueError(f"each {what} once (repeated: {', '.join(map(shorten, repeated))})")


class BinaryQuestion(_Entry):
    id: str
    text: str
    observerText: str | None = None

    @property
    def observer_text(self) -> str:
        # The codebook lists observerText only where it differs from the HP-facing text.
        return self.observerText or self.text


class PairwiseQuestion(_Entry):
    id: str
    text: str


class ChoiceQuestion(_Entry):
    text: str
    options: list[str] = Field(min_length=1)

    @field_validator("options")
    @classmethod
    def _distinct(cls, options: list[str]) -> list[str]:
        _once_each(options, "option")
        return options


class ModelFitQuestion(ChoiceQuestion):
    """Q3. Its options are ordinal in the order given, worst to best; `followUpWhen` is derived
    where the codebook does not list it (docs/data.md, 'The codebook')."""

    options: list[str] = Field(min_length=2)
    followUpWhen: list[str] = Field(default_factory=list)

    @field_validator("followUpWhen")
    @classmethod
    def _among_options(cls, answers: list[str], info: ValidationInfo) -> list[str]:
        # Invalid options are reported on their own; there is nothing to check against then.
        options = info.data.get("options", answers)
        unknown = ", ".join(shorten(a) for a in answers if a not in options)
        if unknown:
            raise ValueError(f"Q3 options only (not options: {unknown})")
        return answers

    @model_validator(mode="after")
    def _derived_follow_up_when(self) -> ModelFitQuestion:
        if "followUpWhen" not in self.model_fields_set:
            self.followUpWhen = self.options[: len(self.options) // 2]
        return self


class ConversationWide(_Entry):
    q1_lookingFor: ChoiceQuestion
    q2_emotionClarity: ChoiceQuestion
    q3_modelFit: ModelFitQuestion
    q3_followUp_whatFeltOff: ChoiceQuestion


class Branch(_Entry):
    id: BranchId
    text: str


class PanasItem(_Entry):
    """One PANAS item; a bare name is accepted too. Names are compared case-insensitively."""

    id: str
    affect: Literal["positive", "negative"] | None = None

    @model_validator(mode="before")
    @classmethod
    def _bare_name(cls, value: object) -> object:
        return {"id": value} if isinstance(value, str) else value

    @model_validator(mode="after")
    def _panas_affect(self) -> PanasItem:
        # Totals and PANAS metrics use the instrument's fixed split into positive and negative.
        name = self.id.lower()
        affect = "negative" if name in NEGATIVE_AFFECT else "positive"
        if name in PANAS_ITEMS and self.affect not in (None, affect):
            raise ValueError(f"{affect} affect for {name}, as in PANAS")
        return self


class PanasSection(_Entry):
    items: list[PanasItem]

    @field_validator("items")
    @classmethod
    def _is_panas20(cls, items: list[PanasItem]) -> list[PanasItem]:
        names = [i.id.lower() for i in items]
        _once_each(names, "PANAS item")
        if set(names) != set(PANAS_ITEMS):
            raise ValueError(f"the 20 PANAS items: {', '.join(PANAS_ITEMS)}")
        return items


class CodebookFile(_Entry):
    binaryQuestions: list[BinaryQuestion]
    pairwiseQuestions: list[PairwiseQuestion]
    conversationWide: ConversationWide
    fourBranch: list[Branch]
    panas: PanasSection

    @field_validator("binaryQuestions", "pairwiseQuestions")
    @classmethod
    def _unique_ids(
        cls, questions: list[BinaryQuestion] | list[PairwiseQuestion]
    ) -> list[BinaryQuestion] | list[PairwiseQuestion]:
        _once_each([q.id for q in questions], "question ID")
        return questions

    @field_validator("pairwiseQuestions")
    @classmethod
    def _general(cls, questions: list[PairwiseQuestion]) -> list[PairwiseQuestion]:
        if any(q.id == GENERAL_PAIRWISE for q in questions):
            return questions
        return [*questions, PairwiseQuestion(id=GENERAL_PAIRWISE, text=GENERAL_PAIRWISE_TEXT)]

    @field_validator("fourBranch")
    @classmethod
    def _four(cls, branches: list[Branch]) -> list[Branch]:
        ids = [b.id for b in branches]
        _once_each(ids, "branch")
        if len(ids) != len(BRANCHES):
            raise ValueError(f"the four branches: {', '.join(BRANCHES)}")
        return branches


@dataclass(frozen=True)
class Codebook:
    """A loaded codebook with lookups; `sha256` identifies it in every log."""

    spec: CodebookFile
    path: str
    sha256: str
    warnings: tuple[DataProblem, ...] = ()
    """Oddities of the file that do not stop it being used (a key given twice)."""

    @cached_property
    def binary(self) -> dict[str, BinaryQuestion]:
        return {q.id: q for q in self.spec.binaryQuestions}

    @cached_property
    def pairwise(self) -> dict[str, PairwiseQuestion]:
        return {q.id: q for q in self.spec.pairwiseQuestions}

    @property
    def q1_options(self) -> list[str]:
        return self.spec.conversationWide.q1_lookingFor.options

    @property
    def q2_options(self) -> list[str]:
        return self.spec.conversationWide.q2_emotionClarity.options

    @property
    def q3_options(self) -> list[str]:
        """Q3 options ordered worst to best."""
        return self.spec.conversationWide.q3_modelFit.options

    @property
    def q3_follow_up_when(self) -> list[str]:
        """The Q3 answers after which the follow-up is asked (listed or derived)."""
        return self.spec.conversationWide.q3_modelFit.followUpWhen

    @property
    def follow_up_options(self) -> list[str]:
        return self.spec.conversationWide.q3_followUp_whatFeltOff.options


def bundled_codebook_path() -> Path:
    from .._util.bundled import bundled_dataset_dir

    return bundled_dataset_dir() / "annotation_codebook.json"


def load_codebook(path: str | Path | None = None) -> Codebook:
    """Load and check a codebook file (the bundled one when `path` is None)."""
    file = Path(path) if path is not None else bundled_codebook_path()
    loaded = jsonfile.load_document(file, "codebook", CodebookFile)
    return Codebook(
        spec=loaded.value, path=str(file), sha256=loaded.sha256, warnings=loaded.warnings
    )


@cache
def cached_codebook(path: str | None) -> Codebook:
    """`load_codebook`, once per path per process (scorers look it up per sample)."""
    return load_codebook(path)
