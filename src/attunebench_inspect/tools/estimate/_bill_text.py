"""The bill for a reader: `attunebench estimate`'s terminal lines and its part of the JSON."""

from __future__ import annotations

import math
import sys
import textwrap
from collections.abc import Sequence
from dataclasses import asdict

from .._arguments import WIDTH
from ._bill import ModeEstimate, Plan, Prices, RunBill, bills
from ._cache.rules import Tokens, rules_for
from ._context import ContextCheck, context_checks
from ._tokens import FREE_TEXT_TOKENS


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


def bill_document(
    estimates: list[ModeEstimate],
    models: Sequence[tuple[str, Prices]],
    tokens: Tokens,
    tokenizer: str,
    plan: Plan,
) -> dict[str, object]:
    """The bill part of `attunebench estimate --format json`."""
    return {
        "assumptions": assumptions(tokenizer, estimates),
        "floor": FLOOR_NOTE,
        "plan": asdict(plan),
        "prices_usd_per_million_tokens": {model: asdict(p) for model, p in models},
        "runs": [
            {**asdict(b), "read_share": b.read_share, "written_share": b.written_share}
            for b in bills(estimates, models, tokens, plan)
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
            for e in estimates
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


def bill_lines(
    estimates: list[ModeEstimate],
    models: Sequence[tuple[str, Prices]],
    tokens: Tokens,
    tokenizer: str,
    plan: Plan,
    ids: Sequence[str],
    total: int = 0,
) -> list[str]:
    """The bill's tables in `attunebench estimate`'s terminal output; `total`: the data set's
    conversations where `ids` (those priced) are a sample of them."""
    judged = "with a judge" if estimates and estimates[0].judge else "without a judge"
    run_bills = bills(estimates, models, tokens, plan)
    sent = f"{judged}; schedule {plan.schedule}, answer format {plan.answer_format}"
    conversations = max(total, len(ids))
    return [
        *price_lines(models),
        "",
        *sample_lines(len(ids), conversations),
        *_per_conversation_lines(estimates, judged),
        "",
        *_usage_lines(run_bills, sent),
        "",
        *_cost_lines(run_bills, sent),
        "",
        "Context windows (input tokens of the largest call):",
        *context_lines(context_checks(estimates, [m for m, _ in models], ids)),
        *(["", *scaled] if (scaled := deposit_lines(run_bills, conversations)) else []),
        "",
        *(line for a in assumptions(tokenizer, estimates) for line in wrapped(a, "- ")),
    ]


def _per_conversation_lines(estimates: list[ModeEstimate], judged: str) -> list[str]:
    rows = [
        [
            e.mode,
            f"{e.total.calls / e.conversations:.1f}",
            f"{e.total.input / e.conversations:,.0f}",
            f"{max(t.input for t in e.per_conversation):,}",
            f"{max(size for size, _ in e.largest):,}",
            f"{e.total.output / e.conversations:,.0f}",
            percent(e.shared_share),
        ]
        for e in estimates
        if e.conversations
    ]
    header = [
        "mode",
        "calls",
        "input tokens",
        "largest conv.",
        "largest call",
        "output (est.)",
        "shared prefix",
    ]
    return [
        f"Per conversation ({judged}): means, and the largest",
        *table(header, rows, text_columns=1),
    ]


def _usage_lines(run_bills: Sequence[RunBill], sent: str) -> list[str]:
    rows = [
        [
            b.model,
            b.mode,
            str(b.conversations),
            f"{b.calls:,}",
            f"{b.input_tokens:,}",
            percent(b.read_share),
            percent(b.written_share),
            f"{b.output_tokens:,}",
        ]
        for b in run_bills
    ]
    header = [
        "model",
        "mode",
        "conv.",
        "calls",
        "input tokens",
        "cache read",
        "written",
        "output (est.)",
    ]
    return [f"Runs: calls and tokens ({sent})", *table(header, rows, text_columns=2)]


def _cost_lines(run_bills: Sequence[RunBill], sent: str) -> list[str]:
    rows = [
        [
            b.model,
            b.mode,
            b.cache,
            _usd(b.cost_usd),
            _usd(b.cost_usd_cache),
            _usd(b.cost_usd_batch),
            _usd(b.cost_usd_floor),
        ]
        for b in run_bills
    ]
    header = ["model", "mode", "cache", "no cache", "with cache", "batch", "floor"]
    return [
        f"Runs: cost in US dollars ({sent})",
        *table(header, rows, text_columns=3),
        *wrapped(FLOOR_NOTE),
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
