"""The third-party analyses: pure numpy/scipy over label sets and per-conversation
metric values; no Inspect, no I/O.

- `agreement`: how well an outsider reads the person: each third party's labels scored against the
  participant's with the metric functions of the catalog (the outsider scored as a model), and,
  where a chance level exists, Cohen's kappa (Cohen 1960; quadratic-weighted for ordinal scales,
  Cohen 1968).
- `self_specific_gains`: per model and task, its score against the participant's labels, against
  the third parties', and the difference (the self-specific gain), with paired percentile
  bootstrap intervals over conversations (Efron & Tibshirani 1993).
- `reviewers_test`: the Spearman rank correlations (Spearman 1904) between the four tasks' model
  rankings under both label sets, with bootstrap intervals over conversations, read by the
  pre-registered rule `RULE` (docs/third-party.md, written before any data was seen).

Every interval resamples conversations with the report's own draws (`bootstrap.py`): the
same draws for every model, task and both label sets, which is what makes them paired.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray
from scipy.stats import rankdata

from ..._util.bootstrap import (
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    EMPTY,
    Interval,
    mean_ci,
    mean_cis,
    percentile_interval,
    replicate_means,
    resample_counts,
)
from ...data._codebook import Codebook
from ...data._panas import PANAS_ITEMS
from ...data._split import GroundTruth, TurnTruth
from ...providers import BASELINE_PROVIDER
from ...score import _metrics as m
from ...solve._schemas import BRANCHES
from ...tools.report._analyses import FEW_CONVERSATIONS
from ..human._answers import is_human
from ._consensus import CONSENSUS
from ._labels import LabelSet

NAN = float("nan")

# --- the four tasks -------------------------------------------------------------------------------

TASKS: dict[str, tuple[str, ...]] = {
    "emotion_recognition": ("emotion_f1", "emotion_va"),
    "behavioral_classification": ("binary_om_accuracy",),
    "preference_prediction": ("binary_hp_accuracy", "pairwise_accuracy"),
    "judged_response_quality": ("draft_judge",),
}
"""The paper's four tasks as catalog metrics; a task's value in a conversation is the mean of its
metrics that are defined there. Each kind of label belongs to one task: mood-shift tags (emotion
recognition, the Composite's E = ½ F1 + ½ VA), what the original model did (behavioural
classification), what the participant wanted, as behaviours and as the reply they chose
(preference prediction), and the judge's rating of the model's own reply against the participant's
edited one (judged response quality; only where a judge ran). The Composite's evaluation pillar
mixes the second and third, which a test of their separability must not."""
TASK_LABELS = {
    "emotion_recognition": "Emotion recognition",
    "behavioral_classification": "Behavioral classification",
    "preference_prediction": "Preference prediction",
    "judged_response_quality": "Judged response quality",
}

# --- agreement of third parties with the participants --------------------------------------------

POOLED = "third parties (pooled)"
"""The rater of the agreement row that pools every third party's labels (self-ratings left out)."""
SELF_RATING = " (self-rating)"
"""Appended to an annotator's name on the rows of the conversations they held themselves."""
Weights = Literal["nominal", "quadratic"]
COEFFICIENT = {"nominal": "Cohen's kappa", "quadratic": "quadratic-weighted kappa"}


@dataclass(frozen=True)
class Field:
    """A label field: the metric that scores a third party's label against the participant's,
    and the categories of its chance-corrected agreement (None: no chance level)."""

    name: str
    task: str | None
    metric: str
    raw: Callable[[GroundTruth, GroundTruth], float]
    """(third party, participant) -> the metric's value for one conversation."""
    pairs: Callable[[GroundTruth, GroundTruth], list[tuple[int, int]]] | None = None
    """(participant's category, third party's category) per item, for the kappa."""
    categories: int = 0
    weights: Weights = "nominal"


def _per_turn(score: Callable[[TurnTruth, TurnTruth], float]) -> Callable[..., float]:
    def conversation(third: GroundTruth, own: GroundTruth) -> float:
        return m.nanmean([score(a, b) for a, b in zip(third.turns, own.turns, strict=True)])

    return conversation


_BINARY = ("yes", "no", "na")


