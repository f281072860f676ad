"""The stability instruments through real runs of models of known behaviour: a
chooser of the first reply shown, a reader of the content, agreeing and independent judges, a
judge that is the evaluated model; the log's metrics, the report's section and its JSON, the
judge panel's roles, logs of task version 3-A, and `attunebench plan`."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog
from inspect_ai.model import Model, get_model
from inspect_ai.util import Store

from attunebench_inspect import Report, attunebench, build_report, to_json, to_markdown, to_terminal
from attunebench_inspect._suite.cli import main
from attunebench_inspect.data import Codebook
from attunebench_inspect.data._problems import InputError
from attunebench_inspect.data._samples import visible_of
from attunebench_inspect.instruments.stability._record import read_record, stability_record
from attunebench_inspect.instruments.stability._report import RunStability
from attunebench_inspect.score._panel import panel_verdict
from attunebench_inspect.solve import read_walk
from attunebench_inspect.solve._judges import panel_roles
from attunebench_inspect.solve._predictions import JudgeVerdict
from attunebench_inspect.solve._solver import pairwise_view
from tests.truth_model import TruthModel

RESAMPLES = 500


def _run(
    data: Path,
    model: str | Model,
    logs: Path,
    *,
    epochs: int = 1,
    roles: dict[str, str | Model] | None = None,
) -> EvalLog:
    [log] = eval(
        attunebench(data=str(data)),
        model=model,
        model_roles=roles,
        epochs=epochs,
        display="none",
        log_dir=str(logs),
    )
    assert log.status == "success"
    return log


def _logged(log: EvalLog) -> dict[str, float]:
    """The stability scorer's metrics in the log header."""
    assert log.results is not None
    score = next(s for s in log.results.scores if s.name == "stability_scorer")
    return {name: m.value for name, m in score.metrics.items()}


def _row(report: Report, model: str) -> RunStability:
    return next(r for r in report.stability if r.model == model)


@pytest.fixture(scope="module")
def choosers(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, EvalLog]]:
    """Three epochs of a chooser of the first reply shown (the majority baseline answers each
    comparison with its schema's first option, the earlier label) and of a reader of the
    content (the ground truth, a third of its answers random)."""
    from tests.conftest import BUNDLED

    root = tmp_path_factory.mktemp("choosers")
    data = root / "data"
    data.mkdir()
    # Ten conversations: the verdicts read on an interval over conversations need ten.
    for file in sorted(BUNDLED.glob("*.json"))[:10]:
        (data / file.name).write_bytes(file.read_bytes())
    from attunebench_inspect.data import load_codebook

    reader = TruthModel(data, load_codebook(), 0.3).model("reader")
    logs = {
        "attunebench/majority": _run(data, "attunebench/majority", root / "logs", epochs=3),
        "mockllm/reader": _run(data, reader, root / "logs", epochs=3),
    }
    return root / "logs", logs


def test_the_first_reply_chooser_is_position_biased_and_consistent_only_by_chance(
    choosers: tuple[Path, dict[str, EvalLog]],
) -> None:
    logs, runs = choosers
    # The log: every choice went to the earlier-shown reply, and none survives a swap.
    first = _logged(runs["attunebench/majority"])
    assert first["pairwise_earlier_share"] == 1.0
    assert first["position_consistency"] == 0.0 and first["position_consistency_excess"] == 0.0
    assert "composite_icc" in first and "composite_epoch_sd" in first
    reader = _logged(runs["mockllm/reader"])
    assert 0.4 < reader["pairwise_earlier_share"] < 0.6
    assert reader["position_consistency_excess"] > 0.15
    # The report: the verdicts, with their rules.
    report = build_report([logs], resamples=RESAMPLES)
    majority = _row(report, "attunebench/majority")
    assert majority.position_bias.verdict == "position-biased"
    assert majority.position_bias.earlier.estimate == 1.0
    assert [s.share.estimate for s in majority.position_bias.positions] == [
        pytest.approx(2 / 3), pytest.approx(1 / 3), 0.0
    ]  # fmt: skip
    assert majority.position_consistency.epochs == 3 and majority.position_consistency.swaps >= 30
    assert majority.position_consistency.consistency.estimate == 0.0
    assert majority.position_consistency.verdict == "consistent only by chance"
    content = _row(report, "mockllm/reader")
    assert content.position_bias.verdict == "no position bias found"
    assert content.position_consistency.verdict == "follows content"
    text = to_terminal(report)
    # A table wider than 120 columns wraps in the terminal: its rows are read whole in Markdown.
    markdown = to_markdown(report).splitlines()
    said = [x for x in markdown if x.startswith("| default | attunebench/majority | 3 |")]
    assert any("consistent only by chance" in x for x in said)
    assert "position-biased" in text and "follows content" in text
    assert "does the answer follow the content?" in text
    # Reruns: both are deterministic but for the pairwise order, so their epochs agree closely.
    assert majority.test_retest.icc is not None and majority.test_retest.icc.value > 0.5
    assert len(majority.phrasing_effect) == 2


