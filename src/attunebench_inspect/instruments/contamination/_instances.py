"""The probe's instances: each published participant message and edited reply of at least
`MIN_TEXT_WORDS` words, read from `VisibleConversation` only, cut at a word boundary after a
seeded random share in [`SEGMENT_LOW`, `SEGMENT_HIGH`] of its words (Golchin & Surdeanu's 40-70%)
into the segment shown and the reference the model must complete. The draw is per instance, from
the run's seed and the instance's identity, so `--limit` and `--sample-id` move no other cut.
docs/contamination.md, "What it does" and "Where we depart from the paper", says why each choice.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from ...data._problems import DataProblem, InputError
from ...data._split import VisibleConversation

SEGMENT_LOW = 0.4
SEGMENT_HIGH = 0.7
"""The shown segment's share of a text's words is drawn uniformly in [SEGMENT_LOW, SEGMENT_HIGH]
(Golchin & Surdeanu's code: min_p=40, max_p=70)."""
MIN_TEXT_WORDS = 20
"""Texts with fewer words are not probed."""

Kind = Literal["message", "edited_reply"]
FIELDS: dict[Kind, str] = {
    "message": "userMessage",
    "edited_reply": "annotations.alternateResponses.humanEdited",
}
"""Where each kind of instance is published, as the deposit names the field."""

_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class Instance:
    """One published text, cut into the segment shown and the reference to complete."""

    conversation_id: str
    turn: int
    kind: Kind
    segment: str
    reference: str
    words: int
    """Words in the whole text."""
    shown: int
    """Words in the segment."""

    @property
    def key(self) -> str:
        """Unique within a conversation: `t03-message`."""
        return f"t{self.turn:02d}-{self.kind}"

    @property
    def where(self) -> str:
        """Where the text is published, for one-line messages."""
        return f"conversation {self.conversation_id}: turn {self.turn}: {FIELDS[self.kind]}"


@dataclass(frozen=True)
class Selection:
    instances: list[Instance]
    not_probed: list[DataProblem]
    """Texts too short to probe, one located line each."""


def split_text(text: str, fraction: float, where: str) -> tuple[str, str]:
    """The text's first `round(fraction * words)` words as it is written (the segment) and the
    rest (the reference); both must hold at least one word."""
    words = list(_WORD.finditer(text))
    shown = round(fraction * len(words))
    if shown < 1:
        raise InputError(
            f"{where}: the segment shown would be empty (cut after {shown} of {len(words)} "
            f"word(s) at {fraction:.2f}); expected at least one word shown"
        )
    if shown >= len(words):
        raise InputError(
            f"{where}: nothing would be left to complete (cut after {shown} of {len(words)} "
            f"word(s) at {fraction:.2f}); expected at least one word after the segment"
        )
    return text[: words[shown - 1].end()], text[words[shown].start() :]


def _texts(conv: VisibleConversation) -> list[tuple[int, Kind, str]]:
    found: list[tuple[int, Kind, str]] = []
    for turn in conv.turns:
        found.append((turn.turn_number, "message", turn.user_message))
        found.append((turn.turn_number, "edited_reply", turn.human_response))
    return found


def nothing_to_probe(conversations: Sequence[tuple[str, VisibleConversation]], data: str) -> str:
    """Why a data set has no instance, in one line (what a bill of the probe cannot price)."""
    longest = max(
        (len(_WORD.findall(text)) for _, conv in conversations for _, _, text in _texts(conv)),
        default=0,
    )
    return (
        f"{data}: no text long enough to probe: found at most {longest} word(s) in a "
        f"participant message or edited reply; expected at least one of {MIN_TEXT_WORDS} words "
        "or more"
    )


def select(conversations: Sequence[tuple[str, VisibleConversation]], seed: int) -> Selection:
    """Every instance of `conversations` ((source file, conversation) pairs) long enough to
    probe, cut for `seed` (none where no text is long enough)."""
    instances: list[Instance] = []
    not_probed: list[DataProblem] = []
    for source, conv in conversations:
        for turn, kind, text in _texts(conv):
            count = len(_WORD.findall(text))
            if count < MIN_TEXT_WORDS:
                not_probed.append(
                    DataProblem(
                        source,
                        turn,
                        FIELDS[kind],
                        f"{count} word(s)",
                        f"at least {MIN_TEXT_WORDS} words to probe (not probed)",
                        conv.conversation_id,
                    )
                )
                continue
            where = f"{source}: turn {turn}: {FIELDS[kind]}"
            drawn = f"{seed}/{conv.conversation_id}/{turn}/{kind}"
            digest = hashlib.sha256(drawn.encode()).hexdigest()
            fraction = random.Random(digest).uniform(SEGMENT_LOW, SEGMENT_HIGH)
            segment, reference = split_text(text, fraction, where)
            instances.append(
                Instance(
                    conversation_id=conv.conversation_id,
                    turn=turn,
                    kind=kind,
                    segment=segment,
                    reference=reference,
                    words=count,
                    shown=len(_WORD.findall(segment)),
                )
            )
    return Selection(instances, not_probed)
