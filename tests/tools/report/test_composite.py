"""The Composite recomputed from a log agrees with the log's header, through the `composite` command
too."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from attunebench_inspect._suite.cli import main
from attunebench_inspect.tools.report._composite import agrees, run_composite
from attunebench_inspect.tools.report._logs import read_runs
from tests.runs import run_main


def test_composite_from_logs_agrees_with_header(
    small_dataset: Callable[[int], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    data = small_dataset(4)
    run_main(data, "attunebench/random")
    run_main(data, "attunebench/majority", epochs=2)
    runs, skipped = read_runs([data.parent / "logs"])
    assert skipped == []
    assert [r.model for r in runs] == ["attunebench/majority", "attunebench/random"]
    for run in runs:
        result = run_composite(run, resamples=2000)
        assert agrees(result)
        assert result.interval.low <= result.interval.estimate <= result.interval.high
    assert main(["composite", str(data.parent / "logs"), "--resamples", "500"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 3
