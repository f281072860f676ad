"""The reviewer's falsification test: the Spearman rank correlations between the four tasks'
model rankings under both label sets, with bootstrap intervals over conversations (the report's
draws, in conversation id order: the same for every model, task and label set, so paired), read
by the pre-registered rule `RULE` (docs/third-party.md, 'The reviewer's test and its
pre-registered rule'). Pure: no Inspect, no I/O."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from numpy.typing import NDArray
from scipy.stats import rankdata

from ..._util.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    EMPTY,
    Interval,
    percentile_interval,
    replicate_means,
)
from ..._util.verdict import cannot_decide
from ...tools.report._analyses import FEW_CONVERSATIONS
from ._agreement import TaskInformation
from ._tasks import TASK_LABELS, TaskScores

STRONG = 0.7
"""A Spearman rho of at least 0.7 is "strong" (Schober, Boer & Schwarte 2018, Anesthesia &
Analgesia 126(5): 0.70-0.89 strong, 0.90-1.00 very strong)."""
LEVEL = 0.95
MIN_MODELS = 3
MIN_CONVERSATIONS = FEW_CONVERSATIONS
LABELLED = ("emotion_recognition", "behavioral_classification", "preference_prediction")
"""The tasks whose values change with the labels; judged response quality reads none."""
RULE = (
    "pre-registered rule (docs/third-party.md): a pair of tasks is separable under self labels "
    "when the upper end of the 95% bootstrap CI of its Spearman rho is below 0.7; it is tested "
    "only where the third parties read the participants above chance on every label field of "
    "its tasks (the lower end of the 95% CI of the consensus's kappa within items above 0). A "
    "tested pair converges under third-party labels when its third-party rho is at least 0.7 and "
    "the lower end of the CI of the rise (third-party rho - self rho) at 1 - 0.05/m (Bonferroni "
    "over the m tested pairs) is above 0, and stays separable when the upper end of its "
    "third-party rho's 95% CI is below 0.7. Any tested pair converges: separability depends on "
    "self-annotation; every separable pair tested and staying separable: separability holds; "
    "otherwise cannot decide, as with fewer than 3 models, fewer than 10 shared conversations, "
    "no pair separable under self labels, or third-party labels that carry no information about "
    "a task of a separable pair"
)
HOLDS = "separability holds"
DEPENDS = "separability depends on self-annotation"
READINGS = (HOLDS, DEPENDS)
"""The test's readings besides "cannot decide: <reason>"."""
Verdict = str
PairStatus = Literal[
    "not separable under self labels",
    "no information",
    "converges",
    "stays separable",
    "undecided",
]


@dataclass(frozen=True)
class Pair:
    tasks: tuple[str, str]
    own: Interval
    """Spearman rho of the two tasks' model rankings under self labels, 95% CI."""
    third: Interval
    """The same under third-party labels, 95% CI."""
    change: Interval
    """The rise, third - own, 95% CI (paired: the same draws)."""
    change_corrected: Interval
    """The rise at the Bonferroni level 1 - 0.05/m (EMPTY: the pair is not tested)."""
    status: PairStatus


@dataclass(frozen=True)
class SeparabilityTest:
    models: tuple[str, ...]
    tasks: tuple[str, ...]
    conversations: int
    pairs: tuple[Pair, ...]
    verdict: Verdict
    """"separability holds", "separability depends on self-annotation", or "cannot decide: ..."."""
    reading: str
    """The verdict and why, with the number of models and conversations."""
    information: dict[str, TaskInformation] = field(default_factory=dict)
    """Per task with labels, whether the third parties read the participants above chance."""


