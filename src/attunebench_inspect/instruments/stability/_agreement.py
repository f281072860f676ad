"""The judge panel: its agreement (`judge_agreement`), each judge's leniency and collapse."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import krippendorff
import numpy as np
from numpy.typing import NDArray

from ..._util.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    Interval,
    percentile_interval,
    resample_counts,
)
from ..._util.verdict import cannot_decide, is_abstention
from ...solve._predictions import JudgeVerdict
from ._rules import (
    COLLAPSE_SHARE,
    MIN_AGREEMENT_UNITS,
    MIN_CLUSTERS,
    MIN_COLLAPSE_DRAFTS,
    NAN,
    RULES,
    Matrix,
)


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
    """Krippendorff's reading of the estimate, or "cannot decide: <reason>"."""
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
    are one matrix product (a test checks each against `krippendorff.alpha`)."""
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
    """Krippendorff's (2004) reading of alpha ("undefined" for NaN)."""
    if math.isnan(alpha):
        return "undefined"
    return "reliable" if alpha >= 0.8 else "tentative" if alpha >= 0.667 else "unreliable"


def _alpha(pairable: Matrix, level: Literal["ordinal", "nominal"], values: int) -> float:
    return float(
        krippendorff.alpha(
            value_counts=pairable, value_domain=list(range(values)), level_of_measurement=level
        )
    )


def alpha(
    data: Sequence[Sequence[object]], level: Literal["ordinal", "nominal"], domain: Sequence[object]
) -> float:
    """Krippendorff's alpha without its interval, for a log metric; NaN where it is undefined."""
    if len(data) < 2:
        return NAN
    counts = _value_counts(data, domain)
    pairable = counts[counts.sum(axis=1) >= 2]
    if len(pairable) == 0 or (pairable.sum(axis=0) > 0).sum() < 2:
        return NAN
    return _alpha(pairable, level, len(domain))


def _abstention(judges: int, drafts: int, clusters: int | None, values: int) -> str | None:
    """Why the panel's agreement cannot be decided (None: it can)."""
    if judges < 2:
        return cannot_decide(f"{judges} judge(s); agreement needs a panel of 2 or more")
    if drafts < MIN_AGREEMENT_UNITS:
        return cannot_decide(
            f"{drafts} unit(s) answered by two judges or more; the rule needs {MIN_AGREEMENT_UNITS}"
        )
    if clusters is not None and clusters < MIN_CLUSTERS:
        return cannot_decide(f"{clusters} conversation(s); the interval needs {MIN_CLUSTERS}")
    if values < 2:
        return cannot_decide("one value throughout: nothing for the judges to agree on")
    return None


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
    """Krippendorff's alpha of a panel (the `krippendorff` package's estimate) with a percentile
    bootstrap interval, read by RULES["judge_agreement"] (docs/stability.md, 'Do the judges
    agree? (judge panel)').

    `data`: one row per judge, one column per draft, None where the judge gave no answer;
    ratings are `ordinal` over RATING_DOMAIN, a binary question's answers `nominal` over
    ANSWER_DOMAIN. `clusters`: each draft's conversation; given, the bootstrap draws whole
    conversations in id order, else drafts one by one (a draw matrix of resamples x drafts:
    208 MB at 2,600 drafts and 10,000 resamples). NaN where alpha is undefined."""
    counts = _value_counts(data, domain) if data else np.zeros((0, len(domain)))
    if clusters is not None and data and len(clusters) != len(counts):
        raise ValueError(
            f"judge agreement: {len(clusters)} clusters for {len(counts)} drafts; expected one "
            "conversation per draft"
        )
    kept = counts.sum(axis=1) >= 2
    pairable = counts[kept]
    drafts = len(pairable)
    values = int((pairable.sum(axis=0) > 0).sum())
    kept_clusters = (
        [c for c, k in zip(clusters, kept, strict=True) if k]
        if clusters is not None and data
        else None
    )
    groups = len(set(kept_clusters)) if kept_clusters is not None else None
    reason = _abstention(len(data), drafts, groups, values)
    if drafts == 0 or values < 2:
        return Agreement(Interval(NAN, NAN, NAN, drafts), drafts, len(data), level, str(reason))
    estimate = _alpha(pairable, level, len(domain))
    units = _coincidences(pairable)
    if kept_clusters is not None:
        ids = {c: i for i, c in enumerate(sorted(set(kept_clusters)))}
        members = np.zeros((len(ids), drafts))
        members[[ids[c] for c in kept_clusters], np.arange(drafts)] = 1.0
        units = members @ units
    replicates = _alpha_replicates(units, resample_counts(len(units), resamples, seed), level)
    low, high = percentile_interval(replicates[:, None], confidence)
    alpha = Interval(estimate, float(low[0]), float(high[0]), len(units))
    reading = reason if reason is not None else krippendorff_reading(estimate)
    return Agreement(alpha, drafts, len(data), level, reading)


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
    """None: cannot decide (`verdict` says why)."""
    verdict: str = ""
    rule: str = RULES["judge_collapse"]


