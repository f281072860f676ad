"""The main task's metrics: the catalog, the pure metric functions, per-conversation scoring and
the Inspect scorers (one per metric family, the Composite first)."""

from ._rejudge import draft_rejudge
from ._scorers import (
    HEADLINE,
    MainTaskScorer,
    attunebench_scorers,
    binary_scorer,
    composite_scorer,
    conversation_wide_scorer,
    draft_scorer,
    emotion_scorer,
    pairwise_scorer,
    pooled_binary,
)

__all__ = [
    "HEADLINE",
    "MainTaskScorer",
    "attunebench_scorers",
    "binary_scorer",
    "composite_scorer",
    "conversation_wide_scorer",
    "draft_rejudge",
    "draft_scorer",
    "emotion_scorer",
    "pairwise_scorer",
    "pooled_binary",
]
