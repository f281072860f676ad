"""What every task of the suite shares: its version, the checks of its parameters, and the data
set it loads.

`-T` values arrive YAML-parsed, Inspect checks no annotation and only warns about unknown keys:
every value is checked here, and every rejection is one line under every entry point."""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import rich
import yaml
from inspect_ai.log import read_eval_log
from inspect_ai.model import Model
from inspect_ai.util import display_type

from .data._codebook import Codebook, load_codebook
from .data._load import LoadResult, load_conversations
from .data._problems import DataProblem, InputError, shorten
from .data._source import BUNDLED, DataSource, resolve
from .solve._credentials import ADVICE, masked

logger = logging.getLogger(__name__)


def _eval_yaml_version() -> str:
    data = yaml.safe_load((Path(__file__).parent / "eval.yaml").read_text(encoding="utf-8"))
    return str(data["version"])


TASK_VERSION = _eval_yaml_version()
"""From eval.yaml. The number changes when scores stop being comparable with earlier ones, the
letter when only the interface changes (README, Changelog)."""
CONTROL_SAMPLES = "control_samples"
"""Task metadata: the IDs of samples a task runs beside its data set's conversations (the
likelihood method's never-published controls); a run's conversations leave them out."""


@contextmanager
def told() -> Iterator[None]:
    """Inspect's CLI prints an InputError (a PrerequisiteError) as its message alone, except
    under --display none, which silences its console and would lose the message: print it then."""
    try:
        yield
    except InputError as error:
        if display_type() == "none":
            print(error, file=sys.stderr)
        # Inspect's exception hook prints the message with rich, which wraps at the terminal's
        # width (80 columns in a pipe or a CI log): unwrapped, each problem stays one line.
        rich.get_console().soft_wrap = True
        raise


def check(name: str, value: object, kind: type | tuple[type, ...], expected: str) -> None:
    if (isinstance(value, bool) and kind is not bool) or not isinstance(value, kind):
        raise InputError(f"task parameter {name} must be {expected}; got {value!r}")


def one_of(name: str, value: object, allowed: Sequence[str]) -> None:
    if not isinstance(value, str) or value not in allowed:
        raise InputError(
            f"task parameter {name} must be one of {', '.join(allowed)}; got {shorten(value)}"
        )


def some_of(name: str, value: object, allowed: Sequence[str]) -> list[str]:
    """A parameter naming one or more of `allowed`, comma-separated (`-T methods=guided,layout`)
    or as a list: the names, in `allowed`'s order, each once; one line for an empty list, an
    empty name (a comma too many) or an unknown one. (`-T methods=,layout` never reaches a
    task: Inspect's command line reads `-T` values as YAML, where a leading comma is an error.)"""
    expected = f"some of {', '.join(allowed)}, comma-separated"
    given = value.split(",") if isinstance(value, str) else value
    if not isinstance(given, list) or not given or not all(isinstance(g, str) for g in given):
        raise InputError(f"task parameter {name} must be {expected}; got {shorten(value)}")
    names = [g.strip() for g in given]
    if "" in names:
        raise InputError(
            f"task parameter {name}: an empty name (a comma too many, or one at either end); "
            f"expected {expected}; got {shorten(value)}"
        )
    unknown = [n for n in names if n not in allowed]
    if unknown:
        raise InputError(
            f"task parameter {name}: unknown {', '.join(unknown)}; expected {expected}"
        )
    return [a for a in allowed if a in names]


def no_unknown(params: dict[str, Any], accepted: Sequence[str]) -> None:
    # Inspect may pass the model under test as `model` to a task that takes keyword arguments
    # (inspect_ai/_eval/registry.py says it always does); `-T model=foo` is a user's string.
    unknown = sorted(k for k in params if not (k == "model" and isinstance(params[k], Model)))
    if unknown:
        model = " (the model under test is --model, not -T model=)" if "model" in unknown else ""
        raise InputError(
            f"unknown task parameter(s): {', '.join(unknown)}; "
            f"the parameters are {', '.join(accepted)}{model}"
        )


EMPTY_DATA = (
    "task parameter data is empty (an unset shell variable in -T data=$VAR?); expected a data "
    f"set path, or no data parameter for the bundled synthetic set (data={BUNDLED})"
)


@dataclass(frozen=True)
class Loaded:
    """A checked data set: what every task builds on."""

    book: Codebook
    source: DataSource
    result: LoadResult

    @property
    def codebook_param(self) -> str | None:
        """The codebook as the scorers look it up (None: the bundled one)."""
        return None if self.source.codebook is None else str(self.source.codebook)

    @property
    def dataset_name(self) -> str:
        """The name of the run's data set in its log (`inspect view` shows it beside CONFIG):
        which data set, and the digests that tell two runs on different data or codebooks apart."""
        name = "bundled synthetic set" if self.source.bundled else self.source.conversations.name
        return (
            f"{name} (data sha256 {self.result.sha256[:12]}, "
            f"codebook sha256 {self.book.sha256[:12]})"
        )

    def metadata(
        self, warnings: Sequence[DataProblem] = (), controls: Sequence[str] = ()
    ) -> dict[str, object]:
        """The task metadata every task records: where the data came from, what was skipped,
        which samples are controls rather than conversations of the data set."""
        skipped: dict[str, list[str]] = {}
        for problem in self.result.problems:
            skipped.setdefault(problem.source, []).append(str(problem))
        every = [*self.result.warnings, *warnings]
        if every:
            logger.warning(
                f"{len(every)} data warning(s), in the log's task metadata (data_warnings); "
                f"`{self.source.validate_command()}` checks the data format"
            )
        return {
            "data": str(self.source.conversations),
            "data_sha256": self.result.sha256,
            "codebook": self.book.path,
            "codebook_sha256": self.book.sha256,
            "skipped_conversations": skipped,
            "data_warnings": [str(w) for w in every],
            CONTROL_SAMPLES: sorted(controls),
        }