def _collapse_verdict(given: int, share: float, texts: Sequence[str]) -> str:
    if given < MIN_COLLAPSE_DRAFTS:
        return cannot_decide(f"{given} rated draft(s); the rule needs {MIN_COLLAPSE_DRAFTS}")
    if texts and Counter(texts).most_common(1)[0][1] / len(texts) >= COLLAPSE_SHARE:
        # One rating for one draft is the right answer, not a collapse.
        return cannot_decide(f"the drafts do not vary ({len(set(texts))} distinct of {len(texts)})")
    return "collapsed" if share >= COLLAPSE_SHARE else "not collapsed"


def judge_profile(
    ratings: Sequence[int | None], drafts: Sequence[str | None] | None = None
) -> JudgeProfile:
    """One judge's ratings on one criterion across drafts: its mean (leniency), spread, and
    whether it collapsed (RULES["judge_collapse"]; why the modal share: docs/stability.md,
    'Do the judges agree? (judge panel)'). `drafts`: each rated draft's digest, aligned with
    `ratings` (None where unknown, as in logs before the digest was recorded)."""
    given = [r for r in ratings if r is not None]
    if not given:
        return JudgeProfile(0, NAN, NAN, None, NAN, None, _collapse_verdict(0, NAN, []))
    modal, top = Counter(given).most_common(1)[0]
    share = top / len(given)
    sd = float(np.std(given, ddof=1)) if len(given) > 1 else NAN
    texts = [
        d for r, d in zip(ratings, drafts or [None] * len(ratings), strict=True)
        if r is not None and d is not None
    ]  # fmt: skip
    verdict = _collapse_verdict(len(given), share, texts if len(texts) == len(given) else [])
    collapsed = None if is_abstention(verdict) else verdict == "collapsed"
    return JudgeProfile(len(given), float(np.mean(given)), sd, modal, share, collapsed, verdict)


Draft = tuple[str, int, int]
"""A judged draft: (conversation, epoch, turn)."""


@dataclass(frozen=True)
class PanelData:
    """A panel's answers as judges x units, the shape `judge_agreement` reads."""

    roles: list[str]
    drafts: list[Draft]
    ratings: dict[str, list[list[int | None]]]
    """criterion -> one row per judge (panel order), one column per draft (None: no answer)."""
    answers: list[list[str | None]]
    """One row per judge, one column per (draft, binary question) that some judge answered."""
    answer_drafts: list[Draft]
    """The draft of each answer column."""
    digests: list[str | None]
    """Each draft's digest (None: not recorded), for judge collapse."""

    def clusters(self, drafts: Sequence[Draft]) -> list[str]:
        """Each unit's conversation, for the cluster bootstrap."""
        return [d[0] for d in drafts]


def panel_data(
    roles: Sequence[str],
    judged: Mapping[Draft, Mapping[str, JudgeVerdict]],
    digests: Mapping[Draft, str] | None = None,
) -> PanelData:
    """Every judged draft's answers by judge: `roles` in panel order (`judge`, `judge_2`, ...),
    drafts in (conversation, epoch, turn) order; `digests`: each draft's text digest."""
    drafts = sorted(judged)
    criteria = dict.fromkeys(c for v in judged.values() for x in v.values() for c in x.ratings)
    ratings = {c: [[_rating(judged[d].get(r), c) for d in drafts] for r in roles] for c in criteria}
    units = [
        (d, q)
        for d in drafts
        for q in dict.fromkeys(q for v in judged[d].values() for q in v.binary)
    ]
    answers = [
        [judged[d][r].binary.get(q) if r in judged[d] else None for d, q in units] for r in roles
    ]
    found = [(digests or {}).get(d) for d in drafts]
    return PanelData(list(roles), drafts, ratings, answers, [d for d, _ in units], found)


def _rating(verdict: JudgeVerdict | None, criterion: str) -> int | None:
    value = verdict.ratings.get(criterion) if verdict is not None else None
    return int(value) if value is not None else None
