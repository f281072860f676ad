"""What the suite does differently per provider, in one place (nothing else restates it): whether
a call's response schema goes with it (`answer_format`), the prompt cache key a conversation's
calls carry, and the cache breakpoints. A rule changes what a provider enforces and what its cache
can serve, never the prompt (docs/cost-and-scale.md, 'Requests a prompt cache can serve')."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, get_args

from inspect_ai.model import ContentText, GenerateConfig, Model, ResponseSchema

# Inspect exports no accessor for the eval's generate config (where `--batch` and `--extra-body`
# land) or for the model under test outside `get_model()`, which raises outside an eval;
# tests/core/solve/test_provider_rules.py pins both.
from inspect_ai.model._generate_config import (  # inspect-evals-lint: ignore[private_api_imports] -- pinned by a test  # noqa: E501
    active_generate_config,
)
from inspect_ai.model._model import (  # inspect-evals-lint: ignore[private_api_imports] -- pinned by a test  # noqa: E501
    active_model,
)

from ._call_record import CallType

AnswerFormat = Literal["auto", "schema", "prompt"]
ANSWER_FORMATS: tuple[AnswerFormat, ...] = get_args(AnswerFormat)
"""`schema`: the response schema goes with the request (structured output; servers that compile
it into a grammar enforce it outside the prompt). `prompt`: no response schema; the shape the
prompt states is validated and repaired as any answer is. `auto`: per provider."""

SCHEMA_IN_CACHE_KEY = frozenset({"openai", "anthropic", "azureai", "bedrock", "openrouter"})
"""Providers that serve OpenAI's or Anthropic's models, whose prompt caches key on the response
schema: `auto` states the shape in the prompt there, and sends the schema everywhere else
(docs/cost-and-scale.md, 'An answer shape that does not break the key')."""

PER_CONVERSATION_CACHE_KEY = frozenset({"openai"})
"""Providers whose cache routing takes a `prompt_cache_key`: a key per conversation keeps its
calls together (docs/cost-and-scale.md, 'A cache key per conversation on OpenAI')."""


def resolved_config(model: Model) -> GenerateConfig:
    """The config Inspect composes for `model`'s calls: the eval's under the model's own for the
    model under test, the model's own for a role."""
    return model.config.merge(active_generate_config()) if model is active_model() else model.config


@dataclass(frozen=True)
class RequestPolicy:
    """What one model's requests of one conversation carry besides the prompt."""

    schema: bool
    """Send the response schema with the request."""
    extra_body: dict[str, object] | None = None
    """The provider's extra request fields with our cache key added, where the provider takes
    one and the user has not set their own (`-M prompt_cache_key=...` or in `--extra-body`)."""

    def config(self, response_schema: ResponseSchema | None) -> GenerateConfig:
        return GenerateConfig(
            response_schema=response_schema if self.schema else None,
            extra_body=self.extra_body,
        )


SEND_SCHEMA = RequestPolicy(schema=True)
"""Structured output as the provider offers it, no cache hints: calls that share no prefix."""


def sends_schema(provider: str, answer_format: AnswerFormat) -> bool:
    """Whether a call's response schema goes with the request to `provider`."""
    if answer_format == "auto":
        return provider not in SCHEMA_IN_CACHE_KEY
    return answer_format == "schema"


def schema_in_cache_key(provider: str, answer_format: AnswerFormat) -> bool:
    """Whether the response schema enters `provider`'s prompt cache key (each call then differs)."""
    return sends_schema(provider, answer_format) and provider in SCHEMA_IN_CACHE_KEY


def request_policy(
    model: Model, answer_format: AnswerFormat, conversation_id: str
) -> RequestPolicy:
    provider = str(model).split("/", 1)[0]
    schema = sends_schema(provider, answer_format)
    if provider not in PER_CONVERSATION_CACHE_KEY:
        return RequestPolicy(schema)
    resolved = resolved_config(model)
    extra = resolved.extra_body or {}
    # Under --batch Inspect's OpenAI batcher writes `extra_body` into the batch line as a field
    # of its own, which the API rejects as an unrecognized argument: no key of ours there.
    if (
        resolved.batch
        or "prompt_cache_key" in extra
        or isinstance(getattr(model.api, "prompt_cache_key", None), str)
    ):
        return RequestPolicy(schema)
    return RequestPolicy(schema, {**extra, "prompt_cache_key": f"attunebench-{conversation_id}"})


PREFIX_WRITER: CallType = "binary_hp"
"""The call that writes each turn's shared prefix: its blocks reach the turn's reply, the longest
prefix of the turn, and its answer is the shortest of the calls that read that far (the
schedule sends it first)."""


def breakpoints(call: CallType, shared: int) -> tuple[int, ...]:
    """Where a call whose first `shared` conversation blocks are shared with other calls marks a
    cache breakpoint (blocks numbered from 1): after its last shared block, where a provider that
    takes explicit breakpoints (Anthropic; OpenAI from gpt-5.6) writes the prefix to its cache
    and a later call looks it up. The turn's prefix writer also marks the participant's message,
    the prefix of the turn's pairwise call and of the next turn's draft."""
    return (shared - 1, shared) if call == PREFIX_WRITER else (shared,)


def blocks(texts: Sequence[str], marks: Sequence[int] = ()) -> list[ContentText]:
    """Texts as content blocks, a cache breakpoint after each block numbered (from 1) in `marks`."""
    return [
        ContentText(text=text, cache_breakpoint=True if n in marks else None)
        for n, text in enumerate(texts, start=1)
    ]
