"""What an attacker met, class by class: each bad input is one located line under the entry point
that takes it, nothing partial is left behind, and nothing is lost; a chance row reruns as
chance does."""

from __future__ import annotations

import errno
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Epochs, eval, score
from inspect_ai.log import read_eval_log, write_eval_log
from inspect_ai.model import GenerateConfig, get_model
from inspect_ai.util import Store
from loopback.endpoint import Endpoint, EndpointConfig

from attunebench_inspect import build_report, default, to_terminal
from attunebench_inspect._parameters import TASK_VERSION, check_command_line
from attunebench_inspect._suite.cli import main
from attunebench_inspect._util import files
from attunebench_inspect._util.files import write_atomic
from attunebench_inspect.data._codebook import load_codebook
from attunebench_inspect.data._load import load_conversations
from attunebench_inspect.data._problems import InputError
from attunebench_inspect.data._source import resolve
from attunebench_inspect.instruments.contamination._dataset import probe_data
from attunebench_inspect.instruments.contamination._layout import LAYOUT_MAX_TURNS
from attunebench_inspect.instruments.contamination._rules import LAYOUT
from attunebench_inspect.instruments.contamination._solver import layout_of
from attunebench_inspect.instruments.human._imports import check_files
from attunebench_inspect.score._scorers import NOT_THE_MAIN_TASK, draft_rejudge
from attunebench_inspect.solve._store import read_walk
from attunebench_inspect.tools.estimate import _bill
from tests.conftest import BUNDLED

