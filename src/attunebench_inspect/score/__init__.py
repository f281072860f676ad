"""The main task's metrics: the catalog, the metric functions, and the Inspect scorers."""

from ._scorers import (
    HEADLINE,
    MainTaskScorer,
    attunebench_scorers,
    binary_scorer,
    composite_scorer,
    conversation_wide_scorer,
    draft_rejudge,
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
