"""`attunebench report`: from logs of models of known skill to tables, JSON, HTML and plots."""

from __future__ import annotations

import csv
import dataclasses
import functools
import io
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlparse

import pytest
from inspect_ai import eval
from inspect_ai.log import (
    EvalLog,
    convert_eval_logs,
    list_eval_logs,
    read_eval_log,
    read_eval_log_sample_summaries,
    write_eval_log,
)
from inspect_ai.model import ChatMessage, GenerateConfig, get_model

from attunebench_inspect import (
    TASK_VERSION,
    Report,
    attunebench,
    build_report,
    contamination,
    metrics_df,
    to_html,
    to_json,
    to_markdown,
    to_terminal,
)
from attunebench_inspect._suite.cli import main
from attunebench_inspect.data import load_codebook
from attunebench_inspect.score._counts import metadata_counts
from attunebench_inspect.tools.report._analyses import Settings, composite_ci
from attunebench_inspect.tools.report._filters import FilterError, parse_filter
from attunebench_inspect.tools.report._log_fields import (
    RunHeader,
    SampleRow,
    read_header,
    read_sample_rows,
)
from attunebench_inspect.tools.report._logs import read_runs
from attunebench_inspect.tools.report._run_table import run_table
from tests.commands import skipped_on_stderr
from tests.conftest import BUNDLED
from tests.spy import Spy
from tests.truth_model import TruthModel

N_CONVERSATIONS = 10