def spearman_rows(means: NDArray[np.float64], a: int, b: int) -> NDArray[np.float64]:
    """Spearman's rho between tasks a and b across models, for every row of (..., models,
    tasks) means: the Pearson correlation of the average ranks (ties: average ranks, as
    scipy.stats.spearmanr; tests pin it to it). NaN where either ranking is all ties or a model
    has no mean."""
    ranks = rankdata(means, axis=-2, nan_policy="omit")
    x, y = ranks[..., a], ranks[..., b]
    x = x - x.mean(axis=-1, keepdims=True)
    y = y - y.mean(axis=-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        rho = (x * y).sum(axis=-1) / np.sqrt((x * x).sum(axis=-1) * (y * y).sum(axis=-1))
    return np.asarray(rho, dtype=float)


def _interval(point: float, replicates: NDArray[np.float64], level: float, n: int) -> Interval:
    low, high = percentile_interval(replicates[:, None], level)
    return Interval(point, float(low[0]), float(high[0]), n)


def _names(pairs: Sequence[Pair]) -> str:
    return "; ".join(
        f"{TASK_LABELS.get(p.tasks[0], p.tasks[0])} / {TASK_LABELS.get(p.tasks[1], p.tasks[1])} "
        f"(rho {p.own.estimate:.2f} -> {p.third.show()})"
        for p in pairs
    )


def _uninformed(information: Mapping[str, TaskInformation], tasks: Sequence[str]) -> list[str]:
    """The label tasks among `tasks` the third parties carry no information about."""
    return [
        t for t in tasks if t in LABELLED and not (t in information and information[t].informative)
    ]


def _no_information(information: Mapping[str, TaskInformation], tasks: Sequence[str]) -> str:
    said = []
    for task in tasks:
        found = information[task].kappas if task in information else {}
        kappas = ", ".join(f"{name} kappa {k.show()}" for name, k in found.items())
        said.append(f"{TASK_LABELS.get(task, task)} ({kappas or 'no kappa measured'})")
    return "the third-party labels carry no information about " + "; ".join(said)


Rhos = dict[tuple[int, int], tuple[NDArray[np.float64], NDArray[np.float64]]]
"""Pair of tasks -> its rho point estimates (2,) and bootstrap replicates (replicates, 2), each
under self labels [0] and third-party labels [1]."""


def _rhos(scores: TaskScores, resamples: int, seed: int) -> Rhos:
    """Each model's task value is its mean over the conversations; rho is computed across the
    models, and every replicate draws conversations (the same draws for both label sets)."""
    # (conversations, side, model, task) -> replicate means -> (replicates, side, model, task)
    values = np.stack([scores.own, scores.third]).transpose(3, 0, 1, 2)
    flat = values.reshape(len(scores.conversations), -1)
    replicates = replicate_means(flat, resamples, seed).reshape(resamples, *values.shape[1:])
    with np.errstate(invalid="ignore"):
        means = np.nanmean(values, axis=0)
    return {
        p: (spearman_rows(means, *p), spearman_rows(replicates, *p))
        for p in itertools.combinations(range(len(scores.tasks)), 2)
    }


def _pairs(
    scores: TaskScores, rhos: Rhos, information: Mapping[str, TaskInformation]
) -> list[Pair]:
    """Every pair of tasks with its rhos, its rise and its status under the rule."""
    n = len(scores.conversations)
    own = {
        p: _interval(float(point[0]), draws[:, 0], LEVEL, n) for p, (point, draws) in rhos.items()
    }
    separable = [p for p in rhos if own[p].high < STRONG]
    tested = [p for p in separable if not _uninformed(information, [scores.tasks[i] for i in p])]
    corrected_level = 1 - (1 - LEVEL) / max(len(tested), 1)
    pairs = []
    for p, (point, draws) in rhos.items():
        third = _interval(float(point[1]), draws[:, 1], LEVEL, n)
        rise = draws[:, 1] - draws[:, 0]
        change = _interval(float(point[1] - point[0]), rise, LEVEL, n)
        corrected = EMPTY
        status: PairStatus = "not separable under self labels"
        if p in separable and p not in tested:
            status = "no information"
        elif p in tested:
            corrected = _interval(change.estimate, rise, corrected_level, n)
            if third.estimate >= STRONG and corrected.low > 0:
                status = "converges"
            elif third.high < STRONG:
                status = "stays separable"
            else:
                status = "undecided"
        names = (scores.tasks[p[0]], scores.tasks[p[1]])
        pairs.append(Pair(names, own[p], third, change, corrected, status))
    return pairs


def _read(pairs: Sequence[Pair], information: Mapping[str, TaskInformation]) -> tuple[str, str]:
    """The verdict and why, from the pairs' statuses."""
    separable = [p for p in pairs if p.status != "not separable under self labels"]
    tested = [p for p in separable if p.status != "no information"]
    converging = [p for p in pairs if p.status == "converges"]
    if not separable:
        return cannot_decide(
            "no pair of tasks is separable under self labels (every rho's 95% CI reaches 0.7): "
            "there is no separability here for third-party labels to test"
        ), ""
    if converging:
        return DEPENDS, (
            f"{len(converging)} of {len(tested)} tested task pair(s) separable under self labels "
            f"become strongly correlated under third-party labels: {_names(converging)}"
        )
    if len(tested) == len(separable) and all(p.status == "stays separable" for p in tested):
        return HOLDS, (
            f"all {len(tested)} task pair(s) separable under self labels stay below rho 0.7 under "
            "third-party labels"
        )
    uninformed = list(
        dict.fromkeys(t for p in separable if p.status == "no information" for t in p.tasks)
    )
    if uninformed:
        return cannot_decide(_no_information(information, _uninformed(information, uninformed))), ""
    undecided = [p for p in tested if p.status == "undecided"]
    return cannot_decide(
        f"too little data: {len(undecided)} of {len(tested)} task pair(s) separable under self "
        f"labels neither converge nor stay separable: {_names(undecided)}"
    ), ""


def reviewers_test(
    scores: TaskScores,
    information: Mapping[str, TaskInformation],
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> SeparabilityTest:
    """The reviewer's falsification test read by `RULE`. `information`: per task with labels,
    whether the third parties read the participants above chance (`task_information`); a
    label task missing from it carries none."""
    n_models, n_conv = len(scores.models), len(scores.conversations)
    size = f"{n_models} models, {n_conv} conversations"
    reason = None
    if n_models < MIN_MODELS:
        reason = (
            f"{n_models} model(s); a rank correlation between task rankings needs at least "
            f"{MIN_MODELS}" + (" (with 2 every rho is +1 or -1)" if n_models == 2 else "")
        )
    elif n_conv < MIN_CONVERSATIONS:
        reason = (
            f"too little data: {n_conv} shared conversation(s); the rule needs at least "
            f"{MIN_CONVERSATIONS}"
        )
    elif len(scores.tasks) < 2:
        reason = f"{len(scores.tasks)} task(s) with values for these models"
    info = dict(information)
    if reason is not None:
        verdict = cannot_decide(reason)
        return SeparabilityTest(scores.models, scores.tasks, n_conv, (), verdict, verdict, info)
    pairs = _pairs(scores, _rhos(scores, resamples, seed), info)
    verdict, why = _read(pairs, info)
    reading = f"{verdict}: {why}; {size}" if why else f"{verdict}; {size}"
    return SeparabilityTest(
        scores.models, scores.tasks, n_conv, tuple(pairs), verdict, reading, info
    )
