"""No crash on any data set, and statistics a constant rater cannot game: the kappa within items
pinned to scikit-learn's `cohen_kappa_score` stratum by stratum, exactly 0 for a rater constant
within each item however the participants answer, and every pure function of the third-party
study on inputs of every shape (no conversation, one, 200 and more; any number of models and
tasks; undefined values) giving a verdict in its declared set or "cannot decide: <reason>"."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score

from attunebench_inspect._util.bootstrap import Interval
from attunebench_inspect._util.verdict import is_abstention
from attunebench_inspect.data._codebook import Codebook
from attunebench_inspect.instruments.reannotation._agreement import (
    agreement,
    informed,
    task_information,
)
from attunebench_inspect.instruments.reannotation._kappa import _weights, stratified_kappa
from attunebench_inspect.instruments.reannotation._labels import LabelSet
from attunebench_inspect.instruments.reannotation._separability import (
    LABELLED,
    READINGS,
    reviewers_test,
)
from attunebench_inspect.instruments.reannotation._tasks import TaskScores, self_specific_gains
from tests.third_party_world import World, random_reading

SHAPES = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
Item = tuple[int, int, int]
"""(stratum, the participant's category, the rater's category)."""


def _tables(items: list[Item], strata: int, categories: int) -> np.ndarray:
    tables = np.zeros((strata, categories, categories))
    for k, row, col in items:
        tables[k, row, col] += 1
    return tables


items = st.lists(
    st.tuples(st.integers(0, 3), st.integers(0, 3), st.integers(0, 3)), min_size=1, max_size=80
)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@SHAPES
@given(items, st.sampled_from(["nominal", "quadratic"]))
def test_kappa_within_items_is_sklearns_stratum_by_stratum(found: list[Item], weights: str) -> None:
    """One stratum: scikit-learn's kappa. Several: the strata's scikit-learn kappas averaged
    with weights n_k times the stratum's expected disagreement (`_kappa.py`)."""
    tables = _tables(found, 4, 4)
    mine = float(stratified_kappa(tables, weights))  # type: ignore[arg-type]
    numerator = denominator = 0.0
    w = _weights(4, weights)  # type: ignore[arg-type]
    for k in range(4):
        rows = [(a, b) for s, a, b in found if s == k]
        if not rows:
            continue
        a, b = zip(*rows, strict=True)
        table = tables[k]
        n = table.sum()
        expected = np.outer(table.sum(axis=1), table.sum(axis=0)) / n
        disagreement = float((w * expected).sum())
        if disagreement == 0:
            continue
        with np.errstate(all="ignore"):
            theirs = cohen_kappa_score(
                a, b, labels=[0, 1, 2, 3], weights=None if weights == "nominal" else "quadratic"
            )
        numerator += disagreement * theirs
        denominator += disagreement
    if denominator == 0:
        assert math.isnan(mine)
    else:
        assert mine == pytest.approx(numerator / denominator, abs=1e-9)


@SHAPES
@given(
    st.lists(st.tuples(st.integers(0, 5), st.integers(0, 2)), min_size=1, max_size=120),
    st.lists(st.integers(0, 2), min_size=6, max_size=6),
    st.sampled_from(["nominal", "quadratic"]),
)
def test_a_rater_constant_within_each_item_scores_0(
    participant: list[tuple[int, int]], answers: list[int], weights: str
) -> None:
    """However the participants answer and whichever answer the rater gives each item (always
    "happy", always the earlier-shown reply), its kappa is 0, or undefined where nobody varies."""
    found = [(k, row, answers[k]) for k, row in participant]
    kappa = float(stratified_kappa(_tables(found, 6, 3), weights))  # type: ignore[arg-type]
    assert kappa == 0.0 or math.isnan(kappa)


@st.composite
def task_scores(draw: st.DrawFn) -> TaskScores:
    models = draw(st.integers(0, 8))
    conversations = draw(st.sampled_from([0, 1, 9, 10, 30, 230]))
    tasks = draw(st.sampled_from([1, 2, 4]))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    own = rng.uniform(0, 1, (models, tasks, conversations))
    third = rng.uniform(0, 1, (models, tasks, conversations))
    holes = draw(st.sampled_from([0.0, 0.2, 1.0]))
    own[rng.uniform(size=own.shape) < holes] = np.nan
    names = ("emotion_recognition", "behavioral_classification", "preference_prediction",
             "judged_response_quality")[:tasks]  # fmt: skip
    return TaskScores(
        tuple(f"m{i}" for i in range(models)),
        names,
        tuple(f"c{i}" for i in range(conversations)),
        own,
        third,
    )


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@SHAPES
@given(task_scores(), st.sets(st.sampled_from(LABELLED)))
def test_the_reviewers_test_on_any_shape(scores: TaskScores, informative: set[str]) -> None:
    known = Interval(0.5, 0.3, 0.7, 30)
    information = {t: informed(t, {"f": known}) for t in informative}
    test = reviewers_test(scores, information, resamples=200)
    assert test.verdict in READINGS or is_abstention(test.verdict), test.verdict
    assert test.reading.startswith(test.verdict)
    if set(scores.tasks) & set(LABELLED) - informative and test.verdict in READINGS:
        # A verdict only from pairs whose label tasks are informative.
        assert all(
            p.status in ("not separable under self labels", "no information")
            or set(p.tasks) & set(LABELLED) <= informative
            for p in test.pairs
        )
    for gain in self_specific_gains(scores, resamples=200):
        assert gain.gain.n <= len(scores.conversations)


@pytest.fixture(scope="module")
def world(codebook: Codebook) -> World:
    return World(codebook)


@SHAPES
@given(st.sampled_from([0, 1, 2, 9, 25]), st.integers(1, 3))
def test_agreement_and_information_on_any_number_of_conversations(
    world: World, conversations: int, annotators: int
) -> None:
    ids = sorted(world.visible)[:conversations]
    sets = [
        LabelSet(
            c,
            f"r{a}",
            random_reading(world.truth[c], world.visible[c], world.codebook, f"r{a}"),
            f"r{a}.json",
            shuffle_seed=0,
        )
        for a in range(annotators)
        for c in ids
    ]
    truths = {c: world.truth[c] for c in ids}
    rows = agreement(truths, sets, world.codebook, resamples=200)
    assert len(rows) == (len({s.annotator for s in sets}) + (annotators > 1)) * 10 * bool(ids)
    information = task_information(truths, sets[: len(ids)], world.codebook, resamples=200)
    assert set(information) == set(LABELLED)
    if conversations < 10:
        assert not any(i.informative for i in information.values())
