"""The metric catalog is the one home of every metric: what derives from it, and what it claims."""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog, headline_metric

from attunebench_inspect import attunebench, build_report, metrics_df
from attunebench_inspect._suite.catalog import metrics_markdown
from attunebench_inspect._suite.cli import main
from attunebench_inspect.instruments.profile._catalog import PROFILE_METRICS
from attunebench_inspect.score._catalog import BY_NAME, CATALOG, in_groups, spec
from attunebench_inspect.score._catalog_doc import BEGIN, END
from attunebench_inspect.score._chance_levels import measured, measured_names
from attunebench_inspect.score._conformance import bundled_case_files
from tests.conftest import BUNDLED, REPO

METRICS_MD = REPO / "scorers" / "METRICS.md"


def test_metrics_md_tables_are_the_catalog() -> None:
    text = METRICS_MD.read_text(encoding="utf-8")
    generated = text[text.index(BEGIN) + len(BEGIN) : text.index(END)].strip()
    assert generated == metrics_markdown().strip(), (
        "scorers/METRICS.md is out of date: run `attunebench metrics --write scorers/METRICS.md`"
    )


def test_every_computed_metric_has_conformance_cases_and_every_case_a_metric() -> None:
    cased = {
        case["metric"]
        for file in bundled_case_files()
        for case in json.loads(file.read_text())["cases"]
    }
    profile = {s.name for s in PROFILE_METRICS}
    assert cased <= {s.name for s in CATALOG} | profile
    needs_cases = {
        s.name for s in CATALOG if (s.computed or s.family == "composite") and s.family != "rejudge"
    }
    assert (needs_cases | profile) - cased == set()


def test_measured_chance_levels_are_what_the_baselines_score(
    bundled_baselines: dict[str, EvalLog],
) -> None:
    frame = metrics_df([log.location for log in bundled_baselines.values()])
    means = frame.groupby("model").mean(numeric_only=True)
    for name in sorted(n for n in measured_names() if n in BY_NAME):
        for model, claimed in zip(
            ("attunebench/random", "attunebench/majority"), measured(name), strict=True
        ):
            value = float(means.loc[model, name])
            digits = 2 if abs(value) >= 10 else 3
            if claimed is None:
                assert math.isnan(value), (name, model)
            else:
                assert round(value, digits) == pytest.approx(claimed), (name, model, value)


def test_the_composite_is_inspects_headline_and_the_results_are_the_catalogs(
    bundled_baselines: dict[str, EvalLog],
) -> None:
    log = bundled_baselines["attunebench/random"]
    assert log.results is not None
    first = log.results.scores[0]
    assert (first.scorer, first.name) == ("composite_scorer", "composite")
    assert set(first.metrics) == {"mean", "stderr"}
    resolved = headline_metric(log)
    assert resolved is not None and (resolved.score.name, resolved.name) == ("composite", "mean")
    # A metric of a whole scorer (pooled binary, stability) names each of its values.
    whole = {"binary_scorer", "stability_scorer"}
    logged = {s.name for s in log.results.scores if s.name not in whole} | {
        name for s in log.results.scores if s.name in whole for name in s.metrics
    }
    # Without a judge the draft metrics are absent, not NaN; diagnostics stay in the samples;
    # of the stability figures, one epoch without a judge panel has the earlier-shown share.
    run_level = {
        s.name for s in CATALOG if s.run_level and s.family not in ("draft", "rejudge", "stability")
    }
    assert logged == run_level | {"pairwise_earlier_share"}
    assert all(not math.isnan(m.value) for s in log.results.scores for m in s.metrics.values()), (
        "a NaN run-level metric reached the results panel"
    )


def _undefined_pillar_dataset(root: Path) -> Path:
    data = root / "data"
    data.mkdir()
    for source in sorted(BUNDLED.glob("*.json"))[:3]:
        shutil.copy(source, data / source.name)
    first = sorted(data.glob("*.json"))[0]
    doc = json.loads(first.read_text(encoding="utf-8"))
    for turn in doc["turns"]:
        notes = turn["annotations"]
        for judgement in notes["binaryJudgements"]:
            judgement["observedBehavior"] = judgement["preferredBehavior"] = "na"
        notes["pairwiseComparisons"] = []
        notes["selectedPairwiseQuestions"] = []
    first.write_text(json.dumps(doc), encoding="utf-8")
    return data


def test_header_cli_and_report_agree_on_the_composite_with_an_undefined_pillar(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _undefined_pillar_dataset(tmp_path)
    log_dir = tmp_path / "logs"
    [log] = eval(
        attunebench(data=str(data)),
        model="attunebench/random",
        display="none",
        log_dir=str(log_dir),
    )
    assert log.results is not None and log.samples is not None
    pillars = [s.scores["composite_scorer"].value for s in log.samples if s.scores]
    assert any(isinstance(p, dict) and math.isnan(p["evaluation_pillar"]) for p in pillars)
    header = log.results.scores[0].metrics["mean"].value

    assert main(["composite", str(log_dir), "--resamples", "200"]) == 0
    row = capsys.readouterr().out.splitlines()[1].split("\t")
    assert row[2] == "3" and float(row[3].split()[0]) == pytest.approx(header, abs=0.005)

    report = build_report([log_dir], resamples=200)
    [leader] = report.leaderboard
    assert leader.composite.n == 3
    assert leader.composite.estimate == pytest.approx(header, abs=1e-12)


def test_labels_directions_and_groups_are_declared_once() -> None:
    assert spec("emotion_intensity_mae").higher_is_better is False
    assert {s.name for s in in_groups("canonical")} == {
        "emotion_f1",
        "emotion_va",
        "binary_om_accuracy",
        "binary_hp_accuracy",
        "pairwise_accuracy",
        "panas_baseline_adjusted",
        "four_branch",
        "q1_goals",
        "q2_clarity",
        "q3_fit",
        "q3_follow_up",
    }
    with pytest.raises(KeyError, match="unknown metric 'emotion_f2'"):
        spec("emotion_f2")


def test_evals_df_headline_columns_are_the_composite(bundled_baselines: dict[str, EvalLog]) -> None:
    from inspect_ai.analysis import evals_df

    frame = evals_df([log.location for log in bundled_baselines.values()])
    assert set(frame["score_headline_name"]) == {"composite_scorer"}
    assert set(frame["score_headline_metric"]) == {"mean"}
    logged = {
        log.results.scores[0].metrics["mean"].value
        for log in bundled_baselines.values()
        if log.results
    }
    assert set(frame["score_headline_value"]) == logged


def test_a_run_without_samples_is_named_as_such(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    eval(attunebench(), model="attunebench/random", display="none", log_dir=str(tmp_path), limit=0)
    assert main(["report", str(tmp_path)]) == 1
    assert "the run had no samples (--limit 0)" in capsys.readouterr().err
