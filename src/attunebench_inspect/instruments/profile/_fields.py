"""The profile task's data: the participant profile as the label, the conversation as the input,
split as `data/_split.py` splits the main task's: `ProfileConversation` (no profile field: the
only thing the profile solver is handed) and `ProfileTruth` (read by the profile scorer only)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from inspect_ai.dataset import MemoryDataset, Sample
from pydantic import BaseModel, ConfigDict

from ...data._load import LoadedConversation, LoadResult
from ...data._problems import DataError, DataProblem, shorten
from ...data._samples import subgroup_metadata
from ...data._schema import Conversation
from ...data._split import Topic, VisibleTurn, split

PROFILE_OPTIONS_KEY = "profile_options"
"""The task metadata key of the option lists a profile run offered (it marks a profile run)."""
PROFILE_CONVERSATION_KEY = "profile_conversation"
PROFILE_TRUTH_KEY = "profile_truth"

Kind = Literal["choice", "multi", "text", "score"]
"""One option (`choice`), any of the options (`multi`), entries in the model's own words
(`text`: no fixed vocabulary), an integer in a range (`score`)."""
Section = Literal["demographics", "computed_scores", "attitude"]


@dataclass(frozen=True)
class ProfileField:
    """One predicted field, named as in the published `participant_profile`."""

    name: str
    section: Section
    kind: Kind
    label: str
    about: str = ""
    """What the prompt says of the field beside its label (a score: its scoring and direction)."""
    low: int = 0
    high: int = 0
    """A score's range, inclusive (the instrument's raw-score range, docs/profile.md)."""
    source: str = ""
    """Where a score's range comes from."""

    @property
    def path(self) -> str:
        """Where the field sits in a conversation file."""
        inner = "" if self.section == "attitude" else f"{self.section}."
        return f"participant_profile.{inner}{self.name}"


def _score(name: str, label: str, low: int, high: int, about: str, source: str) -> ProfileField:
    return ProfileField(name, "computed_scores", "score", label, about, low, high, source)


_TIPI = "the sum of the scale's two items, each 1-7"
_TIPI_SOURCE = "Gosling, Rentfrow & Swann 2003"
_PROMIS = "raw score, the sum of 4 items rated 1-5; higher is more"
_PROMIS_SOURCE = "PROMIS short form 4a scoring manual (HealthMeasures)"

PROFILE_FIELDS: tuple[ProfileField, ...] = (
    ProfileField("country", "demographics", "choice", "country of residence"),
    ProfileField("education", "demographics", "choice", "highest level of education"),
    ProfileField("gender", "demographics", "choice", "gender"),
    ProfileField("age_range", "demographics", "choice", "age range"),
    ProfileField("english_proficiency", "demographics", "choice", "English proficiency"),
    ProfileField(
        "work_edu_background", "demographics", "text", "work or education background",
        "the areas of work or study the participant named, in your own words, separated by "
        "semicolons",
    ),
    ProfileField(
        "diagnoses", "demographics", "multi", "self-reported mental health diagnoses",
        "true for each diagnosis the participant reported; all false for none",
    ),
    _score("who_5", "WHO-5 Well-Being Index", 0, 25,
           "raw score, the sum of 5 items rated 0-5; higher is better well-being",
           "Topp et al. 2015"),
    _score("asrs_6", "ASRS-6 adult ADHD screener", 0, 6,
           "the number of the 6 items answered in their positive range",
           "Kessler et al. 2005, ASRS v1.1 Part A"),
    _score("aq_10", "AQ-10 autism-spectrum quotient", 0, 10,
           "one point per item, 10 items; higher is more autistic traits", "Allison et al. 2012"),
    _score("promis_anxiety", "PROMIS Anxiety 4a", 4, 20, f"{_PROMIS} anxiety", _PROMIS_SOURCE),
    _score("promis_depression", "PROMIS Depression 4a", 4, 20, f"{_PROMIS} depression",
           _PROMIS_SOURCE),
    _score("promis_sleep", "PROMIS Sleep Disturbance 4a", 4, 20, f"{_PROMIS} disturbed sleep",
           _PROMIS_SOURCE),
    _score("tipi_extraversion", "TIPI extraversion", 2, 14, _TIPI, _TIPI_SOURCE),
    _score("tipi_agreeableness", "TIPI agreeableness", 2, 14, _TIPI, _TIPI_SOURCE),
    _score("tipi_conscientiousness", "TIPI conscientiousness", 2, 14, _TIPI, _TIPI_SOURCE),
    _score("tipi_stability", "TIPI emotional stability", 2, 14, _TIPI, _TIPI_SOURCE),
    _score("tipi_openness", "TIPI openness to experience", 2, 14, _TIPI, _TIPI_SOURCE),
    ProfileField(
        "conversation_topic_attitude", "attitude", "choice", "topic attitude",
        "how the participant felt about the conversation topic before the conversation",
    ),
)  # fmt: skip
BY_FIELD = {f.name: f for f in PROFILE_FIELDS}

