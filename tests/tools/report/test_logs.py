"""Runs read back from logs: what is not an Inspect log is listed and the good logs reported."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from attunebench_inspect._suite.cli import main
from tests.commands import skipped_on_stderr


@pytest.mark.parametrize(
    "text", ['{"version": 2, "status": "success"}', "[1, 2]", '{"eval": 3}', "null"]
)
def test_json_that_is_not_a_log_is_listed_and_the_good_logs_reported(
    text: str, baseline_logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs = tmp_path / "logs"
    shutil.copytree(baseline_logs, logs)
    bogus = logs / "2099-01-01T00-00-00-00-00_default_NotALog.json"
    bogus.write_text(text, encoding="utf-8")
    for command in (["composite"], ["report", "--resamples", "50"]):
        assert main([*command, str(logs)]) == 0
        out = capsys.readouterr()
        assert "Traceback" not in out.err and "attunebench/random" in out.out + out.err
        assert [line for line in out.err.splitlines() if bogus.name in line] == [
            f"  {bogus.as_uri()}"
        ]
        assert skipped_on_stderr(out.err)[bogus.as_uri()].startswith(
            "skipped: not an Inspect log ("
        )
