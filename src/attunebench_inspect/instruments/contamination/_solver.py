"""The probe's calls: for every instance of a conversation, one guided and one general completion;
with the files-layout probe, for every turn, the document's continuation and its control's at the
text cut and at the label cut; with the likelihood method, its scoring calls
(`_likelihood_route.py`: the canary, then the texts or the decoy windows).

A guided or general call is one user message and nothing else, as in Golchin & Surdeanu's code; a
layout call is the instruction and the document's start as the assistant's own text (layout.py).
Every call runs at temperature 0; a guided or general call at most `MAX_TOKENS` = 500 output
tokens (their released settings), a layout call `LAYOUT_MAX_TOKENS` = 200. The
configuration is fixed in the call, so an `inspect eval --temperature` for the main task does not
change the probe. The calls of a conversation run side by side; none reads another's answer.

A model that returns no text is not an error: the completion is recorded as empty, the log gets
one located warning, and the scorer counts it with no overlap. A completion stopped at the length
limit (as a reasoning model's is when its hidden reasoning spends the budget) is recorded as cut:
in the guided probe neither carries the evidence a negative needs (verdict.py's abstention table).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageUser,
    GenerateConfig,
    get_model,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import StoreModel, store_as
from pydantic import Field, TypeAdapter

from ...solve._call_record import ProbeCall
from ...solve._solver import concurrently
from ...solve._transport import generate_or_say
from . import _prompts as prompts
from ._instances import Instance
from ._layout import LAYOUT_INSTRUCTION, LayoutInstance
from ._likelihood_route import LikelihoodStore, plan_of, score_likelihood
from ._recall import PublishedText

logger = logging.getLogger(__name__)

TEMPERATURE = 0.0
MAX_TOKENS = 500
CONFIG = GenerateConfig(temperature=TEMPERATURE, max_tokens=MAX_TOKENS)
LAYOUT_MAX_TOKENS = 200
"""A layout call's window on the file's continuation: a turn's message and more (the bundled
messages run to about 100 words); a file has no end, so every layout call runs to its window."""
LAYOUT_CONFIG = GenerateConfig(temperature=TEMPERATURE, max_tokens=LAYOUT_MAX_TOKENS)
INSTANCES_KEY = "contamination_instances"
"""Sample metadata: the conversation's instances (segment shown, reference kept), as JSON."""

CUT = frozenset({"max_tokens", "model_length"})
"""Stop reasons of a completion cut at the length limit."""

INSTRUCTIONS: dict[ProbeCall, Callable[[Instance], str]] = {
    "guided": prompts.guided,
    "general": prompts.general,
}
INSTANCES = TypeAdapter(list[Instance])
PUBLISHED_TEXTS = TypeAdapter(list[PublishedText])
TEXTS_KEY = "contamination_texts"
"""Sample metadata: every published text of the conversation (`_recall.py`), as JSON: the
likelihood method's prompts, and the scorer's (heuristic 3); no other prompt reads it."""
LAYOUT_INSTANCES = TypeAdapter(list[LayoutInstance])
LAYOUT_KEY = "contamination_layout"
"""Sample metadata: the conversation's layout instances (each document's start and its
control's), as JSON."""


class ProbeStore(StoreModel):
    """Each instance's completions, in instance order, and whether each was cut at the length
    limit: the guided probe's two, and the layout probe's (the document and its control)."""

    guided: list[str] = Field(default_factory=list)
    general: list[str] = Field(default_factory=list)
    guided_cut: list[bool] = Field(default_factory=list)
    general_cut: list[bool] = Field(default_factory=list)
    layout: list[str] = Field(default_factory=list)
    layout_control: list[str] = Field(default_factory=list)
    layout_cut: list[bool] = Field(default_factory=list)
    layout_control_cut: list[bool] = Field(default_factory=list)
    layout_labels: list[str] = Field(default_factory=list)
    layout_labels_control: list[str] = Field(default_factory=list)
    layout_labels_cut: list[bool] = Field(default_factory=list)
    layout_labels_control_cut: list[bool] = Field(default_factory=list)


@dataclass(frozen=True)
class Call:
    """One call of the probe: which completion it fills, its messages, where it reads."""

    name: ProbeCall
    index: int
    messages: list[ChatMessage]
    where: str
    config: GenerateConfig


