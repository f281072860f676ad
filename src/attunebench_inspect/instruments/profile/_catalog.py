"""The experimental profile task's metrics (`ProfileSpec`, its own), declared once. Pure."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from ...score import _metrics as metrics
from ...score._catalog_doc import TABLE_HEAD, metric_row
from ...score._chance_levels import measured
from . import _metrics as profile
from ._fields import BY_FIELD, PROFILE_FIELDS, ProfileField
from ._metrics import ProfileInputs

ProfileGroup = Literal["headline", "part", "field", "operational"]
"""The profile composite, its parts, the fields, its parse failures (the header: all but fields)."""
ProfilePart = Literal["demographics", "scores"]
"""The parts whose fields the catalog lists (a field's `pillar`)."""
UNPLACED_LABELS = "profile_unplaced_labels"
"""The count, in a profile score, of the participant's labels the vocabulary could not place."""
UNPLACED_ABOUT = (
    "the count of the participant's labels that the profile vocabulary cannot place (their fields "
    "are not scored)"
)


@dataclass(frozen=True)
class ProfileSpec:
    """A profile metric: what METRICS.md and the report say of it, and its pure function."""

    name: str
    label: str
    group: ProfileGroup
    definition: str
    edge_cases: str = ""
    higher_is_better: bool = True
    pillar: ProfilePart | None = None
    low: float = 0.0
    high: float = 1.0
    value: Callable[[ProfileInputs], float] | None = field(default=None, repr=False)
    expected: None = None

    @property
    def chance(self) -> float | None:
        """Measured on the bundled synthetic set for attunebench/random (chance_levels.json)."""
        return measured(self.name)[0]

    @property
    def majority(self) -> float | None:
        return measured(self.name)[1]

    @property
    def row(self) -> str:
        """Its row of METRICS.md."""
        group = "operational" if self.group == "operational" else f"profile {self.group}"
        pillar = f", pillar {self.pillar}" if self.pillar else ""
        return metric_row(self, group + pillar)


_PROFILE_MISSING = "NaN where the participant's profile does not give it; parse failure = 0"
_PLACED = (
    "NaN where the participant's profile does not give it, or gives a label the profile "
    "vocabulary cannot place; parse failure = 0"
)
_VOCABULARY = (
    "the options are the profile vocabulary's, the participant's label scored as the option it "
    "is, is an alias of, or is uniquely close to (docs/profile.md)"
)
_ORDER = {
    "age_range": "ranked in the vocabulary's order, lowest first (bundled: 18-24 < 25-34 < ... "
    "< 65+)",
    "education": "ranked in the vocabulary's order, lowest first (bundled: six levels, less "
    "than high school < high school < some college or vocational training < bachelor's < "
    "master's < doctorate)",
}


def _profile_choice(f: ProfileField) -> ProfileSpec:
    attitude = f.section == "attitude"
    return ProfileSpec(
        f"profile_{f.name}",
        f"Profile: {f.label}",
        "part" if attitude else "field",
        f"exact match of the {f.label}; {_VOCABULARY}",
        _PLACED,
        pillar=None if attitude or f.name in _ORDER else "demographics",
        value=lambda p: profile.choice_exact(p.answer(f.name), p.truth[f.name]),
    )


def _profile_ordinal(f: ProfileField) -> ProfileSpec:
    return ProfileSpec(
        f"profile_{f.name}_ordinal",
        f"Profile: {f.label} (ordinal)",
        "field",
        f"ordinal similarity 1 - |rank difference|/(options - 1) of the {f.label}, "
        f"{_ORDER[f.name]}",
        _PLACED,
        pillar="demographics",
        value=lambda p: profile.choice_ordinal(p.answer(f.name), p.truth[f.name], p.orders[f.name]),
    )


def _profile_score(f: ProfileField) -> ProfileSpec:
    return ProfileSpec(
        f"profile_{f.name}",
        f"Profile: {f.label}",
        "field",
        f"1 - |error| / {f.high - f.low} on the {f.label} (range {f.low}-{f.high}, {f.source}: "
        f"{f.about})",
        _PROFILE_MISSING,
        pillar="scores",
        value=lambda p: profile.score_accuracy(p.answer(f.name), p.truth[f.name], f.low, f.high),
    )


def _profile_part(pillar: ProfilePart, p: ProfileInputs) -> float:
    return metrics.nanmean([s.value(p) for s in PROFILE_METRICS if s.pillar == pillar and s.value])


def _profile_composite(p: ProfileInputs) -> float:
    """100 x the mean of the parts that are defined (equal weights; NaN if none is)."""
    return 100 * metrics.nanmean(
        [s.value(p) for s in PROFILE_METRICS if s.group == "part" and s.value]
    )


_WORK, _DIAGNOSES = BY_FIELD["work_edu_background"], BY_FIELD["diagnoses"]
PROFILE_METRICS: tuple[ProfileSpec, ...] = (
    ProfileSpec(
        "profile_composite", "Profile composite",
        "headline",
        "100 x the mean of the four parts, equal weights: `profile_demographics`, "
        "`profile_diagnoses`, `profile_scores` and `profile_conversation_topic_attitude`; "
        "the run value is the mean over conversations",
        "a part the profile does not give is left out and the others reweighted; parse "
        "failure = 0",
        high=100.0, value=_profile_composite,
    ),
    ProfileSpec(
        "profile_demographics", "Profile: demographics",
        "part",
        "mean of the demographic fields the profile gives: country, education (ordinal), "
        "gender, age range (ordinal), English proficiency and work or education background",
        "a field the profile does not give is left out; parse failure = 0",
        value=lambda p: _profile_part("demographics", p),
    ),
    ProfileSpec(
        "profile_diagnoses", "Profile: diagnoses", "part",
        f"Jaccard |intersection| / |union| of the {_DIAGNOSES.label} named and reported; "
        f"{_VOCABULARY}",
        '"None of the above" is the empty set: naming none for a participant with none = 1; '
        "NaN where a reported diagnosis cannot be placed in the vocabulary; parse failure = 0",
        value=lambda p: profile.diagnoses_overlap(
            p.answer(_DIAGNOSES.name), p.truth[_DIAGNOSES.name]
        ),
    ),
    ProfileSpec(
        "profile_scores", "Profile: computed scores",
        "part",
        "mean of the computed-score fields the profile gives (WHO-5, ASRS-6, AQ-10, PROMIS "
        "anxiety, depression and sleep, the five TIPI scales), each 1 - |error| / its range",
        "a score the profile does not give is left out; parse failure = 0",
        value=lambda p: _profile_part("scores", p),
    ),
    *(_profile_choice(f) for f in PROFILE_FIELDS if f.section == "attitude"),
    ProfileSpec(
        "profile_parse_failure_rate", "Profile parse failures",
        "operational",
        "1 where the profile call's answer failed to parse after the repair round, else 0",
        higher_is_better=False, value=lambda p: float(p.prediction is None),
    ),
    *(
        spec
        for f in PROFILE_FIELDS
        if f.section == "demographics" and f.kind == "choice"
        for spec in (
            (_profile_choice(f), _profile_ordinal(f)) if f.name in _ORDER
            else (_profile_choice(f),)
        )
    ),
    ProfileSpec(
        f"profile_{_WORK.name}", f"Profile: {_WORK.label}",
        "field",
        f"fuzzy set overlap, as `q3_follow_up`, between the areas of the {_WORK.label} the "
        "model names in its own words (split at semicolons; no fixed vocabulary) and the "
        "participant's entries: M / (|P| + |G| - M)",
        "NaN where the profile gives no entry; nothing named or parse failure = 0",
        pillar="demographics",
        value=lambda p: profile.background_overlap(p.answer(_WORK.name), p.truth[_WORK.name]),
    ),
    *(_profile_score(f) for f in PROFILE_FIELDS if f.kind == "score"),
)  # fmt: skip


def label(name: str) -> str:
    """How a person reads a profile metric's name (the name itself where it is not one)."""
    return next((s.label for s in PROFILE_METRICS if s.name == name), name)


def in_groups(*groups: ProfileGroup) -> tuple[str, ...]:
    return tuple(s.name for s in PROFILE_METRICS if s.group in groups)


def profile_markdown() -> list[str]:
    """The profile section of scorers/METRICS.md's generated block."""
    return [
        "### Profile prediction (the experimental `profile` task)",
        "",
        "From the profile task's one call (docs/profile.md); the run value is the mean over "
        "conversations. Part and field values are on 0 to 1; `pillar` names the part a field "
        "feeds. The options come from the profile vocabulary, fixed whatever the data "
        "(dataset/profile_vocabulary.json or `-T vocabulary=FILE`). Beside the metrics, every "
        f"sample's score carries `{UNPLACED_LABELS}`, {UNPLACED_ABOUT}: the log's data "
        "warnings and `attunebench validate` name them, and the report sums them per run.",
        "",
        *TABLE_HEAD,
        *(s.row for s in PROFILE_METRICS),
        "",
    ]
