"""Does the score hold still? The pure statistics of order, reruns and judges (issue 29).

Pure numpy, scipy and krippendorff: no Inspect. Every function takes what a log's call records
hold (a pairwise call's `context["labels"]`, `context["comparisons"]` and prediction; the
per-conversation Composite of each epoch; each judge's parsed answer per draft), so the report
computes all of it from logs alone. Intervals are percentile bootstrap intervals over
conversations (or drafts) with the suite's seeded draws (`report/bootstrap.py`), so a figure here
and the Composite's CI resample alike.

Each verdict comes from a rule fixed here, before any data is seen, and printed beside its figure
(`RULES`). Too little data to decide is a verdict of its own, never a default reading.
"""

from __future__ import annotations

import itertools
import math
import re
import warnings
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import krippendorff
import numpy as np
from numpy.typing import NDArray
from scipy import stats

from ..report.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    EMPTY,
    Interval,
    percentile_interval,
    replicate_means,
    resample_counts,
)

NAN = float("nan")
Matrix = NDArray[np.float64]

# --- the rules, fixed before the data ----------------------------------------------------------

MIN_COMPARISONS = 30
"""Fewer pairwise choices than this: position bias is "too little data"."""
BIAS_ALPHA = 0.01
"""The chi-square test's level for "position-biased" (stricter than 0.05: comparisons of one call
share one shuffle, which the test's independence assumption ignores)."""
BIAS_MARGIN = 0.05
"""The smallest deviation from the uniform expectation called a bias (5 points of share)."""
MIN_SWAPS = 30
"""Fewer swapped comparison pairs than this: position consistency is "too little data"."""
MIN_TEST_RETEST = 5
"""Fewer complete conversations than this: no ICC (its F-based interval needs a few rows)."""
COLLAPSE_SHARE = 0.9
"""A judge whose one most frequent rating covers at least this share of the drafts it rated is
"collapsed" on that criterion."""
MIN_COLLAPSE_DRAFTS = 20
"""Fewer rated drafts than this: collapse is not decided (None)."""
RANK_SETTLED = 0.975
"""A pair's order is "settled" when it holds in at least this share of replicates: the same as
the 95% percentile interval of the paired difference excluding 0 (one tail of 2.5%)."""

RULES: dict[str, str] = {
    "position_bias": (
        f"position-biased when Pearson's chi-square over the displayed pairs rejects the "
        f"content-blind uniform chooser at p < {BIAS_ALPHA} and some share (the earlier-displayed "
        f"one's, or a position's) is {BIAS_MARGIN:.2f} or more from its expectation; fewer than "
        f"{MIN_COMPARISONS} choices: too little data"
    ),
    "position_consistency": (
        "the same reply (by content) chosen in two epochs that showed the pair in opposite order; "
        "follows content when the 95% CI of consistency minus its content-blind chance (from the "
        "model's own position shares) lies above 0, only by chance when it covers 0, against "
        f"content when below; fewer than {MIN_SWAPS} swapped pairs: too little data"
    ),
    "test_retest": (
        "ICC(A,1) (two-way random effects, absolute agreement, single epoch; McGraw & Wong 1996) "
        "of the per-conversation Composite across epochs, read on Koo & Li's (2016) bands: "
        "< 0.5 poor, 0.5-0.75 moderate, 0.75-0.9 good, > 0.9 excellent"
    ),
    "rank_stability": (
        "per pair of models, the share of bootstrap replicates (conversations, then epochs "
        "within each) in which their order holds; the order is settled when the share is >= "
        f"{RANK_SETTLED} (the paired difference's 95% percentile interval excludes 0)"
    ),
    "judge_agreement": (
        "Krippendorff's alpha (ordinal for ratings, nominal for yes/no/na) with a 95% bootstrap "
        "CI over drafts; Krippendorff (2004): >= 0.8 reliable, 0.667-0.8 tentative, < 0.667 "
        "unreliable"
    ),
    "judge_collapse": (
        f"a judge is collapsed on a criterion when one rating covers >= {COLLAPSE_SHARE:.0%} of "
        f"the drafts it rated (at least {MIN_COLLAPSE_DRAFTS} drafts)"
    ),
    "panel": (
        "the panel's rating is the mean of its judges' ratings; its yes/no/na answer the most "
        "frequent one, a tie going to the earliest-listed judge among the tied answers"
    ),
}


