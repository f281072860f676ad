"""Per mode, the calls and tokens of a run; per model, its bill; as a terminal table or JSON."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .._bundled import bundled_conversations_dir
from ..data.codebook import Codebook
from ..data.load import load_conversations
from ..data.split import VisibleConversation, split
from ..solve.modes import Mode, mode_spec
from .capture import Request, capture
from .tokens import FREE_TEXT_TOKENS, CallTokens, TokenCount, conversation_tokens

PER = 1_000_000
"""Prices are in US dollars per million tokens."""


@dataclass
class Totals:
    calls: int = 0
    input: int = 0
    schema: int = 0
    cacheable: int = 0
    cacheable_messages: int = 0
    output: int = 0

    @classmethod
    def of(cls, tokens: CallTokens) -> Totals:
        return cls(
            1,
            tokens.input,
            tokens.schema,
            tokens.cacheable,
            tokens.cacheable_messages,
            tokens.output,
        )

    def merge(self, other: Totals) -> None:
        self.calls += other.calls
        self.input += other.input
        self.schema += other.schema
        self.cacheable += other.cacheable
        self.cacheable_messages += other.cacheable_messages
        self.output += other.output

    @property
    def cacheable_share(self) -> float:
        return self.cacheable / self.input if self.input else 0.0

    @property
    def cacheable_share_messages_only(self) -> float:
        """Of the input without the schema, as a server that enforces it by grammar reads it."""
        messages = self.input - self.schema
        return self.cacheable_messages / messages if messages else 0.0


@dataclass
class ModeEstimate:
    mode: Mode
    judge: bool
    total: Totals = field(default_factory=Totals)
    by_call: dict[str, Totals] = field(default_factory=dict)
    per_conversation: list[Totals] = field(default_factory=list)

    @property
    def conversations(self) -> int:
        return len(self.per_conversation)


@dataclass(frozen=True)
class Prices:
    """US dollars per million tokens."""

    input: float
    output: float
    cached_input: float | None = None

    def cost(self, totals: Totals) -> float:
        return (totals.input * self.input + totals.output * self.output) / PER

    def cost_cached(self, totals: Totals) -> float | None:
        """With every cacheable prefix read from the cache: the bill's lower bound."""
        if self.cached_input is None:
            return None
        uncached = totals.input - totals.cacheable
        return (
            uncached * self.input
            + totals.cacheable * self.cached_input
            + totals.output * self.output
        ) / PER


def visible_conversations(data: str | Path | None, codebook: Codebook) -> list[VisibleConversation]:
    """What the solver sees of each conversation of `data` (default: the bundled set)."""
    source = Path(data) if data is not None else bundled_conversations_dir()
    return [split(c.conversation)[0] for c in load_conversations(source, codebook).conversations]


def captured(
    data: str | None, codebook: Codebook, modes: Sequence[Mode], judge: bool
) -> Iterator[tuple[Mode, list[list[Request]]]]:
    """Per mode, the requests of every conversation of `data`, built offline by the solver's walk
    (the conversations are loaded once)."""
    conversations = visible_conversations(data, codebook)
    for mode in modes:
        yield mode, capture(conversations, codebook, mode_spec(mode), judge)


def mode_estimate(
    mode: Mode, judge: bool, conversations: list[list[Request]], count: TokenCount
) -> ModeEstimate:
    """The calls and tokens of one mode, from the requests `captured` built for it."""
    estimate = ModeEstimate(mode, judge)
    for requests in conversations:
        conversation = Totals()
        for tokens in conversation_tokens(requests, count):
            call = Totals.of(tokens)
            conversation.merge(call)
            estimate.total.merge(call)
            estimate.by_call.setdefault(tokens.call, Totals()).merge(call)
        estimate.per_conversation.append(conversation)
    return estimate


@dataclass(frozen=True)
class RunBill:
    """One model in one mode (or `total`, over the modes)."""

    model: str
    mode: str
    conversations: int
    calls: int
    input_tokens: int
    cacheable_share: float
    cacheable_share_messages_only: float
    output_tokens: int
    cost_usd: float
    cost_usd_cache_hits: float | None


