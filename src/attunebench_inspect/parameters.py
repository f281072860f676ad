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

from ._bundled import bundled_conversations_dir
from .data.codebook import Codebook, load_codebook
from .data.load import LoadResult, load_conversations
from .data.problems import DataProblem, InputError, shorten

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


@dataclass(frozen=True)
class Loaded:
    """A checked data set: what every task builds on."""

    book: Codebook
    source: Path
    result: LoadResult

    def metadata(self, warnings: Sequence[DataProblem] = ()) -> dict[str, object]:
        """The task metadata every task records: where the data came from, what was skipped."""
        skipped: dict[str, list[str]] = {}
        for problem in self.result.problems:
            skipped.setdefault(problem.source, []).append(str(problem))
        every = [*self.result.warnings, *warnings]
        if every:
            logger.warning(
                f"{len(every)} data warning(s), in the log's task metadata (data_warnings); "
                f"`attunebench validate {self.source}` checks the data format"
            )
        return {
            "data": str(self.source),
            "codebook": self.book.path,
            "codebook_sha256": self.book.sha256,
            "skipped_conversations": skipped,
            "data_warnings": [str(w) for w in every],
        }


def load(data: str | None, codebook: str | None, skip_invalid: bool) -> Loaded:
    """The data set and codebook of a task's parameters (None: the bundled ones), checked."""
    check("data", data, (str, type(None)), "a path")
    check("codebook", codebook, (str, type(None)), "a path")
    check("skip_invalid", skip_invalid, bool, "true or false")
    book = load_codebook(codebook)
    source = Path(data) if data is not None else bundled_conversations_dir()
    return Loaded(book, source, load_conversations(source, book, skip_invalid=skip_invalid))