def _binary_pairs(view: Literal["observed", "preferred"]) -> Callable[..., list[tuple[int, int]]]:
    def pairs(third: GroundTruth, own: GroundTruth) -> list[tuple[int, int]]:
        # As the metric: a participant's `na` is no item; a third party's `na` is an answer.
        return [
            (_BINARY.index(getattr(b, view)), _BINARY.index(getattr(a.binary[q], view)))
            for a, o in zip(third.turns, own.turns, strict=True)
            for q, b in o.binary.items()
            if getattr(b, view) != "na"
        ]

    return pairs


def _binary_accuracy(view: Literal["observed", "preferred"]) -> Callable[..., float]:
    def turn(a: TurnTruth, o: TurnTruth) -> float:
        pred = {q: getattr(b, view) for q, b in a.binary.items()}
        return m.binary_counts(pred, {q: getattr(b, view) for q, b in o.binary.items()}).accuracy

    return _per_turn(turn)


def _pairwise_pairs(third: GroundTruth, own: GroundTruth) -> list[tuple[int, int]]:
    # A comparison's category: whether the first source of its key (sorted pair) won.
    def first(key: str, winner: str) -> int:
        return int(key.split(":", 1)[1].split("-")[0] == winner)

    return [
        (first(k, w), first(k, a.pairwise[k]))
        for a, o in zip(third.turns, own.turns, strict=True)
        for k, w in o.pairwise.items()
        if k in a.pairwise
    ]


def _mood_pairs(third: GroundTruth, own: GroundTruth) -> list[tuple[int, int]]:
    return [
        (int(e in o.mood_shift), int(e in a.mood_shift))
        for a, o in zip(third.turns, own.turns, strict=True)
        for e in PANAS_ITEMS
    ]


def _ratings(name: str, keys: Sequence[str]) -> Callable[..., list[tuple[int, int]]]:
    def pairs(third: GroundTruth, own: GroundTruth) -> list[tuple[int, int]]:
        mine, theirs = getattr(own, name), getattr(third, name)
        return [(mine[k] - 1, theirs[k] - 1) for k in keys]

    return pairs


def fields(codebook: Codebook) -> tuple[Field, ...]:
    """Every label field third parties give, with its metric and kappa."""
    q1, q2, q3 = codebook.q1_options, codebook.q2_options, codebook.q3_options
    return (
        Field(
            "mood_shift", "emotion_recognition", "emotion_pillar",
            _per_turn(lambda a, o: (m.emotion_f1(a.mood_shift, o.mood_shift)
                                    + m.emotion_va(a.mood_shift, o.mood_shift)) / 2),
            _mood_pairs, 2,
        ),
        Field(
            "binary_observed", "behavioral_classification", "binary_om_accuracy",
            _binary_accuracy("observed"), _binary_pairs("observed"), 3,
        ),
        Field(
            "binary_preferred", "preference_prediction", "binary_hp_accuracy",
            _binary_accuracy("preferred"), _binary_pairs("preferred"), 3,
        ),
        Field(
            "pairwise", "preference_prediction", "pairwise_accuracy",
            _per_turn(lambda a, o: m.pairwise_accuracy(a.pairwise, o.pairwise)),
            _pairwise_pairs, 2,
        ),
        Field(
            "post_panas", None, "panas_item_normalized",
            lambda a, o: m.panas_item_normalized(a.post_panas, o.post_panas),
            _ratings("post_panas", PANAS_ITEMS), 7, "quadratic",
        ),
        Field(
            "four_branch", None, "four_branch",
            lambda a, o: m.four_branch(a.four_branch, o.four_branch)["overall"],
            _ratings("four_branch", BRANCHES), 7, "quadratic",
        ),
        Field(
            "q1_looking_for", None, "q1_goals",
            lambda a, o: m.jaccard(a.q1_looking_for, o.q1_looking_for),
            lambda a, o: [(int(x in o.q1_looking_for), int(x in a.q1_looking_for)) for x in q1],
            2,
        ),
        Field(
            "q2_emotion_clarity", None, "q2_clarity",
            lambda a, o: m.exact(a.q2_emotion_clarity, o.q2_emotion_clarity),
            lambda a, o: (
                [(q2.index(o.q2_emotion_clarity), q2.index(a.q2_emotion_clarity))]
                if a.q2_emotion_clarity in q2 else []
            ),
            len(q2),
        ),
        Field(
            "q3_model_fit", None, "q3_fit",
            lambda a, o: m.ordinal(a.q3_model_fit, o.q3_model_fit, q3),
            lambda a, o: [(q3.index(o.q3_model_fit), q3.index(a.q3_model_fit))],
            len(q3), "quadratic",
        ),
        # Entries in one's own words have no fixed set of categories: no chance level.
        Field(
            "q3_follow_up", None, "q3_follow_up",
            lambda a, o: m.fuzzy_overlap(a.q3_follow_up, o.q3_follow_up),
        ),
    )  # fmt: skip


