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


def skipped_on_stderr(err: str) -> dict[str, str]:
    """The logs `attunebench report` and `composite` list as skipped on stderr: each log's
    location (the last line of its entry, on a line of its own) -> what the lines above it say,
    joined ("skipped <model> (<mode>): <reason>")."""
    entries: list[list[str]] = []
    for line in err.splitlines():
        if line.startswith("skipped"):
            entries.append([line])
        elif line.startswith("  ") and entries:
            entries[-1].append(line.strip())
    return {entry[-1]: " ".join(entry[:-1]) for entry in entries if len(entry) > 1}
