"""Every request of a run, built offline by the real solver (`ConversationWalk`) through
Inspect's `Model.generate` against a model that records them, so the messages and response
schemas are those Inspect hands a provider (tests/tools/estimate/test_estimate.py checks them).
No eval runs, so nothing is logged."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from inspect_ai.model import (
    ChatMessage,
    GenerateConfig,
    ModelOutput,
    ModelUsage,
    ResponseSchema,
    get_model,
)
from inspect_ai.tool import ToolChoice, ToolInfo
from inspect_ai.util import JSONSchema

from ...data._codebook import Codebook
from ...data._split import VisibleConversation
from ...providers._baselines import majority_fill
from ...solve._call_record import CallType
from ...solve._modes import ModeSpec
from ...solve._prompts import message_text
from ...solve._schedule import CallKey, Schedule
from ...solve._schemas import call_of
from ...solve._solver import ConversationWalk
from ...solve._store import JUDGE_ROLE

CAPTURE_MODEL = "mockllm/attunebench-estimate"


@dataclass(frozen=True)
class Request:
    """One call as Inspect is asked to send it, and the answer the estimate assumes."""

    call: CallType
    turn: int | None
    chat: tuple[ChatMessage, ...] = field(compare=False, repr=False)
    """The messages as the solver handed them to `generate` (content blocks, breakpoints)."""
    response_schema: ResponseSchema | None = field(compare=False, repr=False)
    """The call's schema (name and description too), whether or not a provider is sent it."""
    answer: str
    free_text: int
    """Free-text fields in the schema: near empty in the shortest answer, written out by a model."""

    @property
    def key(self) -> CallKey:
        return (self.call, self.turn)

    @property
    def messages(self) -> tuple[tuple[str, str], ...]:
        """(role, text) of every message, content blocks joined as a provider reads them."""
        return tuple((m.role, message_text(m)) for m in self.chat)

    @property
    def schema(self) -> str | None:
        """The response schema as JSON text; None for the free-text draft."""
        if self.response_schema is None:
            return None
        return json.dumps(self.response_schema.json_schema.model_dump(exclude_none=True))


def turn_of(call: CallType, messages: list[ChatMessage]) -> int | None:
    """A call's turn, read off its layout (solve/_prompts.py): an analysis or judge call's
    second message holds the conversation's blocks, two per turn after the topic; a draft has
    one user message per turn."""
    if call == "post":
        return None
    if call == "draft":
        return sum(m.role == "user" for m in messages)
    blocks = messages[1].content
    return len(blocks) // 2 if isinstance(blocks, list) else None


def free_text_fields(schema: JSONSchema) -> int:
    """Required string fields without an enum (the ones `majority_fill` fills with a stub)."""
    if schema.type == "string" and not schema.enum:
        return 1
    required = set(schema.required or [])
    return sum(
        free_text_fields(prop)
        for name, prop in (schema.properties or {}).items()
        if name in required
    )


class _Recorder:
    """Inspect's mockllm answers with this (docs/cost-and-scale.md, 'How each number is made');
    each request is recorded."""

    def __init__(self, conv: VisibleConversation) -> None:
        self.conv = conv
        self.requests: list[Request] = []

    def __call__(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        schema = config.response_schema
        if schema is None:
            # A draft's messages alternate participant and reply, ending on this turn's message.
            turn = sum(message.role == "user" for message in input)
            answer = self.conv.turns[turn - 1].om_response
        else:
            answer = json.dumps(majority_fill(schema.json_schema))
        call = call_of(schema.name if schema else None)
        self.requests.append(
            Request(
                call=call,
                turn=turn_of(call, input),
                chat=tuple(input),
                response_schema=schema,
                answer=answer,
                free_text=free_text_fields(schema.json_schema) if schema else 0,
            )
        )
        output = ModelOutput.from_content(model=CAPTURE_MODEL, content=answer)
        # With usage given, mockllm does not count tokens itself (with tiktoken, which downloads).
        output.usage = ModelUsage()
        return output


async def _walk(
    conv: VisibleConversation, codebook: Codebook, spec: ModeSpec, judge: bool
) -> list[Request]:
    recorder = _Recorder(conv)
    # Not a task: the estimate walks the solver outside any eval, with its own capture model.
    model = get_model(  # inspect-evals-lint: ignore[get_model_location] -- see above
        CAPTURE_MODEL, custom_outputs=recorder, memoize=False
    )
    # The schema goes with every call here (it is captured either way; the estimate decides
    # per provider whether it is sent), and every call at once (the order of a run is modelled
    # from the schedule's dependencies, not from this walk's).
    walk = ConversationWalk(
        conv, codebook, spec, 0, model, {JUDGE_ROLE: model} if judge else {}, "schema", SCHEDULE
    )
    await walk.run()
    return recorder.requests


SCHEDULE: Schedule = "all_at_once"


PROGRESS_EVERY = 25
"""How many conversations walked between two progress lines (`capture`'s `progress`)."""


def capture(
    conversations: Iterable[VisibleConversation],
    codebook: Codebook,
    spec: ModeSpec,
    judge: bool,
    progress: Callable[[str], None] | None = None,
) -> list[list[Request]]:
    """The requests of every conversation in one mode; `progress` hears how many were walked."""

    async def walk_all() -> list[list[Request]]:
        walked = []
        for conv in conversations:
            # One task per conversation: outside an eval, Inspect keeps a transcript of every call
            # in the current context, and a task's context (with its transcript) ends with it.
            walked.append(await asyncio.create_task(_walk(conv, codebook, spec, judge)))
            if progress is not None and len(walked) % PROGRESS_EVERY == 0:
                progress(f"{spec.mode} mode: {len(walked)} conversations walked")
        return walked

    return asyncio.run(walk_all())
