"""Conversations as Inspect samples. The visible part and the ground truth each travel as one
JSON string in the sample's metadata: the solver reads only the visible part (`visible_of`), the
scorers the ground truth (`truth_of`); the target is a readable account of the labels, for the
TARGET column of `inspect view`."""

from __future__ import annotations

from inspect_ai.dataset import MemoryDataset, Sample

from ._load import LoadResult
from ._schema import Conversation
from ._split import GroundTruth, VisibleConversation, split

CONVERSATION_KEY = "conversation"
GROUND_TRUTH_KEY = "ground_truth"


def subgroup_metadata(conv: Conversation) -> dict[str, object]:
    """Participant and topic facts for subgroup reports, as small keys (Inspect's sample
    summaries drop any metadata key over 1 KB, and reports read summaries only)."""
    profile = conv.participant_profile
    return {
        "category": conv.metadata.category,
        "subtopic": conv.metadata.subtopic,
        "turn_count": len(conv.turns),
        "participant_id": profile.participant_id,
        "diagnoses": list(profile.demographics.diagnoses),
        "demographics": profile.demographics.model_dump(
            exclude={"work_edu_background", "diagnoses"}
        ),
        "computed_scores": profile.computed_scores.model_dump(exclude_none=True),
        "topic_attitude": profile.conversation_topic_attitude,
    }


def to_sample(conv: Conversation) -> Sample:
    visible, truth = split(conv)
    return Sample(
        id=visible.conversation_id,
        input=(
            f"AttuneBench conversation {visible.conversation_id} "
            f"({visible.topic.text}, {len(visible.turns)} turns)"
        ),
        target=labels_text(truth),
        metadata={
            # As JSON strings, not trees: Inspect deep-copies a sample's metadata into every
            # score of every metric and walks it for every logged event; a string is one leaf.
            CONVERSATION_KEY: visible.model_dump_json(),
            GROUND_TRUTH_KEY: truth.model_dump_json(),
            **subgroup_metadata(conv),
        },
    )


def to_dataset(result: LoadResult, name: str) -> MemoryDataset:
    samples = [to_sample(loaded.conversation) for loaded in result.conversations]
    return MemoryDataset(samples=samples, name=name)


def visible_of(metadata: dict[str, object]) -> VisibleConversation:
    return VisibleConversation.model_validate_json(str(metadata[CONVERSATION_KEY]))


def truth_of(metadata: dict[str, object]) -> GroundTruth:
    return GroundTruth.model_validate_json(str(metadata[GROUND_TRUTH_KEY]))


def labels_text(truth: GroundTruth) -> str:
    """The participant's labels in a line per turn and one for the questionnaire."""
    lines = []
    for turn in truth.turns:
        mood = ", ".join(f"{e} {i}" for e, i in turn.mood_shift.items()) or "no shift"
        lines.append(
            f"Turn {turn.turn_number}: felt {mood}; {len(turn.binary)} binary judgements, "
            f"{len(turn.pairwise)} comparisons"
        )
    lines.append(
        f"After: Q2 {truth.q2_emotion_clarity}; Q3 {truth.q3_model_fit}; Four-Branch "
        + ", ".join(f"{b} {v}" for b, v in truth.four_branch.items())
    )
    return "\n".join(lines)