def _ratio_intervals(
    numerators: Matrix, denominators: Matrix, resamples: int, seed: int, level: float
) -> list[Interval]:
    """Per column, sum(numerator) / sum(denominator) over rows (conversations) and its
    percentile bootstrap interval, the rows resampled with the suite's draws (a cluster
    bootstrap: Davison & Hinkley 1997, section 3.8)."""
    counts = resample_counts(numerators.shape[0], resamples, seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        replicates = (counts @ numerators) / (counts @ denominators)
        estimates = numerators.sum(axis=0) / denominators.sum(axis=0)
    low, high = percentile_interval(replicates, level)
    rows = numerators.shape[0]
    return [
        Interval(float(e), float(lo), float(hi), rows)
        for e, lo, hi in zip(estimates, low, high, strict=True)
    ]


# --- pairwise choices, as a pairwise call leaves them ------------------------------------------


@dataclass(frozen=True)
class PairChoice:
    """One comparison of one pairwise call: which two replies were shown where, and which the
    model chose. Positions are 1-based display positions (the labels' order in the call)."""

    conversation: str
    epoch: int
    turn: int
    comparison: str
    """The comparison's ground-truth key (question and unordered pair): the same in every epoch."""
    earlier: str
    """The source shown earlier of the two."""
    later: str
    positions: tuple[int, int]
    """The display positions of `earlier` and `later` (earlier first)."""
    chosen: str

    @property
    def chose_earlier(self) -> bool:
        return self.chosen == self.earlier

    @property
    def chosen_position(self) -> int:
        return self.positions[0] if self.chose_earlier else self.positions[1]


def _pair_of_key(key: str) -> tuple[str, str]:
    """The two sources of a comparison key (`data.split.comparison_key`: "question:a-b")."""
    _, _, pair = key.rpartition(":")
    a, sep, b = pair.partition("-")
    if not (a and sep and b):
        raise ValueError(f"comparison key {key!r}: found no 'question:a-b' pair of sources")
    return a, b


def pair_choices(
    conversation: str,
    epoch: int,
    turn: int,
    labels: Mapping[str, str],
    comparisons: Mapping[str, str],
    prediction: Mapping[str, Any] | None,
) -> list[PairChoice]:
    """The choices of one pairwise call record: `labels` is its `context["labels"]` (label ->
    source, in display order), `comparisons` its `context["comparisons"]` (comparison id -> key),
    `prediction` its parsed answer (comparison id -> {"winner": label}); a parse failure (None)
    names nothing and gives no choice, as does a comparison the answer lacks. A key that names a
    source the labels lack, or a winner outside the comparison (the response schema rules both
    out), is a ValueError naming the call."""
    if prediction is None:
        return []
    position = {label: i for i, label in enumerate(labels, start=1)}
    where = {source: position[label] for label, source in labels.items()}
    choices = []
    for cid, key in comparisons.items():
        answer = prediction.get(cid)
        if not isinstance(answer, Mapping) or answer.get("winner") not in labels:
            continue
        a, b = _pair_of_key(key)
        if a not in where or b not in where:
            raise ValueError(
                f"conversation {conversation} turn {turn} comparison {cid}: key {key!r} names a "
                f"source the labels lack (labels show {sorted(where)})"
            )
        if labels[answer["winner"]] not in (a, b):
            raise ValueError(
                f"conversation {conversation} turn {turn} comparison {cid}: the winner "
                f"{answer['winner']!r} is neither of the compared replies ({a}, {b})"
            )
        earlier, later = sorted((a, b), key=where.__getitem__)
        choices.append(
            PairChoice(
                conversation,
                epoch,
                turn,
                key,
                earlier,
                later,
                (where[earlier], where[later]),
                labels[answer["winner"]],
            )
        )
    return choices


# --- 1. position bias --------------------------------------------------------------------------

PositionVerdict = Literal["position-biased", "no position bias found", "too little data"]


@dataclass(frozen=True)
class PositionShare:
    position: int
    share: Interval
    """Of all choices, the share that went to this display position."""
    expected: float
    """The share a content-blind uniform chooser gives it: half the share of comparisons that
    show it (1/3 only when every pair of positions is compared equally often)."""


@dataclass(frozen=True)
class PositionBias:
    choices: int
    conversations: int
    earlier: Interval
    """The share of choices that went to the earlier-displayed reply (expected 1/2)."""
    positions: list[PositionShare]
    binomial_p: float
    """Exact two-sided binomial test of the earlier share against 1/2."""
    chi2: float
    chi2_df: int
    chi2_p: float
    """Pearson's chi-square over the displayed pairs (each pair's earlier count against half)."""
    deviation: float
    """The largest distance of a share (the earlier one's, each position's) from its
    expectation."""
    verdict: PositionVerdict
    rule: str = RULES["position_bias"]


def position_bias(
    choices: Sequence[PairChoice],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> PositionBias:
    """Where the model's pairwise choices fall by display position, against a content-blind
    uniform chooser (every epoch's choices; one model and mode).

    The suite shows the three replies in a seeded random order, so under the null hypothesis
    that the choice follows only the content, or a content-blind chooser picks at random, each
    comparison's earlier-displayed reply is chosen with probability exactly 1/2. Two scipy tests
    read it, both assuming independent comparisons:
    - the exact binomial test (`scipy.stats.binomtest`) of the earlier share: each comparison is
      one Bernoulli(1/2) trial, so the count is Binomial(n, 1/2) with no approximation;
    - Pearson's chi-square (`scipy.stats.chisquare`, Pearson 1900) over the displayed pairs of
      positions ((1,2), (1,3), (2,3)), each pair's earlier and later counts against n/2, with one
      degree of freedom per pair (ddof = pairs - 1: each pair's total is fixed). Unlike the
      binomial test it also sees a preference for the middle position, which leaves the
      earlier share at 1/2; the verdict uses it.
    Comparisons of one call share one shuffle and a transitive chooser's answers in it are
    dependent, so the tests' level is only nominal; hence the stricter BIAS_ALPHA, the BIAS_MARGIN
    on the effect, and CIs from a bootstrap over conversations (which respects the dependence).
    Position bias in LLM judges: Zheng et al. 2023 (MT-Bench, "Judging LLM-as-a-judge"),
    Wang et al. 2023 ("Large language models are not fair evaluators"), Shi et al. 2024
    ("Judging the judges: a systematic study of position bias in LLM-as-a-judge").

    Rule (RULES["position_bias"]): "position-biased" when the chi-square's p < BIAS_ALPHA and
    the largest deviation (earlier share from 1/2, or a position's share from its expectation)
    is >= BIAS_MARGIN; "too little data" under MIN_COMPARISONS choices; else "no position bias
    found". Measured false-positive rate and power: tests/test_stability.py and
    docs/stability.md.
    """
    conversations = sorted({c.conversation for c in choices})
    row = {conv: i for i, conv in enumerate(conversations)}
    positions = sorted({p for c in choices for p in c.positions})
    pairs = sorted({c.positions for c in choices})
    n, width = len(conversations), (max(positions) if positions else 0)
    total = np.zeros((n, 1))
    earlier = np.zeros((n, 1))
    chosen = np.zeros((n, width))
    shown = np.zeros((n, width))
    pair_n: Counter[tuple[int, int]] = Counter()
    pair_earlier: Counter[tuple[int, int]] = Counter()
    for c in choices:
        i = row[c.conversation]
        total[i, 0] += 1
        earlier[i, 0] += c.chose_earlier
        chosen[i, c.chosen_position - 1] += 1
        for p in c.positions:
            shown[i, p - 1] += 1
        pair_n[c.positions] += 1
        pair_earlier[c.positions] += c.chose_earlier
    count = len(choices)
    if count == 0:
        return PositionBias(0, 0, EMPTY, [], NAN, NAN, 0, NAN, NAN, "too little data")
    share_earlier = _ratio_intervals(earlier, total, resamples, seed, level)[0]
    shares = _ratio_intervals(chosen, np.repeat(total, width, axis=1), resamples, seed, level)
    expected = shown.sum(axis=0) / (2 * count)
    position_shares = [
        PositionShare(p, shares[p - 1], float(expected[p - 1])) for p in range(1, width + 1)
    ]
    observed = [v for s in pairs for v in (pair_earlier[s], pair_n[s] - pair_earlier[s])]
    chi2, chi2_p = stats.chisquare(
        observed, [pair_n[s] / 2 for s in pairs for _ in range(2)], ddof=len(pairs) - 1
    )
    binomial_p = stats.binomtest(int(earlier.sum()), count, 0.5).pvalue
    deviation = max(
        abs(share_earlier.estimate - 0.5),
        *(abs(s.share.estimate - s.expected) for s in position_shares),
    )
    verdict: PositionVerdict
    if count < MIN_COMPARISONS:
        verdict = "too little data"
    elif chi2_p < BIAS_ALPHA and deviation >= BIAS_MARGIN:
        verdict = "position-biased"
    else:
        verdict = "no position bias found"
    return PositionBias(
        count,
        n,
        share_earlier,
        position_shares,
        float(binomial_p),
        float(chi2),
        len(pairs),
        float(chi2_p),
        float(deviation),
        verdict,
    )


# --- 2. position consistency -------------------------------------------------------------------

ConsistencyVerdict = Literal[
    "follows content",
    "consistent only by chance",
    "against content",
    "too little data",
    "too few epochs",
]
UNIFORM_CHANCE = 0.5
"""The consistency of a content-blind chooser that picks either displayed reply with
probability 1/2, independently in each epoch: P(same reply) = 1/2 * 1/2 + 1/2 * 1/2."""


@dataclass(frozen=True)
class PositionConsistency:
    epochs: int
    swaps: int
    """Pairs of epochs x comparisons in which the two replies were shown in opposite order."""
    conversations: int
    consistency: Interval
    """The share of swaps in which the model chose the same reply (by content) both times."""
    chance: float
    """The consistency a content-blind chooser with this model's own position shares would
    reach on the same swaps (see `position_consistency`)."""
    excess: Interval
    """consistency - chance, with its bootstrap interval (the verdict reads this)."""
    verdict: ConsistencyVerdict
    chance_uniform: float = UNIFORM_CHANCE
    rule: str = RULES["position_consistency"]


def position_consistency(
    choices: Sequence[PairChoice],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> PositionConsistency:
    """Position consistency across epochs: does the model choose the same reply when the pair is
    shown in the opposite order? The position-swap audit of LLM judges (Zheng et al. 2023;
    Wang et al. 2023), over epochs whose display orders differ (issue 29, item 1).

    A swap is one comparison (conversation, turn, comparison key) in two epochs e < e' whose
    earlier-displayed reply differs (the relative order of the two replies is reversed; a pair
    that only moved, say from positions (1,2) to (1,3), is not a swap: an earlier-picker stays
    "consistent" there without reading anything). Every pair of epochs counts, so E epochs give
    up to E(E-1)/2 swaps per comparison.

    Chance. A content-blind chooser that picks each reply with probability 1/2 is consistent on
    a swap with probability UNIFORM_CHANCE = 1/2. A content-blind chooser with position
    preferences is not: one that always picks the earlier reply is never consistent (0). So the
    verdict compares with the chance of a content-blind chooser that has this model's own
    position shares: with q_s the model's share of earlier choices when positions s are shown,
    a swap that shows X earlier at s in one epoch and later at s' in the other is consistent by
    chance with probability q_s (1 - q_s') + (1 - q_s) q_s'. Consistency above that chance is
    evidence the choice follows the content; at chance, it does not (an earlier-picker sits at
    0 = its chance, a coin-flipper at 1/2 = its chance: both "consistent only by chance").
    The excess (consistency - chance, q recomputed in every replicate) gets a bootstrap
    interval over conversations.

    Rule (RULES["position_consistency"]): "follows content" when the excess's interval lies
    above 0, "consistent only by chance" when it covers 0, "against content" when below;
    "too few epochs" with fewer than two epochs, "too little data" under MIN_SWAPS swaps.
    """
    epochs = len({c.epoch for c in choices})
    conversations = sorted({c.conversation for c in choices})
    if epochs < 2:
        return PositionConsistency(
            epochs, 0, len(conversations), EMPTY, NAN, EMPTY, "too few epochs"
        )
    row = {conv: i for i, conv in enumerate(conversations)}
    cell = {pair: i for i, pair in enumerate(sorted({c.positions for c in choices}))}
    cells = len(cell)
    n = len(conversations)
    # Per conversation: earlier choices and choices per displayed pair (for q), swaps per pair
    # of displayed pairs (for chance), swaps and consistent swaps.
    earlier = np.zeros((n, cells))
    shown = np.zeros((n, cells))
    swap_cells = np.zeros((n, cells * cells))
    swaps = np.zeros((n, 1))
    consistent = np.zeros((n, 1))
    by_comparison: dict[tuple[str, int, str], list[PairChoice]] = defaultdict(list)
    for c in choices:
        i = row[c.conversation]
        earlier[i, cell[c.positions]] += c.chose_earlier
        shown[i, cell[c.positions]] += 1
        by_comparison[(c.conversation, c.turn, c.comparison)].append(c)
    for (conversation, _, _), group in by_comparison.items():
        i = row[conversation]
        for a, b in itertools.combinations(sorted(group, key=lambda c: c.epoch), 2):
            if a.earlier == b.earlier:
                continue
            swaps[i, 0] += 1
            consistent[i, 0] += a.chosen == b.chosen
            swap_cells[i, cell[a.positions] * cells + cell[b.positions]] += 1
    total = int(swaps.sum())
    if total == 0:
        return PositionConsistency(epochs, 0, n, EMPTY, NAN, EMPTY, "too little data")

    def chance_of(
        earlier_sum: Matrix, shown_sum: Matrix, swap_sum: Matrix, swaps_sum: Matrix
    ) -> Matrix:
        """Per row (the data, or a replicate), the content-blind chance of its swaps."""
        q = earlier_sum / shown_sum  # (rows, cells)
        pair = q[:, :, None] * (1 - q[:, None, :]) + (1 - q[:, :, None]) * q[:, None, :]
        pair = np.nan_to_num(pair.reshape(q.shape[0], cells * cells))
        result: Matrix = (swap_sum * pair).sum(axis=1) / swaps_sum[:, 0]
        return result

    chance = float(
        chance_of(
            earlier.sum(0, keepdims=True),
            shown.sum(0, keepdims=True),
            swap_cells.sum(0, keepdims=True),
            swaps.sum(0, keepdims=True),
        )[0]
    )
    counts = resample_counts(n, resamples, seed)
    with np.errstate(invalid="ignore", divide="ignore"):
        replicate_consistency = ((counts @ consistent) / (counts @ swaps))[:, 0]
        replicate_chance = chance_of(
            counts @ earlier, counts @ shown, counts @ swap_cells, counts @ swaps
        )
    estimate = float(consistent.sum() / total)
    low, high = percentile_interval(replicate_consistency[:, None], level)
    excess_low, excess_high = percentile_interval(
        (replicate_consistency - replicate_chance)[:, None], level
    )
    consistency = Interval(estimate, float(low[0]), float(high[0]), n)
    excess = Interval(estimate - chance, float(excess_low[0]), float(excess_high[0]), n)
    verdict: ConsistencyVerdict
    if total < MIN_SWAPS:
        verdict = "too little data"
    elif excess.low > 0:
        verdict = "follows content"
    elif excess.high < 0:
        verdict = "against content"
    else:
        verdict = "consistent only by chance"
    return PositionConsistency(epochs, total, n, consistency, chance, excess, verdict)


# --- 3. test-retest of the per-conversation Composite ------------------------------------------

IccForm = Literal["ICC(1,1)", "ICC(A,1)", "ICC(C,1)"]


@dataclass(frozen=True)
class Icc:
    form: IccForm
    value: float
    low: float
    high: float
    f: float
    df1: float
    df2: float
    p: float
    """The F test of ICC = 0 (Shrout & Fleiss 1979; McGraw & Wong 1996)."""


@dataclass(frozen=True)
class MeanSquares:
    """The two-way ANOVA of an n (targets) x k (raters, here epochs) matrix without
    replication."""

    n: int
    k: int
    rows: float
    """MSR: between targets."""
    columns: float
    """MSC: between raters."""
    error: float
    """MSE: residual."""
    within: float
    """MSW: within targets (columns and residual pooled; the one-way model's error)."""


def mean_squares(matrix: Matrix) -> MeanSquares:
    """The ANOVA mean squares of a complete n x k matrix (Shrout & Fleiss 1979, Table 1)."""
    n, k = matrix.shape
    grand = matrix.mean()
    ss_rows = k * ((matrix.mean(axis=1) - grand) ** 2).sum()
    ss_columns = n * ((matrix.mean(axis=0) - grand) ** 2).sum()
    ss_total = ((matrix - grand) ** 2).sum()
    ss_error = ss_total - ss_rows - ss_columns
    return MeanSquares(
        n,
        k,
        float(ss_rows / (n - 1)),
        float(ss_columns / (k - 1)),
        float(ss_error / ((n - 1) * (k - 1))),
        float((ss_columns + ss_error) / (n * (k - 1))),
    )


def _f_ratio_interval(
    f0: float, df1: float, df2: float, k: int, level: float
) -> tuple[float, float]:
    """The interval of ICC(1,1) and ICC(C,1): bounds of F0 turned into (F - 1) / (F + k - 1)
    (McGraw & Wong 1996, Table 7, cases 1 and 3)."""
    tail = 1 - (1 - level) / 2
    f_low = f0 / stats.f.ppf(tail, df1, df2)
    f_high = f0 * stats.f.ppf(tail, df2, df1)
    return (f_low - 1) / (f_low + k - 1), (f_high - 1) / (f_high + k - 1)


def icc(matrix: Matrix | Sequence[Sequence[float]], form: IccForm, level: float = 0.95) -> Icc:
    """An intraclass correlation of a complete n (targets) x k (raters) matrix, single measure,
    with its F-based confidence interval (scipy.stats.f).

    - "ICC(1,1)": one-way random effects (Shrout & Fleiss 1979 case 1):
      (MSR - MSW) / (MSR + (k-1) MSW).
    - "ICC(A,1)": two-way random effects, absolute agreement (McGraw & Wong 1996) = ICC(2,1) of
      Shrout & Fleiss: (MSR - MSE) / (MSR + (k-1) MSE + k (MSC - MSE) / n); its interval is
      McGraw & Wong's (Table 7, case 2A) with Satterthwaite's degrees of freedom.
    - "ICC(C,1)": two-way, consistency = ICC(3,1) of Shrout & Fleiss:
      (MSR - MSE) / (MSR + (k-1) MSE).
    Proven on Shrout & Fleiss's Table 2 (tests/test_stability.py). n >= 2 and k >= 2 complete
    rows are required (ValueError otherwise). Raters that agree exactly (no error variance, and
    for ICC(A,1) no rater effect either, as deterministic reruns give) make the F ratio
    infinite: the ICC is 1 with the interval [1, 1]; a matrix with no variance at all gives NaN.
    A bound is NaN where the F-based interval is undefined (at some negative estimates of
    ICC(A,1), Satterthwaite's degrees of freedom vanish).
    """
    data = np.asarray(matrix, dtype=float)
    if data.ndim != 2 or data.shape[0] < 2 or data.shape[1] < 2:
        raise ValueError(
            f"icc: needs a targets x raters matrix of at least 2 x 2; found shape {data.shape}"
        )
    if np.isnan(data).any():
        raise ValueError("icc: the matrix has missing cells; pass complete rows only")
    ms = mean_squares(data)
    n, k = ms.n, ms.k
    # numpy scalars: a zero mean square divides to inf (an exact F), not ZeroDivisionError.
    rows, columns, error, within = (
        np.float64(x) for x in (ms.rows, ms.columns, ms.error, ms.within)
    )
    tail = 1 - (1 - level) / 2
    noise = within if form == "ICC(1,1)" else error
    if form == "ICC(A,1)":
        noise += columns
    # Sums of squares of equal values come out as rounding residue, not 0.
    if noise <= 1e-12 * (rows + noise):
        exact = 1.0 if rows > 0 else NAN
        df2 = n * (k - 1) if form == "ICC(1,1)" else (n - 1) * (k - 1)
        f0 = math.inf if rows > 0 else NAN
        p = 0.0 if rows > 0 else NAN
        return Icc(form, exact, exact, exact, f0, float(n - 1), float(df2), p)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        if form == "ICC(1,1)":
            value = (rows - within) / (rows + (k - 1) * within)
            f0, df1, df2 = rows / within, n - 1, n * (k - 1)
            low, high = _f_ratio_interval(f0, df1, df2, k, level)
        elif form == "ICC(C,1)":
            value = (rows - error) / (rows + (k - 1) * error)
            f0, df1, df2 = rows / error, n - 1, (n - 1) * (k - 1)
            low, high = _f_ratio_interval(f0, df1, df2, k, level)
        else:
            value = (rows - error) / (rows + (k - 1) * error + k * (columns - error) / n)
            f0, df1, df2 = rows / error, n - 1, (n - 1) * (k - 1)
            a = k * value / (n * (1 - value))
            b = 1 + k * value * (n - 1) / (n * (1 - value))
            v = (a * columns + b * error) ** 2 / (
                (a * columns) ** 2 / (k - 1) + (b * error) ** 2 / ((n - 1) * (k - 1))
            )
            f_low = stats.f.ppf(tail, n - 1, v)
            f_high = stats.f.ppf(tail, v, n - 1)
            spread = k * columns + (k * n - k - n) * error
            low = n * (rows - f_low * error) / (f_low * spread + n * rows)
            high = n * (f_high * rows - error) / (spread + n * f_high * rows)
        p = stats.f.sf(f0, df1, df2)
    return Icc(form, *(float(x) for x in (value, low, high, f0, df1, df2, p)))


KOO_LI_BANDS = ((0.5, "poor"), (0.75, "moderate"), (0.9, "good"), (math.inf, "excellent"))


def koo_li_band(value: float) -> str:
    """Koo & Li's (2016) reading of an ICC: < 0.5 poor, 0.5-0.75 moderate, 0.75-0.9 good,
    > 0.9 excellent ("undefined" for NaN)."""
    if math.isnan(value):
        return "undefined"
    return next(band for bound, band in KOO_LI_BANDS if value < bound)


@dataclass(frozen=True)
class RetestReliability:
    epochs: int
    conversations: int
    """Conversations with a Composite in every epoch (the ICC's rows)."""
    dropped: int
    """Conversations left out for a missing or undefined Composite in some epoch."""
    icc: Icc | None
    reading: str
    """Koo & Li's band of the ICC and of its interval's bounds, e.g. "moderate (poor to good)",
    or why there is none."""
    run_composites: list[float]
    """The run Composite of each epoch (over the complete conversations)."""
    spread_sd: float
    spread_range: float
    """The standard deviation (ddof 1) and max - min of the run Composite across epochs."""
    rule: str = RULES["test_retest"]


def retest_reliability(
    composites: Mapping[str, Sequence[float]], level: float = 0.95
) -> RetestReliability:
    """Test-retest reliability of the per-conversation Composite across epochs, and the spread of
    the run Composite across epochs.

    `composites`: conversation id -> its Composite in each epoch, in epoch order (NaN where it
    is undefined or the sample errored). The ICC is ICC(A,1) (see `icc`), the form Koo & Li
    (2016) recommend for test-retest: two-way random effects (conversations and epochs both
    samples), absolute agreement (a whole epoch scoring higher is disagreement, not a shift to
    forgive), single measurement (one epoch, the usual run). The epochs play the raters.
    Only complete rows enter: a Composite in each of the run's epochs (the most any conversation
    has), none NaN; the rest are counted in `dropped` (listwise deletion). Fewer than two
    epochs, or fewer than MIN_TEST_RETEST complete conversations: no ICC, NaN spread where
    undefined, and `reading` says why.
    """
    epochs = max((len(v) for v in composites.values()), default=0)
    rows = [
        list(v)
        for _, v in sorted(composites.items())
        if len(v) == epochs and not any(math.isnan(x) for x in v)
    ]
    dropped = len(composites) - len(rows)
    matrix = np.asarray(rows, dtype=float).reshape(len(rows), epochs)
    per_epoch = [float(x) for x in matrix.mean(axis=0)] if rows else [NAN] * epochs
    sd = float(np.std(per_epoch, ddof=1)) if epochs >= 2 and rows else NAN
    spread = float(max(per_epoch) - min(per_epoch)) if epochs >= 2 and rows else NAN
    if epochs < 2:
        return RetestReliability(
            epochs, len(rows), dropped, None, "too few epochs", per_epoch, sd, spread
        )
    if len(rows) < MIN_TEST_RETEST:
        return RetestReliability(
            epochs, len(rows), dropped, None, "too few conversations", per_epoch, sd, spread
        )
    result = icc(matrix, "ICC(A,1)", level)
    reading = (
        f"{koo_li_band(result.value)} ({koo_li_band(result.low)} to {koo_li_band(result.high)})"
    )
    return RetestReliability(epochs, len(rows), dropped, result, reading, per_epoch, sd, spread)


# --- 4. rank stability across models -----------------------------------------------------------


@dataclass(frozen=True)
class RankStability:
    models: list[str]
    estimates: list[float]
    """Each model's run Composite (the mean over its conversations of their epoch means)."""
    holds: Matrix
    """holds[i, j]: the share of replicates in which models i and j keep the order of their
    estimates (NaN on the diagonal, and where an order is undefined); symmetric."""
    resamples: int
    rule: str = RULES["rank_stability"]

    def settled(self) -> NDArray[np.bool_]:
        """settled[i, j]: whether the order of models i and j is settled (RANK_SETTLED)."""
        result: NDArray[np.bool_] = np.nan_to_num(self.holds, nan=0.0) >= RANK_SETTLED
        return result


def _epoch_replicates(
    values: Matrix, counts: Matrix, rng: np.random.Generator, chunk: int = 1000
) -> NDArray[np.float64]:
    """Replicate run Composites of one model: conversations drawn as `counts` (resamples x n),
    and within each drawn copy of a conversation its epochs drawn again with replacement (the
    two-stage bootstrap, Davison & Hinkley 1997, section 3.8, strategy 2). The c copies of a
    conversation with m epochs together draw c*m epochs: one multinomial per cell."""
    present = ~np.isnan(values)
    m = present.sum(axis=1)
    defined = m > 0
    pvals = np.where(defined[:, None], present / np.maximum(m, 1)[:, None], 1 / values.shape[1])
    filled = np.where(present, values, 0.0)
    result = np.empty(counts.shape[0])
    for start in range(0, counts.shape[0], chunk):
        block = counts[start : start + chunk]
        draws = (block * m).astype(np.int64)
        drawn = rng.multinomial(draws, pvals)  # (chunk, n, epochs)
        sums = (drawn * filled).sum(axis=2) / np.maximum(m, 1)
        with np.errstate(invalid="ignore", divide="ignore"):
            result[start : start + chunk] = sums.sum(axis=1) / (block @ defined)
    return result


def rank_stability(
    composites: Mapping[str, Mapping[str, Sequence[float]]],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    resample_epochs: bool = True,
) -> RankStability:
    """For every pair of models, the share of bootstrap replicates in which their order holds
    (Hall & Miller 2009, "Using the bootstrap to quantify the authority of an empirical
    ranking").

    `composites`: model -> conversation id -> its Composite per epoch (NaN: undefined). The
    conversations are the union over models; every model is resampled with the same draws of
    conversations (the suite's `resample_counts`: paired over shared conversations), each
    model's mean over the drawn conversations it has. With `resample_epochs`, each drawn copy
    of a conversation also redraws its epochs with replacement, per model (epochs of different
    models are unrelated runs). Resampling at both stages slightly overstates the within-
    conversation noise (Davison & Hinkley 1997, section 3.8): the shares are conservative.
    A tie in a replicate counts as the order not holding. Fewer than two models: an empty
    matrix.
    """
    models = sorted(composites)
    conversations = sorted({c for per in composites.values() for c in per})
    n = len(conversations)
    epochs = max((len(v) for per in composites.values() for v in per.values()), default=0)
    if len(models) < 2 or n == 0:
        return RankStability(models, [NAN] * len(models), np.full((len(models),) * 2, NAN), 0)
    replicates = np.empty((resamples, len(models)))
    estimates = []
    rng = np.random.default_rng(seed)
    for j, model in enumerate(models):
        values = np.full((n, epochs), NAN)
        for i, conversation in enumerate(conversations):
            row = composites[model].get(conversation, ())
            values[i, : len(row)] = row
        # A conversation this model lacks is an all-NaN row: its mean is NaN, not a warning.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            means = np.nanmean(values, axis=1)
        estimates.append(float(np.nanmean(means)) if (~np.isnan(means)).any() else NAN)
        if resample_epochs:
            counts = resample_counts(n, resamples, seed)
            replicates[:, j] = _epoch_replicates(values, counts, rng)
        else:
            replicates[:, j] = replicate_means(means[:, None], resamples, seed)[:, 0]
    est = np.asarray(estimates)
    order = np.sign(est[:, None] - est[None, :])
    kept = np.sign(replicates[:, :, None] - replicates[:, None, :]) == order[None, :, :]
    holds = kept.mean(axis=0)
    holds[(order == 0) | np.isnan(order)] = NAN
    return RankStability(models, estimates, holds, resamples)


# --- 5. judge panel ----------------------------------------------------------------------------

RATING_DOMAIN = (1, 2, 3, 4, 5, 6, 7)
ANSWER_DOMAIN = ("yes", "no", "na")


def panel_rating(ratings: Sequence[int | None]) -> float:
    """The panel's rating of one draft: the mean of its judges' ratings (None: that judge's
    answer failed to parse, left out); NaN when no judge rated it. The mean of a jury's scores
    (Verga et al. 2024, "Replacing judges with juries") keeps the 1-7 scale of one judge."""
    given = [r for r in ratings if r is not None]
    return sum(given) / len(given) if given else NAN


@dataclass(frozen=True)
class PanelAnswer:
    answer: str | None
    """The most frequent answer; None when no judge answered."""
    tied: bool
    """Whether several answers shared the top count (the tie went to the earliest-listed judge
    among them)."""


def panel_answer(answers: Sequence[str | None]) -> PanelAnswer:
    """The panel's yes/no/na answer about one draft: the most frequent answer (plurality vote;
    Verga et al. 2024); None answers (parse failures) left out. A tie goes to the earliest-
    listed judge whose answer is among the tied ones, so the first judge role (`judge`) breaks
    ties and a panel of one is that judge. With two judges every disagreement is a tie: panels
    of odd size avoid that (docs/stability.md)."""
    given = [a for a in answers if a is not None]
    if not given:
        return PanelAnswer(None, False)
    counts = Counter(given)
    top = max(counts.values())
    leaders = {a for a, c in counts.items() if c == top}
    first = next(a for a in given if a in leaders)
    return PanelAnswer(first, len(leaders) > 1)


@dataclass(frozen=True)
class Agreement:
    alpha: Interval
    """Krippendorff's alpha with its bootstrap interval; `n` counts what was resampled (the
    conversations when clusters are given, else the drafts)."""
    drafts: int
    """Drafts that at least two judges answered (the pairable ones: alpha's units)."""
    judges: int
    level: Literal["ordinal", "nominal"]
    reading: str
    rule: str = RULES["judge_agreement"]


def _value_counts(data: Sequence[Sequence[object]], domain: Sequence[object]) -> Matrix:
    """(units, values): how many judges gave each value to each unit (None: no answer)."""
    index = {v: i for i, v in enumerate(domain)}
    units = len(data[0]) if data else 0
    counts = np.zeros((units, len(domain)))
    for j, row in enumerate(data):
        if len(row) != units:
            raise ValueError(
                f"judge agreement: judge {j + 1} answered {len(row)} drafts; judge 1 {units} "
                "(align the drafts, None where a judge gave no answer)"
            )
        for u, value in enumerate(row):
            if value is None:
                continue
            if value not in index:
                raise ValueError(
                    f"judge agreement: judge {j + 1}, draft {u + 1}: found {value!r}; expected "
                    f"one of {list(domain)} or None"
                )
            counts[u, index[value]] += 1
    return counts


def _coincidences(units: Matrix) -> Matrix:
    """(units, values * values): each unit's contribution to the coincidence matrix,
    (n_uc n_uk - [c = k] n_uc) / (m_u - 1) for a unit with m_u >= 2 pairable values
    (Krippendorff 2011, "Computing Krippendorff's alpha-reliability")."""
    values = units.shape[1]
    pairable = units.sum(axis=1)
    per_unit = units[:, :, None] * units[:, None, :] - units[:, :, None] * np.eye(values)
    with np.errstate(invalid="ignore", divide="ignore"):
        per_unit = np.where(
            (pairable >= 2)[:, None, None], per_unit / (pairable - 1)[:, None, None], 0.0
        )
    result: Matrix = per_unit.reshape(len(units), values * values)
    return result


def _alpha_replicates(
    coincidences: Matrix, counts: Matrix, level: Literal["ordinal", "nominal"]
) -> NDArray[np.float64]:
    """Krippendorff's alpha of each bootstrap replicate: `coincidences` per resampled unit
    (a draft, or a conversation's drafts summed), `counts` (resamples x units) its draws. A
    replicate's coincidence matrix is the count-weighted sum of its units', so all replicates
    are one matrix product; expected coincidences and (ordinal) distances follow from each
    replicate's marginals as in `krippendorff.alpha`, which a test checks replicate by
    replicate."""
    values = math.isqrt(coincidences.shape[1])
    observed = (counts @ coincidences).reshape(-1, values, values)
    marginals = observed.sum(axis=1)  # (resamples, values)
    total = marginals.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = (
            marginals[:, :, None] * marginals[:, None, :] - marginals[:, :, None] * np.eye(values)
        ) / (total - 1)[:, None, None]
    if level == "nominal":
        distance = np.broadcast_to(1 - np.eye(values), observed.shape)
    else:
        # The ordinal metric: (sum of the marginals from c to k - (n_c + n_k) / 2) squared.
        cumulative = np.concatenate(
            [np.zeros((len(marginals), 1)), np.cumsum(marginals, axis=1)], axis=1
        )
        low = np.minimum.outer(np.arange(values), np.arange(values))
        high = np.maximum.outer(np.arange(values), np.arange(values))
        between = cumulative[:, high + 1] - cumulative[:, low]
        distance = (between - (marginals[:, low] + marginals[:, high]) / 2) ** 2
    with np.errstate(invalid="ignore", divide="ignore"):
        result: NDArray[np.float64] = 1 - (observed * distance).sum(axis=(1, 2)) / (
            expected * distance
        ).sum(axis=(1, 2))
    return result


def krippendorff_reading(alpha: float) -> str:
    """Krippendorff's (2004) thresholds: >= 0.800 reliable, >= 0.667 tentative conclusions
    only, below unreliable ("undefined" for NaN)."""
    if math.isnan(alpha):
        return "undefined"
    return "reliable" if alpha >= 0.8 else "tentative" if alpha >= 0.667 else "unreliable"


def judge_agreement(
    data: Sequence[Sequence[object]],
    level: Literal["ordinal", "nominal"],
    domain: Sequence[object],
    *,
    clusters: Sequence[str] | None = None,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    confidence: float = 0.95,
) -> Agreement:
    """Krippendorff's alpha of a panel (Krippendorff 2004; the maintained `krippendorff`
    package computes the estimate) with a percentile bootstrap interval over drafts, drawn with
    the suite's `resample_counts`.

    `data`: one row per judge, one column per draft, None where the judge gave no answer.
    Ratings: `level="ordinal"`, `domain=RATING_DOMAIN` (the 1-7 scale); one binary question's
    answers: `level="nominal"`, `domain=ANSWER_DOMAIN` (yes/no/na, "na" a category of its own).
    `clusters`: each draft's conversation. Given, the bootstrap draws conversations and keeps
    each one's drafts together (a cluster bootstrap, Davison & Hinkley 1997, section 3.8: the
    drafts of one conversation are not independent), conversations in id order as the report's
    other intervals draw them; without it, drafts are drawn one by one (a draw matrix of
    resamples x drafts: 208 MB at 2,600 drafts and 10,000 resamples).
    Alpha is 1 for perfect agreement, 0 for agreement at chance, negative below; NaN where it is
    undefined (fewer than two judges, no draft answered by two, or a single value throughout),
    with `reading` saying which.
    """
    if len(data) < 2:
        return Agreement(EMPTY, 0, len(data), level, "too few judges")
    counts = _value_counts(data, domain)
    if clusters is not None and len(clusters) != len(counts):
        raise ValueError(
            f"judge agreement: {len(clusters)} clusters for {len(counts)} drafts; expected one "
            "conversation per draft"
        )
    kept = counts.sum(axis=1) >= 2
    pairable = counts[kept]
    drafts = len(pairable)
    if drafts == 0:
        return Agreement(EMPTY, 0, len(data), level, "no draft answered by two judges")
    if (pairable.sum(axis=0) > 0).sum() < 2:
        return Agreement(
            Interval(NAN, NAN, NAN, drafts), drafts, len(data), level, "one value throughout"
        )
    estimate = float(
        krippendorff.alpha(
            value_counts=pairable,
            value_domain=list(range(len(domain))),
            level_of_measurement=level,
        )
    )
    units = _coincidences(pairable)
    if clusters is not None:
        kept_clusters = [c for c, k in zip(clusters, kept, strict=True) if k]
        ids = {c: i for i, c in enumerate(sorted(set(kept_clusters)))}
        members = np.zeros((len(ids), drafts))
        members[[ids[c] for c in kept_clusters], np.arange(drafts)] = 1.0
        units = members @ units
    replicates = _alpha_replicates(units, resample_counts(len(units), resamples, seed), level)
    low, high = percentile_interval(replicates[:, None], confidence)
    alpha = Interval(estimate, float(low[0]), float(high[0]), len(units))
    return Agreement(alpha, drafts, len(data), level, krippendorff_reading(estimate))


@dataclass(frozen=True)
class JudgeProfile:
    drafts: int
    """Drafts this judge rated (parsed answers)."""
    mean: float
    """Its mean rating on the 1-7 scale (leniency: compare with the panel's)."""
    sd: float
    modal_rating: int | None
    modal_share: float
    collapsed: bool | None
    """None: fewer than MIN_COLLAPSE_DRAFTS rated drafts, not decided."""
    rule: str = RULES["judge_collapse"]


def judge_profile(ratings: Sequence[int | None]) -> JudgeProfile:
    """One judge's ratings on one criterion across drafts: its mean (leniency), spread, and
    whether it collapsed.

    Collapse (RULES["judge_collapse"]): one rating covers >= COLLAPSE_SHARE of the drafts it
    rated, over at least MIN_COLLAPSE_DRAFTS drafts. The modal share is used rather than a
    standard deviation because it reads directly ("rated 5 on 93% of drafts") and does not
    depend on where on the scale the judge sits; a collapsed judge carries no information about
    the drafts and drags the panel's alpha toward 0 whatever the drafts' quality (the paper's
    Draft Judge collapse in omniscient mode). The rule reads the judge alone: when every judge
    collapses on the same value the drafts themselves may not vary (e.g. a baseline that writes
    one fixed draft), which the report should say rather than blame the judges.
    """
    given = [r for r in ratings if r is not None]
    if not given:
        return JudgeProfile(0, NAN, NAN, None, NAN, None)
    modal, top = Counter(given).most_common(1)[0]
    share = top / len(given)
    sd = float(np.std(given, ddof=1)) if len(given) > 1 else NAN
    collapsed = share >= COLLAPSE_SHARE if len(given) >= MIN_COLLAPSE_DRAFTS else None
    return JudgeProfile(len(given), float(np.mean(given)), sd, modal, share, collapsed)


# --- 6. self-judging ---------------------------------------------------------------------------

SelfJudge = Literal["same model", "same family"]

_MAKER_ALIASES = {
    "meta-llama": "meta",
    "meta": "meta",
    "mistralai": "mistral",
    "mistral": "mistral",
    "deepseek-ai": "deepseek",
    "x-ai": "xai",
    "grok": "xai",
    "qwen": "qwen",
    "google": "google",
    "openai": "openai",
    "anthropic": "anthropic",
    "cohere": "cohere",
    "microsoft": "microsoft",
    "deepseek": "deepseek",
    "xai": "xai",
}
"""Path segments (a provider, or a router's organisation segment) that name a model's maker."""
_STEM_MAKERS = {
    "gpt": "openai",
    "chatgpt": "openai",
    "o": "openai",
    "claude": "anthropic",
    "gemini": "google",
    "gemma": "google",
    "llama": "meta",
    "mistral": "mistral",
    "mixtral": "mistral",
    "codestral": "mistral",
    "qwen": "qwen",
    "qwq": "qwen",
    "deepseek": "deepseek",
    "grok": "xai",
    "command": "cohere",
    "phi": "microsoft",
}
"""A family stem's maker, for providers that do not name it (azureai/gpt-4o, ollama/llama3)."""
_SNAPSHOT = re.compile(r"(@.*|-v\d+(:\d+)?|-latest|-\d{4}-\d{2}-\d{2}|-\d{8}|-\d{4})$")
_BEDROCK_PREFIX = re.compile(r"^(?:[a-z]{2}\.)?([a-z-]+)\.(?=[a-z])")


@dataclass(frozen=True)
class ModelIdentity:
    maker: str | None
    """Who made the model (from the route, or the stem), None when unknown."""
    model: str
    """The model id without route, maker prefix or snapshot suffix."""
    family: str
    """The model id's leading letters."""


def model_identity(name: str) -> ModelIdentity:
    """What a model name (Inspect's `provider/model`, routes such as `openrouter/maker/model`
    included) says about the model. Lower-cased, then:

    - maker: the first segment after the provider that names a maker (`openrouter/anthropic/..`,
      `together/meta-llama/..`), else the provider when it is a maker (`openai/..`), else a
      Bedrock-style prefix (`bedrock/us.anthropic.claude-..`), else the family's usual maker
      (`azureai/gpt-4o` -> openai), else None;
    - model: the last path segment without a Bedrock maker prefix, with snapshot suffixes
      stripped repeatedly: `@...`, `-v1:0`, `-latest`, a date (`-2024-08-06`, `-20240620`) or a
      4-digit snapshot (`-0613`). So gpt-4o-2024-08-06 -> gpt-4o, claude-3-5-sonnet@20240620 ->
      claude-3-5-sonnet; claude-opus-4-6 stays (single-digit version parts are a version, not a
      snapshot);
    - family: the model's first word's leading letters, after a leading maker word (`Meta-Llama-
      3.1-70B` -> llama): gpt-4o, gpt-4.1-mini, gpt-5 -> gpt; o1, o3-mini -> o; claude-opus-4-6,
      claude-3-5-sonnet -> claude; gemini-2.5-pro -> gemini; llama3.1:8b -> llama. Versions,
      sizes and tiers (mini, opus, 70b) never change the family: it is deliberately broad, since
      a judge favours its own family's writing (Panickssery et al. 2024).
    """
    segments = name.lower().split("/")
    provider, route, last = segments[0], segments[1:-1], segments[-1]
    bedrock = _BEDROCK_PREFIX.match(last)
    prefix_maker = _MAKER_ALIASES.get(bedrock.group(1)) if bedrock else None
    if prefix_maker:
        last = last[bedrock.end() :] if bedrock else last
    model = last
    while (stripped := _SNAPSHOT.sub("", model)) != model and stripped:
        model = stripped
    words = [w for w in re.split(r"[-_.:\s]", model) if w]
    if len(words) > 1 and words[0] in _MAKER_ALIASES:
        words = words[1:]
    first = words[0] if words else model
    letters = re.match(r"[a-z]+", first)
    family = letters.group(0) if letters else first
    maker = next(
        (_MAKER_ALIASES[s] for s in route if s in _MAKER_ALIASES),
        _MAKER_ALIASES.get(provider) or prefix_maker or _STEM_MAKERS.get(family),
    )
    return ModelIdentity(maker, model, family)


def self_judge(evaluated: str, judge: str) -> SelfJudge | None:
    """Whether `judge` is the evaluated model ("same model") or of its family from the same
    maker ("same family"), else None. Self-preference of LLM judges: Zheng et al. 2023
    (self-enhancement bias), Panickssery et al. 2024 ("LLM evaluators recognize and favor their
    own generations").

    Same model: the same model id after routes, maker prefixes and snapshot suffixes are
    stripped (`model_identity`), and makers that agree or are unknown:
    openai/gpt-4o vs openai/gpt-4o-2024-08-06, openrouter/openai/gpt-4o vs openai/gpt-4o,
    vertex/claude-3-5-sonnet@20240620 vs anthropic/claude-3-5-sonnet-20240620.
    Same family: the same family and makers that agree or are unknown:
    anthropic/claude-opus-4-6 vs anthropic/claude-opus-4-7 or anthropic/claude-sonnet-4-5,
    openai/gpt-4o vs openai/gpt-4o-mini, google/gemini-2.5-pro vs openrouter/google/gemini-2.0-
    flash. Not related: openai/gpt-4o vs openai/o3 (families gpt and o), openai/gpt-4o vs
    anthropic/claude-opus-4-6, a family of the same name from two known makers.
    """
    a, b = model_identity(evaluated), model_identity(judge)
    if a.maker is not None and b.maker is not None and a.maker != b.maker:
        return None
    if a.model == b.model:
        return "same model"
    if a.family == b.family:
        return "same family"
    return None
