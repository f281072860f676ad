"""Logs the score tests share (one unit of work under pytest-xdist: tests/conftest.py)."""

from __future__ import annotations

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog

from attunebench_inspect import attunebench


@pytest.fixture(scope="session")
def bundled_baselines(tmp_path_factory: pytest.TempPathFactory) -> dict[str, EvalLog]:
    """Both offline baselines on the whole bundled set in default mode, by model: the runs the
    measured chance levels come from."""
    log_dir = tmp_path_factory.mktemp("bundled_baselines")
    logs = eval(
        [attunebench()],
        model=["attunebench/random", "attunebench/majority"],
        display="none",
        log_dir=str(log_dir),
    )
    return {str(log.eval.model): log for log in logs}
