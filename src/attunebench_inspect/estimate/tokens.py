"""Tokens of each request: input, the cacheable prefix, and the estimated output.

Text is counted with OpenAI's o200k_base or cl100k_base encoding (toktok, whose vocabularies are
compiled in: no download, and counts identical to tiktoken's), or, without it, at a calibrated
number of characters per token. A prompt is the response schema (first, where OpenAI documents
placing it), then each message with OpenAI's chat-format overhead.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..solve.record import CallType
from .capture import Request

TokenCount = Callable[[list[str]], list[int]]
"""Token counts of texts, in their order."""

ENCODINGS = ("o200k_base", "cl100k_base")
CHARS = "chars"
TOKENIZERS = (*ENCODINGS, CHARS)
CHARS_PER_TOKEN = 4.20
CHARS_PER_TOKEN_JSON = 2.84
"""Without a tokenizer: characters per o200k_base token of prose and of JSON (response schemas
and structured answers), measured on every request of the bundled set in all four modes with a
judge (docs/cost-and-scale.md has the error)."""
MESSAGE_TOKENS = 3
"""Role and delimiters of each message, as OpenAI counts its chat format."""
REPLY_TOKENS = 3
"""What primes the reply, once per request."""
FREE_TEXT_TOKENS = 60
"""Allowance per free-text field a real model writes (verbose reasoning, the judge's reasoning):
two or three sentences."""
_SCHEMA = "schema"


class TokenizerMissing(RuntimeError):
    pass


def _by_characters(texts: list[str]) -> list[int]:
    # The JSON texts (schemas, structured answers) are objects; a rare message that starts with
    # a brace is only counted at the JSON rate.
    return [
        round(len(text) / (CHARS_PER_TOKEN_JSON if text.startswith("{") else CHARS_PER_TOKEN))
        for text in texts
    ]


def counter(name: str) -> TokenCount:
    """Token counts of many texts at once, by encoding name or `chars`."""
    if name == CHARS:
        return _by_characters
    try:
        # Imported by name: toktok is an optional dependency and ships no type information.
        toktok = importlib.import_module("toktok")
    except ImportError:
        raise TokenizerMissing(
            f"counting with {name} needs toktok: pip install 'attunebench-inspect[estimate]', "
            f"or use --tokenizer {CHARS}"
        ) from None
    return lambda texts: [int(n) for n in toktok.batch_count(texts, name)]


def default_tokenizer() -> str:
    """o200k_base (OpenAI's current encoding) where toktok is installed, else characters."""
    return ENCODINGS[0] if importlib.util.find_spec("toktok") else CHARS


Segment = tuple[str, str]
"""(kind, text): the schema, or a message's role and its text."""


def segments(request: Request, *, schema: bool) -> tuple[Segment, ...]:
    head: tuple[Segment, ...] = (
        ((_SCHEMA, request.schema),) if schema and request.schema is not None else ()
    )
    return head + request.messages


def common_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix of two strings."""
    # Binary search on slice equality: string comparison runs in C, a character loop does not.
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def shared_prefix(a: Sequence[Segment], b: Sequence[Segment]) -> tuple[int, int]:
    """How much of `a` is a prefix of `b`: whole segments, then characters of the next segment
    of `a` (-1 where nothing of it is shared, not even its role). A schema is shared whole or
    not at all: how a provider renders it is not known, only that it comes first."""
    whole = 0
    for (kind_a, text_a), (kind_b, text_b) in zip(a, b, strict=False):
        if text_a == text_b and kind_a == kind_b:
            whole += 1
        elif kind_a == kind_b != _SCHEMA:
            return whole, common_prefix(text_a, text_b)
        else:
            return whole, -1
    return whole, -1


@dataclass(frozen=True)
class CallTokens:
    call: CallType
    input: int
    schema: int
    """Of the input, the response schema: none of it where a server enforces the schema with
    a grammar instead of reading it (vLLM, sglang, llama-server)."""
    cacheable: int
    """Input in a prefix (schema first) shared with an earlier call of the conversation."""
    cacheable_messages: int
    """The same with the schema left out of the prompt."""
    output: int


class TextCounts:
    """Token counts of one conversation's texts, each distinct text counted once."""

    def __init__(self, count: TokenCount, texts: set[str]) -> None:
        self._count = count
        distinct = sorted(texts)
        self._known = dict(zip(distinct, count(distinct), strict=True))

    def __call__(self, text: str) -> int:
        if text not in self._known:
            self._known[text] = self._count([text])[0]
        return self._known[text]

    def segment(self, segment: Segment, chars: int | None = None) -> int:
        kind, text = segment
        overhead = 0 if kind == _SCHEMA else MESSAGE_TOKENS
        return overhead + self(text if chars is None else text[:chars])

    def prefix(self, prompt: Sequence[Segment], whole: int, chars: int) -> int:
        tokens = sum(self.segment(s) for s in prompt[:whole])
        if chars >= 0 and whole < len(prompt):
            tokens += self.segment(prompt[whole], chars)
        return tokens


def longest_earlier_prefix(prompts: Sequence[Sequence[Segment]]) -> list[tuple[int, int]]:
    """For each prompt, its longest prefix shared with an earlier one, as `shared_prefix` gives
    it (whole segments, characters of the next)."""
    # Every candidate is a prefix of the same prompt, so the longest is the one to count.
    return [
        max((shared_prefix(prompt, earlier) for earlier in prompts[:i]), default=(0, -1))
        for i, prompt in enumerate(prompts)
    ]


def _cacheable(prompts: list[tuple[Segment, ...]], counts: TextCounts) -> list[int]:
    return [
        counts.prefix(prompt, *best)
        for prompt, best in zip(prompts, longest_earlier_prefix(prompts), strict=True)
    ]


def conversation_tokens(requests: list[Request], count: TokenCount) -> list[CallTokens]:
    """Tokens of each request of one conversation, in the order they were made."""
    texts = {text for r in requests for _, text in segments(r, schema=True)}
    texts |= {r.answer for r in requests}
    counts = TextCounts(count, texts)
    prompts = [segments(r, schema=True) for r in requests]
    cacheable = _cacheable(prompts, counts)
    cacheable_messages = _cacheable([segments(r, schema=False) for r in requests], counts)
    return [
        CallTokens(
            call=r.call,
            input=sum(counts.segment(s) for s in prompt) + REPLY_TOKENS,
            schema=counts(r.schema) if r.schema is not None else 0,
            cacheable=shared,
            cacheable_messages=shared_messages,
            output=counts(r.answer) + FREE_TEXT_TOKENS * r.free_text,
        )
        for r, prompt, shared, shared_messages in zip(
            requests, prompts, cacheable, cacheable_messages, strict=True
        )
    ]
