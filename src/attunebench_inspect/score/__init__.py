"""Metrics (pure), the VAD matrix, per-conversation scoring and the Inspect scorers."""

from ._rejudge import draft_rejudge
from ._scorers import (
    HEADLINE,
    attunebench_scorers,
    binary_scorer,
    composite_scorer,
    conversation_wide_scorer,
    draft_scorer,
    emotion_scorer,
    pairwise_scorer,
    pooled_binary,
    stability_figures,
    stability_scorer,
)

__all__ = [
    "HEADLINE",
    "attunebench_scorers",
    "binary_scorer",
    "composite_scorer",
    "conversation_wide_scorer",
    "draft_rejudge",
    "draft_scorer",
    "emotion_scorer",
    "pairwise_scorer",
    "pooled_binary",
    "stability_figures",
    "stability_scorer",
]
