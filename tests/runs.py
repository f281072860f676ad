"""Offline runs of the main task, and a metric read back from a run's log header."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_ai import eval
from inspect_ai.log import EvalLog

from attunebench_inspect import attunebench

PANEL = {"judge": "attunebench/random", "judge_2": "attunebench/majority"}
"""A judge panel of the two offline baselines (model roles)."""


def run_main(data: Path, model: str, **kwargs: Any) -> EvalLog:
    log = eval(
        attunebench(data=str(data)),
        model=model,
        display="none",
        log_dir=str(data.parent / "logs"),
        **kwargs,
    )[0]
    assert log.status == "success"
    return log


def logged_metric(log: EvalLog, name: str, stat: str = "mean", scorer: str | None = None) -> float:
    assert log.results is not None
    for score in log.results.scores:
        if score.name == name and stat in score.metrics and scorer in (None, score.scorer):
            return score.metrics[stat].value
    raise KeyError(name)
