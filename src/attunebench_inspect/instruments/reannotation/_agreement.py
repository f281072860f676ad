"""How well outsiders read the participants: each third party's labels scored against the
participant's with the catalog's own metric functions and, where a chance level exists, a kappa
within items (`_kappa.py`), each with a bootstrap interval over conversations; and whether the
third parties carry any information about a task at all (`task_information`), the condition of
the reviewer's test. Pure: no Inspect, no I/O."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from ..._util.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, EMPTY, Interval, mean_ci
from ...data._codebook import Codebook
from ...data._panas import PANAS_ITEMS
from ...data._split import GroundTruth, TurnTruth, comparison_pair
from ...score import _metrics as m
from ...solve._schemas import BRANCHES
from ...solve._solver import pairwise_labels
from ...tools.report._analyses import FEW_CONVERSATIONS
from ._consensus import CONSENSUS
from ._kappa import COEFFICIENT, Weights, kappa_interval
from ._labels import LabelSet

NAN = float("nan")
POOLED = "third parties (pooled)"
"""The rater of the agreement row that pools every third party's labels (self-ratings left out)."""
SELF_RATING = " (self-rating)"
"""Appended to an annotator's name on the rows of the conversations they held themselves."""

Item = tuple[str, int, int]
"""One item of a kappa: (its stratum, the participant's category, the third party's)."""


@dataclass(frozen=True)
class Field:
    """A label field: the metric that scores a third party's label against the participant's,
    and the items of its chance-corrected agreement (None: no chance level)."""

    name: str
    task: str | None
    metric: str
    raw: Callable[[GroundTruth, GroundTruth], float]
    """(third party, participant) -> the metric's value for one conversation."""
    items: Callable[[LabelSet, GroundTruth], list[Item]] | None = None
    """(third party, participant) -> every item the kappa counts, with its stratum."""
    categories: int = 0
    weights: Weights = "nominal"
    strata: str = ""
    """What the kappa's expected agreement is computed within (`_kappa.py`)."""


def _per_turn(score: Callable[[TurnTruth, TurnTruth], float]) -> Callable[..., float]:
    def conversation(third: GroundTruth, own: GroundTruth) -> float:
        return m.nanmean([score(a, b) for a, b in zip(third.turns, own.turns, strict=True)])

    return conversation


_BINARY = ("yes", "no", "na")


def _binary_items(view: Literal["observed", "preferred"]) -> Callable[..., list[Item]]:
    def items(third: LabelSet, own: GroundTruth) -> list[Item]:
        # As the metric: a participant's `na` is no item; a third party's `na` is an answer.
        return [
            (q, _BINARY.index(getattr(b, view)), _BINARY.index(getattr(a.binary[q], view)))
            for a, o in zip(third.truth.turns, own.turns, strict=True)
            for q, b in o.binary.items()
            if getattr(b, view) != "na"
        ]

    return items


def _binary_accuracy(view: Literal["observed", "preferred"]) -> Callable[..., float]:
    def turn(a: TurnTruth, o: TurnTruth) -> float:
        pred = {q: getattr(b, view) for q, b in a.binary.items()}
        return m.binary_counts(pred, {q: getattr(b, view) for q, b in o.binary.items()}).accuracy

    return _per_turn(turn)


def _pairwise_items(third: LabelSet, own: GroundTruth) -> list[Item]:
    """A comparison's category: whether the first source of its (sorted) pair won; its
    stratum: the question, the pair, and which of the two the page showed earlier (why:
    docs/third-party.md, 'Agreement of third parties with the participants')."""
    result = []
    for a, o in zip(third.truth.turns, own.turns, strict=True):
        shown: list[str] = []
        if third.shuffle_seed is not None:
            labels = pairwise_labels(third.shuffle_seed, own.conversation_id, o.turn_number)
            shown = list(labels.values())
        for key, winner in o.pairwise.items():
            if key not in a.pairwise:
                continue
            first, second = comparison_pair(key)
            earlier = min((first, second), key=shown.index) if shown else ""
            result.append((f"{key}/{earlier}", int(first == winner), int(first == a.pairwise[key])))
    return result


