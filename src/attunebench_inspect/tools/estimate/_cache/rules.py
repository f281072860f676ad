"""The providers' prompt caches as their documentation describes them, as code: what a request
reads from the cache, what it writes, and when a write becomes readable (the rules in words, with
their sources: docs/cost-and-scale.md, 'How each number is made'). An entry is readable once the
request that wrote it has finished: the providers say "once the first response begins", and a
request's answer is what our endpoints send first."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from .prompt import Dialect, Prompt

Kind = Literal["prefix", "breakpoints"]


@dataclass(frozen=True)
class CacheRules:
    name: str
    dialect: Dialect
    kind: Kind
    min_tokens: int
    step: int = 1
    """Prefix caches: cached tokens come in multiples of this."""
    max_breakpoints: int = 4
    lookback: int | None = 20
    """Breakpoint caches: blocks before a breakpoint also checked for an entry (None: all)."""
    read_price: float = 0.1
    """Price of a cached input token, as a multiple of the input price."""
    write_price: float = 1.0
    """Price of an input token written to the cache, as a multiple of the input price."""
    breakpoints: bool = False
    """Whether Inspect sends the provider our breakpoints."""
    batch_price: float = 0.5
    """Everything under the provider's batch API, as a multiple of the price (both document 50%)."""


OPENAI = CacheRules(
    "openai", "openai", "prefix", min_tokens=1024, step=128, read_price=0.5, breakpoints=False
)
OPENAI_EXPLICIT = CacheRules(
    "openai-explicit",
    "openai",
    "breakpoints",
    min_tokens=1024,
    lookback=None,
    read_price=0.1,
    write_price=1.25,
    breakpoints=True,
)
ANTHROPIC = CacheRules(
    "anthropic", "anthropic", "breakpoints", min_tokens=1024, write_price=1.25, breakpoints=True
)
SHARED = CacheRules("shared", "openai", "prefix", min_tokens=0)
"""No provider: every prefix shared with an earlier call, whole, as a perfect cache would read
it (the structural limit, and what a local server's prefix cache can reuse)."""

_ANTHROPIC_MINIMUM = (
    ("opus-5", 512),
    ("fable-5", 512),
    ("mythos-5", 512),
    ("haiku-4-5", 4096),
    ("opus-4-5", 4096),
    ("opus-4-6", 4096),
    ("opus-4-7", 2048),
    ("haiku-3", 2048),
    ("3-haiku", 2048),
    ("3-5-haiku", 2048),
)
"""Minimum cacheable prompt length by Claude model, where it is not 1,024 (Anthropic's table)."""
_OPENAI_CACHED = (("gpt-5", 0.1), ("gpt-4.1", 0.25), ("o3", 0.25), ("o4", 0.25))
"""Cached input price by OpenAI model family, times the input price (gpt-4o and others: 0.5)."""


def _gpt_version(name: str) -> tuple[int, int] | None:
    if not name.startswith("gpt-"):
        return None
    head = name[4:].split("-")[0]
    major, _, minor = head.partition(".")
    return (
        (int(major), int(minor or 0)) if major.isdigit() and minor in ("", *"0123456789") else None
    )


def rules_for(model: str) -> CacheRules | None:
    """The cache rules of a model name; None for a local server or a provider not modelled."""
    provider, _, name = model.partition("/")
    name = name.rsplit("/", 1)[-1].lower()
    if provider == "anthropic":
        minimum = next((n for key, n in _ANTHROPIC_MINIMUM if key in name), 1024)
        return CacheRules(**{**ANTHROPIC.__dict__, "min_tokens": minimum})
    if provider == "openai":
        version = _gpt_version(name)
        if version is not None and version >= (5, 6):
            return OPENAI_EXPLICIT
        read = next((p for key, p in _OPENAI_CACHED if name.startswith(key)), OPENAI.read_price)
        return CacheRules(**{**OPENAI.__dict__, "read_price": read})
    return None


@dataclass(frozen=True)
class CacheUse:
    """A request's input tokens: read from the cache, written to it, and the rest."""

    prompt: int
    read: int = 0
    written: int = 0

    @property
    def uncached(self) -> int:
        return self.prompt - self.read - self.written


