"""Offline scripted models for tests: record every input, answer validly (or not)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_ai import eval
from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    Model,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from attunebench_inspect import attunebench
from attunebench_inspect.providers._baselines import majority_fill
from attunebench_inspect.solve._prompts import REPAIR

Answer = Callable[[list[ChatMessage], GenerateConfig], str]


def valid_answer(messages: list[ChatMessage], config: GenerateConfig) -> str:
    schema = config.response_schema
    return json.dumps(majority_fill(schema.json_schema)) if schema else "A drafted reply."


def is_repair(messages: list[ChatMessage]) -> bool:
    marker = REPAIR.split("{")[0]
    return any(marker in m.text for m in messages if m.role == "user")


@dataclass
class Spy:
    """A mockllm model that records each call's messages and answers with `answer`."""

    answer: Answer = valid_answer
    calls: list[list[ChatMessage]] = field(default_factory=list)
    configs: list[GenerateConfig] = field(default_factory=list)

    def model(self, name: str = "spy") -> Model:
        def respond(
            messages: list[ChatMessage],
            tools: list[ToolInfo],
            tool_choice: ToolChoice,
            config: GenerateConfig,
        ) -> ModelOutput:
            self.calls.append(list(messages))
            self.configs.append(config)
            output = ModelOutput.from_content(model=name, content=self.answer(messages, config))
            output.usage = ModelUsage(input_tokens=10, output_tokens=10, total_tokens=20)
            return output

        return get_model(f"mockllm/{name}", custom_outputs=respond, memoize=False)

    def texts(self) -> list[str]:
        return ["\n".join(m.text for m in call) for call in self.calls]


def prompts_of(raw: dict[str, Any], folder: Path, mode: str) -> list[str]:
    """Every prompt the solver sends for one conversation (`raw`, written into `folder`) in
    `mode`, as the spy received them."""
    (folder / "c.json").write_text(json.dumps(raw), encoding="utf-8")
    spy = Spy()
    eval(
        attunebench(mode=mode, data=str(folder)),
        model=spy.model("em"),
        display="none",
        log_dir=str(folder / "logs"),
    )
    return spy.texts()