def _weights(categories: int, kind: Weights) -> NDArray[np.float64]:
    i, j = np.indices((categories, categories))
    if kind == "nominal":
        return np.asarray(i != j, dtype=float)
    return np.asarray(((i - j) / max(categories - 1, 1)) ** 2, dtype=float)


def kappa(tables: NDArray[np.float64], weights: Weights = "nominal") -> NDArray[np.float64]:
    """Cohen's kappa of each (..., L, L) contingency table (rows: the participant, columns: the
    third party), 1 - sum(w * observed) / sum(w * expected) with expected = the product of the
    marginals; nominal weights (Cohen 1960) or quadratic ones (Cohen 1968). NaN where chance
    disagreement is 0. Vectorised for the bootstrap; tests pin it to
    sklearn.metrics.cohen_kappa_score."""
    w = _weights(tables.shape[-1], weights)
    total = tables.sum(axis=(-1, -2), keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = tables / total
        expected = observed.sum(axis=-1)[..., :, None] * observed.sum(axis=-2)[..., None, :]
        result = 1 - (w * observed).sum(axis=(-1, -2)) / (w * expected).sum(axis=(-1, -2))
    return np.asarray(result, dtype=float)


@dataclass(frozen=True)
class Agreement:
    rater: str
    """An annotator, the consensus, or POOLED."""
    field: str
    task: str | None
    """The task the field's labels belong to (None: the post-conversation questionnaire)."""
    metric: str
    """The catalog metric that scored the rater against the participant (`value`)."""
    value: Interval
    """Mean over conversations, 95% bootstrap interval; n = conversations."""
    coefficient: str | None
    """Which chance-corrected coefficient (None: no chance level)."""
    corrected: Interval
    items: int
    """How many items the coefficient counts."""


Compared = tuple[LabelSet, GroundTruth]
"""A third party's label set and the participant's labels of the same conversation."""


def _raw(field: Field, third: LabelSet, own: GroundTruth) -> float:
    return NAN if field.metric in third.unlabelled else field.raw(third.truth, own)


def _tables(field: Field, pairs: Sequence[Compared]) -> NDArray[np.float64]:
    tables = np.zeros((len(pairs), field.categories, field.categories))
    for i, (third, own) in enumerate(pairs):
        for row, col in field.pairs(third.truth, own) if field.pairs else ():
            tables[i, row, col] += 1
    return tables


def _agreement(
    rater: str,
    field: Field,
    pairs: Sequence[Compared],
    resamples: int,
    seed: int,
    level: float,
) -> Agreement:
    value = mean_ci(
        [_raw(field, t, o) for t, o in pairs], resamples=resamples, seed=seed, level=level
    )
    if field.pairs is None:
        return Agreement(rater, field.name, field.task, field.metric, value, None, EMPTY, 0)
    tables = _tables(field, pairs)
    point = float(kappa(tables.sum(axis=0), field.weights))
    counts = resample_counts(len(pairs), resamples, seed)
    flat = tables.reshape(len(pairs), -1)
    replicates = kappa((counts @ flat).reshape(resamples, *tables.shape[1:]), field.weights)
    low, high = percentile_interval(replicates[:, None], level)
    corrected = Interval(point, float(low[0]), float(high[0]), len(pairs))
    items = int(tables.sum())
    return Agreement(
        rater,
        field.name,
        field.task,
        field.metric,
        value,
        COEFFICIENT[field.weights],
        corrected,
        items,
    )


def agreement(
    participants: Mapping[str, GroundTruth],
    label_sets: Sequence[LabelSet],
    codebook: Codebook,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> list[Agreement]:
    """Per rater and label field, the third party's labels against the participant's on the
    conversations the rater labelled: each annotator (a self-rating on its own rows), the
    consensus (where `label_sets` holds consensus sets) and every third party pooled."""
    raters: dict[str, list[LabelSet]] = {}
    for s in label_sets:
        if s.conversation_id in participants:
            name = s.annotator + (SELF_RATING if s.self_rating else "")
            raters.setdefault(name, []).append(s)
    pooled: dict[str, list[LabelSet]] = {}
    for s in label_sets:
        if not s.self_rating and s.annotator != CONSENSUS and s.conversation_id in participants:
            pooled.setdefault(s.conversation_id, []).append(s)
    rows = []
    for f in fields(codebook):
        for rater in sorted(raters):
            pairs = [(s, participants[s.conversation_id]) for s in raters[rater]]
            rows.append(_agreement(rater, f, pairs, resamples, seed, level))
        if len(raters) > 1 and pooled:
            rows.append(_pooled(f, pooled, participants, resamples, seed, level))
    return rows


def _pooled(
    field: Field,
    by_conversation: Mapping[str, list[LabelSet]],
    participants: Mapping[str, GroundTruth],
    resamples: int,
    seed: int,
    level: float,
) -> Agreement:
    """Every third party at once, a conversation's annotators resampled together: the value is
    the mean of its annotators' values, the kappa's table the sum of their tables."""
    ids = sorted(by_conversation)
    values = [m.nanmean([_raw(field, s, participants[c]) for s in by_conversation[c]]) for c in ids]
    value = mean_ci(values, resamples=resamples, seed=seed, level=level)
    if field.pairs is None:
        return Agreement(POOLED, field.name, field.task, field.metric, value, None, EMPTY, 0)
    tables = np.stack(
        [
            _tables(field, [(s, participants[c]) for s in by_conversation[c]]).sum(axis=0)
            for c in ids
        ]
    )
    counts = resample_counts(len(ids), resamples, seed)
    flat = tables.reshape(len(ids), -1)
    replicates = kappa((counts @ flat).reshape(-1, *tables.shape[1:]), field.weights)
    low, high = percentile_interval(replicates[:, None], level)
    point = float(kappa(tables.sum(axis=0), field.weights))
    corrected = Interval(point, float(low[0]), float(high[0]), len(ids))
    return Agreement(
        POOLED,
        field.name,
        field.task,
        field.metric,
        value,
        COEFFICIENT[field.weights],
        corrected,
        int(tables.sum()),
    )


# --- per-conversation task values of several models --------------------------------------------

Values = Mapping[str, float]


@dataclass(frozen=True)
class TaskScores:
    """Per-conversation task values of several models, against the participants' labels (`own`)
    and the third parties' (`third`): arrays (models, tasks, conversations), NaN where a model has
    no value."""

    models: tuple[str, ...]
    tasks: tuple[str, ...]
    conversations: tuple[str, ...]
    own: NDArray[np.float64]
    third: NDArray[np.float64]


def task_value(values: Values, metrics: Sequence[str]) -> float:
    """A task's value in one conversation: the mean of its metrics defined there."""
    return m.nanmean([values.get(name, NAN) for name in metrics])


def task_scores(
    rescored: Mapping[str, Mapping[str, tuple[Values, Values]]],
    tasks: Mapping[str, Sequence[str]] = TASKS,
) -> TaskScores:
    """From model -> conversation -> (self values, third-party values), as `rescore_pair` gives
    them, the task values of every model on the union of their conversations; a task no model has
    a value for (the draft judge without a judge) is left out."""
    models = tuple(rescored)
    conversations = tuple(sorted({c for per in rescored.values() for c in per}))
    names = tuple(tasks)
    arrays = np.full((2, len(models), len(names), len(conversations)), NAN)
    for i, model in enumerate(models):
        for k, conv in enumerate(conversations):
            pair = rescored[model].get(conv)
            if pair is None:
                continue
            for side in (0, 1):
                for j, task in enumerate(names):
                    arrays[side, i, j, k] = task_value(pair[side], tasks[task])
    kept = [j for j in range(len(names)) if np.any(~np.isnan(arrays[:, :, j]))]
    return TaskScores(
        models, tuple(names[j] for j in kept), conversations, arrays[0][:, kept], arrays[1][:, kept]
    )


def excluded_from_ranking(model: str) -> str | None:
    """Why a run is not one of the ranked models (None: it is): the offline baselines and the
    replayed human runs are no evaluated models, and a baseline that is last on every task would
    make every pair of task rankings agree."""
    if model.startswith(BASELINE_PROVIDER + "/"):
        return "an offline baseline"
    if is_human(model):
        return "a replayed human run"
    return None


# --- the self-specific gain ---------------------------------------------------------------------


@dataclass(frozen=True)
class Gain:
    model: str
    task: str
    own: Interval
    """Against the participants' labels."""
    third: Interval
    """Against the third parties' labels, on the same conversations."""
    gain: Interval
    """own - third, paired per conversation: how much better the model reads this person than
    the outsiders' reading of the same conversation predicts."""


def self_specific_gains(
    scores: TaskScores,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> list[Gain]:
    """Per model and task, on the conversations where both values are defined."""
    gains = []
    for i, model in enumerate(scores.models):
        for j, task in enumerate(scores.tasks):
            own, third = scores.own[i, j], scores.third[i, j]
            both = ~(np.isnan(own) | np.isnan(third))
            own_ci, third_ci, gain = mean_cis(
                [own[both], third[both], own[both] - third[both]],
                resamples=resamples,
                seed=seed,
                level=level,
            )
            gains.append(Gain(model, task, own_ci, third_ci, gain))
    return gains


# --- the reviewer's test --------------------------------------------------------------------------

STRONG = 0.7
"""A Spearman rho of at least 0.7 is "strong" (Schober, Boer & Schwarte 2018, Anesthesia &
Analgesia 126(5): 0.70-0.89 strong, 0.90-1.00 very strong)."""
LEVEL = 0.95
MIN_MODELS = 3
MIN_CONVERSATIONS = FEW_CONVERSATIONS
RULE = (
    "pre-registered rule (docs/third-party.md): a pair of tasks is separable under self labels "
    "when the upper end of the 95% bootstrap CI of its Spearman rho is below 0.7; such a pair "
    "converges under third-party labels when its third-party rho is at least 0.7 and the lower "
    "end of the CI of the rise (third-party rho - self rho) at 1 - 0.05/m (Bonferroni over the m "
    "separable pairs) is above 0, and stays separable when the upper end of its third-party rho's "
    "95% CI is below 0.7. Any pair converges: separability depends on self-annotation; every "
    "pair stays separable: separability holds; otherwise undecided. No verdict with fewer than 3 "
    "models, fewer than 10 shared conversations, or no pair separable under self labels"
)
Verdict = Literal[
    "separability holds", "separability depends on self-annotation", "undecided", "no verdict"
]
PairStatus = Literal["not separable under self labels", "converges", "stays separable", "undecided"]


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
    reading: str
    """The verdict and why, with the number of models and conversations."""

    @property
    def line(self) -> str:
        """The one line a report prints: the reading and the rule it follows."""
        return f"{self.reading} ({RULE})"

    def matrix(self, side: Literal["own", "third"]) -> list[list[float]]:
        """The tasks x tasks matrix of rho point estimates (1 on the diagonal), for the figure."""
        index = {t: i for i, t in enumerate(self.tasks)}
        matrix = [[1.0 if a == b else NAN for b in self.tasks] for a in self.tasks]
        for p in self.pairs:
            a, b = index[p.tasks[0]], index[p.tasks[1]]
            matrix[a][b] = matrix[b][a] = getattr(p, side).estimate
        return matrix


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


def _no_verdict(scores: TaskScores, why: str, pairs: Sequence[Pair] = ()) -> SeparabilityTest:
    return SeparabilityTest(
        scores.models,
        scores.tasks,
        len(scores.conversations),
        tuple(pairs),
        "no verdict",
        f"no verdict: {why}",
    )


def _names(pairs: Sequence[Pair]) -> str:
    return "; ".join(
        f"{TASK_LABELS.get(p.tasks[0], p.tasks[0])} / {TASK_LABELS.get(p.tasks[1], p.tasks[1])} "
        f"(rho {p.own.estimate:.2f} -> {p.third.show()})"
        for p in pairs
    )


def reviewers_test(
    scores: TaskScores,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> SeparabilityTest:
    """The reviewer's falsification test (seed 002, "What would settle it") read by `RULE`.

    Each model's task value is its mean over the conversations; rho is computed across the
    models. The intervals resample conversations, so they say how sure the rankings of these
    models are, not how another set of models would rank."""
    n_models, n_conv = len(scores.models), len(scores.conversations)
    if n_models < MIN_MODELS:
        return _no_verdict(
            scores,
            f"{n_models} model(s); a rank correlation between task rankings needs at least "
            f"{MIN_MODELS}" + (" (with 2 every rho is +1 or -1)" if n_models == 2 else ""),
        )
    if n_conv < MIN_CONVERSATIONS:
        return _no_verdict(
            scores,
            f"too little data: {n_conv} shared conversation(s); the rule needs at least "
            f"{MIN_CONVERSATIONS}",
        )
    if len(scores.tasks) < 2:
        return _no_verdict(scores, f"{len(scores.tasks)} task(s) with values for these models")
    # (conversations, side, model, task) -> replicate means -> (replicates, side, model, task)
    values = np.stack([scores.own, scores.third]).transpose(3, 0, 1, 2)
    shape = values.shape[1:]
    flat = values.reshape(n_conv, -1)
    replicates = replicate_means(flat, resamples, seed).reshape(resamples, *shape)
    with np.errstate(invalid="ignore"):
        means = np.nanmean(values, axis=0)
    pairs_at = list(itertools.combinations(range(len(scores.tasks)), 2))
    own = {p: spearman_rows(replicates[:, 0], *p) for p in pairs_at}
    third = {p: spearman_rows(replicates[:, 1], *p) for p in pairs_at}
    own_point = {p: float(spearman_rows(means[0], *p)) for p in pairs_at}
    third_point = {p: float(spearman_rows(means[1], *p)) for p in pairs_at}
    own_ci = {p: _interval(own_point[p], own[p], LEVEL, n_conv) for p in pairs_at}
    tested = [p for p in pairs_at if own_ci[p].high < STRONG]
    corrected_level = 1 - (1 - LEVEL) / max(len(tested), 1)
    pairs = []
    for p in pairs_at:
        third_ci = _interval(third_point[p], third[p], LEVEL, n_conv)
        change = _interval(third_point[p] - own_point[p], third[p] - own[p], LEVEL, n_conv)
        rise = EMPTY
        status: PairStatus = "not separable under self labels"
        if p in tested:
            rise = _interval(change.estimate, third[p] - own[p], corrected_level, n_conv)
            if third_ci.estimate >= STRONG and rise.low > 0:
                status = "converges"
            elif third_ci.high < STRONG:
                status = "stays separable"
            else:
                status = "undecided"
        names = (scores.tasks[p[0]], scores.tasks[p[1]])
        pairs.append(Pair(names, own_ci[p], third_ci, change, rise, status))
    if not tested:
        return _no_verdict(
            scores,
            "no pair of tasks is separable under self labels (every rho's 95% CI reaches 0.7): "
            "there is no separability here for third-party labels to test",
            pairs,
        )
    converging = [p for p in pairs if p.status == "converges"]
    staying = [p for p in pairs if p.status == "stays separable"]
    undecided = [p for p in pairs if p.status == "undecided"]
    size = f"{n_models} models, {n_conv} conversations"
    verdict: Verdict
    if converging:
        verdict = "separability depends on self-annotation"
        why = (
            f"{len(converging)} of {len(tested)} task pair(s) separable under self labels become "
            f"strongly correlated under third-party labels: {_names(converging)}"
        )
    elif len(staying) == len(tested):
        verdict = "separability holds"
        why = (
            f"all {len(tested)} task pair(s) separable under self labels stay below rho 0.7 under "
            "third-party labels"
        )
    else:
        verdict = "undecided"
        why = (
            f"too little data: {len(undecided)} of {len(tested)} task pair(s) separable under "
            f"self labels neither converge nor stay separable: {_names(undecided)}"
        )
    reading = f"{verdict}: {why}; {size}"
    return SeparabilityTest(scores.models, scores.tasks, n_conv, tuple(pairs), verdict, reading)
