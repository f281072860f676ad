"""Heuristic 3: does a completion write out, word for word, another published text of its
conversation? Added after a model fine-tuned on the deposit answered the probe with *other* texts
of the conversation it had learned (docs/contamination.md, "A real model that has read the
conversations"), which neither of the paper's heuristics reads.

A completion's **run** is its longest run of consecutive *unshown* words (not in a run of
`ECHO_MIN_WORDS` that stands in its prompt: `shown_words`, the echo's rule, so echoing or
continuing the shown text scores nothing) that stands, in order, in one published text of its
conversation other than the instance's own (`TEXT_FIELDS` and the topic), after `_overlap.py`'s
normalisation (`difflib.SequenceMatcher.find_longest_match`, junk heuristic off). It is
**recalled** at `RECALL_RUN_WORDS` = 13 words, the n-gram length of Brown et al.'s contamination
check (NeurIPS 2020); heuristic 3 holds at `RECALL_NEEDED` recalled completions (`_rules.py`). The
threshold was checked on negatives only, and why no cross-conversation control is subtracted:
docs/contamination.md, "What it does" and "The probe: verdict in the log".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache
from itertools import groupby

from ...data._split import VisibleConversation
from ._overlap import shown_words, words
from ._rules import RECALL_RUN_WORDS

TEXT_FIELDS = (
    "userMessage",
    "llmResponse",
    "annotations.alternateResponses.llmImproved",
    "annotations.alternateResponses.humanEdited",
)
"""The per-turn texts compared, as the deposit names the fields; the topic's text besides."""
TURN_FIELDS = ("user_message", "om_response", "alternate_response", "human_response")
"""`TEXT_FIELDS` as a visible turn names them."""
TOPIC_KEY = "topic"


@dataclass(frozen=True)
class PublishedText:
    """One text the deposit publishes for a conversation."""

    key: str
    """Where it is published: `t02 llmResponse`, or `topic`."""
    text: str


@dataclass(frozen=True)
class Recall:
    """A completion's longest run of another published text of its conversation."""

    run: int
    """Unshown words in the run (0 when none)."""
    text: str
    """The key of the text it matched ("" when the run is 0)."""
    words: str
    """The run's normalised words."""


NO_RECALL = Recall(0, "", "")


def published_texts(conv: VisibleConversation) -> list[PublishedText]:
    """Every text of `TEXT_FIELDS` of a conversation, and its topic's text (none of them a
    label: all are in the deposit's visible part)."""
    found = [PublishedText(TOPIC_KEY, conv.topic.text)]
    for turn in conv.turns:
        found.extend(
            PublishedText(text_key(turn.turn_number, field), getattr(turn, name))
            for field, name in zip(TEXT_FIELDS, TURN_FIELDS, strict=True)
        )
    return found


def text_key(turn: int, field: str) -> str:
    """The key `published_texts` gives the text of a turn's field (deposit name, any prefix)."""
    return f"t{turn:02d} {field.rsplit('.', 1)[-1]}"


def _stretches(completion: Sequence[str], shown: Sequence[bool]) -> list[list[str]]:
    """The completion's maximal runs of unshown words."""
    runs = groupby(zip(completion, shown, strict=True), key=lambda pair: pair[1])
    return [[word for word, _ in run] for is_shown, run in runs if not is_shown]


@lru_cache(maxsize=4096)
def _indexed(text: str) -> tuple[list[str], SequenceMatcher[str]]:
    """A published text's words, and a matcher holding them as its second sequence, the one
    difflib indexes. Cached: every instance of a conversation, and every seed and model, searches
    the same texts, and indexing them was most of the probe's time. `recall` sets the first
    sequence before each search and does not await, so the shared matcher is never caught
    between two searches."""
    target = words(text)
    return target, SequenceMatcher(None, b=target, autojunk=False)


def recall(completion: str, prompt: str, texts: Sequence[PublishedText], own: str) -> Recall:
    """The longest run of unshown words of `completion` (answering `prompt`) that stands in one
    of `texts` other than the one keyed `own` (the instance's own text). Ties go to the text
    listed first."""
    said = words(completion)
    stretches = _stretches(said, shown_words(said, words(prompt)))
    best = NO_RECALL
    for published in texts:
        if published.key == own:
            continue
        target, matcher = _indexed(published.text)
        for stretch in stretches:
            if len(stretch) <= best.run:
                continue
            matcher.set_seq1(stretch)
            match = matcher.find_longest_match(0, len(stretch), 0, len(target))
            if match.size > best.run:
                run = stretch[match.a : match.a + match.size]
                best = Recall(match.size, published.key, " ".join(run))
    return best


def recalled(found: Recall) -> bool:
    return found.run >= RECALL_RUN_WORDS
