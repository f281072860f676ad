"""The per-turn protocol as one Inspect solver. The protocol never feeds predictions back, so
any call may run beside any other; the schedule (`_schedule.py`) orders a conversation's calls
for the providers' prompt caches (docs/cost-and-scale.md, 'Requests a prompt cache can serve').
Each call's parsed prediction and status go to the store, which is all the scorers read. Each
turn is one span, its calls in a plain task group, and the records reach the store when the walk
ends (why both: docs/performance.md, 'One span per turn' and 'Records reach the store'). A
readable account of the walk (`summarise`) ends the sample's messages, for `inspect view`."""

from __future__ import annotations

import random
from collections.abc import Awaitable, Mapping
from dataclasses import dataclass
from typing import Literal

import anyio
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    Model,
    ModelOutput,
    get_model,
    model_roles,
)
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import Store, span

from ..data._codebook import Codebook
from ..data._samples import visible_of
from ..data._schema import ResponseSource
from ..data._split import VisibleConversation, VisibleTurn
from . import _prompts as prompts
from ._ask import ask
from ._call_record import CallRecord, CallType
from ._credentials import warn_credentials
from ._judges import checked_panel, judge_draft, made_in_eval, say_self_judging
from ._modes import ModeSpec
from ._predictions import ReplyReading
from ._provider_rules import AnswerFormat, blocks, breakpoints, request_policy
from ._schedule import CallKey, Schedule, after, resolve_schedule
from ._schemas import CallSchema, binary_hp_schema, emotion_schema, pairwise_schema, post_schema
from ._store import mark_epoch, read_walk, save_walk

ReplyCall = Literal["emotion", "binary_hp"]
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