def instances_of(metadata: dict[str, object]) -> list[Instance]:
    return INSTANCES.validate_json(str(metadata[INSTANCES_KEY]))


def texts_of(metadata: dict[str, object], key: str = TEXTS_KEY) -> list[PublishedText]:
    """A sample's published texts (none in a log written before heuristic 3), or under the
    dataset's `CONTROL_TEXTS_KEY` its layout control's."""
    raw = metadata.get(key)
    return PUBLISHED_TEXTS.validate_json(str(raw)) if raw is not None else []


def layout_of(metadata: dict[str, object]) -> list[LayoutInstance]:
    """A sample's layout instances (none where the layout probe was not chosen)."""
    raw = metadata.get(LAYOUT_KEY)
    return LAYOUT_INSTANCES.validate_json(str(raw)) if raw is not None else []


def request(instance: Instance, call: ProbeCall) -> list[ChatMessage]:
    """The messages of one of an instance's calls: its instruction as one user message (what
    the solver sends, and what `attunebench estimate` prices)."""
    return [ChatMessageUser(content=INSTRUCTIONS[call](instance))]


def layout_request(prefix: str) -> list[ChatMessage]:
    """A layout call: the instruction, then the document's start as the assistant's own text,
    which a local server continues as raw text (what the solver sends and the estimate
    prices)."""
    return [ChatMessageUser(content=LAYOUT_INSTRUCTION), ChatMessageAssistant(content=prefix)]


def layout_calls(layout: LayoutInstance) -> list[tuple[ProbeCall, str]]:
    """A layout instance's calls and the document start each shows: the text cut and the label
    cut (`_labels.py`; none in a log written before it), each of the document and of its control."""
    calls: list[tuple[ProbeCall, str]] = [
        ("layout", layout.prefix),
        ("layout_control", layout.control_prefix),
    ]
    if layout.label_prefix:
        calls += [
            ("layout_labels", layout.label_prefix),
            ("layout_labels_control", layout.label_control_prefix),
        ]
    return calls


def calls_of(metadata: dict[str, object]) -> list[Call]:
    """Every call of a sample: two per guided instance, four per layout instance."""
    calls = [
        Call(name, i, request(instance, name), instance.where, CONFIG)
        for i, instance in enumerate(instances_of(metadata))
        for name in INSTRUCTIONS
    ]
    for i, layout in enumerate(layout_of(metadata)):
        calls += [
            Call(name, i, layout_request(prefix), layout.where, LAYOUT_CONFIG)
            for name, prefix in layout_calls(layout)
        ]
    return calls


@solver
def contamination_solver() -> Solver:
    """Two completions per instance: guided (data set named) and general (nothing named); and
    per layout instance, the document's continuation and its control's at each of its cuts."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        calls = calls_of(state.metadata)
        model = get_model()
        texts: dict[str, dict[int, str]] = {}
        cut: dict[str, dict[int, bool]] = {}

        async def complete(call: Call) -> None:
            output = await generate_or_say(model, call.messages, call.config, call.name, call.where)
            if not output.completion.strip():
                logger.warning(
                    f"contamination probe: {call.where}: the model returned no text for "
                    f"the {call.name} instruction (stop reason {output.stop_reason}); scored as no "
                    "overlap"
                )
            texts.setdefault(call.name, {})[call.index] = output.completion
            cut.setdefault(call.name, {})[call.index] = output.stop_reason in CUT

        async def likelihood() -> None:
            plan = plan_of(state.metadata)
            if not (plan.control_test or plan.window):
                return
            texts = [t.text for t in texts_of(state.metadata)]
            where = f"{state.sample_id}: likelihood"
            found = await score_likelihood(model, plan, texts, str(state.sample_id), where)
            stored = store_as(LikelihoodStore)
            stored.canary, stored.texts, stored.windows = found.canary, found.texts, found.windows

        await concurrently(*(complete(call) for call in calls), likelihood())
        store = store_as(ProbeStore)
        for name, found in texts.items():
            setattr(store, name, [found[i] for i in range(len(found))])
            setattr(store, f"{name}_cut", [cut[name][i] for i in range(len(found))])
        return state

    return solve
