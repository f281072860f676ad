"""Per mode, the calls and tokens of a run; per model, its bill without cache, with the
provider's prompt cache, under its batch API, and at the structural limit; as a terminal table or
JSON."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from inspect_ai.model import get_model_info

from ..._util.bundled import bundled_conversations_dir
from ...data._codebook import Codebook
from ...data._load import load_conversations
from ...data._split import VisibleConversation, split
from ...solve._modes import Mode, mode_spec
from ...solve._provider_rules import AnswerFormat, schema_in_cache_key
from ...solve._schedule import Schedule
from ._cache.rules import SHARED, CacheRules, CacheUse, Tokens, rules_for
from ._capture import Request, capture
from ._tokens import FREE_TEXT_TOKENS, Through, output_tokens, through_cache, uses

PER = 1_000_000
"""Prices are in US dollars per million tokens."""


@dataclass
class Totals:
    calls: int = 0
    input: int = 0
    cache_read: int = 0
    cache_written: int = 0
    output: int = 0

    def add(self, use: CacheUse, output: int) -> None:
        self.merge(Totals(1, use.prompt, use.read, use.written, output))

    def merge(self, other: Totals) -> None:
        self.calls += other.calls
        self.input += other.input
        self.cache_read += other.cache_read
        self.cache_written += other.cache_written
        self.output += other.output

    @property
    def uncached(self) -> int:
        return self.input - self.cache_read - self.cache_written


def _totals(requests: Sequence[Request], used: Sequence[CacheUse], tokens: Tokens) -> Totals:
    totals = Totals()
    for request, use in zip(requests, used, strict=True):
        totals.add(use, output_tokens(request, tokens))
    return totals


@dataclass
class ModeEstimate:
    """A mode's requests (or another task's, `PricedTask`) and what a perfect cache could serve
    of them (no provider)."""

    mode: str
    """A mode, or the name of another task priced beside it (`PricedTask.name`)."""
    judge: bool
    requests: list[list[Request]] = field(repr=False)
    total: Totals = field(default_factory=Totals)
    per_conversation: list[Totals] = field(default_factory=list)
    largest: list[tuple[int, Request]] = field(default_factory=list, repr=False)
    """Per conversation, its largest call: input tokens and the request."""
    simulated: dict[Through, Totals] = field(default_factory=dict, repr=False)
    """Totals of the requests through a cache, by how they were sent: several models (and each
    one's floor, the same as the mode's structural share where the dialect is OpenAI's) share
    a simulation."""
    note: str = field(default="", repr=False)
    """What the bill assumes of another task's calls (`PricedTask.assumption`)."""

    def through(self, through: Through, tokens: Tokens) -> Totals:
        if through not in self.simulated:
            flat = [r for conversation in self.requests for r in conversation]
            used = uses(through_cache(self.requests, through, tokens))
            self.simulated[through] = _totals(flat, used, tokens)
        return self.simulated[through]

    @property
    def conversations(self) -> int:
        return len(self.per_conversation)

    @property
    def shared_share(self) -> float:
        return self.total.cache_read / self.total.input if self.total.input else 0.0


@dataclass(frozen=True)
class Prices:
    """US dollars per million tokens."""

    input: float
    output: float
    cached_input: float | None = None
    """Overrides the provider's documented ratio for cached input."""

    def cost(self, totals: Totals, rules: CacheRules | None) -> float:
        read = (
            self.cached_input
            if self.cached_input is not None
            else (rules.read_price if rules else 1.0) * self.input
        )
        write = (rules.write_price if rules else 1.0) * self.input
        return (
            totals.uncached * self.input
            + totals.cache_read * read
            + totals.cache_written * write
            + totals.output * self.output
        ) / PER


def visible_conversations(
    data: str | Path | None, codebook: Codebook, hint: str | None = None
) -> list[VisibleConversation]:
    """What the solver sees of each conversation of `data` (default: the bundled set); `hint`
    for a data set with problems, as `load_conversations` takes it."""
    source = Path(data) if data is not None else bundled_conversations_dir()
    loaded = load_conversations(source, codebook, hint=hint).conversations
    return [split(c.conversation)[0] for c in loaded]


def captured(
    conversations: list[VisibleConversation], codebook: Codebook, modes: Sequence[Mode], judge: bool
) -> Iterator[tuple[Mode, list[list[Request]]]]:
    """Per mode, the requests of every conversation, built offline by the solver's walk."""
    for mode in modes:
        yield mode, capture(conversations, codebook, mode_spec(mode), judge)


STRUCTURAL = Through(SHARED, "prefix_first", schema=False)
"""Every prefix shared with a call sent before, read whole: what any cache could serve of the
requests as laid out (no minimum length, no steps, no schema in the prompt)."""


def mode_estimate(
    mode: str, judge: bool, conversations: list[list[Request]], tokens: Tokens
) -> ModeEstimate:
    """The calls and tokens of one mode (messages as OpenAI renders them, no schema), and the
    share a perfect cache could serve."""
    estimate = ModeEstimate(mode, judge, conversations)
    for requests, lookups in zip(
        conversations, through_cache(conversations, STRUCTURAL, tokens), strict=True
    ):
        conversation = _totals(requests, [lookup.use for lookup in lookups], tokens)
        estimate.per_conversation.append(conversation)
        estimate.largest.append(
            max(
                ((lookup.use.prompt, r) for r, lookup in zip(requests, lookups, strict=True)),
                key=lambda pair: pair[0],
            )
        )
        estimate.total.merge(conversation)
    estimate.simulated[STRUCTURAL] = estimate.total
    return estimate


@dataclass(frozen=True)
class RunBill:
    """One model in one mode (or `total`, over the modes)."""

    model: str
    mode: str
    cache: str
    """The provider's cache rules modelled (`none` where no cache is modelled)."""
    conversations: int
    calls: int
    input_tokens: int
    cache_read_tokens: int
    cache_written_tokens: int
    output_tokens: int
    cost_usd: float
    """Without any prompt cache."""
    cost_usd_cache: float
    """With the provider's cache, in the order the solver sends."""
    cost_usd_batch: float | None
    """Under the provider's batch API (all calls at once, the cache as it then serves)."""
    cost_usd_floor: float | None
    """Every prefix shared with an earlier call read from the cache, no write charged: the
    structural limit of the layout (None where no cache is modelled)."""

    @property
    def read_share(self) -> float:
        return self.cache_read_tokens / self.input_tokens if self.input_tokens else 0.0

    @property
    def written_share(self) -> float:
        return self.cache_written_tokens / self.input_tokens if self.input_tokens else 0.0


@dataclass(frozen=True)
class Plan:
    """How the run is sent: the schedule without batch, and how answers are constrained."""

    schedule: Schedule = "prefix_first"
    answer_format: AnswerFormat = "auto"


@dataclass
class _Priced:
    """One model's totals in one mode, in each way it may be sent."""

    conversations: int = 0
    cache: Totals = field(default_factory=Totals)
    batch: Totals | None = field(default_factory=Totals)
    """None where the provider has no batch API we model."""
    floor: Totals = field(default_factory=Totals)

    def merge(self, other: _Priced) -> None:
        self.conversations += other.conversations
        self.cache.merge(other.cache)
        self.floor.merge(other.floor)
        if self.batch is not None and other.batch is not None:
            self.batch.merge(other.batch)
        else:
            self.batch = None


def _priced(estimate: ModeEstimate, model: str, plan: Plan, tokens: Tokens) -> _Priced:
    rules = rules_for(model)
    schema = schema_in_cache_key(model.partition("/")[0], plan.answer_format)

    def total(rules: CacheRules, schedule: Schedule) -> Totals:
        return estimate.through(Through(rules, schedule, schema), tokens)

    floor = total(replace(SHARED, dialect=rules.dialect if rules else "openai"), "prefix_first")
    if rules is None:
        return _Priced(estimate.conversations, replace(floor, cache_read=0), None, floor)
    return _Priced(
        estimate.conversations,
        total(rules, plan.schedule),
        total(rules, "all_at_once"),
        floor,
    )


def _bill(model: str, mode: str, priced: _Priced, prices: Prices) -> RunBill:
    rules = rules_for(model)
    cache = priced.cache
    uncached = replace(cache, cache_read=0, cache_written=0)
    return RunBill(
        model=model,
        mode=mode,
        cache=rules.name if rules else "none",
        conversations=priced.conversations,
        calls=cache.calls,
        input_tokens=cache.input,
        cache_read_tokens=cache.cache_read,
        cache_written_tokens=cache.cache_written,
        output_tokens=cache.output,
        cost_usd=prices.cost(uncached, rules),
        cost_usd_cache=prices.cost(cache, rules),
        cost_usd_batch=rules.batch_price * prices.cost(priced.batch, rules)
        if rules and priced.batch
        else None,
        cost_usd_floor=prices.cost(replace(priced.floor, cache_written=0), rules)
        if rules
        else None,
    )


def bills(
    estimates: list[ModeEstimate],
    models: Sequence[tuple[str, Prices]],
    tokens: Tokens,
    plan: Plan = Plan(),
) -> list[RunBill]:
    """Per model, a bill per mode, then their total where there are several modes."""
    rows = []
    for model, prices in models:
        total = _Priced()
        for e in estimates:
            priced = _priced(e, model, plan, tokens)
            rows.append(_bill(model, e.mode, priced, prices))
            total.merge(priced)
        if len(estimates) > 1:
            rows.append(_bill(model, "total", total, prices))
    return rows


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
    return "-" if cost is None else f"${cost:,.2f}"


WIDTH = 120
"""Every line of the terminal output fits a 120-column terminal: prose wraps, tables are split."""
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


def bill_lines(
    estimates: list[ModeEstimate],
    models: Sequence[tuple[str, Prices]],
    tokens: Tokens,
    tokenizer: str,
    plan: Plan,
    ids: Sequence[str],
) -> list[str]:
    """The bill's tables in `attunebench estimate`'s terminal output."""
    judged = "with a judge" if estimates and estimates[0].judge else "without a judge"
    run_bills = bills(estimates, models, tokens, plan)
    sent = f"{judged}; schedule {plan.schedule}, answer format {plan.answer_format}"
    return [
        *price_lines(models),
        "",
        *_per_conversation_lines(estimates, judged),
        "",
        *_usage_lines(run_bills, sent),
        "",
        *_cost_lines(run_bills, sent),
        "",
        "Context windows (input tokens of the largest call):",
        *context_lines(context_checks(estimates, [m for m, _ in models], ids)),
        *(["", *scaled] if (scaled := deposit_lines(run_bills, len(ids))) else []),
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
