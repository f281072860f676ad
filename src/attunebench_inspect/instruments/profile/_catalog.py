"""The experimental profile task's metrics, as catalog entries (`catalog.py` lists them with the
main task's): its composite, its four parts and every field.

Pure declarations and arithmetic: nothing here calls Inspect.
"""

from __future__ import annotations

from ...score import _metrics as metrics
from ...score._metric_spec import MetricSpec, Pillar
from . import _metrics as profile
from ._fields import BY_FIELD, PROFILE_FIELDS, ProfileField
from ._metrics import ProfileInputs

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


def _profile_choice(f: ProfileField) -> MetricSpec:
    attitude = f.section == "attitude"
    return MetricSpec(
        f"profile_{f.name}",
        f"Profile: {f.label}",
        "profile",
        "conversation",
        "profile_part" if attitude else "profile_field",
        f"exact match of the {f.label}; {_VOCABULARY}",
        _PLACED,
        pillar=None if attitude or f.name in _ORDER else "demographics",
        profile=lambda p: profile.choice_exact(p.answer(f.name), p.truth[f.name]),
    )


def _profile_ordinal(f: ProfileField) -> MetricSpec:
    return MetricSpec(
        f"profile_{f.name}_ordinal",
        f"Profile: {f.label} (ordinal)",
        "profile",
        "conversation",
        "profile_field",
        f"ordinal similarity 1 - |rank difference|/(options - 1) of the {f.label}, "
        f"{_ORDER[f.name]}",
        _PLACED,
        pillar="demographics",
        profile=lambda p: profile.choice_ordinal(
            p.answer(f.name), p.truth[f.name], p.orders[f.name]
        ),
    )


def _profile_score(f: ProfileField) -> MetricSpec:
    return MetricSpec(
        f"profile_{f.name}",
        f"Profile: {f.label}",
        "profile",
        "conversation",
        "profile_field",
        f"1 - |error| / {f.high - f.low} on the {f.label} (range {f.low}-{f.high}, {f.source}: "
        f"{f.about})",
        _PROFILE_MISSING,
        pillar="scores",
        profile=lambda p: profile.score_accuracy(p.answer(f.name), p.truth[f.name], f.low, f.high),
    )


def _profile_part(pillar: Pillar, p: ProfileInputs) -> float:
    return metrics.nanmean(
        [s.profile(p) for s in PROFILE_METRICS if s.pillar == pillar and s.profile]
    )


def _profile_composite(p: ProfileInputs) -> float:
    parts = [s.profile(p) for s in PROFILE_METRICS if s.group == "profile_part" and s.profile]
    return profile.profile_composite(parts)


def _profile_metrics() -> tuple[MetricSpec, ...]:
    fields = PROFILE_FIELDS
    work, diagnoses = BY_FIELD["work_edu_background"], BY_FIELD["diagnoses"]
    return (
        MetricSpec(
            "profile_composite", "Profile composite", "profile", "conversation",
            "profile_headline",
            "100 x the mean of the four parts, equal weights: `profile_demographics`, "
            "`profile_diagnoses`, `profile_scores` and `profile_conversation_topic_attitude`; "
            "the run value is the mean over conversations",
            "a part the profile does not give is left out and the others reweighted; parse "
            "failure = 0",
            high=100.0, profile=_profile_composite,
        ),
        MetricSpec(
            "profile_demographics", "Profile: demographics", "profile", "conversation",
            "profile_part",
            "mean of the demographic fields the profile gives: country, education (ordinal), "
            "gender, age range (ordinal), English proficiency and work or education background",
            "a field the profile does not give is left out; parse failure = 0",
            profile=lambda p: _profile_part("demographics", p),
        ),
        MetricSpec(
            "profile_diagnoses", "Profile: diagnoses", "profile", "conversation", "profile_part",
            f"Jaccard |intersection| / |union| of the {diagnoses.label} named and reported; "
            f"{_VOCABULARY}",
            '"None of the above" is the empty set: naming none for a participant with none = 1; '
            "NaN where a reported diagnosis cannot be placed in the vocabulary; parse failure = 0",
            profile=lambda p: profile.diagnoses_overlap(
                p.answer(diagnoses.name), p.truth[diagnoses.name]
            ),
        ),
        MetricSpec(
            "profile_scores", "Profile: computed scores", "profile", "conversation",
            "profile_part",
            "mean of the computed-score fields the profile gives (WHO-5, ASRS-6, AQ-10, PROMIS "
            "anxiety, depression and sleep, the five TIPI scales), each 1 - |error| / its range",
            "a score the profile does not give is left out; parse failure = 0",
            profile=lambda p: _profile_part("scores", p),
        ),
        *(_profile_choice(f) for f in fields if f.section == "attitude"),
        MetricSpec(
            "profile_parse_failure_rate", "Profile parse failures", "profile", "conversation",
            "profile_operational",
            "1 where the profile call's answer failed to parse after the repair round, else 0",
            higher_is_better=False, profile=lambda p: float(p.prediction is None),
        ),
        *(
            spec
            for f in fields
            if f.section == "demographics" and f.kind == "choice"
            for spec in (
                (_profile_choice(f), _profile_ordinal(f)) if f.name in _ORDER
                else (_profile_choice(f),)
            )
        ),
        MetricSpec(
            f"profile_{work.name}", f"Profile: {work.label}", "profile", "conversation",
            "profile_field",
            f"fuzzy set overlap, as `q3_follow_up`, between the areas of the {work.label} the "
            "model names in its own words (split at semicolons; no fixed vocabulary) and the "
            "participant's entries: M / (|P| + |G| - M)",
            "NaN where the profile gives no entry; nothing named or parse failure = 0",
            pillar="demographics",
            profile=lambda p: profile.background_overlap(p.answer(work.name), p.truth[work.name]),
        ),
        *(_profile_score(f) for f in fields if f.kind == "score"),
    )  # fmt: skip


PROFILE_METRICS = _profile_metrics()