def _bill(model: str, mode: str, conversations: int, totals: Totals, prices: Prices) -> RunBill:
    return RunBill(
        model=model,
        mode=mode,
        conversations=conversations,
        calls=totals.calls,
        input_tokens=totals.input,
        cacheable_share=totals.cacheable_share,
        cacheable_share_messages_only=totals.cacheable_share_messages_only,
        output_tokens=totals.output,
        cost_usd=prices.cost(totals),
        cost_usd_cache_hits=prices.cost_cached(totals),
    )


def bills(estimates: list[ModeEstimate], models: Sequence[tuple[str, Prices]]) -> list[RunBill]:
    """Per model, a bill per mode, then their total where there are several modes."""
    rows = []
    for model, prices in models:
        total = Totals()
        for e in estimates:
            rows.append(_bill(model, e.mode, e.conversations, e.total, prices))
            total.merge(e.total)
        if len(estimates) > 1:
            conversations = sum(e.conversations for e in estimates)
            rows.append(_bill(model, "total", conversations, total, prices))
    return rows


def assumptions(tokenizer: str) -> list[str]:
    return [
        f"Input tokens: every request built offline by the solver, counted with {tokenizer}, "
        "with OpenAI's per-message overhead and the response schema; other providers' "
        "tokenizers count differently. Repair rounds (after an unreadable answer) are not "
        "included.",
        "Output tokens are estimated: a draft as long as the original reply to the same "
        f"message; a structured answer as its shortest valid JSON plus {FREE_TEXT_TOKENS} tokens "
        "per reasoning field. Reasoning models' hidden reasoning tokens are not included.",
        "Cacheable: input in a prefix shared with an earlier call of the same conversation, "
        "the response schema first (as OpenAI places it, so only calls with the same schema "
        "share); 'messages only' is the same share of a prompt without the schema, as vLLM, sglang "
        "and llama-server read it (they enforce the schema with a grammar).",
        "Cost without cache is the bill's upper bound; with cache hits, every cacheable prefix "
        "is read from the cache, its lower bound (concurrent calls, minimum cacheable lengths "
        "and cache writes make real hits fewer or dearer).",
    ]


def bill_document(
    estimates: list[ModeEstimate], models: Sequence[tuple[str, Prices]], tokenizer: str
) -> dict[str, object]:
    """The bill part of `attunebench estimate --format json`."""
    return {
        "assumptions": assumptions(tokenizer),
        "prices_usd_per_million_tokens": {model: asdict(p) for model, p in models},
        "runs": [asdict(b) for b in bills(estimates, models)],
        "modes": [
            {
                "mode": e.mode,
                "judge": e.judge,
                "conversations": e.conversations,
                "total": asdict(e.total),
                "by_call": {call: asdict(t) for call, t in e.by_call.items()},
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


def bill_lines(
    estimates: list[ModeEstimate], models: Sequence[tuple[str, Prices]], tokenizer: str
) -> list[str]:
    """The bill's tables in `attunebench estimate`'s terminal output."""
    judged = "with a judge" if estimates and estimates[0].judge else "without a judge"
    per_conversation = [
        [
            e.mode,
            f"{e.total.calls / e.conversations:.1f}",
            f"{e.total.input / e.conversations:,.0f}",
            f"{max(t.input for t in e.per_conversation):,}",
            f"{e.total.output / e.conversations:,.0f}",
        ]
        for e in estimates
        if e.conversations
    ]
    runs = [
        [
            b.model,
            b.mode,
            str(b.conversations),
            f"{b.calls:,}",
            f"{b.input_tokens:,}",
            percent(b.cacheable_share),
            percent(b.cacheable_share_messages_only),
            f"{b.output_tokens:,}",
            f"${b.cost_usd:,.2f}",
            "-" if b.cost_usd_cache_hits is None else f"${b.cost_usd_cache_hits:,.2f}",
        ]
        for b in bills(estimates, models)
    ]
    lines = [
        f"Per conversation ({judged}): means, and the largest input",
        *table(
            ["mode", "calls", "input tokens", "max input", "output tokens (est.)"],
            per_conversation,
            text_columns=1,
        ),
        "",
        f"Runs ({judged})",
        *table(
            [
                "model",
                "mode",
                "conversations",
                "calls",
                "input tokens",
                "cacheable",
                "messages only",
                "output tokens (est.)",
                "cost",
                "cost, cache hits",
            ],
            runs,
            text_columns=2,
        ),
        "",
        *(f"- {line}" for line in assumptions(tokenizer)),
    ]
    return lines
