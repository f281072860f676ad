"""Rank stability: per pair of models, how often their order holds over bootstrap replicates."""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..._util.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, replicate_means, resample_counts
from ..._util.verdict import cannot_decide
from ._rules import MIN_CLUSTERS, NAN, RANK_SETTLED, RULES, Matrix


@dataclass(frozen=True)
class RankStability:
    models: list[str]
    estimates: list[float]
    """Each model's run Composite (the mean over its conversations of their epoch means)."""
    holds: Matrix
    """holds[i, j]: the share of replicates in which models i and j keep the order of their
    estimates (NaN on the diagonal, and where an order is undefined); symmetric."""
    resamples: int
    shared: int = 0
    """Conversations every model has (with a Composite in some epoch)."""
    rule: str = RULES["rank_stability"]

    @property
    def reason(self) -> str | None:
        """Why no pair's order can be decided (None: they can)."""
        if len(self.models) < 2:
            return cannot_decide(f"{len(self.models)} model(s); a ranking needs 2 or more")
        if self.shared < MIN_CLUSTERS:
            return cannot_decide(
                f"{self.shared} conversation(s) every model has; the interval needs {MIN_CLUSTERS}"
            )
        return None

    def settled(self) -> NDArray[np.bool_]:
        """settled[i, j]: whether the order of models i and j is settled (never where undecided)."""
        if self.reason is not None:
            return np.zeros(self.holds.shape, dtype=bool)
        result: NDArray[np.bool_] = np.nan_to_num(self.holds, nan=0.0) >= RANK_SETTLED
        return result

    def verdict(self, i: int, j: int) -> str:
        """The verdict on the order of models i and j (RULES["rank_stability"])."""
        if self.reason is not None:
            return self.reason
        if math.isnan(self.holds[i, j]):
            return cannot_decide("the two Composites are equal: no order to hold")
        return "settled" if self.holds[i, j] >= RANK_SETTLED else "not settled"


def _epoch_replicates(
    values: Matrix, counts: Matrix, rng: np.random.Generator, chunk: int = 1000
) -> NDArray[np.float64]:
    """Replicate run Composites of one model: conversations drawn as `counts` (resamples x n),
    and within each drawn copy its epochs drawn again (Davison & Hinkley 1997, section 3.8,
    strategy 2). The c copies of a conversation with m epochs together draw c*m epochs: one
    multinomial per cell."""
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
    (docs/stability.md, 'Would the ranking hold? (rank stability)').

    `composites`: model -> conversation id -> its Composite per epoch (NaN: undefined). Every
    model is resampled with the same draws of conversations (paired), each model's mean over
    the drawn conversations it has; with `resample_epochs`, each drawn copy of a conversation
    also redraws its epochs, per model (epochs of different models are unrelated runs). A tie in
    a replicate counts as the order not holding. Fewer than two models: an empty matrix."""
    models = sorted(composites)
    conversations = sorted({c for per in composites.values() for c in per})
    n = len(conversations)
    epochs = max((len(v) for per in composites.values() for v in per.values()), default=0)
    if len(models) < 2 or n == 0:
        empty = np.full((len(models),) * 2, NAN)
        return RankStability(models, [NAN] * len(models), empty, 0, _shared(composites))
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
            replicates[:, j] = _epoch_replicates(values, resample_counts(n, resamples, seed), rng)
        else:
            replicates[:, j] = replicate_means(means[:, None], resamples, seed)[:, 0]
    est = np.asarray(estimates)
    order = np.sign(est[:, None] - est[None, :])
    kept = np.sign(replicates[:, :, None] - replicates[:, None, :]) == order[None, :, :]
    holds = kept.mean(axis=0)
    holds[(order == 0) | np.isnan(order)] = NAN
    return RankStability(models, estimates, holds, resamples, _shared(composites))


def _shared(composites: Mapping[str, Mapping[str, Sequence[float]]]) -> int:
    """Conversations every model has a Composite for, in some epoch."""
    have = [
        {c for c, v in per.items() if any(not math.isnan(x) for x in v)}
        for per in composites.values()
    ]
    return len(set.intersection(*have)) if have else 0