VOCABULARY_FIELDS = tuple(f for f in PROFILE_FIELDS if f.kind in ("choice", "multi"))
"""The fields answered with options of the profile vocabulary."""
ORDINAL_FIELDS = ("age_range", "education")
"""Fields whose vocabulary lists its options lowest first: that order is their ordinal scale."""


# --- the split ------------------------------------------------------------------------------


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ProfileConversation(_Frozen):
    """What the evaluated model may see in the profile task: the topic and the turns, no profile."""

    conversation_id: str
    topic: Topic
    turns: list[VisibleTurn]


class ProfileTruth(_Frozen):
    """The participant's profile, flat, under the published field names (None: not given)."""

    conversation_id: str
    country: str | None
    education: str | None
    gender: str | None
    age_range: str | None
    english_proficiency: str | None
    work_edu_background: list[str]
    diagnoses: list[str]
    who_5: float | None
    asrs_6: float | None
    aq_10: float | None
    promis_anxiety: float | None
    promis_depression: float | None
    promis_sleep: float | None
    tipi_extraversion: float | None
    tipi_agreeableness: float | None
    tipi_conscientiousness: float | None
    tipi_stability: float | None
    tipi_openness: float | None
    conversation_topic_attitude: str

    def values(self) -> dict[str, object]:
        """field -> the participant's value, for the metrics."""
        return self.model_dump(exclude={"conversation_id"})


def split_profile(conv: Conversation) -> tuple[ProfileConversation, ProfileTruth]:
    visible, _ = split(conv)
    profile = conv.participant_profile
    sections = {
        "demographics": profile.demographics.model_dump(),
        "computed_scores": profile.computed_scores.model_dump(),
        "attitude": {"conversation_topic_attitude": profile.conversation_topic_attitude},
    }
    truth = ProfileTruth(
        conversation_id=conv.conversationId,
        **{f.name: sections[f.section][f.name] for f in PROFILE_FIELDS},
    )
    seen = ProfileConversation(
        conversation_id=visible.conversation_id, topic=visible.topic, turns=visible.turns
    )
    return seen, truth


# --- checks ---------------------------------------------------------------------------------


def score_problems(loaded: LoadedConversation, truth: ProfileTruth) -> list[DataProblem]:
    """A computed score outside its instrument's range cannot be scored on it (e.g. an ASRS-6
    scored as the 0-24 item sum, where the task reads the 0-6 screener count)."""
    problems = []
    for field in PROFILE_FIELDS:
        value = getattr(truth, field.name)
        if field.kind == "score" and value is not None and not field.low <= value <= field.high:
            problems.append(
                DataProblem(
                    loaded.source,
                    None,
                    field.path,
                    shorten(value),
                    f"{field.low}-{field.high}, the {field.label} range the profile task scores "
                    "(docs/profile.md)",
                    truth.conversation_id,
                )
            )
    return problems


def check_profiles(result: LoadResult, skip_invalid: bool) -> LoadResult:
    """`result` without the conversations whose profile the task cannot score (their problems
    added); raises DataError on any such problem unless `skip_invalid`, as loading does."""
    kept: list[LoadedConversation] = []
    problems: list[DataProblem] = []
    for loaded in result.conversations:
        found = score_problems(loaded, split_profile(loaded.conversation)[1])
        problems.extend(found)
        if not found:
            kept.append(loaded)
    if problems and not (skip_invalid and kept):
        raise DataError(problems)
    return replace(result, conversations=kept, problems=[*result.problems, *problems])


# --- samples ----------------------------------------------------------------------------------


def profile_text(truth: ProfileTruth) -> str:
    """The participant's profile, a line per section, for the TARGET column of `inspect view`."""
    values = truth.values()
    return "\n".join(
        f"{section}: "
        + "; ".join(f"{f.name} {values[f.name]}" for f in PROFILE_FIELDS if f.section == section)
        for section in ("demographics", "computed_scores", "attitude")
    )


def to_profile_sample(conv: Conversation) -> Sample:
    visible, truth = split_profile(conv)
    return Sample(
        id=visible.conversation_id,
        input=(
            f"AttuneBench profile prediction from conversation {visible.conversation_id} "
            f"({visible.topic.text}, {len(visible.turns)} turns)"
        ),
        target=profile_text(truth),
        metadata={
            PROFILE_CONVERSATION_KEY: visible.model_dump_json(),
            PROFILE_TRUTH_KEY: truth.model_dump_json(),
            **subgroup_metadata(conv),
        },
    )


def profile_dataset(conversations: Sequence[LoadedConversation], name: str) -> MemoryDataset:
    return MemoryDataset(
        samples=[to_profile_sample(c.conversation) for c in conversations], name=name
    )


def profile_conversation_of(metadata: dict[str, object]) -> ProfileConversation:
    return ProfileConversation.model_validate_json(str(metadata[PROFILE_CONVERSATION_KEY]))


def profile_truth_of(metadata: dict[str, object]) -> ProfileTruth:
    return ProfileTruth.model_validate_json(str(metadata[PROFILE_TRUTH_KEY]))
