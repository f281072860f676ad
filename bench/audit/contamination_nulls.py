"""Structured nulls of the contamination probe's audit rows (contamination.py): models that know
no data but carry a structure a verdict could read as recall, and conversations of another shape
to try them on (issue 45: a pattern read as recall).

- **Repetitive conversations** (synthetic): each bundled conversation with every published text
  (the message, the original response and both alternates of every turn) replaced by its own
  opening sentence, cut to `UNIT_WORDS` words, repeated up to the text's own length, under a new
  ID. They are written in the published format, read by the suite's own loader, and labelled
  synthetic (`_synthetic`); they are made in a temporary folder at every run, never in dataset/.
  A piece of such a text predicts its own rest: any model that continues a pattern completes it.
- **Pattern copier**: shown a piece of text, it goes on with the piece's own repeating pattern as
  an induction head does (Olsson et al., "In-context Learning and Induction Heads", 2022): each
  next word is the one that followed the latest earlier occurrence of the longest stretch (up to
  `CONTEXT` words) that ends the text so far. It writes as many words as it was shown (at most
  the call's output cap), after a one-line preface, as chat models open.
- **Prompt echoer**: the same preface, then the whole prompt it was shown, word for word.

Neither knows any data set, and each answers the guided and the general instruction alike (it
reads only the piece shown): whatever either completes, any model completes.
"""

from __future__ import annotations

import copy
import json
import random
import re
import uuid
from functools import lru_cache
from pathlib import Path
from typing import Any

from attunebench_inspect.instruments.contamination._prompts import shown_segment
from attunebench_inspect.instruments.contamination._solver import MAX_TOKENS

UNIT_WORDS = (5, 12)
"""A repetitive text's unit: its opening sentence, cut to at most 12 words (at least 5: a one-
word sentence is no pattern)."""
CONTEXT = 8
"""The longest stretch the pattern copier looks back for."""
PREFACE = "Sure, here it is."
_TOKEN = re.compile(r"\w+|[^\w\s]")
_GAP = "\x00"
_SENTENCE_END = re.compile(r"[.!?]$")
_TEXTS = ("userMessage", "llmResponse")
_ALTERNATES = ("llmImproved", "humanEdited")


def repeated(text: str) -> str:
    """`text`'s opening sentence (UNIT_WORDS long) repeated up to the text's own word count."""
    said = text.split()
    ends = [i + 1 for i, word in enumerate(said) if _SENTENCE_END.search(word)]
    low, high = UNIT_WORDS
    unit = said[: min(max(ends[0] if ends else high, low), high)]
    return " ".join((unit * (len(said) // max(len(unit), 1) + 1))[: len(said)])


def repetitive(raw: dict[str, Any], index: int) -> dict[str, Any]:
    """A synthetic repetitive conversation made from a published one (its labels unchanged)."""
    conv = copy.deepcopy(raw)
    conv["conversationId"] = str(
        uuid.UUID(int=random.Random(f"repetitive/{index}").getrandbits(128), version=4)
    )
    conv["_synthetic"] = (
        f"Synthetic repetitive conversation made by bench/audit/contamination_nulls.py from "
        f"{raw['conversationId']}; not AttuneBench data."
    )
    for turn in conv["turns"]:
        for key in _TEXTS:
            turn[key] = repeated(turn[key])
        alternates = turn["annotations"]["alternateResponses"]
        for key in _ALTERNATES:
            alternates[key] = repeated(alternates[key])
    return conv


def write_repetitive(source: Path, folder: Path) -> Path:
    """Every conversation file of `source` made repetitive, written to `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    for index, path in enumerate(sorted(source.glob("*.json"))):
        raw = json.loads(path.read_text(encoding="utf-8"))
        made = repetitive(raw, index)
        target = folder / f"repetitive-{path.name}"
        target.write_text(json.dumps(made, indent=2, ensure_ascii=False), encoding="utf-8")
    return folder


@lru_cache(maxsize=8192)
def continue_pattern(shown: str, count: int) -> tuple[str, ...]:
    """`count` words that continue `shown`'s own pattern (the induction rule above); where no
    stretch recurs, the copy starts over from the text's first word."""
    seq = _TOKEN.findall(shown.replace(_GAP, " "))
    if not seq:
        return ()
    # The words joined by a separator no word holds: the latest earlier occurrence of a stretch
    # followed by a word is the last match of the stretch between two separators.
    text = _GAP + _GAP.join(seq)
    written: list[str] = []
    while len(written) < count:
        found = seq[0]
        for k in range(min(CONTEXT, len(seq)), 0, -1):
            at = text.rfind(_GAP + _GAP.join(seq[-k:]) + _GAP)
            if at >= 0:
                start = at + len(_GAP.join(seq[-k:])) + 2
                end = text.find(_GAP, start)
                found = text[start:] if end < 0 else text[start:end]
                break
        seq.append(found)
        text += _GAP + found
        written.append(found)
    return tuple(written)


def copier(prompt: str, most: int = MAX_TOKENS) -> str:
    """The pattern copier's answer: the shown piece (a guided or general prompt's, else the
    whole prompt) continued by its own pattern, after the preface: as many words as it was
    shown, at most `most` (the call's output cap, in words)."""
    shown = shown_segment(prompt) or prompt
    count = min(len(_TOKEN.findall(shown)), most)
    return f"{PREFACE} " + " ".join(continue_pattern(shown, count))


def echoer(prompt: str) -> str:
    """The prompt echoer's answer: the preface, then the prompt."""
    return f"{PREFACE} {prompt}"
