"""Which input no two calls share (`attunebench estimate --breakdown`).

Each call's input splits into the prefix it shares with an earlier call of the same conversation
(messages only, as vLLM, sglang and llama-server read a prompt; `tokens.py`'s rule) and the rest;
the rest is attributed to the kind of content it is. The kinds are found by matching each message
against the prompt templates of `solve/prompts.py`, so they follow the prompts without a copy.
Token counts are exact sums: a span's tokens are those of the text up to its end less those of
the text up to its start, so the kinds of a call add up to its input.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from dataclasses import dataclass, field

from ..solve import prompts
from ..solve.modes import Mode
from ..solve.record import CallType
from .bill import percent, table
from .capture import Request
from .tokens import (
    MESSAGE_TOKENS,
    REPLY_TOKENS,
    TextCounts,
    TokenCount,
    longest_earlier_prefix,
    segments,
)

SHARED = "shared prefix (with an earlier call)"
SCHEMA = "response schema"
FORMAT = "chat format (per message and request)"
DRAFT_SYSTEM = "system text, drafts"
ANALYSIS_SYSTEM = "system text, analysis calls"
TRANSCRIPT = "transcript"
OM_REPLY = "OM reply quoted (emotion, binary HP)"
OBSERVER = "binary questions, observer phrasing"
HP_FACING = "binary questions, HP-facing phrasing"
CANDIDATES = "pairwise candidate replies"
COMPARISONS = "pairwise comparisons"
SHAPE = "answer shape written in the prompt"
TASK = "task instructions (emotion, binary HP, pairwise)"
POST = "post questionnaire"
JUDGE = "judge material"
KINDS = (
    SHARED,
    SCHEMA,
    FORMAT,
    DRAFT_SYSTEM,
    ANALYSIS_SYSTEM,
    TRANSCRIPT,
    OM_REPLY,
    OBSERVER,
    HP_FACING,
    CANDIDATES,
    COMPARISONS,
    SHAPE,
    TASK,
    POST,
    JUDGE,
)
"""In the order of the table; every kind but the first is input no earlier call shares."""


def _template(template: str) -> re.Pattern[str]:
    """A prompt template as a pattern: its literal text, each field a named group."""
    parts = []
    named: set[str] = set()
    for literal, name, _, _ in string.Formatter().parse(template):
        parts.append(re.escape(literal))
        if name:
            parts.append(f"(?P={name})" if name in named else f"(?P<{name}>.*?)")
            named.add(name)
    return re.compile("".join(parts), re.DOTALL)


_TASKS: dict[CallType, tuple[re.Pattern[str], dict[str, str]]] = {
    "emotion": (
        _template(prompts.EMOTION_TASK),
        {"questions": OBSERVER, "shape": SHAPE},
    ),
    "binary_hp": (
        _template(prompts.BINARY_HP_TASK),
        {"questions": HP_FACING, "shape": SHAPE},
    ),
    "pairwise": (
        _template(prompts.PAIRWISE_TASK),
        {"responses": CANDIDATES, "comparisons": COMPARISONS, "shape": SHAPE},
    ),
}
"""The analysis calls whose task message has parts of different kinds; the rest is TASK."""

Span = tuple[int, str]
"""(end offset, kind): consecutive spans of a message's text, the first from offset 0."""


def _task_spans(call: CallType, text: str) -> list[Span]:
    pattern, kinds = _TASKS[call]
    match = pattern.fullmatch(text)
    if match is None:  # not the template (a repair message): all instructions
        return [(len(text), TASK)]
    spans: list[Span] = []
    for name, kind in kinds.items():
        start, end = match.span(name)
        spans += [(start, TASK), (end, kind)]
    return [*spans, (len(text), TASK)]


def message_spans(call: CallType, index: int, role: str, text: str) -> list[Span]:
    """The content kinds of message `index` of a call."""
    if call == "judge":
        return [(len(text), JUDGE)]
    if role == "system":
        return [(len(text), DRAFT_SYSTEM if call == "draft" else ANALYSIS_SYSTEM)]
    # A draft's messages are the conversation itself; an analysis call's first user message is
    # the transcript, its second the task.
    if call == "draft" or index == 1:
        return [(len(text), TRANSCRIPT)]
    if call == "post":
        return [(len(text), POST)]
    if call in _TASKS:
        return _task_spans(call, text)
    return [(len(text), TASK)]


