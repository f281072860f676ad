"""Conversations as Inspect samples: visible part in metadata, ground truth as the target."""

from __future__ import annotations

from inspect_ai.dataset import MemoryDataset, Sample

from .load import LoadResult
from .schema import Conversation
from .split import GroundTruth, VisibleConversation, split

CONVERSATION_KEY = "conversation"


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
        target=truth.model_dump_json(),
        metadata={
            # As one JSON string, not a tree: Inspect deep-copies a sample's metadata into every
            # score of every metric and walks it for every logged event; a string is one leaf.
            CONVERSATION_KEY: visible.model_dump_json(),
            **subgroup_metadata(conv),
        },
    )


def to_dataset(result: LoadResult, name: str) -> MemoryDataset:
    samples = [to_sample(loaded.conversation) for loaded in result.conversations]
    return MemoryDataset(samples=samples, name=name)


def visible_of(metadata: dict[str, object]) -> VisibleConversation:
    return VisibleConversation.model_validate_json(str(metadata[CONVERSATION_KEY]))


def truth_of(target: str) -> GroundTruth:
    return GroundTruth.model_validate_json(target)