def _inspect_arguments() -> list[str]:
    """The arguments of the `inspect` command this process runs ([] under Python's `eval()`)."""
    return sys.argv[1:] if sys.argv and Path(sys.argv[0]).name == "inspect" else []


def _option(arguments: Sequence[str], name: str) -> str | None:
    """The value of `--name` on a command line (`--name VALUE` or `--name=VALUE`)."""
    for index, argument in enumerate(arguments):
        if argument.startswith(f"{name}="):
            return argument.partition("=")[2]
        if argument == name and index + 1 < len(arguments):
            return arguments[index + 1]
    return None


def _older_log(location: str) -> str | None:
    """Why `eval-retry` must not resume a log: one of this suite's tasks at another version."""
    try:
        header = read_eval_log(location, header_only=True)
    except Exception:  # not a log: Inspect's own eval-retry says so
        return None
    version = str(header.eval.task_version)
    ours = "codebook_sha256" in (header.eval.metadata or {})
    if not ours or version == TASK_VERSION:
        return None
    return (
        f"{location}: a log of task version {version} cannot be resumed at task version "
        f"{TASK_VERSION}: the new log would carry samples made by another protocol under the "
        f"current version; run the task again with inspect eval (attunebench report "
        f"--task-version {version} still reports the old log)"
    )


def _empty_range(limit: str) -> bool:
    """Whether `--limit FIRST-LAST` selects nothing: Inspect counts from 1 and slices
    `[FIRST - 1:LAST]`, so a first of 0 (the slice from the last sample) or a first after the
    last gives a run without samples, whose status is success."""
    first, dash, last = limit.partition("-")
    if not (dash and first.isdigit() and last.isdigit()):
        return False
    return int(first) < 1 or int(first) > int(last)


def check_command_line() -> None:
    """What the `inspect` command line asks that a task sees nowhere else, checked before Inspect
    acts on it: `--epochs` below 1 (Inspect runs one epoch for 0 and ends in a traceback below
    it), a `--limit` range that selects no conversation, a `--model-base-url` carrying
    credentials (Inspect would write it into the log header), and `eval-retry` of a log of
    another task version (Inspect would stamp its samples with the current version). Python's
    `eval()` and `eval_retry()` are not seen here, and neither is what Inspect's command line
    refuses before it loads a task (`--limit -1`, a `-T` value that is not YAML)."""
    arguments = _inspect_arguments()
    if arguments[:1] in (["eval"], ["eval-set"]):
        epochs = _option(arguments, "--epochs")
        if epochs is not None and epochs.lstrip("-").isdigit() and int(epochs) < 1:
            raise InputError(
                f"--epochs {epochs}: the number of epochs must be 1 or more (each epoch runs "
                "every conversation once)"
            )
        limit = _option(arguments, "--limit")
        if limit is not None and _empty_range(limit):
            raise InputError(
                f"--limit {limit}: a range FIRST-LAST counts conversations from 1, its first at "
                "most its last (--limit 3-10: the 3rd to the 10th); this one selects none"
            )
        shown = masked(_option(arguments, "--model-base-url") or "")
        if shown is not None:
            raise InputError(
                f"--model-base-url {shown} carries credentials, which Inspect would write into "
                f"the log header (eval.model_base_url); {ADVICE}"
            )
    elif arguments[:1] == ["eval-retry"]:
        logs = [a for a in arguments[1:] if a.endswith((".eval", ".json")) and Path(a).is_file()]
        problems = [p for p in map(_older_log, logs) if p]
        if problems:
            raise InputError(problems[0])


def load(data: str, codebook: str | None, skip_invalid: bool) -> Loaded:
    """The data set and codebook of a task's parameters, checked: `data` is a path or `bundled`,
    `codebook` a path or None (a data set root's own, else the bundled one). The `inspect`
    command line is checked first (`check_command_line`): every task loads its data here."""
    check_command_line()
    if data is None or (isinstance(data, str) and not data.strip()):
        raise InputError(EMPTY_DATA)
    check("data", data, str, f"a path, or {BUNDLED}")
    check("codebook", codebook, (str, type(None)), "a path")
    check("skip_invalid", skip_invalid, bool, "true or false")
    source = resolve(data, codebook)
    book = load_codebook(source.codebook)
    hint = f"check it with `{source.validate_command()}`"
    if not skip_invalid:
        hint += "; pass -T skip_invalid=true to run without the invalid conversations"
    result = load_conversations(source.conversations, book, skip_invalid, hint=hint)
    return Loaded(book, source, result)
