"""Cohen's kappa within strata: the chance-corrected agreement of a third party with the
participants, computed so that a rater who knows nothing of the person scores 0 however its
answers are patterned (pure numpy; no Inspect, no I/O). The expected agreement is computed within
each stratum from its own marginals, and the strata pooled:

    kappa = 1 - sum_k sum_ij w_ij O_kij / sum_k sum_ij w_ij E_kij,   E_kij = O_ki. O_k.j / n_k

With one stratum it is Cohen's kappa (tests pin it to sklearn.metrics.cohen_kappa_score). Why
within strata, and what a stratum holds: docs/third-party.md, 'Agreement of third parties with
the participants'."""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import NDArray

from ..._util.bootstrap import Interval, percentile_interval, resample_counts

Weights = Literal["nominal", "quadratic"]
COEFFICIENT = {"nominal": "Cohen's kappa", "quadratic": "quadratic-weighted kappa"}
CHUNK = 1000
"""Bootstrap replicates computed at once (a replicate holds every stratum's table)."""


def _weights(categories: int, kind: Weights) -> NDArray[np.float64]:
    i, j = np.indices((categories, categories))
    if kind == "nominal":
        return np.asarray(i != j, dtype=float)
    return np.asarray(((i - j) / max(categories - 1, 1)) ** 2, dtype=float)


def stratified_kappa(
    tables: NDArray[np.float64], weights: Weights = "nominal"
) -> NDArray[np.float64]:
    """Kappa of each (..., strata, L, L) stack of contingency tables (rows: the participant,
    columns: the third party), the expected agreement taken within each stratum. NaN where the
    expected disagreement is 0 in every stratum (both raters constant within each)."""
    w = _weights(tables.shape[-1], weights)
    n = tables.sum(axis=(-1, -2), keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = np.where(
            n > 0, tables.sum(axis=-1)[..., :, None] * tables.sum(axis=-2)[..., None, :] / n, 0.0
        )
        observed = (w * tables).sum(axis=(-1, -2, -3))
        chance = (w * expected).sum(axis=(-1, -2, -3))
        result = 1 - observed / chance
    return np.asarray(np.where(chance > 0, result, np.nan), dtype=float)


def kappa_interval(
    tables: NDArray[np.float64],
    weights: Weights,
    resamples: int,
    seed: int,
    level: float,
) -> Interval:
    """The stratified kappa of (conversations, strata, L, L) tables, summed over conversations,
    with its percentile bootstrap interval over conversations (the report's draws, rows in the
    caller's order: conversation id order)."""
    rows = tables.shape[0]
    point = float(stratified_kappa(tables.sum(axis=0), weights)) if rows else float("nan")
    if rows == 0:
        return Interval(point, float("nan"), float("nan"), 0)
    counts = resample_counts(rows, resamples, seed)
    flat = tables.reshape(rows, -1)
    replicates = np.concatenate(
        [
            stratified_kappa((block @ flat).reshape(len(block), *tables.shape[1:]), weights)
            for block in (counts[i : i + CHUNK] for i in range(0, resamples, CHUNK))
        ]
    )
    low, high = percentile_interval(replicates[:, None], level)
    return Interval(point, float(low[0]), float(high[0]), rows)
