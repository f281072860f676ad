"""Per mode, the calls and tokens of a run; per model, its bill without cache, with the
provider's prompt cache, under its batch API, and at the structural limit (`_bill_text.py` says
it to a reader)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import astuple, dataclass, field, fields, replace
from pathlib import Path

from ..._util.bundled import bundled_conversations_dir
from ...data._codebook import Codebook
from ...data._load import load_conversations, load_sample
from ...data._problems import InputError
from ...data._split import VisibleConversation, split
from ...solve._provider_rules import AnswerFormat, schema_in_cache_key
from ...solve._schedule import Schedule
from ._cache.rules import SHARED, CacheRules, CacheUse, Tokens, rules_for
from ._capture import Request
from ._tokens import Through, output_tokens, through_cache, uses

PER = 1_000_000
"""Prices are in US dollars per million tokens."""


@dataclass
class Totals:
    calls: int = 0
    input: int = 0
    cache_read: int = 0
    cache_written: int = 0
    output: int = 0

    def merge(self, other: Totals) -> None:
        for count in fields(self):
            setattr(self, count.name, getattr(self, count.name) + getattr(other, count.name))

    def scaled(self, factor: float) -> Totals:
        """As if there were `factor` times as many conversations like these."""
        if factor == 1.0:
            return self
        return Totals(*(round(factor * count) for count in astuple(self)))

    @property
    def uncached(self) -> int:
        return self.input - self.cache_read - self.cache_written


def _totals(requests: Sequence[Request], used: Sequence[CacheUse], tokens: Tokens) -> Totals:
    totals = Totals()
    for request, use in zip(requests, used, strict=True):
        totals.merge(Totals(1, use.prompt, use.read, use.written, output_tokens(request, tokens)))
    return totals


@dataclass
class ModeEstimate:
    """A mode's requests (or another task's) and what a perfect cache could serve of them."""

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
    scale: float = 1.0
    """Conversations of the data set per conversation priced: the bill scales by it, means not."""

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
        # Millions of tokens times dollars per million: no product of a count and a price past
        # the largest float where the bill itself is one (`_finite`).
        return (
            totals.uncached / PER * self.input
            + totals.cache_read / PER * read
            + totals.cache_written / PER * write
            + totals.output / PER * self.output
        )


PRICED_WHOLE = 200
"""A data set of up to this many conversations (the deposit's) is priced whole."""
SAMPLE = 100
"""A larger one is priced on a seeded sample of this many, its bill scaled to all of them: the
solver's walk of a conversation takes a fifth of a second, so 10,000 would take half an hour."""
MAX_TURNS = 100
"""The longest conversation priced: the estimate builds every call offline, and every call shows
the conversation so far, so the work grows with the square of its turns (1,000 turns took 5
minutes and 7 GB here); the published conversations are far shorter."""


@dataclass(frozen=True)
class Priced:
    """The conversations the estimate walks, and how many the data set has."""

    conversations: list[VisibleConversation]
    total: int

    @property
    def scale(self) -> float:
        """Conversations of the data set per conversation priced (1 where it is priced whole)."""
        return self.total / len(self.conversations) if self.conversations else 1.0


def priced_conversations(
    data: str | Path | None,
    codebook: Codebook,
    hint: str | None = None,
    progress: Callable[[str], None] | None = None,
) -> Priced:
    """What the solver sees of each conversation priced: every one of a data set of up to
    `PRICED_WHOLE`, else a seeded sample of `SAMPLE`, read in one pass that holds at most
    `PRICED_WHOLE` conversations (a JSONL file line by line)."""
    source = Path(data) if data is not None else bundled_conversations_dir()

    def said(count: int) -> None:
        if progress is not None:
            progress(f"{count:,} conversations read")

    total, loaded = load_sample(source, codebook, PRICED_WHOLE, hint=hint, progress=said)
    chosen = loaded.conversations
    for c in chosen:
        if len(c.conversation.turns) > MAX_TURNS:
            raise InputError(
                f"{c.source}: conversation {c.conversation.conversationId}: "
                f"{len(c.conversation.turns)} turns; the estimate prices conversations of at most "
                f"{MAX_TURNS} (it builds every call, and each shows the conversation so far)"
            )
    if total > PRICED_WHOLE:
        # A uniform sample of a uniform sample is uniform; kept in data order.
        picked = set(random.Random(0).sample(range(len(chosen)), SAMPLE))
        chosen = [c for i, c in enumerate(chosen) if i in picked]
        if progress is not None:
            progress(
                f"{total:,} conversations: pricing a seeded sample of {SAMPLE}, the bill scaled "
                f"to all {total:,}"
            )
    return Priced([split(c.conversation)[0] for c in chosen], total)


def visible_conversations(
    data: str | Path | None, codebook: Codebook, hint: str | None = None
) -> list[VisibleConversation]:
    """What the solver sees of each conversation of `data` (default: the bundled set); `hint`
    for a data set with problems, as `load_conversations` takes it."""
    source = Path(data) if data is not None else bundled_conversations_dir()
    loaded = load_conversations(source, codebook, hint=hint).conversations
    return [split(c.conversation)[0] for c in loaded]


STRUCTURAL = Through(SHARED, "prefix_first", schema=False)
"""Every prefix shared with a call sent before, read whole: what any cache could serve of the
requests as laid out (no minimum length, no steps, no schema in the prompt)."""


def mode_estimate(
    mode: str, judge: bool, conversations: list[list[Request]], tokens: Tokens
) -> ModeEstimate:
    """The calls and tokens of one mode (as OpenAI renders them), and a perfect cache's share."""
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
        return estimate.through(Through(rules, schedule, schema), tokens).scaled(estimate.scale)

    conversations = round(estimate.conversations * estimate.scale)
    floor = total(replace(SHARED, dialect=rules.dialect if rules else "openai"), "prefix_first")
    if rules is None:
        return _Priced(conversations, replace(floor, cache_read=0), None, floor)
    return _Priced(conversations, total(rules, plan.schedule), total(rules, "all_at_once"), floor)


def _bill(model: str, mode: str, priced: _Priced, prices: Prices) -> RunBill:
    rules = rules_for(model)
    cache = priced.cache
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
        cost_usd=prices.cost(replace(cache, cache_read=0, cache_written=0), rules),
        cost_usd_cache=prices.cost(cache, rules),
        cost_usd_batch=rules.batch_price * prices.cost(priced.batch, rules)
        if rules and priced.batch
        else None,
        cost_usd_floor=prices.cost(replace(priced.floor, cache_written=0), rules)
        if rules
        else None,
    )


