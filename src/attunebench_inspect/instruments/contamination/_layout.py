"""The files-layout probe (pure, no Inspect): has the model read the deposit's files as files?

A model trained on the files byte for byte may not answer the guided probe's chat at all, while it
continues the files themselves. This probe shows the start of a conversation's `document`, built
from its visible part only (`VisibleConversation`: no label reaches a prompt) in the deposit's
layout (keys in their order, two-space indentation), cut after each turn's `"userMessage": "`
(`layout_instances`), and the same cut of a never-published `control` (every text's words
shuffled under a new seeded ID). A continuation is scored by heuristic 3's measure
(`layout_run`, `_recall.py`), the control's against its own texts; the label cut (`_labels.py`)
is a second cut per turn, before the turn's first label key. docs/contamination.md, "The
files-layout probe", states the method and its sub-verdicts (`_rules.py`).
"""

from __future__ import annotations

import json
import random
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from ...data._split import VisibleConversation
from ._recall import TURN_FIELDS, PublishedText, published_texts, recall

LAYOUT_INSTRUCTION = (
    "Below is the start of a conversation file from the AttuneBench deposit (arXiv 2605.21739; "
    "one JSON file per conversation under Test Samples/Sample200/). Continue the file exactly as "
    "it is published, from where it stops. Write only the file's text."
)
"""The user message of a layout call; the document's start follows as the assistant's text."""
CUT_KEY = '"userMessage": "'
LABEL_KEY = '"moodShiftTags": ['
"""The key after a turn's original response in every published file, shown with its bracket by
the label cut (`_labels.py`): a key name, no label."""
RESPONSE_KEY = '"llmResponse": "'
LAYOUT_MAX_TURNS = 40
"""Turns a conversation's layout probe reads, its first: a call shows the document up to its turn,
so every turn more adds a call as long as the whole conversation so far (a 1,000-turn
conversation took 22 GB of memory here); the published conversations are far shorter, and a
longer one's other turns are listed as not probed."""
_ESCAPE = re.compile(r'\\(["\\/bfnrt]|u[0-9a-fA-F]{4})')
_SIMPLE = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}
_WORD = re.compile(r"\S+")


def document(conv: VisibleConversation) -> str:
    """The conversation's visible fields in the deposit's layout and key order."""
    turns = [
        {
            "turnNumber": t.turn_number,
            "userMessage": t.user_message,
            "llmResponse": t.om_response,
            "annotations": {
                "alternateResponses": {
                    "llmImproved": t.alternate_response,
                    "humanEdited": t.human_response,
                }
            },
        }
        for t in conv.turns
    ]
    topic = conv.topic
    published = {
        "conversationId": conv.conversation_id,
        "metadata": {"category": topic.category, "subtopic": topic.subtopic, "text": topic.text},
        "turns": turns,
    }
    return json.dumps(published, indent=2, ensure_ascii=False) + "\n"


@dataclass(frozen=True)
class LayoutInstance:
    conversation_id: str
    turn: int
    prefix: str
    """The document up to the cut, as shown."""
    control_prefix: str
    """The control document up to the same cut."""
    label_prefix: str = ""
    """The document up to the turn's label cut (`_labels.py`; "" in a log written before it)."""
    label_control_prefix: str = ""

    @property
    def key(self) -> str:
        return f"t{self.turn:02d}-layout"

    @property
    def where(self) -> str:
        return f"conversation {self.conversation_id}: turn {self.turn}: layout"


def _shuffled(text: str, rng: random.Random) -> str:
    words = _WORD.findall(text)
    rng.shuffle(words)
    return " ".join(words)


def control(conv: VisibleConversation, seed: int) -> VisibleConversation:
    """A conversation never published: the same layout and lengths, every text's words shuffled
    by the seed, under a new seeded ID."""
    rng = random.Random(f"layout-control/{seed}/{conv.conversation_id}")
    turns = [
        # Each text in `TURN_FIELDS`' order, the order it draws from the seed.
        t.model_copy(update={name: _shuffled(getattr(t, name), rng) for name in TURN_FIELDS})
        for t in conv.turns
    ]
    return conv.model_copy(
        update={"conversation_id": str(uuid.UUID(int=rng.getrandbits(128))), "turns": turns}
    )


def _cuts(text: str) -> list[int]:
    return [key.end() for key in re.finditer(re.escape(CUT_KEY), text)]


def label_cuts(text: str) -> list[str]:
    """Each turn's label cut of a document (layout.py's `document`): the text up to the end of
    the turn's `"llmResponse"` line, then `"moodShiftTags": [` at that line's indentation."""
    cuts = []
    for key in re.finditer(re.escape(RESPONSE_KEY), text):
        line_start = text.rfind("\n", 0, key.start()) + 1
        line_end = text.find("\n", key.start())
        cuts.append(text[:line_end] + "\n" + text[line_start : key.start()] + LABEL_KEY)
    return cuts


def layout_instances(conv: VisibleConversation, seed: int) -> list[LayoutInstance]:
    """One instance per turn of the first `LAYOUT_MAX_TURNS`: the document and its control,
    each cut after the turn's `"userMessage": "` and at its label cut (a turn's cuts stand before
    any later turn, so the documents are built of the turns probed alone)."""
    conv = conv.model_copy(update={"turns": conv.turns[:LAYOUT_MAX_TURNS]})
    real, fake = document(conv), document(control(conv, seed))
    return [
        LayoutInstance(conv.conversation_id, turn.turn_number, real[:a], fake[:b], c, d)
        for turn, a, b, c, d in zip(
            conv.turns, _cuts(real), _cuts(fake), label_cuts(real), label_cuts(fake), strict=True
        )
    ]


def unescaped(completion: str) -> str:
    """A completion of a JSON string with its escapes undone (a partial document need not
    parse)."""

    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        return chr(int(code[1:], 16)) if code.startswith("u") else _SIMPLE[code]

    return _ESCAPE.sub(one, completion)


def continuation(completion: str, prefix: str) -> str:
    """What the model wrote after the document's start: llama-server returns a continued
    assistant message whole, its given start included; a chat provider returns only its own."""
    return completion[len(prefix) :] if completion.startswith(prefix) else completion


def layout_run(completion: str, prefix: str, texts: Sequence[PublishedText]) -> int:
    """The completion's longest run of unshown words of one of `texts` (`_recall.py`'s measure,
    the instruction and the shown document as the prompt)."""
    prompt = LAYOUT_INSTRUCTION + "\n" + unescaped(prefix)
    return recall(unescaped(completion), prompt, texts, own="").run


def control_texts(conv: VisibleConversation, seed: int) -> list[PublishedText]:
    return published_texts(control(conv, seed))
