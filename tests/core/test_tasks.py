"""The tasks (attunebench.py) and what every task shares (_parameters.py): the checks of the
parameters, one located line each under `inspect eval` too; the mode tasks; what a run records."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from inspect_ai import eval, eval_set

from attunebench_inspect import attunebench, default, profile
from attunebench_inspect._parameters import EMPTY_DATA, some_of
from attunebench_inspect.data._problems import InputError
from tests.commands import BIN, inspect_eval, run_command
from tests.conftest import REPO


def test_a_mode_task_refuses_a_mode(tmp_path: Path) -> None:
    message = (
        "task parameter mode is not accepted by attunebench_inspect/default (its mode is fixed); "
        "use attunebench_inspect/attunebench -T mode=verbose or the task of that name"
    )
    with pytest.raises(InputError) as caught:
        default(mode="verbose")
    assert str(caught.value) == message
    code, output = inspect_eval("default", "-T", "mode=verbose", log_dir=tmp_path)
    assert code == 1 and "Traceback" not in output and message in output.splitlines()


@pytest.mark.parametrize(
    ("task", "parameter", "message"),
    [
        (
            "attunebench",
            "mode=chatty",
            "mode must be one of default, verbose, omniscient, verbose_omniscient; got 'chatty'",
        ),
        (
            "verbose",
            "shuffle_seed=abc",
            "task parameter shuffle_seed must be an integer; got 'abc'",
        ),
        (
            "omniscient",
            "seed=3",
            "unknown task parameter(s): seed; the parameters are data, codebook, shuffle_seed, "
            "skip_invalid, answer_format, schedule, allow_self_judge",
        ),
        (
            "default",
            "answer_format=json",
            "task parameter answer_format must be one of auto, schema, prompt; got json",
        ),
        (
            "default",
            "schedule=later",
            "task parameter schedule must be one of auto, prefix_first, all_at_once; got later",
        ),
    ],
)
def test_task_parameter_errors_print_cleanly(
    tmp_path: Path, task: str, parameter: str, message: str
) -> None:
    code, output = inspect_eval(task, "-T", parameter, log_dir=tmp_path)
    assert code == 1 and "Traceback" not in output and message in output.splitlines()


def test_static_listing_sees_all_seven_tasks() -> None:
    # `inspect list tasks` reads source files without importing them, as linters do.
    code, output = run_command(
        str(BIN / "inspect"), "list", "tasks", "src/attunebench_inspect", cwd=REPO
    )
    assert code == 0
    assert sorted(line.rsplit("@", 1)[1] for line in output.split()) == [
        "attunebench",
        "contamination",
        "default",
        "omniscient",
        "profile",
        "verbose",
        "verbose_omniscient",
    ]


@pytest.mark.parametrize("value", [None, "", "  "])
def test_an_empty_data_parameter_is_an_error_naming_it(value: Any) -> None:
    with pytest.raises(InputError) as raised:
        attunebench(data=value)
    assert str(raised.value) == EMPTY_DATA
    with pytest.raises(InputError, match="task parameter data is empty"):
        profile(data=value)


def test_an_empty_data_parameter_on_the_command_line(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            str(Path(sys.executable).with_name("inspect")),
            "eval",
            "attunebench_inspect/default",
            "--model",
            "attunebench/random",
            "-T",
            "data=",
            "--log-dir",
            str(tmp_path / "logs"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode != 0
    assert EMPTY_DATA in done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    assert not (tmp_path / "logs").exists()


def test_a_run_on_a_root_uses_its_codebook_and_names_both_digests(
    deposit: Path, tmp_path: Path
) -> None:
    log = eval(
        default(data=str(deposit)),
        model="attunebench/random",
        display="none",
        log_dir=str(tmp_path / "logs"),
        limit=1,
    )[0]
    assert log.status == "success"
    metadata = log.eval.metadata or {}
    assert metadata["codebook"] == str(deposit / "annotation_codebook.json")
    assert metadata["data"] == str(deposit / "Test Samples" / "Sample200")
    assert log.eval.task_args["data"] == str(deposit)
    name = log.eval.dataset.name or ""
    assert name == (
        f"Sample200 (data sha256 {metadata['data_sha256'][:12]}, "
        f"codebook sha256 {metadata['codebook_sha256'][:12]})"
    )
    bundled = eval(
        default(), model="attunebench/random", display="none", log_dir=str(tmp_path), limit=1
    )[0]
    assert bundled.eval.task_args["data"] == "bundled"
    assert (bundled.eval.dataset.name or "").startswith("bundled synthetic set (data sha256 ")
    # Runs on different data are told apart by their digests.
    assert bundled.eval.metadata["data_sha256"] != metadata["data_sha256"]  # type: ignore[index]


def test_task_parameters_are_checked(small_dataset: Callable[[int], Path]) -> None:
    with pytest.raises(ValueError, match="mode must be one of default, verbose, omniscient"):
        attunebench(mode="chatty")
    with pytest.raises(ValueError, match="unknown task parameter"):
        default(shufle_seed=3)
    with pytest.raises(ValueError, match="shuffle_seed must be an integer"):
        default(shuffle_seed="three")
    with pytest.raises(ValueError, match="skip_invalid must be true or false"):
        default(skip_invalid="yes please")
    with pytest.raises(ValueError, match="nothing at this path"):
        default(data="/nonexistent/folder")


def test_unknown_cli_parameter_is_an_error(small_dataset: Callable[[int], Path]) -> None:
    data = small_dataset(1)
    result = subprocess.run(
        [
            str(Path(sys.executable).parent / "inspect"),
            "eval",
            "attunebench_inspect/default",
            "--model",
            "attunebench/random",
            "-T",
            f"data={data}",
            "-T",
            "shufle_seed=2",
            "--log-dir",
            str(data.parent / "cli-logs"),
            "--display",
            "none",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode != 0
    assert "unknown task parameter(s): shufle_seed" in result.stdout + result.stderr


def test_eval_set_over_models_and_modes(
    tmp_path: Path, small_dataset: Callable[[int], Path]
) -> None:
    data = str(small_dataset(1))
    success, logs = eval_set(
        [attunebench(mode="default", data=data), attunebench(mode="verbose", data=data)],
        model=["attunebench/random", "attunebench/majority"],
        log_dir=str(tmp_path / "set"),
        display="none",
    )
    assert success and len(logs) == 4
    assert {(log.eval.model, log.eval.metadata["mode"]) for log in logs if log.eval.metadata} == {
        (m, mode)
        for m in ("attunebench/random", "attunebench/majority")
        for mode in ("default", "verbose")
    }


# --- a parameter naming some of its choices (the contamination probe's methods) ----------------

METHODS = ("guided", "layout")


@pytest.mark.parametrize(
    ("value", "line"),
    [
        (
            "guided,,layout",
            "task parameter methods: an empty name (a comma too many, or one at either end); "
            "expected some of guided, layout, comma-separated; got guided,,layout",
        ),
        (
            ",layout",
            "task parameter methods: an empty name (a comma too many, or one at either end); "
            "expected some of guided, layout, comma-separated; got ,layout",
        ),
        (
            "guided,lay out",
            "task parameter methods: unknown lay out; expected some of guided, layout, "
            "comma-separated",
        ),
        ([], "task parameter methods must be some of guided, layout, comma-separated; got []"),
        (None, "task parameter methods must be some of guided, layout, comma-separated; got None"),
        (
            ["guided", 1],
            "task parameter methods must be some of guided, layout, comma-separated; got "
            "['guided', 1]",
        ),
    ],
)
def test_some_of_refuses_in_one_line(value: object, line: str) -> None:
    with pytest.raises(InputError) as raised:
        some_of("methods", value, METHODS)
    assert str(raised.value) == line


@given(st.lists(st.sampled_from(METHODS), min_size=1), st.booleans(), st.booleans())
def test_some_of_gives_the_names_once_in_their_order(
    names: list[str], as_text: bool, spaced: bool
) -> None:
    joined = (", " if spaced else ",").join(names)
    chosen = some_of("methods", joined if as_text else names, METHODS)
    assert chosen == [m for m in METHODS if m in names]
