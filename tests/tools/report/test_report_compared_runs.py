"""Which runs a report compares, and what it says first: partial runs and runs on other data are
set aside, never ranked beside the whole runs; the report opens with the data set and, for the
bundled set, "Synthetic: not AttuneBench results" in every form; tokens by role add up to the
log's usage with a judge panel; terminal text fits 120 columns; a --compare side left empty is
said, not shown as rows of nothing."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import read_eval_log

from attunebench_inspect import (
    build_report,
    default,
    metrics_df,
    to_html,
    to_json,
    to_markdown,
    to_terminal,
)
from attunebench_inspect._suite.cli import main
from attunebench_inspect._suite.render import tables
from attunebench_inspect.tools._arguments import WIDTH
from attunebench_inspect.tools.report._logs import read_runs
from tests.conftest import BUNDLED
from tests.terminal_text import ONE_WORD_NOTE, read_back
from tests.third_party_world import FAITHFUL, World, planted_models

RESAMPLES = 200
WHOLE = 3
"""Conversations of the whole runs (the first bundled ones by name)."""


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Both baselines over three conversations, then what the recipes add: a --limit 1 run of
    the majority baseline (newer than its whole run), a --sample-id run, a run of the random
    baseline on another data set (one conversation of another file), and a newer run of the
    majority baseline with --epochs 2."""
    root = tmp_path_factory.mktemp("compared")
    data, other = root / "data", root / "other"
    data.mkdir()
    other.mkdir()
    files = sorted(BUNDLED.glob("*.json"))
    for file in files[:WHOLE]:
        shutil.copy(file, data)
    shutil.copy(files[WHOLE], other)
    folder = root / "logs"
    for model in ("attunebench/random", "attunebench/majority"):
        eval(default(data=str(data)), model=model, display="none", log_dir=str(folder))
    one = json.loads(files[1].read_text())["conversationId"]
    eval(default(data=str(data)), model="attunebench/majority", limit=1, display="none",
         log_dir=str(folder))  # fmt: skip
    eval(default(data=str(data)), model="attunebench/random", sample_id=one, display="none",
         log_dir=str(folder))  # fmt: skip
    eval(default(data=str(other)), model="attunebench/random", display="none", log_dir=str(folder))
    eval(default(data=str(data)), model="attunebench/majority", epochs=2, display="none",
         log_dir=str(folder))  # fmt: skip
    return folder


def test_runs_over_fewer_or_other_conversations_are_set_aside_with_why(logs: Path) -> None:
    report = build_report([logs], resamples=RESAMPLES)
    board = {(r.model, r.mode): r.composite.n for r in report.leaderboard}
    assert board == {("chance", "default"): WHOLE, ("attunebench/majority", "default"): WHOLE}
    aside = {
        (s.model, s.mode, s.reason) for s in report.skipped if s.reason.startswith("set aside:")
    }
    partial = (
        "set aside: a run over 1 of the 3 conversations (--limit or --sample-id), not comparable "
        "with the runs ranked (3 conversations, 1 epoch; `attunebench report` on that log alone "
        "reports it)"
    )
    other = next(a for _, _, a in aside if "another data set (" in a)
    assert aside == {
        ("attunebench/majority", "default", partial),
        ("attunebench/random", "default", partial),
        ("attunebench/random", "default", other),
        (
            "attunebench/majority",
            "default",
            "set aside: a run of 2 epochs (--epochs), not comparable with the runs ranked (3 "
            "conversations, 1 epoch; `attunebench report` on that log alone reports it)",
        ),
    }
    (scope,) = report.compared
    assert (scope.task, scope.conversations, scope.epochs, scope.runs, scope.set_aside) == (
        "main task",
        3,
        1,
        2,
        4,
    )
    # A partial run alone is reported: it is the largest set among what was given.
    partial = next(s.location for s in report.skipped if "1 of the 3" in s.reason)
    alone = build_report([partial], resamples=RESAMPLES)
    assert [r.composite.n for r in alone.leaderboard] == [1]


def test_every_form_of_the_report_says_first_what_it_compares_and_that_it_is_synthetic(
    tmp_path: Path, baseline_logs: Path
) -> None:
    """The bundled set, and a copy of some of its conversations (`baseline_logs`), are said to be
    synthetic; a data set of other conversations is not."""
    bundled_logs = tmp_path / "logs"
    eval(default(), model="attunebench/random", limit=2, display="none", log_dir=str(bundled_logs))
    report = build_report([bundled_logs], resamples=RESAMPLES)
    first = "Synthetic: not AttuneBench results. What this report compares"
    assert to_terminal(report).lstrip("\n").startswith(first)
    assert to_markdown(report).startswith(f"# AttuneBench report\n\n## {first}")
    html = to_html(report)
    assert html.index(first) < html.index("<h2>Figures</h2>")
    document = json.loads(to_json(report))
    assert document["notice"] == "synthetic: not AttuneBench results"
    assert document["compared"] == [
        {
            "task": "main task",
            "data_set": document["compared"][0]["data_set"],
            "synthetic": True,
            "conversations": 2,
            "epochs": 1,
            "reducer": "mean",
            "runs": 1,
            "set_aside": 0,
        }
    ]
    assert document["compared"][0]["data_set"].startswith("bundled synthetic set (data sha256 ")
    copied = build_report([baseline_logs], resamples=RESAMPLES)
    assert json.loads(to_json(copied))["notice"] == "synthetic: not AttuneBench results"
    other = tmp_path / "other"
    other.mkdir()
    raw = json.loads(sorted(BUNDLED.glob("*.json"))[0].read_text())
    raw["conversationId"] = "not-a-bundled-conversation"
    (other / "one.json").write_text(json.dumps(raw), encoding="utf-8")
    eval(default(data=str(other)), model="attunebench/random", display="none",
         log_dir=str(tmp_path / "other_logs"))  # fmt: skip
    plain = build_report([tmp_path / "other_logs"], resamples=RESAMPLES)
    assert json.loads(to_json(plain))["notice"] == ""
    assert to_terminal(plain).lstrip("\n").startswith("What this report compares")


