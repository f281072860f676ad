"""Every AttuneBench metric as a pure function of predictions and ground truth: the arithmetic
that scorers/METRICS.md defines and the conformance vectors pin. A `None` prediction is an answer
that could not be parsed, scored as wrong; NaN means the metric does not apply."""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar, cast

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import linear_sum_assignment

from .._util import text_match
from ..data._panas import PANAS_ITEMS, affect_totals
from ._vad import INDEX, SIMILARITY

NAN = float("nan")
COMPOSITE_WEIGHTS = {"emotion": 0.24, "evaluation": 0.49, "holistic": 0.27}
NAIVE_MAE_FLOOR = 1 / 20
"""The smallest non-zero 20-item MAE (one item off by one): the denominator of PANAS
Baseline-Adjusted when the participant's PANAS did not change at all."""


def nanmean(values: Sequence[float]) -> float:
    kept = [v for v in values if not math.isnan(v)]
    return sum(kept) / len(kept) if kept else NAN


# --- emotion ------------------------------------------------------------------------------


def _empty_sets(pred: Mapping[str, int] | None, gold: Mapping[str, int]) -> float | None:
    """The set metrics' edge cases: an unparsed answer or exactly one empty set is 0, a correct
    "no shift" is 1; None when both sets have emotions."""
    if pred is None or bool(pred) != bool(gold):
        return 0.0
    return 1.0 if not pred else None


def emotion_f1(pred: Mapping[str, int] | None, gold: Mapping[str, int]) -> float:
    """F1 of predicted vs labelled mood-shift emotions; both empty = 1, one empty = 0."""
    edge = _empty_sets(pred, gold)
    if edge is not None or pred is None:
        return edge or 0.0
    common = len(set(pred) & set(gold))
    return 2 * common / (len(pred) + len(gold))


def emotion_va(pred: Mapping[str, int] | None, gold: Mapping[str, int]) -> float:
    """Hungarian-matched valence-arousal similarity / max(|pred|, |gold|)."""
    edge = _empty_sets(pred, gold)
    if edge is not None or pred is None:
        return edge or 0.0
    rows = [INDEX[p] for p in pred]
    cols = [INDEX[g] for g in gold]
    sub = SIMILARITY[np.ix_(rows, cols)]
    r, c = linear_sum_assignment(sub, maximize=True)
    return float(sub[r, c].sum()) / max(len(pred), len(gold))


def emotion_intensity_mae(pred: Mapping[str, int] | None, gold: Mapping[str, int]) -> float:
    """Mean |intensity difference| over emotions both tagged; NaN when none is shared."""
    if pred is None:
        return NAN
    shared = set(pred) & set(gold)
    if not shared:
        return NAN
    return sum(abs(pred[e] - gold[e]) for e in shared) / len(shared)


def emotion_hit_rate(pred: Mapping[str, int] | None, gold: Mapping[str, int]) -> float:
    """Share of labelled emotions that were predicted (recall); NaN for a neutral turn."""
    if not gold:
        return NAN
    if pred is None:
        return 0.0
    return len(set(pred) & set(gold)) / len(gold)


# --- binary -------------------------------------------------------------------------------


@dataclass(frozen=True)
class BinaryCounts:
    """Judgements with a yes/no label; "yes" is the positive class for P/R/F1/MCC."""

    n: int = 0
    correct: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    def __add__(self, other: BinaryCounts) -> BinaryCounts:
        return BinaryCounts(
            *(a + b for a, b in zip(self.as_tuple(), other.as_tuple(), strict=True))
        )

    def as_tuple(self) -> tuple[int, int, int, int, int, int]:
        return (self.n, self.correct, self.tp, self.fp, self.fn, self.tn)

    @property
    def accuracy(self) -> float:
        return self.correct / self.n if self.n else NAN


def binary_counts(pred: Mapping[str, str] | None, gold: Mapping[str, str]) -> BinaryCounts:
    """Counts over one call's questions. A label of "na" is excluded; a predicted "na" (or a
    missing answer) against yes/no is wrong."""
    n = correct = tp = fp = fn = tn = 0
    for qid, label in gold.items():
        if label == "na":
            continue
        guess = pred.get(qid) if pred is not None else None
        yes, said_yes = label == "yes", guess == "yes"
        n += 1
        correct += guess == label
        tp += yes and said_yes
        fp += not yes and said_yes
        fn += yes and not said_yes
        tn += not yes and not said_yes
    return BinaryCounts(n, correct, tp, fp, fn, tn)


