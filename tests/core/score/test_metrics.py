"""Metrics and scorers: conformance vectors, an oracle, chance, epochs, the Composite from logs."""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from inspect_ai.log import EvalLog
from scipy.stats import kendalltau
from sklearn.metrics import matthews_corrcoef

from attunebench_inspect._suite.catalog import compute
from attunebench_inspect._suite.cli import main
from attunebench_inspect._util.bootstrap import mean_ci
from attunebench_inspect.data import Codebook, load_conversations, split
from attunebench_inspect.data._split import GroundTruth, VisibleConversation
from attunebench_inspect.score import _metrics as m
from attunebench_inspect.score._conformance import bundled_case_files, check_case
from attunebench_inspect.score._conversation import score_conversation
from attunebench_inspect.score._vad import similarity
from attunebench_inspect.solve._call_record import CallRecord, CallType
from attunebench_inspect.solve._predictions import Walk
from tests.conftest import BUNDLED
from tests.runs import logged_metric, run_main

CASES = [
    (file.name, case)
    for file in bundled_case_files()
    for case in json.loads(file.read_text())["cases"]
]


def test_there_are_enough_conformance_cases() -> None:
    assert len(CASES) >= 60
    metrics = {case["metric"] for _, case in CASES}
    assert {
        "emotion_f1",
        "emotion_va",
        "emotion_intensity_mae",
        "emotion_hit_rate",
        "binary_om_accuracy",
        "binary_hp_accuracy",
        "binary_om_mcc",
        "pairwise_accuracy",
        "kendall_tau",
        "draft_judge",
        "draft_binary_alignment",
        "panas_normalized",
        "panas_item_normalized",
        "panas_baseline_adjusted",
        "q1_goals",
        "q2_clarity",
        "q3_fit",
        "q3_exact",
        "q3_follow_up",
        "four_branch",
        "composite",
        "parse_failure_rate",
    } <= metrics


@pytest.mark.parametrize(("source", "case"), CASES, ids=[f"{s}:{c['name']}" for s, c in CASES])
def test_conformance_case(source: str, case: dict[str, Any]) -> None:
    ok, line = check_case(source, case, compute)
    assert ok, line