ENDPOINT_MODEL = "openai-api/local/endpoint"
INSPECT = str(Path(sys.executable).parent / "inspect")


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "INSPECT_LOG_DIR"}
    return subprocess.run(
        [INSPECT, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def _said(done: subprocess.CompletedProcess[str]) -> list[str]:
    """The non-blank lines a command printed, without Inspect's colour codes."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + done.stderr)
    return [line.strip() for line in text.splitlines() if line.strip()]


# --- task and model arguments ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("task", "args", "line"),
    [
        (
            "attunebench_inspect/attunebench",
            {"mode": [1, 2]},
            "mode must be one of default, verbose, omniscient, verbose_omniscient; got [1, 2]",
        ),
        (
            "attunebench_inspect/contamination",
            {"model": "foo"},
            "unknown task parameter(s): model; the parameters are data, codebook, seed, "
            "skip_invalid, methods, likelihood_control (the model under test is --model, not -T "
            "model=)",
        ),
    ],
)
def test_a_bad_task_argument_is_one_line_and_no_log(
    task: str, args: dict[str, Any], line: str, tmp_path: Path
) -> None:
    with pytest.raises(InputError) as raised:
        eval(
            task, task_args=args, model="attunebench/random", display="none", log_dir=str(tmp_path)
        )
    assert str(raised.value) == line
    assert not list(tmp_path.glob("*.eval"))


def test_bad_model_arguments_and_role_names_are_one_line(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"^-M seed must be an integer; got 'notanint'$"):
        get_model("attunebench/random", seed="notanint", memoize=False)
    with pytest.raises(InputError, match=r"^unknown -M argument\(s\) of attunebench/random: sed"):
        get_model("attunebench/random", sed=1, memoize=False)
    for role in ("Judge", "JUDGE"):
        with pytest.raises(InputError) as raised:
            eval(
                "attunebench_inspect/default",
                model="attunebench/random",
                model_roles={role: "attunebench/majority"},
                limit=1,
                display="none",
                log_dir=str(tmp_path),
            )
        assert str(raised.value).startswith(
            f"model role {role}: not a judge role (role names are case-sensitive); the judge "
            "panel's roles are judge, judge_2, judge_3, ..."
        )
    assert not list(tmp_path.glob("*.eval"))


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (["eval", "x", "--epochs", "0"], "--epochs 0: the number of epochs must be 1 or more"),
        (["eval-set", "x", "--epochs=-1"], "--epochs -1: the number of epochs must be 1 or more"),
        (
            ["eval", "x", "--limit", "0-3"],
            "--limit 0-3: a range FIRST-LAST counts conversations from 1, its first at most its "
            "last (--limit 3-10: the 3rd to the 10th); this one selects none",
        ),
        (["eval-set", "x", "--limit=5-2"], "--limit 5-2: a range FIRST-LAST counts conversations"),
        (
            ["eval", "x", "--model-base-url", "http://user:s3cret@host/v1"],
            "--model-base-url http://user:***@host/v1 carries credentials, which Inspect would "
            "write into the log header",
        ),
    ],
)
def test_the_inspect_command_line_is_checked_before_inspect_acts_on_it(
    argv: list[str], line: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys, "argv", ["/venv/bin/inspect", *argv])
    with pytest.raises(InputError) as raised:
        check_command_line()
    assert str(raised.value).startswith(line) and "s3cret" not in str(raised.value)
    # Under Python's eval() the command line is another program's: nothing is read from it.
    monkeypatch.setattr(sys, "argv", ["script.py", *argv])
    check_command_line()


def test_a_credential_in_a_models_base_url_never_reaches_the_log(tmp_path: Path) -> None:
    model = get_model(
        "openai-api/local/x", base_url="http://user:s3cret@127.0.0.1:9/v1", api_key="k",
        memoize=False,
    )  # fmt: skip
    with pytest.raises(InputError) as raised:
        eval("attunebench_inspect/default", model=model, display="none", log_dir=str(tmp_path))
    assert "http://user:***@127.0.0.1:9/v1 carries credentials" in str(raised.value)
    assert not list(tmp_path.glob("*"))


def test_cli_lines_carry_no_traceback_and_leave_no_log(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    for args, line in (
        (
            ["-T", "mode=[1,2]"],
            "mode must be one of default, verbose, omniscient, verbose_omniscient; got [1, 2]",
        ),
        (["--epochs", "0"], "--epochs 0: the number of epochs must be 1 or more"),
    ):
        task = "attunebench_inspect/attunebench" if "-T" in args else "attunebench_inspect/default"
        done = _cli("eval", task, "--model", "attunebench/random", *args, "--log-dir", str(logs),
                    cwd=tmp_path)  # fmt: skip
        said = _said(done)
        assert any(s.startswith(line) for s in said), said
        assert "Traceback" not in done.stderr and not logs.exists()


# --- eval-retry of another task version's log ------------------------------------------------


def test_eval_retry_of_another_task_versions_log_is_refused_and_writes_nothing(
    tmp_path: Path, baseline_logs: Path
) -> None:
    log = read_eval_log(str(sorted(baseline_logs.glob("*.eval"))[0]))
    log.eval.task_version = "2-A"
    log.status = "error"
    old = tmp_path / "old_default.eval"
    write_eval_log(log, str(old))
    done = _cli("eval-retry", str(old), "--log-dir", str(tmp_path), cwd=tmp_path)
    said = _said(done)
    assert any(
        s.startswith(
            f"{old}: a log of task version 2-A cannot be resumed at task version {TASK_VERSION}"
        )
        for s in said
    ), said
    assert "Traceback" not in done.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["old_default.eval"]


# --- re-judging the wrong log, and a failing judge --------------------------------------------


def test_draft_rejudge_refuses_a_log_of_another_task_in_one_line_and_writes_nothing(
    tmp_path: Path,
) -> None:
    (profile,) = eval(
        "attunebench_inspect/profile", model="attunebench/random", limit=1, display="none",
        log_dir=str(tmp_path),
    )  # fmt: skip
    before = Path(profile.location).read_bytes()
    rejudge = ["--scorer", "attunebench_inspect/draft_rejudge", "-S", "judge=attunebench/majority"]
    done = _cli("score", profile.location, *rejudge, "--action", "append", "--overwrite",
                cwd=tmp_path)  # fmt: skip
    sample = read_eval_log(profile.location).samples[0].id  # type: ignore[index]
    assert NOT_THE_MAIN_TASK.format(id=sample) in _said(done)
    assert "Traceback" not in done.stderr
    assert Path(profile.location).read_bytes() == before
    with pytest.raises(InputError, match=r"^draft_rejudge needs a judge: .*; got ''$"):
        score(profile, draft_rejudge(judge=""))


def _one_conversation(tmp_path: Path) -> Path:
    data = tmp_path / "data"
    data.mkdir()
    shutil.copy(sorted(BUNDLED.glob("*.json"))[0], data)
    return data


def test_a_failing_judge_and_an_error_body_name_the_call_and_the_model(tmp_path: Path) -> None:
    """A judge's provider answering HTTP 500, a 200 whose body is `{"error": ...}`, and a
    provider that trickles its reply a byte a second under `attempt_timeout`: each sample ends
    with one line naming the call and the model, within seconds."""
    data = _one_conversation(tmp_path)
    for fault, call, what in (
        ("http_500", "judge", "the provider answered HTTP 500 to every retry (InternalServerError"),
        (
            "error_200",
            "draft",
            "the provider answered an error in place of a reply (api_error: injected error_200",
        ),
        (
            "trickle",
            "draft",
            "the provider did not answer within 2 s (2 attempts, attempt_timeout 2",
        ),
    ):
        with Endpoint(EndpointConfig(faults={fault: 1.0}, max_seconds=120)) as endpoint:
            model = get_model(
                ENDPOINT_MODEL, base_url=endpoint.base_url, api_key="k", memoize=False
            )
            started = time.monotonic()
            (log,) = eval(
                default(data=str(data)),
                model="attunebench/random" if call == "judge" else model,
                model_roles={"judge": model} if call == "judge" else None,
                display="none",
                log_dir=str(tmp_path / "logs"),
                max_retries=1 if fault == "trickle" else 0,
                attempt_timeout=2 if fault == "trickle" else None,
            )
        assert time.monotonic() - started < 60
        assert log.status == "error" and log.samples is not None
        (sample,) = log.samples
        assert sample.error is not None
        message = " ".join(re.sub(r"\x1b\[[0-9;]*m", "", sample.error.message).split())
        assert message.startswith("ProviderReplyError('turn ") or message.startswith(
            'ProviderReplyError("turn '
        )
        assert what in message and f"; model {ENDPOINT_MODEL})" in message, message
        assert f" {call} call: " in message or call == "draft"


def test_a_judge_is_bound_by_its_own_attempt_timeout(tmp_path: Path) -> None:
    """`--attempt-timeout` is the model under test's: Inspect hands a model role only the
    eval's retries and timeout, so a judge that stalls is cut by the attempt_timeout of its
    role (`--model-role 'judge={model: ..., attempt_timeout: N}'`)."""
    data = _one_conversation(tmp_path)
    with Endpoint(EndpointConfig(faults={"trickle": 1.0}, max_seconds=120)) as endpoint:
        judge = get_model(
            ENDPOINT_MODEL, base_url=endpoint.base_url, api_key="k", memoize=False,
            config=GenerateConfig(attempt_timeout=2),
        )  # fmt: skip
        (log,) = eval(default(data=str(data)), model="attunebench/random",
                      model_roles={"judge": judge}, display="none",
                      log_dir=str(tmp_path / "logs"), max_retries=0)  # fmt: skip
    assert log.samples is not None and log.samples[0].error is not None
    assert "judge call: the provider did not answer within 2 s (1 attempt, attempt_timeout 2;" in (
        " ".join(log.samples[0].error.message.split())
    )


def test_a_rejudge_whose_judge_fails_is_one_line_and_leaves_the_log_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _one_conversation(tmp_path)
    (log,) = eval(default(data=str(data)), model="attunebench/random", display="none",
                  log_dir=str(tmp_path / "logs"))  # fmt: skip
    before = Path(log.location).read_bytes()
    with Endpoint(EndpointConfig(faults={"http_500": 1.0}, max_seconds=120)) as endpoint:
        monkeypatch.setenv("LOCAL_BASE_URL", endpoint.base_url)
        monkeypatch.setenv("LOCAL_API_KEY", "k")
        done = _cli("score", log.location, "--scorer", "attunebench_inspect/draft_rejudge",
                    "-S", f"judge={ENDPOINT_MODEL}", "-S", "max_retries=0", "--action", "append",
                    "--overwrite", cwd=tmp_path)  # fmt: skip
    said = _said(done)
    assert done.returncode != 0 and "Traceback" not in done.stdout + done.stderr
    assert len(said) == 1, said
    sample = read_eval_log(log.location).samples[0].id  # type: ignore[index]
    assert re.fullmatch(
        rf"draft_rejudge: sample {sample}: turn \d+ judge call: the provider answered HTTP 500 "
        r"to every retry \(InternalServerError: Error code: 500 - injected http_500; model "
        rf"{ENDPOINT_MODEL}\); nothing was written \(the log is as it was\): run the same "
        r"inspect score again once the judge answers",
        said[0],
    ), said
    assert Path(log.location).read_bytes() == before


# --- the plan --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["--variances", "nan", "9", "9", "--difference", "2"],
            "attunebench plan: error: argument --variances: must be a finite number, 0 or more; "
            "got nan",
        ),
        (
            ["--variances", "25", "9", "9", "--difference", "2", "--model", "openai/gpt-4o",
             "--price-in", "-2.5", "--price-out", "10"],
            "attunebench plan: error: argument --price-in: must be a finite number, 0 or more; "
            "got -2.5",
        ),
    ],
)  # fmt: skip
def test_the_plan_refuses_values_that_are_not_finite_or_out_of_range(
    args: list[str], line: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["plan", *args])
    assert exited.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == line


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["--max-epochs", "100000000"],
            "attunebench plan: --max-epochs must be from 1 to 100; got 100000000",
        ),
        (
            ["--difference", "500"],
            "attunebench plan: --difference must be at most 117.6 Composite points (a Composite "
            "runs from -17.6 to 100, so no two differ by more); got 500.0",
        ),
    ],
)
def test_the_plan_bounds_its_search(
    args: list[str], line: str, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["plan", "--variances", "25", "9", "9", "--difference", "2"]
    assert main([*base, *args]) == 2
    out = capsys.readouterr()
    assert out.err.splitlines() == [line] and out.out == ""


# --- a bill past the largest number ------------------------------------------------------------


def _strict(text: str) -> Any:
    """JSON as a strict reader takes it: no NaN, Infinity or -Infinity."""

    def refuse(constant: str) -> None:
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize("form", ["json", "terminal"])
def test_a_price_whose_bill_is_not_finite_is_refused_in_one_line(
    form: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each price is finite; the bill of the four modes, 1e308 US dollars times a few million
    tokens, is not: JSON would carry `Infinity`, the terminal `$inf`."""
    args = ["estimate", "--model", "openai/gpt-4o", "--price-in", "1e308", "--price-out", "10",
            "--mode", "all", "--format", form]  # fmt: skip
    assert main(args) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err.splitlines() == [
        "attunebench estimate: openai/gpt-4o (--price-in 1e+308, --price-out 10): its bill over "
        "every mode is not a finite number of US dollars; expected prices whose bill a number "
        "can hold"
    ]
    assert main([*args[:4], "1e300", *args[5:]]) == 0
    said = capsys.readouterr().out
    if form == "json":
        runs = _strict(said)["runs"]
        assert all(1e299 < run["cost_usd"] < math.inf for run in runs)
    else:  # an amount no provider charges, in powers of ten, within 120 columns
        assert "$8.68e+299" in said and "inf" not in said
        assert max(map(len, said.splitlines())) <= 120


# --- a large data set in the estimate ---------------------------------------------------------


def test_a_large_data_set_is_priced_on_a_sample_read_in_one_pass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Sizes shrunk for the test (the command prices a sample of 100 above 200 conversations):
    12 conversations, priced whole up to 4, else on a sample of 2; the bill scaled to 12."""
    monkeypatch.setattr(_bill, "PRICED_WHOLE", 4)
    monkeypatch.setattr(_bill, "SAMPLE", 2)
    files = sorted(BUNDLED.glob("*.json"))
    lines = []
    for i in range(12):
        raw = json.loads(files[i % 3].read_text())
        raw["conversationId"] = f"conversation-{i:02d}"
        lines.append(json.dumps(raw))
    big = tmp_path / "big.jsonl"
    big.write_text("\n".join(lines) + "\n", encoding="utf-8")
    args = ["estimate", "--data", str(big), "--model", "openai/gpt-4o", "--price-in", "2.5",
            "--price-out", "10", "--format", "json"]  # fmt: skip
    assert main(args) == 0
    out = capsys.readouterr()
    document = json.loads(out.out)
    assert document["data"]["conversations"] == 12 and document["data"]["priced"] == 2
    (run,) = document["runs"]
    (mode,) = document["modes"]
    assert run["conversations"] == 12
    assert run["calls"] == round(mode["total"]["calls"] * 6)
    assert (
        "attunebench estimate: 12 conversations: pricing a seeded sample of 2, the bill scaled to "
        "all 12" in out.err.splitlines()
    )
    assert main(args[:-2]) == 0
    assert "Priced on a seeded sample of 2 of the 12 conversations" in " ".join(
        capsys.readouterr().out.split()
    )


def _long_conversation(tmp_path: Path, turns: int) -> Path:
    """A bundled conversation's turns repeated to `turns` (a valid file of the published format)."""
    raw = json.loads(sorted(BUNDLED.glob("*.json"))[0].read_text())
    first = raw["turns"]
    raw["turns"] = [{**first[i % len(first)], "turnNumber": i + 1} for i in range(turns)]
    path = tmp_path / "long.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    return path


def test_a_conversation_of_many_turns_costs_the_layout_probe_and_the_estimate_a_bounded_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The layout probe reads a conversation's first LAYOUT_MAX_TURNS turns and lists the rest as
    not probed (a 1,000-turn conversation held 22 GB); the estimate refuses, in one located line,
    a conversation longer than it prices (it held 7 GB for 5 minutes)."""
    data = _long_conversation(tmp_path, 120)
    probe = probe_data(load_conversations(data, load_codebook()).conversations, 0, "long", [LAYOUT])
    (sample,) = probe.dataset
    assert len(layout_of(sample.metadata or {})) == LAYOUT_MAX_TURNS
    (past,) = [str(p) for p in probe.not_probed if "layout" in str(p)]
    assert past.startswith(f"{data}: turn {LAYOUT_MAX_TURNS + 1}: turns: found 120 turns; ")
    args = ["estimate", "--data", str(data), "--model", "m", "--price-in", "1", "--price-out", "1"]
    assert main([*args, "--tokenizer", "chars", "--contamination_layout"]) == 1
    (line,) = capsys.readouterr().err.splitlines()
    assert line.endswith(
        ": 120 turns; the estimate prices conversations of at most 100 (it builds every call, "
        "and each shows the conversation so far)"
    )


# --- answer files, killed writers --------------------------------------------------------------


def test_an_answer_file_that_leaves_out_its_page_or_version_is_refused(tmp_path: Path) -> None:
    """The page writes both; a file without its task version cannot be checked against this
    suite's questions (every file written before the field existed is of another version
    number), and the import, of a page's answers, cannot check one without its page."""
    source = resolve(None)
    cid = json.loads(sorted(BUNDLED.glob("*.json"))[0].read_text())["conversationId"]
    versioned = tmp_path / "versioned.json"
    bare = tmp_path / "bare.json"
    for path, version in ((versioned, {"task_version": TASK_VERSION}), (bare, {})):
        document = {"format": "attunebench-answers/1", "annotator": path.stem, **version,
                    "conversations": {cid: {}}}  # fmt: skip
        path.write_text(json.dumps(document), encoding="utf-8")
    _, problems, _ = check_files([versioned, bare], source, str(tmp_path / "logs"))
    assert problems == [
        f"{versioned}: page: missing; expected the exported page's id and conversations (the page "
        "saves them with task_version): the file cannot be checked against the page it was "
        "answered on (another harness's answers run with `inspect eval --model human/NAME -M "
        "answers=FILE`)",
        f"{bare}: (top level): missing the required field task_version",
    ]


def test_an_import_into_a_folder_it_cannot_write_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A read-only folder (as root, a read-only mount: permissions do not stop root, so the
    system's answer is planted): one line naming the folder, and nothing imported."""
    from tests.human_answers import one_answered

    answers = one_answered(tmp_path, load_codebook(None))
    logs = tmp_path / "logs"
    logs.mkdir()

    def read_only(*args: Any, **kwargs: Any) -> str:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(files.tempfile, "mkdtemp", read_only)
    code = main(["human", "import", str(answers), "--data", str(tmp_path / "data"),
                 "--log-dir", str(logs)])  # fmt: skip
    out = capsys.readouterr()
    assert code == 1 and out.out == ""
    assert out.err.splitlines()[-1] == (
        f"attunebench human: {logs}: found Read-only file system (EROFS); expected a writable "
        "folder"
    )
    assert list(logs.iterdir()) == []


def test_a_killed_writer_leaves_no_temporary_file_behind(tmp_path: Path) -> None:
    target = tmp_path / "r.json"
    stuck = (
        "import os, sys, time\n"
        "os.replace = lambda *a: time.sleep(600)\n"
        "from attunebench_inspect._util.files import write_atomic\n"
        "write_atomic(sys.argv[1], 'x' * 100000)\n"
    )
    child = subprocess.Popen([sys.executable, "-c", stuck, str(target)])
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob(".r.json.*.tmp")) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert list(tmp_path.glob(".r.json.*.tmp"))
    child.send_signal(signal.SIGKILL)
    child.wait()
    write_atomic(target, "whole")
    assert target.read_text() == "whole"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


# --- the chance row reruns as chance does -----------------------------------------------------


def test_the_random_baseline_answers_anew_from_epoch_2_and_keeps_epoch_1(tmp_path: Path) -> None:
    data = _one_conversation(tmp_path)

    def predictions(epochs: int) -> dict[int, list[Any]]:
        (log,) = eval(default(data=str(data)), model="attunebench/random", epochs=epochs,
                      display="none", log_dir=str(tmp_path / f"logs{epochs}"))  # fmt: skip
        assert log.samples is not None
        walks = {s.epoch: read_walk(Store(s.store)).records for s in log.samples}
        return {epoch: [records[k].prediction for k in sorted(records, key=str)]
                for epoch, records in walks.items()}  # fmt: skip

    once, twice = predictions(1), predictions(2)
    assert twice[1] == once[1]
    assert twice[2] != twice[1]


# --- logs that are links, runs reduced by another statistic ----------------------------------


def test_a_log_that_is_a_link_is_read_and_one_that_leads_nowhere_is_listed(
    baseline_logs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Inspect's listing of a folder leaves out links: the report reads a link to a log as the
    log, and lists a link to nothing as skipped, never dropping either unsaid."""
    logs = tmp_path / "logs"
    logs.mkdir()
    first, second = sorted(baseline_logs.glob("*.eval"))[:2]
    shutil.copy(first, logs)
    (logs / second.name).symlink_to(second)
    (logs / "2099-01-01T00-00-00-00-00_default_Gone.eval").symlink_to(tmp_path / "gone.eval")
    assert main(["composite", str(logs), "--resamples", "50"]) == 0
    out = capsys.readouterr()
    assert second.name in out.out and first.name in out.out
    assert "skipped: a link to no file" in out.err and "_default_Gone.eval" in out.err


def test_a_run_logged_by_another_epoch_reducer_is_ranked_by_its_mean_and_says_so(
    tmp_path: Path,
) -> None:
    logs = tmp_path / "logs"
    data = _one_conversation(tmp_path)
    for model, reducer in (("attunebench/random", "max"), ("attunebench/majority", "mean")):
        eval(default(data=str(data)), model=model, epochs=Epochs(2, reducer), display="none",
             log_dir=str(logs))  # fmt: skip
    report = build_report([logs], resamples=50)
    (aside,) = [s for s in report.skipped if s.reason.startswith("set aside")]
    assert aside.model == "attunebench/random"
    assert "logged by the max of its epochs (--epochs-reducer)" in aside.reason
    (alone,) = build_report([aside.location], resamples=50).compared
    assert alone.reducer == "max"
    assert "ranked here by their mean over epochs" in to_terminal(
        build_report([aside.location], resamples=50)
    )
