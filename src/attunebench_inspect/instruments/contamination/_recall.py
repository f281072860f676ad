"""Heuristic 3: does a completion write out, word for word, another published text of its
conversation?

Golchin & Surdeanu compare a completion only with the rest of its own text. A model fine-tuned
on the deposit (bench/contamination/, docs/contamination.md "A real model that has read the
conversations") answers the probe differently: shown the opening of a participant's message, it
writes out *other* texts of the same conversation that it learned, mostly the original assistant
response (`llmResponse`), under the general instruction as much as under the guided one. Neither
of the paper's heuristics sees that. This one does, as a mechanical rule:

- **The texts compared**: every text the deposit publishes for the conversation (`TEXT_FIELDS`:
  each turn's `userMessage`, `llmResponse`, `alternateResponses.llmImproved` and `.humanEdited`,
  and the topic's text), **except the instance's own text** (segment and reference: heuristic 2
  scores the reference). The model-written responses are compared although `_instances.py` leaves
  them out as instances: a model cannot continue a participant's text into the deposit's
  assistant response by style alone, only by having read it.
- **What the model was shown never counts.** A word of the completion is *shown* when it lies in
  a run of at least `ECHO_MIN_WORDS` = 4 consecutive words that also stands, in order, in the
  prompt (`shown_words` in `_overlap.py`: the rule the echo is judged by). A run of recall stops at
  a shown word, so echoing the segment, the instruction, or a published text that quotes the
  segment scores nothing, wherever in the completion the echo stands, and so does continuing
  the segment's own repeating pattern (a copy of shown runs: issue 45's pattern copier, tried
  in bench/audit/contamination.py). Removing shown words can only shorten a run.
- **The run**: the longest run of consecutive unshown words of the completion that also stands,
  in order, in one of the texts (`difflib.SequenceMatcher.find_longest_match`, junk heuristic
  off), after `_overlap.py`'s normalisation (NFKC, case folded, word characters). The text it
  matched is reported with it.
- **Recalled**: a completion's run is at least `RECALL_RUN_WORDS` = 13 words, the n-gram length
  Brown et al. use to call a benchmark example contaminated by its training data ("Language
  Models are Few-Shot Learners", NeurIPS 2020, section 4 and appendix C: any 13-gram shared with
  a training document). **Heuristic 3** holds when at least `RECALL_NEEDED` = 2 completions of
  the partition, guided or general, are recalled (the count of near-exact matches heuristic 2
  needs, for the same reason: one chance run must not decide).

**Calibration, on negatives only.** Added after a first measurement on a real fine-tuned model
(docs/contamination.md), the threshold was checked against completions of models that have *not*
read the texts: the untuned SmolLM2-135M-Instruct's 96 completions of the 4 conversations of
that run (both halves: longest run 4 words once the prompt's words are left out; 12 when they
were not, an echo), the fine-tuned model's 52 completions of the held-out half (longest 5),
and the offline negatives of the power benchmark (bench/contamination/probe_power.py: the
`attunebench/random` and `attunebench/majority` baselines, `memorizer/echo`,
`memorizer/paraphrase` and the generic `memorizer/recall` at share 0; longest run 8 words over
50 seeds of the whole data set, a fixed draft of a baseline that an assistant response also
holds). 13 is 5 words above the longest negative run. It is not a blind choice: the positive's
runs were published (bench/contamination/RESULTS.md) before it was fixed, so the verdicts it
gives are reported with their range: on every measured model and half, any threshold from 11 to
22 words gives the same verdicts (the `text` model's second-longest run on its trained half is
22; the `labels` model's two longest are 10, which a threshold of 9 or 10 would flag, 1 or 2
words above the negatives' 8: the threshold was not moved for it).

The control a reader might want, each completion against a *different* conversation's texts, is
measured beside the verdict (bench/contamination/results.py) and left out of it: a model
fine-tuned on a data set recalls its other conversations too (the fine-tuned model's completions
of one trained conversation share runs of up to 17 words with the other), so the control would
subtract the very recall it should leave.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

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
        texts = (turn.user_message, turn.om_response, turn.alternate_response, turn.human_response)
        found.extend(
            PublishedText(text_key(turn.turn_number, field), text)
            for field, text in zip(TEXT_FIELDS, texts, strict=True)
        )
    return found


def text_key(turn: int, field: str) -> str:
    """The key `published_texts` gives the text of a turn's field (deposit name, any prefix)."""
    return f"t{turn:02d} {field.rsplit('.', 1)[-1]}"


def _stretches(completion: Sequence[str], shown: Sequence[bool]) -> list[list[str]]:
    """The completion's maximal runs of unshown words."""
    stretches: list[list[str]] = [[]]
    for word, is_shown in zip(completion, shown, strict=True):
        if is_shown:
            stretches.append([])
        else:
            stretches[-1].append(word)
    return [s for s in stretches if s]


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