def _finite(bill: RunBill, prices: Prices) -> RunBill:
    """The bill, or an `InputError` where prices each finite make one that is not (1e308 per
    million tokens): a bill past the largest float is no amount, and JSON has no infinity."""
    costs = (bill.cost_usd, bill.cost_usd_cache, bill.cost_usd_batch, bill.cost_usd_floor)
    if all(c is None or math.isfinite(c) for c in costs):
        return bill
    given = f"--price-in {prices.input:g}, --price-out {prices.output:g}" + (
        f", --price-cached-in {prices.cached_input:g}" if prices.cached_input is not None else ""
    )
    where = "over every mode" if bill.mode == "total" else f"in {bill.mode} mode"
    raise InputError(
        f"{bill.model} ({given}): its bill {where} is not a finite number of US dollars; "
        "expected prices whose bill a number can hold"
    )


def bills(
    estimates: list[ModeEstimate],
    models: Sequence[tuple[str, Prices]],
    tokens: Tokens,
    plan: Plan = Plan(),
) -> list[RunBill]:
    """Per model, a bill per mode, then their total; an `InputError` for a bill not finite."""
    rows = []
    for model, prices in models:
        total = _Priced()
        for e in estimates:
            priced = _priced(e, model, plan, tokens)
            rows.append(_finite(_bill(model, e.mode, priced, prices), prices))
            total.merge(priced)
        if len(estimates) > 1:
            rows.append(_finite(_bill(model, "total", total, prices), prices))
    return rows
