"""The third verdict word every validity instrument shares: "cannot decide: <reason>", never a
default reading (ARCHITECTURE.md, 'Validity instruments')."""

from __future__ import annotations

CANNOT_DECIDE = "cannot decide"


def cannot_decide(reason: str) -> str:
    """The abstention, with its reason: `cannot decide: <reason>`."""
    return f"{CANNOT_DECIDE}: {reason}"


def is_abstention(verdict: str) -> bool:
    """Whether a verdict is an abstention (`cannot_decide`)."""
    return verdict.startswith(f"{CANNOT_DECIDE}: ")