def call_breakdown(request: Request, best: tuple[int, int], counts: TextCounts) -> Counter[str]:
    """One call's input tokens by kind, given its longest prefix shared with an earlier call
    (whole messages, characters of the next: -1 where not even its role is shared)."""
    whole, chars = best
    prompt = segments(request, schema=False)
    tokens: Counter[str] = Counter()
    tokens[SHARED] = counts.prefix(prompt, whole, chars)
    tokens[SCHEMA] = counts(request.schema) if request.schema is not None else 0
    tokens[FORMAT] = REPLY_TOKENS
    for index in range(whole, len(prompt)):
        role, text = prompt[index]
        start = chars if index == whole and chars >= 0 else 0
        if not (index == whole and chars >= 0):
            tokens[FORMAT] += MESSAGE_TOKENS  # in the shared prefix where its role is
        before = counts(text[:start])
        for end, kind in message_spans(request.call, index, role, text):
            if end <= start:
                continue
            upto = counts(text[:end])
            tokens[kind] += upto - before
            start, before = end, upto
    return tokens


def conversation_breakdown(
    requests: list[Request], counts: TextCounts
) -> tuple[Counter[str], dict[CallType, Counter[str]]]:
    """Tokens by kind of one conversation: in all, and per call type."""
    prompts_ = [segments(r, schema=False) for r in requests]
    total: Counter[str] = Counter()
    by_call: dict[CallType, Counter[str]] = {}
    for request, best in zip(requests, longest_earlier_prefix(prompts_), strict=True):
        tokens = call_breakdown(request, best, counts)
        total.update(tokens)
        by_call.setdefault(request.call, Counter()).update(tokens)
    return total, by_call


@dataclass
class Breakdown:
    mode: Mode
    judge: bool
    conversations: int = 0
    total: Counter[str] = field(default_factory=Counter)
    by_call: dict[CallType, Counter[str]] = field(default_factory=dict)

    @property
    def input(self) -> int:
        return sum(self.total.values())

    def per_conversation(self, kind: str) -> float:
        return self.total[kind] / self.conversations if self.conversations else 0.0

    def share(self, kind: str) -> float:
        return self.total[kind] / self.input if self.input else 0.0


def mode_breakdown(
    mode: Mode, judge: bool, conversations: list[list[Request]], count: TokenCount
) -> Breakdown:
    """One mode's input by kind, from the requests `captured` built for it."""
    result = Breakdown(mode, judge)
    for requests in conversations:
        texts = {text for r in requests for _, text in segments(r, schema=True)}
        total, by_call = conversation_breakdown(requests, TextCounts(count, texts))
        result.conversations += 1
        result.total.update(total)
        for call, tokens in by_call.items():
            result.by_call.setdefault(call, Counter()).update(tokens)
    return result


PREFIX_RULE = (
    "messages only: a prefix shared with an earlier call of the same conversation, the response "
    "schema left out (as vLLM, sglang and llama-server read a prompt)"
)


def breakdown_document(results: list[Breakdown]) -> dict[str, object]:
    """The `breakdown` part of `attunebench estimate --format json`."""
    return {
        "breakdown_prefix_rule": PREFIX_RULE,
        "breakdown": [
            {
                "mode": b.mode,
                "judge": b.judge,
                "conversations": b.conversations,
                "input_tokens_per_conversation": b.input / b.conversations
                if b.conversations
                else 0.0,
                "kinds": {
                    kind: {
                        "tokens_per_conversation": b.per_conversation(kind),
                        "share": b.share(kind),
                    }
                    for kind in KINDS
                },
                "by_call": {
                    call: {kind: tokens[kind] for kind in KINDS if tokens[kind]}
                    for call, tokens in b.by_call.items()
                },
            }
            for b in results
        ],
    }


def breakdown_lines(results: list[Breakdown], tokenizer: str) -> list[str]:
    """The breakdown's tables in `attunebench estimate --breakdown`'s terminal output."""
    lines = []
    for b in results:
        judged = "with a judge" if b.judge else "without a judge"
        rows = [
            [kind, f"{b.per_conversation(kind):,.0f}", percent(b.share(kind))] for kind in KINDS
        ]
        rows.append(["input", f"{b.input / max(b.conversations, 1):,.0f}", percent(1.0)])
        lines += [
            f"{b.mode} ({judged}), {b.conversations} conversations, {tokenizer}: input by content",
            *table(["content", "tokens / conversation", "share"], rows, text_columns=1),
            "",
        ]
    lines.append(
        f"- Shared prefix: {PREFIX_RULE}. Every other row is input no earlier call shares."
    )
    return lines
