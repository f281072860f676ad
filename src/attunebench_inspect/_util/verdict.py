"""The third verdict word every validity instrument shares: "cannot decide: <reason>", what an
instrument reads when its input carries too little information for either of its readings
(too few instances, epochs, models or annotators, labels that say nothing, a model that answers
one thing). Never a default reading: absence of evidence is not a negative."""

from __future__ import annotations

CANNOT_DECIDE = "cannot decide"


def cannot_decide(reason: str) -> str:
    """The abstention, with its reason: `cannot decide: <reason>`."""
    return f"{CANNOT_DECIDE}: {reason}"


def is_abstention(verdict: str) -> bool:
    """Whether a verdict is an abstention (`cannot_decide`)."""
    return verdict.startswith(f"{CANNOT_DECIDE}: ")
