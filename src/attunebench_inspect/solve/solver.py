"""The per-turn protocol as one Inspect solver.

Every turn is analysed concurrently (the protocol never feeds predictions back), and within a turn
only draft -> judge is a chain; the post-conversation call runs beside the turns. Each call's
parsed prediction and status (and what the model wrote, where it could not be read as is) go to
the store; the scorers read only that.

Records are written to the store when the walk ends, not as each call returns: Inspect copies
and diffs the whole store at the start and end of every span, so writes during concurrent turn
spans cost time quadratic in the record count and log every record once per open span.

Each turn is one span (and the post-conversation call another), so the transcript reads turn by
turn; the calls inside a turn run in a plain task group rather than Inspect's `collect`, which
would open a span of its own around every call: two more events and two store snapshots per call
(64 conversations, 1,316 calls: 7,248 transcript events that way, 3,990 now, where a plain replay
of the same requests through `collect` logs 4,524).
"""

from __future__ import annotations

import random
from collections.abc import Awaitable
from dataclasses import dataclass

import anyio
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    GenerateConfig,
    Model,
    ModelOutput,
    get_model,
    model_roles,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import span

from ..data.codebook import Codebook
from ..data.samples import visible_of
from ..data.schema import ResponseSource
from ..data.split import VisibleConversation, VisibleTurn
from . import prompts
from .modes import ModeSpec
from .parse import Parsed, parse_answer, parse_draft
from .record import CallRecord, CallType, Status
from .schemas import (
    CallSchema,
    binary_hp_schema,
    emotion_schema,
    judge_schema,
    pairwise_schema,
    post_schema,
)
from .store import save_walk
from .summary import summarise

JUDGE_ROLE = "judge"
SOURCES: tuple[ResponseSource, ...] = ("original", "alternate", "human")


async def concurrently(*calls: Awaitable[None]) -> None:
    """Run `calls` at once inside the current span. A failure cancels the others and is raised
    as itself, not inside an exception group, as Inspect's `collect` does."""

    async def run(call: Awaitable[None]) -> None:
        await call

    try:
        async with anyio.create_task_group() as group:
            for call in calls:
                group.start_soon(run, call)
    except BaseExceptionGroup as failures:
        first = _first_leaf(failures)
        raise first from first.__cause__


def _first_leaf(group: BaseExceptionGroup[BaseException]) -> BaseException:
    first = group.exceptions[0]
    return _first_leaf(first) if isinstance(first, BaseExceptionGroup) else first


def judge_bound() -> bool:
    """Whether a judge role is bound: without one the draft is not judged, never by the model
    under test."""
    return JUDGE_ROLE in model_roles()


def pairwise_labels(seed: int, conversation_id: str, turn: int) -> dict[str, ResponseSource]:
    """Neutral label -> source, in a seeded order fixed per conversation and turn."""
    order = list(SOURCES)
    random.Random(f"{seed}/{conversation_id}/{turn}").shuffle(order)
    return {str(i + 1): source for i, source in enumerate(order)}


@dataclass(frozen=True)
class LabelledComparison:
    id: str
    """The comparison's id in the call ("c01", ...)."""
    question_id: str
    first: str
    second: str
    """The two neutral labels, in label order."""
    key: str
    """The comparison's key in the ground truth (question and unordered pair)."""


@dataclass(frozen=True)
class PairwiseView:
    """What the pairwise call shows: the three replies under neutral labels and the
    participant's comparisons between labels (the human-baseline page shows the same)."""

    labels: dict[str, ResponseSource]
    replies: list[tuple[str, str]]
    """(label, text) in display order."""
    comparisons: list[LabelledComparison]


