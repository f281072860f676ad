"""A new instrument is its folder and one registration line (ARCHITECTURE.md, "Adding an
instrument"): a toy one, written here as a package of its own and registered by that one line
(`INSTRUMENTS` gains its record), reaches every place the suite assembles: the main task's
scorers and its log, the report's JSON, terminal and order of sections, `build_report`'s and
`attunebench report`'s options, the estimate's flags, the `attunebench` command and the metric
catalog."""

from __future__ import annotations

import importlib
import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from inspect_ai import eval
from inspect_ai.util import registry_info

from attunebench_inspect import build_report, instruments, to_json, to_terminal
from attunebench_inspect._suite.cli import main
from attunebench_inspect.attunebench import attunebench

TOY = '''
"""A toy instrument: the suite's assembly seen from one folder."""

from dataclasses import dataclass

from inspect_ai.scorer import Score, Target, mean, scorer

from attunebench_inspect.instruments.contamination import INSTRUMENT as CONTAMINATION
from attunebench_inspect.tools._instrument import Catalog, Instrument, Options, Reported
from attunebench_inspect.tools.estimate import PricedTask
from attunebench_inspect.tools.report._build import Part, Report
from attunebench_inspect.tools.report._sections.base import Section
from attunebench_inspect.tools.report._table import Table


@dataclass(frozen=True)
class ToyPart(Part):
    toy: list[str]


def toy_part(scope):
    label = scope.options.get("toy_label") or "toy"
    return Reported(ToyPart([f"{label}: {row.model}" for row in scope.main.leaderboard]))


def _tables(report: Report):
    seen = report.part(ToyPart).toy
    return [Table("Toy: the models it saw", ["model"], [[m] for m in seen])]


@scorer(metrics=[mean()], name="toy_scorer")
def toy_scorer(codebook=None):
    async def score(state, target: Target) -> Score:
        return Score(value=1.0)

    return score


def _add_toy(commands):
    toy = commands.add_parser("toy", help="the toy instrument's command")
    toy.set_defaults(run=lambda args: print("toy ran") or 0)


def _options(parser):
    parser.add_argument("--toy-label")


INSTRUMENT = Instrument(
    name="toy",
    doc="ARCHITECTURE.md",
    report=toy_part,
    section=Section("toy", _tables),
    after="leaderboard",
    main_task_scorers=(toy_scorer,),
    priced=(PricedTask("toy", "bill it", "toy: as the probe", CONTAMINATION.priced[0].requests),),
    commands=(_add_toy,),
    catalog=Catalog(lambda: ["### Toy metrics", "", "| toy_metric | always 1 |"]),
    options=Options(("toy_label",), _options, lambda args: None),
)
'''


@pytest.fixture()
def toy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    folder = tmp_path / "toy_instrument"
    folder.mkdir()
    (folder / "__init__.py").write_text(textwrap.dedent(TOY), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("toy_instrument")
    # The one registration line.
    monkeypatch.setattr(instruments, "INSTRUMENTS", (*instruments.INSTRUMENTS, module.INSTRUMENT))
    yield module
    sys.modules.pop("toy_instrument", None)


def test_a_toy_instrument_joins_the_suite_by_its_record(
    toy: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # The main task scores with its scorer, and the log keeps the score.
    task = attunebench()
    assert "toy_scorer" in {registry_info(s).name for s in task.scorer}
    log = eval(task, model="attunebench/random", limit=1, display="none", log_dir=str(tmp_path))[0]
    assert log.status == "success" and log.results is not None
    assert "toy_scorer" in {s.name for s in log.results.scores}
    # Its part of the report: a key of the JSON, a table after the leaderboard, an option.
    report = build_report([tmp_path], resamples=50, toy_label="seen")
    assert json.loads(to_json(report))["toy"] == ["seen: chance"]
    assert report.toy == ["seen: chance"]
    text = to_terminal(report)
    # After the leaderboard and the instruments placed there before it, before the next
    # section of the main task.
    order = [text.index(t) for t in ("Leaderboard", "Contamination", "Toy:", "Perspective gap")]
    assert order == sorted(order)
    with pytest.raises(TypeError, match="unknown option"):
        build_report([tmp_path], resamples=50, toy_colour="red")
    assert main(["report", str(tmp_path), "--resamples", "50", "--toy-label", "cli"]) == 0
    assert "cli: chance" in capsys.readouterr().out
    # Its command, its flag on the estimate, its metrics in the catalog.
    assert main(["toy"]) == 0 and "toy ran" in capsys.readouterr().out
    priced = ["estimate", "--toy", "--model", "m", "--price-in", "1", "--price-out", "1"]
    assert main([*priced, "--tokenizer", "chars"]) == 0
    assert "\ntoy " in capsys.readouterr().out
    assert main(["metrics"]) == 0 and "| toy_metric | always 1 |" in capsys.readouterr().out
