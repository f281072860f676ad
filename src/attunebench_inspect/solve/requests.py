"""How the solver's requests are shaped for a provider: how answers are constrained, in what
order a conversation's calls are sent, and the cache hints each provider documents.

The prompts are the same whatever is chosen here (every prompt states the answer's shape), so a
choice changes what the provider is asked to enforce and when, not what the model reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from inspect_ai.model import GenerateConfig, Model, ResponseSchema

# Inspect exports no accessor for the eval's generate config (where `--batch` and `--extra-body`
# land) or for the model under test outside `get_model()`, which raises outside an eval;
# tests/test_requests.py pins both.
from inspect_ai.model._generate_config import (  # inspect-evals-lint: ignore[private_api_imports]
    active_generate_config,
)
from inspect_ai.model._model import (  # inspect-evals-lint: ignore[private_api_imports]
    active_model,
)

from .record import CallType

AnswerFormat = Literal["auto", "schema", "prompt"]
ANSWER_FORMATS: tuple[AnswerFormat, ...] = get_args(AnswerFormat)
"""`schema`: the response schema goes with the request (structured output; servers that compile
it into a grammar enforce it outside the prompt). `prompt`: no response schema; the shape the
prompt states is validated and repaired as any answer is. `auto`: per provider."""

Schedule = Literal["auto", "prefix_first", "all_at_once"]
SCHEDULES: tuple[Schedule, ...] = get_args(Schedule)
"""`prefix_first`: within a conversation, the call that writes each shared prefix to a
provider's cache goes first and the calls that read it once it is done; conversations run side
by side. `all_at_once`: every call of a conversation at once. `auto`: all_at_once under a batch
API (a batch is answered as a whole, so waiting would cost a batch round per turn),
prefix_first otherwise."""

SCHEMA_IN_CACHE_KEY = frozenset({"openai", "anthropic", "azureai", "bedrock", "openrouter"})
"""Providers that serve OpenAI's or Anthropic's models, whose prompt caches key on the response
schema (OpenAI places it before the system message; Anthropic's structured outputs change the
prompt): a schema per call would make every call of a turn a cache miss, so `auto` states the
shape in the prompt there. Everywhere else (vLLM, sglang, llama-server, ollama, our baselines)
the schema is compiled into a grammar outside the prompt and `auto` sends it."""

PER_CONVERSATION_CACHE_KEY = frozenset({"openai"})
"""Providers whose cache routing takes a `prompt_cache_key`: OpenAI routes a request by a hash
of its first tokens, the same static system text for every call of a run, and spreads a prefix
past about 15 requests a minute over other machines; a key per conversation keeps a
conversation's calls together."""


def provider_of(model: Model) -> str:
    return str(model).split("/", 1)[0]


def _resolved(model: Model) -> GenerateConfig:
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


def request_policy(
    model: Model, answer_format: AnswerFormat, conversation_id: str
) -> RequestPolicy:
    provider = provider_of(model)
    schema = (
        provider not in SCHEMA_IN_CACHE_KEY
        if answer_format == "auto"
        else answer_format == "schema"
    )
    if provider not in PER_CONVERSATION_CACHE_KEY:
        return RequestPolicy(schema)
    resolved = _resolved(model)
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


def resolve_schedule(schedule: Schedule, model: Model) -> Schedule:
    if schedule != "auto":
        return schedule
    return "all_at_once" if _resolved(model).batch else "prefix_first"


CallKey = tuple[CallType, int | None]
"""A call of a conversation: its type and turn (None for the post-conversation call)."""
PREFIX_WRITER: CallType = "binary_hp"
"""The call that writes each turn's shared prefix: its blocks reach the turn's reply, the longest
prefix of the turn, and its answer is the shortest of the calls that read that far."""


def after(call: CallType, turn: int | None, turns: int, schedule: Schedule) -> tuple[CallKey, ...]:
    """The calls whose end `call` waits for. Under `prefix_first`: turn n's HP-facing binary
    call (the turn's prefix writer: its blocks reach the turn's reply) waits for turn n-1's;
    the turn's other analysis calls, and the post-conversation call after the last turn, wait
    for it; each draft waits for the one before (its chat is that draft's prefix) and each
    judgement for its draft and the judgement before. Under `all_at_once` a judgement waits for
    its draft only (it judges it). The solver waits by this, and the estimate models the order
    of a run by it."""
    previous = (turn or 1) - 1
    if call == "judge":
        chain: tuple[CallKey, ...] = (("judge", previous),) if previous else ()
        return (("draft", turn), *(chain if schedule == "prefix_first" else ()))
    if schedule != "prefix_first":
        return ()
    if call in (PREFIX_WRITER, "draft"):
        return ((call, previous),) if previous else ()
    if call == "post":
        return ((PREFIX_WRITER, turns),)
    if call in ("emotion", "binary_hp", "pairwise"):
        return ((PREFIX_WRITER, turn),)
    return ()
