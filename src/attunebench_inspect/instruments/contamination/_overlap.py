"""How much of the unseen rest of a text a completion reproduces: ROUGE-L, exact and near-exact.

ROUGE-L is the F-measure of the longest common subsequence of words (Lin 2004), by Google's
`rouge-score` (the maintained re-implementation, as Golchin & Surdeanu score heuristic 1), against
the reference only, never the whole text. Every comparison normalises alike: NFKC, case folded,
words as runs of Unicode word characters (`rouge-score`'s default, which deletes non-ASCII
letters, extended to them). Echoed words (in a run of `ECHO_MIN_WORDS` that stands in the prompt
and in no such run of the reference) and an opening FIRST/SECOND PIECE label are removed before
anything is scored, so repeating what was shown scores nothing and the true rest of a repetitive
text stays whole. **Exact**: the normalised completion is the reference; **near-exact**: ROUGE-L
of its first as many words as the reference has is at least `NEAR_EXACT_ROUGE_L` (Ippolito et
al., INLG 2023), a mechanical stand-in for the paper's GPT-4 judge. docs/contamination.md, "What
it does" and "Where we depart from the paper", gives the reasons.
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
