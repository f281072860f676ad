"""A real language model offline: llama-server + SmolLM2 through Inspect's openai-api provider.

Slow (gated: --runslow or RUN_SLOW_TESTS=1): the first run builds llama-server (about 4 minutes
on 2 cores). Measured 2026-11-22 with the build cached: 10m30s on 2 cores (1 conversation, the
CPU shared with another benchmark); too long for the default CI run.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

from attunebench_inspect import TASK_VERSION
from tests.conftest import REPO as ROOT


@pytest.mark.slow
def test_local_model_runs_one_conversation(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    env = {**os.environ, "LIMIT": "1", "LOG_DIR": str(logs), "PORT": "8099"}
    result = subprocess.run(
        [str(ROOT / "scripts" / "local-model.sh")],
        env=env,
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    assert f"Leaderboard, task version {TASK_VERSION}: Composite and pillars" in result.stdout
    runs = [read_eval_log(i.name, header_only=True) for i in list_eval_logs(str(logs))]
    local = next(r for r in runs if r.eval.model.startswith("openai-api/llamacpp/"))
    assert local.status == "success" and local.results is not None
    failure = next(s for s in local.results.scores if s.name == "parse_failure_rate")
    # Structured output through llama-server's json_schema support: failures should be rare.
    assert failure.metrics["mean"].value < 0.2
    # The server was stopped: nothing listens on the port any more.
    probe = subprocess.run(["curl", "-sf", "http://127.0.0.1:8099/health"], capture_output=True)
    assert probe.returncode != 0
