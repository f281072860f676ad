"""Which input no two calls share (`attunebench estimate --breakdown`; docs/cost-and-scale.md,
'Which input no two calls share'). The kinds of content are found by matching each call's own
text against the prompt templates of `solve/_prompts.py`, so they follow the prompts without a
copy; a span's tokens are those of the text up to its end less those up to its start, so the
kinds of a call add up to its input exactly."""

from __future__ import annotations

import re
import string
from collections import Counter
from dataclasses import dataclass, field

from ...solve import _prompts as prompts
from ...solve._call_record import CallType
from ...solve._modes import Mode
from ._bill import STRUCTURAL
from ._bill_text import percent, table, wrapped
from ._cache.prompt import ROLE_MARKER, Block
from ._cache.rules import Lookup, Tokens
from ._capture import Request
from ._tokens import prompt_of, through_cache

SHARED = "shared prefix (with an earlier call)"
SCHEMA = "response schema"
FORMAT = "chat format (a role marker per message)"
DRAFT_SYSTEM = "system text, drafts"
ANALYSIS_SYSTEM = "system text, analysis calls"
TRANSCRIPT = "transcript"
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
    "emotion": (_template(prompts.EMOTION_TASK), {"questions": OBSERVER, "shape": SHAPE}),
    "binary_hp": (_template(prompts.BINARY_HP_TASK), {"questions": HP_FACING, "shape": SHAPE}),
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
    """The content kinds of message `index` of a call (its text without the role marker)."""
    if role == "system":
        kinds = {"draft": DRAFT_SYSTEM, "judge": JUDGE}
        return [(len(text), kinds.get(call, ANALYSIS_SYSTEM))]
    # A draft's messages are the conversation itself; an analysis or judge call's first user
    # message is the conversation's blocks, its second the call's own text.
    if call == "draft" or index == 1:
        return [(len(text), TRANSCRIPT)]
    if index > 2:  # a repair round
        return [(len(text), TASK)]
    if call in _TASKS:
        return _task_spans(call, text)
    return [(len(text), {"judge": JUDGE, "post": POST}.get(call, TASK))]


def _block_spans(request: Request, block: Block, first: bool) -> list[Span]:
    """A block's content kinds: its role marker, where it opens a message, then its text's."""
    role = request.chat[block.message].role
    marker = len(ROLE_MARKER.format(role=role)) if first else 0
    spans = message_spans(request.call, block.message, role, block.text[marker:])
    return [(marker, FORMAT), *((end + marker, kind) for end, kind in spans)]


def call_breakdown(request: Request, lookup: Lookup, tokens: Tokens) -> Counter[str]:
    """One call's input tokens by kind, given what it shares with calls sent before it."""
    prompt = prompt_of(request, "openai", schema=False, breakpoints=False)
    whole, chars = lookup.shared
    counted: Counter[str] = Counter({SHARED: lookup.use.read})
    for index in range(whole, len(prompt)):
        block = prompt[index]
        first = index == 0 or prompt[index - 1].message != block.message
        start = chars if index == whole else 0
        before = tokens(block.text[:start])
        for end, kind in _block_spans(request, block, first):
            if end <= start:
                continue
            upto = tokens(block.text[:end])
            counted[kind] += upto - before
            start, before = end, upto
    return counted


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
    mode: Mode, judge: bool, conversations: list[list[Request]], tokens: Tokens
) -> Breakdown:
    """One mode's input by kind, from the requests `captured` built for it."""
    result = Breakdown(mode, judge)
    for requests, lookups in zip(
        conversations, through_cache(conversations, STRUCTURAL, tokens), strict=True
    ):
        result.conversations += 1
        for request, lookup in zip(requests, lookups, strict=True):
            counted = call_breakdown(request, lookup, tokens)
            result.total.update(counted)
            result.by_call.setdefault(request.call, Counter()).update(counted)
    return result


PREFIX_RULE = (
    "a prefix shared with a call of the same conversation sent before it (the schedule "
    "prefix_first), the response schema left out: what any prompt cache could serve"
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
    lines += wrapped(
        f"Shared prefix: {PREFIX_RULE}. Every other row is input no earlier call shares.", "- "
    )
    return lines
