"""The profile task's scorer: `score_profile` is the pure assembly (the catalog computes each
metric from `ProfileInputs`); the Inspect scorer only reads the stored call record and the
profile from the sample."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from inspect_ai.log import HeadlineMetric
from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from ...score import _metrics as metrics
from ...solve._call_record import CallRecord
from ...solve._store import read_walk
from ._catalog import PROFILE_METRICS, UNPLACED_LABELS
from ._fields import BY_FIELD, PROFILE_FIELDS, ProfileTruth, profile_truth_of
from ._metrics import ProfileInputs
from ._vocabulary import Vocabulary, labels

PROFILE_SCORER = "profile_scorer"
PROFILE_HEADLINE = HeadlineMetric(scorer=PROFILE_SCORER, score="profile_composite", metric="mean")
PREDICTED_DIAGNOSES = "predicted_diagnoses"
"""The Score.metadata key of the diagnoses the answer named (for the report's diagnosis view)."""
REPORTED_DIAGNOSES = "reported_diagnoses"
"""The Score.metadata key of the diagnoses the participant reported, as vocabulary options (a
label the vocabulary cannot place as it is)."""
_DIAGNOSES = BY_FIELD["diagnoses"]
PROFILE_PARTS = {
    "demographics": "profile_demographics",
    "diagnoses": "profile_diagnoses",
    "scores": "profile_scores",
    "attitude": "profile_conversation_topic_attitude",
}


def score_profile(inputs: ProfileInputs) -> dict[str, float]:
    """Every profile metric of one conversation, and the count of labels left unscored."""
    return {
        **{s.name: s.value(inputs) for s in PROFILE_METRICS if s.value is not None},
        UNPLACED_LABELS: float(sum(len(found) for found in inputs.unplaced.values())),
    }


def answer_line(values: Mapping[str, float]) -> str:
    parts = ", ".join(f"{part} {values[name]:.2f}" for part, name in PROFILE_PARTS.items())
    return f"Profile composite {values['profile_composite']:.1f} ({parts})"


def _shown(value: object) -> str:
    if isinstance(value, dict):
        return ", ".join(k for k, on in value.items() if on) or "(none)"
    if isinstance(value, list):
        return ", ".join(value) or "(none)"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    # An answer in the model's own words may hold anything; one table cell must stay one cell.
    return "-" if value is None else " ".join(str(value).split()).replace("|", "\\|")


def explanation(truth: ProfileTruth, record: CallRecord | None, values: Mapping[str, float]) -> str:
    """Markdown: per field the model's answer beside the participant's, and its score."""
    prediction = record.prediction if record is not None else None
    if prediction is None:
        return "Profile answer: *parse failure* (every field scored as wrong)."
    reported = truth.values()
    lines = ["| field | model | participant | score |", "|---|---|---|---|"]
    for f in PROFILE_FIELDS:
        score = values.get(f"profile_{f.name}_ordinal", values.get(f"profile_{f.name}", math.nan))
        lines.append(
            f"| {f.name} | {_shown(prediction.get(f.name))} | {_shown(reported[f.name])} "
            f"| {'-' if math.isnan(score) else f'{score:.2f}'} |"
        )
    return "\n".join(lines)


# The log header carries the composite, its parts and the parse failures; the fields, like the
# main task's diagnostic variants, stay in every sample's Score.value (reports, metrics_df).
HEADER_GROUPS = ("headline", "part", "operational")


@scorer(metrics={s.name: [mean(), stderr()] for s in PROFILE_METRICS if s.group in HEADER_GROUPS})
def profile_scorer(vocabulary: dict[str, Any]) -> Scorer:
    """The profile composite, its four parts, every field and the parse-failure rate.

    `vocabulary` is the run's profile vocabulary (`Vocabulary.dump`): the participant's labels
    are placed in it, and the ordinal scales are its order."""
    words = Vocabulary.of(vocabulary)

    async def score(state: TaskState, target: Target) -> Score:
        record = read_walk(state.store).get("profile", None)
        truth = profile_truth_of(state.metadata)
        prediction = record.prediction if record is not None else None
        inputs = ProfileInputs.of(prediction, truth.values(), words)
        values = score_profile(inputs)
        named = metrics.selected(prediction.get("diagnoses")) if prediction is not None else None
        reported = [
            words.fields[_DIAGNOSES.name].place(label) or label
            for _, label in labels(_DIAGNOSES, truth.diagnoses)
        ]
        return Score(
            value=values,
            answer=answer_line(values),
            explanation=explanation(truth, record, values),
            metadata={
                # None where the answer failed to parse: no prediction, rather than one of none.
                PREDICTED_DIAGNOSES: named,
                REPORTED_DIAGNOSES: reported,
            },
        )

    return score