def _mood_items(third: LabelSet, own: GroundTruth) -> list[Item]:
    # Per turn number too: a first turn always shifts the mood in the bundled set.
    return [
        (f"{e}/{o.turn_number}", int(e in o.mood_shift), int(e in a.mood_shift))
        for a, o in zip(third.truth.turns, own.turns, strict=True)
        for e in PANAS_ITEMS
    ]


def _ratings(name: str, keys: Sequence[str]) -> Callable[..., list[Item]]:
    def items(third: LabelSet, own: GroundTruth) -> list[Item]:
        mine, theirs = getattr(own, name), getattr(third.truth, name)
        return [(k, mine[k] - 1, theirs[k] - 1) for k in keys]

    return items


def _options(options: Sequence[str]) -> Callable[..., list[Item]]:
    def items(third: LabelSet, own: GroundTruth) -> list[Item]:
        theirs = third.truth.q1_looking_for
        return [(x, int(x in own.q1_looking_for), int(x in theirs)) for x in options]

    return items


def _one(name: str, options: Sequence[str]) -> Callable[..., list[Item]]:
    def items(third: LabelSet, own: GroundTruth) -> list[Item]:
        theirs = getattr(third.truth, name)
        if theirs not in options:  # a consensus tie on Q2: no label
            return []
        return [("", options.index(getattr(own, name)), options.index(theirs))]

    return items


def fields(codebook: Codebook) -> tuple[Field, ...]:
    """Every label field third parties give, with its metric and kappa."""
    q1, q2, q3 = codebook.q1_options, codebook.q2_options, codebook.q3_options
    return (
        Field(
            "mood_shift", "emotion_recognition", "emotion_pillar",
            _per_turn(lambda a, o: (m.emotion_f1(a.mood_shift, o.mood_shift)
                                    + m.emotion_va(a.mood_shift, o.mood_shift)) / 2),
            _mood_items, 2, strata="each PANAS item on each turn number",
        ),
        Field(
            "binary_observed", "behavioral_classification", "binary_om_accuracy",
            _binary_accuracy("observed"), _binary_items("observed"), 3, strata="each question",
        ),
        Field(
            "binary_preferred", "preference_prediction", "binary_hp_accuracy",
            _binary_accuracy("preferred"), _binary_items("preferred"), 3,
            strata="each question",
        ),
        Field(
            "pairwise", "preference_prediction", "pairwise_accuracy",
            _per_turn(lambda a, o: m.pairwise_accuracy(a.pairwise, o.pairwise)),
            _pairwise_items, 2,
            strata="each question and pair of replies, and which the page showed earlier",
        ),
        Field(
            "post_panas", None, "panas_item_normalized",
            lambda a, o: m.panas_item_normalized(a.post_panas, o.post_panas),
            _ratings("post_panas", PANAS_ITEMS), 7, "quadratic", "each PANAS item",
        ),
        Field(
            "four_branch", None, "four_branch",
            lambda a, o: m.four_branch(a.four_branch, o.four_branch)["overall"],
            _ratings("four_branch", BRANCHES), 7, "quadratic", "each branch",
        ),
        Field(
            "q1_looking_for", None, "q1_goals",
            lambda a, o: m.jaccard(a.q1_looking_for, o.q1_looking_for),
            _options(q1), 2, strata="each option",
        ),
        Field(
            "q2_emotion_clarity", None, "q2_clarity",
            lambda a, o: m.exact(a.q2_emotion_clarity, o.q2_emotion_clarity),
            _one("q2_emotion_clarity", q2), len(q2), strata="one item",
        ),
        Field(
            "q3_model_fit", None, "q3_fit",
            lambda a, o: m.ordinal(a.q3_model_fit, o.q3_model_fit, q3),
            _one("q3_model_fit", q3), len(q3), "quadratic", "one item",
        ),
        # Entries in one's own words have no fixed set of categories: no chance level.
        Field(
            "q3_follow_up", None, "q3_follow_up",
            lambda a, o: m.fuzzy_overlap(a.q3_follow_up, o.q3_follow_up),
        ),
    )  # fmt: skip


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
    strata: str = ""
    """What its expected agreement is computed within (`_kappa.py`)."""


Compared = tuple[LabelSet, GroundTruth]
"""A third party's label set and the participant's labels of the same conversation."""


