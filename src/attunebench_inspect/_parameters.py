"""What every task of the suite shares: its version, the checks of its parameters, and the data
set it loads.

`-T` values arrive YAML-parsed, Inspect checks no annotation and only warns about unknown keys:
every value is checked here, and every rejection is one line under every entry point.
"""

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
from inspect_ai.util import display_type

from .data._codebook import Codebook, load_codebook
from .data._load import LoadResult, load_conversations
from .data._problems import DataProblem, InputError, shorten
from .data._source import BUNDLED, DataSource, resolve

logger = logging.getLogger(__name__)


def _eval_yaml_version() -> str:
    data = yaml.safe_load((Path(__file__).parent / "eval.yaml").read_text(encoding="utf-8"))
    return str(data["version"])


TASK_VERSION = _eval_yaml_version()
"""From eval.yaml. The number changes when scores stop being comparable with earlier ones, the
letter when only the interface changes (README, Changelog)."""


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


def no_unknown(params: dict[str, Any], accepted: Sequence[str]) -> None:
    # Inspect passes `model` to every task that takes keyword arguments.
    unknown = sorted(k for k in params if k != "model")
    if unknown:
        raise InputError(
            f"unknown task parameter(s): {', '.join(unknown)}; "
            f"the parameters are {', '.join(accepted)}"
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

    def metadata(self, warnings: Sequence[DataProblem] = ()) -> dict[str, object]:
        """The task metadata every task records: where the data came from, what was skipped."""
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
        }


def load(data: str, codebook: str | None, skip_invalid: bool) -> Loaded:
    """The data set and codebook of a task's parameters, checked: `data` is a path or `bundled`,
    `codebook` a path or None (a data set root's own, else the bundled one)."""
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