def pairwise_view(seed: int, conversation_id: str, turn: VisibleTurn) -> PairwiseView:
    labels = pairwise_labels(seed, conversation_id, turn.turn_number)
    label_of = {source: label for label, source in labels.items()}
    comparisons = []
    for index, comparison in enumerate(turn.comparisons):
        first, second = sorted((label_of[comparison.response_a], label_of[comparison.response_b]))
        comparisons.append(
            LabelledComparison(
                f"c{index + 1:02d}", comparison.question_id, first, second, comparison.key
            )
        )
    replies = [(label, turn.response(source)) for label, source in labels.items()]
    return PairwiseView(labels, replies, comparisons)


async def ask(
    model: Model,
    messages: list[ChatMessage],
    schema: CallSchema | None,
    *,
    call: CallType,
    turn: int | None,
    context: dict[str, object] | None = None,
) -> CallRecord:
    """One call with at most one repair round; returns the outcome as a record. A reply that
    cannot be read is recorded as a parse failure with its reason, never raised."""
    config = GenerateConfig(response_schema=schema.response_schema if schema else None)

    def parse(output: ModelOutput) -> Parsed:
        if not output.choices:
            return Parsed(None, "the reply had no choices")
        text = output.completion
        return parse_answer(text, schema.model) if schema else parse_draft(text)

    output = await model.generate(messages, config=config)
    parsed = parse(output)
    repair_raw: str | None = None
    status: Status = "ok"
    if not parsed.ok:
        # With no choices there is no answer to correct, and an empty assistant turn is refused
        # by some providers: the repair round asks the same question again.
        repair = (
            [
                *messages,
                output.message,
                ChatMessageUser(content=prompts.REPAIR.format(error=parsed.error)),
            ]
            if output.choices
            else messages
        )
        retry = await model.generate(repair, config=config)
        repair_raw = retry.completion
        reparsed = parse(retry)
        status = "repaired" if reparsed.ok else "failed"
        parsed = reparsed if reparsed.ok else parsed
    record = CallRecord(
        call=call,
        turn=turn,
        status=status,
        raw=output.completion if status != "ok" else None,
        repair_raw=repair_raw,
        error=parsed.error if status == "failed" else None,
        prediction=parsed.value if status != "failed" else None,
        context=dict(context or {}),
    )
    return record


async def judge_draft(
    judge: Model, conv: VisibleConversation, turn: VisibleTurn, draft: str, codebook: Codebook
) -> CallRecord:
    """The judge's ratings of one turn's draft against the participant's own edited response,
    and its answers to the turn's binary questions about the draft."""
    messages: list[ChatMessage] = [
        ChatMessageSystem(content=prompts.JUDGE_SYSTEM),
        ChatMessageUser(content=prompts.judge_task(conv, turn, draft, codebook)),
    ]
    schema = judge_schema(tuple(turn.binary_question_ids))
    return await ask(judge, messages, schema, call="judge", turn=turn.turn_number)


