"""Labels planted in a conversation, and the conversation with every label changed: what the
leakage tests look for in prompts, pages and label sets."""

from __future__ import annotations

import copy
from typing import Any

from attunebench_inspect.data._panas import NEGATIVE_AFFECT, PANAS_ITEMS, POSITIVE_AFFECT

CANARIES = ("CANARY-om-model-4c1d", "CANARY-follow-up-9e2b", "CANARY-note-77aa")
VISIBLE_KEYS = frozenset(
    {
        "conversationId",
        "metadata",
        "category",
        "subtopic",
        "text",
        "turns",
        "turnNumber",
        "userMessage",
        "llmResponse",
        "annotations",
        "alternateResponses",
        "llmImproved",
        "humanEdited",
    }
)
"""The keys of a conversation file that hold no label: what a label-free copy of it keeps."""


def keys(value: Any) -> set[str]:
    """Every key of a parsed JSON value, at any depth."""
    if isinstance(value, dict):
        return set(value) | {k for v in value.values() for k in keys(v)}
    if isinstance(value, list):
        return {k for v in value for k in keys(v)}
    return set()


def with_canaries(raw: dict[str, Any]) -> dict[str, Any]:
    planted = copy.deepcopy(raw)
    planted["metadata"]["model"] = CANARIES[0]
    planted["conversationWideQuestions"]["q3_followUp_whatFeltOff"] = [CANARIES[1]]
    for turn in planted["turns"]:
        turn["annotations"]["annotatorNote"] = CANARIES[2]
    return planted


def every_label_changed(raw: dict[str, Any]) -> dict[str, Any]:
    """The same conversation with every label replaced (visible parts untouched)."""
    other = copy.deepcopy(raw)
    flip = {"yes": "no", "no": "na", "na": "yes"}
    for i, turn in enumerate(other["turns"]):
        turn["moodShiftTags"] = [{"emotion": PANAS_ITEMS[i % 20].title(), "intensity": 7}]
        for judgement in turn["annotations"]["binaryJudgements"]:
            judgement["observedBehavior"] = flip[judgement["observedBehavior"]]
            judgement["preferredBehavior"] = flip[judgement["preferredBehavior"]]
        for comparison in turn["annotations"]["pairwiseComparisons"]:
            comparison["winner"] = "B" if comparison["winner"] == "A" else "A"
    post = {item: 8 - value for item, value in other["postPanas"]["responses"].items()}
    other["postPanas"] = {
        "totalPositiveAffect": sum(post[i] for i in POSITIVE_AFFECT),
        "totalNegativeAffect": sum(post[i] for i in NEGATIVE_AFFECT),
        "responses": post,
    }
    cw = other["conversationWideQuestions"]
    cw["fourBranchScores"] = {b: 8 - v for b, v in cw["fourBranchScores"].items()}
    cw["q1_lookingFor"] = ["Just to see how the model would respond"]
    cw["q2_emotionClarity"] = "I did not express emotions"
    cw["q3_modelFit"] = "Excellent, it fit what I needed throughout"
    cw["q3_followUp_whatFeltOff"] = []
    other["metadata"]["model"] = "some-other-model"
    return other


PROFILE_SECRETS = (
    "CANARY-participant-id-51f0",
    "CANARY-schema-version-0b7d",
    "CANARY-profile-type-e3a9",
    "CANARY-undocumented-profile-2c44",
    "CANARY-undocumented-demographic-8d1e",
    "CANARY-undocumented-score-6f3b",
    "48113.25",  # a T-score: not predicted, never shown
)
"""Profile fields the task never predicts: no profile-task prompt may contain them."""


PROFILE_LABEL_CANARIES = {
    "country": "CANARY-country-a1",
    "education": "CANARY-education-b2",
    "gender": "CANARY-gender-c3",
    "age_range": "CANARY-age-d4",
    "english_proficiency": "CANARY-english-e5",
    "work_edu_background": ["CANARY-work-f6"],
    "diagnoses": ["CANARY-diagnosis-a7"],
}
"""Canaries in the fields the task predicts: no prompt or response schema may contain them
either (the answer options are the vocabulary's, never the data's)."""


def profile_planted(raw: dict[str, Any]) -> dict[str, Any]:
    """A canary in every field of the participant's profile."""
    planted = copy.deepcopy(raw)
    profile = planted["participant_profile"]
    profile["participant_id"], profile["schema_version"], profile["profile_type"] = PROFILE_SECRETS[
        :3
    ]
    profile["note"] = PROFILE_SECRETS[3]
    profile["demographics"].update(PROFILE_LABEL_CANARIES, hobby=PROFILE_SECRETS[4])
    scores = profile["computed_scores"]
    scores.update({k: float(PROFILE_SECRETS[6]) for k in scores if k.endswith("_t")})
    scores["extra_scale"] = PROFILE_SECRETS[5]
    profile["conversation_topic_attitude"] = "CANARY-attitude-b8"
    return planted
