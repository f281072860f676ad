"""The providers' documented prompt caches as code (tools/estimate/_cache/): hand-checked rules, the
request as the cache sees it from the wire and from the solver's messages, and the estimate
against the loopback endpoints on real runs through Inspect's own providers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.model import get_model
from loopback.endpoint import Endpoint, EndpointConfig

from attunebench_inspect import attunebench
from attunebench_inspect.data import Codebook, load_conversations, split
from attunebench_inspect.solve._modes import mode_spec
from attunebench_inspect.tools.estimate._cache.prompt import Block
from attunebench_inspect.tools.estimate._cache.rules import (
    ANTHROPIC,
    OPENAI,
    OPENAI_EXPLICIT,
    CacheRules,
    PromptCache,
    RejectedRequest,
    Tokens,
    rules_for,
)
from attunebench_inspect.tools.estimate._capture import capture
from attunebench_inspect.tools.estimate._tokens import Through, through_cache, uses

CHARS = Tokens(lambda texts: [len(t) for t in texts])
"""One token per character: every count below is worked out by hand."""


def _prefix(min_tokens: int, step: int) -> PromptCache:
    return PromptCache(replace(OPENAI, min_tokens=min_tokens, step=step), CHARS)


def test_prefix_cache_reads_the_longest_shared_prefix_in_steps_from_the_minimum() -> None:
    cache = _prefix(min_tokens=8, step=4)
    first = (Block("S" * 6), Block("abcdefgh"))
    assert cache.lookup(first).use.read == 0
    # Not readable until the request that wrote it is done.
    pending = cache.lookup(first)
    assert pending.use.read == 0
    pending.commit()
    # Shares 6 + 5 = 11 tokens: 8 in steps of 4 from the minimum.
    assert cache.lookup((Block("S" * 6), Block("abcdeXYZ"))).use.read == 8
    # The whole prompt: 14 tokens, read in steps of 4.
    assert cache.lookup(first).use.read == 12
    # Under the minimum, nothing.
    assert cache.lookup((Block("S" * 6), Block("aXXXXXXX"))).use.read == 0
    # A different first block shares nothing (a schema ahead of the messages does this).
    assert cache.lookup((Block("T" * 6), Block("abcdefgh"))).use.read == 0


def _breakpoints(min_tokens: int, lookback: int | None = 20) -> PromptCache:
    rules = replace(ANTHROPIC, min_tokens=min_tokens, lookback=lookback)
    return PromptCache(rules, CHARS)


def test_breakpoint_cache_writes_at_marks_and_reads_back_through_the_lookback() -> None:
    cache = _breakpoints(min_tokens=10)
    system = Block("S" * 4, mark=True)  # under the minimum: never written
    first = (system, Block("a" * 5), Block("b" * 5, mark=True), Block("task one"))
    use = cache.lookup(first)
    assert (use.use.read, use.use.written, use.use.uncached) == (0, 14, 8)
    use.commit()
    # The next turn marks two blocks further on: it reads the entry 2 blocks back, writes the rest.
    second = (system, Block("a" * 5), Block("b" * 5), Block("c" * 3), Block("d" * 3, mark=True))
    use = cache.lookup(second)
    assert (use.use.read, use.use.written, use.use.uncached) == (14, 6, 0)
    use.commit()
    # A call of the same turn reads it all.
    third = (*second, Block("task two"))
    assert cache.lookup(third).use.read == 20


@pytest.mark.parametrize(("lookback", "read"), [(2, 0), (None, 1)])
def test_breakpoint_cache_looks_back_so_far_and_takes_four_marks(
    lookback: int | None, read: int
) -> None:
    cache = _breakpoints(min_tokens=1, lookback=lookback)
    # An entry after the first block, then a request marking only its sixth: the entry is five
    # blocks back, past a lookback of 2 (Anthropic's is 20; OpenAI's from gpt-5.6 unlimited).
    cache.lookup(tuple(Block(str(i), mark=i == 0) for i in range(6))).commit()
    far = tuple(Block(str(i), mark=i == 5) for i in range(6))
    assert cache.lookup(far).use.read == read
    with pytest.raises(RejectedRequest, match="A maximum of 4 blocks with cache_control"):
        cache.lookup(tuple(Block(str(i), mark=True) for i in range(5)))


def test_rules_for_model_names() -> None:
    assert rules_for("anthropic/claude-sonnet-4-6") == ANTHROPIC
    assert rules_for("anthropic/claude-haiku-4-5") == replace(ANTHROPIC, min_tokens=4096)
    assert rules_for("anthropic/claude-3-5-haiku-latest") == replace(ANTHROPIC, min_tokens=2048)
    gpt4o = rules_for("openai/gpt-4o")
    assert isinstance(gpt4o, CacheRules) and (gpt4o.kind, gpt4o.read_price) == ("prefix", 0.5)
    assert rules_for("openai/gpt-5") == replace(OPENAI, read_price=0.1)
    assert rules_for("openai/gpt-5.6") == OPENAI_EXPLICIT
    assert rules_for("openai-api/vllm/qwen") is None
    assert rules_for("attunebench/random") is None


@pytest.mark.parametrize(
    ("model", "cache", "url"),
    [
        ("openai/gpt-4o", "openai", "base_url"),
        ("anthropic/claude-sonnet-4-6", "anthropic", "root_url"),
    ],
)
def test_the_estimate_counts_the_cache_a_real_run_is_served(
    model: str,
    cache: str,
    url: str,
    small_dataset: Callable[[int], Path],
    codebook: Codebook,
) -> None:
    """Through Inspect's own provider (streaming Anthropic's answers as it asks) against the
    endpoint following that provider's cache rules, at several connections: the estimate's
    offline model of the same conversations sees the same prompts, token for token, and its
    cached tokens are within 10% of those the endpoint counted (the issue's bound)."""
    data = small_dataset(2)
    with Endpoint(EndpointConfig(latency=0.02, cache=cache, max_seconds=120)) as endpoint:
        client = get_model(model, base_url=getattr(endpoint, url), api_key="x", memoize=False)
        log = eval(
            attunebench(data=str(data)),
            model=client,
            max_connections=8,
            display="none",
            log_dir=str(data.parent / "logs"),
        )[0]
    assert log.status == "success" and log.results is not None
    counted = endpoint.records
    conversations = [
        split(c.conversation)[0] for c in load_conversations(data, codebook).conversations
    ]
    requests = capture(conversations, codebook, mode_spec("default"), False)
    rules = rules_for(model)
    assert rules is not None
    estimated = uses(
        through_cache(requests, Through(rules, "prefix_first", False), endpoint.tokens)
    )
    assert sorted(u.prompt for u in estimated) == sorted(r.prompt_tokens for r in counted)
    read, written = sum(r.cache_read for r in counted), sum(r.cache_written for r in counted)
    assert read > 0.3 * sum(r.prompt_tokens for r in counted)
    assert sum(u.read for u in estimated) == pytest.approx(read, rel=0.1)
    assert sum(u.written for u in estimated) == pytest.approx(written, rel=0.1, abs=1)
    # What the run logged is what the provider reported.
    usage = log.stats.model_usage[str(client)]
    assert (usage.input_tokens_cache_read or 0) == read
    assert (usage.input_tokens_cache_write or 0) == written