def pooled_binary(tp: float, fp: float, fn: float, tn: float) -> dict[str, float]:
    """Precision, recall, F1 and MCC of pooled counts. Precision, recall and F1 are NaN where a
    denominator is zero (no "yes" said, or none to find: neither right nor wrong). MCC (Matthews,
    1975) is 0 where the predictions or the labels are all one class: a constant has no
    correlation with anything, the limit Chicco & Jurman (BMC Genomics 21:6, 2020) give and
    scikit-learn's `matthews_corrcoef` returns (the majority baseline's "yes" to everything
    reads 0, chance, not "nan"); NaN only without any judgement."""
    precision = tp / (tp + fp) if tp + fp else NAN
    recall = tp / (tp + fn) if tp + fn else NAN
    f1 = 2 * tp / (2 * tp + fp + fn) if 2 * tp + fp + fn else NAN
    denom = math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    mcc = (tp * tn - fp * fn) / denom if denom else (0.0 if tp + fp + fn + tn else NAN)
    return {"precision": precision, "recall": recall, "f1": f1, "mcc": mcc}


# --- pairwise -----------------------------------------------------------------------------


def pairwise_accuracy(pred: Mapping[str, str] | None, gold: Mapping[str, str]) -> float:
    """Share of one turn's comparisons won by the participant's choice; `pred`/`gold` map
    comparison key -> winning source. NaN without comparisons."""
    if not gold:
        return NAN
    correct = sum(1 for key, winner in gold.items() if pred is not None and pred.get(key) == winner)
    return correct / len(gold)


def _win_counts(winners: Mapping[str, str], keys: Sequence[str]) -> list[float]:
    sources = sorted({s for key in keys for s in key.split(":", 1)[1].split("-")})
    counts = dict.fromkeys(sources, 0.0)
    for key in keys:
        winner = winners.get(key)
        if winner in counts:
            counts[winner] += 1
    return [counts[s] for s in sources]


def kendall_tau(pred: Mapping[str, str] | None, gold: Mapping[str, str]) -> list[float]:
    """Kendall tau-b per pairwise question of the turn between the rankings implied by win
    counts; NaN where either ranking is all ties, or the answer could not be parsed."""
    by_question: dict[str, list[str]] = {}
    for key in gold:
        by_question.setdefault(key.split(":", 1)[0], []).append(key)
    # An unparsed answer wins nothing: its ranking is all ties, which tau_b gives NaN.
    return [
        tau_b(_win_counts(pred or {}, keys), _win_counts(gold, keys))
        for keys in by_question.values()
    ]


def tau_b(x: Sequence[float], y: Sequence[float]) -> float:
    """Kendall's tau-b of two rankings, by counting pairs (rankings here have three items,
    where scipy's general algorithm costs a millisecond a call); NaN if either is all ties."""
    concordant = discordant = tied_x = tied_y = 0
    for (x1, y1), (x2, y2) in itertools.combinations(zip(x, y, strict=True), 2):
        dx, dy = (x1 > x2) - (x1 < x2), (y1 > y2) - (y1 < y2)
        if dx == 0 and dy == 0:
            continue
        if dx == 0:
            tied_x += 1
        elif dy == 0:
            tied_y += 1
        elif dx == dy:
            concordant += 1
        else:
            discordant += 1
    # Pairs untied in x are the concordant, the discordant and those tied in y only; and
    # the other way round.
    untied = math.sqrt((concordant + discordant + tied_y) * (concordant + discordant + tied_x))
    return (concordant - discordant) / untied if untied else NAN


# --- draft judge --------------------------------------------------------------------------


def rating_score(rating: float) -> float:
    """A 1-7 rating on 0-1 (a panel's mean rating too)."""
    return (rating - 1) / 6


# --- conversation-wide --------------------------------------------------------------------


def _items(panas: Mapping[str, int]) -> list[int]:
    return [panas[i] for i in PANAS_ITEMS]


def panas_item_mae(a: Mapping[str, int], b: Mapping[str, int]) -> float:
    return sum(abs(x - y) for x, y in zip(_items(a), _items(b), strict=True)) / len(PANAS_ITEMS)


