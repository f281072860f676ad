"""The bill for a reader: `attunebench estimate`'s terminal lines and its part of the JSON."""

from __future__ import annotations

import math
import sys
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import TYPE_CHECKING, TypeVar

from .._arguments import WIDTH
from ._bill import ModeEstimate, Prices, RunBill, bills
from ._cache.rules import rules_for
from ._context import ContextCheck, context_checks
from ._tokens import FREE_TEXT_TOKENS

if TYPE_CHECKING:  # `_command.py` reads this module
    from ._command import Estimates

T = TypeVar("T")
Columns = Sequence[tuple[str, Callable[[T], str]]]
"""A table's columns: each heading, and its cell of a row's item."""


def assumptions(tokenizer: str, estimates: Sequence[ModeEstimate] = ()) -> list[str]:
    return [
        f"Input tokens: every request built offline by the solver, counted with {tokenizer} as "
        "the provider's cache sees it (a few tokens of role marker per message; other "
        "providers' tokenizers count differently). Repair rounds are not included.",
        "Output tokens are estimated: a draft as long as the original reply to the same "
        f"message; a structured answer as its shortest valid JSON plus {FREE_TEXT_TOKENS} "
        "tokens per reasoning field. Reasoning models' hidden reasoning tokens are not included.",
        "Cache: each provider's documented rules (docs/cost-and-scale.md): OpenAI reads the "
        "longest cached prefix of 1,024 tokens or more in 128-token steps, writes free; "
        "Anthropic writes at our breakpoints (1.25x) prefixes of the model's minimum length or "
        "more and reads them back (0.1x), 20 blocks of lookback; a write is readable once its "
        "request is done. Calls are sent in the solver's order (prefix_first: each shared prefix "
        "written before it is read), every call taking the same time.",
        "Batch: every call at once (the schedule under --batch), at the batch price (50%), the "
        "cache as it then serves (a batch API serves cache hits on a best-effort basis).",
        *dict.fromkeys(e.note for e in estimates if e.note),
    ]


def bill_document(estimates: Estimates, models: Sequence[tuple[str, Prices]]) -> dict[str, object]:
    """The bill part of `attunebench estimate --format json`."""
    return {
        "assumptions": assumptions(estimates.tokenizer, estimates.bill),
        "floor": FLOOR_NOTE,
        "plan": asdict(estimates.plan),
        "prices_usd_per_million_tokens": {model: asdict(p) for model, p in models},
        "runs": [
            {**asdict(b), "read_share": b.read_share, "written_share": b.written_share}
            for b in bills(estimates.bill, models, estimates.tokens, estimates.plan)
        ],
        "modes": [
            {
                "mode": e.mode,
                "judge": e.judge,
                "conversations": e.conversations,
                "total": asdict(e.total),
                "shared_share": e.shared_share,
                "per_conversation": [asdict(t) for t in e.per_conversation],
            }
            for e in estimates.bill
        ],
    }


