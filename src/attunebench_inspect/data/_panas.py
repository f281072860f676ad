"""The PANAS-20 items: the fixed emotion vocabulary of mood-shift tags and PANAS ratings."""

from __future__ import annotations

from collections.abc import Mapping

POSITIVE_AFFECT: tuple[str, ...] = (
    "interested",
    "excited",
    "strong",
    "enthusiastic",
    "proud",
    "alert",
    "inspired",
    "determined",
    "attentive",
    "active",
)
NEGATIVE_AFFECT: tuple[str, ...] = (
    "distressed",
    "upset",
    "guilty",
    "scared",
    "hostile",
    "irritable",
    "ashamed",
    "nervous",
    "jittery",
    "afraid",
)
PANAS_ITEMS: tuple[str, ...] = POSITIVE_AFFECT + NEGATIVE_AFFECT


def affect_totals(responses: Mapping[str, int]) -> tuple[int, int]:
    """(positive, negative) affect totals of a complete set of 20 item ratings."""
    return (
        sum(responses[item] for item in POSITIVE_AFFECT),
        sum(responses[item] for item in NEGATIVE_AFFECT),
    )