def test_the_report_json_carries_each_runs_stability_and_the_rank_stability(
    choosers: tuple[Path, dict[str, EvalLog]],
) -> None:
    report = json.loads(to_json(build_report([choosers[0]], resamples=RESAMPLES)))
    [ranks] = report["rank_stability"]
    assert ranks["mode"] == "default" and ranks["models"] == [
        "mockllm/reader",
        "attunebench/majority",
    ]
    assert ranks["settled"][0][1] is True and ranks["holds"][0][1] == 1.0
    assert ranks["verdicts"][0][1] == "settled" and ranks["shared"] == 10
    for run in report["stability"]:
        for key in ("position_bias", "position_consistency", "test_retest", "judge_agreement"):
            assert key in run
        assert run["self_judge"] == {} and run["position_bias"]["rule"].startswith("position-")


def _panel_run(tmp_path: Path, data: Path, seeds: tuple[int, int]) -> tuple[EvalLog, Report]:
    roles: dict[str, str | Model] = {
        role: get_model("attunebench/random", seed=seed, memoize=False)
        for role, seed in zip(("judge", "judge_2"), seeds, strict=True)
    }
    logs = tmp_path / f"panel{seeds}"
    log = _run(data, "attunebench/random", logs, roles=roles)
    return log, build_report([logs], resamples=RESAMPLES)


def test_agreeing_judges_give_alpha_1_and_independent_judges_alpha_near_0(
    small_dataset: Callable[[int], Path], tmp_path: Path
) -> None:
    data = small_dataset(12)
    # Two copies of the seeded random baseline answer every judgement alike, and vary across
    # drafts; two seeds answer independently.
    log, report = _panel_run(tmp_path, data, (1, 1))
    assert _logged(log)["judge_alpha_overall"] == 1.0 and _logged(log)["judge_alpha_binary"] == 1.0
    agreeing = _row(report, "chance")
    assert len(agreeing.judge_agreement) == 5  # four criteria and the binary answers
    for row in agreeing.judge_agreement:
        assert (row.agreement.alpha.estimate, row.agreement.alpha.low) == (1.0, 1.0), row.item
        assert row.agreement.reading == "reliable"
    log, report = _panel_run(tmp_path, data, (1, 2))
    independent = _row(report, "chance")
    for row in independent.judge_agreement:
        alpha = row.agreement.alpha
        assert alpha.low < 0 < alpha.high and abs(alpha.estimate) < 0.2, row.item
    assert abs(_logged(log)["judge_alpha_overall"]) < 0.2
    # Each judge's leniency beside the panel's, and the collapse rule (the random judges vary).
    overall = [j for j in independent.judge_leniency if j.criterion == "overall"]
    assert [j.role for j in overall] == ["judge", "judge_2"]
    assert all(j.profile.collapsed is False and not math.isnan(j.panel_mean) for j in overall)
    text = to_terminal(report)
    assert "judge panel agreement" in text and "judge_2" in text


def test_the_panel_verdict_is_the_mean_rating_and_the_plurality_answer() -> None:
    def verdict(rating: int, answer: str) -> JudgeVerdict:
        return JudgeVerdict({"overall": rating}, {"B1": answer})

    panel = panel_verdict([verdict(4, "yes"), None, verdict(7, "no"), verdict(7, "no")])
    assert panel == JudgeVerdict({"overall": 6.0}, {"B1": "no"})
    # A tie goes to the earliest judge role among the tied answers; a panel of one is its judge.
    assert panel_verdict([verdict(2, "na"), verdict(5, "yes")]) == JudgeVerdict(
        {"overall": 3.5}, {"B1": "na"}
    )
    assert panel_verdict([verdict(3, "yes")]) == verdict(3, "yes")
    assert panel_verdict([None, None]) is None