def table(columns: list[str], rows: list[list[str]], text_columns: int) -> list[str]:
    """Aligned columns: the first `text_columns` to the left, numbers to the right."""
    cells = [columns, *rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    lines = [
        "  ".join(
            c.ljust(w) if i < text_columns else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ).rstrip()
        for row in cells
    ]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return lines


def percent(share: float) -> str:
    return f"{100 * share:.1f}%"


def _usd(cost: float | None) -> str:
    """Dollars and cents; a trillion or more (prices no provider charges) in powers of ten, so
    that a column stays narrow, and past the largest float (a bill scaled to the deposit) as
    that bound: every bill itself is finite (`_bill._finite`)."""
    if cost is None:
        return "-"
    if not math.isfinite(cost):
        return f"more than ${sys.float_info.max:.1e}"
    return f"${cost:.3g}" if cost >= 1e12 else f"${cost:,.2f}"


DEPOSIT_CONVERSATIONS = 200
"""The published deposit's benchmark set (Sample200, seed 003)."""


FLOOR_NOTE = (
    "floor: the bill if every prefix a call shares with an earlier call were read from the cache "
    "and no cache write were charged: the most any prompt cache could save on these requests."
)


def wrapped(text: str, bullet: str = "") -> list[str]:
    """Prose as lines of at most WIDTH columns (a bullet's later lines indented under it)."""
    # Paths and model names are not broken at a hyphen or mid-word: a longer one overflows.
    return textwrap.wrap(
        text,
        WIDTH,
        initial_indent=bullet,
        subsequent_indent=" " * len(bullet),
        break_long_words=False,
        break_on_hyphens=False,
    ) or [""]


def price_lines(models: Sequence[tuple[str, Prices]]) -> list[str]:
    """The prices billed, restated: what the user gave and what the provider's rules add."""
    lines = ["Prices (US dollars per million tokens):"]
    for model, prices in models:
        rules = rules_for(model)
        if prices.cached_input is not None:
            cached = f"cached input {prices.cached_input:g} (given)"
        elif rules is not None:
            cached = (
                f"cached input {rules.read_price * prices.input:g} ({rules.read_price:g}x input, "
                f"{rules.name}'s documented price)"
            )
        else:
            cached = "no prompt cache modelled for this provider"
        written = (
            f", cache writes {rules.write_price:g}x input"
            if rules is not None and rules.write_price != 1.0
            else ""
        )
        batch = f", batch {rules.batch_price:.0%} of every price" if rules is not None else ""
        lines += wrapped(
            f"{model}: input {prices.input:g}, output {prices.output:g}, {cached}{written}{batch}",
            "- ",
        )
    return lines


def deposit_lines(bills_: list[RunBill], conversations: int) -> list[str]:
    """The totals scaled to the deposit's 200 conversations, where the data set is another size."""
    if not conversations or conversations == DEPOSIT_CONVERSATIONS:
        return []
    factor = DEPOSIT_CONVERSATIONS / conversations
    totals = [b for b in bills_ if b.mode == "total"] or bills_
    lines = wrapped(
        f"Scaled to the deposit's {DEPOSIT_CONVERSATIONS} conversations (x{factor:g}, as if each "
        f"were like the {conversations} here; the real conversations' lengths differ, so this is "
        "an order of magnitude, not a quote):"
    )
    for b in totals:
        lines += wrapped(
            f"{b.model} ({b.mode}): {b.calls * factor:,.0f} calls, "
            f"{b.input_tokens * factor:,.0f} input tokens; no cache {_usd(b.cost_usd * factor)}, "
            f"with cache {_usd(b.cost_usd_cache * factor)}, batch "
            f"{_usd(None if b.cost_usd_batch is None else b.cost_usd_batch * factor)}",
            "- ",
        )
    return lines


def sample_lines(priced: int, total: int) -> list[str]:
    """Where the bill was priced on a sample, said before it."""
    if total <= priced:
        return []
    return [
        *wrapped(
            f"Priced on a seeded sample of {priced} of the {total:,} conversations (a run's bill "
            f"is scaled to all {total:,}); the means per conversation, the largest conversation "
            "and call, and the context windows are the sample's. `attunebench validate` checks "
            "every conversation."
        ),
        "",
    ]


def _columns(items: Sequence[T], columns: Columns[T], text_columns: int) -> list[str]:
    """`table` of a row per item, a cell per column."""
    rows = [[cell(item) for _, cell in columns] for item in items]
    return table([heading for heading, _ in columns], rows, text_columns)


_PER_CONVERSATION: Columns[ModeEstimate] = (
    ("mode", lambda e: e.mode),
    ("calls", lambda e: f"{e.total.calls / e.conversations:.1f}"),
    ("input tokens", lambda e: f"{e.total.input / e.conversations:,.0f}"),
    ("largest conv.", lambda e: f"{max(t.input for t in e.per_conversation):,}"),
    ("largest call", lambda e: f"{max(size for size, _ in e.largest):,}"),
    ("output (est.)", lambda e: f"{e.total.output / e.conversations:,.0f}"),
    ("shared prefix", lambda e: percent(e.shared_share)),
)
_USAGE: Columns[RunBill] = (
    ("model", lambda b: b.model),
    ("mode", lambda b: b.mode),
    ("conv.", lambda b: str(b.conversations)),
    ("calls", lambda b: f"{b.calls:,}"),
    ("input tokens", lambda b: f"{b.input_tokens:,}"),
    ("cache read", lambda b: percent(b.read_share)),
    ("written", lambda b: percent(b.written_share)),
    ("output (est.)", lambda b: f"{b.output_tokens:,}"),
)
_COST: Columns[RunBill] = (
    ("model", lambda b: b.model),
    ("mode", lambda b: b.mode),
    ("cache", lambda b: b.cache),
    ("no cache", lambda b: _usd(b.cost_usd)),
    ("with cache", lambda b: _usd(b.cost_usd_cache)),
    ("batch", lambda b: _usd(b.cost_usd_batch)),
    ("floor", lambda b: _usd(b.cost_usd_floor)),
)


def bill_lines(estimates: Estimates, models: Sequence[tuple[str, Prices]]) -> list[str]:
    """The bill's tables in `attunebench estimate`'s terminal output."""
    bill, plan, ids = estimates.bill, estimates.plan, estimates.ids
    judged = "with a judge" if bill and bill[0].judge else "without a judge"
    run_bills = bills(bill, models, estimates.tokens, plan)
    sent = f"{judged}; schedule {plan.schedule}, answer format {plan.answer_format}"
    conversations = max(estimates.total, len(ids))
    return [
        *price_lines(models),
        "",
        *sample_lines(len(ids), conversations),
        f"Per conversation ({judged}): means, and the largest",
        *_columns([e for e in bill if e.conversations], _PER_CONVERSATION, 1),
        "",
        f"Runs: calls and tokens ({sent})",
        *_columns(run_bills, _USAGE, 2),
        "",
        f"Runs: cost in US dollars ({sent})",
        *_columns(run_bills, _COST, 3),
        *wrapped(FLOOR_NOTE),
        "",
        "Context windows (input tokens of the largest call):",
        *context_lines(context_checks(bill, [m for m, _ in models], ids)),
        *(["", *scaled] if (scaled := deposit_lines(run_bills, conversations)) else []),
        "",
        *(line for a in assumptions(estimates.tokenizer, bill) for line in wrapped(a, "- ")),
    ]


def context_lines(checks: list[ContextCheck]) -> list[str]:
    """The context-window check as terminal lines."""
    lines = []
    for c in checks:
        if c.window is None:
            text = (
                f"{c.model}: its context window is not in Inspect's model database; the largest "
                f"call is {c.largest:,} input tokens ({c.largest_mode})"
            )
        elif c.over:
            shown = "; ".join(c.over[:5]) + (f"; and {len(c.over) - 5} more" if c.over[5:] else "")
            text = (
                f"{c.model}: {len(c.over)} conversation(s) have calls past its context window of "
                f"{c.window:,} tokens: {shown}"
            )
        else:
            text = (
                f"{c.model}: every call fits its context window of {c.window:,} tokens (the "
                f"largest is {c.largest:,}, in {c.largest_mode})"
            )
        lines += wrapped(text, "- ")
    return lines
