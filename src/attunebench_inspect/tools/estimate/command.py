"""`attunebench estimate`: each mode's requests built once, then its bill, its input by kind of
content (`--breakdown`), or both, as terminal tables or one JSON document."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from ...data.codebook import Codebook
from ...solve.modes import Mode
from .bill import (
    ModeEstimate,
    Plan,
    Prices,
    bill_document,
    bill_lines,
    captured,
    mode_estimate,
)
from .breakdown import Breakdown, breakdown_document, breakdown_lines, mode_breakdown
from .cache.count import counter
from .cache.rules import Tokens
from .probe import PROBE, probe_requests


@dataclass
class Estimates:
    tokenizer: str
    tokens: Tokens
    plan: Plan = field(default_factory=Plan)
    bill: list[ModeEstimate] = field(default_factory=list)
    breakdown: list[Breakdown] = field(default_factory=list)


def estimate_modes(
    data: str | None,
    codebook: Codebook,
    modes: Sequence[Mode],
    judge: bool,
    tokenizer: str,
    *,
    plan: Plan | None = None,
    bill: bool = True,
    breakdown: bool = False,
    contamination: bool = False,
) -> Estimates:
    """Every request of a run in each mode, built offline (`captured`) and counted: for the bill,
    for the breakdown, or for both from the same requests; with `contamination`, the bill of the
    contamination probe on the same data too."""
    estimates = Estimates(tokenizer, Tokens(counter(tokenizer)), plan or Plan())
    for mode, conversations in captured(data, codebook, modes, judge):
        if bill:
            estimates.bill.append(mode_estimate(mode, judge, conversations, estimates.tokens))
        if breakdown:
            estimates.breakdown.append(mode_breakdown(mode, judge, conversations, estimates.tokens))
    if contamination and bill:
        probe = probe_requests(data, codebook)
        estimates.bill.append(mode_estimate(PROBE, False, probe, estimates.tokens))
    return estimates


def to_json(estimates: Estimates, models: Sequence[tuple[str, Prices]]) -> str:
    document: dict[str, object] = {"tokenizer": estimates.tokenizer}
    if estimates.bill:
        document |= bill_document(
            estimates.bill, models, estimates.tokens, estimates.tokenizer, estimates.plan
        )
    if estimates.breakdown:
        document |= breakdown_document(estimates.breakdown)
    return json.dumps(document, indent=2) + "\n"


def to_terminal(estimates: Estimates, models: Sequence[tuple[str, Prices]]) -> str:
    parts = []
    if estimates.bill:
        parts.append(
            bill_lines(
                estimates.bill, models, estimates.tokens, estimates.tokenizer, estimates.plan
            )
        )
    if estimates.breakdown:
        parts.append(breakdown_lines(estimates.breakdown, estimates.tokenizer))
    return "\n\n".join("\n".join(lines) for lines in parts) + "\n"
