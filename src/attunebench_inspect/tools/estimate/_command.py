"""`attunebench estimate`: each mode's requests built once, then its bill, its input by kind of
content (`--breakdown`), or both, as terminal tables or one JSON document."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

from ...data._codebook import Codebook
from ...data._source import DataSource
from ...instruments.contamination._estimate import PROBE, probe_requests
from ...solve._modes import Mode
from ._bill import (
    ModeEstimate,
    Plan,
    Prices,
    bill_document,
    bill_lines,
    captured,
    context_checks,
    mode_estimate,
    visible_conversations,
    wrapped,
)
from ._breakdown import Breakdown, breakdown_document, breakdown_lines, mode_breakdown
from ._cache.count import counter
from ._cache.rules import Tokens


@dataclass
class Estimates:
    tokenizer: str
    tokens: Tokens
    plan: Plan = field(default_factory=Plan)
    bill: list[ModeEstimate] = field(default_factory=list)
    breakdown: list[Breakdown] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)
    """The conversations estimated, in data order."""


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
    hint: str | None = None,
    contamination: bool = False,
) -> Estimates:
    """Every request of a run in each mode, built offline (`captured`) and counted: for the bill,
    for the breakdown, or for both from the same requests; with `contamination`, the bill of the
    contamination probe on the same data too."""
    estimates = Estimates(tokenizer, Tokens(counter(tokenizer)), plan or Plan())
    loaded = visible_conversations(data, codebook, hint)
    estimates.ids = [c.conversation_id for c in loaded]
    for mode, conversations in captured(loaded, codebook, modes, judge):
        if bill:
            estimates.bill.append(mode_estimate(mode, judge, conversations, estimates.tokens))
        if breakdown:
            estimates.breakdown.append(mode_breakdown(mode, judge, conversations, estimates.tokens))
    if contamination and bill:
        probe = probe_requests(data, codebook)
        estimates.bill.append(mode_estimate(PROBE, False, probe, estimates.tokens))
    return estimates


def to_json(estimates: Estimates, models: Sequence[tuple[str, Prices]], source: DataSource) -> str:
    document: dict[str, object] = {
        "data": {
            "given": source.given,
            "conversations_path": str(source.conversations),
            "conversations": len(estimates.ids),
            "bundled_synthetic": source.bundled,
        },
        "tokenizer": estimates.tokenizer,
    }
    if estimates.bill:
        document |= bill_document(
            estimates.bill, models, estimates.tokens, estimates.tokenizer, estimates.plan
        )
        checks = context_checks(estimates.bill, [m for m, _ in models], estimates.ids)
        document["context_windows"] = [asdict(c) for c in checks]
    if estimates.breakdown:
        document |= breakdown_document(estimates.breakdown)
    return json.dumps(document, indent=2) + "\n"


def to_terminal(
    estimates: Estimates, models: Sequence[tuple[str, Prices]], source: DataSource
) -> str:
    parts = [wrapped(source.describe(len(estimates.ids)))]
    if estimates.bill:
        parts.append(
            bill_lines(
                estimates.bill,
                models,
                estimates.tokens,
                estimates.tokenizer,
                estimates.plan,
                estimates.ids,
            )
        )
    if estimates.breakdown:
        parts.append(breakdown_lines(estimates.breakdown, estimates.tokenizer))
    return "\n\n".join("\n".join(lines) for lines in parts) + "\n"
