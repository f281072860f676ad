"""Logs in a store that several processes write: S3-compatible storage (a local moto server on
127.0.0.1) and a shared folder. Reports read it while another process is still writing."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval, eval_set
from inspect_ai.log import list_eval_logs
from loopback.endpoint import Endpoint, EndpointConfig

from attunebench_inspect import attunebench
from attunebench_inspect._suite.cli import main

BIN = Path(sys.executable).parent
S3_MISSING = "S3 tests need moto[server] and s3fs (pip install -e '.[dev]')"


@pytest.fixture(scope="module")
def s3_endpoint() -> Iterator[str]:
    """A local S3-compatible server for this module's tests."""
    server_module = pytest.importorskip("moto.server", reason=S3_MISSING)
    pytest.importorskip("s3fs", reason=S3_MISSING)
    server = server_module.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    yield f"http://{host}:{port}"
    server.stop()


@pytest.fixture
def s3_bucket(
    s3_endpoint: str, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> str:
    """A fresh bucket; s3fs (through Inspect) and subprocesses reach it through the standard
    AWS environment variables."""
    import boto3

    for name, value in {
        "AWS_ENDPOINT_URL": s3_endpoint,
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }.items():
        monkeypatch.setenv(name, value)
    bucket = re.sub(r"[^a-z0-9]+", "-", request.node.name.lower()).strip("-")[:63]
    boto3.client("s3").create_bucket(Bucket=bucket)
    return f"s3://{bucket}"


@pytest.fixture(params=["folder", "s3"])
def log_store(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A log location that several processes write: a shared folder or an S3 prefix."""
    if request.param == "folder":
        return str(tmp_path / "shared-logs")
    return f"{request.getfixturevalue('s3_bucket')}/sweep"


def _report_json(location: str, capsys: pytest.CaptureFixture[str]) -> tuple[dict[str, Any], str]:
    capsys.readouterr()
    assert main(["report", location, "--format", "json", "--resamples", "100"]) == 0
    out, err = capsys.readouterr()
    report: dict[str, Any] = json.loads(out)
    return report, err


def _wait_for_log(location: str, count: int, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while len(list_eval_logs(location)) < count:
        assert time.monotonic() < deadline, f"no log appeared in {location}"
        time.sleep(0.2)


def test_report_reads_s3_while_another_process_writes(
    s3_bucket: str, small_dataset: Callable[[int], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    data = small_dataset(1)
    logs = f"{s3_bucket}/logs"
    finished = eval(
        attunebench(data=str(data)), model="attunebench/majority", display="none", log_dir=logs
    )[0]
    assert finished.status == "success" and finished.location.startswith(logs)

    # A second run in another process, slowed by its provider: one call at a time, 0.5 s each
    # (17 calls: seconds more than the report below takes).
    with Endpoint(EndpointConfig(latency=0.5, max_seconds=120)) as endpoint:
        writer = subprocess.Popen(
            [
                str(BIN / "inspect"),
                "eval",
                "attunebench_inspect/default",
                "--model",
                "openai-api/local/endpoint",
                "--model-base-url",
                endpoint.base_url,
                "-T",
                f"data={data}",
                "--log-dir",
                logs,
                "--max-connections",
                "1",
                "--display",
                "none",
            ],
            env={**os.environ, "LOCAL_API_KEY": "local"},
        )
        try:
            _wait_for_log(logs, 2)
            report, err = _report_json(logs, capsys)
            assert [(r["model"], r["log"]) for r in report["runs"]] == [
                ("attunebench/majority", finished.location)
            ]
            assert "status started: still running" in err
            assert writer.wait(timeout=120) == 0
        finally:
            writer.kill()

    # Once it has finished, both runs are reported, and one remote log can be named alone.
    report, err = _report_json(logs, capsys)
    assert sorted(r["model"] for r in report["runs"]) == [
        "attunebench/majority",
        "openai-api/local/endpoint",
    ]
    assert "skipped" not in err
    assert main(["composite", finished.location]) == 0
    assert main(["report", f"{s3_bucket}/nothing-here"]) == 2
    assert f"no log file or folder at {s3_bucket}/nothing-here" in capsys.readouterr().err


def test_two_workers_share_one_log_store(
    log_store: str, small_dataset: Callable[[int], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """A models x modes sweep split between two processes, one model each, writing one store;
    one report at the end; a worker run again finds its runs complete and adds nothing."""
    data = small_dataset(2)

    def worker(model: str) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [
                str(BIN / "inspect"),
                "eval-set",
                "attunebench_inspect/default",
                "attunebench_inspect/verbose",
                "--model",
                model,
                "-T",
                f"data={data}",
                "--log-dir",
                log_store,
                # Each worker's eval set holds only its own tasks: the other's logs are allowed.
                "--log-dir-allow-dirty",
                "--id",
                "sweep",
                "--display",
                "none",
            ],
        )

    workers = [worker("attunebench/random"), worker("attunebench/majority")]
    assert [w.wait(timeout=300) for w in workers] == [0, 0]
    report, err = _report_json(log_store, capsys)
    runs = sorted((r["model"], r["mode"]) for r in report["runs"])
    assert runs == [
        ("attunebench/majority", "default"),
        ("attunebench/majority", "verbose"),
        # The random baseline is reported as the chance level.
        ("chance", "default"),
        ("chance", "verbose"),
    ]
    assert "skipped" not in err

    # The same worker again (here in this process): its runs are complete, nothing is added.
    logs = {info.name for info in list_eval_logs(log_store)}
    success, _ = eval_set(
        ["attunebench_inspect/default", "attunebench_inspect/verbose"],
        model="attunebench/random",
        task_args={"data": str(data)},
        log_dir=log_store,
        log_dir_allow_dirty=True,
        eval_set_id="sweep",
        display="none",
    )
    assert success
    assert {info.name for info in list_eval_logs(log_store)} == logs
