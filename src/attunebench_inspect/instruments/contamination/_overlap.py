"""How much of the unseen rest of a text a completion reproduces: ROUGE-L, exact and near-exact.

**ROUGE-L** (Lin 2004, "ROUGE: A Package for Automatic Evaluation of Summaries", ACL workshop
Text Summarization Branches Out) is the F-measure of the longest common subsequence of words,
computed by Google's `rouge-score` package (the maintained re-implementation of ROUGE-1.5.5), as
Golchin & Surdeanu score the first heuristic (their code loads Hugging Face `evaluate`'s "rouge",
which wraps `rouge-score`; F-measure, no stemming). It is computed against the **reference only**
(the words after the segment), never against the whole text, so text the model was shown cannot
count as recalled.

**Normalisation** (one rule for every comparison): Unicode NFKC, case folded, words are runs of
Unicode word characters (`\\w+`); punctuation and spacing are ignored. This is `rouge-score`'s
own default (lower case, non-alphanumerics dropped) extended to non-ASCII letters, which its
default tokenizer deletes.

**An echo is not a recall.** A word of the completion is *echoed* where it lies in a run of at
least `ECHO_MIN_WORDS` = 4 words that stands, in order, in the prompt it answers (the instruction
and the segment: the whole shown text), wherever in the completion it stands, and in no such run
of the reference; echoed words, and an opening "FIRST PIECE"/"SECOND PIECE" label, are removed
before anything is scored. A completion that only repeats what it was shown therefore scores 0,
whatever precedes the repetition. What the reference holds is never removed: the true rest of a
text that repeats its own segment (a repetitive text) stays whole, so a model that recalls it is
scored on it (issue 45: removing it made a memorizer of such a text score 0). An echo that the
reference also holds then scores under both instructions alike, and the verdict counts a match
only where the general instruction's completion does not match (`_rules.py`): a text that any
model continues from its own start is no evidence of having read it.

**Exact and near-exact.** Golchin & Surdeanu's second heuristic has GPT-4 judge each guided
completion with a few-shot prompt: "exact match", or "near-exact match", which must "PRECISELY
match the reference ... in terms of sentence structure, overlap, and contextual similarity"
(their released code). No model judges here (the probe must run offline and judge
every model alike), so both are mechanical rules, fixed before any measurement:

- **exact**: the normalised completion equals the normalised reference, word for word.
- **near-exact**: not exact, and the ROUGE-L F-measure between the reference and the completion's
  first as many words as the reference has is at least `NEAR_EXACT_ROUGE_L` = 0.75. In-order word
  overlap is what "sentence structure, overlap" asks for. Cutting the completion at the
  reference's length follows the paper's own few-shot example 2, where a candidate that
  reproduces the reference and goes on is a near-exact match. The threshold 0.75 is the one
  Ippolito et al. use for "approximate memorization" (BLEU >= 0.75 between a generation and the
  true continuation; "Preventing Generation of Verbatim Memorization in Language Models Gives a
  False Sense of Privacy", INLG 2023). Departure: a paraphrase with little word overlap (the
  paper's examples 3 and 4) is not a near-exact match here; a model that recalls only the sense
  of a text is not flagged by this heuristic.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from ._rules import ECHO_MIN_WORDS, NEAR_EXACT_ROUGE_L, Match

if TYPE_CHECKING:
    from rouge_score.rouge_scorer import RougeScorer

_WORDS = re.compile(r"\w+")
_LABELS = (("first", "piece"), ("second", "piece"))


def words(text: str) -> list[str]:
    """The normalised words of a text: NFKC, case folded, runs of word characters."""
    return _WORDS.findall(unicodedata.normalize("NFKC", text).casefold())


class _Words:
    """`words` as rouge-score's tokenizer (any object with `tokenize`), for a text already
    reduced to normalised words."""

    def tokenize(self, text: str) -> list[str]:
        return text.split()


@cache
def _scorer() -> RougeScorer:
    # Imported on first use: rouge-score imports NLTK, most of a second that every
    # `import attunebench_inspect` (and `attunebench report`) would otherwise pay.
    from rouge_score.rouge_scorer import RougeScorer

    return RougeScorer(["rougeL"], use_stemmer=False, tokenizer=_Words())


def rouge_l_words(reference: list[str], candidate: list[str]) -> float:
    """ROUGE-L F-measure of two normalised word lists (0 when either is empty)."""
    if not reference or not candidate:
        return 0.0
    score = _scorer().score(" ".join(reference), " ".join(candidate))["rougeL"]
    return float(score.fmeasure)


def rouge_l(reference: str, completion: str) -> float:
    """ROUGE-L F-measure of two texts after normalisation."""
    return rouge_l_words(words(reference), words(completion))


def shown_words(completion: Sequence[str], prompt: Sequence[str]) -> list[bool]:
    """For each word of `completion`: does it lie in a run of at least `ECHO_MIN_WORDS` words
    that also stands, in order, in `prompt`? (Both normalised word lists.)"""
    n = ECHO_MIN_WORDS
    grams = {tuple(prompt[i : i + n]) for i in range(len(prompt) - n + 1)}
    shown = [False] * len(completion)
    for i in range(len(completion) - n + 1):
        if tuple(completion[i : i + n]) in grams:
            shown[i : i + n] = [True] * n
    return shown


def strip_echo(shown: str, reference: str, completion: str) -> tuple[list[str], int]:
    """The completion's normalised words with every echo of `shown` (the prompt) that the
    reference does not hold removed, and any opening FIRST/SECOND PIECE label; and how many words
    were removed."""
    said = words(completion)
    target = words(reference)
    echoed = [
        in_prompt and not in_reference
        for in_prompt, in_reference in zip(
            shown_words(said, words(shown)), shown_words(said, target), strict=True
        )
    ]
    left = [word for word, echo in zip(said, echoed, strict=True) if not echo]
    while tuple(left[:2]) in _LABELS and left[:2] != target[:2]:
        left = left[2:]
    return left, len(said) - len(left)


@dataclass(frozen=True)
class Overlap:
    """One completion against its reference."""

    rouge_l: float
    """ROUGE-L F-measure of the whole completion, echo removed, against the reference."""
    match: Match
    echoed: int
    """Words removed as an echo of the prompt, or an opening label."""
    empty: bool
    """The model returned no text at all."""


def overlap(shown: str, reference: str, completion: str) -> Overlap:
    """Score a completion of the prompt `shown` against `reference`, the unseen rest of the
    text."""
    left, echoed = strip_echo(shown, reference, completion)
    target = words(reference)
    match: Match = "none"
    if target and left == target:
        match = "exact"
    elif rouge_l_words(target, left[: len(target)]) >= NEAR_EXACT_ROUGE_L:
        match = "near_exact"
    return Overlap(
        rouge_l=rouge_l_words(target, left),
        match=match,
        echoed=echoed,
        empty=not completion.strip(),
    )