class Tokens:
    """Token counts of block texts, each text counted once."""

    def __init__(self, count: Callable[[list[str]], list[int]]) -> None:
        self._count = count
        self._known: dict[str, int] = {}

    def __call__(self, text: str) -> int:
        known = self._known.get(text)
        if known is None:
            known = self._known[text] = self._count([text])[0]
        return known

    def cumulative(self, prompt: Prompt) -> list[int]:
        """Tokens of the first k blocks, for k = 0..len(prompt)."""
        sums = [0]
        for block in prompt:
            sums.append(sums[-1] + self(block.text))
        return sums


def _hashes(prompt: Prompt) -> list[int]:
    """A hash of the first k blocks' texts, for k = 0..len(prompt)."""
    hashes = [0]
    for block in prompt:
        hashes.append(hash((hashes[-1], block.text)))
    return hashes


def common_prefix(a: str, b: str) -> int:
    # Binary search on slice equality: string comparison runs in C, a character loop does not.
    low, high = 0, min(len(a), len(b))
    while low < high:
        middle = (low + high + 1) // 2
        if a[:middle] == b[:middle]:
            low = middle
        else:
            high = middle - 1
    return low


class RejectedRequest(ValueError):
    """What the provider answers with an error (HTTP 400)."""


@dataclass
class Lookup:
    """A request's use of the cache, and what it writes once it finishes (`commit`)."""

    use: CacheUse
    commit: Callable[[], None] = field(repr=False)
    shared: tuple[int, int] = (0, 0)
    """Prefix caches: how much of the prompt a cached one shares, whole blocks and characters
    of the next, before the minimum and step are applied."""


class PromptCache:
    """One provider's cache over a run: `lookup`, then `commit`; safe on the loopback's threads."""

    def __init__(self, rules: CacheRules, tokens: Tokens) -> None:
        self.rules = rules
        self.tokens = tokens
        self._lock = threading.Lock()
        self._entries: set[int] = set()
        """Prefix caches: every whole-block prefix of a cached prompt; breakpoint caches: the
        prefixes written at a breakpoint."""
        self._next: dict[int, set[str]] = {}
        """Prefix caches: after a cached whole-block prefix, the texts of the blocks that
        followed it (a partial block can be shared too)."""

    def lookup(self, prompt: Prompt) -> Lookup:
        with self._lock:
            if self.rules.kind == "prefix":
                return self._prefix(prompt)
            return self._breakpoints(prompt)

    def _prefix(self, prompt: Prompt) -> Lookup:
        hashes, sums = _hashes(prompt), self.tokens.cumulative(prompt)
        whole = max((k for k, h in enumerate(hashes) if h in self._entries), default=-1)
        shared = chars = 0
        if whole >= 0:
            shared = sums[whole]
            if whole < len(prompt):
                text = prompt[whole].text
                chars = max(
                    (common_prefix(t, text) for t in self._next.get(hashes[whole], ())), default=0
                )
                shared += self.tokens(text[:chars]) if chars else 0
        rules = self.rules
        read = shared // rules.step * rules.step if shared >= rules.min_tokens else 0

        def commit() -> None:
            with self._lock:
                self._entries.update(hashes)
                for k, block in enumerate(prompt):
                    self._next.setdefault(hashes[k], set()).add(block.text)

        return Lookup(CacheUse(sums[-1], read=min(read, sums[-1])), commit, (max(whole, 0), chars))

    def _breakpoints(self, prompt: Prompt) -> Lookup:
        rules = self.rules
        marks = [k for k, block in enumerate(prompt, start=1) if block.mark]
        if len(marks) > rules.max_breakpoints:
            raise RejectedRequest(
                f"A maximum of {rules.max_breakpoints} blocks with cache_control may be "
                f"provided. Found {len(marks)}."
            )
        hashes, sums = _hashes(prompt), self.tokens.cumulative(prompt)
        read = 0
        for mark in marks:
            floor = 1 if rules.lookback is None else max(1, mark - rules.lookback)
            found = next((k for k in range(mark, floor - 1, -1) if hashes[k] in self._entries), 0)
            read = max(read, found)
        writes = [m for m in marks if m > read and sums[m] >= rules.min_tokens]
        written = sums[max(writes)] - sums[read] if writes else 0

        def commit() -> None:
            with self._lock:
                self._entries.update(hashes[m] for m in writes)

        return Lookup(CacheUse(sums[-1], read=sums[read], written=written), commit)
