"""Seeded, vectorised percentile bootstrap over conversations (pure numpy). A replicate is a row
of counts (how often each conversation was drawn), so the replicate means of many columns are one
matrix product, `counts @ values / n`; every column of the same length shares the same draws,
which is what makes paired comparisons paired."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.typing import NDArray

DEFAULT_RESAMPLES = 10_000
DEFAULT_SEED = 0
NAN = float("nan")


@dataclass(frozen=True)
class Interval:
    estimate: float
    low: float
    high: float
    n: int

    def show(self, digits: int = 2) -> str:
        low, high = fixed(self.low, digits), fixed(self.high, digits)
        return f"{fixed(self.estimate, digits)} [{low}, {high}]"


def fixed(value: float, digits: int) -> str:
    """`value` with `digits` decimals; a value that rounds to 0 reads 0, never -0 (a difference
    of -0.0004 is no direction)."""
    return f"{round(value, digits) + 0.0:.{digits}f}"


EMPTY = Interval(NAN, NAN, NAN, 0)


@lru_cache(maxsize=16)
def resample_counts(n: int, resamples: int, seed: int) -> NDArray[np.float64]:
    """A (resamples, n) matrix: how often each of n rows is drawn in each replicate (read-only,
    cached: every metric of every run of the same size resamples with the same draws)."""
    rng = np.random.default_rng(seed)
    drawn = rng.integers(0, n, size=(resamples, n))
    flat = (np.arange(resamples)[:, None] * n + drawn).ravel()
    counts = np.bincount(flat, minlength=resamples * n).reshape(resamples, n).astype(float)
    counts.flags.writeable = False
    return counts


def replicate_means(values: NDArray[np.float64], resamples: int, seed: int) -> NDArray[np.float64]:
    """(resamples, k) replicate means of the k columns of an (n, k) matrix; NaN cells are left
    out of their column's mean (a replicate whose draws are all NaN gives NaN)."""
    counts = resample_counts(values.shape[0], resamples, seed)
    present = ~np.isnan(values)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (counts @ np.where(present, values, 0.0)) / (counts @ present)


def percentile_interval(
    replicates: NDArray[np.float64], level: float = 0.95
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per column, the percentile interval of (resamples, k) replicates, NaN replicates left out."""
    tail = (1 - level) / 2 * 100
    # nanpercentile is far slower than percentile, so only where a replicate can be NaN.
    quantile = np.nanpercentile if np.isnan(replicates).any() else np.percentile
    # A column with no defined replicate (e.g. a third no conversation reaches) is NaN, not a
    # warning.
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.filterwarnings("ignore", "All-NaN slice", RuntimeWarning)
        low, high = quantile(replicates, [tail, 100 - tail], axis=0)
    return low, high


def mean_cis(
    columns: Sequence[Sequence[float] | NDArray[np.float64]],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> list[Interval]:
    """For each column, its mean and percentile bootstrap interval, NaN values dropped first.

    Columns with the same number of values are resampled together with the same draws."""
    kept = [np.asarray(c, dtype=float) for c in columns]
    kept = [c[~np.isnan(c)] for c in kept]
    result: list[Interval] = [EMPTY] * len(kept)
    by_size: dict[int, list[int]] = {}
    for i, column in enumerate(kept):
        if column.size:
            by_size.setdefault(column.size, []).append(i)
    for size, members in by_size.items():
        matrix = np.column_stack([kept[i] for i in members])
        means = resample_counts(size, resamples, seed) @ matrix / size
        low, high = percentile_interval(means, level)
        for j, i in enumerate(members):
            result[i] = Interval(float(kept[i].mean()), float(low[j]), float(high[j]), size)
    return result


def mean_ci(
    values: Sequence[float] | NDArray[np.float64],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> Interval:
    """The mean and its percentile bootstrap interval; NaN values are dropped first."""
    return mean_cis([values], resamples=resamples, seed=seed, level=level)[0]
