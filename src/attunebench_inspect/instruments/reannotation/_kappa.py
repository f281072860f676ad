"""Cohen's kappa within strata: the chance-corrected agreement of a third party with the
participants, computed so that a rater who knows nothing of the person scores 0 however its
answers are patterned (pure numpy; no Inspect, no I/O).

Cohen's kappa (Cohen 1960; quadratic-weighted, Cohen 1968) compares observed agreement with the
agreement expected from the two raters' marginals. Pooled over items that differ in their base
rates (the twenty PANAS items, a questionnaire's options, the three pairs of replies shown
earlier or later), the marginals mix the items, and a rater who answers every item the same
way each time (always "happy", always the same Q1 options, always the reply shown earlier)
earns a kappa that is not 0: its answers follow the items, and the items' base rates follow the
participants. Within one item such a rater is constant, and a constant rater's kappa is exactly
0. So the expected agreement is computed within each item (a stratum) from that item's own
marginals, and the strata are pooled:

    kappa = 1 - sum_k sum_ij w_ij O_kij / sum_k sum_ij w_ij E_kij,   E_kij = O_ki. O_k.j / n_k

the strata's kappas averaged with weights n_k (1 - p_e,k) in agreement-per-disagreement terms,
one of the stratified kappas Barlow, Lai & Azen (1991, Statistics in Medicine 10(9)) compare.
With one stratum it is Cohen's kappa, which tests pin to sklearn.metrics.cohen_kappa_score
stratum by stratum. What it measures: agreement beyond what each item's base rates explain,
the reading of *this person*, which is what the reviewer's test asks of the third parties.

A kappa is chance-corrected only against the marginals of the strata it is computed in
(Fleiss, Levin & Paik 2003, Statistical Methods for Rates and Proportions, 3rd ed., ch. 18):
strata that omit something that sets a label's base rate and that a rater can see let that
base rate pass as agreement. So a stratum is everything shown with the item that sets its base
rate: the question (a comparison's question as well as its pair: strata of the pair alone gave
a rater copying the winners of the same comparisons in other conversations kappa 0.21, its
interval above 0 in every seed), the order the page showed, and for the mood shift the turn
number (a first turn always shifts the mood: a rater copying the same turn's tags of other
conversations read above 0 in 4 of 10 seeds on 12 conversations under strata of the item
alone). The binary questions' turn number is not one: copying the same turn's answers scores
about 0 (bench/audit/RESULTS.md), while strata per turn leave a few items each and cost a faint
reader's detection (docs/third-party.md).
"""

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


def kappa(tables: NDArray[np.float64], weights: Weights = "nominal") -> NDArray[np.float64]:
    """Cohen's kappa of each (..., L, L) contingency table (one stratum); NaN where chance
    disagreement is 0. Tests pin it to sklearn.metrics.cohen_kappa_score."""
    return stratified_kappa(tables[..., None, :, :], weights)


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
