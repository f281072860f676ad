"""The probe's instances: published texts cut, at a seeded random length, into what is shown and
what the model must complete.

Golchin & Surdeanu, "Time Travel in LLMs: Tracing Data Contamination in Large Language Models"
(ICLR 2024, arXiv 2308.08493) show a model "the random-length initial segment of a reference
instance" and compare its completion with the rest. Their code
(their released code, github.com/shahriargolchin/time-travel-in-llms) cuts at a point
drawn uniformly between 40% and 70% of the instance's length, in sentences where it has more than
one and in words otherwise. What we follow and where we depart:

- **Instances** are the texts the deposit publishes and the main task also shows the model: each
  turn's participant message (`userMessage`) and the participant's edited reply
  (`alternateResponses.humanEdited`), read from `VisibleConversation` only, so no label can reach
  a prompt. The original and the model-improved responses are left out: they were written by
  models, so a model could reproduce them from its own style rather than from memory.
- **The cut** is drawn uniformly in [`SEGMENT_LOW`, `SEGMENT_HIGH`] = [0.4, 0.7] of the text's
  words (the authors' defaults), rounded to a whole number of words, always at a word boundary.
  Departure: always words, never sentences (a sentence splitter such as NLTK's punkt would be
  downloaded at run time, and a participant's messages are often one long unpunctuated sentence).
  Departure: the length is drawn per instance from the run's `seed` and the instance's identity
  (conversation, turn, kind), so `--limit` and `--sample-id` do not move other instances' cuts;
  the authors' code reseeds the same draw for every instance.
- **Too short to probe**: a text of fewer than `MIN_TEXT_WORDS` = 20 words is not probed (listed
  in the log's task metadata). With the cut in [0.4, 0.7], 20 words leave at least 6 words to
  complete and show at least 8: an exact or near-exact completion of 6 or more words of a
  person's own writing is not a chance event, and a shorter reference would be (the general
  instruction completes "thank you so much" too).
- **Every instance** of the probed conversations is used (the paper draws 10 per partition); the
  verdict's minimum number of instances is in verdict.py.

A data set with no text long enough to probe is not an error: the probe runs, probes nothing and
reads "cannot decide: no text long enough to probe" (verdict.py). A cut that would leave the
shown segment or the reference empty is one located line.
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
KINDS: tuple[Kind, ...] = ("message", "edited_reply")
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


def cut_fraction(seed: int, conversation_id: str, turn: int, kind: Kind) -> float:
    """The segment's share of the text's words, seeded by the run and the instance alone."""
    digest = hashlib.sha256(f"{seed}/{conversation_id}/{turn}/{kind}".encode()).hexdigest()
    return random.Random(digest).uniform(SEGMENT_LOW, SEGMENT_HIGH)


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
            fraction = cut_fraction(seed, conv.conversation_id, turn, kind)
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