def pairwise_labels(
    seed: int, conversation_id: str, turn: int, epoch: int = 1
) -> dict[str, ResponseSource]:
    """Neutral label -> source, in a seeded order per conversation and turn that the epochs
    walk through evenly: epoch 1 the seeded shuffle of task version 3-A, epochs 1-6 each of the
    six orders once, epoch k > 6 as epoch k - 6 (the walk and why: docs/stability.md, 'Another
    order in every epoch, every order in six')."""
    order = list(SOURCES)
    seeded = f"{seed}/{conversation_id}/{turn}"
    random.Random(seeded).shuffle(order)
    step = (epoch - 1) % 6
    first_rotation = random.Random(f"{seeded}/rotation").choice((1, 2))
    rotation = (0, first_rotation, 3 - first_rotation)[step // 2]
    order = order[rotation:] + order[:rotation]
    if step % 2:
        order.reverse()
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
    """What the pairwise call (and the human page) shows: the replies, labelled, and comparisons."""

    labels: dict[str, ResponseSource]
    replies: list[tuple[str, str]]
    """(label, text) in display order."""
    comparisons: list[LabelledComparison]


def pairwise_view(
    seed: int, conversation_id: str, turn: VisibleTurn, epoch: int = 1
) -> PairwiseView:
    """The pairwise call of a turn in an epoch (the human baseline's page shows epoch 1's)."""
    labels = pairwise_labels(seed, conversation_id, turn.turn_number, epoch)
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


class ConversationWalk:
    """The calls of one conversation, built only from its visible part."""

    def __init__(
        self,
        conv: VisibleConversation,
        codebook: Codebook,
        spec: ModeSpec,
        seed: int,
        model: Model,
        judges: Mapping[str, Model],
        answer_format: AnswerFormat = "auto",
        schedule: Schedule = "auto",
        epoch: int = 1,
    ) -> None:
        self.conv = conv
        self.codebook = codebook
        self.spec = spec
        self.seed = seed
        self.epoch = epoch
        self.model = model
        self.judges = dict(judges)
        """model role -> judge, in panel order; empty: no judge."""
        self.policy = request_policy(model, answer_format, conv.conversation_id)
        self.judge_policies = {
            role: request_policy(judge, answer_format, conv.conversation_id)
            for role, judge in self.judges.items()
        }
        self.system = ChatMessageSystem(content=prompts.analyst_system(conv, spec))
        self.spine = prompts.spine(conv)
        self.records: list[CallRecord] = []
        self.schedule = resolve_schedule(schedule, model)
        self.done: dict[CallKey, anyio.Event] = {}

    def _done(self, call: CallType, turn: int | None) -> anyio.Event:
        return self.done.setdefault((call, turn), anyio.Event())

    async def _after(self, call: CallType, turn: int | None) -> None:
        """Wait for the calls this one follows (`after`), then run it."""
        for key in after(call, turn, len(self.conv.turns), self.schedule):
            await self._done(*key).wait()

    def _analysis(self, call: CallType, turn: int, *, reply: bool, task: str) -> list[ChatMessage]:
        """Shared prefix first (system, the conversation's blocks up to the turn's message or its
        reply), the call's own text last."""
        count = prompts.upto(turn, reply=reply)
        return [
            self.system,
            ChatMessageUser(content=blocks(self.spine[:count], breakpoints(call, count))),
            ChatMessageUser(content=task),
        ]

    async def _ask(
        self,
        messages: list[ChatMessage],
        schema: CallSchema | None,
        call: CallType,
        turn: int | None,
        context: dict[str, object] | None = None,
    ) -> CallRecord:
        record = await ask(
            self.model, messages, schema, call=call, turn=turn, policy=self.policy, context=context
        )
        self.records.append(record)
        self._done(call, turn).set()
        return record

    async def draft_and_judge(self, turn: VisibleTurn) -> None:
        n = turn.turn_number
        await self._after("draft", n)
        messages: list[ChatMessage] = [
            ChatMessageSystem(content=prompts.draft_system(self.conv, self.spec))
        ]
        # Each message as a block, as the next draft sends it (a plain string would not be its
        # prefix byte for byte): the breakpoint after this turn's message is the only change.
        for earlier in self.conv.turns[: n - 1]:
            messages.append(ChatMessageUser(content=blocks([earlier.user_message])))
            messages.append(ChatMessageAssistant(content=earlier.om_response))
        messages.append(
            ChatMessageUser(content=blocks([turn.user_message], breakpoints("draft", 1)))
        )
        draft = await self._ask(messages, None, "draft", n)
        await self._after("judge", n)
        # An unusable draft is scored as wrong without spending a judge call on it.
        if draft.prediction:
            text = draft.prediction["text"]
            await concurrently(*(self.judge_one(role, turn, text) for role in self.judges))
        # Set whether or not the draft was judged: the next judgements wait for these.
        self._done("judge", n).set()

    async def judge_one(self, role: str, turn: VisibleTurn, draft: str) -> None:
        """One judge of the panel on the turn's draft."""
        self.records.append(
            await judge_draft(
                self.judges[role],
                self.conv,
                turn,
                draft,
                self.codebook,
                self.judge_policies[role],
                self.spine,
                role,
            )
        )

    async def about_reply(self, turn: VisibleTurn, call: ReplyCall) -> None:
        """A question about the turn's reply (emotion, or the binary questions HP-facing): its
        blocks reach the reply. The turn's prefix writer also marks the participant's message,
        the pairwise call's prefix; the next turn's writer reads past the reply."""
        n = turn.turn_number
        await self._after(call, n)
        emotion = call == "emotion"
        make_schema = emotion_schema if emotion else binary_hp_schema
        schema = make_schema(tuple(turn.binary_question_ids), self.spec.verbose)
        task = prompts.reply_task(turn, self.codebook, schema.shape, observer=emotion)
        await self._ask(self._analysis(call, n, reply=True, task=task), schema, call, n)

    async def pairwise(self, turn: VisibleTurn) -> None:
        n = turn.turn_number
        await self._after("pairwise", n)
        view = pairwise_view(self.seed, self.conv.conversation_id, turn, self.epoch)
        choices = {c.id: (c.first, c.second) for c in view.comparisons}
        questions = {c.id: c.question_id for c in view.comparisons}
        schema = pairwise_schema(
            tuple((c, *pair) for c, pair in choices.items()), self.spec.verbose
        )
        task = prompts.pairwise_task(
            turn, self.codebook, view.replies, choices, questions, schema.shape
        )
        await self._ask(
            self._analysis("pairwise", n, reply=False, task=task),
            schema,
            "pairwise",
            n,
            context={
                "labels": view.labels,
                "comparisons": {c.id: c.key for c in view.comparisons},
            },
        )

    async def post(self) -> None:
        count = len(self.conv.turns)
        await self._after("post", None)
        cb = self.codebook
        schema = post_schema(
            tuple(cb.q1_options),
            tuple(cb.q2_options),
            tuple(cb.q3_options),
            tuple(cb.follow_up_options),
            self.spec.verbose,
        )
        await self._ask(
            self._analysis("post", count, reply=True, task=prompts.post_task(cb, schema.shape)),
            schema,
            "post",
            None,
        )

    async def turn(self, turn: VisibleTurn) -> None:
        async with span(f"turn {turn.turn_number}", type="turn"):
            await concurrently(
                self.draft_and_judge(turn),
                self.about_reply(turn, "binary_hp"),
                self.about_reply(turn, "emotion"),
                self.pairwise(turn),
            )

    async def run(self) -> None:
        async def post() -> None:
            async with span("post-conversation", type="turn"):
                await self.post()

        await concurrently(*(self.turn(t) for t in self.conv.turns), post())
        save_walk(self.records, {role: str(judge) for role, judge in self.judges.items()})


def _status(record: CallRecord | None) -> str:
    if record is None:
        return "missing"
    return record.status if record.status != "failed" else f"PARSE FAILURE ({record.error})"


def _mood(reading: ReplyReading | None) -> str:
    if reading is None:
        return "-"
    return ", ".join(f"{k} {v}" for k, v in reading.mood_shift.items()) or "no shift"


def summarise(store: Store, conv: VisibleConversation) -> str:
    calls: tuple[CallType, ...] = ("draft", "emotion", "binary_hp", "pairwise")
    walk = read_walk(store)
    lines = [f"AttuneBench walk of {conv.conversation_id} ({len(conv.turns)} turns)"]
    for turn in conv.turns:
        n = turn.turn_number
        statuses = [f"{c} {_status(walk.get(c, n))}" for c in calls]
        # Each judge of the panel after the draft, by its model role.
        statuses[1:1] = [f"{role} {_status(walk.judgement(role, n))}" for role in walk.judges]
        mood = _mood(walk.turn(n).reading)
        lines.append(f"Turn {n}: {'; '.join(statuses)}; predicted mood shift: {mood}")
    lines.append(f"Post-conversation: {_status(walk.get('post', None))}")
    return "\n".join(lines)


@solver
def attunebench_solver(
    mode: ModeSpec,
    codebook: Codebook,
    shuffle_seed: int,
    answer_format: AnswerFormat = "auto",
    schedule: Schedule = "auto",
    allow_self_judge: bool = False,
) -> Solver:
    """Walk every turn of the conversation through the AttuneBench protocol; the pairwise
    replies in the order of the sample's epoch, every draft judged by each judge of the panel."""
    said: set[str] = set()
    """What this run has warned of (credentials in a base URL, self-judging): said once."""
    # A task made inside its eval said its self-judging as it was made (`panel_at_creation`).
    judging_said = made_in_eval()

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        mark_epoch(state.epoch)
        conv = visible_of(state.metadata)
        model = get_model()
        judges = {
            role: get_model(role=role, required=True) for role in checked_panel(model_roles())
        }
        warn_credentials(said, model, *judges.values())
        named = {role: str(judge) for role, judge in judges.items()}
        if not judging_said:
            say_self_judging(str(model), named, allow_self_judge, said=said)
        walk = ConversationWalk(
            conv,
            codebook,
            mode,
            shuffle_seed,
            model,
            judges,
            answer_format,
            schedule,
            epoch=state.epoch,
        )
        await walk.run()
        text = summarise(state.store, conv)
        state.messages.append(ChatMessageAssistant(content=text))
        state.output = ModelOutput.from_content(model=str(walk.model), content=text)
        return state

    return solve
