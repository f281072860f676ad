"""The README prints the package's and the task's current versions wherever it says which ones
its numbers were measured at (the Evaluation Report's line), so a release cannot leave them
behind."""

from __future__ import annotations

import re
from importlib.metadata import version
from pathlib import Path

from attunebench_inspect._parameters import TASK_VERSION

README = Path(__file__).resolve().parents[2] / "README.md"
MEASURED = re.compile(r"attunebench-inspect (\d+\.\d+\.\d+) \(task version (\d+-[A-Z])\)")


def test_the_readme_prints_the_current_package_and_task_versions() -> None:
    found = MEASURED.findall(README.read_text(encoding="utf-8"))
    assert found, "the Evaluation Report names the versions it was measured at"
    assert set(found) == {(version("attunebench-inspect"), TASK_VERSION)}
