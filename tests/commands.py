"""The suite's commands as a shell runs them: a subprocess, its exit code and its output."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BIN = Path(sys.executable).parent


def run_command(*args: str, cwd: Path | None = None) -> tuple[int, str]:
    """A command's exit code and its stdout and stderr together, as a pipeline sees them: no
    terminal, so rich would wrap at 80 columns if the suite let it."""
    environment = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    result = subprocess.run(
        args, capture_output=True, text=True, timeout=300, cwd=cwd, env=environment
    )
    return result.returncode, result.stdout + result.stderr


def inspect_eval(task: str, *args: str, log_dir: Path) -> tuple[int, str]:
    return run_command(
        str(BIN / "inspect"),
        "eval",
        f"attunebench_inspect/{task}",
        "--model",
        "attunebench/random",
        "--log-dir",
        str(log_dir),
        *args,
    )
