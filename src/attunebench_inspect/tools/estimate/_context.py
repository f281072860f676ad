"""Each model's context window (Inspect's model database) against the largest call."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from inspect_ai.model import get_model_info

from ._bill import ModeEstimate


@dataclass(frozen=True)
class ContextCheck:
    """One model's context window against the largest call of every conversation and mode."""

    model: str
    window: int | None
    """Input tokens the model takes (Inspect's model database); None where it is not known."""
    largest: int
    """The largest call's input tokens (as counted here: another tokenizer counts otherwise)."""
    largest_mode: str
    over: list[str]
    """Each conversation and mode whose largest call passes the window, with that call."""


def context_checks(
    estimates: list[ModeEstimate], models: Sequence[str], ids: Sequence[str]
) -> list[ContextCheck]:
    """Per model, whether every call of every mode fits its context window."""
    calls = [
        (size, e.mode, cid, request)
        for e in estimates
        for cid, (size, request) in zip(ids, e.largest, strict=True)
    ]
    largest = max(calls, key=lambda c: c[0], default=(0, "", "", None))
    checks = []
    for model in models:
        info = get_model_info(model)
        window = info.context_length if info is not None else None
        over = [
            f"{cid} in {mode} (turn {request.turn} {request.call}, {size:,} tokens)"
            if request.turn is not None
            else f"{cid} in {mode} ({request.call}, {size:,} tokens)"
            for size, mode, cid, request in calls
            if window is not None and size > window
        ]
        checks.append(ContextCheck(model, window, largest[0], largest[1], over))
    return checks
