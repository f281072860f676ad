"""The replay model `human/<annotator>` (`-M answers=FILE -M data=PATH [-M codebook=FILE]`):
answers every call of the protocol from an answer file, so a person's answers go through the
same solver, parser and scorers as a model's. It reads only what a model reads: the call from
its response schema's name (`call_of`), the conversation and turn by matching the transcript
exactly against the visible conversations (docs/human-baseline.md, 'The import')."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ContentText,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    modelapi,
)
from inspect_ai.tool import ToolChoice, ToolInfo

from ...data._codebook import load_codebook
from ...data._load import load_conversations
from ...data._problems import InputError
from ...data._source import resolve
from ...data._split import VisibleConversation, split
from ...solve._call_record import CallType
from ...solve._prompts import REPAIR, message_text, spine, upto
from ...solve._schemas import call_of
from ._answers import HUMAN_PROVIDER, Answers, problems_with_data, read_answers

Call = tuple[str, int | None]
"""(conversation id, turn number; None for the post-conversation call)."""
_REPAIR_HEAD = REPAIR.split("{")[0]


class CallIndex:
    """Which conversation and turn a call's messages belong to, by exact transcript match."""

    def __init__(self, conversations: Iterable[VisibleConversation]) -> None:
        # Analysis and judge calls: the second message is the conversation's blocks up to the
        # turn's message or its reply. Drafts: the chat so far, system left out.
        self.analysis: dict[tuple[str, ...], list[Call]] = defaultdict(list)
        self.drafts: dict[tuple[str, ...], list[Call]] = defaultdict(list)
        for conv in conversations:
            cid, blocks = conv.conversation_id, spine(conv)
            for turn in conv.turns:
                for reply in (False, True):
                    key = tuple(blocks[: upto(turn.turn_number, reply=reply)])
                    self.analysis[key].append((cid, turn.turn_number))
            chat: list[str] = []
            for turn in conv.turns:
                chat.append(turn.user_message)
                self.drafts[tuple(chat)].append((cid, turn.turn_number))
                chat.append(turn.om_response)

    def clashes(self) -> list[str]:
        """Conversations whose calls have the same messages (they open alike: the same first
        message, and the same topic for analysis calls): one replay cannot tell them apart."""
        tables: list[dict[Any, list[Call]]] = [self.analysis, self.drafts]
        found = {tuple(sorted({c for c, _ in calls})) for t in tables for calls in t.values()}
        return sorted(" and ".join(ids) for ids in found if len(ids) > 1)

    def find(self, call: CallType, messages: list[ChatMessage]) -> Call | None:
        if messages and messages[-1].role == "user" and messages[-1].text.startswith(_REPAIR_HEAD):
            messages = messages[:-2]  # the repair round asks the same call again
        if call == "draft":
            calls = self.drafts.get(tuple(message_text(m) for m in messages[1:]), [])
        elif len(messages) > 1 and isinstance(messages[1].content, list):
            key = tuple(c.text for c in messages[1].content if isinstance(c, ContentText))
            calls = self.analysis.get(key, [])
        else:
            calls = []
        if not calls:
            return None
        # The post-conversation call reads the whole conversation, as the last turn's do.
        cid, turn = calls[0]
        return (cid, None) if call == "post" else (cid, turn)


def _content(call: CallType, answer: Any) -> str:
    if call == "draft":
        return answer if isinstance(answer, str) else ""
    # An absent answer is an empty object: the parser names every field it lacks.
    return json.dumps(answer if answer is not None else {})


class HumanReplayAPI(ModelAPI):
    def __init__(
        self,
        model_name: str,
        base_url: str | None = None,
        api_key: str | None = None,
        config: GenerateConfig = GenerateConfig(),  # noqa: B008 (ModelAPI's own signature)
        answers: str | None = None,
        data: str | None = None,
        codebook: str | None = None,
        **model_args: Any,
    ) -> None:
        super().__init__(model_name, base_url, api_key, [], config)
        if not isinstance(answers, str):
            raise InputError(
                f"{HUMAN_PROVIDER}/{model_name} replays an answer file: pass -M answers=FILE "
                "(and -M data=PATH, the conversations it answers)"
            )
        self.answers: Answers = read_answers(answers)
        wanted = f"{HUMAN_PROVIDER}/{model_name}"
        if self.answers.model != wanted:
            raise InputError(f"{answers} holds the answers of {self.answers.model}, not {wanted}")
        source = resolve(data, codebook)
        book = load_codebook(source.codebook)
        visible = {
            c.conversation.conversationId: split(c.conversation)[0]
            for c in load_conversations(source.conversations, book).conversations
        }
        problems = problems_with_data(self.answers, visible, book)
        if problems:
            raise InputError("\n".join(problems))
        self.index = CallIndex(visible[cid] for cid in self.answers.ids)
        clashes = self.index.clashes()
        if clashes:
            raise InputError(
                f"{answers}: conversations {'; '.join(clashes)} open alike, so their calls "
                "cannot be told apart: put their answers in separate files"
            )

    async def generate(
        self,
        input: list[ChatMessage],
        tools: list[ToolInfo],
        tool_choice: ToolChoice,
        config: GenerateConfig,
    ) -> ModelOutput:
        schema = config.response_schema
        call = call_of(schema.name if schema is not None else None)
        if call == "judge":
            raise InputError(f"{self.answers.model} replays answers; it cannot be the judge")
        found = self.index.find(call, input)
        if found is None:
            raise InputError(
                f"a {call} call matches no conversation of {self.answers.path}: run only the "
                f"answered conversations (--sample-id {','.join(self.answers.ids)}) on the data "
                "they were given for"
            )
        cid, turn = found
        output = ModelOutput.from_content(
            model=self.answers.model, content=_content(call, self.answers.answer(cid, call, turn))
        )
        # A person's answers cost no tokens; set, so that Inspect does not count them (offline,
        # with a tokenizer download).
        output.usage = ModelUsage(input_tokens=0, output_tokens=0, total_tokens=0)
        return output

    async def count_text_tokens(self, text: str) -> int:
        return 0

    def max_connections(self) -> int:
        # Answers are looked up in microseconds.
        return 256


@modelapi(name=HUMAN_PROVIDER)
def human_replay() -> type[ModelAPI]:
    return HumanReplayAPI