class ConversationWalk:
    """The calls of one conversation, built only from its visible part."""

    def __init__(
        self,
        conv: VisibleConversation,
        codebook: Codebook,
        spec: ModeSpec,
        seed: int,
        em: Model,
        judge: Model | None,
    ) -> None:
        self.conv = conv
        self.codebook = codebook
        self.spec = spec
        self.seed = seed
        self.em = em
        self.judge = judge
        self.system = ChatMessageSystem(content=prompts.analyst_system(conv, spec))
        self.records: list[CallRecord] = []

    def _analysis(
        self, upto: int, task: str, *, include_last_reply: bool = False
    ) -> list[ChatMessage]:
        # Shared prefix first (system, transcript up to the participant's message), task last.
        return [
            self.system,
            ChatMessageUser(
                content=prompts.transcript(self.conv, upto, include_last_reply=include_last_reply)
            ),
            ChatMessageUser(content=task),
        ]

    async def draft_and_judge(self, turn: VisibleTurn) -> None:
        messages: list[ChatMessage] = [
            ChatMessageSystem(content=prompts.draft_system(self.conv, self.spec))
        ]
        for earlier in self.conv.turns[: turn.turn_number - 1]:
            messages.append(ChatMessageUser(content=earlier.user_message))
            messages.append(ChatMessageAssistant(content=earlier.om_response))
        messages.append(ChatMessageUser(content=turn.user_message))
        draft = await ask(self.em, messages, None, call="draft", turn=turn.turn_number)
        self.records.append(draft)
        # An unusable draft is scored as wrong without spending a judge call on it.
        if self.judge is None or draft.prediction is None:
            return
        self.records.append(
            await judge_draft(self.judge, self.conv, turn, draft.prediction["text"], self.codebook)
        )

    async def emotion(self, turn: VisibleTurn) -> None:
        self.records.append(
            await ask(
                self.em,
                self._analysis(
                    turn.turn_number, prompts.emotion_task(turn, self.codebook, self.spec)
                ),
                emotion_schema(tuple(turn.binary_question_ids), self.spec.verbose),
                call="emotion",
                turn=turn.turn_number,
            )
        )

    async def binary_hp(self, turn: VisibleTurn) -> None:
        self.records.append(
            await ask(
                self.em,
                self._analysis(
                    turn.turn_number, prompts.binary_hp_task(turn, self.codebook, self.spec)
                ),
                binary_hp_schema(tuple(turn.binary_question_ids), self.spec.verbose),
                call="binary_hp",
                turn=turn.turn_number,
            )
        )

    async def pairwise(self, turn: VisibleTurn) -> None:
        view = pairwise_view(self.seed, self.conv.conversation_id, turn)
        choices = {c.id: (c.first, c.second) for c in view.comparisons}
        questions = {c.id: c.question_id for c in view.comparisons}
        task = prompts.pairwise_task(
            turn, self.codebook, self.spec, view.replies, choices, questions
        )
        self.records.append(
            await ask(
                self.em,
                self._analysis(turn.turn_number, task),
                pairwise_schema(
                    tuple((c, *pair) for c, pair in choices.items()), self.spec.verbose
                ),
                call="pairwise",
                turn=turn.turn_number,
                context={
                    "labels": view.labels,
                    "comparisons": {c.id: c.key for c in view.comparisons},
                },
            )
        )

    async def post(self) -> None:
        cb = self.codebook
        self.records.append(
            await ask(
                self.em,
                self._analysis(
                    len(self.conv.turns), prompts.post_task(cb, self.spec), include_last_reply=True
                ),
                post_schema(
                    tuple(cb.q1_options),
                    tuple(cb.q2_options),
                    tuple(cb.q3_options),
                    tuple(cb.follow_up_options),
                    self.spec.verbose,
                ),
                call="post",
                turn=None,
            )
        )

    async def turn(self, turn: VisibleTurn) -> None:
        async with span(f"turn {turn.turn_number}", type="turn"):
            await concurrently(
                self.draft_and_judge(turn),
                self.emotion(turn),
                self.binary_hp(turn),
                self.pairwise(turn),
            )

    async def run(self) -> None:
        async def post() -> None:
            async with span("post-conversation", type="turn"):
                await self.post()

        await concurrently(*(self.turn(t) for t in self.conv.turns), post())
        save_walk(self.records, str(self.judge) if self.judge is not None else None)


@solver
def attunebench_solver(mode: ModeSpec, codebook: Codebook, shuffle_seed: int) -> Solver:
    """Walk every turn of the conversation through the AttuneBench protocol."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        conv = visible_of(state.metadata)
        judge = get_model(role=JUDGE_ROLE, required=True) if judge_bound() else None
        walk = ConversationWalk(conv, codebook, mode, shuffle_seed, get_model(), judge)
        await walk.run()
        text = summarise(state.store, conv, judged=walk.judge is not None)
        state.messages.append(ChatMessageAssistant(content=text))
        state.output = ModelOutput.from_content(model=str(walk.em), content=text)
        return state

    return solve
