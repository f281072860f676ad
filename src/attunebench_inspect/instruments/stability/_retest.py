"""Reruns: test-retest reliability of the per-conversation Composite; the run Composite's spread."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy import stats

from ..._util.verdict import cannot_decide
from ._rules import MIN_TEST_RETEST, NAN, RULES, Matrix

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
    """The two-way ANOVA of an n (targets) x k (raters: epochs) matrix without replication."""

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
    ss_error = ((matrix - grand) ** 2).sum() - ss_rows - ss_columns
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
    Proven on Shrout & Fleiss's Table 2 (tests/instruments/stability/test_statistics.py). n >= 2 and
    k >= 2 complete rows are required (ValueError otherwise). Raters that agree exactly (no error
    variance, and for ICC(A,1) no rater effect either, as deterministic reruns give) make the F
    ratio infinite: the ICC is 1 with the interval [1, 1]; a matrix with no variance at all gives
    NaN. A bound is NaN where the F-based interval is undefined (at some negative estimates of
    ICC(A,1), Satterthwaite's degrees of freedom vanish)."""
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
    # The one-way model's error is MSW, the two-way models' MSE.
    residual, df2 = (within, n * (k - 1)) if form == "ICC(1,1)" else (error, (n - 1) * (k - 1))
    df1 = n - 1
    noise = residual + columns if form == "ICC(A,1)" else residual
    # Sums of squares of equal values come out as rounding residue, not 0.
    if noise <= 1e-12 * (rows + noise):
        exact, f0, p = (1.0, math.inf, 0.0) if rows > 0 else (NAN, NAN, NAN)
        return Icc(form, exact, exact, exact, f0, float(df1), float(df2), p)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        f0 = rows / residual
        if form == "ICC(A,1)":
            value = (rows - error) / (rows + (k - 1) * error + k * (columns - error) / n)
            low, high = _agreement_interval(value, ms, level)
        else:
            value = (rows - residual) / (rows + (k - 1) * residual)
            low, high = _f_ratio_interval(f0, df1, df2, k, level)
        p = stats.f.sf(f0, df1, df2)
    return Icc(form, *(float(x) for x in (value, low, high, f0, df1, df2, p)))


def _agreement_interval(value: float, ms: MeanSquares, level: float) -> tuple[float, float]:
    """The interval of ICC(A,1): McGraw & Wong (1996), Table 7, case 2A, with Satterthwaite's
    degrees of freedom (NaN where they vanish)."""
    n, k, tail = ms.n, ms.k, 1 - (1 - level) / 2
    rows, columns, error = (np.float64(x) for x in (ms.rows, ms.columns, ms.error))
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
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
    return float(low), float(high)


KOO_LI_BANDS = ((0.5, "poor"), (0.75, "moderate"), (0.9, "good"), (math.inf, "excellent"))


def koo_li_band(value: float) -> str:
    """Koo & Li's (2016) reading of an ICC ("undefined" for NaN)."""
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
    """Koo & Li's band of the ICC and of its bounds ("moderate (poor to good)"), or why none."""
    run_composites: list[float]
    """The run Composite of each epoch (over the complete conversations)."""
    spread_sd: float
    spread_range: float
    """The standard deviation (ddof 1) and max - min of the run Composite across epochs."""
    rule: str = RULES["test_retest"]


def _retest_reading(epochs: int, rows: int, result: Icc | None) -> str:
    """Koo & Li's band of the ICC and of its interval's bounds, or why there is none."""
    if epochs < 2:
        return cannot_decide(f"{epochs} epoch(s); test-retest needs 2 or more")
    if rows < MIN_TEST_RETEST:
        return cannot_decide(
            f"{rows} conversation(s) with a Composite in every epoch; the ICC needs "
            f"{MIN_TEST_RETEST}"
        )
    if result is None or math.isnan(result.value):
        return cannot_decide("every Composite is the same: no variance to apportion")
    return f"{koo_li_band(result.value)} ({koo_li_band(result.low)} to {koo_li_band(result.high)})"


def retest_reliability(
    composites: Mapping[str, Sequence[float]], level: float = 0.95
) -> RetestReliability:
    """Test-retest reliability of the per-conversation Composite across epochs (ICC(A,1), the
    epochs as raters; why that form: docs/stability.md, 'Does the score hold on a rerun?
    (epochs)'), and the spread of the run Composite across epochs.

    `composites`: conversation id -> its Composite in each epoch, in epoch order (NaN where it
    is undefined or the sample errored). Only complete rows enter (a Composite in each of the
    run's epochs, none NaN); the rest are counted in `dropped`. Where RULES["test_retest"]
    cannot decide, `reading` says why and the ICC is None or NaN."""
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
    result = (
        icc(matrix, "ICC(A,1)", level) if epochs >= 2 and len(rows) >= MIN_TEST_RETEST else None
    )
    reading = _retest_reading(epochs, len(rows), result)
    return RetestReliability(epochs, len(rows), dropped, result, reading, per_epoch, sd, spread)
