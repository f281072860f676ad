"""The likelihood method's route through Inspect (thin): what a call sends to score a given
text, how the text's token log-probabilities are read back from the `ModelOutput`, and a
sample's calls (`score_likelihood`, which the probe's solver runs).

Two of Inspect's routes return the log-probability of a *prompt's* tokens
(docs/contamination.md, "The likelihood method: design"):

- the completions providers (`openai-api-completions/<service>/<model>`, `vllm-completions`)
  with `echo` sent through `extra_body` and `logprobs`: the server returns the prompt's tokens
  before the generated one, in the completions format, which Inspect parses into
  `choices[0].logprobs` (the first prompt token, whose entry is null, left out);
- `prompt_logprobs` (vLLM's extension, SGLang): `choices[0].prompt_logprobs`, the first
  token left out the same way.

Every other route (OpenAI's and Anthropic's chat, llama-server) returns log-probabilities of
generated tokens only, or none. The method sends its calls only through the completions
providers (`TEXT_ROUTES`): to a chat provider `echo` is an unknown field (OpenAI's API refuses
such a request), and a never-published control conversation must not reach a provider that
cannot score it. Elsewhere, or where the completions server ignores `echo` (llama-server),
it reads "cannot decide: <provider> gives no log-probability of a given text".
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from functools import cache

from inspect_ai.model import (
    ChatMessage,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelName,
    ModelOutput,
)
from inspect_ai.util import StoreModel
from pydantic import BaseModel, Field

from ...solve._solver import concurrently
from ...solve._transport import generate_or_say
from ._likelihood import CANARY, canary_mean, decoy_prompts, route_check
from ._rules import NO_TEXT_LOGPROBS

logger = logging.getLogger(__name__)

TEXT_ROUTES = ("openai-api-completions", "vllm-completions")
"""Inspect's providers that send a raw prompt to `/v1/completions`, where `echo` scores it."""

SCORE_CONFIG = GenerateConfig(
    max_tokens=1,
    temperature=0.0,
    logprobs=True,
    top_logprobs=1,
    extra_body={"echo": True},
)
"""A call that scores its prompt: one generated token (llama-cpp-python reads 0 as "no limit"),
echo of the prompt with each token's log-probability. vLLM answers the same request; its
`prompt_logprobs` is not sent, since llama-cpp-python has no such field."""


def text_logprobs(output: ModelOutput, prompt: str) -> tuple[tuple[str, float], ...] | None:
    """Each token of `prompt` after the first, with its log-probability, as the route returned
    them; None where the output holds no log-probability of the prompt (no logprobs, or those
    of the generated tokens only: the echo was not honoured)."""
    if not output.choices:
        return None
    choice = output.choices[0]
    if choice.prompt_logprobs is not None and choice.prompt_logprobs.content:
        return tuple((lp.token, lp.logprob) for lp in choice.prompt_logprobs.content)
    if choice.logprobs is None or not choice.message.text.startswith(prompt):
        return None
    # The prompt's entries come first (its first token's left out), then the generated
    # tokens' (vLLM; llama-cpp-python where the model's tokenizer adds a BOS token: without one
    # its echo is shifted and leaves the generated token out, which the route check reads).
    content = choice.logprobs.content
    generated = output.usage.output_tokens if output.usage is not None else 0
    given = content[: len(content) - generated] if generated else content
    return tuple((lp.token, lp.logprob) for lp in given) or None


class LikelihoodPlan(BaseModel):
    """A sample's part of the method (its metadata): which test the run makes, and the decoy
    test's window and IDs."""

    control_test: bool = False
    window: str | None = None
    """The document's start under the real ID (the decoy test's published conversations)."""
    decoy_ids: list[str] = Field(default_factory=list)


LIKELIHOOD_KEY = "likelihood"
"""Sample metadata: the method's plan for the conversation (`LikelihoodPlan`)."""
CONTROL_KEY = "never_published"
"""Sample metadata: true for a never-published control conversation (a flag, which Inspect's
sample summaries keep whole, unlike the plan's window)."""


def plan_of(metadata: dict[str, object]) -> LikelihoodPlan:
    """A sample's plan (an empty one where the method was not chosen)."""
    return LikelihoodPlan.model_validate(metadata.get(LIKELIHOOD_KEY) or {})


def is_control(metadata: dict[str, object]) -> bool:
    return metadata.get(CONTROL_KEY) is True


class LikelihoodStore(StoreModel):
    """What the route returned for a sample: the canary's log-probabilities (None where the
    provider gave none, or was not asked), each text's (control test), each decoy window's
    tokens with theirs (decoy test, the real ID first)."""

    canary: list[float] | None = None
    texts: list[list[float] | None] = Field(default_factory=list)
    windows: list[list[tuple[str, float]] | None] = Field(default_factory=list)


def request(text: str) -> list[ChatMessage]:
    """A call that scores `text`: the text alone as one user message, which the completions
    providers send as the raw prompt (what the solver sends and the estimate prices)."""
    return [ChatMessageUser(content=text)]


@cache
def _say_unanswered(provider: str) -> None:
    """One line per provider and process, not one per conversation."""
    logger.warning(
        f"contamination probe: likelihood: {provider} {NO_TEXT_LOGPROBS} (only Inspect's "
        f"{' and '.join(TEXT_ROUTES)} providers can give one): the method cannot decide and is "
        "left out of the verdict"
    )


async def score_likelihood(
    model: Model, plan: LikelihoodPlan, texts: Sequence[str], real: str, where: str
) -> LikelihoodStore:
    """A sample's calls, one user message each at `SCORE_CONFIG`: the canary first, then, where
    it passes the route check, the conversation's texts (control test) or its decoy windows."""
    found = LikelihoodStore()
    if ModelName(model).api not in TEXT_ROUTES:
        _say_unanswered(str(model))
        return found

    async def scored(prompt: str) -> tuple[tuple[str, float], ...] | None:
        output = await generate_or_say(model, request(prompt), SCORE_CONFIG, "likelihood", where)
        return text_logprobs(output, prompt)

    canary = await scored(CANARY)
    if canary is None:
        _say_unanswered(str(model))
        return found
    found.canary = [lp for _, lp in canary]
    if route_check(canary_mean(found.canary)) is not None:
        return found
    # The solver calls it only where the plan holds a test (`plan.control_test or plan.window`).
    prompts = (
        list(texts) if plan.control_test else decoy_prompts(plan.window or "", real, plan.decoy_ids)
    )
    answers: dict[int, tuple[tuple[str, float], ...] | None] = {}

    async def one(i: int, prompt: str) -> None:
        # An empty text cannot be sent (the completions route refuses it): too short to score.
        answers[i] = await scored(prompt) if prompt.strip() else ()

    await concurrently(*(one(i, p) for i, p in enumerate(prompts)))
    got = [answers[i] for i in range(len(prompts))]
    if plan.control_test:
        found.texts = [None if a is None else [lp for _, lp in a] for a in got]
    else:
        found.windows = [None if a is None else list(a) for a in got]
    return found