def test_tokens_by_role_add_up_to_the_logs_usage_with_a_judge_panel(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(sorted(BUNDLED.glob("*.json"))[0], data)
    (log,) = eval(
        default(data=str(data)),
        model="attunebench/random",
        model_roles={"judge": "attunebench/majority", "judge_2": "attunebench/random"},
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    report = build_report([tmp_path / "logs"], resamples=RESAMPLES)
    (operations,) = report.operations
    roles = operations.tokens_by_role
    assert list(roles) == ["attunebench/random", "judge", "judge_2"]
    assert all(roles[r]["input"] > 0 for r in roles)
    header = read_eval_log(log.location, header_only=True)
    for kind, field in (("input", "input_tokens"), ("output", "output_tokens")):
        logged = sum(getattr(u, field) for u in header.stats.model_usage.values())
        assert sum(roles[r][kind] for r in roles) == logged
        assert roles["judge"][kind] == getattr(header.stats.role_usage["judge"], field)
    # Per conversation: every call, the judges' too.
    assert operations.tokens_per_conversation["input"] == sum(r["input"] for r in roles.values())
    text = to_terminal(report)
    assert "judge_2" in text


def test_the_terminal_report_fits_120_columns(logs: Path) -> None:
    text = to_terminal(build_report([logs], resamples=RESAMPLES))
    wide = [line for line in text.splitlines() if len(line) > WIDTH]
    assert [line for line in wide if not ONE_WORD_NOTE.match(line)] == []
    # A wrapped table keeps every row: each set-aside run's reason starts its own lines.
    assert text.count("set aside: a run over") == 3 and text.count("set aside: a run of") == 1


def test_the_third_party_report_fits_120_columns(
    tmp_path: Path, codebook: object, small_dataset: object
) -> None:
    data = tmp_path / "data"
    data.mkdir()
    for file in sorted(BUNDLED.glob("*.json"))[:4]:
        shutil.copy(file, data)
    world = World(codebook, data)  # type: ignore[arg-type]
    planted = dict(list(planted_models().items())[:3])
    world.run_models(data, planted, tmp_path / "logs")
    answers = tmp_path / "answers"
    answers.mkdir()
    files = [world.annotator(answers, name, *p) for name, p in FAITHFUL.items()]
    report = build_report([tmp_path / "logs"], third_party=files, resamples=RESAMPLES)
    text = to_terminal(report)
    assert "Third-party" in text
    wide = [line for line in text.splitlines() if len(line) > WIDTH]
    assert [line for line in wide if not ONE_WORD_NOTE.match(line)] == []
    # Three models: the Spearman matrix of every metric, its columns numbered, cuts no word.
    for table in tables(report):
        if table.rows:
            read_back(table)


def test_a_compare_side_left_empty_is_said_not_shown_as_rows_of_nothing(
    logs: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    everything = "turn_count>0"
    report = build_report([logs], compare=everything, resamples=RESAMPLES)
    assert report.subgroups == []
    text = to_terminal(report)
    assert "(n=0)" not in text
    assert (
        "No subgroup comparison: no conversation in the subgroup, or none in the rest: "
        "attunebench/majority (default), chance (default)." in " ".join(text.split())
    )
    assert main(["report", str(logs), "--compare", everything, "--resamples", "200"]) == 0
    assert "(n=0)" not in capsys.readouterr().out


def test_epochs_are_part_of_a_runs_identity(logs: Path) -> None:
    """A newer run of 2 epochs does not supersede the 1-epoch run the report ranks beside the
    1-epoch chance row: it is set aside, and metrics_df(ranked=True) reads what the report ranks
    (its mean Composite the leaderboard's), where metrics_df reads every log."""
    report = build_report([logs], resamples=RESAMPLES)
    by_log = {r.log: r for r in report.runs}
    ranked = metrics_df(logs, ranked=True)
    assert set(ranked["log"].map(lambda p: Path(p).as_uri())) == set(by_log)
    means = ranked.groupby("model")["composite"].mean()
    for row in report.leaderboard:
        model = "attunebench/random" if row.model == "chance" else row.model
        assert means[model] == pytest.approx(row.composite.estimate)
    every = metrics_df(logs)
    assert len(every) == len(ranked) + 1 + 1 + 1 + 3 * 2  # the runs set aside
    runs, skipped = read_runs([logs])
    assert sorted(r.epochs for r in runs if r.model == "attunebench/majority") == [1, 1, 2]
    assert not any(s.reason.startswith("superseded") for s in skipped)
