"""Fuzzy matching of short answers: the one rule by which two entries count as the same answer
("Too formal, clinical" vs "Too formal or clinical"), for the Q3 follow-up metric, the data
checks and the profile task's placing of labels. Below both `data/` and `score/`, so that neither
imports the other for it."""

from __future__ import annotations

import difflib
from collections.abc import Sequence

import numpy as np
from scipy.optimize import linear_sum_assignment

FUZZY_THRESHOLD = 0.8
"""The smallest difflib similarity ratio, after `normalise`, at which two entries match."""
SEPARATOR = ";"
"""Between the entries of an answer written in one's own words."""


def normalise(text: str) -> str:
    """Lower case, commas as spaces, runs of whitespace as one space, no edge space."""
    return " ".join(text.lower().replace(",", " ").split())


def close(a: str, b: str) -> bool:
    """Whether two normalised entries match: difflib ratio >= FUZZY_THRESHOLD."""
    pair = difflib.SequenceMatcher(None, a, b)
    # difflib's cheap upper bounds first: a label of 100,000 characters against 230 short ones
    # took 13 s by the ratio alone, and no pair of very different lengths can match.
    return (
        pair.real_quick_ratio() >= FUZZY_THRESHOLD
        and pair.quick_ratio() >= FUZZY_THRESHOLD
        and pair.ratio() >= FUZZY_THRESHOLD
    )


def matches(a: str, b: str) -> bool:
    """Whether two entries match once normalised."""
    return close(normalise(a), normalise(b))


def distinct(entries: Sequence[str]) -> list[str]:
    """The entries as a set: normalised, each once (the first kept), blank ones dropped."""
    return list(dict.fromkeys(n for n in map(normalise, entries) if n))


def matched(pred: Sequence[str], gold: Sequence[str]) -> int:
    """The size of a maximum one-to-one matching between the distinct entries of `pred` and of
    `gold`, two entries being matchable when they `match`: each entry is matched at most once,
    and as many pairs are matched as can be."""
    p, g = distinct(pred), distinct(gold)
    if not p or not g:
        return 0
    able = np.array([[close(a, b) for b in g] for a in p], dtype=float)
    # On 0/1 weights the assignment of largest total weight is a matching of largest size.
    rows, cols = linear_sum_assignment(able, maximize=True)
    return int(able[rows, cols].sum())


def entries(text: str) -> list[str]:
    """The entries of an answer in one's own words: the trimmed parts between semicolons, if any."""
    return [part.strip() for part in text.split(SEPARATOR) if part.strip()]