def test_judge_roles_follow_the_pattern_or_stop_the_run_in_one_line(
    small_dataset: Callable[[int], Path],
) -> None:
    assert panel_roles(["judge", "grader"]) == ("judge",)
    assert panel_roles(["judge_3", "judge", "judge_2"]) == ("judge", "judge_2", "judge_3")
    assert panel_roles(["grader"]) == ()
    cases = {
        ("judge_2",): "model role judge is missing: the judge panel's roles are judge, judge_2, "
        "judge_3, ... without gaps; bound: judge_2",
        ("judge", "judge_3"): "model role judge_2 is missing: the judge panel's roles are "
        "judge, judge_2, judge_3, ... without gaps; bound: judge, judge_3",
        ("judge_1",): "model role judge_1: not a judge role; the judge panel's roles are judge, "
        "judge_2, judge_3, ... (numbered from 2)",
    }
    for roles, message in cases.items():
        with pytest.raises(InputError) as raised:
            panel_roles(roles)
        assert str(raised.value) == message
    # Under eval() of the task by name, as under `inspect eval`: the same line, no run.
    with pytest.raises(InputError, match="model role judge is missing"):
        eval(
            "attunebench_inspect/default",
            model="attunebench/random",
            model_roles={"judge_2": "attunebench/random"},
            task_args={"data": str(small_dataset(1))},
            display="none",
        )


def test_self_judging_is_said_in_one_line_recorded_and_marked(
    small_dataset: Callable[[int], Path], tmp_path: Path
) -> None:
    data = small_dataset(1)
    logs = tmp_path / "logs"
    command = [
        sys.executable, "-m", "inspect_ai", "eval", "attunebench_inspect/default",
        "--model", "attunebench/random", "--model-role", "judge=attunebench/random",
        "-T", f"data={data}", "--log-dir", str(logs), "--display", "plain",
    ]  # fmt: skip
    run = subprocess.run(command, capture_output=True, text=True, timeout=600, check=True)
    said = [x for x in (run.stdout + run.stderr).splitlines() if "self-judging" in x]
    assert said == [
        "self-judging: the judge panel has the evaluated model attunebench/random or its "
        "family: judge attunebench/random (same model); its draft ratings may favour its own "
        "writing (-T allow_self_judge=true if meant)"
    ]
    report = build_report([logs], resamples=RESAMPLES)
    row = _row(report, "chance")
    assert row.self_judge == {"judge": "same model"} and not row.self_judge_allowed
    text = to_terminal(report)
    assert "Stability: self-judging" in text and "SAME MODEL" in text
    assert json.loads(to_json(report))["stability"][0]["self_judge"] == {"judge": "same model"}
    # -T allow_self_judge=true: no line; the log still records it, the report marks it allowed.
    allowed = tmp_path / "allowed"
    quiet = subprocess.run(
        [*command[:-4], "-T", "allow_self_judge=true", "--log-dir", str(allowed)],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    )
    assert "self-judging" not in quiet.stdout + quiet.stderr
    row = _row(build_report([allowed], resamples=RESAMPLES), "chance")
    assert row.self_judge == {"judge": "same model"} and row.self_judge_allowed
    with pytest.raises(InputError, match="task parameter allow_self_judge must be true or false"):
        attunebench(data=str(data), allow_self_judge="yes")


def test_a_task_version_3a_walk_with_one_judge_model_still_reads(
    small_dataset: Callable[[int], Path], tmp_path: Path
) -> None:
    log = _run(
        small_dataset(1), "attunebench/random", tmp_path, roles={"judge": "attunebench/majority"}
    )
    assert log.samples is not None
    store = dict(log.samples[0].store)
    walk = read_walk(Store(store))
    assert walk.judges == {"judge": "attunebench/majority"}
    # As task version 3-A wrote it: one judge model, judge records without a role.
    old = {k: v for k, v in store.items() if k != "WalkStore:judges"}
    old["WalkStore:judge_model"] = "attunebench/majority"
    old["WalkStore:records"] = [
        {k: v for k, v in r.items() if k != "role"} for r in store["WalkStore:records"]
    ]
    legacy = read_walk(Store(old))
    assert legacy.judges == walk.judges and legacy.judgements.keys() == walk.judgements.keys()
    assert legacy.turn(1).verdicts == walk.turn(1).verdicts


