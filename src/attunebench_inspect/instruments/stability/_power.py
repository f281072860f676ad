"""The paired design's power: how many conversations and epochs separate two models (pure
arithmetic). Var(d_i) = b + (w_A + w_B) / E per conversation; the power is the paired t's,
from scipy's noncentral t (Cohen 1988, ch. 2). The model, the pilot's estimates and why the
difference to detect is the user's: docs/stability.md, 'How many epochs and conversations?'."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from ..._util.verdict import cannot_decide
from ._rules import MIN_PILOT_CONVERSATIONS, RESOLUTION

MAX_CONVERSATIONS = 1_000_000


@dataclass(frozen=True)
class Variances:
    """The variance components of the paired design, in Composite points squared."""

    between: float
    """b: the variance across conversations of the two models' true per-conversation difference."""
    within_a: float
    """w_A: model A's variance of one conversation's Composite across epochs."""
    within_b: float

    def difference(self, epochs: int) -> float:
        """Var(d_i) with `epochs` epochs per model: b + (w_A + w_B) / E."""
        return self.between + (self.within_a + self.within_b) / epochs

    @property
    def abstention(self) -> str | None:
        """ "cannot decide: ..." where there is no variance to plan on (None: there is): the
        variance of a conversation's difference with one epoch under RESOLUTION squared."""
        if not self.difference(1) >= RESOLUTION**2:
            return cannot_decide(
                f"no variance to plan on (a conversation's difference varies by an SD of "
                f"{math.sqrt(max(self.difference(1), 0.0)):.2g} points, under the report's "
                f"precision of {RESOLUTION}): any two conversations would seem to separate any "
                "difference"
            )
        return None


def _complete(
    pilot: Mapping[str, Sequence[float]], shared: Sequence[str], name: str
) -> NDArray[np.float64]:
    epochs = {len(pilot[c]) for c in shared}
    if len(epochs) != 1:
        raise ValueError(
            f"pilot {name}: conversations have different epoch counts {sorted(epochs)}; "
            "expected the same number of epochs for every conversation"
        )
    return np.asarray([pilot[c] for c in shared], dtype=float)


