"""The README, and every file that names the task version, print the current versions wherever
they say which ones their numbers were measured at, so a release cannot leave them behind."""

from __future__ import annotations

import json
import re
from importlib.metadata import version
from pathlib import Path

from attunebench_inspect._parameters import TASK_VERSION

README = Path(__file__).resolve().parents[2] / "README.md"
PACKAGE = Path(__file__).resolve().parents[2] / "src" / "attunebench_inspect"
MEASURED = re.compile(r"attunebench-inspect (\d+\.\d+\.\d+) \(task version (\d+-[A-Z])\)")


def test_the_readme_prints_the_current_package_and_task_versions() -> None:
    found = MEASURED.findall(README.read_text(encoding="utf-8"))
    assert found, "the Evaluation Report names the versions it was measured at"
    assert set(found) == {(version("attunebench-inspect"), TASK_VERSION)}


def test_every_file_that_names_the_task_version_names_the_current_one() -> None:
    """The measured chance levels are re-measured by the catalog's tests at the current code, so
    they state its version, as eval.yaml does."""
    levels = json.loads((PACKAGE / "score" / "chance_levels.json").read_text(encoding="utf-8"))
    assert levels["task_version"] == TASK_VERSION
