"""The paper's analyses over run tables: pure numpy/scipy, no Inspect, no I/O.

Every interval is a seeded percentile bootstrap over conversations; paired comparisons resample the
shared conversations jointly.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.stats import spearmanr, ttest_rel

from ..._util.bootstrap import (
    EMPTY,
    Interval,
    mean_ci,
    mean_cis,
    percentile_interval,
    replicate_means,
    resample_counts,
)
from ...score._catalog import PILLAR_NAMES, REPORTED, TURN_CANONICAL, spec
from ...solve._modes import PRIMARY
from ._run_table import CHANCE_LABEL, RunTable

CANONICAL = REPORTED
"""The leaderboard's metrics: seed 003's Composite inputs and those reported alongside."""
DRIFT_METRICS = TURN_CANONICAL
THIRDS = ("early", "middle", "late")
SUBGROUP_METRICS = ("composite", *DRIFT_METRICS)
NAN = float("nan")


@dataclass(frozen=True)
class Settings:
    resamples: int
    seed: int


def composite_ci(table: RunTable, ids: list[str], settings: Settings) -> Interval:
    """The run Composite (the mean of its conversations' Composites, `metrics.run_composite`)
    with its bootstrap interval over conversations: the same estimator as the log header and
    `attunebench composite`."""
    return mean_ci(table.metric("composite", ids), resamples=settings.resamples, seed=settings.seed)


# --- leaderboard ---------------------------------------------------------------------------


@dataclass(frozen=True)
class LeaderRow:
    model: str
    mode: str
    composite: Interval
    metrics: dict[str, Interval]


def metric_intervals(
    tables: Sequence[RunTable], metrics: Sequence[str], settings: Settings
) -> dict[int, dict[str, Interval]]:
    """Per run (by `id`), each metric with a value and its bootstrap interval. Every metric of
    every run is resampled in one call: runs of a size share their draws."""
    cells = [(t, m) for t in tables for m in metrics if any_value(t.metric(m))]
    intervals = mean_cis(
        [t.metric(m) for t, m in cells], resamples=settings.resamples, seed=settings.seed
    )
    per_table: dict[int, dict[str, Interval]] = {id(t): {} for t in tables}
    for (t, m), interval in zip(cells, intervals, strict=True):
        per_table[id(t)][m] = interval
    return per_table


def leaderboard(
    tables: Sequence[RunTable], settings: Settings, metrics: Sequence[str]
) -> list[LeaderRow]:
    per_table = metric_intervals(tables, (*PILLAR_NAMES, *metrics), settings)
    rows = [
        LeaderRow(
            model=t.label,
            mode=t.mode,
            composite=composite_ci(t, t.ids, settings),
            metrics=per_table[id(t)],
        )
        for t in tables
    ]
    return sorted(rows, key=lambda r: (r.mode, -or_low(r.composite.estimate), r.model))


def or_low(value: float) -> float:
    return -math.inf if math.isnan(value) else value


# --- paired comparisons ----------------------------------------------------------------------


def shared_ids(a: RunTable, b: RunTable) -> list[str]:
    return sorted(set(a.conversations) & set(b.conversations))


@dataclass(frozen=True)
class PairDifference:
    mode: str
    metric: str
    model_a: str
    model_b: str
    difference: Interval

    @property
    def distinguished(self) -> bool:
        return self.difference.low > 0 or self.difference.high < 0


def by_mode(tables: Sequence[RunTable], chance: bool = False) -> dict[str, list[RunTable]]:
    groups: dict[str, list[RunTable]] = {}
    for table in tables:
        if chance or table.label != CHANCE_LABEL:
            groups.setdefault(table.mode, []).append(table)
    return {mode: sorted(ts, key=lambda t: t.label) for mode, ts in sorted(groups.items())}


def distinguishability(
    tables: Sequence[RunTable],
    settings: Settings,
    metrics: Sequence[str] = ("composite", "pairwise_accuracy"),
) -> list[PairDifference]:
    """Per pair of models, the paired bootstrap interval of the mean difference on their shared
    conversations (every pair of a size resampled at once, with the same draws)."""
    result: list[PairDifference] = []
    for mode, group in by_mode(tables).items():
        pairs = [(a, b, shared_ids(a, b)) for a, b in itertools.combinations(group, 2)]
        intervals = {
            metric: mean_cis(
                [a.metric(metric, ids) - b.metric(metric, ids) for a, b, ids in pairs],
                resamples=settings.resamples,
                seed=settings.seed,
            )
            for metric in metrics
        }
        result.extend(
            PairDifference(mode, metric, a.label, b.label, intervals[metric][i])
            for i, (a, b, _) in enumerate(pairs)
            for metric in metrics
        )
    return result


# --- perspective gap ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Gap:
    model: str
    mode: str
    label: str
    points: Interval
    """Mean difference in percentage points, with its bootstrap CI."""
    p_value: float
    """Paired t-test over conversations."""


def _gap(table: RunTable, first: str, second: str, label: str, settings: Settings) -> Gap:
    a, b = table.metric(first), table.metric(second)
    keep = ~(np.isnan(a) | np.isnan(b))
    a, b = a[keep], b[keep]
    diff = 100 * (a - b)
    p = float(ttest_rel(a, b).pvalue) if a.size > 1 and np.any(a != b) else NAN
    return Gap(
        table.label,
        table.mode,
        label,
        mean_ci(list(diff), resamples=settings.resamples, seed=settings.seed),
        p,
    )


PHRASING_EFFECTS = ("OM: observer - HP-facing", "HP: observer - HP-facing")
"""The gaps that are phrasing effects: the same binary question asked in two phrasings."""


def perspective_gaps(tables: Sequence[RunTable], settings: Settings) -> list[Gap]:
    """Binary OM - Binary HP (what the model did vs what the participant wanted), and the
    phrasing effect (observer - HP-facing phrasing) of each."""
    specs = (
        ("binary_om_accuracy", "binary_hp_accuracy", "OM - HP"),
        ("binary_om_accuracy", "binary_om_accuracy_hp_facing", PHRASING_EFFECTS[0]),
        ("binary_hp_accuracy", "binary_hp_accuracy_hp_facing", PHRASING_EFFECTS[1]),
    )
    return [_gap(t, a, b, label, settings) for t in tables for a, b, label in specs]


# --- turn drift ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Drift:
    model: str
    mode: str
    metric: str
    thirds: tuple[float, float, float]
    turns: tuple[int, int, int]
    intervals: tuple[Interval, Interval, Interval]
    """Per third, a 95% bootstrap interval of the pooled per-turn mean, resampling conversations
    (turns of one conversation are not independent)."""


def _drift_of(
    label: str, mode: str, group: Sequence[RunTable], metric: str, settings: Settings
) -> Drift:
    # Per conversation and third: the sum and count of defined turn values. The pooled mean of a
    # third is sum/count over conversations; a replicate redraws conversations (a ratio
    # bootstrap). Runs of the same size share their draws (the cached count matrix), so a
    # conversation several models ran is redrawn together, and memory stays that of one run.
    totals = np.zeros(3)
    numbers = np.zeros(3)
    replicate_sums = np.zeros((settings.resamples, 3))
    replicate_numbers = np.zeros((settings.resamples, 3))
    for table in group:
        turns = table.turn_table
        values = turns.metric(metric)
        keep = ~np.isnan(values)
        cell = turns.conversation[keep] * 3 + turns.third[keep]
        size = len(table.ids) * 3
        sums = np.bincount(cell, weights=values[keep], minlength=size).reshape(-1, 3)
        counts = np.bincount(cell, minlength=size).reshape(-1, 3).astype(float)
        draws = resample_counts(sums.shape[0], settings.resamples, settings.seed)
        totals += sums.sum(axis=0)
        numbers += counts.sum(axis=0)
        replicate_sums += draws @ sums
        replicate_numbers += draws @ counts
    with np.errstate(invalid="ignore", divide="ignore"):
        means = totals / numbers
        low, high = percentile_interval(replicate_sums / replicate_numbers)
    n = max((len(t.ids) for t in group), default=0)
    return Drift(
        label,
        mode,
        metric,
        tuple(float(x) for x in means),  # type: ignore[arg-type]
        tuple(int(c) for c in numbers),  # type: ignore[arg-type]
        tuple(  # type: ignore[arg-type]
            Interval(float(m), float(a), float(b), n)
            for m, a, b in zip(means, low, high, strict=True)
        ),
    )


def turn_drift(tables: Sequence[RunTable], settings: Settings) -> list[Drift]:
    """Per-turn metrics pooled by conversation third, per model and pooled over the models, with
    bootstrap intervals over conversations."""
    rows = [_drift_of(t.label, t.mode, [t], m, settings) for t in tables for m in DRIFT_METRICS]
    for mode, group in by_mode(tables).items():
        rows.extend(_drift_of("all models", mode, group, m, settings) for m in DRIFT_METRICS)
    return rows


# --- subgroups ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class SubgroupRow:
    model: str
    mode: str
    metric: str
    inside: Interval
    rest: Interval
    difference: Interval


def _independent_difference(
    inside: NDArray[np.float64], rest: NDArray[np.float64], settings: Settings
) -> Interval:
    a, b = inside[~np.isnan(inside)], rest[~np.isnan(rest)]
    if a.size == 0 or b.size == 0:
        return EMPTY
    ra = replicate_means(a[:, None], settings.resamples, settings.seed)
    rb = replicate_means(b[:, None], settings.resamples, settings.seed + 1)
    low, high = percentile_interval(ra - rb)
    return Interval(float(a.mean() - b.mean()), float(low[0]), float(high[0]), a.size + b.size)


def compare_subgroup(
    tables: Sequence[RunTable], selects: Callable[[dict[str, object]], bool], settings: Settings
) -> list[SubgroupRow]:
    """Each run's subgroup beside the rest, where it has conversations in both (a run without
    is left out: the section says which)."""
    rows = []
    for table in tables:
        inside = [i for i in table.ids if selects(table.conversations[i].facts)]
        chosen = set(inside)
        rest = [i for i in table.ids if i not in chosen]
        if not inside or not rest:
            continue
        for metric in SUBGROUP_METRICS:
            values_in = table.metric(metric, inside)
            values_out = table.metric(metric, rest)
            rows.append(
                SubgroupRow(
                    table.label,
                    table.mode,
                    metric,
                    mean_ci(values_in, resamples=settings.resamples, seed=settings.seed),
                    mean_ci(values_out, resamples=settings.resamples, seed=settings.seed),
                    _independent_difference(values_in, values_out, settings),
                )
            )
    return rows


# --- capability split, win rates, mode deltas -------------------------------------------------


@dataclass(frozen=True)
class CapabilitySplit:
    mode: str
    models: list[str]
    metrics: list[str]
    means: dict[str, dict[str, float]]
    """metric -> model -> mean."""
    ranks: dict[str, dict[str, int]]
    """metric -> model -> rank (1 = best)."""
    leaders: dict[str, str]
    spearman: dict[str, dict[str, float]]
    """metric -> metric -> Spearman rank correlation across models."""
    negative_tau: list[str]


def capability_split(tables: Sequence[RunTable]) -> list[CapabilitySplit]:
    result = []
    for mode, group in by_mode(tables).items():
        models = [t.label for t in group]
        metrics = [m for m in CANONICAL if any(any_value(t.metric(m)) for t in group)]
        means = {m: {t.label: nan_mean(t.metric(m)) for t in group} for m in metrics}
        ranks: dict[str, dict[str, int]] = {}
        leaders: dict[str, str] = {}
        for m in metrics:
            better = 1 if spec(m).higher_is_better else -1
            order = sorted(models, key=lambda x: (-or_low(better * means[m][x]), x))
            ranks[m] = {model: i + 1 for i, model in enumerate(order)}
            leaders[m] = order[0]
        spearman: dict[str, dict[str, float]] = {m: {} for m in metrics}
        for a, b in itertools.product(metrics, repeat=2):
            spearman[a][b] = spearman_rho(
                [means[a][x] for x in models], [means[b][x] for x in models]
            )
        negative = [x for x in models if means.get("kendall_tau", {}).get(x, NAN) < 0]
        result.append(
            CapabilitySplit(mode, models, metrics, means, ranks, leaders, spearman, negative)
        )
    return result


def any_value(values: NDArray[np.float64]) -> bool:
    return bool(np.any(~np.isnan(values)))


def nan_mean(values: Sequence[float] | NDArray[np.float64]) -> float:
    arr = np.asarray(values, dtype=float)
    return float(np.nanmean(arr)) if np.any(~np.isnan(arr)) else NAN


def spearman_rho(a: list[float], b: list[float]) -> float:
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    keep = ~(np.isnan(x) | np.isnan(y))
    if keep.sum() < 3 or np.ptp(x[keep]) == 0 or np.ptp(y[keep]) == 0:
        return NAN
    return float(spearmanr(x[keep], y[keep]).statistic)


@dataclass(frozen=True)
class WinRates:
    mode: str
    models: list[str]
    rates: dict[str, dict[str, float]]
    """rates[a][b]: share of shared conversations where a's Pairwise Accuracy beats b's."""


def win_rates(tables: Sequence[RunTable]) -> list[WinRates]:
    result = []
    for mode, group in by_mode(tables).items():
        rates: dict[str, dict[str, float]] = {t.label: {} for t in group}
        for a, b in itertools.permutations(group, 2):
            ids = shared_ids(a, b)
            pa, pb = a.metric("pairwise_accuracy", ids), b.metric("pairwise_accuracy", ids)
            rates[a.label][b.label] = float(np.mean(pa > pb)) if ids else NAN
        result.append(WinRates(mode, [t.label for t in group], rates))
    return result


@dataclass(frozen=True)
class ModeDelta:
    model: str
    mode: str
    metric: str
    delta: float
    """Mean over shared conversations of (mode - default)."""
    conversations: int


def mode_deltas(tables: Sequence[RunTable]) -> list[ModeDelta]:
    defaults = {t.label: t for t in tables if t.mode == PRIMARY}
    rows = []
    for table in sorted(tables, key=lambda t: (t.label, t.mode)):
        base = defaults.get(table.label)
        if table.mode == PRIMARY or base is None:
            continue
        ids = shared_ids(table, base)
        for metric in ("composite", *PILLAR_NAMES, *CANONICAL):
            diff = table.metric(metric, ids) - base.metric(metric, ids)
            if np.any(~np.isnan(diff)):
                rows.append(
                    ModeDelta(table.label, table.mode, metric, float(np.nanmean(diff)), len(ids))
                )
    return rows


# --- operations --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Operations:
    model: str
    mode: str
    conversations: int
    errored: dict[str, str]
    parse_failure_rate: float
    repaired_calls: float
    judge_parse_failures: float
    tokens_per_conversation: dict[str, float]
    tokens_by_role: dict[str, dict[str, int]]
    seconds_per_conversation: float
    wall_seconds: float


def operations(tables: Sequence[RunTable]) -> list[Operations]:
    rows = []
    for t in tables:
        convs = list(t.conversations.values())
        kinds = sorted({k for c in convs for k in c.tokens})
        rows.append(
            Operations(
                model=t.label,
                mode=t.mode,
                conversations=len(convs),
                errored=dict(sorted(t.errors.items())),
                parse_failure_rate=nan_mean(t.metric("parse_failure_rate")),
                repaired_calls=float(np.nansum(t.metric("repaired"))) if convs else 0.0,
                judge_parse_failures=float(np.nansum(t.metric("judge_parse_failures"))),
                tokens_per_conversation={
                    k: float(np.mean([c.tokens.get(k, 0) for c in convs])) for k in kinds
                },
                tokens_by_role=t.usage,
                seconds_per_conversation=nan_mean([c.seconds for c in convs]),
                wall_seconds=t.wall_seconds,
            )
        )
    return rows


FEW_CONVERSATIONS = 10
"""Runs and comparisons over fewer conversations are marked: their intervals are wide (the paper's
human-baseline pilot had 7)."""
