"""`make run`, the README's first command: a run that scores no sample stops before the report."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from tests.commands import run_command
from tests.conftest import REPO


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_run_stops_when_no_sample_is_scored(tmp_path: Path) -> None:
    code, output = run_command(
        "make",
        "-o",
        ".venv/.installed",
        "run",
        "ARGS=--limit 0 --display none",
        f"LOG_DIR={tmp_path}",
        cwd=REPO,
    )
    assert code != 0
    assert re.search(
        r"\.eval: status success, 0 sample\(s\) completed; stopping before the report$",
        output,
        re.MULTILINE,
    )
    assert not (tmp_path / "report.html").exists()