@pytest.fixture(scope="session")
def logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Runs of known skill: chance, majority and two noisy copies of the truth, two modes,
    plus a failed run superseded by a retry and a run in which every sample errored, and the
    contamination probe of a memorizer and of chance."""
    return _known_skill_logs(tmp_path_factory.getbasetemp())


# Once a session: test_figures.py registers the fixtures of this module too, and pytest
# caches a fixture per module that declares it.
@functools.cache
def _known_skill_logs(base: Path) -> Path:
    root = base / "report"
    root.mkdir()
    data = root / "data"
    data.mkdir()
    for file in sorted(BUNDLED.glob("*.json"))[:N_CONVERSATIONS]:
        shutil.copy(file, data / file.name)
    out = str(root / "logs")
    codebook = load_codebook()
    task = {"data": str(data)}

    def broken(messages: list[ChatMessage], config: GenerateConfig) -> str:
        raise RuntimeError("provider unavailable")

    eval(
        attunebench(**task),
        model=Spy(answer=broken).model("broken"),
        display="none",
        log_dir=out,
        fail_on_error=False,
    )
    for mode in ("default", "verbose"):
        eval(
            attunebench(mode=mode, **task), model="attunebench/random", display="none", log_dir=out
        )
        for noise in (0.2, 0.7):
            truth = TruthModel(data, codebook, noise)
            eval(
                attunebench(mode=mode, **task),
                model=truth.model(f"truth-{noise}"),
                display="none",
                log_dir=out,
            )
    eval(attunebench(**task), model="attunebench/majority", display="none", log_dir=out)
    # The contamination probe beside them: a planted positive and the chance model.
    for model in (
        get_model("memorizer/recall", data=str(data), share=0.5, memoize=False),
        get_model("attunebench/random"),
    ):
        eval(contamination(**task), model=model, display="none", log_dir=out)
    return root / "logs"


@pytest.fixture(scope="session")
def report(logs: Path) -> Report:
    return build_report([logs], resamples=2000, compare="group=any_diagnosis")


def test_known_orderings(report: Report) -> None:
    composite = {(r.model, r.mode): r.composite.estimate for r in report.leaderboard}
    for mode in ("default", "verbose"):
        assert (
            composite[("mockllm/truth-0.2", mode)]
            > composite[("mockllm/truth-0.7", mode)]
            > composite[("chance", mode)]
        )
    assert composite[("attunebench/majority", "default")] > composite[("chance", "default")]
    default = [r.model for r in report.leaderboard if r.mode == "default"]
    assert default[0] == "mockllm/truth-0.2" and default[-1] == "chance"
    assert report.composite("mockllm/truth-0.2") == composite[("mockllm/truth-0.2", "default")]
    split = next(s for s in report.capability if s.mode == "default")
    assert split.leaders["pairwise_accuracy"] == "mockllm/truth-0.2"
    assert "chance" not in split.models


def test_errored_runs_are_reported_not_fatal(report: Report) -> None:
    reasons = " ".join(s.reason for s in report.skipped)
    assert "no sample was scored (every sample errored)" in reasons
    assert all(run.model != "mockllm/broken" for run in report.runs)


def test_newest_successful_log_wins(logs: Path, tmp_path: Path) -> None:
    copy = tmp_path / "logs"
    shutil.copytree(logs, copy)
    runs, _ = read_runs([copy])
    newest = Path(urlparse(next(r.location for r in runs if r.mode == "default")).path)
    failed = copy / newest.name.replace("T", "T00", 1)  # an older-looking name, same content
    shutil.copy(newest, failed)
    again = build_report([copy], resamples=500)
    keys = [(r.model, r.mode) for r in again.runs]
    assert len(keys) == len(set(keys))
    assert any(s.reason == "superseded by a newer successful log" for s in again.skipped)


def test_a_log_that_cannot_be_read_yet_is_listed_and_the_rest_reported(
    logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A log cut short (a copy stopped mid-way, a writer not done) beside good ones: one line
    naming it, and every good run reported as without it."""
    copy = tmp_path / "logs"
    shutil.copytree(logs, copy)
    whole = sorted(copy.glob("*.eval"))[0].read_bytes()
    cut = copy / "2099-01-01T00-00-00-00-00_default_cut.eval"
    cut.write_bytes(whole[: len(whole) // 2])
    empty = copy / "2099-01-01T00-00-01-00-00_default_empty.eval"
    empty.write_bytes(b"")
    reason = (
        "cannot be read: still being written, or not a whole log "
        "(BadZipFile: File is not a zip file)"
    )
    assert main(["composite", str(logs), "--resamples", "100"]) == 0
    expected = capsys.readouterr().out
    assert main(["composite", str(copy), "--resamples", "100"]) == 0
    out = capsys.readouterr()
    assert out.out.replace(str(copy), str(logs)) == expected
    skipped = skipped_on_stderr(out.err)
    assert {k: v for k, v in skipped.items() if "_cut.eval" in k or "_empty.eval" in k} == {
        cut.as_uri(): f"skipped: {reason}",
        empty.as_uri(): f"skipped: {reason}",
    }
    assert main(["report", str(copy), "--resamples", "100", "--format", "json"]) == 0
    runs = json.loads(capsys.readouterr().out)["runs"]
    assert len(runs) == len(read_runs([logs])[0])


def test_fast_reader_agrees_with_inspects_reader(logs: Path, tmp_path: Path) -> None:
    """Finished local .eval logs are read from their members directly; any other log through
    Inspect's readers. Both give the same records, and the same report."""
    locations = [info.name for info in list_eval_logs(str(logs))]
    assert locations
    for location in locations:
        # As JSON: logged metrics can be NaN, which never equals itself.
        header = read_eval_log(location, header_only=True)
        assert (
            read_header(location).model_dump_json()
            == RunHeader.model_validate(header).model_dump_json()
        )
        if header.status == "success":
            general = read_eval_log_sample_summaries(location)
            assert [r.model_dump_json() for r in read_sample_rows(location)] == [
                SampleRow.model_validate(s).model_dump_json() for s in general
            ]
    as_json = tmp_path / "json"
    convert_eval_logs(str(logs), "json", str(as_json))
    assert not list(as_json.glob("*.eval"))

    def without_locations(report: Report) -> str:
        return to_json(dataclasses.replace(report, runs=[], skipped=[]))

    fast, general = build_report([logs], resamples=500), build_report([as_json], resamples=500)
    assert without_locations(fast) == without_locations(general)
    assert [(r.model, r.mode) for r in fast.runs] == [(r.model, r.mode) for r in general.runs]


def test_distinguishability_and_paired_intervals(report: Report) -> None:
    counts = report.distinguished["default"]["composite"]
    assert counts[1] == 3  # truth-0.2, truth-0.7, majority (chance is the reference row)
    pair = next(
        p
        for p in report.distinguishability
        if p.mode == "default"
        and p.metric == "composite"
        and {p.model_a, p.model_b} == {"mockllm/truth-0.2", "mockllm/truth-0.7"}
    )
    assert pair.distinguished


def test_perspective_drift_and_deltas(report: Report) -> None:
    labels = {g.label for g in report.perspective}
    assert labels == {"OM - HP", "OM: observer - HP-facing", "HP: observer - HP-facing"}
    pooled = [d for d in report.drift if d.model == "all models" and d.mode == "default"]
    assert {d.metric for d in pooled} >= {"binary_om_accuracy", "emotion_va"}
    assert all(sum(d.turns) > 0 for d in pooled)
    deltas = {(d.model, d.mode, d.metric) for d in report.mode_deltas}
    assert ("mockllm/truth-0.2", "verbose", "composite") in deltas
    wins = next(w for w in report.win_rates if w.mode == "default")
    assert wins.rates["mockllm/truth-0.2"]["mockllm/truth-0.7"] > 0.5


def test_subgroup_filters_select_the_right_conversations(report: Report, logs: Path) -> None:
    diagnosed = sum(
        1
        for f in sorted(BUNDLED.glob("*.json"))[:N_CONVERSATIONS]
        if json.loads(f.read_text())["participant_profile"]["demographics"]["diagnoses"]
        != ["None of the above"]
    )
    row = next(
        s
        for s in report.subgroups
        if s.model == "chance" and s.mode == "default" and s.metric == "composite"
    )
    assert (row.inside.n, row.rest.n) == (diagnosed, N_CONVERSATIONS - diagnosed)
    facts = {
        "diagnoses": ["ADHD"],
        "category": "Work",
        "computed_scores": {"promis_anxiety_t": 61.0},
        "demographics": {"gender": "Female"},
    }
    assert parse_filter("group=asd_adhd")(facts)
    assert not parse_filter("group=anxdep")(facts)
    assert parse_filter("computed_scores.promis_anxiety_t>=60 and category=work")(facts)
    assert parse_filter("demographics.gender=male or diagnoses~adh")(facts)
    assert not parse_filter("diagnoses=none")(facts)
    with pytest.raises(FilterError, match="unknown group 'anx'"):
        parse_filter("group=anx")
    with pytest.raises(FilterError, match="cannot read the filter clause"):
        parse_filter("diagnoses")
    # A misspelt field would select nothing without a word: it is an error naming the fields.
    with pytest.raises(FilterError, match=r"unknown field 'categry'; known: category, .*group"):
        parse_filter("turn_count<=5 and categry=Work")
    with pytest.raises(FilterError, match=r"needs a key: demographics\.<key>"):
        parse_filter("demographics=Female")
    with pytest.raises(FilterError, match="category has no keys"):
        parse_filter("category.name=Work")


def test_intervals_narrow_with_more_conversations(logs: Path) -> None:
    runs, _ = read_runs([logs])
    table = run_table(
        next(r for r in runs if r.model == "attunebench/random" and r.mode == "default")
    )
    # The same distribution with twice the conversations: the CI narrows by about 1/sqrt(2).
    doubled = dataclasses.replace(
        table,
        conversations={
            **table.conversations,
            **{f"{k}-copy": v for k, v in table.conversations.items()},
        },
    )
    settings = Settings(resamples=4000, seed=0)
    single = composite_ci(table, table.ids, settings)
    double = composite_ci(doubled, doubled.ids, settings)
    assert double.estimate == pytest.approx(single.estimate)
    ratio = (double.high - double.low) / (single.high - single.low)
    assert 0.6 < ratio < 0.8
    fewer = build_report([logs], resamples=500, where="turn_count<=5")
    chance = next(r for r in fewer.leaderboard if r.model == "chance" and r.mode == "default")
    assert chance.composite.n < N_CONVERSATIONS


def test_output_is_deterministic(logs: Path, report: Report) -> None:
    again = build_report([logs], resamples=2000, compare="group=any_diagnosis")
    assert to_json(again) == to_json(report)
    assert to_markdown(again) == to_markdown(report)
    data = json.loads(to_json(report))
    leader = data["leaderboard"][0]
    assert set(leader["composite"]) == {"estimate", "low", "high", "n"}


def test_html_is_self_contained(report: Report) -> None:
    page = to_html(report)
    assert (
        page.startswith("<!DOCTYPE html>") and page.count("<img src='data:image/png;base64,") >= 8
    )
    assert "http://" not in page and "https://" not in page
    assert "<script" not in page and "<link" not in page


def test_tables_that_cannot_say_anything_say_why(logs: Path) -> None:
    """One model in one mode: no pairs, ranks or mode deltas. Each such table is its title and
    one line saying why, not empty headers."""
    runs, _ = read_runs([logs])
    one = next(r for r in runs if r.model == "mockllm/truth-0.2" and r.mode == "default")
    report = build_report([one.location], resamples=200)  # a file:// URI, as Run.location is
    text, markdown = to_terminal(report), to_markdown(report)
    pairs = "No model pairs: a pair needs two models besides chance in a mode (default: 1)."
    assert f"Distinguishability: model pairs whose paired 95% CI excludes 0\n{pairs}\n" in text
    assert (
        f"## Distinguishability: model pairs whose paired 95% CI excludes 0\n\n{pairs}" in markdown
    )
    assert "model A  model B" not in text and "| model A | model B |" not in markdown
    assert "Needs 3 models besides chance in this mode; the logs have 1." in text
    assert "No mode deltas: the logs have one mode (default); run another." in text
    assert f"<p class='note'>{pairs}</p>" in to_html(report)


def test_contamination_sits_beside_the_composite_and_never_inside_it(
    logs: Path, report: Report, capsys: pytest.CaptureFixture[str]
) -> None:
    """The probe's runs give one verdict per model, beside its Composite in each mode; they are
    never read as runs of the main task (leaderboard, `attunebench composite`, metrics_df)."""
    verdicts = {c.model: c.contamination.verdict for c in report.contamination}
    assert verdicts == {"chance": "not suspected", "memorizer/recall": "suspected"}
    chance = next(c for c in report.contamination if c.model == "chance")
    assert chance.composite == {
        r.mode: r.composite for r in report.leaderboard if r.model == "chance"
    }
    assert set(chance.composite) == {"default", "verbose"}
    assert chance.contamination.instances > 10 and chance.contamination.seed == 0
    assert all(r.model != "memorizer/recall" for r in report.leaderboard)
    assert {(r.model, r.mode) for r in report.runs if r.mode == "contamination"} == {
        ("chance", "contamination"),
        ("memorizer/recall", "contamination"),
    }
    text = to_terminal(report)
    # The terminal wraps a table wider than 120 columns: the leaderboard's rows are read whole
    # from its Markdown form.
    board = next(b for b in to_markdown(report).split("## ") if b.startswith("Leaderboard"))
    lines = board.splitlines()
    assert lines[2].endswith("| contamination |")
    rows = {line.split(" | ")[1]: line for line in lines if line.startswith("| default |")}
    assert rows["chance"].endswith("| not suspected |")
    assert rows["mockllm/truth-0.2"].endswith("| not probed |")
    section = text[text.index("Contamination: has the model seen these conversations?") :]
    assert "memorizer/recall  suspected" in section and "Rule: suspected if" in section
    data = json.loads(to_json(report))["contamination"]
    assert {e["model"]: e["contamination"]["verdict"] for e in data} == verdicts
    assert main(["composite", str(logs), "--resamples", "100"]) == 0
    assert "memorizer/recall" not in capsys.readouterr().out
    frame = metrics_df(logs)
    assert len(frame) and not any("contamination" in c or "rouge" in c for c in frame.columns)
    assert not frame["log"].str.contains("_contamination_").any()


def test_without_a_probe_the_section_says_how_to_run_one(logs: Path) -> None:
    runs, _ = read_runs([logs])
    one = next(r for r in runs if r.model == "mockllm/truth-0.2" and r.mode == "default")
    text = to_terminal(build_report([one.location], resamples=200))
    # The line wraps at 120 columns.
    assert (
        "Contamination: has the model seen these conversations? No contamination probe among "
        "the logs: `inspect eval attunebench_inspect/contamination --model MODEL` checks whether "
        "a model has seen the conversations (docs/contamination.md)."
    ) in " ".join(text.split())
    assert "not probed" not in text


def test_report_command_formats(
    logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    html = tmp_path / "report.html"
    assert main(["report", str(logs), "--resamples", "300", "--html", str(html)]) == 0
    out = capsys.readouterr()
    assert (
        f"Leaderboard, task version {TASK_VERSION}: Composite and pillars" in out.out
        and html.exists()
    )
    assert "no sample was scored" in out.err
    assert main(["report", str(logs), "--resamples", "300", "--format", "csv"]) == 0
    rows = list(csv.reader(io.StringIO(capsys.readouterr().out)))
    # The report opens with what it compares; the leaderboard's rows follow.
    assert rows[0][:3] == ["table", "task", "data set"]
    assert ["table", "mode", "model"] in [row[:3] for row in rows]
    target = tmp_path / "r.json"
    assert (
        main(
            [
                "report",
                str(logs),
                "--resamples",
                "300",
                "--format",
                "json",
                "-o",
                str(target),
                "--diagnostics",
            ]
        )
        == 0
    )
    metrics = json.loads(target.read_text())["leaderboard"][0]["metrics"]
    assert "emotion_hit_rate" in metrics
    assert main(["report", str(logs), "--where", "nonsense"]) == 2
    assert "cannot read the filter clause" in capsys.readouterr().err
    assert main(["report", str(logs), "--where", "categry=Work"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[-1].startswith("attunebench report: unknown field 'categry'; known: category,")
    assert main(["report", str(logs), "--resamples", "100", "--where", "category=None such"]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == (
        "attunebench report: --where 'category=None such' matches no conversation in 7 runs"
    )


# --- task versions in one report, and logs of the 3-A format --------------------------------------


def _rewrite(source: str, target: Path, edit: Callable[[EvalLog], None]) -> None:
    log = read_eval_log(source)
    edit(log)
    write_eval_log(log, str(target))


def test_runs_of_different_task_versions_are_never_ranked_together(
    logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = tmp_path / "logs"
    shutil.copytree(logs, copy)
    runs, _ = read_runs([copy])
    old = next(r for r in runs if r.model == "attunebench/majority")
    old_file = Path(urlparse(old.location).path)

    def older(log: EvalLog) -> None:
        log.eval.task_version = "2-A"

    _rewrite(str(old_file), old_file, older)
    report = build_report([copy], resamples=100)
    assert report.task_version == TASK_VERSION
    assert report.versions == {TASK_VERSION: len(runs) - 1, "2-A": 1}
    assert "attunebench/majority" not in [r.model for r in report.runs]
    (skipped,) = [s for s in report.skipped if s.location == old.location]
    assert (skipped.model, skipped.mode) == ("attunebench/majority", "default")
    assert skipped.reason == (
        f"task version 2-A: not ranked with the {TASK_VERSION} runs (scores of different task "
        "versions are not comparable); report it with --task-version 2-A"
    )
    text = to_terminal(report)
    assert f"Leaderboard, task version {TASK_VERSION}: Composite and pillars" in text
    assert f"Metrics (default, task version {TASK_VERSION}), 95% bootstrap CI" in text
    assert "the logs also hold 2-A (1 run), listed as skipped" in text
    only_old = build_report([copy], resamples=100, task_version="2-A")
    assert [r.model for r in only_old.runs] == ["attunebench/majority"]
    assert main(["report", str(copy), "--task-version", "9-Z"]) == 2
    assert capsys.readouterr().err.strip() == (
        "attunebench report: --task-version 9-Z: no run of that version "
        f"(present: 2-A, {TASK_VERSION})"
    )


def test_logs_of_the_3a_format_report_as_they_did(logs: Path, tmp_path: Path) -> None:
    """Before 3-B every count was in `Score.value`; the report reads them there too."""
    runs, _ = read_runs([logs])
    run = next(r for r in runs if r.model == "attunebench/majority" and r.mode == "default")

    def as_3a(log: EvalLog) -> None:
        log.eval.task_version = "3-A"
        for sample in log.samples or []:
            for score in (sample.scores or {}).values():
                counts = metadata_counts(score.metadata)
                if counts and isinstance(score.value, dict):
                    score.value = {**score.value, **counts}
                    score.metadata = {
                        k: v for k, v in (score.metadata or {}).items() if k not in counts
                    }

    old = tmp_path / "old" / Path(urlparse(run.location).path).name
    old.parent.mkdir()
    _rewrite(run.location, old, as_3a)
    (old_run,), _ = read_runs([old.parent])
    new_table, old_table = run_table(run), run_table(old_run)
    assert old_table.ids == new_table.ids
    for cid, conversation in new_table.conversations.items():
        old_values = old_table.conversations[cid].values
        assert old_values.keys() == conversation.values.keys()
        for key, value in conversation.values.items():
            assert old_values[key] == pytest.approx(value, nan_ok=True), key
    assert {"om_n", "tau_defined", "calls"} <= set(
        next(iter(old_table.conversations.values())).values
    )
