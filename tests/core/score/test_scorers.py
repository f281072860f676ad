"""Every custom solver, scorer and metric, exercised on its own."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from inspect_ai import Task, eval
from inspect_ai.scorer import Scorer
from pytest_inspect_evals.metrics import assert_agreeing_epochs_change_nothing, run_metrics

from attunebench_inspect.data import load_codebook, load_conversations
from attunebench_inspect.data._samples import to_dataset
from attunebench_inspect.instruments.stability import stability_scorer
from attunebench_inspect.score import (
    binary_scorer,
    composite_scorer,
    conversation_wide_scorer,
    draft_scorer,
    emotion_scorer,
    pairwise_scorer,
    pooled_binary,
)
from attunebench_inspect.score._catalog import of_family
from attunebench_inspect.score._metric_spec import Family
from attunebench_inspect.solve import attunebench_solver, mode_spec

SCORERS: list[tuple[Callable[[], Scorer], Family]] = [
    (composite_scorer, "composite"),
    (emotion_scorer, "emotion"),
    (binary_scorer, "binary"),
    (pairwise_scorer, "pairwise"),
    (draft_scorer, "draft"),
    (conversation_wide_scorer, "conversation_wide"),
    (stability_scorer, "stability"),
]


def test_solver_and_each_scorer_on_their_own(small_dataset: Callable[[int], Path]) -> None:
    data = small_dataset(2)
    codebook = load_codebook()
    task = Task(
        dataset=to_dataset(load_conversations(data, codebook), "two"),
        solver=attunebench_solver(mode_spec("omniscient"), codebook, 7),
        scorer=[make() for make, _ in SCORERS],
    )
    log = eval(
        task,
        model="attunebench/majority",
        model_roles={"judge": "attunebench/majority"},
        display="none",
        log_dir=str(data / "l"),
    )[0]
    assert log.status == "success" and log.samples is not None
    for sample in log.samples:
        assert sample.scores is not None
        for make, family in SCORERS:
            value = sample.scores[make.__name__].value
            keys = {s.name for s in of_family(family) if s.level != "run"}
            assert isinstance(value, dict) and keys <= set(value), make.__name__


def _counts(tp: int, fp: int, fn: int, tn: int) -> dict[str, float]:
    return {
        f"{view}_{name}": float(n)
        for view in ("om", "hp", "om_hp_facing", "hp_hp_facing")
        for name, n in (("tp", tp), ("fp", fp), ("fn", fn), ("tn", tn))
    }


def test_pooled_binary_metric_through_the_epoch_reducer() -> None:
    # Two conversations: tp/fp/fn/tn = (1,1,0,2) and (1,0,1,0); pooled (2,1,1,2):
    # precision 2/3, recall 2/3, F1 2*2/(4+1+1) = 2/3, MCC (4-1)/sqrt(3*3*3*3) = 1/3.
    values = run_metrics([pooled_binary()], [[_counts(1, 1, 0, 2)], [_counts(1, 0, 1, 0)]])
    assert values["binary_om_precision"] == pytest.approx(2 / 3)
    assert values["binary_hp_recall"] == pytest.approx(2 / 3)
    assert values["binary_om_f1"] == pytest.approx(2 / 3)
    assert values["binary_hp_mcc"] == pytest.approx(1 / 3)
    # The HP-facing views are diagnostic: no run-level pooled metric.
    assert not any("facing" in key for key in values)
    # Epochs that disagree are averaged by the reducer; ratios of averaged counts are unchanged.
    reduced = run_metrics([pooled_binary()], [[_counts(1, 1, 0, 2), _counts(3, 3, 0, 6)]])
    assert reduced["binary_om_precision"] == pytest.approx(0.5)


def test_pooled_binary_agreeing_epochs_change_nothing() -> None:
    assert_agreeing_epochs_change_nothing(
        [pooled_binary()], [_counts(1, 1, 0, 2), _counts(2, 0, 1, 1)]
    )