def _pilot_matrices(
    a: Mapping[str, Sequence[float]], b: Mapping[str, Sequence[float]]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Each model's conversations x epochs Composites, over the shared complete conversations."""
    shared = sorted(
        c
        for c in set(a) & set(b)
        if not any(math.isnan(x) for x in (*a[c], *b[c])) and a[c] and b[c]
    )
    if not shared:
        return np.zeros((0, 0)), np.zeros((0, 0))
    return _complete(a, shared, "A"), _complete(b, shared, "B")


def pilot_abstention(
    a: Mapping[str, Sequence[float]], b: Mapping[str, Sequence[float]]
) -> str | None:
    """Why a pilot cannot decide a plan by RULES["plan"] (None: it can)."""
    ya, yb = _pilot_matrices(a, b)
    if len(ya) < MIN_PILOT_CONVERSATIONS:
        return cannot_decide(
            f"{len(ya)} conversation(s) with a Composite in every epoch of both models; a "
            f"pilot needs {MIN_PILOT_CONVERSATIONS}"
        )
    epochs = min(ya.shape[1], yb.shape[1])
    if epochs < 2:
        return cannot_decide(
            f"a pilot of {epochs} epoch: the rerun variance needs 2 or more (run the pilot "
            "with --epochs 2, or state the variances)"
        )
    if ya.shape == yb.shape and np.array_equal(ya, yb):
        return cannot_decide(
            "the two runs have the same Composite in every conversation and epoch (one run "
            "given as both models, or one model that answers one thing run twice): a plan "
            "needs two models' runs"
        )
    return variances_from_pilot(a, b).abstention


def variances_from_pilot(
    a: Mapping[str, Sequence[float]], b: Mapping[str, Sequence[float]]
) -> Variances:
    """The variance components from pilot runs of two models, each conversation id -> its
    Composite in each epoch (NaN: undefined), over the conversations both have whole; a
    ValueError under two such conversations or two epochs (`pilot_abstention` says why first)."""
    ya, yb = _pilot_matrices(a, b)
    if len(ya) < 2:
        raise ValueError(
            f"pilot: {len(ya)} conversation(s) with a Composite in every epoch of both "
            "models; expected at least 2"
        )
    for name, y in (("A", ya), ("B", yb)):
        if y.shape[1] < 2:
            raise ValueError(
                f"pilot {name}: {y.shape[1]} epoch; expected at least 2 to estimate the "
                "within-conversation variance (run the pilot with --epochs 2, or state it)"
            )
    within_a, within_b = (float(y.var(axis=1, ddof=1).mean()) for y in (ya, yb))
    d = ya.mean(axis=1) - yb.mean(axis=1)
    between = float(d.var(ddof=1)) - within_a / ya.shape[1] - within_b / yb.shape[1]
    return Variances(max(between, 0.0), within_a, within_b)


def power(
    difference: float, variances: Variances, conversations: int, epochs: int, alpha: float = 0.05
) -> float:
    """The power of the two-sided paired t test at level `alpha` to detect a true Composite
    difference `difference` with `conversations` shared conversations and `epochs` epochs per
    model: P(|T| > t_{1-alpha/2, n-1}) for T noncentral t with n - 1 degrees of freedom and
    noncentrality difference / sqrt(Var(d_i) / n)."""
    if conversations < 2 or epochs < 1:
        raise ValueError(
            f"power: found {conversations} conversations and {epochs} epochs; expected at "
            "least 2 and 1"
        )
    df = conversations - 1
    # A spread too small for double precision (a subnormal variance over n) is no spread.
    standard_error = math.sqrt(max(variances.difference(epochs), 0.0) / conversations)
    if standard_error == 0:
        return 1.0 if difference != 0 else alpha
    noncentrality = abs(difference) / standard_error
    if noncentrality > 1e3:
        # scipy's noncentral t gives 1 to double precision well before this and NaN far beyond.
        return 1.0
    critical = stats.t.ppf(1 - alpha / 2, df)
    # scipy's noncentral t gives NaN for the far tail opposite a large noncentrality, where
    # the probability underflows: it is 0 there.
    opposite = float(np.nan_to_num(stats.nct.cdf(-critical, df, noncentrality), nan=0.0))
    return float(stats.nct.sf(critical, df, noncentrality)) + opposite


def conversations_needed(
    difference: float,
    variances: Variances,
    epochs: int,
    target: float = 0.8,
    alpha: float = 0.05,
) -> int | None:
    """The fewest conversations (>= 2) whose paired t reaches power `target`; None if even
    MAX_CONVERSATIONS do not (a difference of 0, say). Power grows with n: doubling, then
    bisection."""
    if not 0 < target < 1:
        raise ValueError(f"power target: found {target}; expected a value in (0, 1)")
    if power(difference, variances, MAX_CONVERSATIONS, epochs, alpha) < target:
        return None
    low, high = 1, 2
    while power(difference, variances, high, epochs, alpha) < target:
        low, high = high, high * 2
    while high - low > 1:
        middle = (low + high) // 2
        if power(difference, variances, middle, epochs, alpha) >= target:
            high = middle
        else:
            low = middle
    return high


@dataclass(frozen=True)
class PlanRow:
    epochs: int
    conversations: int | None
    """None: not reachable."""
    power: float
    """The power at that size (>= the target), NaN when not reachable."""
    available: bool
    """Whether the dataset has that many conversations (always True without a limit)."""


def plan(
    difference: float,
    variances: Variances,
    *,
    target: float = 0.8,
    alpha: float = 0.05,
    max_epochs: int = 5,
    available: int | None = None,
) -> list[PlanRow]:
    """For each number of epochs from 1 to `max_epochs`, the fewest conversations that detect
    `difference` with power `target` at level `alpha`; `available` (the dataset's conversation
    count) marks the rows a run can reach."""
    rows = []
    for epochs in range(1, max_epochs + 1):
        n = conversations_needed(difference, variances, epochs, target, alpha)
        reached = power(difference, variances, n, epochs, alpha) if n else math.nan
        reachable = n is not None and (available is None or n <= available)
        rows.append(PlanRow(epochs, n, reached, reachable))
    return rows


def run_cost(row: PlanRow, prices: Sequence[Callable[[int], float]]) -> float:
    """What a planned run costs: each model's price of one epoch over `row.conversations`
    (`prices`: the estimate's bill), times the epochs; NaN for a row that is not reachable."""
    if row.conversations is None:
        return math.nan
    return row.epochs * sum(price(row.conversations) for price in prices)