def panas_normalized(pred: Mapping[str, int] | None, gold: Mapping[str, int]) -> float:
    """1 - MAE/60 over the positive and negative affect totals (each 10-70)."""
    if pred is None:
        return 0.0
    errors = [abs(p - g) for p, g in zip(affect_totals(pred), affect_totals(gold), strict=True)]
    return 1 - (sum(errors) / 2) / 60


def panas_item_normalized(pred: Mapping[str, int] | None, gold: Mapping[str, int]) -> float:
    """1 - item MAE/6 over the 20 items."""
    return 0.0 if pred is None else 1 - panas_item_mae(pred, gold) / 6


def panas_baseline_adjusted(
    pred: Mapping[str, int] | None, pre: Mapping[str, int], post: Mapping[str, int]
) -> float:
    """1 - MAE(pred, post) / MAE(pre, post), clamped to [-1, 1], the denominator floored at
    NAIVE_MAE_FLOOR: a perfect prediction scores 1 and one item off by one 0."""
    if pred is None:
        return -1.0
    naive = max(panas_item_mae(pre, post), NAIVE_MAE_FLOOR)
    return max(-1.0, min(1.0, 1 - panas_item_mae(pred, post) / naive))


def selected(options: Mapping[str, bool] | None) -> list[str] | None:
    """The options marked true in a multi-select answer (None: unparsed)."""
    return None if options is None else [o for o, chosen in options.items() if chosen]


def jaccard(pred: Sequence[str] | None, gold: Sequence[str]) -> float:
    """|intersection| / |union|; both empty = 1."""
    if pred is None:
        return 0.0
    p, g = set(pred), set(gold)
    if not p and not g:
        return 1.0
    return len(p & g) / len(p | g)


def exact(pred: str | None, gold: str) -> float:
    return float(pred is not None and pred == gold)


def ordinal(pred: str | None, gold: str, options: Sequence[str]) -> float:
    """1 - |rank difference| / (number of options - 1), options ordered worst to best."""
    if pred is None or pred not in options:
        return 0.0
    return 1 - abs(options.index(pred) - options.index(gold)) / (len(options) - 1)


def fuzzy_overlap(pred: Sequence[str] | None, gold: Sequence[str]) -> float:
    """Jaccard overlap of two sets of entries under fuzzy matching: M / (|P| + |G| - M), P and G
    the distinct entries (`text_match.distinct`), M a maximum one-to-one matching between them
    (`text_match.matched`). NaN when the participant gave no follow-up; nothing predicted, or a
    parse failure, = 0."""
    if not text_match.distinct(gold):
        return NAN
    if not pred:
        return 0.0
    both = text_match.matched(pred, gold)
    return both / (len(text_match.distinct(pred)) + len(text_match.distinct(gold)) - both)


def four_branch(pred: Mapping[str, int] | None, gold: Mapping[str, int]) -> dict[str, float]:
    """1 - |error|/6 per branch and 1 - MAE/6 overall."""
    if pred is None:
        return {"overall": 0.0, **dict.fromkeys(gold, 0.0)}
    per = {b: 1 - abs(pred[b] - gold[b]) / 6 for b in gold}
    return {"overall": sum(per.values()) / len(per), **per}


# --- the Composite ----------------------------------------------------------------------------


Pillar = TypeVar("Pillar", float, NDArray[np.float64])


def composite(emotion: Pillar, evaluation: Pillar, holistic: Pillar) -> Pillar:
    """100 x (0.24 E + 0.49 Q + 0.27 H) of one conversation, or elementwise over arrays; an
    undefined pillar is left out and the others' weights renormalised (scorers/METRICS.md, "The
    Composite")."""
    parts = np.array([emotion, evaluation, holistic], dtype=float)
    weights = np.array(list(COMPOSITE_WEIGHTS.values())).reshape((3,) + (1,) * (parts.ndim - 1))
    defined = ~np.isnan(parts)
    weight = (weights * defined).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = 100 * (weights * np.where(defined, parts, 0.0)).sum(axis=0) / weight
    return cast(Pillar, float(value) if parts.ndim == 1 else np.asarray(value, dtype=float))


def parse_failure_rate(statuses: Sequence[str]) -> float:
    return sum(1 for s in statuses if s == "failed") / len(statuses) if statuses else NAN