def test_conformance_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conformance"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == f"{len(CASES)} passed, 0 failed"
    wrong = tmp_path / "wrong.json"
    wrong.write_text(
        json.dumps(
            {
                "cases": [
                    {
                        "name": "deliberately wrong",
                        "metric": "emotion_f1",
                        "prediction": [],
                        "truth": [],
                        "expected": 0.5,
                    },
                    {
                        "name": "no such metric",
                        "metric": "vibes",
                        "prediction": 1,
                        "truth": 1,
                        "expected": 1,
                    },
                ]
            }
        )
    )
    assert main(["conformance", str(wrong)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (
        "FAIL wrong.json :: deliberately wrong [emotion_f1] expected 0.500000, got 1.000000"
    )
    assert out[1].startswith("FAIL wrong.json :: no such metric [vibes]")
    assert out[-1] == "0 passed, 2 failed"


def test_vad_matrix() -> None:
    assert round(similarity("distressed", "upset"), 2) == 0.92
    assert similarity("proud", "proud") == 1.0
    assert similarity("afraid", "excited") == similarity("excited", "afraid")


def test_hand_checked_values() -> None:
    # F1 with 2 predicted, 3 labelled, 1 shared: 2*1/(2+3).
    assert m.emotion_f1({"upset": 3, "proud": 1}, {"upset": 2, "nervous": 4, "afraid": 1}) == 0.4
    # Ordinal Q3 over 4 options, one step apart: 1 - 1/3.
    assert m.ordinal("b", "a", ["a", "b", "c", "d"]) == pytest.approx(2 / 3)
    # Pooled MCC of tp=2 fp=1 fn=1 tn=2: (4-1)/sqrt(3*3*3*3) = 1/3.
    assert m.pooled_binary(2, 1, 1, 2)["mcc"] == pytest.approx(1 / 3)
    # A constant "yes" (the majority baseline): no correlation, not "nan"; no judgement: NaN.
    assert m.pooled_binary(5, 3, 0, 0)["mcc"] == 0.0
    assert math.isnan(m.pooled_binary(0, 0, 0, 0)["mcc"])
    assert math.isnan(m.nanmean([math.nan]))


@given(st.lists(st.integers(0, 40), min_size=4, max_size=4).filter(any))
def test_pooled_mcc_is_sklearns(counts: list[int]) -> None:
    """MCC of pooled counts as scikit-learn's matthews_corrcoef computes it on the judgements
    they count, a constant prediction or label (0) included."""
    tp, fp, fn, tn = counts
    expected = matthews_corrcoef([1, 0, 1, 0], [1, 1, 0, 0], sample_weight=counts)
    assert m.pooled_binary(tp, fp, fn, tn)["mcc"] == pytest.approx(expected, abs=1e-12)


def _oracle_records(
    visible: VisibleConversation, truth: GroundTruth, codebook: Codebook
) -> dict[tuple[CallType, int | None], CallRecord]:
    """Call records whose predictions equal the ground truth."""
    labels = {"1": "original", "2": "alternate", "3": "human"}
    label_of = {v: k for k, v in labels.items()}
    records: dict[tuple[CallType, int | None], CallRecord] = {}

    def add(
        call: CallType,
        turn: int | None,
        prediction: dict[str, Any],
        context: dict[str, Any] | None = None,
    ) -> None:
        records[(call, turn)] = CallRecord(
            call=call, turn=turn, status="ok", raw="", prediction=prediction, context=context or {}
        )

    for vturn, tturn in zip(visible.turns, truth.turns, strict=True):
        n = tturn.turn_number
        binary = {
            q: {"observed": b.observed, "preferred": b.preferred} for q, b in tturn.binary.items()
        }
        add("draft", n, {"text": vturn.human_response})
        add(
            "judge",
            n,
            {
                "ratings": dict.fromkeys(
                    ("overall", "emotional_appropriateness", "helpfulness", "tone_match"), 7
                ),
                "binary": {q: b.preferred for q, b in tturn.binary.items()},
            },
        )
        add("emotion", n, {"mood_shift": dict(tturn.mood_shift), "binary": binary})
        add("binary_hp", n, {"binary": binary})
        cids = {f"c{i}": c.key for i, c in enumerate(vturn.comparisons)}
        add(
            "pairwise",
            n,
            {cid: {"winner": label_of[tturn.pairwise[key]]} for cid, key in cids.items()},
            {"labels": labels, "comparisons": cids},
        )
    add(
        "post",
        None,
        {
            "post_panas": dict(truth.post_panas),
            "q1_looking_for": {o: o in truth.q1_looking_for for o in codebook.q1_options},
            "q2_emotion_clarity": truth.q2_emotion_clarity,
            "q3_model_fit": truth.q3_model_fit,
            "q3_follow_up": {o: o in truth.q3_follow_up for o in codebook.follow_up_options},
            "four_branch": dict(truth.four_branch),
        },
    )
    return records


@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3)), min_size=2, max_size=6))
def test_tau_b_agrees_with_scipy(pairs: list[tuple[int, int]]) -> None:
    x, y = [p[0] for p in pairs], [p[1] for p in pairs]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns where a ranking is constant
        expected = float(kendalltau(x, y).statistic)
    got = m.tau_b(x, y)
    assert (math.isnan(got) and math.isnan(expected)) or got == pytest.approx(expected)