def _agreement(
    rater: str,
    f: Field,
    groups: Sequence[Sequence[Compared]],
    resamples: int,
    seed: int,
    level: float,
) -> Agreement:
    """One rater on one field: `groups` are its conversations (in id order), each the label
    sets compared there (one, or every third party's for the pooled rater): a conversation's
    value is the mean of its sets' values, its kappa table the sum of theirs."""
    values = [
        m.nanmean([NAN if f.metric in t.unlabelled else f.raw(t.truth, o) for t, o in group])
        for group in groups
    ]
    value = mean_ci(values, resamples=resamples, seed=seed, level=level)
    if f.items is None:
        return Agreement(rater, f.name, f.task, f.metric, value, None, EMPTY, 0)
    # (conversations, strata, L, L): each conversation's items counted by stratum, in order.
    found = [[i for third, own in group for i in f.items(third, own)] for group in groups]
    strata = {s: k for k, s in enumerate(sorted({s for items in found for s, _, _ in items}))}
    tables = np.zeros((len(groups), len(strata), f.categories, f.categories))
    for g, items in enumerate(found):
        for stratum, row, col in items:
            tables[g, strata[stratum], row, col] += 1
    corrected = kappa_interval(tables, f.weights, resamples, seed, level)
    return Agreement(
        rater, f.name, f.task, f.metric, value, COEFFICIENT[f.weights], corrected,
        int(tables.sum()), f.strata,
    )  # fmt: skip


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
    consensus (where `label_sets` holds consensus sets) and every third party pooled, a
    conversation's annotators resampled together. Conversations in id order."""
    raters: dict[str, dict[str, list[Compared]]] = {}
    pooled: dict[str, list[Compared]] = {}
    for s in label_sets:
        if s.conversation_id not in participants:
            continue
        compared = (s, participants[s.conversation_id])
        name = s.annotator + (SELF_RATING if s.self_rating else "")
        raters.setdefault(name, {}).setdefault(s.conversation_id, []).append(compared)
        if not s.self_rating and s.annotator != CONSENSUS:
            pooled.setdefault(s.conversation_id, []).append(compared)
    named = [(r, raters[r]) for r in sorted(raters)]
    named += [(POOLED, pooled)] if len(raters) > 1 and pooled else []
    return [
        _agreement(rater, f, [groups[c] for c in sorted(groups)], resamples, seed, level)
        for f in fields(codebook)
        for rater, groups in named
    ]


# --- whether the third parties carry information about a task ----------------------------------


@dataclass(frozen=True)
class TaskInformation:
    """Whether the third parties' consensus reads the participants above chance on every label
    field of a task: each field's kappa within items, with its 95% interval (`agreement`)."""

    task: str
    kappas: dict[str, Interval] = field(default_factory=dict)
    """Label field -> the consensus's kappa with the participants."""
    informative: bool = False
    """Every field's interval above 0 (one-sided 97.5%) over 10 conversations or more; or stated."""
    stated: bool = False
    """Informative by construction: a simulation whose annotators read the participants."""


def informed(task: str, kappas: Mapping[str, Interval]) -> TaskInformation:
    """A task's information, read from its fields' kappas: each interval above 0, over at least
    FEW_CONVERSATIONS conversations (an interval over fewer says nothing)."""
    above = bool(kappas) and all(k.low > 0 and k.n >= FEW_CONVERSATIONS for k in kappas.values())
    return TaskInformation(task, dict(kappas), above)


def task_information(
    participants: Mapping[str, GroundTruth],
    consensus: Sequence[LabelSet],
    codebook: Codebook,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> dict[str, TaskInformation]:
    """Per task with labels, the consensus's kappa per field over `consensus`'s conversations."""
    groups = [
        [(s, participants[s.conversation_id])]
        for s in sorted(consensus, key=lambda s: s.conversation_id)
        if s.conversation_id in participants
    ]
    kappas: dict[str, dict[str, Interval]] = {}
    for f in fields(codebook):
        if f.task is None or f.items is None:
            continue
        row = _agreement(CONSENSUS, f, groups, resamples, seed, 0.95)
        kappas.setdefault(f.task, {})[f.name] = row.corrected
    return {task: informed(task, found) for task, found in kappas.items()}
