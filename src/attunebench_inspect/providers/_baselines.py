"""Offline baselines, registered with Inspect as `attunebench/random` and `attunebench/majority`:
both answer inside the call's response schema, so they are valid for every call type. The random
baseline derives each answer from the seed, the call's content and, from epoch 2 on, the epoch,
not from call order, so concurrent runs are reproducible."""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo
from inspect_ai.util import JSONSchema

from .._parameters import told
from ..data._problems import InputError
from ..solve._store import current_epoch
from . import BASELINE_PROVIDER

BASELINES = ("random", "majority")

_RANDOM_DRAFTS = (
    "That sounds like a lot to carry. What feels most pressing to you right now?",
    "I hear you. It makes sense that this is weighing on you.",
    "Here are a few things you could try: take a short break, write down what is worrying you, "
    "and talk to someone you trust.",
    "Thanks for telling me. Can you say a bit more about what happened?",
    "It sounds like you are doing your best in a hard situation.",
)
_MAJORITY_DRAFT = (
    "I'm sorry you're dealing with this. That sounds really hard. How are you feeling?"
)
_WORDS = (
    "because",
    "the",
    "reply",
    "seemed",
    "they",
    "felt",
    "wanted",
    "support",
    "advice",
    "tone",
)


def _tokens(text: str) -> int:
    # A fixed 4-characters-per-token estimate: offline, and no tiktoken download.
    return max(1, len(text) // 4)


class OfflineAPI(ModelAPI):
    """A model whose answers are computed here: its outputs carry usage (offline Inspect would
    otherwise count tokens with a tokenizer it downloads), estimated from characters."""

    provider = BASELINE_PROVIDER

    def output(self, input: list[ChatMessage], content: str) -> ModelOutput:
        output = ModelOutput.from_content(
            model=f"{self.provider}/{self.model_name}", content=content
        )
        input_tokens = sum(_tokens(m.text) for m in input)
        output_tokens = _tokens(content)
        output.usage = ModelUsage(
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            total_tokens=input_tokens + output_tokens,
        )
        return output

    async def count_text_tokens(self, text: str) -> int:
        return _tokens(text)

    def max_connections(self) -> int:
        # Answers are computed locally in microseconds; a high limit keeps runs fast.
        return 256


class RandomFill:
    """A uniformly random valid instance of a JSON schema."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def __call__(self, schema: JSONSchema) -> Any:
        if schema.enum:
            return self.rng.choice(schema.enum)
        if schema.type == "object":
            required = set(schema.required or [])
            return {
                name: self(prop)
                for name, prop in (schema.properties or {}).items()
                if name in required or self.rng.random() < 0.5
            }
        if schema.type == "boolean":
            return self.rng.random() < 0.5
        if schema.type == "integer":
            low = int(schema.minimum) if schema.minimum is not None else 0
            high = int(schema.maximum) if schema.maximum is not None else 10
            return self.rng.randint(low, high)
        return " ".join(self.rng.choice(_WORDS) for _ in range(6))


def majority_fill(schema: JSONSchema) -> Any:
    """The most typical answer: mid-scale numbers, the first listed option, nothing optional."""
    if schema.enum:
        if all(isinstance(v, int) for v in schema.enum):
            ordered = sorted(schema.enum)
            return ordered[len(ordered) // 2]
        return schema.enum[0]
    if schema.type == "object":
        required = set(schema.required or [])
        return {
            name: majority_fill(prop)
            for name, prop in (schema.properties or {}).items()
            if name in required
        }
    if schema.type == "boolean":
        return False
    if schema.type == "integer":
        return int(schema.minimum or 0)
    return "Most typical answer."


class BaselineAPI(OfflineAPI):
    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),  # noqa: B008 (ModelAPI's own signature)
        seed: int = 0,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        with told():
            if model_name not in BASELINES:
                raise InputError(
                    f"unknown AttuneBench baseline '{BASELINE_PROVIDER}/{model_name}'; "
                    f"use one of: {', '.join(f'{BASELINE_PROVIDER}/{b}' for b in BASELINES)}"
                )
            if isinstance(seed, bool) or not isinstance(seed, int):
                raise InputError(f"-M seed must be an integer; got {seed!r}")
            if model_args:
                raise InputError(
                    f"unknown -M argument(s) of {BASELINE_PROVIDER}/{model_name}: "
                    f"{', '.join(sorted(model_args))}; it takes seed"
                )
        self.seed = seed

    def _rng(self, input: list[ChatMessage], config: GenerateConfig) -> random.Random:
        digest = hashlib.sha256()
        digest.update(str(self.seed).encode())
        epoch = current_epoch()
        if epoch > 1:
            # A rerun of chance answers anew; epoch 1 keeps the answers it always had.
            digest.update(f"epoch {epoch}".encode())
        for message in input:
            digest.update(message.role.encode())
            digest.update(message.text.encode())
        if config.response_schema is not None:
            digest.update(config.response_schema.name.encode())
        return random.Random(digest.hexdigest())

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        schema = config.response_schema
        if self.model_name == "random":
            rng = self._rng(input, config)
            content = (
                json.dumps(RandomFill(rng)(schema.json_schema))
                if schema
                else rng.choice(_RANDOM_DRAFTS)
            )
        else:
            content = json.dumps(majority_fill(schema.json_schema)) if schema else _MAJORITY_DRAFT
        return self.output(input, content)


@modelapi(name=BASELINE_PROVIDER)
def attunebench_baselines() -> type[ModelAPI]:
    return BaselineAPI