def test_oracle_scores_maximum_on_every_bundled_conversation(codebook: Codebook) -> None:
    loaded = load_conversations(BUNDLED, codebook)
    for item in loaded.conversations:
        visible, truth = split(item.conversation)
        records = _oracle_records(visible, truth, codebook)
        walk = Walk(
            {"judge": "oracle-judge"},
            {k: r for k, r in records.items() if k[0] != "judge"},
            {("judge", t): r for (c, t), r in records.items() if c == "judge" and t is not None},
        )
        scores = score_conversation(truth, walk, q3_options=codebook.q3_options)
        values = scores.flat()
        for key in (
            "emotion_f1",
            "emotion_va",
            "emotion_hit_rate",
            "binary_om_accuracy",
            "binary_hp_accuracy",
            "binary_om_accuracy_hp_facing",
            "binary_hp_accuracy_hp_facing",
            "pairwise_accuracy",
            "draft_judge",
            "draft_binary_alignment",
            "panas_normalized",
            "panas_item_normalized",
            "panas_baseline_adjusted",
            "q1_goals",
            "q2_clarity",
            "q3_fit",
            "q3_exact",
            "four_branch",
            "emotion_pillar",
            "evaluation_pillar",
            "holistic_pillar",
        ):
            assert values[key] == 1.0 or (math.isnan(values[key]) and key == "emotion_hit_rate"), (
                key
            )
        assert values["composite"] == pytest.approx(100.0)
        assert values["emotion_intensity_mae"] == 0.0
        assert values["kendall_tau"] == 1.0 or math.isnan(values["kendall_tau"])
        assert values["q3_follow_up"] == 1.0 or not truth.q3_follow_up
        assert values["parse_failure_rate"] == 0.0


def test_random_baseline_is_far_below_the_oracle(bundled_baselines: dict[str, EvalLog]) -> None:
    log = bundled_baselines["attunebench/random"]
    assert 10 < logged_metric(log, "composite") < 40
    assert 0.2 < logged_metric(log, "pairwise_accuracy") < 0.8


def test_metrics_survive_epochs(small_dataset: Callable[[int], Path]) -> None:
    data = small_dataset(2)
    twice = run_main(data, "attunebench/random", epochs=2)
    assert twice.eval.config.epochs == 2 and twice.results is not None and twice.samples
    # Inspect reduces each sample's Score.value across epochs (the mean) before any metric sees
    # it: every logged mean is the mean over conversations of their epoch means. The random
    # baseline answers anew from epoch 2 on (its seed reads the epoch), so the epochs differ in
    # every call, as reruns of chance do.
    epochs: dict[str, list[dict[str, float]]] = {}
    for sample in twice.samples:
        values = {k: v for s in sample.scores.values() for k, v in dict(s.value).items()}
        epochs.setdefault(str(sample.id), []).append(values)
    differ = set()
    for score in twice.results.scores:
        if "mean" not in score.metrics or math.isnan(score.metrics["mean"].value):
            continue
        means = [float(m.nanmean([e[score.name] for e in per])) for per in epochs.values()]
        assert score.metrics["mean"].value == pytest.approx(m.nanmean(means)), score.name
        if any(len({e[score.name] for e in per}) > 1 for per in epochs.values()):
            differ.add(score.name)
    assert {"pairwise_accuracy", "emotion_f1", "binary_om_accuracy"} <= differ
    # Pooled metrics pool the epoch-mean counts: the same ratio as the counts of every epoch.
    counts = {
        f: sum(e[f"om_{f}"] for per in epochs.values() for e in per) for f in ("tp", "fp", "fn")
    }
    f1 = 2 * counts["tp"] / (2 * counts["tp"] + counts["fp"] + counts["fn"])
    assert logged_metric(twice, "binary_scorer", "binary_om_f1") == pytest.approx(f1)


def test_bootstrap_is_seeded_and_narrows() -> None:
    values = [float(v % 7) for v in range(50)]
    first = mean_ci(values, resamples=2000, seed=3)
    assert first == mean_ci(values, resamples=2000, seed=3)
    wide = mean_ci(values[:10], resamples=2000, seed=3)
    assert (first.high - first.low) < (wide.high - wide.low)
