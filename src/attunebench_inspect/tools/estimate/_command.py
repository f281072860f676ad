"""`attunebench estimate`: each mode's requests built once, then its bill, its input by kind of
content (`--breakdown`), or both, as terminal tables or one JSON document."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

from ...data._codebook import Codebook
from ...data._source import DataSource
from ...solve._modes import Mode, mode_spec
from ._bill import ModeEstimate, Plan, Prices, mode_estimate, priced_conversations
from ._bill_text import bill_document, bill_lines, wrapped
from ._breakdown import Breakdown, breakdown_document, breakdown_lines, mode_breakdown
from ._cache.count import counter
from ._cache.rules import Tokens
from ._capture import Request, capture
from ._context import context_checks


@dataclass(frozen=True)
class PricedTask:
    """A task other than the main one that the estimate can add to a bill (`--<name>`): how
    it builds the task's requests offline from the data, as the task's solver would send them.
    An instrument declares one; its record lists it (`Instrument.priced`, tools/_instrument.py)."""

    name: str
    """How the bill names the task's rows (where the main task names its mode), and its flag."""
    help: str
    """What the flag adds to the bill, for `attunebench estimate --help`."""
    assumption: str
    """What the bill assumes of the task's calls, printed with the other assumptions."""
    requests: Callable[[str | None, Codebook], list[list[Request]]]
    """Per conversation of the data (None: the bundled set), the task's requests."""


@dataclass
class Estimates:
    tokenizer: str
    tokens: Tokens
    plan: Plan = field(default_factory=Plan)
    bill: list[ModeEstimate] = field(default_factory=list)
    breakdown: list[Breakdown] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)
    """The conversations priced, in data order."""
    total: int = 0
    """The conversations of the data set (more than `ids` where a sample was priced)."""


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
    tasks: Sequence[PricedTask] = (),
    progress: Callable[[str], None] | None = None,
) -> Estimates:
    """Every request of a run in each mode, built offline (`captured`) and counted: for the bill,
    for the breakdown, or for both from the same requests; and the bill of each of `tasks` on
    the same data. A data set of more than `PRICED_WHOLE` conversations is priced on a sample
    (`priced_conversations`), and `progress` hears how the reading and the walks go."""
    estimates = Estimates(tokenizer, Tokens(counter(tokenizer)), plan or Plan())
    priced = priced_conversations(data, codebook, hint, progress)
    loaded = priced.conversations
    estimates.ids = [c.conversation_id for c in loaded]
    estimates.total = priced.total
    said = progress if priced.scale != 1.0 else None
    for mode in modes:
        # Every request of every conversation, built offline by the solver's walk.
        conversations = capture(loaded, codebook, mode_spec(mode), judge, said)
        if bill:
            estimate = mode_estimate(mode, judge, conversations, estimates.tokens)
            estimate.scale = priced.scale
            estimates.bill.append(estimate)
        if breakdown:
            estimates.breakdown.append(mode_breakdown(mode, judge, conversations, estimates.tokens))
    for task in tasks if bill else ():
        requests = task.requests(data, codebook)
        estimate = mode_estimate(task.name, False, requests, estimates.tokens)
        estimate.note = task.assumption
        estimates.bill.append(estimate)
    return estimates


def to_json(estimates: Estimates, models: Sequence[tuple[str, Prices]], source: DataSource) -> str:
    document: dict[str, object] = {
        "data": {
            "given": source.given,
            "conversations_path": str(source.conversations),
            "conversations": estimates.total,
            "priced": len(estimates.ids),
            "bundled_synthetic": source.bundled,
        },
        "tokenizer": estimates.tokenizer,
    }
    if estimates.bill:
        document |= bill_document(estimates, models)
        checks = context_checks(estimates.bill, [m for m, _ in models], estimates.ids)
        document["context_windows"] = [asdict(c) for c in checks]
    if estimates.breakdown:
        document |= breakdown_document(estimates.breakdown)
    # Strict JSON: a value that is not a finite number raises here rather than being written as
    # `Infinity` or `NaN`, which no JSON reader takes (a bill is checked finite in `bills`).
    return json.dumps(document, indent=2, allow_nan=False) + "\n"


def to_terminal(
    estimates: Estimates, models: Sequence[tuple[str, Prices]], source: DataSource
) -> str:
    parts = [wrapped(source.describe(estimates.total))]
    if estimates.bill:
        parts.append(bill_lines(estimates, models))
    if estimates.breakdown:
        parts.append(breakdown_lines(estimates.breakdown, estimates.tokenizer))
    return "\n\n".join("\n".join(lines) for lines in parts) + "\n"
