"""The terminal report as a person reads it at 120 columns: every table of a rich report (two
models at two epochs with a judge panel beside a 1-epoch run set aside, the contamination probe
with the files layout, a profile run, a human run of one conversation, third-party answer files),
filtered and not, fits 120 columns, and no heading or cell is cut inside a word; what would
stand tall goes to numbered notes; the filters are said first."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from inspect_ai import eval

from attunebench_inspect import (
    Report,
    build_report,
    contamination,
    default,
    profile,
    to_json,
    to_terminal,
)
from attunebench_inspect._suite.cli import main
from attunebench_inspect._suite.render import tables
from attunebench_inspect.data import load_codebook
from tests.conftest import BUNDLED
from tests.human_answers import answer_file, oracle, page_of, split_all, write_json
from tests.runs import PANEL
from tests.terminal_text import read_back
from tests.third_party_world import FAITHFUL, World

RESAMPLES = 200


@pytest.fixture(scope="module")
def rich(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    """The log folder and the third-party answer files."""
    root = tmp_path_factory.mktemp("rich")
    data = root / "data"
    data.mkdir()
    for file in sorted(BUNDLED.glob("*.json"))[:3]:
        shutil.copy(file, data)
    logs = str(root / "logs")
    task = {"data": str(data)}
    eval(default(**task), model="attunebench/majority", display="none", log_dir=logs)
    for model in ("attunebench/random", "attunebench/majority"):
        eval(default(**task), model=model, epochs=2, model_roles=PANEL, display="none",
             log_dir=logs)  # fmt: skip
    eval(contamination(methods="guided,layout", **task), model="attunebench/majority",
         display="none", log_dir=logs)  # fmt: skip
    eval(contamination(**task), model="attunebench/random", display="none", log_dir=logs)
    eval(profile(**task), model="attunebench/random", display="none", log_dir=logs)
    codebook = load_codebook()
    conversations = split_all(data, codebook)
    first = sorted(conversations)[0]
    person = write_json(
        root / "answers.json",
        answer_file(
            "ann",
            {first: oracle(*conversations[first], codebook)},
            page=page_of([conversations[first][0]], codebook),
        ),
    )
    assert main(["human", "import", str(person), "--data", str(data), "--log-dir", logs]) == 0
    answers = root / "third_party"
    answers.mkdir()
    world = World(codebook, data)
    files = [world.annotator(answers, name, *p) for name, p in FAITHFUL.items()]
    return Path(logs), files


@pytest.mark.parametrize("where", [None, "turn_count>0"])
def test_every_table_of_a_rich_report_fits_120_columns_and_cuts_no_word(
    rich: tuple[Path, list[Path]], where: str | None
) -> None:
    logs, answers = rich
    report = build_report([logs], third_party=answers, where=where, resamples=RESAMPLES)
    shown = [t for t in tables(report) if t.rows]
    titles = " ".join(t.title for t in shown)
    for wanted in ("Leaderboard", "files-layout", "Humans beside", "leniency", "Profile", "Third"):
        assert wanted in titles
    for table in shown:
        read_back(table)
    # Beside the Composite, the verdict's word: a cannot decide's reason is in its section.
    board = next(t for t in shown if t.title.startswith("Leaderboard"))
    assert {(r[1], r[-1]) for r in board.rows} == {
        ("attunebench/majority", "cannot decide"),
        ("chance", "not suspected"),
    }
    # The human run answered one conversation: its estimates stand alone, with no interval.
    human = next(t for t in shown if t.title.startswith("Humans beside"))
    assert human.rows[0][5] == "100.00"


def test_long_reasons_and_locations_go_to_numbered_notes_each_once(
    rich: tuple[Path, list[Path]],
) -> None:
    logs, answers = rich
    said = to_terminal(build_report([logs], third_party=answers, resamples=RESAMPLES))
    leniency = said[said.index("Stability: each judge's leniency") :]
    leniency = leniency[: leniency.index("\n\n")]
    marks = re.findall(r"cannot decide \[(\d+)\]", leniency)
    # Every judge of the majority baseline's run cannot decide; each reason is said once.
    assert len(marks) > len(set(marks)) >= 1
    assert all(leniency.count(f"\n[{m}] ") == 1 for m in set(marks))
    skipped = said[said.index("Errored conversations and skipped logs") :]
    (location,) = [line for line in skipped.splitlines() if "file://" in line]
    assert re.fullmatch(r"\[\d+\] file://\S+\.eval", location)
    # The guided rule once under the verdicts, though two runs state it.
    assert said.count("Rule: suspected if the guided completions") == 1


def test_the_filters_are_said_first_and_set_aside_runs_name_model_and_mode(
    rich: tuple[Path, list[Path]],
) -> None:
    logs, _ = rich
    report: Report = build_report(
        [logs], where="turn_count>0", compare="group=any_diagnosis", resamples=RESAMPLES
    )
    text = to_terminal(report).lstrip("\n")
    first = text[: text.index("\n\n")]
    assert first.startswith(
        "Synthetic: not AttuneBench results. What this report compares, task version "
    )
    assert "conversations where turn_count>0" in first.splitlines()[0]
    assert "--where turn_count>0: every table reads only" in " ".join(first.split())
    assert "--compare group=any_diagnosis: the subgroup table" in " ".join(first.split())
    (aside,) = [s for s in report.skipped if s.reason.startswith("set aside: ")]
    assert (aside.model, aside.mode) == ("attunebench/majority", "default")
    assert aside.reason.startswith("set aside: a run of 1 epoch (--epochs), not comparable with")
    document = json.loads(to_json(report))
    main_task = next(c for c in document["compared"] if c["task"] == "main task")
    assert (main_task["epochs"], main_task["runs"], main_task["set_aside"]) == (2, 2, 1)
