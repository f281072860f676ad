"""The probe's calls: for every instance of a conversation, one guided and one general completion.

Each call is one user message and nothing else, as in Golchin & Surdeanu's code, at temperature 0
and at most `MAX_TOKENS` = 500 output tokens (their released settings). The
configuration is fixed in the call, so an `inspect eval --temperature` for the main task does not
change the probe. The calls of a conversation run side by side; none reads another's answer.

A model that returns no text is not an error: the completion is recorded as empty, the log gets
one located warning, and the scorer counts it with no overlap. A completion stopped at the length
limit (as a reasoning model's is when its hidden reasoning spends the budget) is recorded as cut:
neither carries the evidence a negative needs (verdict.py's abstention table).
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from inspect_ai.model import ChatMessage, ChatMessageUser, GenerateConfig, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import StoreModel, store_as
from pydantic import Field, TypeAdapter

from ...solve._call_record import ProbeCall
from ...solve._solver import concurrently
from ...solve._transport import generate_or_say
from . import _prompts as prompts
from ._instances import Instance

logger = logging.getLogger(__name__)

TEMPERATURE = 0.0
MAX_TOKENS = 500
CONFIG = GenerateConfig(temperature=TEMPERATURE, max_tokens=MAX_TOKENS)
INSTANCES_KEY = "contamination_instances"
"""Sample metadata: the conversation's instances (segment shown, reference kept), as JSON."""

CUT = frozenset({"max_tokens", "model_length"})
"""Stop reasons of a completion cut at the length limit."""

INSTRUCTIONS: dict[ProbeCall, Callable[[Instance], str]] = {
    "guided": prompts.guided,
    "general": prompts.general,
}
_INSTANCES = TypeAdapter(list[Instance])


class ProbeStore(StoreModel):
    """Each instance's two completions, in instance order, and whether each was cut at the
    length limit."""

    guided: list[str] = Field(default_factory=list)
    general: list[str] = Field(default_factory=list)
    guided_cut: list[bool] = Field(default_factory=list)
    general_cut: list[bool] = Field(default_factory=list)


def instances_json(instances: list[Instance]) -> str:
    return _INSTANCES.dump_json(instances).decode()


def instances_of(metadata: dict[str, object]) -> list[Instance]:
    return _INSTANCES.validate_json(str(metadata[INSTANCES_KEY]))


def request(instance: Instance, call: ProbeCall) -> list[ChatMessage]:
    """The messages of one of an instance's calls: its instruction as one user message (what
    the solver sends, and what `attunebench estimate` prices)."""
    return [ChatMessageUser(content=INSTRUCTIONS[call](instance))]


@solver
def contamination_solver() -> Solver:
    """Two completions per instance: guided (data set named) and general (nothing named)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        instances = instances_of(state.metadata)
        model = get_model()
        completions: dict[ProbeCall, list[str]] = {
            name: [""] * len(instances) for name in INSTRUCTIONS
        }
        cut: dict[ProbeCall, list[bool]] = {name: [False] * len(instances) for name in INSTRUCTIONS}

        async def complete(index: int, name: ProbeCall) -> None:
            instance = instances[index]
            output = await generate_or_say(
                model, request(instance, name), CONFIG, name, instance.where
            )
            text = output.completion
            if not text.strip():
                logger.warning(
                    f"contamination probe: {instance.where}: the model returned no text for "
                    f"the {name} instruction (stop reason {output.stop_reason}); scored as no "
                    "overlap"
                )
            completions[name][index] = text
            cut[name][index] = output.stop_reason in CUT

        await concurrently(
            *(complete(i, name) for i in range(len(instances)) for name in INSTRUCTIONS)
        )
        store = store_as(ProbeStore)
        store.guided = completions["guided"]
        store.general = completions["general"]
        store.guided_cut = cut["guided"]
        store.general_cut = cut["general"]
        return state

    return solve