def test_the_stability_record_reads_back_the_display_order_of_each_epoch(
    codebook: Codebook, small_dataset: Callable[[int], Path], tmp_path: Path
) -> None:
    log = _run(small_dataset(1), "attunebench/majority", tmp_path, epochs=2)
    assert log.samples is not None
    for sample in log.samples:
        conv = visible_of(sample.metadata)
        record = read_record(str(sample.id), sample.scores["stability_scorer"].metadata)
        assert record is not None and record.epoch == sample.epoch
        for turn in conv.turns:
            view = pairwise_view(0, conv.conversation_id, turn, sample.epoch)
            shown = [view.labels[label] for label, _ in view.replies]
            choices = [c for c in record.choices if c.turn == turn.turn_number]
            assert len(choices) == len(view.comparisons)
            for choice in choices:
                assert choice.chose_earlier  # the majority baseline answers the first label
                assert choice.positions == (
                    shown.index(choice.earlier) + 1, shown.index(choice.later) + 1
                )  # fmt: skip
        walk = read_walk(Store(sample.store))
        turns = len(conv.turns)
        again = stability_record(walk, turns, sample.epoch, record.composite)
        assert again == sample.scores["stability_scorer"].metadata


def test_plan_prints_conversations_by_epochs_and_dollars(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(
        ["plan", "--variances", "25", "9", "9", "--difference", "2", "--max-epochs", "3",
         "--model", "openai/gpt-4o", "--price-in", "2.5", "--price-out", "10",
         "--tokenizer", "chars"]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    rows = [x.split() for x in out.splitlines() if x[:1].isdigit()]
    # Hand-checked against the noncentral t (test_statistics.py pins the arithmetic).
    assert [(r[0], r[1]) for r in rows] == [("1", "87"), ("2", "69"), ("3", "63")]
    dollars = [float(r[3].replace(",", "")) for r in rows]
    assert dollars[0] > 0 and dollars[1] == pytest.approx(dollars[0] * 2 * 69 / 87, rel=1e-3)
    assert "openai/gpt-4o USD" in out
    stated = ["plan", "--variances", "25", "9", "9", "--difference", "2", "--format", "json"]
    document: Any = json.loads(_captured(capsys, stated))
    assert document["rows"][0]["conversations"] == 87
    assert document["rows"][0]["total_usd"] is None  # no model priced


def _captured(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--difference", "2"], "give the pilot's logs (--pilot) or the variances (--variances)"),
        (["--variances", "1", "1", "1", "--difference", "0"],
         "--difference must be at least 0.01 Composite points (the precision a report gives a "
         "Composite: a smaller difference cannot be shown); got 0"),
        # The attack of issue 47: a difference no one can mean.
        (["--variances", "1", "1", "1", "--difference", "1e-300"],
         "--difference must be at least 0.01 Composite points (the precision a report gives a "
         "Composite: a smaller difference cannot be shown); got 1e-300"),
        (["--variances", "1", "1", "1", "--difference", "2", "--power", "1.5"],
         "--power and --alpha must be in (0, 1); got 1.5, 0.05"),
        (["--variances", "1", "1", "1", "--difference", "2", "--power", "0.03"],
         "--power must be above --alpha (a test rejects at rate alpha with no difference at all, "
         "so any plan reaches a power of alpha); got power 0.03, alpha 0.05"),
        (["--variances", "1", "1", "1", "--difference", "2", "--model", "x/y"],
         "--price-in and --price-out are required with --model"),
    ],
)  # fmt: skip
def test_plan_rejects_bad_input_in_one_line(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["plan", *argv]) == 2
    assert capsys.readouterr().err.splitlines() == [f"attunebench plan: {message}"]


def test_plan_reads_a_pilot_of_two_runs_with_two_epochs(
    choosers: tuple[Path, dict[str, EvalLog]], capsys: pytest.CaptureFixture[str]
) -> None:
    out = _captured(
        capsys,
        ["plan", "--pilot", str(choosers[0]), "--difference", "3", "--max-epochs", "2"],
    )
    assert "pilot attunebench/majority - mockllm/reader (default, 10 shared conversations)" in out
    assert "observed difference A - B" in out
    one_epoch_logs = choosers[0].parent / "one"
    _run(choosers[0].parent / "data", "attunebench/majority", one_epoch_logs)
    _run(choosers[0].parent / "data", "attunebench/random", one_epoch_logs)
    # One epoch measures no rerun variance: the plan cannot decide, and says why.
    assert main(["plan", "--pilot", str(one_epoch_logs), "--difference", "3"]) == 0
    assert "cannot decide: a pilot of 1 epoch: the rerun variance needs 2 or more" in (
        capsys.readouterr().out
    )
